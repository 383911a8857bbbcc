/* The Lobatto IIIA–IIIB nonholonomic RKMK integrator on Lie groups
 * (integrators/sp_nh_lie.h) on the models of problems/nonholonomic/sp_nh_lie_models.h:
 *
 *   - on the abelian group R³ it is the vector-space method: the knife edge of
 *     sp_nh_models.h reproduces the golden one-step values (C1 of test_nonholonomic.c), has
 *     orders 2, 4, 6 against the exact solution and is exactly symmetric with the carried
 *     multiplier (C6 there);
 *   - the knife edge as a sleigh on SE(2) (a potential on a non-abelian group) has
 *     orders 2s − 2 against the same exact solution;
 *   - the Chaplygin sleigh on SE(2) agrees with the coordinate sleigh of sp_nh_models.h
 *     (integrated here by a fine RK4 on the index-reduced ODE, λ as in sp_nonholonomic.h) to the
 *     method's order, for both retractions; it stays on SE(2) to round-off and on the
 *     constraint at every step and stage;
 *   - the Suslov problem on SO(3): constraint at round-off, order against a fine RK4
 *     reference, energy over a long run;
 *   - the sleigh lifted to SE(3) (four constraints, three of them keeping it planar) moves
 *     as the SE(2) sleigh, step by step;
 *   - on non-abelian groups Φ_{−h}∘Φ_h − id is a local error O(h^(2s)), not round-off;
 *   - the carried multiplier's parasitic mode (why long runs recompute Λ_1);
 *   - failures come back as statuses with the state untouched.
 * Every check prints what it measured. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_nh_lie.h"
#include "integrators/sp_tableau.h"
#include "lie/sp_linalg.h"
#include "problems/nonholonomic/sp_nh_lie_models.h"

#define FOR_STAGES(s) for (int s = SP_NH_LIE_MIN_STAGES; s <= SP_NH_LIE_MAX_STAGES; ++s)

static const char *const retraction_names[2] = {"cayley", "exp"};

static double max_abs_diff(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return isnan(e) ? INFINITY : e;
}

static double observed_order(double e_coarse, double e_fine) { return log(e_coarse / e_fine) / log(2.0); }

/* ======================================================== the coordinate sleigh == */

/* The coordinate Chaplygin sleigh: q = (x, y, θ), H = ½ pᵀM(θ)⁻¹p, μ(q) = (−sin θ, cos θ, 0); the
 * index-reduced field ẏ = (H_p, −H_q + μᵀλ(q, p)) with the multiplier of sp_nonholonomic.h,
 * λ = (Ψ_p μᵀ)⁻¹(Ψ_p H_q − Ψ_q H_p), Ψ = μ M⁻¹ p. Written out here, independently of
 * the library (only M(θ) from the model header, itself checked below). */
static const sp_sleigh_se2 spec_sleigh = {.m = 1.0, .a = 0.5, .I = 0.3, .slope = 0.0};

static void solve3(const double *A, const double *b, double *x)
{
    /* Cramer's rule: the 3x3 mass matrix is symmetric positive definite */
    double d =
        A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
    for (int k = 0; k < 3; ++k) {
        double B[9];
        memcpy(B, A, sizeof B);
        for (int i = 0; i < 3; ++i) B[3 * i + k] = b[i];
        x[k] = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                B[2] * (B[3] * B[7] - B[4] * B[6])) /
               d;
    }
}

static double coordinate_sleigh_multiplier(const sp_sleigh_se2 *sl, const double *y)
{
    const double th = y[2], s = sin(th), c = cos(th), ma = sl->m * sl->a;
    double M[9], v[3], Hq[3], mu[3] = {-s, c, 0.0}, dmu[3] = {-c, -s, 0.0}, w[3], Mmu[3];
    sp_sleigh_se2_mass_matrix(sl, th, M);
    solve3(M, y + 3, v);
    const double dM[9] = {0, 0, -ma * c, 0, 0, -ma * s, -ma * c, -ma * s, 0};
    double dMv[3];
    sp_mat_vec(3, 3, dM, v, dMv);
    Hq[0] = 0.0, Hq[1] = 0.0, Hq[2] = -0.5 * sp_vec_dot(3, v, dMv);
    /* Ψ_p = μ M⁻¹ (M symmetric: (M⁻¹μᵀ)ᵀ); ∂_θΨ = μ'·v − μ M⁻¹ M' v */
    solve3(M, mu, Mmu);
    solve3(M, dMv, w);
    const double dpsi_dth = sp_vec_dot(3, dmu, v) - sp_vec_dot(3, mu, w);
    return (sp_vec_dot(3, Mmu, Hq) - dpsi_dth * v[2]) / sp_vec_dot(3, Mmu, mu);
}

static void coordinate_sleigh_field(const sp_sleigh_se2 *sl, const double *y, double *dy)
{
    const double th = y[2], s = sin(th), c = cos(th), ma = sl->m * sl->a;
    double M[9], v[3];
    sp_sleigh_se2_mass_matrix(sl, th, M);
    solve3(M, y + 3, v);
    const double vtdMv = 2.0 * v[2] * (-ma * c * v[0] - ma * s * v[1]);
    const double lam = coordinate_sleigh_multiplier(sl, y);
    dy[0] = v[0], dy[1] = v[1], dy[2] = v[2];
    dy[3] = -s * lam;
    dy[4] = c * lam;
    dy[5] = 0.5 * vtdMv;
}

/* Classical RK4 (A&S 25.5.10) for the 6-dimensional coordinate sleigh. */
static void coordinate_sleigh_rk4(const sp_sleigh_se2 *sl, double *y, double T, int N)
{
    const double h = T / N;
    for (int n = 0; n < N; ++n) {
        double k1[6], k2[6], k3[6], k4[6], t[6];
        coordinate_sleigh_field(sl, y, k1);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + 0.5 * h * k1[i];
        coordinate_sleigh_field(sl, t, k2);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + 0.5 * h * k2[i];
        coordinate_sleigh_field(sl, t, k3);
        for (int i = 0; i < 6; ++i) t[i] = y[i] + h * k3[i];
        coordinate_sleigh_field(sl, t, k4);
        for (int i = 0; i < 6; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/* Default data: q0 = 0, q̇0 = (1, 0, 1), p0 = M(0)q̇0 = (1, 0.5, 0.55), E0 = 0.775;
 * the golden state at T = 5 (DOP853), computed independently. */
static const double sleigh_q0[3] = {0.0, 0.0, 0.0}, sleigh_p0[3] = {1.0, 0.5, 0.55};
static const double sleigh_T = 5.0;
static const double sleigh_golden_T[6] = {4.208171621955234,  4.227491030503998,  0.943063299139621,
                                          0.7296303521537896, 1.0087789970424792, 0.002126431616633473};

/* The reference at T = 5: RK4 with 40000 steps (h = 1.25e-4). */
static void sleigh_reference(double *y)
{
    memcpy(y, sleigh_q0, sizeof sleigh_q0);
    memcpy(y + 3, sleigh_p0, sizeof sleigh_p0);
    coordinate_sleigh_rk4(&spec_sleigh, y, sleigh_T, 40000);
}

/* ==================================================================== helpers == */

static sp_nh_lie *make_stepper(const sp_nh_lie_model *md, const char *retraction, int s, sp_nh_lie_lambda1 l1)
{
    sp_nh_lie_options opt = sp_nh_lie_options_default();
    opt.lambda1 = l1;
    sp_nh_lie *st = sp_nh_lie_alloc(md, sp_retraction_by_name(retraction), s, &opt);
    cr_assert_not_null(st, "sp_nh_lie_alloc(%s, s = %d) failed", retraction, s);
    return st;
}

/* Distance of g from SE(2): |RᵀR − I| (max entry) of the rotation block; the last row
 * must be exactly (0, 0, 1). */
static double se2_defect(const double *g, int *last_row_exact)
{
    double e = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            double d = g[i] * g[j] + g[3 + i] * g[3 + j] - (i == j);
            e = fmax(e, fabs(d));
        }
    *last_row_exact = g[6] == 0.0 && g[7] == 0.0 && g[8] == 1.0;
    return e;
}

static double so3_defect(const double *R)
{
    double e = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double d = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j] - (i == j);
            e = fmax(e, fabs(d));
        }
    return e;
}

/* What a run of N steps left: the final state and the worst residuals along the way. */
typedef struct run_result {
    double g[SP_LIE_MAX_ELEM], mu[SP_LIE_MAX_DIM], lam[SP_LIE_MAX_DIM];
    double constraint;  /* max |ψ(g_k, μ_k)| over the steps */
    double stage;       /* max stage residual (IIIA momenta) over the steps */
    double group;       /* max group defect (SE(2) or SO(3); 0 for Rⁿ) */
    int last_row_exact; /* SE(2): every last row exactly (0, 0, 1) */
    double energy;      /* max |E_k − E_0| */
    int max_iterations;
} run_result;

static run_result run(sp_nh_lie *st, const sp_nh_lie_model *md, const double *g0, const double *mu0, double T, int N)
{
    const sp_group *G = md->group;
    run_result r = {.last_row_exact = 1};
    memcpy(r.g, g0, (size_t)G->elem_size * sizeof *g0);
    memcpy(r.mu, mu0, (size_t)G->dim * sizeof *mu0);
    cr_assert_eq(sp_nh_lie_multiplier(md, r.g, r.mu, r.lam), SP_OK);
    double E0;
    cr_assert_eq(sp_nh_lie_energy(md, r.g, r.mu, &E0), SP_OK);
    const double h = T / N;
    for (int k = 0; k < N; ++k) {
        sp_status status = sp_nh_lie_step(st, h, r.g, r.mu, r.lam);
        cr_assert_eq(status, SP_OK, "step %d of %d failed: %s", k, N, sp_status_name(status));
        sp_nh_lie_step_info info = sp_nh_lie_last_step(st);
        double c, E;
        cr_assert_eq(sp_nh_lie_constraint_residual(md, r.g, r.mu, &c), SP_OK);
        cr_assert_eq(sp_nh_lie_energy(md, r.g, r.mu, &E), SP_OK);
        r.constraint = fmax(r.constraint, c);
        r.stage = fmax(r.stage, info.stage_residual);
        r.energy = fmax(r.energy, fabs(E - E0));
        if (info.iterations > r.max_iterations) r.max_iterations = info.iterations;
        if (G == sp_group_se2) {
            int exact;
            r.group = fmax(r.group, se2_defect(r.g, &exact));
            r.last_row_exact &= exact;
        } else if (G == sp_group_so3)
            r.group = fmax(r.group, so3_defect(r.g));
    }
    return r;
}

