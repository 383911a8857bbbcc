/* make bench, part holonomic_lobatto: Lobatto IIIA–IIIB for holonomic constraints
 * (lobatto3, lobatto4, lobatto5 of integrators/sp_holonomic.h) against the RATTLE
 * compositions of order 8 and 10 (rattle_kl8, rattle_kl10) on the spherical pendulum of
 * the holonomic part (q0 = (0, 1, 0), p0 = (1, 0, 1), T = 10) and on a planar double
 * pendulum (masses 1 and 2, unit rods and gravity, from rest at 0.5 and 0.3 rad, T = 10):
 * for a global error of 1e-8 and 1e-10 in (q, p) at T, the cheapest run of each method's
 * sweep of step counts N = 8·2^{k/4} that reaches it — its time, the time per step, the
 * model evaluations and Newton iterations per step, the constraint residuals it ends
 * with — and its time over rattle_kl8's for the same target, measured in the same run.
 * The reference is rattle_kl10 with 4000 steps (on the spherical pendulum checked against
 * the independently computed state of the holonomic part). Times are the best of 7
 * batches of at least 20 ms, the methods of a target taking turns batch by batch so that
 * a change of the machine's load falls on all of them. No verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "integrators/sp_holonomic.h"
#include "lie/sp_linalg.h"
#include "tests/step_fixtures.h"

#define ROUNDS 7
#define MIN_BATCH 0.02
#define T_END 10.0

/* ---- the two models, counting their evaluations (calls of V or g) */

static int sphere_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    ++*(long *)params;
    (void)hess;
    if (V) *V = q[2];
    if (grad) grad[0] = grad[1] = 0.0, grad[2] = 1.0;
    return 0;
}

static int sphere_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    ++*(long *)params;
    (void)d2g;
    if (g) g[0] = 0.5 * (sp_vec_dot(3, q, q) - 1.0);
    if (G) memcpy(G, q, 3 * sizeof *G);
    return 0;
}

typedef struct problem {
    const char *name;
    int n;
    const double *mass, *z0;
    int (*potential)(const double *, double *, double *, double *, void *);
    int (*constraints)(const double *, double *, double *, double *, void *);
} problem;

static const double unit_mass[3] = {1, 1, 1};
static const double sphere_z0[6] = {0, 1, 0, 1, 0, 1};
static const double double_z0[8] = {0.479425538604203, -0.8775825618903728, 0.7749457452655426, -1.8329190510159787,
                                    0, 0, 0, 0};

/* One run: N steps over [0, T_END]; z gets the end state. */
typedef struct run_ctx {
    const problem *pb;
    const char *method;
    long N;
    double z[8];
    long calls, newton;
    int ok;
} run_ctx;

static void one_run(void *ctx)
{
    run_ctx *r = ctx;
    const problem *pb = r->pb;
    const int n = pb->n;
    r->calls = r->newton = 0;
    sp_holonomic_model md = {n, n == 3 ? 1 : 2, pb->mass, pb->potential, pb->constraints, &r->calls, NULL};
    sp_holonomic *s = sp_holonomic_alloc(&md, sp_holonomic_method_by_name(r->method));
    sp_vec_copy(2 * n, pb->z0, r->z);
    r->ok = s != NULL;
    for (long k = 0; r->ok && k < r->N; ++k) {
        r->ok = sp_holonomic_step(s, T_END / (double)r->N, r->z, r->z + n) == SP_OK;
        r->newton += sp_holonomic_iterations(s);
    }
    r->ok = r->ok && sp_vec_isfinite(2 * n, r->z);
    sp_holonomic_free(s);
}

typedef struct reached {
    int ok;
    long N, calls, newton;
    double error, seconds, g, hidden;
} reached;

