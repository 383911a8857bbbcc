/* Acceptance tests of the RKMK stepper of the continuous HOHP equations
 * (integrators/sp_hohp_rk.h):
 *   - order 8 (and 4 with the rk4 table) against an independent reference: the same
 *     equations with g as a 3x3 matrix in R⁹, integrated by the adaptive DOP853 driver
 *     of sp_explicit_rk.h at tolerance 1e-14;
 *   - g stays on the group to round-off over 10⁴ steps (the step is g ← g exp(Θ)), and
 *     the spatial momentum map g μ and the right-action momentum ξ × π − μ, which the
 *     exact flow keeps, drift at the method's order only;
 *   - the tangent map against central differences of the step;
 *   - on R³ one step is exact (the solution is a cubic polynomial), running cost
 *     included. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_explicit_rk.h"
#include "integrators/sp_hohp_rk.h"
#include "lie/sp_linalg.h"

static sp_hohp_state initial_state(void)
{
    sp_hohp_state z = {0};
    sp_group_so3->exp(sp_group_so3, (const double[]){0.3, -0.2, 0.5}, z.g);
    const double xi[3] = {0.7, -0.4, 0.9}, mu[3] = {0.5, 0.8, -0.3}, pi[3] = {-0.6, 0.2, 0.4};
    memcpy(z.xi, xi, sizeof xi), memcpy(z.nu, mu, sizeof mu), memcpy(z.p, pi, sizeof pi);
    return z;
}

/* y = (g row-major 9, ξ, μ, π): ġ = g ξ̂, ξ̇ = π, μ̇ = μ × ξ, π̇ = −μ. */
static int matrix_form(const double *y, double *dy, void *params)
{
    (void)params;
    const double *g = y, *xi = y + 9, *mu = y + 12, *pi = y + 15;
    double X[9];
    sp_group_so3->hat(sp_group_so3, xi, X);
    sp_mat_mul(3, 3, 3, g, X, dy);
    memcpy(dy + 9, pi, 3 * sizeof *dy);
    sp_cross(mu, xi, dy + 12);
    for (int r = 0; r < 3; ++r) dy[15 + r] = -mu[r];
    return 0;
}

static void reference(double T, sp_hohp_state *out)
{
    sp_hohp_state z = initial_state();
    double y[18];
    memcpy(y, z.g, 9 * sizeof *y), memcpy(y + 9, z.xi, 3 * sizeof *y);
    memcpy(y + 12, z.nu, 3 * sizeof *y), memcpy(y + 15, z.p, 3 * sizeof *y);
    sp_ode_system sys = {matrix_form, 18, NULL};
    sp_erk *e = sp_erk_alloc("dop853", &sys);
    sp_erk_control ctl = sp_erk_control_default();
    ctl.rtol = 1e-14, ctl.atol = 1e-15;
    double t = 0.0;
    cr_assert_eq(sp_erk_integrate(e, &ctl, &t, T, y), SP_OK);
    sp_erk_free(e);
    memcpy(out->g, y, 9 * sizeof *y), memcpy(out->xi, y + 9, 3 * sizeof *y);
    memcpy(out->nu, y + 12, 3 * sizeof *y), memcpy(out->p, y + 15, 3 * sizeof *y);
}

static double run(const char *table, double T, int N, sp_hohp_state *z)
{
    sp_hohp_rk *s = sp_hohp_rk_alloc(sp_group_so3, table);
    cr_assert_not_null(s);
    *z = initial_state();
    double cost = 0.0;
    for (int k = 0; k < N; ++k) {
        double c;
        cr_assert_eq(sp_hohp_rk_step(s, T / N, z, z, &c, 0, NULL), SP_OK);
        cost += c;
    }
    sp_hohp_rk_free(s);
    return cost;
}

static double state_error(const sp_hohp_state *a, const sp_hohp_state *b)
{
    double e = 0.0;
    for (int k = 0; k < 9; ++k) e = fmax(e, fabs(a->g[k] - b->g[k]));
    for (int k = 0; k < 3; ++k)
        e = fmax(e, fmax(fabs(a->xi[k] - b->xi[k]), fmax(fabs(a->nu[k] - b->nu[k]), fabs(a->p[k] - b->p[k]))));
    return e;
}

static void check_order(const char *table, int order, int N0)
{
    const double T = 2.0;
    sp_hohp_state ref, z;
    reference(T, &ref);
    double e[3];
    for (int q = 0; q < 3; ++q) {
        run(table, T, N0 << q, &z);
        e[q] = state_error(&z, &ref);
    }
    for (int q = 0; q < 2; ++q) {
        const double p = log2(e[q] / e[q + 1]);
        cr_expect(fabs(p - order) < 0.5, "%s: observed order %.2f between N = %d and %d (errors %.2e, %.2e)", table, p,
                  N0 << q, N0 << (q + 1), e[q], e[q + 1]);
    }
}

Test(hohp_rk, order_8_against_an_independent_reference) { check_order("dop853", 8, 4); }

Test(hohp_rk, order_4_with_the_classical_table) { check_order("rk4", 4, 16); }