/* ============================================== the knife edge on R³ (abelian) == */

/* The knife edge of sp_nh_models.h on the group R³: q = (x, y, φ), H = ½|p|² − x, μ = (sin φ, −cos φ, 0);
 * golden values computed independently. */
static int knife_potential(const double *q, double *V, double *f, void *params)
{
    (void)params;
    if (V) *V = -q[0];
    if (f) f[0] = -1.0, f[1] = 0.0, f[2] = 0.0;
    return 0;
}

static int knife_constraints(const double *q, double *alpha, double *dalpha, void *params)
{
    (void)params;
    if (alpha) alpha[0] = sin(q[2]), alpha[1] = -cos(q[2]), alpha[2] = 0.0;
    if (dalpha) {
        sp_vec_zero(9, dalpha);
        dalpha[2] = cos(q[2]); /* ∂α₀/∂φ */
        dalpha[5] = sin(q[2]); /* ∂α₁/∂φ */
    }
    return 0;
}

static const double unit3[3] = {1.0, 1.0, 1.0};
static const sp_nh_lie_model knife_r3 = {
    .group = NULL, .m = 1, .inertia_diag = unit3, .potential = knife_potential, .constraints = knife_constraints};

static sp_nh_lie_model knife_r3_model(void)
{
    sp_nh_lie_model md = knife_r3;
    md.group = sp_group_rn(3);
    return md;
}

static const double knife_q0[3] = {0.0, 0.0, 0.0}, knife_p0[3] = {0.0, 0.0, 1.0};
static const double knife_golden[3][6] = {
    {0.005000000000000001, 0.0, 0.1, 0.09900332889206209, 0.009933466539753062, 1.0},
    {0.004983354156249863, 0.0003326393980241034, 0.09999999999999999, 0.09933458256938114, 0.009966702768843967, 1.0},
    {0.0049833555385307895, 0.00033266728101087655, 0.1, 0.09933466538594926, 0.009966711078217174, 1.0},
};

/* x = sin²t/2, y = (t − sin 2t/2)/2, φ = t, p = q̇. */
static void knife_exact(double t, double *q, double *p)
{
    const double s = sin(t), c = cos(t);
    q[0] = 0.5 * s * s, q[1] = 0.5 * (t - 0.5 * sin(2.0 * t)), q[2] = t;
    p[0] = s * c, p[1] = s * s, p[2] = 1.0;
}

Test(nh_lie, r3_knife_edge_reproduces_the_golden_one_step_values)
{
    sp_nh_lie_model md = knife_r3_model();
    double lam0;
    cr_assert_eq(sp_nh_lie_multiplier(&md, knife_q0, knife_p0, &lam0), SP_OK);
    cr_log_info("knife edge on R3: λ0 = %.3e (golden −0)", lam0);
    cr_assert_leq(fabs(lam0), 1e-14);
    FOR_STAGES(s)
    {
        for (int ri = 0; ri < 2; ++ri) {
            sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_CARRY);
            double q[3], p[3], lam = lam0, y[6];
            memcpy(q, knife_q0, sizeof q);
            memcpy(p, knife_p0, sizeof p);
            cr_assert_eq(sp_nh_lie_step(st, 0.1, q, p, &lam), SP_OK);
            memcpy(y, q, sizeof q);
            memcpy(y + 3, p, sizeof p);
            double e = max_abs_diff(6, y, knife_golden[s - 2]);
            cr_log_info("knife edge on R3, s = %d, %s: |y1 − golden| = %.1e (%d Newton iterations)", s,
                        retraction_names[ri], e, sp_nh_lie_last_step(st).iterations);
            cr_assert_leq(e, 1e-13, "s = %d %s: one step differs from the golden value by %.3e", s,
                          retraction_names[ri], e);
            sp_nh_lie_free(st);
        }
    }
}

/* Orders against the exact solution at T = 3 (as in C3 of test_nonholonomic.c) and exact symmetry (C6). */
Test(nh_lie, r3_knife_edge_orders_and_exact_symmetry)
{
    sp_nh_lie_model md = knife_r3_model();
    const double T = 3.0;
    double qe[3], pe[3], ye[6];
    knife_exact(T, qe, pe);
    memcpy(ye, qe, sizeof qe);
    memcpy(ye + 3, pe, sizeof pe);
    FOR_STAGES(s)
    {
        sp_nh_lie *st = make_stepper(&md, "cayley", s, SP_NH_LIE_LAMBDA_CARRY);
        const int N0 = s == 4 ? 6 : 15;
        double e[4];
        for (int k = 0; k < 4; ++k) {
            run_result r = run(st, &md, knife_q0, knife_p0, T, N0 << k);
            double y[6];
            memcpy(y, r.g, 3 * sizeof *y);
            memcpy(y + 3, r.mu, 3 * sizeof *y);
            e[k] = max_abs_diff(6, y, ye);
            cr_assert_leq(r.constraint, 1e-14, "s = %d N = %d: constraint %.3e", s, N0 << k, r.constraint);
        }
        const double p = observed_order(e[2], e[3]), target = 2 * s - 2;
        cr_log_info("knife edge on R3, s = %d: errors %.2e %.2e %.2e %.2e, last order %.3f (target %g)", s, e[0], e[1],
                    e[2], e[3], p, target);
        cr_assert(p >= target - 0.1 && p <= target + 0.2, "s = %d: order %.3f, expected %g", s, p, target);

        /* Φ_{−h}(Φ_h(q, p, λ)) = (q, p, λ), h = 0.2 */
        double q[3] = {0.3, -0.2, 0.7}, p0[3] = {0.4, 0.0, -0.6}, lam;
        p0[0] = 0.5 * cos(q[2]), p0[1] = 0.5 * sin(q[2]); /* on the constraint */
        double y0[7], y1[7], pp[3];
        memcpy(pp, p0, sizeof pp);
        cr_assert_eq(sp_nh_lie_multiplier(&md, q, pp, &lam), SP_OK);
        lam += 0.05; /* any carried value: the map is symmetric on (q, p, λ) */
        memcpy(y0, q, sizeof q), memcpy(y0 + 3, pp, sizeof pp), y0[6] = lam;
        cr_assert_eq(sp_nh_lie_step(st, 0.2, q, pp, &lam), SP_OK);
        cr_assert_eq(sp_nh_lie_step(st, -0.2, q, pp, &lam), SP_OK);
        memcpy(y1, q, sizeof q), memcpy(y1 + 3, pp, sizeof pp), y1[6] = lam;
        double d = max_abs_diff(7, y0, y1);
        cr_log_info("knife edge on R3, s = %d: |Φ_{−h}∘Φ_h − id| = %.1e on (q, p, λ)", s, d);
        cr_assert_leq(d, 1e-13, "s = %d: symmetry defect %.3e", s, d);
        sp_nh_lie_free(st);
    }
}

/* ============================================= the knife edge on SE(2) (exact) == */

/* The same knife edge as a sleigh with a = 0, m = I = 1 on a plane of slope 1: a
 * potential and a constraint on a non-abelian group, against the exact solution. */
Test(nh_lie, se2_knife_edge_has_order_2s_minus_2_against_the_exact_solution)
{
    const sp_sleigh_se2 knife = {.m = 1.0, .a = 0.0, .I = 1.0, .slope = 1.0};
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&knife, &md), SP_OK);
    const double T = 3.0;
    double qe[3], pe[3], ge[9], mue[3], g0[9], mu0[3];
    knife_exact(T, qe, pe);
    sp_sleigh_se2_from_coordinates(qe, pe, ge, mue);
    sp_sleigh_se2_from_coordinates(knife_q0, knife_p0, g0, mu0);
    for (int ri = 0; ri < 2; ++ri) FOR_STAGES(s)
        {
            sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_CARRY);
            const int N0 = s == 4 ? 6 : 15;
            double e[4];
            for (int k = 0; k < 4; ++k) {
                run_result r = run(st, &md, g0, mu0, T, N0 << k);
                e[k] = fmax(max_abs_diff(9, r.g, ge), max_abs_diff(3, r.mu, mue));
                cr_assert_leq(r.constraint, 1e-14, "constraint %.3e", r.constraint);
                cr_assert(r.last_row_exact, "the last row of g left (0, 0, 1)");
                cr_assert_leq(r.group, 1e-13, "|RᵀR − I| = %.3e", r.group);
            }
            const double p = observed_order(e[2], e[3]), target = 2 * s - 2;
            cr_log_info("knife edge on SE(2), %s s = %d: errors %.2e %.2e %.2e %.2e, last order %.3f (target %g)",
                        retraction_names[ri], s, e[0], e[1], e[2], e[3], p, target);
            cr_assert(p >= target - 0.1 && p <= target + 0.3, "%s s = %d: order %.3f, expected %g",
                      retraction_names[ri], s, p, target);
            sp_nh_lie_free(st);
        }
}

/* ================================= the Chaplygin sleigh: SE(2) vs coordinates == */

