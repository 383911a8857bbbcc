/* make bench, part warm_start: what starting an implicit step from the last steps saves,
 * for the three families that predict their unknowns from the steps before
 * (integrators/sp_hohp.h, sp_prop7.h, sp_nh_lie.h). Each run is made twice in the same
 * process: "plain" resets the stepper before every step (the plain start of the first
 * step, every time), "predicted" lets it continue; the Lie-group nonholonomic stepper also
 * runs with opt.newton.warm_start (simplified Newton with a kept finite-difference
 * Jacobian). Printed per run: Newton (or fixed-point) iterations per step, µs per step
 * (best of 5 batches of ≥ 20 ms) and the time ratio predicted/plain; for the nonholonomic
 * stepper also the finite-difference Jacobians per step. Both HOHP columns stop Newton by
 * its quadratic rate. No verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "integrators/sp_hohp.h"
#include "integrators/sp_nh_lie.h"
#include "integrators/sp_prop7.h"
#include "problems/holonomic/sp_s3_contact.h"
#include "problems/nonholonomic/sp_nh_lie_models.h"

#define REPEATS 5
#define MIN_BATCH 0.02

/* What a timed run leaves: its work per step, and whether every step succeeded. */
typedef struct run_work {
    double iterations, jacobians; /* per step */
    int ok;
} run_work;

/* ---------------------------------------------------------------------- HOHP -- */

typedef struct hohp_run {
    sp_hohp *s;
    int N, plain;
    run_work w;
} hohp_run;

/* T = 1 on SO(3) from the momenta near the optimum of instance A (bench.c). */
static void hohp_integrate(void *ctx)
{
    hohp_run *r = ctx;
    sp_hohp_state z = {.xi = {0.0, 0.0, 1.0}, .nu = {3.2, -11.4, 9.8}, .p = {-0.2, -3.2, 3.4}};
    sp_group_so3->identity(sp_group_so3, z.g);
    long it = 0;
    r->w.ok = 1;
    for (int k = 0; k < r->N && r->w.ok; ++k) {
        sp_hohp_interval iv;
        if (r->plain) sp_hohp_reset(r->s);
        r->w.ok = sp_hohp_step(r->s, 1.0 / r->N, &z, &z, &iv) == SP_OK;
        it += iv.iterations;
    }
    r->w.iterations = (double)it / r->N;
}

static void bench_hohp(void)
{
    printf("\nHOHP θ = ½ on SO(3), Cayley, T = 1 (|ν| = 15): the interval momentum extrapolated\n");
    printf("%-12s %7s %21s %21s %7s\n", "solver", "h", "iterations/step", "us/step", "ratio");
    printf("%-12s %7s %10s %10s %10s %10s\n", "", "", "plain", "predicted", "plain", "predicted");
    for (int solver = 0; solver < 2; ++solver)
        for (int N = 100; N <= 10000; N *= 10) {
            sp_hohp_config c = sp_hohp_config_default(sp_group_so3);
            c.solver = solver ? SP_HOHP_FIXED_POINT : SP_HOHP_NEWTON;
            hohp_run r[2];
            double t[2];
            for (int v = 0; v < 2; ++v) {
                r[v] = (hohp_run){.s = sp_hohp_alloc(&c), .N = N, .plain = v == 0};
                if (!r[v].s) return;
                t[v] = bench_best_time(hohp_integrate, &r[v], REPEATS, MIN_BATCH) / N;
                sp_hohp_free(r[v].s);
            }
            printf("%-12s %7.0e %10.3f %10.3f %10.3f %10.3f %7.2f%s\n", sp_hohp_solver_name(c.solver), 1.0 / N,
                   r[0].w.iterations, r[1].w.iterations, 1e6 * t[0], 1e6 * t[1], t[1] / t[0],
                   r[0].w.ok && r[1].w.ok ? "" : "  (failed)");
        }
}

/* ------------------------------------------------------------------- Prop. 7 -- */

typedef struct prop7_run {
    sp_prop7 *s;
    double h;
    int N, plain;
    run_work w;
} prop7_run;

/* The S³ contact problem of data/s3_contact.json. */
static void prop7_integrate(void *ctx)
{
    prop7_run *r = ctx;
    double q[4] = {1, 0, 0, 0}, p[4] = {0, 0.3, 0.8, 0};
    long it = 0;
    r->w.ok = 1;
    for (int k = 0; k < r->N && r->w.ok; ++k) {
        if (r->plain) sp_prop7_reset(r->s);
        r->w.ok = sp_prop7_step(r->s, r->h, q, p) == SP_OK;
        it += sp_prop7_iterations(r->s);
    }
    r->w.iterations = (double)it / r->N;
}

static void bench_prop7(void)
{
    printf("\nProp. 7 on S³ (data/s3_contact.json), T = 10: increments and multiplier extrapolated\n");
    printf("%-12s %7s %10s %10s %10s %10s %7s\n", "", "h", "it plain", "predicted", "us plain", "predicted", "ratio");
    sp_s3_contact prm;
    sp_prop7_model md;
    if (sp_s3_contact_init(&prm, 0.5, 0.1) != SP_OK) return;
    sp_s3_contact_model(&prm, &md);
    static const double hs[3] = {0.2, 0.1, 0.01};
    for (int l = 0; l < 3; ++l) {
        prop7_run r[2];
        double t[2];
        for (int v = 0; v < 2; ++v) {
            r[v] = (prop7_run){.s = sp_prop7_alloc(&md), .h = hs[l], .N = (int)(10.0 / hs[l] + 0.5), .plain = v == 0};
            if (!r[v].s) return;
            t[v] = bench_best_time(prop7_integrate, &r[v], REPEATS, MIN_BATCH) / r[v].N;
            sp_prop7_free(r[v].s);
        }
        printf("%-12s %7g %10.3f %10.3f %10.2f %10.2f %7.2f%s\n", "prop7", hs[l], r[0].w.iterations, r[1].w.iterations,
               1e6 * t[0], 1e6 * t[1], t[1] / t[0], r[0].w.ok && r[1].w.ok ? "" : "  (failed)");
    }
}