/* The cheapest run of the sweep, from step *from on, whose error at T is within target. */
static reached cheapest(const problem *pb, const char *method, const double *ref, double target, int *from)
{
    const int n = pb->n;
    for (int k = *from; k < 64; ++k) {
        run_ctx r = {.pb = pb, .method = method, .N = lround(8.0 * pow(2.0, 0.25 * k))};
        if (r.N > 40000) break;
        one_run(&r);
        if (!r.ok) continue;
        const double err = bench_max_abs_diff(2 * n, r.z, ref);
        if (err > target) continue;
        reached out = {.ok = 1, .N = r.N, .calls = r.calls, .newton = r.newton, .error = err};
        sp_holonomic_model md = {n, n == 3 ? 1 : 2, pb->mass, pb->potential, pb->constraints, &r.calls, NULL};
        sp_holonomic *s = sp_holonomic_alloc(&md, sp_holonomic_method_by_name(method));
        sp_holonomic_residuals(s, r.z, r.z + n, &out.g, &out.hidden);
        sp_holonomic_free(s);
        *from = k;
        return out;
    }
    return (reached){0};
}

static void compare(const problem *pb)
{
    static const char *const methods[] = {"rattle_kl8", "rattle_kl10", "lobatto3", "lobatto4", "lobatto5"};
    static const double targets[] = {1e-8, 1e-10};
    enum { M = sizeof methods / sizeof *methods, K = sizeof targets / sizeof *targets };
    const int n = pb->n;
    run_ctx ref = {.pb = pb, .method = "rattle_kl10", .N = 4000}, half = {.pb = pb, .method = "rattle_kl10", .N = 2000};
    one_run(&ref);
    one_run(&half);
    printf("\nholonomic_lobatto: %s, T = %g, max-abs error in (q, p) against rattle_kl10 with 4000 steps\n", pb->name,
           T_END);
    printf("(which 2000 steps change by %.1e)\n", bench_max_abs_diff(2 * n, ref.z, half.z));
    if (n == 3) {
        static const double independent[6] = {0.34441893954461666, -0.6799604623641684, -0.6473247745158558,
                                               -0.8034844840761062, -1.3171816837508794, 0.9560829696622056};
        printf("(the reference differs from the independently computed state by %.1e)\n",
               bench_max_abs_diff(6, ref.z, independent));
    }
    reached best[M][K];
    for (int i = 0; i < M; ++i) {
        int from = 0;
        for (int k = 0; k < K; ++k) best[i][k] = cheapest(pb, methods[i], ref.z, targets[k], &from);
    }
    /* the runs of a target timed in turns: one batch of each, ROUNDS times, the best kept */
    for (int k = 0; k < K; ++k) {
        for (int i = 0; i < M; ++i) best[i][k].seconds = INFINITY;
        for (int round = 0; round < ROUNDS; ++round)
            for (int i = 0; i < M; ++i) {
                if (!best[i][k].ok) continue;
                run_ctx r = {.pb = pb, .method = methods[i], .N = best[i][k].N};
                best[i][k].seconds = fmin(best[i][k].seconds, bench_best_time(one_run, &r, 1, MIN_BATCH));
            }
    }
    printf("%-12s %7s %6s %10s %10s %9s %8s %8s %9s %9s %10s\n", "method", "target", "N", "error", "time [ms]",
           "us/step", "evals", "it/step", "|g|", "|GM^-1p|", "vs kl8");
    for (int k = 0; k < K; ++k)
        for (int i = 0; i < M; ++i) {
            const reached *r = &best[i][k];
            if (!r->ok) {
                printf("%-12s %7.0e %6s\n", methods[i], targets[k], "not reached");
                continue;
            }
            char ratio[16] = "-";
            if (best[0][k].ok) snprintf(ratio, sizeof ratio, "%.2f", r->seconds / best[0][k].seconds);
            printf("%-12s %7.0e %6ld %10.2e %10.3f %9.2f %8.1f %8.2f %9.1e %9.1e %10s\n", methods[i], targets[k], r->N,
                   r->error, 1e3 * r->seconds, 1e6 * r->seconds / (double)r->N, (double)r->calls / (double)r->N,
                   (double)r->newton / (double)r->N, r->g, r->hidden, ratio);
        }
    printf("(evals: calls of V or g per step; it/step: Newton iterations per step, over all of a composition's\n"
           " substeps; vs kl8: time over rattle_kl8's for the same target)\n");
}

void bench_holonomic_lobatto(void)
{
    static const problem sphere = {"spherical pendulum", 3, unit_mass, sphere_z0, sphere_potential, sphere_constraint};
    static const problem dbl = {"double pendulum",         4, fixture_double_mass, double_z0, fixture_double_potential,
                                fixture_double_constraints};
    compare(&sphere);
    compare(&dbl);
}