Test(nh_lie, sleigh_model_matches_the_coordinate_picture)
{
    /* M(θ) = Bᵀ 𝕀 B, π = B p, and the conversions invert each other */
    double Ib[9];
    sp_sleigh_se2_inertia(&spec_sleigh, Ib);
    double worst = 0.0;
    for (int k = 0; k < 16; ++k) {
        const double th = -7.0 + 0.93 * k, c = cos(th), s = sin(th);
        const double B[9] = {0, 0, 1, c, s, 0, -s, c, 0};
        double M[9], IB[9], BtIB[9], Bt[9];
        sp_sleigh_se2_mass_matrix(&spec_sleigh, th, M);
        sp_mat_mul(3, 3, 3, Ib, B, IB);
        sp_mat_transpose(3, B, Bt);
        sp_mat_mul(3, 3, 3, Bt, IB, BtIB);
        worst = fmax(worst, max_abs_diff(9, M, BtIB));
        double q[3] = {0.3 * k - 2.0, 1.0 - 0.1 * k, th}, p[3] = {0.2 * k, -1.0, 0.5}, g[9], mu[3], q2[3], p2[3];
        sp_sleigh_se2_from_coordinates(q, p, g, mu);
        double Bp[3];
        sp_mat_vec(3, 3, B, p, Bp);
        worst = fmax(worst, max_abs_diff(3, mu, Bp));
        sp_sleigh_se2_to_coordinates(g, mu, th + 0.4, q2, p2);
        worst = fmax(worst, fmax(max_abs_diff(3, q, q2), max_abs_diff(3, p, p2)));
        /* the coordinate constraint μ(q)q̇ = −sin θ ẋ + cos θ ẏ is the body v_y */
        double qdot[3], xi[3];
        solve3(M, p, qdot);
        sp_mat_vec(3, 3, B, qdot, xi);
        worst = fmax(worst, fabs(-s * qdot[0] + c * qdot[1] - xi[2]));
    }
    cr_log_info("sleigh: M = Bᵀ𝕀B, π = Bp, round trips, constraint: worst %.1e", worst);
    cr_assert_leq(worst, 1e-14);

    /* the multipliers of the two pictures coincide: golden λ0 = 6/11, and at other states */
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &md), SP_OK);
    double g[9], mu[3], lam, y[6];
    sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, g, mu);
    cr_assert_eq(sp_nh_lie_multiplier(&md, g, mu, &lam), SP_OK);
    cr_log_info("sleigh λ0 = %.17g (golden 0.5454545454545455)", lam);
    cr_assert_leq(fabs(lam - 0.5454545454545455), 1e-15);
    double e = 0.0;
    for (int k = 0; k < 10; ++k) {
        const double th = 0.7 * k - 3.0, c = cos(th), s = sin(th);
        double qdot[3] = {c * (0.5 + 0.2 * k), s * (0.5 + 0.2 * k), 1.3 - 0.3 * k}, M[9], p[3];
        sp_sleigh_se2_mass_matrix(&spec_sleigh, th, M);
        sp_mat_vec(3, 3, M, qdot, p);
        double q[3] = {0.1 * k, -0.2 * k, th};
        memcpy(y, q, sizeof q), memcpy(y + 3, p, sizeof p);
        sp_sleigh_se2_from_coordinates(q, p, g, mu);
        cr_assert_eq(sp_nh_lie_multiplier(&md, g, mu, &lam), SP_OK);
        e = fmax(e, fabs(lam - coordinate_sleigh_multiplier(&spec_sleigh, y)));
    }
    cr_log_info("sleigh: |λ_Lie − λ_coordinates| ≤ %.1e at 10 states", e);
    cr_assert_leq(e, 1e-13);
}

/* The reference itself: RK4 with 40000 and 20000 steps agree, and match the independently
 * computed DOP853 value at T = 5. */
Test(nh_lie, sleigh_reference_is_accurate)
{
    double y[6], y2[6];
    sleigh_reference(y);
    memcpy(y2, sleigh_q0, sizeof sleigh_q0);
    memcpy(y2 + 3, sleigh_p0, sizeof sleigh_p0);
    coordinate_sleigh_rk4(&spec_sleigh, y2, sleigh_T, 20000);
    const double self = max_abs_diff(6, y, y2), golden = max_abs_diff(6, y, sleigh_golden_T);
    cr_log_info("sleigh reference: |RK4(40000) − RK4(20000)| = %.1e, |RK4(40000) − golden| = %.1e", self, golden);
    cr_assert_leq(self, 1e-13, "RK4 reference not converged: %.3e", self);
    cr_assert_leq(golden, 1e-11, "RK4 reference differs from the golden value by %.3e", golden);
}

/* Orders at T = 5 with N = N0·(1, 2, 4, 8). With the carried multiplier the error of
 * s = 4 is pre-asymptotic over this range (local slopes 7.9, 6.8, 5.7: the parasitic
 * multiplier mode of the last test adds a component of its own), so the order is read
 * over the last two halvings together; with the recomputed Λ_1 the last pair is clean. */
Test(nh_lie, sleigh_agrees_with_the_coordinate_version_to_the_order_of_the_method)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &md), SP_OK);
    double yref[6], g0[9], mu0[3];
    sleigh_reference(yref);
    sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, g0, mu0);
    for (int variant = 0; variant < 2; ++variant)
        for (int ri = 0; ri < 2; ++ri) FOR_STAGES(s)
            {
                const sp_nh_lie_lambda1 l1 = variant ? SP_NH_LIE_LAMBDA_RECOMPUTE : SP_NH_LIE_LAMBDA_CARRY;
                sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, l1);
                const int N0 = s == 2 ? 100 : s == 3 ? 25 : 20;
                double e[4];
                run_result worst = {.last_row_exact = 1};
                for (int k = 0; k < 4; ++k) {
                    run_result r = run(st, &md, g0, mu0, sleigh_T, N0 << k);
                    double q[3], p[3], y[6];
                    sp_sleigh_se2_to_coordinates(r.g, r.mu, yref[2], q, p);
                    memcpy(y, q, sizeof q), memcpy(y + 3, p, sizeof p);
                    e[k] = max_abs_diff(6, y, yref);
                    worst.constraint = fmax(worst.constraint, r.constraint);
                    worst.stage = fmax(worst.stage, r.stage);
                    worst.group = fmax(worst.group, r.group);
                    worst.energy = fmax(worst.energy, r.energy);
                    worst.last_row_exact &= r.last_row_exact;
                }
                const double target = 2 * s - 2;
                const double p = variant ? observed_order(e[2], e[3]) : 0.5 * observed_order(e[1], e[3]);
                const double slack = variant ? 0.2 : 0.4;
                cr_log_info("sleigh %s Λ₁ %s s = %d: |(q, p) − coordinate reference| %.2e %.2e %.2e %.2e, order %.3f "
                            "(target %g); |ψ| ≤ %.1e at steps, ≤ %.1e at stages; |RᵀR − I| ≤ %.1e; max |ΔE| %.1e",
                            retraction_names[ri], variant ? "recomputed" : "carried", s, e[0], e[1], e[2], e[3], p,
                            target, worst.constraint, worst.stage, worst.group, worst.energy);
                cr_assert(p >= target - 0.1 && p <= target + slack, "%s s = %d: order %.3f, expected %g",
                          retraction_names[ri], s, p, target);
                cr_assert_leq(worst.constraint, 1e-14, "constraint at the steps %.3e", worst.constraint);
                cr_assert_leq(worst.stage, 1e-14, "constraint at the stages %.3e", worst.stage);
                cr_assert_leq(worst.group, 1e-13, "|RᵀR − I| = %.3e", worst.group);
                cr_assert(worst.last_row_exact, "the last row of g left (0, 0, 1)");
                sp_nh_lie_free(st);
            }
}

/* ============================================================ the Suslov problem == */

/* J = diag(1, 2, 3.5), e = (0.3, 0.5, 0.8) (not a principal direction), R0 = exp(0.4,
 * −0.3, 1), Ω0 = (0.8, 0, −0.3) ⊥ e. */
static const sp_suslov suslov = {.J = {1.0, 2.0, 3.5}, .e = {0.3, 0.5, 0.8}};
static const double suslov_x0[3] = {0.4, -0.3, 1.0}, suslov_Omega0[3] = {0.8, 0.0, -0.3};

static void suslov_initial(const sp_suslov *su, double *R, double *mu)
{
    sp_group_so3->exp(sp_group_so3, suslov_x0, R);
    for (int i = 0; i < 3; ++i) mu[i] = su->J[i] * suslov_Omega0[i];
}

/* The reduced field on y = (R, π) ∈ R¹²: Ω = J⁻¹π, Ṙ = R Ω̂, π̇ = π × Ω + λ e with
 * λ = −⟨e, J⁻¹(π × Ω)⟩/⟨e, J⁻¹e⟩ from d/dt ⟨e, Ω⟩ = 0. */
static void suslov_field(const sp_suslov *su, const double *y, double *dy)
{
    const double *R = y, *pi = y + 9;
    double Om[3], pxO[3], Je[3], JpxO[3];
    for (int i = 0; i < 3; ++i) Om[i] = pi[i] / su->J[i], Je[i] = su->e[i] / su->J[i];
    sp_cross(pi, Om, pxO);
    for (int i = 0; i < 3; ++i) JpxO[i] = pxO[i] / su->J[i];
    const double lam = -sp_vec_dot(3, su->e, JpxO) / sp_vec_dot(3, su->e, Je);
    double W[9];
    sp_group_so3->hat(sp_group_so3, Om, W);
    sp_mat_mul(3, 3, 3, R, W, dy);
    for (int i = 0; i < 3; ++i) dy[9 + i] = pxO[i] + lam * su->e[i];
}

static void suslov_rk4(const sp_suslov *su, double *y, double T, int N)
{
    const double h = T / N;
    for (int n = 0; n < N; ++n) {
        double k1[12], k2[12], k3[12], k4[12], t[12];
        suslov_field(su, y, k1);
        for (int i = 0; i < 12; ++i) t[i] = y[i] + 0.5 * h * k1[i];
        suslov_field(su, t, k2);
        for (int i = 0; i < 12; ++i) t[i] = y[i] + 0.5 * h * k2[i];
        suslov_field(su, t, k3);
        for (int i = 0; i < 12; ++i) t[i] = y[i] + h * k3[i];
        suslov_field(su, t, k4);
        for (int i = 0; i < 12; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

Test(nh_lie, suslov_order_constraint_and_group_against_a_fine_reference)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_suslov_model(&suslov, &md), SP_OK);
    const double T = 5.0;
    double R0[9], mu0[3], yref[12], y2[12];
    suslov_initial(&suslov, R0, mu0);
    memcpy(yref, R0, sizeof R0), memcpy(yref + 9, mu0, sizeof mu0);
    memcpy(y2, yref, sizeof y2);
    suslov_rk4(&suslov, yref, T, 20000);
    suslov_rk4(&suslov, y2, T, 10000);
    const double ref_err = max_abs_diff(12, yref, y2);
    cr_log_info("Suslov reference: |RK4(20000) − RK4(10000)| = %.1e", ref_err);
    cr_assert_leq(ref_err, 1e-13);
    for (int ri = 0; ri < 2; ++ri) FOR_STAGES(s)
        {
            sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_CARRY);
            const int N0 = s == 2 ? 50 : s == 3 ? 20 : 10;
            double e[4];
            run_result worst = {0};
            for (int k = 0; k < 4; ++k) {
                run_result r = run(st, &md, R0, mu0, T, N0 << k);
                e[k] = fmax(max_abs_diff(9, r.g, yref), max_abs_diff(3, r.mu, yref + 9));
                worst.constraint = fmax(worst.constraint, r.constraint);
                worst.stage = fmax(worst.stage, r.stage);
                worst.group = fmax(worst.group, r.group);
                worst.energy = fmax(worst.energy, r.energy);
            }
            const double p = observed_order(e[2], e[3]), target = 2 * s - 2;
            cr_log_info("Suslov %s s = %d: errors %.2e %.2e %.2e %.2e, last order %.3f (target %g); |ψ| ≤ %.1e at "
                        "steps, ≤ %.1e at stages; |RᵀR − I| ≤ %.1e; max |ΔE| %.1e",
                        retraction_names[ri], s, e[0], e[1], e[2], e[3], p, target, worst.constraint, worst.stage,
                        worst.group, worst.energy);
            cr_assert(p >= target - 0.1 && p <= target + 0.3, "%s s = %d: order %.3f, expected %g",
                      retraction_names[ri], s, p, target);
            cr_assert_leq(worst.constraint, 1e-14, "constraint %.3e", worst.constraint);
            cr_assert_leq(worst.stage, 1e-14, "stage constraint %.3e", worst.stage);
            cr_assert_leq(worst.group, 1e-13, "|RᵀR − I| = %.3e", worst.group);
            sp_nh_lie_free(st);
        }
}