Test(hohp_rk, group_kept_to_roundoff_and_momenta_at_the_method_order)
{
    const sp_group *G = sp_group_so3;
    sp_hohp_rk *s = sp_hohp_rk_alloc(G, "dop853");
    sp_hohp_state z = initial_state();
    double M0[3], C0[3], M[3], C[3], gt[9], I[9];
    sp_mat_vec(3, 3, z.g, z.nu, M0);
    sp_cross(z.xi, z.p, C0);
    for (int r = 0; r < 3; ++r) C0[r] -= z.nu[r];
    double drift_M = 0.0, drift_C = 0.0, ortho = 0.0;
    for (int k = 0; k < 10000; ++k) {
        cr_assert_eq(sp_hohp_rk_step(s, 0.001, &z, &z, NULL, 0, NULL), SP_OK);
        sp_mat_vec(3, 3, z.g, z.nu, M);
        sp_cross(z.xi, z.p, C);
        for (int r = 0; r < 3; ++r) C[r] -= z.nu[r];
        drift_M = fmax(drift_M, sp_vec_dist(3, M, M0) / sp_vec_norm(3, M0));
        drift_C = fmax(drift_C, sp_vec_dist(3, C, C0) / sp_vec_norm(3, C0));
    }
    sp_mat_transpose(3, z.g, gt);
    sp_mat_mul(3, 3, 3, gt, z.g, I);
    for (int r = 0; r < 3; ++r) I[4 * r] -= 1.0;
    for (int k = 0; k < 9; ++k) ortho = fmax(ortho, fabs(I[k]));
    cr_expect_leq(ortho, 1e-13, "|gᵀg − I| = %.2e after 10⁴ steps", ortho);
    cr_expect_leq(drift_M, 1e-11, "momentum map drift %.2e", drift_M);
    cr_expect_leq(drift_C, 1e-11, "right-action momentum drift %.2e", drift_C);
    sp_hohp_rk_free(s);
}

Test(hohp_rk, tangent_matches_central_differences)
{
    const sp_group *G = sp_group_so3;
    sp_hohp_rk *s = sp_hohp_rk_alloc(G, "dop853");
    const sp_hohp_state z0 = initial_state();
    const double h = 0.8, eps = 1e-6;
    double dz[12 * 12] = {0};
    for (int c = 0; c < 12; ++c) dz[c * 12 + c] = 1.0;
    sp_hohp_state z1;
    cr_assert_eq(sp_hohp_rk_step(s, h, &z0, &z1, NULL, 12, dz), SP_OK);
    double worst = 0.0;
    for (int c = 0; c < 12; ++c) {
        sp_hohp_state zp = z0, zm = z0, ep, em;
        double d[3] = {0};
        if (c < 3) {
            double R[9];
            d[c] = eps;
            G->exp(G, d, R), sp_mat_mul(3, 3, 3, z0.g, R, zp.g);
            d[c] = -eps;
            G->exp(G, d, R), sp_mat_mul(3, 3, 3, z0.g, R, zm.g);
        } else {
            double *vp = c < 6 ? zp.xi : c < 9 ? zp.nu : zp.p, *vm = c < 6 ? zm.xi : c < 9 ? zm.nu : zm.p;
            vp[c % 3] += eps, vm[c % 3] -= eps;
        }
        sp_hohp_rk_step(s, h, &zp, &ep, NULL, 0, NULL);
        sp_hohp_rk_step(s, h, &zm, &em, NULL, 0, NULL);
        /* δθ = log(g1⁻¹ g±) / (±ε) in the body frame */
        double fd[12], gi[9], X[9], lp[3], lm[3];
        G->inverse(G, z1.g, gi);
        sp_mat_mul(3, 3, 3, gi, ep.g, X), G->log(G, X, lp);
        sp_mat_mul(3, 3, 3, gi, em.g, X), G->log(G, X, lm);
        for (int r = 0; r < 3; ++r) {
            fd[r] = (lp[r] - lm[r]) / (2 * eps);
            fd[3 + r] = (ep.xi[r] - em.xi[r]) / (2 * eps);
            fd[6 + r] = (ep.nu[r] - em.nu[r]) / (2 * eps);
            fd[9 + r] = (ep.p[r] - em.p[r]) / (2 * eps);
        }
        for (int r = 0; r < 12; ++r) worst = fmax(worst, fabs(fd[r] - dz[c * 12 + r]) / fmax(1.0, fabs(fd[r])));
    }
    cr_expect_leq(worst, 1e-8, "tangent vs central differences: %.2e", worst);
    sp_hohp_rk_free(s);
}

Test(hohp_rk, exact_on_r3)
{
    const sp_group *G = sp_group_rn(3);
    sp_hohp_rk *s = sp_hohp_rk_alloc(G, "dop853");
    sp_hohp_state z = {.g = {0.1, 0.2, -0.3}, .xi = {1, -2, 0.5}, .nu = {0.7, 0.1, -1.2}, .p = {-0.4, 0.9, 0.3}};
    const double h = 3.0;
    double cost;
    sp_hohp_state e;
    cr_assert_eq(sp_hohp_rk_step(s, h, &z, &e, &cost, 0, NULL), SP_OK);
    double exact_cost = 0.0;
    for (int r = 0; r < 3; ++r) {
        const double x = z.g[r] + z.xi[r] * h + z.p[r] * h * h / 2 - z.nu[r] * h * h * h / 6;
        const double v = z.xi[r] + z.p[r] * h - z.nu[r] * h * h / 2, a = z.p[r] - z.nu[r] * h;
        cr_expect_float_eq(e.g[r], x, 1e-13);
        cr_expect_float_eq(e.xi[r], v, 1e-13);
        cr_expect_float_eq(e.p[r], a, 1e-13);
        cr_expect_float_eq(e.nu[r], z.nu[r], 0.0);
        /* ∫½(π0 − μ t)² dt over [0, h] */
        exact_cost += 0.5 * (z.p[r] * z.p[r] * h - z.p[r] * z.nu[r] * h * h + z.nu[r] * z.nu[r] * h * h * h / 3);
    }
    cr_expect_float_eq(cost, exact_cost, 1e-13 * exact_cost);
    sp_hohp_rk_free(s);
}
