/* Plan from a problem file: read data/sphere_interpolation.json (or the file named
 * first on the command line), solve it, print how it ended and its cost and, when a
 * second argument names one, write the whole result there the way `symplan solve -o`
 * does.
 *
 *     cc plan_from_file.c $(pkg-config --cflags --libs symplan) -o plan_from_file
 *     ./plan_from_file data/sphere_interpolation.json result.json
 *
 * Exits 0 when the plan converged, 1 otherwise. */
#include <stdio.h>

#include <symplan/symplan.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "data/sphere_interpolation.json";
    char error[512];
    symplan_problem *pb;
    /* reads and checks the whole file; what a file leaves out takes its default */
    if (symplan_problem_read_file(path, &pb, error, sizeof error) != SP_OK) {
        fprintf(stderr, "%s: %s\n", path, error);
        return 1;
    }
    symplan_result *result;
    sp_status st = symplan_solve(pb, NULL, &result, error, sizeof error); /* NULL: no stop flag */
    symplan_problem_free(pb);
    if (st != SP_OK) {
        fprintf(stderr, "%s: %s\n", path, error);
        return 1;
    }
    const symplan_status status = symplan_result_status(result);
    printf("symplan %s: %s: %s, cost %.12g\n", sp_version(), path, symplan_status_name(status),
           symplan_result_cost(result));

    /* the result file, written whole or not at all */
    int ok = symplan_status_done(status);
    if (argc > 2 && symplan_result_write(result, argv[2], error, sizeof error) != SP_OK) {
        fprintf(stderr, "cannot write the result: %s\n", error);
        ok = 0;
    }
    symplan_result_free(result);
    return ok ? 0 : 1;
}