/* ================================================================= long runs == */

/* Energy over [0, T] in eighths: max |E − E0| in each. */
typedef struct long_run {
    double eighth[8];
    double constraint, stage, group;
    int last_row_exact;
} long_run;

static long_run run_long(sp_nh_lie *st, const sp_nh_lie_model *md, const double *g0, const double *mu0, double h, int N)
{
    const sp_group *G = md->group;
    long_run L = {.last_row_exact = 1};
    double g[SP_LIE_MAX_ELEM], mu[SP_LIE_MAX_DIM], lam[SP_LIE_MAX_DIM], E0, E, c;
    memcpy(g, g0, (size_t)G->elem_size * sizeof *g);
    memcpy(mu, mu0, (size_t)G->dim * sizeof *mu);
    cr_assert_eq(sp_nh_lie_multiplier(md, g, mu, lam), SP_OK);
    cr_assert_eq(sp_nh_lie_energy(md, g, mu, &E0), SP_OK);
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_nh_lie_step(st, h, g, mu, lam), SP_OK, "step %d failed", k);
        cr_assert_eq(sp_nh_lie_energy(md, g, mu, &E), SP_OK);
        cr_assert_eq(sp_nh_lie_constraint_residual(md, g, mu, &c), SP_OK);
        L.eighth[8 * k / N] = fmax(L.eighth[8 * k / N], fabs(E - E0));
        L.constraint = fmax(L.constraint, c);
        L.stage = fmax(L.stage, sp_nh_lie_last_step(st).stage_residual);
        if (G == sp_group_se2) {
            int exact;
            L.group = fmax(L.group, se2_defect(g, &exact));
            L.last_row_exact &= exact;
        } else
            L.group = fmax(L.group, so3_defect(g));
    }
    return L;
}

static double half_max(const long_run *L, int second)
{
    double m = 0.0;
    for (int i = 4 * second; i < 4 * second + 4; ++i) m = fmax(m, L->eighth[i]);
    return m;
}

/* The Suslov body, h = 0.1, T = 500 (5000 steps), with Λ_1 recomputed every step (the
 * carried one is unstable on long runs here: next test). The motion tends to the steady
 * rotation about e × Je; where that is not a principal axis, the energy error grows
 * linearly (this RKMK step is not symmetric), by about 1.7e-5 (s = 2) and 2e-9 (s = 3)
 * per unit time; with e in a principal plane (the final rotation about e₁) it stays
 * bounded. The constraint holds to round-off at every step and stage throughout. */
Test(nh_lie, suslov_long_run_constraint_and_energy, .timeout = 60)
{
    static const sp_suslov principal = {.J = {1.0, 2.0, 3.5}, .e = {0.0, 0.6, 0.8}};
    static const double Omega_principal[3] = {0.8, 0.8, -0.6}; /* ⊥ (0, 0.6, 0.8) */
    const double h = 0.1;
    const int N = 5000;
    for (int generic = 1; generic >= 0; --generic) {
        const sp_suslov *su = generic ? &suslov : &principal;
        sp_nh_lie_model md;
        cr_assert_eq(sp_suslov_model(su, &md), SP_OK);
        double R0[9], mu0[3];
        suslov_initial(su, R0, mu0);
        if (!generic)
            for (int i = 0; i < 3; ++i) mu0[i] = su->J[i] * Omega_principal[i];
        for (int ri = 0; ri < 2; ++ri)
            for (int s = 2; s <= 3; ++s) {
                sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_RECOMPUTE);
                long_run L = run_long(st, &md, R0, mu0, h, N);
                const double first = half_max(&L, 0), second = half_max(&L, 1);
                cr_log_info("Suslov (e %s) %s s = %d, T = 500: max |ΔE| per eighth %.1e %.1e %.1e %.1e %.1e %.1e %.1e "
                            "%.1e; |ψ| ≤ %.1e (stages %.1e); |RᵀR − I| ≤ %.1e",
                            generic ? "generic" : "principal plane", retraction_names[ri], s, L.eighth[0], L.eighth[1],
                            L.eighth[2], L.eighth[3], L.eighth[4], L.eighth[5], L.eighth[6], L.eighth[7], L.constraint,
                            L.stage, L.group);
                cr_assert_leq(L.constraint, 1e-14, "constraint %.3e", L.constraint);
                cr_assert_leq(L.stage, 1e-14, "stage constraint %.3e", L.stage);
                /* compositions of 5000 rotations: round-off grows like N ε */
                cr_assert_leq(L.group, 1e-12, "|RᵀR − I| = %.3e", L.group);
                const double bound = s == 2 ? 1e-2 : 2e-6;
                cr_assert_leq(fmax(first, second), bound, "max |ΔE| = %.3e > %.1e", fmax(first, second), bound);
                if (generic) /* at most linear drift: the second half no more than ~2x the first */
                    cr_assert_leq(second, 2.5 * first, "energy error grows faster than linearly: %.3e then %.3e", first,
                                  second);
                else /* bounded: no drift between the halves */
                    cr_assert_leq(second, 1.2 * first, "energy drifts: %.3e then %.3e", first, second);
                sp_nh_lie_free(st);
            }
    }
}

/* The sleigh over T = 500 (h = 0.1): it straightens out (θ̇ → 0, v_x → 1.245) and the
 * energy error stays bounded; SE(2) is kept to round-off (last row exactly (0, 0, 1)). */
Test(nh_lie, sleigh_long_run_stays_on_the_group_and_the_constraint, .timeout = 60)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &md), SP_OK);
    double g0[9], mu0[3];
    sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, g0, mu0);
    for (int ri = 0; ri < 2; ++ri)
        for (int s = 2; s <= 3; ++s) {
            sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_RECOMPUTE);
            long_run L = run_long(st, &md, g0, mu0, 0.1, 5000);
            const double first = half_max(&L, 0), second = half_max(&L, 1);
            cr_log_info("sleigh %s s = %d, T = 500: max |ΔE| halves %.2e %.2e; |ψ| ≤ %.1e (stages %.1e); "
                        "|RᵀR − I| ≤ %.1e; last row exact: %s",
                        retraction_names[ri], s, first, second, L.constraint, L.stage, L.group,
                        L.last_row_exact ? "yes" : "no");
            cr_assert_leq(L.constraint, 1e-14);
            cr_assert_leq(L.stage, 1e-14);
            cr_assert_leq(L.group, 1e-13, "|RᵀR − I| = %.3e", L.group);
            cr_assert(L.last_row_exact);
            cr_assert_leq(second, 1.2 * first, "energy drifts: %.3e then %.3e", first, second);
            cr_assert_leq(first, s == 2 ? 1e-3 : 1e-5);
            sp_nh_lie_free(st);
        }
}

/* ================================================ symmetry on non-abelian groups == */

/* The RKMK chart is anchored at g_k, so on SO(3) the step is not exactly symmetric (on
 * Rⁿ it is: r3_knife_edge_orders_and_exact_symmetry). The defect of Φ_{−h}∘Φ_h on
 * (g, μ) is a local error beyond the order p = 2s − 2: it falls at least like h^(p+0.3)
 * (measured: about h^(2s)). */
/* ============================================== the sleigh lifted to SE(3) == */

/* The Chaplygin sleigh as a body in space: SE(3) with the sleigh's inertia on the planar
 * components (ω₃, v₁, v₂), positive ones on (ω₁, ω₂, v₃), its incline potential V = −m·slope·t₁,
 * and four constraints in the body frame: ω₁ = ω₂ = v₃ = 0 (planar motion) and v₂ = 0 (no
 * sideways slip). The planar subgroup is invariant, and the retractions, their
 * differentials and Ad* of SE(3) restrict to SE(2)'s: the SE(3) run is the SE(2) sleigh's. */
static int sleigh3_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    double Ib[9], J[36] = {0};
    sp_sleigh_se2_inertia(params, Ib);
    static const int planar[3] = {2, 3, 4};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) J[6 * planar[i] + planar[j]] = Ib[3 * i + j];
    J[0] = 0.7, J[7] = 0.9, J[35] = 1.3;
    if (mu) sp_mat_vec(6, 6, J, xi, mu);
    if (dmu) sp_vec_copy(36, J, dmu);
    return 0;
}

static int sleigh3_potential(const double *g, double *V, double *f, void *params)
{
    const sp_sleigh_se2 *sl = params;
    const double w = sl->m * sl->slope;
    if (V) *V = -w * g[3];
    if (f) f[0] = f[1] = f[2] = 0.0, f[3] = -w * g[0], f[4] = -w * g[1], f[5] = -w * g[2];
    return 0;
}

static int sleigh3_constraints(const double *g, double *alpha, double *dalpha, void *params)
{
    (void)g, (void)params;
    static const int rows[4] = {0, 1, 5, 4};
    if (alpha) {
        sp_vec_zero(24, alpha);
        for (int a = 0; a < 4; ++a) alpha[6 * a + rows[a]] = 1.0;
    }
    if (dalpha) sp_vec_zero(4 * 36, dalpha);
    return 0;
}