/* ------------------------------------------------ nonholonomic on Lie groups -- */

typedef struct nh_lie_run {
    sp_nh_lie *s;
    const sp_nh_lie_model *md;
    const double *g0, *mu0;
    double h;
    int N, plain;
    run_work w;
} nh_lie_run;

static void nh_lie_integrate(void *ctx)
{
    nh_lie_run *r = ctx;
    const sp_group *G = r->md->group;
    double g[SP_LIE_MAX_ELEM], mu[SP_LIE_MAX_DIM], lam[SP_LIE_MAX_DIM];
    memcpy(g, r->g0, (size_t)G->elem_size * sizeof *g);
    memcpy(mu, r->mu0, (size_t)G->dim * sizeof *mu);
    long it = 0, jac = 0;
    r->w.ok = sp_nh_lie_multiplier(r->md, g, mu, lam) == SP_OK;
    for (int k = 0; k < r->N && r->w.ok; ++k) {
        if (r->plain) sp_nh_lie_reset(r->s);
        r->w.ok = sp_nh_lie_step(r->s, r->h, g, mu, lam) == SP_OK;
        const sp_nh_lie_step_info info = sp_nh_lie_last_step(r->s);
        it += info.iterations, jac += info.jacobians;
    }
    r->w.iterations = (double)it / r->N, r->w.jacobians = (double)jac / r->N;
}

static void bench_nh_lie(void)
{
    printf("\nLobatto IIIA–IIIB nonholonomic on Lie groups, Cayley, carried Λ_1, T = 3: plain start, stages\n"
           "extrapolated (predicted, the default), and warm_start (simplified Newton, kept Jacobian)\n");
    printf("%-16s %5s %21s %21s %23s %12s\n", "model", "h", "iterations/step plain", "predicted / warm",
           "Jacobians/step plain/warm", "us/step p/pr/w");
    sp_sleigh_se2 sleigh = {.m = 1.0, .a = 0.5, .I = 0.3, .slope = 0.0};
    sp_suslov suslov = {.J = {1.0, 2.0, 3.5}, .e = {0.3, 0.5, 0.8}};
    sp_nh_lie_model md[2];
    double g0[2][SP_LIE_MAX_ELEM], mu0[2][SP_LIE_MAX_DIM];
    if (sp_sleigh_se2_model(&sleigh, &md[0]) != SP_OK || sp_suslov_model(&suslov, &md[1]) != SP_OK) return;
    const double q0[3] = {0, 0, 0}, p0[3] = {1.0, 0.5, 0.55}, x0[3] = {0.4, -0.3, 1.0}, om0[3] = {0.8, 0.0, -0.3};
    sp_sleigh_se2_from_coordinates(q0, p0, g0[0], mu0[0]);
    sp_group_so3->exp(sp_group_so3, x0, g0[1]);
    for (int i = 0; i < 3; ++i) mu0[1][i] = suslov.J[i] * om0[i];
    static const char *const names[2] = {"sleigh SE(2)", "Suslov SO(3)"};
    static const double hs[2] = {0.1, 0.01};
    for (int c = 0; c < 2; ++c)
        for (int s = 3; s <= SP_NH_LIE_MAX_STAGES; ++s)
            for (int l = 0; l < 2; ++l) {
                nh_lie_run r[3];
                double t[3];
                int ok = 1;
                for (int v = 0; v < 3; ++v) {
                    sp_nh_lie_options opt = sp_nh_lie_options_default();
                    opt.newton.warm_start = v == 2;
                    r[v] = (nh_lie_run){.s = sp_nh_lie_alloc(&md[c], sp_retraction_cayley, s, &opt),
                                        .md = &md[c],
                                        .g0 = g0[c],
                                        .mu0 = mu0[c],
                                        .h = hs[l],
                                        .N = (int)(3.0 / hs[l] + 0.5),
                                        .plain = v == 0};
                    if (!r[v].s) return;
                    t[v] = bench_best_time(nh_lie_integrate, &r[v], REPEATS, MIN_BATCH) / r[v].N;
                    ok &= r[v].w.ok;
                    sp_nh_lie_free(r[v].s);
                }
                char label[32];
                snprintf(label, sizeof label, "%s s=%d", names[c], s);
                printf("%-16s %5g %21.2f %10.2f / %-8.2f %11.2f / %-9.3f %5.1f/%.1f/%.1f%s\n", label, hs[l],
                       r[0].w.iterations, r[1].w.iterations, r[2].w.iterations, r[0].w.jacobians, r[2].w.jacobians,
                       1e6 * t[0], 1e6 * t[1], 1e6 * t[2], ok ? "" : "  (failed)");
            }
}

void bench_warm_start(void)
{
    printf("\nwarm start: iterations and time per step from the plain start and from the last steps\n");
    bench_hohp();
    bench_prop7();
    bench_nh_lie();
}
