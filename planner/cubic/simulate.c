/* Simulate task for cubic splines: the HOHP initial value problem from (g0, ξ0, ν0, p0)
 * with the drift of every invariant the scheme keeps. */
#include <math.h>
#include <stdlib.h>

#include "planner/cubic/sp_plan.h"
#include "planner/sp_solve.h"
#include "lie/sp_linalg.h"
#include "problems/sp_result_file.h"

typedef struct drift {
    double M0[SP_LIE_MAX_DIM], C0[SP_LIE_MAX_DIM], casimir0, H0;
    double momentum_map, right_momentum, casimir, energy;
} drift;

static void drift_start(drift *d, const sp_group *G, const sp_hohp_state *z)
{
    *d = (drift){0};
    sp_hohp_momentum_map(G, z, d->M0);
    sp_hohp_right_momentum(G, z, d->C0);
    d->casimir0 = sp_vec_norm(G->dim, z->nu);
    d->H0 = sp_hohp_energy(G, z);
}

/* Relative changes, measured against the size of each quantity at the start
 * (|ξ||p| + |ν| for the right-action momentum). */
static void drift_update(drift *d, const sp_group *G, const sp_hohp_state *z)
{
    const int n = G->dim;
    double M[SP_LIE_MAX_DIM], C[SP_LIE_MAX_DIM];
    sp_hohp_momentum_map(G, z, M);
    sp_hohp_right_momentum(G, z, C);
    double tiny = 1e-300;
    d->momentum_map = fmax(d->momentum_map, sp_vec_dist(n, M, d->M0) / fmax(sp_vec_norm(n, d->M0), tiny));
    double c_scale = sp_vec_norm(n, z->xi) * sp_vec_norm(n, z->p) + sp_vec_norm(n, z->nu);
    d->right_momentum = fmax(d->right_momentum, sp_vec_dist(n, C, d->C0) / fmax(c_scale, tiny));
    d->casimir = fmax(d->casimir, fabs(sp_vec_norm(n, z->nu) - d->casimir0) / fmax(d->casimir0, tiny));
    d->energy = fmax(d->energy, fabs(sp_hohp_energy(G, z) - d->H0));
}

cJSON *sp_simulate_json(const sp_problem *pb, const sp_progress *progress)
{
    const sp_group *G = pb->cubic.group;
    const int N = pb->steps, n = G->dim;
    const double h = pb->T / N;
    sp_hohp_config cfg = {.group = G,
                          .retraction = pb->retraction,
                          .theta = pb->scheme->theta,
                          .solver = pb->solver,
                          .solve = {.tol = pb->solver_tol, .max_iter = 50}};
    sp_hohp *stepper = sp_hohp_alloc(&cfg);
    sp_hohp_state *z = malloc(((size_t)N + 1) * sizeof *z);
    double *t = malloc(((size_t)N + 1) * sizeof *t);
    if (!stepper || !z || !t) {
        sp_hohp_free(stepper);
        free(z);
        free(t);
        return NULL;
    }
    sp_vec_copy(G->elem_size, pb->g0, z[0].g);
    sp_vec_copy(n, pb->xi0, z[0].xi);
    sp_vec_copy(n, pb->nu0, z[0].nu);
    sp_vec_copy(n, pb->p0, z[0].p);
    t[0] = 0.0;
    drift d;
    drift_start(&d, G, &z[0]);
    sp_status st = SP_OK;
    int k = 0, max_iterations = 0;
    long total_iterations = 0;
    for (; k < N; ++k) {
        if (sp_progress_stopped(progress)) {
            st = SP_ERR_INTERRUPTED;
            break;
        }
        sp_hohp_interval iv;
        st = sp_hohp_step(stepper, h, &z[k], &z[k + 1], &iv);
        if (st != SP_OK) break;
        t[k + 1] = (k + 1) * h;
        total_iterations += iv.iterations;
        if (iv.iterations > max_iterations) max_iterations = iv.iterations;
        drift_update(&d, G, &z[k + 1]);
    }

    cJSON *root = sp_simulate_result_new(pb, st, k);
    cJSON_AddNumberToObject(root, "h", h);
    cJSON_AddItemToObject(root, "trajectory", sp_trajectory_json(G, z, t, k + 1, NULL));
    cJSON *diag = cJSON_AddObjectToObject(root, "diagnostics");
    cJSON_AddNumberToObject(diag, "momentum_map_drift", d.momentum_map);
    cJSON_AddNumberToObject(diag, "right_momentum_drift", d.right_momentum);
    cJSON_AddNumberToObject(diag, "casimir_drift", d.casimir);
    cJSON_AddNumberToObject(diag, "energy_error", d.energy);
    if (d.H0 != 0.0) cJSON_AddNumberToObject(diag, "energy_error_relative", d.energy / fabs(d.H0));
    cJSON *solve = cJSON_AddObjectToObject(root, "implicit_solve");
    cJSON_AddStringToObject(solve, "solver", sp_hohp_solver_name(pb->solver));
    cJSON_AddNumberToObject(solve, "mean_iterations", k ? (double)total_iterations / k : 0.0);
    cJSON_AddNumberToObject(solve, "max_iterations", max_iterations);
    cJSON *settings = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddStringToObject(settings, "group", G->name);
    cJSON_AddStringToObject(settings, "scheme", pb->scheme->name);
    cJSON_AddStringToObject(settings, "retraction", pb->retraction->name);
    sp_hohp_free(stepper);
    free(z);
    free(t);
    return root;
}