Test(nh_lie, sleigh_lifted_to_se3_moves_as_on_se2)
{
    const sp_sleigh_se2 sl = {.m = 1.0, .a = 0.5, .I = 0.3, .slope = 0.4};
    sp_nh_lie_model m2, m3 = {.group = sp_group_se3,
                              .m = 4,
                              .inertia = sleigh3_inertia,
                              .potential = sleigh3_potential,
                              .constraints = sleigh3_constraints,
                              .params = (void *)&sl};
    cr_assert_eq(sp_sleigh_se2_model(&sl, &m2), SP_OK);
    const double h = 0.05;
    const int N = 100;
    for (int r = 0; r < 2; ++r)
        FOR_STAGES(s)
        {
            sp_nh_lie *st2 = make_stepper(&m2, retraction_names[r], s, SP_NH_LIE_LAMBDA_RECOMPUTE);
            sp_nh_lie *st3 = make_stepper(&m3, retraction_names[r], s, SP_NH_LIE_LAMBDA_RECOMPUTE);
            double g2[9], mu2[3], lam2[1] = {0}, g3[16], mu3[6], lam3[4] = {0, 0, 0, 0};
            sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, g2, mu2);
            sp_group_se3->identity(sp_group_se3, g3);
            g3[0] = g2[0], g3[1] = g2[1], g3[3] = g2[2], g3[4] = g2[3], g3[5] = g2[4], g3[7] = g2[5];
            mu3[0] = mu3[1] = mu3[5] = 0.0, mu3[2] = mu2[0], mu3[3] = mu2[1], mu3[4] = mu2[2];
            double E0, E, c, err = 0.0, constraint = 0.0, energy = 0.0;
            cr_assert_eq(sp_nh_lie_energy(&m3, g3, mu3, &E0), SP_OK);
            for (int k = 0; k < N; ++k) {
                cr_assert_eq(sp_nh_lie_step(st2, h, g2, mu2, lam2), SP_OK, "SE2 step %d", k);
                cr_assert_eq(sp_nh_lie_step(st3, h, g3, mu3, lam3), SP_OK, "SE3 step %d", k);
                /* g3 = [[R2, 0, t2], [0, 0, 1, 0], [0, 0, 0, 1]], μ3 = (0, 0, μ2, 0) */
                const double e[] = {g3[0] - g2[0],  g3[1] - g2[1],  g3[3] - g2[2],  g3[4] - g2[3],  g3[5] - g2[4],
                                    g3[7] - g2[5],  g3[2],          g3[6],          g3[8],          g3[9],
                                    g3[10] - 1.0,   g3[11],         mu3[0],         mu3[1],         mu3[5],
                                    mu3[2] - mu2[0], mu3[3] - mu2[1], mu3[4] - mu2[2], lam3[3] - lam2[0]};
                for (size_t i = 0; i < sizeof e / sizeof e[0]; ++i) err = fmax(err, fabs(e[i]));
                cr_assert(g3[12] == 0.0 && g3[13] == 0.0 && g3[14] == 0.0 && g3[15] == 1.0, "last row");
                cr_assert_eq(sp_nh_lie_constraint_residual(&m3, g3, mu3, &c), SP_OK);
                constraint = fmax(constraint, c);
                cr_assert_eq(sp_nh_lie_energy(&m3, g3, mu3, &E), SP_OK);
                energy = fmax(energy, fabs(E - E0));
            }
            cr_log_info("sleigh on SE3 (%s, s = %d), %d steps: vs SE2 %.1e, constraint %.1e, energy %.1e",
                        retraction_names[r], s, N, err, constraint, energy);
            /* the Newton tolerance, accumulated over N steps */
            cr_expect_leq(err, N * 1e-14, "%s, s = %d: the SE3 sleigh differs from the SE2 one by %.2e",
                          retraction_names[r], s, err);
            cr_expect_leq(constraint, 1e-13, "%s, s = %d: constraint residual %.2e", retraction_names[r], s,
                          constraint);
            sp_nh_lie_free(st2);
            sp_nh_lie_free(st3);
        }
}

Test(nh_lie, symmetry_defect_on_so3_is_a_local_error_term)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_suslov_model(&suslov, &md), SP_OK);
    double R0[9], mu0[3], lam0;
    suslov_initial(&suslov, R0, mu0);
    cr_assert_eq(sp_nh_lie_multiplier(&md, R0, mu0, &lam0), SP_OK);
    for (int ri = 0; ri < 2; ++ri) FOR_STAGES(s)
        {
            sp_nh_lie *st = make_stepper(&md, retraction_names[ri], s, SP_NH_LIE_LAMBDA_CARRY);
            double d[2];
            for (int k = 0; k < 2; ++k) {
                const double h = (s == 4 ? 0.4 : 0.2) / (1 << k); /* s = 4, h = 0.1: near round-off */
                double R[9], mu[3], lam = lam0;
                memcpy(R, R0, sizeof R), memcpy(mu, mu0, sizeof mu);
                cr_assert_eq(sp_nh_lie_step(st, h, R, mu, &lam), SP_OK);
                cr_assert_eq(sp_nh_lie_step(st, -h, R, mu, &lam), SP_OK);
                d[k] = fmax(max_abs_diff(9, R, R0), max_abs_diff(3, mu, mu0));
            }
            const double rate = observed_order(d[0], d[1]), p = 2 * s - 2;
            cr_log_info("Suslov %s s = %d: |Φ_{−h}∘Φ_h − id| on (R, μ) = %.2e (h = %g), %.2e (h = %g): rate %.2f",
                        retraction_names[ri], s, d[0], s == 4 ? 0.4 : 0.2, d[1], s == 4 ? 0.2 : 0.1, rate);
            cr_assert_geq(rate, p + 0.3, "%s s = %d: symmetry defect falls like h^%.2f only", retraction_names[ri], s,
                          rate);
            cr_assert_leq(d[1], 1e-6, "%s s = %d: symmetry defect %.3e", retraction_names[ri], s, d[1]);
            sp_nh_lie_free(st);
        }
}

/* ============================================ the carried multiplier's parasitic mode == */

/* With Λ_1 carried, a perturbation δ of it comes back as Λ_s = ρ δ: the stage
 * constraints balance the stage forces, and for a constant constraint direction
 * ρ = ρ₀ = −1 (s = 2, 4) or +1 (s = 3), a neutral mode. On SE(2) the stage-1 force acts
 * at the contact point of g_k, one step behind, and is carried to the frame of g_{k+1}
 * by Ad*: a sideways force δ there has the moment −t_x δ, and for the sleigh moving
 * straight ahead at speed V
 *
 *     ρ = ρ₀ (1 + h c) + O(h²),   c = V m a / (I + m a²)   (α 𝕀⁻¹ = (−a/I, 0, (I + m a²)/(I m))),
 *
 * so the mode grows like e^(c t) while the sleigh moves forward: over long runs the
 * carried multiplier is unstable here (Λ_1 recomputed every step has no such mode).
 * The same happens on the Suslov body as it settles into its steady rotation Ω* ∥ e × Je:
 * there c = ⟨Ω*, J⁻¹e × e⟩/⟨e, J⁻¹e⟩, positive for Ω* = +e × Je by Cauchy–Schwarz,
 * the rotation the body settles into in the long runs above (which recompute Λ_1). */
Test(nh_lie, carried_multiplier_has_the_predicted_parasitic_growth_on_the_sleigh)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &md), SP_OK);
    const double V = 1.2, c = V * spec_sleigh.m * spec_sleigh.a / (spec_sleigh.I + spec_sleigh.m * 0.25);
    double g0[9], mu0[3], Ib[9];
    const double xi0[3] = {0.0, V, 0.0};
    sp_group_se2->identity(sp_group_se2, g0);
    sp_sleigh_se2_inertia(&spec_sleigh, Ib);
    sp_mat_vec(3, 3, Ib, xi0, mu0);
    FOR_STAGES(s)
    {
        sp_nh_lie *st = make_stepper(&md, "cayley", s, SP_NH_LIE_LAMBDA_CARRY);
        /* straight motion is a solution with λ = 0, reproduced by the step */
        double g[9], mu[3], lam = 0.0;
        memcpy(g, g0, sizeof g), memcpy(mu, mu0, sizeof mu);
        cr_assert_eq(sp_nh_lie_step(st, 0.1, g, mu, &lam), SP_OK);
        cr_assert_leq(fmax(fabs(lam), max_abs_diff(3, mu, mu0)), 1e-14, "straight motion is not kept: λ = %.3e", lam);
        /* the one-step factor ρ = Λ_s/δ: (ρ/ρ₀ − 1)/h → c */
        const double rho0 = s == 3 ? 1.0 : -1.0;
        double slope[2], rho[2];
        for (int k = 0; k < 2; ++k) {
            const double h = 0.02 / (1 << k), delta = 1e-7;
            memcpy(g, g0, sizeof g), memcpy(mu, mu0, sizeof mu), lam = delta;
            cr_assert_eq(sp_nh_lie_step(st, h, g, mu, &lam), SP_OK);
            rho[k] = lam / delta;
            slope[k] = (rho[k] / rho0 - 1.0) / h;
        }
        const double extrapolated = 2.0 * slope[1] - slope[0];
        cr_log_info("sleigh straight at V = %g, s = %d: ρ = %.6f (h = 0.02), %.6f (h = 0.01); (ρ/ρ₀ − 1)/h "
                    "extrapolated to h = 0: %.5f, predicted c = %.5f",
                    V, s, rho[0], rho[1], extrapolated, c);
        cr_assert_leq(fabs(extrapolated - c), 5e-4 * c, "one-step factor: (ρ/ρ₀ − 1)/h → %.6f, predicted %.6f",
                      extrapolated, c);
        /* a run: the perturbation grows like e^(c t) */
        const double h = 0.02, T = 10.0, delta = 1e-10;
        memcpy(g, g0, sizeof g), memcpy(mu, mu0, sizeof mu), lam = delta;
        for (int k = 0; k < (int)(T / h + 0.5); ++k) cr_assert_eq(sp_nh_lie_step(st, h, g, mu, &lam), SP_OK);
        const double rate = log(fabs(lam) / delta) / T;
        cr_log_info("  carried over T = %g: |Λ| grows from %.0e to %.2e: rate %.4f (c = %.4f)", T, delta, fabs(lam),
                    rate, c);
        cr_assert_leq(fabs(rate - c), 0.05 * c, "growth rate %.4f, predicted %.4f", rate, c);
        sp_nh_lie_free(st);

        /* recomputed: the perturbation is forgotten */
        st = make_stepper(&md, "cayley", s, SP_NH_LIE_LAMBDA_RECOMPUTE);
        memcpy(g, g0, sizeof g), memcpy(mu, mu0, sizeof mu), lam = delta;
        for (int k = 0; k < (int)(T / h + 0.5); ++k) cr_assert_eq(sp_nh_lie_step(st, h, g, mu, &lam), SP_OK);
        cr_log_info("  recomputed over T = %g: |Λ| = %.1e", T, fabs(lam));
        cr_assert_leq(fabs(lam), 1e-14);
        sp_nh_lie_free(st);
    }
}

