/* A plan built in C, without a problem file: a Riemannian cubic on the sphere S² that
 * starts at y0 = (1, 0, 0) with body velocity (0, 0, 1) and passes near two keyframes.
 * sp_problem_defaults gives everything a file may leave out (scheme, retraction, solver
 * and plan tolerances, the optimiser); the program sets the rest and calls the same
 * solver as `symplan solve`.
 *
 *     cc plan_in_c.c $(pkg-config --cflags --libs symplan) -o plan_in_c && ./plan_in_c
 *
 * Exits 0 when the plan converged. */
#include <stdio.h>

#include <symplan/symplan.h>

int main(void)
{
    sp_problem pb;
    sp_problem_defaults(&pb); /* a cubic-spline plan on SO(3) with sphere targets */
    pb.T = 1.0;
    pb.steps = 100;
    pb.xi0[2] = 1.0;
    pb.cubic.y0[0] = 1.0;
    pb.cubic.sigma = 0.1; /* keyframe weight; 0 asks for exact interpolation */

    /* unit directions at increasing times in (0, T]; the array is ours, so the program
     * does not call sp_problem_free (which frees a read problem's targets) */
    sp_cubic_target targets[2] = {{.t = 0.5, .y = {0.6, 0.8, 0.0}}, {.t = 1.0, .y = {0.0, 1.0, 0.0}}};
    pb.cubic.targets = targets;
    pb.cubic.n_targets = 2;

    /* the limits a problem file is checked against (steps, memory) */
    sp_input_error err;
    if (sp_problem_check_limits(&pb, NULL, &err) != SP_OK) {
        fprintf(stderr, "%s: %s\n", err.path, err.message);
        return 1;
    }
    cJSON *result = sp_solve_json(&pb, NULL);
    if (!result) return 1;
    char why[256] = "";
    if (sp_result_outcome(result) != SP_OUTCOME_DONE) sp_result_explain(result, why, sizeof why);
    printf("plan on S^2, %d steps: %s, cost %.12g%s%s\n", pb.steps,
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status")),
           cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "cost")), why[0] ? " — " : "", why);
    /* the distance to each keyframe */
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(result, "targets"))
        printf("  t = %-4g distance %.6g\n", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "t")),
               cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "distance")));
    const int ok = sp_result_outcome(result) == SP_OUTCOME_DONE;
    cJSON_Delete(result);
    return ok ? 0 : 1;
}
