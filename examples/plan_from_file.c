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
    sp_problem pb;
    sp_input_error err;
    /* reads, validates and applies the defaults to whatever the file leaves out */
    if (sp_problem_read_file(path, &pb, &err) != SP_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, err.path, err.message);
        return 1;
    }
    cJSON *result = sp_solve_json(&pb, NULL); /* no progress reports, no stop flag */
    sp_problem_free(&pb);
    if (!result) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(result, "status");
    const cJSON *cost = cJSON_GetObjectItemCaseSensitive(result, "cost");
    printf("symplan %s: %s: %s, cost %.12g\n", sp_version(), path, cJSON_GetStringValue(status),
           cJSON_GetNumberValue(cost));

    /* the result file, written whole or not at all (sp_result_file.h) */
    sp_output out;
    char why[256];
    int ok = sp_result_outcome(result) == SP_OUTCOME_DONE;
    if (argc > 2 && (sp_output_open(&out, argv[2], why, sizeof why) != SP_OK ||
                     sp_output_commit(&out, result, why, sizeof why) != SP_OK)) {
        fprintf(stderr, "cannot write the result: %s\n", why);
        ok = 0;
    }
    cJSON_Delete(result);
    return ok ? 0 : 1;
}