Test(nh_lie, carried_multiplier_has_the_predicted_parasitic_growth_on_the_suslov_body)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_suslov_model(&suslov, &md), SP_OK);
    const double *e = suslov.e, *J = suslov.J;
    double Je[3], Jie[3], Om[3], w[3], R0[9], mu0[3], lam0;
    for (int i = 0; i < 3; ++i) Je[i] = J[i] * e[i], Jie[i] = e[i] / J[i];
    sp_cross(e, Je, Om); /* a steady rotation */
    sp_cross(Jie, e, w);
    const double c = sp_vec_dot(3, Om, w) / sp_vec_dot(3, e, Jie);
    sp_group_so3->identity(sp_group_so3, R0);
    for (int i = 0; i < 3; ++i) mu0[i] = J[i] * Om[i];
    cr_assert_eq(sp_nh_lie_multiplier(&md, R0, mu0, &lam0), SP_OK);
    cr_assert_gt(c, 0.0);
    FOR_STAGES(s)
    {
        sp_nh_lie *st = make_stepper(&md, "exp", s, SP_NH_LIE_LAMBDA_CARRY);
        const double rho0 = s == 3 ? 1.0 : -1.0, delta = 1e-7;
        double slope[2];
        for (int k = 0; k < 2; ++k) {
            const double h = 0.02 / (1 << k);
            double R[9], mu[3], lam_a = lam0, lam_b = lam0 + delta;
            memcpy(R, R0, sizeof R), memcpy(mu, mu0, sizeof mu);
            cr_assert_eq(sp_nh_lie_step(st, h, R, mu, &lam_a), SP_OK);
            memcpy(R, R0, sizeof R), memcpy(mu, mu0, sizeof mu);
            cr_assert_eq(sp_nh_lie_step(st, h, R, mu, &lam_b), SP_OK);
            slope[k] = ((lam_b - lam_a) / delta / rho0 - 1.0) / h;
        }
        const double extrapolated = 2.0 * slope[1] - slope[0];
        cr_log_info("Suslov steady rotation, s = %d: (ρ/ρ₀ − 1)/h extrapolated %.5f, predicted c = %.5f", s,
                    extrapolated, c);
        cr_assert_leq(fabs(extrapolated - c), 5e-3 * c, "(ρ/ρ₀ − 1)/h → %.6f, predicted %.6f", extrapolated, c);
        sp_nh_lie_free(st);
    }
}

/* ===================================================== the stage system and stages == */

/* On R³ the stage system is the vector-space one (sp_nonholonomic.h), written out here
 * from the tables: for x = (η_1..η_s, Λ_2..Λ_s), Q_i = q + h Σ a_ij η_j,
 * F_j = −∇V + μ(Q_j)ᵀΛ_j, the rows are
 * η_i − p − h Σ_j â_ij F_j (IIIB, M = I) and μ(Q_i)·(p + h Σ_j a_ij F_j). */
Test(nh_lie, r3_stage_system_is_the_vector_space_system)
{
    sp_nh_lie_model md = knife_r3_model();
    sp_tableau A, B;
    const double q[3] = {0.2, -0.1, 0.6}, p[3] = {0.3, 0.5, -0.4}, lam1 = 0.15, h = 0.3;
    double worst = 0.0;
    FOR_STAGES(s)
    {
        cr_assert_eq(sp_tableau_get("lobatto_iiia", s, &A), SP_OK);
        cr_assert_eq(sp_tableau_get("lobatto_iiib", s, &B), SP_OK);
        sp_nh_lie *st = make_stepper(&md, "exp", s, SP_NH_LIE_LAMBDA_CARRY);
        const int nx = sp_nh_lie_unknowns(st);
        cr_assert_eq(nx, 3 * s + (s - 1));
        double x[16], r[16], ref[16], Q[4][3], F[4][3], Lam[4];
        for (int i = 0; i < nx; ++i) x[i] = 0.1 * sin(1.0 + 2.3 * i);
        Lam[0] = lam1;
        for (int i = 1; i < s; ++i) Lam[i] = x[3 * s + i - 1];
        for (int i = 0; i < s; ++i) {
            for (int c = 0; c < 3; ++c) {
                Q[i][c] = q[c];
                for (int j = 0; j < s; ++j) Q[i][c] += h * A.A[i][j] * x[3 * j + c];
            }
            F[i][0] = 1.0 + sin(Q[i][2]) * Lam[i], F[i][1] = -cos(Q[i][2]) * Lam[i], F[i][2] = 0.0;
        }
        for (int i = 0; i < s; ++i) {
            double pt[3];
            for (int c = 0; c < 3; ++c) {
                ref[3 * i + c] = x[3 * i + c] - p[c];
                pt[c] = p[c];
                for (int j = 0; j < s; ++j) ref[3 * i + c] -= h * B.A[i][j] * F[j][c], pt[c] += h * A.A[i][j] * F[j][c];
            }
            if (i > 0) ref[3 * s + i - 1] = sin(Q[i][2]) * pt[0] - cos(Q[i][2]) * pt[1];
        }
        cr_assert_eq(sp_nh_lie_stage_system(st, h, q, p, &lam1, x, r), SP_OK);
        worst = fmax(worst, max_abs_diff(nx, r, ref));
        sp_nh_lie_free(st);
    }
    cr_log_info("R3 stage system vs the vector-space system written out: %.1e", worst);
    cr_assert_leq(worst, 1e-15);
}

/* After a step: stage 1 is (g_k, μ_k, λ_k), stage s is the new state, every stage is on
 * the constraint, and the stage velocities satisfy it at the step points. */
Test(nh_lie, stage_values_of_a_step)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &md), SP_OK);
    FOR_STAGES(s)
    {
        sp_nh_lie *st = make_stepper(&md, "cayley", s, SP_NH_LIE_LAMBDA_CARRY);
        double gs[4 * 9], mus[4 * 3], Vs[4 * 3], Ls[4];
        cr_assert_eq(sp_nh_lie_last_stages(st, gs, mus, Vs, Ls), SP_ERR_INVALID, "stages before any step");
        double g[9], mu[3], lam, g0[9], mu0[3], lam0;
        sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, g, mu);
        cr_assert_eq(sp_nh_lie_multiplier(&md, g, mu, &lam), SP_OK);
        memcpy(g0, g, sizeof g), memcpy(mu0, mu, sizeof mu), lam0 = lam;
        cr_assert_eq(sp_nh_lie_step(st, 0.25, g, mu, &lam), SP_OK);
        cr_assert_eq(sp_nh_lie_last_stages(st, gs, mus, Vs, Ls), SP_OK);
        double e1 = fmax(fmax(max_abs_diff(9, gs, g0), max_abs_diff(3, mus, mu0)), fabs(Ls[0] - lam0));
        double es = fmax(fmax(max_abs_diff(9, gs + 9 * (s - 1), g), max_abs_diff(3, mus + 3 * (s - 1), mu)),
                         fabs(Ls[s - 1] - lam));
        double psi = 0.0;
        for (int i = 0; i < s; ++i) {
            double c;
            cr_assert_eq(sp_nh_lie_constraint_residual(&md, gs + 9 * i, mus + 3 * i, &c), SP_OK);
            psi = fmax(psi, c);
        }
        /* the IIIB stage velocities V^i are not on the constraint (a diagnostic, as the
         * IIIB momenta on vector spaces): only the IIIA momenta μ̃_i are */
        cr_log_info("s = %d: stage 1 − (g_k, μ_k, λ_k) %.1e, stage s − new state %.1e, max |ψ| at stages %.1e, "
                    "sideways IIIB velocities %.1e %.1e",
                    s, e1, es, psi, Vs[2], Vs[3 * (s - 1) + 2]);
        cr_assert_leq(e1, 1e-15);
        cr_assert_eq(es, 0.0);
        cr_assert_leq(psi, 1e-14);
        cr_assert_leq(fabs(sp_nh_lie_last_step(st).stage_residual - psi), 1e-16);
        sp_nh_lie_free(st);
    }
}

/* ===================================================================== inertia == */

static int diag_as_callback(const double *xi, double *mu, double *dmu, void *params)
{
    const sp_suslov *su = params;
    if (mu)
        for (int i = 0; i < 3; ++i) mu[i] = su->J[i] * xi[i];
    if (dmu) {
        sp_vec_zero(9, dmu);
        for (int i = 0; i < 3; ++i) dmu[4 * i] = su->J[i];
    }
    return 0;
}

/* μ = Jξ + ε|ξ|²ξ: a nonlinear (hyperregular) inertia for the inversion. */
static int nonlinear_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    (void)params;
    const double J[3] = {1.0, 2.0, 3.5}, eps = 0.1, n2 = sp_vec_dot(3, xi, xi);
    if (mu)
        for (int i = 0; i < 3; ++i) mu[i] = J[i] * xi[i] + eps * n2 * xi[i];
    if (dmu)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) dmu[3 * i + j] = (i == j) * (J[i] + eps * n2) + 2.0 * eps * xi[i] * xi[j];
    return 0;
}

Test(nh_lie, inertia_callback_path_agrees_with_the_diagonal_one)
{
    sp_nh_lie_model diag, cb;
    cr_assert_eq(sp_suslov_model(&suslov, &diag), SP_OK);
    cb = diag;
    cb.inertia_diag = NULL;
    cb.inertia = diag_as_callback;
    double R0[9], mu0[3];
    suslov_initial(&suslov, R0, mu0);
    FOR_STAGES(s)
    {
        sp_nh_lie *a = make_stepper(&diag, "cayley", s, SP_NH_LIE_LAMBDA_CARRY);
        sp_nh_lie *b = make_stepper(&cb, "cayley", s, SP_NH_LIE_LAMBDA_CARRY);
        run_result ra = run(a, &diag, R0, mu0, 2.0, 20), rb = run(b, &cb, R0, mu0, 2.0, 20);
        double d = fmax(max_abs_diff(9, ra.g, rb.g), fmax(max_abs_diff(3, ra.mu, rb.mu), fabs(ra.lam[0] - rb.lam[0])));
        cr_log_info("s = %d: diagonal vs callback inertia after 20 steps: %.1e", s, d);
        cr_assert_leq(d, 1e-12);
        sp_nh_lie_free(a);
        sp_nh_lie_free(b);
    }
    /* the inversion of a nonlinear 𝕁 */
    sp_nh_lie_model nl = cb;
    nl.inertia = nonlinear_inertia;
    double worst = 0.0;
    for (int k = 0; k < 20; ++k) {
        double mu[3] = {sin(k + 0.3) * 3.0, cos(2.0 * k) * 2.0, 0.1 * k - 1.0}, xi[3], back[3];
        cr_assert_eq(sp_nh_lie_velocity(&nl, mu, NULL, xi), SP_OK);
        nonlinear_inertia(xi, back, NULL, NULL);
        worst = fmax(worst, max_abs_diff(3, back, mu));
    }
    cr_log_info("nonlinear inertia: |𝕁(𝕁⁻¹(μ)) − μ| ≤ %.1e", worst);
    cr_assert_leq(worst, 1e-14);
}

/* ==================================================================== failures == */

static int failing_potential(const double *g, double *V, double *f, void *params)
{
    (void)g, (void)V, (void)f, (void)params;
    return 1;
}
static int failing_constraints(const double *g, double *alpha, double *dalpha, void *params)
{
    (void)g, (void)alpha, (void)dalpha, (void)params;
    return -1;
}
static int failing_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    (void)xi, (void)mu, (void)dmu, (void)params;
    return 2;
}
static int singular_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    (void)params;
    if (mu) mu[0] = xi[0], mu[1] = xi[1], mu[2] = 0.0;
    if (dmu) sp_vec_zero(9, dmu), dmu[0] = 1.0, dmu[4] = 1.0;
    return 0;
}
static int zero_constraint(const double *g, double *alpha, double *dalpha, void *params)
{
    (void)g, (void)params;
    if (alpha) sp_vec_zero(3, alpha);
    if (dalpha) sp_vec_zero(9, dalpha);
    return 0;
}

/* A step that must fail with `expect` and leave (g, μ, λ) bit for bit untouched. */
static void expect_failure(sp_nh_lie *st, double h, const double *g0, const double *mu0, double lam0, sp_status expect,
                           const char *what)
{
    double g[9], mu[3], lam = lam0;
    memcpy(g, g0, sizeof g), memcpy(mu, mu0, sizeof mu);
    sp_status status = sp_nh_lie_step(st, h, g, mu, &lam);
    cr_log_info("%s: %s", what, sp_status_name(status));
    cr_assert_eq(status, expect, "%s: got %s, expected %s", what, sp_status_name(status), sp_status_name(expect));
    cr_assert(memcmp(g, g0, sizeof g) == 0 && memcmp(mu, mu0, sizeof mu) == 0 && lam == lam0,
              "%s: the state was modified", what);
}

Test(nh_lie, failures_come_back_as_status_with_the_state_untouched)
{
    sp_nh_lie_model md;
    cr_assert_eq(sp_suslov_model(&suslov, &md), SP_OK);
    const sp_retraction *cay = sp_retraction_cayley;

    /* invalid models and arguments of alloc */
    cr_assert_null(sp_nh_lie_alloc(NULL, cay, 2, NULL));
    cr_assert_null(sp_nh_lie_alloc(&md, NULL, 2, NULL));
    cr_assert_null(sp_nh_lie_alloc(&md, cay, 1, NULL));
    cr_assert_null(sp_nh_lie_alloc(&md, cay, 5, NULL));
    sp_nh_lie_model bad = md;
    bad.group = NULL;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    bad = md, bad.m = 0;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    bad = md, bad.m = 3;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    bad = md, bad.constraints = NULL;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    bad = md, bad.inertia_diag = NULL;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    const double negative[3] = {1.0, -2.0, 3.0};
    bad = md, bad.inertia_diag = negative;
    cr_assert_null(sp_nh_lie_alloc(&bad, cay, 2, NULL));
    sp_nh_lie_free(NULL);

    /* invalid model data */
    sp_nh_lie_model out;
    const sp_sleigh_se2 bad_sleigh = {.m = 0.0, .a = 0.5, .I = 0.3};
    const sp_suslov bad_suslov = {.J = {1, 2, 3}, .e = {0, 0, 0}};
    cr_assert_eq(sp_sleigh_se2_model(&bad_sleigh, &out), SP_ERR_INVALID);
    cr_assert_eq(sp_sleigh_se2_model(NULL, &out), SP_ERR_INVALID);
    cr_assert_eq(sp_suslov_model(&bad_suslov, &out), SP_ERR_INVALID);

    double R0[9], mu0[3], lam0;
    suslov_initial(&suslov, R0, mu0);
    cr_assert_eq(sp_nh_lie_multiplier(&md, R0, mu0, &lam0), SP_OK);
    sp_nh_lie *st = make_stepper(&md, "cayley", 3, SP_NH_LIE_LAMBDA_CARRY);

    /* invalid step arguments */
    expect_failure(st, 0.0, R0, mu0, lam0, SP_ERR_INVALID, "h = 0");
    expect_failure(st, NAN, R0, mu0, lam0, SP_ERR_INVALID, "h = NaN");
    expect_failure(st, INFINITY, R0, mu0, lam0, SP_ERR_INVALID, "h = ∞");
    double g[9], mu[3];
    memcpy(g, R0, sizeof g), memcpy(mu, mu0, sizeof mu);
    cr_assert_eq(sp_nh_lie_step(st, 0.1, g, mu, NULL), SP_ERR_INVALID, "carried Λ_1 needs λ");
    cr_assert_eq(sp_nh_lie_step(st, 0.1, NULL, mu, &lam0), SP_ERR_INVALID);

    /* Newton: too few iterations, a non-finite state, a huge step */
    sp_nh_lie_options opt = sp_nh_lie_get_options(st);
    sp_nh_lie_options one = opt;
    one.newton.max_iter = 1;
    sp_nh_lie_set_options(st, &one);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_NO_CONVERGENCE, "one Newton iteration");
    sp_nh_lie_set_options(st, &opt);
    const double nan_mu[3] = {NAN, 1.0, 0.0};
    expect_failure(st, 0.1, R0, nan_mu, lam0, SP_ERR_NONFINITE, "μ = NaN");
    {
        double gh[9], muh[3], lh = lam0;
        memcpy(gh, R0, sizeof gh), memcpy(muh, mu0, sizeof muh);
        for (int i = 0; i < 3; ++i) muh[i] *= 1e3;
        sp_status status = sp_nh_lie_step(st, 50.0, gh, muh, &lh);
        cr_log_info("h = 50 at |Ω| ~ 1e3: %s", sp_status_name(status));
        cr_assert_neq(status, SP_OK, "a step of 50 at |Ω| ~ 1e3 should not converge");
    }
    sp_nh_lie_free(st);

    /* failing callbacks */
    sp_nh_lie_model cbm = md;
    cbm.potential = failing_potential;
    st = make_stepper(&cbm, "exp", 2, SP_NH_LIE_LAMBDA_CARRY);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_CALLBACK, "potential fails");
    sp_nh_lie_free(st);
    cbm = md, cbm.constraints = failing_constraints;
    st = make_stepper(&cbm, "exp", 2, SP_NH_LIE_LAMBDA_CARRY);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_CALLBACK, "constraints fail");
    sp_nh_lie_free(st);
    cbm = md, cbm.inertia_diag = NULL, cbm.inertia = failing_inertia;
    st = make_stepper(&cbm, "exp", 2, SP_NH_LIE_LAMBDA_CARRY);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_CALLBACK, "inertia fails");
    sp_nh_lie_free(st);

    /* singular: D𝕁 (the velocity) and α 𝕁⁻¹ αᵀ (the multiplier, also when recomputed) */
    cbm = md, cbm.inertia_diag = NULL, cbm.inertia = singular_inertia;
    st = make_stepper(&cbm, "exp", 2, SP_NH_LIE_LAMBDA_CARRY);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_SINGULAR, "singular inertia");
    sp_nh_lie_free(st);
    cbm = md, cbm.constraints = zero_constraint;
    double l;
    cr_assert_eq(sp_nh_lie_multiplier(&cbm, R0, mu0, &l), SP_ERR_SINGULAR);
    st = make_stepper(&cbm, "exp", 2, SP_NH_LIE_LAMBDA_RECOMPUTE);
    expect_failure(st, 0.1, R0, mu0, lam0, SP_ERR_SINGULAR, "zero constraint, Λ_1 recomputed");
    sp_nh_lie_free(st);
}

/* ===================================== the predictor and the warm start (sp_nh_lie.h) == */

typedef enum { START_PLAIN, START_PREDICTED, START_WARM } start_kind;
static const char *const start_names[3] = {"plain", "predicted", "warm"};

typedef struct chain_result {
    double iterations, jacobians; /* per step */
    double worst, worst_lam;      /* largest distances of (g, μ) and of λ to the reference run's */
    double stage;                 /* largest stage residual */
} chain_result;

/* N steps of size h of `md` from (g0, μ0) and its multiplier: START_PLAIN from the plain
 * guess at every step (sp_nh_lie_reset before each), START_PREDICTED as by default,
 * START_WARM with opt.newton.warm_start. States (elem + dim + m doubles a step) are
 * compared with ref when it is not NULL, stored in keep when that is not NULL. */
static chain_result nh_chain(const sp_nh_lie_model *md, const char *retraction, int s, sp_nh_lie_lambda1 l1,
                             start_kind kind, const double *g0, const double *mu0, double h, int N, const double *ref,
                             double *keep)
{
    const sp_group *G = md->group;
    const int ne = G->elem_size, n = G->dim, w = ne + n + 1;
    sp_nh_lie_options opt = sp_nh_lie_options_default();
    opt.lambda1 = l1;
    opt.newton.warm_start = kind == START_WARM;
    sp_nh_lie *st = sp_nh_lie_alloc(md, sp_retraction_by_name(retraction), s, &opt);
    cr_assert_not_null(st);
    double g[SP_LIE_MAX_ELEM], mu[SP_LIE_MAX_DIM], lam;
    memcpy(g, g0, (size_t)ne * sizeof *g), memcpy(mu, mu0, (size_t)n * sizeof *mu);
    cr_assert_eq(sp_nh_lie_multiplier(md, g, mu, &lam), SP_OK);
    chain_result r = {0};
    long it = 0, jac = 0;
    for (int k = 0; k < N; ++k) {
        if (kind == START_PLAIN) sp_nh_lie_reset(st);
        sp_status status = sp_nh_lie_step(st, h, g, mu, &lam);
        cr_assert_eq(status, SP_OK, "%s step %d: %s", start_names[kind], k, sp_status_name(status));
        const sp_nh_lie_step_info info = sp_nh_lie_last_step(st);
        it += info.iterations, jac += info.jacobians;
        r.stage = fmax(r.stage, info.stage_residual);
        double *z = keep ? keep + (size_t)k * w : NULL;
        const double *y = ref ? ref + (size_t)k * w : NULL;
        if (z) memcpy(z, g, (size_t)ne * sizeof *g), memcpy(z + ne, mu, (size_t)n * sizeof *mu), z[ne + n] = lam;
        if (y) {
            r.worst = fmax(r.worst, fmax(max_abs_diff(ne, g, y), max_abs_diff(n, mu, y + ne)));
            r.worst_lam = fmax(r.worst_lam, fabs(lam - y[ne + n]));
        }
    }
    sp_nh_lie_free(st);
    r.iterations = (double)it / N, r.jacobians = (double)jac / N;
    return r;
}

/* The three setups: the sleigh on SE(2) with either retraction, the Suslov body on SO(3). */
typedef struct nh_setup {
    const char *name, *retraction;
    sp_nh_lie_model md;
    double g0[SP_LIE_MAX_ELEM], mu0[SP_LIE_MAX_DIM];
} nh_setup;

static void nh_setups(nh_setup out[3])
{
    for (int i = 0; i < 2; ++i) {
        out[i].name = "sleigh", out[i].retraction = retraction_names[i];
        cr_assert_eq(sp_sleigh_se2_model(&spec_sleigh, &out[i].md), SP_OK);
        sp_sleigh_se2_from_coordinates(sleigh_q0, sleigh_p0, out[i].g0, out[i].mu0);
    }
    out[2].name = "Suslov", out[2].retraction = "cayley";
    cr_assert_eq(sp_suslov_model(&suslov, &out[2].md), SP_OK);
    suslov_initial(&suslov, out[2].g0, out[2].mu0);
}

/* A step that continues the last one starts from its stage velocities and multipliers
 * extrapolated (s ≥ 3): the run stays on the trajectory of the plain start to round-off in
 * (g, μ), with fewer iterations per step. With the warm start, simplified Newton keeps the
 * factorised Jacobian across steps: the same trajectory, and a fraction of the
 * finite-difference Jacobians (each 2·unknowns evaluations of the stage system); its stop
 * by the measured rate (sp_newton_solve_simplified) leaves the constraint within 1e-13
 * rather than the 1e-14 of full Newton. λ = Λ_s is fixed by the constraint rows only to
 * about ε/h, and the carried multiplier's parasitic mode amplifies such differences (over
 * T = 10 at h = 0.1, s = 4, one unit in the last place of μ0 moves λ by 5e-9): λ is
 * compared to 1e-13/h or ten times what one unit in the last place of μ0 does to the
 * plain run, whichever is larger. Runs of 30 steps, h = 0.1 and 0.01, carried and
 * recomputed Λ_1. */
Test(nh_lie_warm, predicted_and_warm_runs_follow_the_plain_start)
{
    nh_setup su[3];
    nh_setups(su);
    static const double hs[2] = {0.1, 0.01};
    enum { N = 30 };
    static double ref[N * (SP_LIE_MAX_ELEM + SP_LIE_MAX_DIM + 1)];
    double plain_sum = 0.0, predicted_sum = 0.0;
    int runs = 0;
    for (int c = 0; c < 3; ++c)
        for (int l1 = 0; l1 < 2; ++l1) FOR_STAGES(s)
    for (int l = 0; l < 2; ++l) {
        const nh_setup *u = &su[c];
        const sp_nh_lie_lambda1 L1 = l1 ? SP_NH_LIE_LAMBDA_RECOMPUTE : SP_NH_LIE_LAMBDA_CARRY;
        const char *ln = l1 ? "recomputed" : "carried";
        const double h = hs[l];
        const chain_result p = nh_chain(&u->md, u->retraction, s, L1, START_PLAIN, u->g0, u->mu0, h, N, NULL, ref);
        const chain_result d = nh_chain(&u->md, u->retraction, s, L1, START_PREDICTED, u->g0, u->mu0, h, N, ref, NULL);
        const chain_result w = nh_chain(&u->md, u->retraction, s, L1, START_WARM, u->g0, u->mu0, h, N, ref, NULL);
        double mu_ulp[SP_LIE_MAX_DIM];
        memcpy(mu_ulp, u->mu0, sizeof mu_ulp);
        mu_ulp[0] = nextafter(mu_ulp[0], INFINITY);
        const chain_result e = nh_chain(&u->md, u->retraction, s, L1, START_PLAIN, u->g0, mu_ulp, h, N, ref, NULL);
        const double lam_bound = fmax(1e-13 / h, 10.0 * e.worst_lam);
        cr_log_info("%s %s %s s=%d h=%g: iterations %.2f plain, %.2f predicted, %.2f warm; Jacobians %.2f → %.3f; "
                    "distance of (g, μ) %.1e predicted, %.1e warm, of λ %.1e, %.1e (one ulp of μ0: %.1e); stage "
                    "residual %.1e, %.1e",
                    u->name, u->retraction, ln, s, h, p.iterations, d.iterations, w.iterations, p.jacobians,
                    w.jacobians, d.worst, w.worst, d.worst_lam, w.worst_lam, e.worst_lam, d.stage, w.stage);
        cr_expect_leq(d.worst, 1e-14, "%s %s %s s=%d h=%g: the predicted run is %.2e from the plain one", u->name,
                      u->retraction, ln, s, h, d.worst);
        cr_expect_leq(w.worst, 1e-14, "%s %s %s s=%d h=%g: the warm run is %.2e from the plain one", u->name,
                      u->retraction, ln, s, h, w.worst);
        cr_expect_leq(fmax(d.worst_lam, w.worst_lam), lam_bound,
                      "%s %s %s s=%d h=%g: λ %.2e, %.2e from the plain run (one ulp of μ0: %.2e)", u->name,
                      u->retraction, ln, s, h, d.worst_lam, w.worst_lam, e.worst_lam);
        cr_expect_leq(d.stage, 1e-14, "%s %s %s s=%d h=%g: stage residual %.2e predicted", u->name, u->retraction, ln,
                      s, h, d.stage);
        cr_expect_leq(w.stage, 1e-13, "%s %s %s s=%d h=%g: stage residual %.2e with the warm start", u->name,
                      u->retraction, ln, s, h, w.stage);
        cr_expect_leq(w.jacobians, 0.5 * p.jacobians, "%s %s %s s=%d h=%g: %.3f Jacobians per step warm, %.3f plain",
                      u->name, u->retraction, ln, s, h, w.jacobians, p.jacobians);
        if (s > 2) {
            plain_sum += p.iterations, predicted_sum += d.iterations, ++runs;
        } else
            cr_expect_eq(d.iterations, p.iterations, "s = 2 starts plain: %.2f iterations, plain %.2f", d.iterations,
                         p.iterations);
    }
    cr_log_info("s = 3, 4: %.2f → %.2f iterations per step on average", plain_sum / runs, predicted_sum / runs);
    cr_expect_leq(predicted_sum, 0.9 * plain_sum, "s = 3, 4: %.2f iterations per step predicted, %.2f plain",
                  predicted_sum / runs, plain_sum / runs);
}

/* A state that is not the one the last step returned (here μ kicked by 1e-9) is stepped
 * from the plain guess by full Newton, with or without the warm start: bitwise what a
 * fresh stepper gives, with as many iterations and Jacobians. */
Test(nh_lie_warm, a_jump_falls_back_to_the_plain_start)
{
    nh_setup su[3];
    nh_setups(su);
    for (int c = 0; c < 3; ++c)
        for (int warm = 0; warm < 2; ++warm) {
            const nh_setup *u = &su[c];
            const sp_group *G = u->md.group;
            const int ne = G->elem_size, n = G->dim;
            sp_nh_lie_options opt = sp_nh_lie_options_default();
            opt.newton.warm_start = warm;
            sp_nh_lie *a = sp_nh_lie_alloc(&u->md, sp_retraction_by_name(u->retraction), 4, &opt);
            sp_nh_lie *b = sp_nh_lie_alloc(&u->md, sp_retraction_by_name(u->retraction), 4, &opt);
            cr_assert(a && b);
            double g[SP_LIE_MAX_ELEM], mu[SP_LIE_MAX_DIM], lam, g2[SP_LIE_MAX_ELEM], mu2[SP_LIE_MAX_DIM], lam2;
            memcpy(g, u->g0, (size_t)ne * sizeof *g), memcpy(mu, u->mu0, (size_t)n * sizeof *mu);
            cr_assert_eq(sp_nh_lie_multiplier(&u->md, g, mu, &lam), SP_OK);
            for (int k = 0; k < 10; ++k) cr_assert_eq(sp_nh_lie_step(a, 0.05, g, mu, &lam), SP_OK);
            const sp_nh_lie_step_info continued = sp_nh_lie_last_step(a);
            mu[0] += 1e-9;
            memcpy(g2, g, sizeof g), memcpy(mu2, mu, sizeof mu), lam2 = lam;
            cr_assert_eq(sp_nh_lie_step(a, 0.05, g, mu, &lam), SP_OK);
            cr_assert_eq(sp_nh_lie_step(b, 0.05, g2, mu2, &lam2), SP_OK);
            const sp_nh_lie_step_info ia = sp_nh_lie_last_step(a), ib = sp_nh_lie_last_step(b);
            cr_log_info("%s %s %s: continuing %d iterations, %d Jacobians; after the jump %d, %d; fresh %d, %d",
                        u->name, u->retraction, warm ? "warm" : "default", continued.iterations, continued.jacobians,
                        ia.iterations, ia.jacobians, ib.iterations, ib.jacobians);
            cr_expect(memcmp(g, g2, (size_t)ne * sizeof *g) == 0 && memcmp(mu, mu2, (size_t)n * sizeof *mu) == 0 &&
                          lam == lam2,
                      "%s %s: the step after a jump differs from a fresh stepper's", u->name, u->retraction);
            cr_expect(ia.iterations == ib.iterations && ia.jacobians == ib.jacobians,
                      "%s %s: %d iterations, %d Jacobians after a jump; fresh %d, %d", u->name, u->retraction,
                      ia.iterations, ia.jacobians, ib.iterations, ib.jacobians);
            if (warm)
                cr_expect_lt(continued.jacobians, ib.jacobians, "%s %s: the continued step factored afresh", u->name,
                             u->retraction);
            sp_nh_lie_free(a);
            sp_nh_lie_free(b);
        }
}
