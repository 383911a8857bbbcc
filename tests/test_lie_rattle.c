/* The heavy top in matrix form (holonomic RATTLE on R⁹) and on SO(3) (Lie-group RATTLE,
 * Cayley and exponential retractions), and the "RATTLE outer, midpoint inner" step for
 * holonomic plus index-1 constraints on S³: checks B6, B7 and A9 (named in the tests
 * below), and around them
 *   - the model derivatives (G, d2g, ∇V, the left-trivialised f) against central
 *     differences, the conversions between the two forms of the top;
 *   - both Newton Jacobians against central differences, and the Lie one against the
 *     explicit K(ξ) for the Cayley map;
 *   - symmetry (a step of h then −h returns), the general-inertia path, the free body's
 *     spatial momentum (on SO(3), and on SE(3), where the step also restricts to SO(3) and
 *     SE(2));
 *   - the symplecticity defect (sp_symplecticity.h) with a non-symplectic negative control;
 *   - every failure as a status with the state left untouched.
 * Golden numbers are reference values computed independently (an independent Python
 * implementation, 17 digits). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_holonomic.h"
#include "integrators/sp_lie_rattle.h"
#include "integrators/sp_prop7.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/holonomic/sp_rigid_body.h"
#include "problems/holonomic/sp_s3_contact.h"

/* ---- data: golden values computed independently (heavy top, Prop. 7 on S³) */

static const double top_J[3] = {2, 3, 4}, top_chi[3] = {0.3, 0.2, 1.0}, top_omega0[3] = {0.4, -0.7, 1.1};
static const double top_R0[9] = {0.867579908675799,   -0.4840182648401826, -0.11415525114155253,
                                 0.4292237442922375,  0.8447488584474886,  -0.319634703196347,
                                 0.25114155251141557, 0.22831050228310504, 0.9406392694063928};
static const double top_P0[9] = {-1.5308219178082192, -1.5,
                                 -0.2068493150684931, 1.7636986301369868,
                                 -0.9000000000000001, -0.31917808219178084,
                                 2.2739726027397262,  0.14999999999999997,
                                 -0.13356164383561644};
static const double top_R_ref[9] = {-0.08113910054577833, 0.9249623115298056,   0.3712966046329674,
                                    -0.9018045365033428,  0.09051493186477877,  -0.4225584279735072,
                                    -0.4244585071647618,  -0.36912297322011595, 0.8267909084748009};
static const double top_mu_ref[3] = {0.21135850592411654, 1.1706692549735014, 5.300140288964765};
static const double top_T = 3.0;

static const double s3_q0[4] = {1, 0, 0, 0}, s3_p0[4] = {0, 0.3, 0.8, 0};
static const double s3_y_ref[8] = {0.34975488920988246, -0.47733310056942907, -0.5881862784033004,
                                   0.5512363653372016,  0.8849661133589544,   -0.35002689759418476,
                                   0.4512504339947364,  -0.38310486957018614};

static double max_abs_diff(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

static sp_heavy_top make_top(double mgl)
{
    sp_heavy_top top;
    cr_assert_eq(sp_heavy_top_init(&top, top_J, mgl, top_chi), SP_OK);
    return top;
}

/* ---- the symplecticity defect on a constraint manifold in R^{2n} */

typedef int (*flat_map)(void *ctx, double *z); /* in place on z ∈ R^{2n}; 0 on success */

#define ZMAX 18

typedef struct flat_ctx {
    flat_map map;
    void *ctx;
} flat_ctx;

static sp_status adapt_flat(void *ctx, double *z)
{
    flat_ctx *c = ctx;
    return c->map(c->ctx, z) == 0 ? SP_OK : SP_ERR_CALLBACK;
}

/* The library's one implementation (integrators/sp_symplecticity.h). */
static double symplecticity_defect(flat_map map, void *ctx, int n, const double *z0, int kc, const double *DC)
{
    flat_ctx c = {map, ctx};
    double defect;
    int d;
    cr_assert_eq(sp_symplecticity_defect(adapt_flat, &c, n, z0, kc, DC, 1e-6, &defect, &d), SP_OK);
    cr_assert_eq(d, 2 * n - kc, "the manifold should have dimension %d, got %d", 2 * n - kc, d);
    return defect;
}

/* DC of C(q, p) = (g(q), G(q)M⁻¹p) for the top in matrix form, using the model's d2g. */
static void top_constraint_jacobian(const sp_holonomic_model *md, const double *z, double *DC)
{
    cr_assert_eq(sp_holonomic_manifold_jacobian(md, z, z + 9, DC), SP_OK);
}

/* ---- the heavy-top models */

Test(heavy_top, model_derivatives_match_central_differences)
{
    sp_heavy_top top = make_top(1.0);
    sp_holonomic_model md;
    sp_heavy_top_matrix_model(&top, &md);
    /* a generic, non-orthogonal point of R⁹ */
    double q[9] = {0.9, -0.4, 0.2, 0.35, 0.8, -0.3, 0.25, 0.3, 1.1};
    double g[6], G[54], d2g[486], grad[9], V;
    cr_assert_eq(md.constraints(q, g, G, d2g, md.params), 0);
    cr_assert_eq(md.potential(q, &V, grad, NULL, md.params), 0);
    double worst_G = 0.0, worst_d2g = 0.0, worst_grad = 0.0;
    const double e = 1e-6;
    for (int l = 0; l < 9; ++l) {
        double qp[9], qm[9], gp[6], gm[6], Gp[54], Gm[54], Vp, Vm;
        memcpy(qp, q, sizeof q), memcpy(qm, q, sizeof q);
        qp[l] += e, qm[l] -= e;
        md.constraints(qp, gp, Gp, NULL, md.params);
        md.constraints(qm, gm, Gm, NULL, md.params);
        md.potential(qp, &Vp, NULL, NULL, md.params);
        md.potential(qm, &Vm, NULL, NULL, md.params);
        for (int r = 0; r < 6; ++r) {
            worst_G = fmax(worst_G, fabs((gp[r] - gm[r]) / (2 * e) - G[r * 9 + l]));
            for (int i = 0; i < 9; ++i)
                worst_d2g = fmax(worst_d2g, fabs((Gp[r * 9 + i] - Gm[r * 9 + i]) / (2 * e) - d2g[(r * 9 + i) * 9 + l]));
        }
        worst_grad = fmax(worst_grad, fabs((Vp - Vm) / (2 * e) - grad[l]));
    }
    cr_expect_leq(worst_G, 1e-9, "G vs differences of g: %.2e", worst_G);
    cr_expect_leq(worst_d2g, 1e-9, "d2g vs differences of G: %.2e", worst_d2g);
    cr_expect_leq(worst_grad, 1e-9, "grad V vs differences of V: %.2e", worst_grad);

    /* the Lie form: ⟨f(R), η⟩ = d/ds V(R exp(sη̂)) at s = 0 */
    sp_lie_rattle_model lm;
    sp_heavy_top_lie_model(&top, &lm);
    double f[3], worst_f = 0.0;
    cr_assert_eq(lm.potential(top_R0, NULL, f, lm.params), 0);
    for (int k = 0; k < 3; ++k) {
        double eta[3] = {0, 0, 0}, E[9], Rp[9], Rm[9], Vp, Vm;
        eta[k] = e;
        sp_group_so3->exp(sp_group_so3, eta, E);
        sp_mat_mul(3, 3, 3, top_R0, E, Rp);
        eta[k] = -e;
        sp_group_so3->exp(sp_group_so3, eta, E);
        sp_mat_mul(3, 3, 3, top_R0, E, Rm);
        lm.potential(Rp, &Vp, NULL, lm.params);
        lm.potential(Rm, &Vm, NULL, lm.params);
        worst_f = fmax(worst_f, fabs((Vp - Vm) / (2 * e) - f[k]));
    }
    cr_expect_leq(worst_f, 1e-9, "f(R) vs differences of V: %.2e", worst_f);
}

Test(heavy_top, states_and_conversions_agree)
{
    sp_heavy_top top = make_top(1.0);
    /* the example's R0 = cay((0.3, −0.2, 0.5)) and J_d = (2.5, 1.5, 0.5) */
    double x[3] = {0.3, -0.2, 0.5}, R[9];
    sp_group_so3->cay(sp_group_so3, x, R);
    cr_expect_leq(max_abs_diff(9, R, top_R0), 1e-15);
    cr_expect(top.Jd[0] == 2.5 && top.Jd[1] == 1.5 && top.Jd[2] == 0.5);

    double q[9], p[9], Rl[9], mu[3], Rb[9], mub[3];
    sp_heavy_top_matrix_state(&top, top_R0, top_omega0, q, p);
    sp_heavy_top_lie_state(&top, top_R0, top_omega0, Rl, mu);
    cr_expect_leq(max_abs_diff(9, p, top_P0), 1e-15, "P0 off golden by %.2e", max_abs_diff(9, p, top_P0));
    cr_expect(mu[0] == 0.8 && fabs(mu[1] + 2.1) < 1e-15 && fabs(mu[2] - 4.4) < 1e-15);
    sp_heavy_top_matrix_to_body(&top, q, p, Rb, mub);
    cr_expect_leq(max_abs_diff(3, mub, mu), 1e-15);
    cr_expect_leq(max_abs_diff(9, Rb, Rl), 0.0);
    /* energy ½ωᵀJω + mgl e₃ᵀRχ and the vertical momentum agree between the forms */
    double E_lie = sp_heavy_top_lie_energy(&top, Rl, mu), E_mat = sp_heavy_top_matrix_energy(&top, q, p);
    double V = top.mgl * sp_vec_dot(3, top_R0 + 6, top_chi);
    cr_expect_leq(fabs(E_lie - (3.315 + V)), 1e-14, "E = %.17g", E_lie);
    cr_expect_leq(fabs(E_mat - E_lie), 1e-14);
    double m_lie = sp_heavy_top_lie_vertical_momentum(Rl, mu), m_mat = sp_heavy_top_matrix_vertical_momentum(q, p);
    cr_expect_leq(fabs(m_lie - m_mat), 1e-14, "vertical momentum %.17g vs %.17g", m_lie, m_mat);
    cr_expect_gt(fabs(m_lie), 0.1);
    /* the state lies on T*SO(3) */
    sp_holonomic_model md;
    sp_heavy_top_matrix_model(&top, &md);
    sp_holonomic *s = sp_holonomic_alloc(&md, sp_holonomic_method_by_name("rattle"));
    double pos, hidden;
    cr_assert_eq(sp_holonomic_residuals(s, q, p, &pos, &hidden), SP_OK);
    cr_expect_leq(fmax(pos, hidden), 1e-15);
    sp_holonomic_free(s);
}

Test(heavy_top, invalid_parameters_are_refused)
{
    sp_heavy_top top;
    const double flat[3] = {1, 1, 2}, neg[3] = {-1, 3, 4}, nan_J[3] = {2, NAN, 4};
    cr_expect_eq(sp_heavy_top_init(&top, flat, 1.0, top_chi), SP_ERR_INVALID); /* J_d,3 = 0 */
    cr_expect_eq(sp_heavy_top_init(&top, neg, 1.0, top_chi), SP_ERR_INVALID);
    cr_expect_eq(sp_heavy_top_init(&top, nan_J, 1.0, top_chi), SP_ERR_INVALID);
    cr_expect_eq(sp_heavy_top_init(&top, top_J, INFINITY, top_chi), SP_ERR_INVALID);
    cr_expect_eq(sp_heavy_top_init(NULL, top_J, 1.0, top_chi), SP_ERR_INVALID);
}

/* ---- B6: matrix RATTLE */

typedef struct matrix_run {
    sp_heavy_top top;
    sp_holonomic_model model;
    sp_holonomic *s;
} matrix_run;

static void matrix_open(matrix_run *r, const char *method, double mgl)
{
    r->top = make_top(mgl);
    sp_heavy_top_matrix_model(&r->top, &r->model);
    r->s = sp_holonomic_alloc(&r->model, sp_holonomic_method_by_name(method));
    cr_assert_not_null(r->s, "%s", method);
}

Test(heavy_top, b6_matrix_rattle_one_step_matches_golden)
{
    static const double Q1[9] = {0.7994544217491989, -0.5819693669903413, -0.1489438935657167,
                                 0.4949730028627411, 0.7786434914784258,  -0.38563718650478646,
                                 0.3404032226385274, 0.23457614768588075, 0.910549107382};
    static const double P1[9] = {-1.8598582412202058, -1.4257970569533953, -0.13954455080930395,
                                 1.5092893412846928,  -1.076523168914718,  -0.33709860466623404,
                                 2.17334727794682,    0.03605459588603001, -0.1655946559929308};
    matrix_run r;
    matrix_open(&r, "rattle", 1.0);
    double q[9], p[9];
    memcpy(q, top_R0, sizeof q), memcpy(p, top_P0, sizeof p);
    cr_assert_eq(sp_holonomic_step(r.s, 0.1, q, p), SP_OK);
    double e = fmax(max_abs_diff(9, q, Q1), max_abs_diff(9, p, P1));
    cr_log_info("B6 matrix RATTLE one step: off golden by %.1e", e);
    cr_expect_leq(e, 1e-12, "one matrix RATTLE step off golden by %.2e", e);
    sp_holonomic_free(r.s);
}

static double matrix_error(const char *method, int N)
{
    matrix_run r;
    matrix_open(&r, method, 1.0);
    double q[9], p[9], R[9], mu[3];
    sp_heavy_top_matrix_state(&r.top, top_R0, top_omega0, q, p);
    for (int k = 0; k < N; ++k) cr_assert_eq(sp_holonomic_step(r.s, top_T / N, q, p), SP_OK);
    sp_heavy_top_matrix_to_body(&r.top, q, p, R, mu);
    sp_holonomic_free(r.s);
    return fmax(max_abs_diff(9, R, top_R_ref), max_abs_diff(3, mu, top_mu_ref));
}

Test(heavy_top, b6_matrix_rattle_orders_2_and_4)
{
    static const struct {
        const char *method;
        double lo, hi;
    } cases[] = {{"rattle", 1.95, 2.05}, {"rattle_tj4", 3.9, 4.1}};
    for (size_t c = 0; c < 2; ++c) {
        double e[4];
        for (int l = 0; l < 4; ++l) e[l] = matrix_error(cases[c].method, 30 << l);
        double order = log2(e[2] / e[3]);
        cr_log_info("B6 %s: errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f", cases[c].method, e[0], e[1], e[2], e[3],
                    log2(e[0] / e[1]), log2(e[1] / e[2]), order);
        cr_expect(order >= cases[c].lo && order <= cases[c].hi, "%s: errors %.3e %.3e %.3e %.3e, last order %.3f",
                  cases[c].method, e[0], e[1], e[2], e[3], order);
    }
}

Test(heavy_top, b6_matrix_rattle_long_run_invariants)
{
    matrix_run r;
    matrix_open(&r, "rattle", 1.0);
    double q[9], p[9];
    sp_heavy_top_matrix_state(&r.top, top_R0, top_omega0, q, p);
    const double E0 = sp_heavy_top_matrix_energy(&r.top, q, p), m0 = sp_heavy_top_matrix_vertical_momentum(q, p);
    double worst_c = 0.0, worst_m = 0.0, first = 0.0, second = 0.0;
    const int N = 4000; /* T = 200, h = 0.05 */
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_holonomic_step(r.s, 0.05, q, p), SP_OK);
        double pos, hidden;
        cr_assert_eq(sp_holonomic_residuals(r.s, q, p, &pos, &hidden), SP_OK);
        worst_c = fmax(worst_c, fmax(pos, hidden));
        worst_m = fmax(worst_m, fabs(sp_heavy_top_matrix_vertical_momentum(q, p) - m0));
        double dE = fabs(sp_heavy_top_matrix_energy(&r.top, q, p) - E0);
        if (k < N / 2)
            first = fmax(first, dE);
        else
            second = fmax(second, dE);
    }
    cr_log_info("B6 T=200 h=0.05: constraints %.1e, vertical momentum %.1e, |dE| %.3e / %.3e (halves)", worst_c,
                worst_m, first, second);
    cr_expect_leq(worst_c, 1e-14, "max constraint residual %.2e", worst_c);
    cr_expect_leq(worst_m, 1e-12, "vertical momentum drift %.2e", worst_m);
    cr_expect_leq(fmax(first, second), 2.5e-3, "max |dE| = %.3e", fmax(first, second));
    cr_expect_leq(second, 1.5 * first, "energy error grows: %.3e then %.3e", first, second);
    sp_holonomic_free(r.s);
}

static int matrix_map(void *ctx, double *z) { return sp_holonomic_step(ctx, 0.1, z, z + 9) != SP_OK; }

Test(heavy_top, b6_matrix_rattle_is_symplectic_on_TSO3)
{
    matrix_run r;
    matrix_open(&r, "rattle", 1.0);
    double z0[18], DC[12 * 18];
    sp_heavy_top_matrix_state(&r.top, top_R0, top_omega0, z0, z0 + 9);
    top_constraint_jacobian(&r.model, z0, DC);
    double d = symplecticity_defect(matrix_map, r.s, 9, z0, 12, DC);
    cr_log_info("B6 matrix RATTLE symplecticity defect h=0.1: %.2e", d);
    cr_expect_leq(d, 1.7e-9, "matrix RATTLE defect %.2e (independent Python implementation: 1.7e-10)", d);
    sp_holonomic_free(r.s);
}

/* ---- B7: Lie-group RATTLE */

typedef struct lie_run {
    sp_heavy_top top;
    sp_lie_rattle_model model;
    sp_lie_rattle *s;
} lie_run;

static void lie_open(lie_run *r, const char *retraction, double mgl)
{
    r->top = make_top(mgl);
    sp_heavy_top_lie_model(&r->top, &r->model);
    r->s = sp_lie_rattle_alloc(&r->model, sp_retraction_by_name(retraction));
    cr_assert_not_null(r->s, "%s", retraction);
}

static const char *const retractions[] = {"cayley", "exp"};

Test(lie_rattle, b7_cayley_one_step_matches_golden)
{
    static const double R1[9] = {0.8001165267725499,  -0.5811135564152484, -0.1487298831299665,
                                 0.4944801908184525,  0.7793367867898486,  -0.38486817697001274,
                                 0.33956278428823516, 0.2343954080320177,  0.9109093852957744};
    static const double mu1[3] = {0.8793947657507141, -2.0102795217153995, 4.42729495524666};
    lie_run r;
    lie_open(&r, "cayley", 1.0);
    double R[9], mu[3];
    sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
    cr_assert_eq(sp_lie_rattle_step(r.s, 0.1, R, mu), SP_OK);
    double e = fmax(max_abs_diff(9, R, R1), max_abs_diff(3, mu, mu1));
    cr_log_info("B7 Lie-RATTLE(Cayley) one step: off golden by %.1e, %d Newton iterations", e,
                sp_lie_rattle_iterations(r.s));
    cr_expect_leq(e, 1e-13, "one Lie-RATTLE(Cayley) step off golden by %.2e", e);
    cr_expect_geq(sp_lie_rattle_iterations(r.s), 2);
    sp_lie_rattle_free(r.s);
}

/* The explicit Cayley form, written out: (I + (h/2)ξ̂ + (h²/4)ξξᵀ)Jξ = r and its K(ξ). */
static void spec_cayley_residual(double h, const double *J, const double *r, const double *xi, double *F, double *K)
{
    double Jxi[3] = {J[0] * xi[0], J[1] * xi[1], J[2] * xi[2]}, c[3];
    sp_cross(xi, Jxi, c);
    double dot = sp_vec_dot(3, xi, Jxi);
    for (int i = 0; i < 3; ++i) F[i] = Jxi[i] + 0.5 * h * c[i] + 0.25 * h * h * xi[i] * dot - r[i];
    double X[9], JX[9];
    sp_group_so3->hat(sp_group_so3, xi, X);
    sp_group_so3->hat(sp_group_so3, Jxi, JX);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            K[3 * i + j] = (i == j) * J[i] + 0.5 * h * (X[3 * i + j] * J[j] - JX[3 * i + j]) +
                           0.25 * h * h * ((i == j) * dot + 2.0 * xi[i] * Jxi[j]);
}

Test(lie_rattle, newton_jacobian_matches_differences_and_explicit_K)
{
    const double h = 0.3, r[3] = {0.8, -2.1, 4.4}, xi[3] = {0.5, -0.9, 1.2};
    for (size_t t = 0; t < 2; ++t) {
        lie_run run;
        lie_open(&run, retractions[t], 1.0);
        double F[3], K[9], worst = 0.0;
        cr_assert_eq(sp_lie_rattle_residual(run.s, h, r, xi, F, K), SP_OK);
        for (int j = 0; j < 3; ++j) {
            double xp[3], xm[3], Fp[3], Fm[3];
            memcpy(xp, xi, sizeof xp), memcpy(xm, xi, sizeof xm);
            xp[j] += 1e-6, xm[j] -= 1e-6;
            sp_lie_rattle_residual(run.s, h, r, xp, Fp, NULL);
            sp_lie_rattle_residual(run.s, h, r, xm, Fm, NULL);
            for (int i = 0; i < 3; ++i) worst = fmax(worst, fabs((Fp[i] - Fm[i]) / 2e-6 - K[3 * i + j]));
        }
        cr_expect_leq(worst, 1e-8, "%s: Newton Jacobian vs differences %.2e", retractions[t], worst);
        sp_lie_rattle_free(run.s);
    }
    /* Cayley: the root of the explicit equation is the root here, and there the Jacobian
     * is dcay_{hξ}ᵀ K(ξ) */
    lie_run run;
    lie_open(&run, "cayley", 1.0);
    double R[9], mu[3], xs[3], F[3], K[9], Fs[3], Ks[9], A[9], AtK[9];
    sp_heavy_top_lie_state(&run.top, top_R0, top_omega0, R, mu);
    double f[3], rk[3];
    run.model.potential(R, NULL, f, run.model.params);
    for (int i = 0; i < 3; ++i) rk[i] = mu[i] - 0.5 * h * f[i];
    cr_assert_eq(sp_lie_rattle_step(run.s, h, R, mu), SP_OK);
    sp_lie_rattle_velocity(run.s, xs);
    spec_cayley_residual(h, top_J, rk, xs, Fs, Ks);
    cr_expect_leq(sp_vec_norm(3, Fs), 1e-14, "explicit-form residual at the root %.2e", sp_vec_norm(3, Fs));
    sp_lie_rattle_residual(run.s, h, rk, xs, F, K);
    double hx[3] = {h * xs[0], h * xs[1], h * xs[2]};
    sp_group_so3->dcay(sp_group_so3, hx, A);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) AtK[3 * i + j] = A[i] * Ks[j] + A[3 + i] * Ks[3 + j] + A[6 + i] * Ks[6 + j];
    cr_expect_leq(max_abs_diff(9, K, AtK), 1e-13, "Jacobian vs dcay^T K at the root: %.2e", max_abs_diff(9, K, AtK));
    sp_lie_rattle_free(run.s);
}

static double lie_error(const char *retraction, int N)
{
    lie_run r;
    lie_open(&r, retraction, 1.0);
    double R[9], mu[3];
    sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
    for (int k = 0; k < N; ++k) cr_assert_eq(sp_lie_rattle_step(r.s, top_T / N, R, mu), SP_OK);
    sp_lie_rattle_free(r.s);
    return fmax(max_abs_diff(9, R, top_R_ref), max_abs_diff(3, mu, top_mu_ref));
}

Test(lie_rattle, b7_order_2_for_both_retractions)
{
    for (size_t t = 0; t < 2; ++t) {
        double e[4];
        for (int l = 0; l < 4; ++l) e[l] = lie_error(retractions[t], 30 << l);
        double order = log2(e[2] / e[3]);
        cr_log_info("B7 %s: errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f", retractions[t], e[0], e[1], e[2], e[3],
                    log2(e[0] / e[1]), log2(e[1] / e[2]), order);
        cr_expect(order >= 1.95 && order <= 2.05, "%s: errors %.3e %.3e %.3e %.3e, last order %.3f", retractions[t],
                  e[0], e[1], e[2], e[3], order);
    }
}

static double orthogonality_defect(const double *R)
{
    double worst = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
            worst = fmax(worst, fabs(s - (i == j)));
        }
    return worst;
}

Test(lie_rattle, b7_long_run_invariants_for_both_retractions)
{
    for (size_t t = 0; t < 2; ++t) {
        lie_run r;
        lie_open(&r, retractions[t], 1.0);
        double R[9], mu[3], E, E0;
        sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
        cr_assert_eq(sp_lie_rattle_energy(r.s, R, mu, &E0), SP_OK);
        cr_expect_leq(fabs(E0 - sp_heavy_top_lie_energy(&r.top, R, mu)), 1e-15);
        const double m0 = sp_heavy_top_lie_vertical_momentum(R, mu);
        double worst_m = 0.0, worst_o = 0.0, first = 0.0, second = 0.0;
        const int N = 4000; /* T = 200, h = 0.05 */
        for (int k = 0; k < N; ++k) {
            cr_assert_eq(sp_lie_rattle_step(r.s, 0.05, R, mu), SP_OK);
            worst_m = fmax(worst_m, fabs(sp_heavy_top_lie_vertical_momentum(R, mu) - m0));
            worst_o = fmax(worst_o, orthogonality_defect(R));
            sp_lie_rattle_energy(r.s, R, mu, &E);
            if (k < N / 2)
                first = fmax(first, fabs(E - E0));
            else
                second = fmax(second, fabs(E - E0));
        }
        cr_log_info("B7 %s T=200 h=0.05: e3.(R mu) %.1e, |R^T R - I| %.1e, |dE| %.3e / %.3e (halves)", retractions[t],
                    worst_m, worst_o, first, second);
        cr_expect_leq(worst_m, 1e-12, "%s: e3.(R mu) drift %.2e", retractions[t], worst_m);
        cr_expect_leq(worst_o, 1e-13, "%s: max |R^T R - I| %.2e", retractions[t], worst_o);
        cr_expect_leq(fmax(first, second), 2.5e-3, "%s: max |dE| %.3e", retractions[t], fmax(first, second));
        cr_expect_leq(second, 1.5 * first, "%s: energy error grows: %.3e then %.3e", retractions[t], first, second);
        sp_lie_rattle_free(r.s);
    }
}

/* Lie-RATTLE seen on T*R⁹ through the embedding (R, μ) ↦ (R, R(J⁻¹μ)^J_d). */
static int lie_embedded_map(void *ctx, double *z)
{
    lie_run *r = ctx;
    double R[9], mu[3];
    sp_heavy_top_matrix_to_body(&r->top, z, z + 9, R, mu);
    if (sp_lie_rattle_step(r->s, 0.1, R, mu) != SP_OK) return 1;
    sp_heavy_top_embed(&r->top, R, mu, z, z + 9);
    return 0;
}

/* Negative control: explicit Euler for (R, μ) with a Cayley update of R. */
static int lie_euler_map(void *ctx, double *z)
{
    lie_run *r = ctx;
    double R[9], mu[3], w[3], c[3], f[3], x[3], C[9];
    sp_heavy_top_matrix_to_body(&r->top, z, z + 9, R, mu);
    for (int k = 0; k < 3; ++k) w[k] = mu[k] / r->top.J[k], x[k] = 0.1 * w[k];
    sp_cross(mu, w, c);
    r->model.potential(R, NULL, f, r->model.params);
    sp_group_so3->cay(sp_group_so3, x, C);
    sp_mat_mul(3, 3, 3, R, C, z);
    for (int k = 0; k < 3; ++k) mu[k] += 0.1 * (c[k] - f[k]);
    sp_heavy_top_embed(&r->top, z, mu, z, z + 9);
    return 0;
}

Test(lie_rattle, symplectic_through_the_embedding)
{
    for (size_t t = 0; t < 2; ++t) {
        lie_run r;
        lie_open(&r, retractions[t], 1.0);
        sp_holonomic_model md;
        sp_heavy_top_matrix_model(&r.top, &md);
        double z0[18], DC[12 * 18];
        sp_heavy_top_matrix_state(&r.top, top_R0, top_omega0, z0, z0 + 9);
        top_constraint_jacobian(&md, z0, DC);
        double d = symplecticity_defect(lie_embedded_map, &r, 9, z0, 12, DC);
        cr_log_info("Lie-RATTLE(%s) symplecticity defect h=0.1 (embedding): %.2e", retractions[t], d);
        cr_expect_leq(d, 1e-8, "Lie-RATTLE(%s) defect %.2e", retractions[t], d);
        if (t == 0) {
            double de = symplecticity_defect(lie_euler_map, &r, 9, z0, 12, DC);
            cr_log_info("negative control, explicit Euler on SO(3): defect %.2e", de);
            cr_expect_geq(de, 1e-4, "explicit Euler should not be symplectic, defect %.2e", de);
        }
        sp_lie_rattle_free(r.s);
    }
}

Test(lie_rattle, symmetric_and_free_body_keeps_spatial_momentum)
{
    for (size_t t = 0; t < 2; ++t) {
        lie_run r;
        lie_open(&r, retractions[t], 1.0);
        double R[9], mu[3];
        sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
        cr_assert_eq(sp_lie_rattle_step(r.s, 0.2, R, mu), SP_OK);
        cr_assert_eq(sp_lie_rattle_step(r.s, -0.2, R, mu), SP_OK);
        double e = fmax(max_abs_diff(9, R, top_R0), fabs(mu[0] - 0.8) + fabs(mu[1] + 2.1) + fabs(mu[2] - 4.4));
        cr_expect_leq(e, 1e-13, "%s: step h then -h misses the start by %.2e", retractions[t], e);
        sp_lie_rattle_free(r.s);

        /* free rigid body: all of π = Rμ is conserved */
        lie_open(&r, retractions[t], 0.0);
        sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
        double pi0[3], pi[3], worst = 0.0;
        sp_mat_vec(3, 3, R, mu, pi0);
        for (int k = 0; k < 500; ++k) {
            cr_assert_eq(sp_lie_rattle_step(r.s, 0.1, R, mu), SP_OK);
            sp_mat_vec(3, 3, R, mu, pi);
            worst = fmax(worst, max_abs_diff(3, pi, pi0));
        }
        cr_expect_leq(worst, 1e-13, "%s: free body spatial momentum drift %.2e", retractions[t], worst);
        sp_lie_rattle_free(r.s);
    }
}

/* 𝕁(ξ) = Jξ through the callback path, which takes its own initial guess. */
static int callback_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    const sp_heavy_top *top = params;
    if (mu)
        for (int i = 0; i < 3; ++i) mu[i] = top->J[i] * xi[i];
    if (dmu) {
        memset(dmu, 0, 9 * sizeof *dmu);
        for (int i = 0; i < 3; ++i) dmu[4 * i] = top->J[i];
    }
    return 0;
}

Test(lie_rattle, general_inertia_path_agrees_with_the_diagonal_one)
{
    lie_run r;
    lie_open(&r, "exp", 1.0);
    sp_lie_rattle_model general = r.model;
    general.inertia_diag = NULL;
    general.inertia = callback_inertia;
    sp_lie_rattle *g = sp_lie_rattle_alloc(&general, sp_retraction_exp);
    cr_assert_not_null(g);
    double R[9], mu[3], Rg[9], mug[3], E;
    sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
    memcpy(Rg, R, sizeof R), memcpy(mug, mu, sizeof mu);
    for (int k = 0; k < 20; ++k) {
        cr_assert_eq(sp_lie_rattle_step(r.s, 0.1, R, mu), SP_OK);
        cr_assert_eq(sp_lie_rattle_step(g, 0.1, Rg, mug), SP_OK);
    }
    double e = fmax(max_abs_diff(9, R, Rg), max_abs_diff(3, mu, mug));
    cr_expect_leq(e, 1e-14, "callback inertia differs by %.2e", e);
    cr_expect_eq(sp_lie_rattle_energy(g, Rg, mug, &E), SP_ERR_INVALID);
    sp_lie_rattle_free(g);
    sp_lie_rattle_free(r.s);
}

/* V = ½(x² + 3y²) + 0.1x⁴ on the group R² (f = ∇V). */
static int plane_potential(const double *g, double *V, double *f, void *params)
{
    (void)params;
    if (V) *V = 0.5 * (g[0] * g[0] + 3.0 * g[1] * g[1]) + 0.1 * pow(g[0], 4);
    if (f) f[0] = g[0] + 0.4 * pow(g[0], 3), f[1] = 3.0 * g[1];
    return 0;
}

/* Nothing in the step is specific to SO(3): on R² (every retraction the identity) it is
 * the velocity Verlet method. */
Test(lie_rattle, on_the_group_R2_it_is_velocity_verlet)
{
    static const double mass[2] = {1.0, 2.0};
    const sp_lie_rattle_model plane = {.group = sp_group_rn(2), .inertia_diag = mass, .potential = plane_potential};
    for (size_t t = 0; t < 2; ++t) {
        sp_lie_rattle *s = sp_lie_rattle_alloc(&plane, sp_retraction_by_name(retractions[t]));
        cr_assert_not_null(s);
        double g[2] = {0.7, -0.3}, mu[2] = {0.2, 0.5}, q[2] = {0.7, -0.3}, p[2] = {0.2, 0.5}, worst = 0.0;
        for (int k = 0; k < 50; ++k) {
            const double h = 0.1;
            double f[2];
            cr_assert_eq(sp_lie_rattle_step(s, h, g, mu), SP_OK);
            plane_potential(q, NULL, f, NULL);
            for (int i = 0; i < 2; ++i) p[i] -= 0.5 * h * f[i], q[i] += h * p[i] / mass[i];
            plane_potential(q, NULL, f, NULL);
            for (int i = 0; i < 2; ++i) p[i] -= 0.5 * h * f[i];
            worst = fmax(worst, fmax(max_abs_diff(2, g, q), max_abs_diff(2, mu, p)));
        }
        cr_expect_leq(worst, 1e-14, "%s on R2: differs from velocity Verlet by %.2e", retractions[t], worst);
        sp_lie_rattle_free(s);
    }
}

/* Nothing in the step is specific to SO(3) either on SE(3): a free rigid body in space,
 * J = diag(J_ω, m, m, m) (V = 0),
 *  - keeps its spatial momentum Ad*_{g⁻¹}μ (linear and angular, about the origin) to
 *    round-off: the discrete Noether theorem of the left-invariant L_d;
 *  - with zero linear momentum it does not move its origin and turns as on SO(3);
 *  - with planar data (ω ∥ e₃, v ⊥ e₃) it moves as on SE(2) with J = (J₃, m, m);
 * the last two to the Newton tolerance (the retractions, their differentials and Ad* of
 * SE(3) restrict to those of the subgroups). */
Test(lie_rattle, on_SE3_a_free_body_keeps_its_spatial_momentum_and_restricts_to_SO3_and_SE2)
{
    const sp_group *G = sp_group_se3;
    static const double J6[6] = {0.8, 1.1, 1.7, 2.0, 2.0, 2.0}, J3[3] = {0.8, 1.1, 1.7}, J2[3] = {1.7, 2.0, 2.0};
    const sp_lie_rattle_model body = {.group = G, .inertia_diag = J6};
    const sp_lie_rattle_model rot = {.group = sp_group_so3, .inertia_diag = J3};
    const sp_lie_rattle_model plane = {.group = sp_group_se2, .inertia_diag = J2};
    for (size_t t = 0; t < 2; ++t) {
        const sp_retraction *T = sp_retraction_by_name(retractions[t]);
        sp_lie_rattle *s = sp_lie_rattle_alloc(&body, T), *s3 = sp_lie_rattle_alloc(&rot, T),
                      *s2 = sp_lie_rattle_alloc(&plane, T);
        cr_assert(s && s3 && s2);
        const double h = 0.05;
        const int N = 400;

        /* spatial momentum, from a general state */
        double g[16], mu[6] = {0.3, -0.8, 1.2, 0.5, 1.5, -0.7}, gi[16], M0[6], M[6];
        const double x0[6] = {0.4, -1.0, 0.6, 2.0, -3.0, 1.0};
        G->exp(G, x0, g);
        G->inverse(G, g, gi);
        G->Ad_star(G, gi, mu, M0);
        double drift = 0.0, E0, E, energy = 0.0, last_row = 0.0;
        cr_assert_eq(sp_lie_rattle_energy(s, g, mu, &E0), SP_OK);
        for (int k = 0; k < N; ++k) {
            cr_assert_eq(sp_lie_rattle_step(s, h, g, mu), SP_OK, "%s: step %d", retractions[t], k);
            G->inverse(G, g, gi);
            G->Ad_star(G, gi, mu, M);
            drift = fmax(drift, max_abs_diff(6, M, M0) / sp_vec_norm(6, M0));
            cr_assert_eq(sp_lie_rattle_energy(s, g, mu, &E), SP_OK);
            energy = fmax(energy, fabs(E - E0) / E0);
            last_row = fmax(last_row, max_abs_diff(4, g + 12, (const double[]){0, 0, 0, 1}));
        }

        /* no linear momentum: the SO(3) body */
        double gr[16], mur[6] = {0.3, -0.8, 1.2, 0, 0, 0}, R[9], m3[3] = {0.3, -0.8, 1.2};
        G->exp(G, (const double[]){0.4, -1.0, 0.6, 0, 0, 0}, gr);
        sp_group_so3->exp(sp_group_so3, x0, R);
        double rot_err = 0.0;
        for (int k = 0; k < N; ++k) {
            cr_assert_eq(sp_lie_rattle_step(s, h, gr, mur), SP_OK);
            cr_assert_eq(sp_lie_rattle_step(s3, h, R, m3), SP_OK);
            for (int i = 0; i < 3; ++i) {
                rot_err = fmax(rot_err, fabs(gr[4 * i + 3]) + fabs(mur[3 + i]) + fabs(mur[i] - m3[i]));
                for (int j = 0; j < 3; ++j) rot_err = fmax(rot_err, fabs(gr[4 * i + j] - R[3 * i + j]));
            }
        }

        /* planar data: the SE(2) body (ω = ω₃, v = (v₁, v₂)) */
        double gp[16], mup[6] = {0, 0, 0.9, 1.4, -0.6, 0}, g2[9], m2[3] = {0.9, 1.4, -0.6};
        G->identity(G, gp);
        sp_group_se2->identity(sp_group_se2, g2);
        double plane_err = 0.0;
        for (int k = 0; k < N; ++k) {
            cr_assert_eq(sp_lie_rattle_step(s, h, gp, mup), SP_OK);
            cr_assert_eq(sp_lie_rattle_step(s2, h, g2, m2), SP_OK);
            const double e[] = {gp[0] - g2[0], gp[1] - g2[1], gp[3] - g2[2], gp[4] - g2[3], gp[5] - g2[4],
                                gp[7] - g2[5], gp[2],         gp[6],         gp[8],         gp[9],
                                gp[10] - 1.0,  gp[11],        mup[0],        mup[1],        mup[5],
                                mup[2] - m2[0], mup[3] - m2[1], mup[4] - m2[2]};
            for (size_t i = 0; i < sizeof e / sizeof e[0]; ++i) plane_err = fmax(plane_err, fabs(e[i]));
        }
        cr_log_info("SE3 %s free body, %d steps: spatial momentum drift %.1e, energy %.1e; vs SO3 %.1e, vs SE2 %.1e",
                    retractions[t], N, drift, energy, rot_err, plane_err);
        cr_expect_leq(drift, 1e-13, "%s: spatial momentum drifts by %.2e", retractions[t], drift);
        cr_expect_leq(energy, 1e-2, "%s: energy error %.2e", retractions[t], energy);
        cr_expect_eq(last_row, 0.0, "%s: the last row left (0, 0, 0, 1)", retractions[t]);
        /* the Newton tolerance, accumulated over N steps (translations of a few units) */
        const double tol = N * 1e-14;
        cr_expect_leq(rot_err, tol, "%s: without linear momentum, differs from SO3 by %.2e", retractions[t], rot_err);
        cr_expect_leq(plane_err, tol, "%s: with planar data, differs from SE2 by %.2e", retractions[t], plane_err);
        sp_lie_rattle_free(s);
        sp_lie_rattle_free(s3);
        sp_lie_rattle_free(s2);
    }
}

static int failing_potential(const double *g, double *V, double *f, void *params)
{
    (void)g, (void)V, (void)f, (void)params;
    return 1;
}

static int nan_potential(const double *g, double *V, double *f, void *params)
{
    (void)g, (void)params;
    if (V) *V = NAN;
    if (f) f[0] = f[1] = f[2] = NAN;
    return 0;
}

static int failing_inertia(const double *xi, double *mu, double *dmu, void *params)
{
    (void)xi, (void)mu, (void)dmu, (void)params;
    return -1;
}

Test(lie_rattle, failures_come_back_as_status_with_the_state_untouched)
{
    lie_run r;
    lie_open(&r, "cayley", 1.0);
    double R[9], mu[3];
    sp_heavy_top_lie_state(&r.top, top_R0, top_omega0, R, mu);
    /* Newton stopped after one iteration */
    sp_lie_rattle_set_options(r.s, &(sp_newton_options){.tol = 1e-15, .max_iter = 1});
    cr_expect_eq(sp_lie_rattle_step(r.s, 0.1, R, mu), SP_ERR_NO_CONVERGENCE);
    cr_expect(memcmp(R, top_R0, sizeof R) == 0 && mu[0] == 0.8, "state must be left untouched");
    sp_lie_rattle_free(r.s);

    sp_lie_rattle_model bad = r.model;
    bad.potential = failing_potential;
    sp_lie_rattle *s = sp_lie_rattle_alloc(&bad, sp_retraction_cayley);
    cr_expect_eq(sp_lie_rattle_step(s, 0.1, R, mu), SP_ERR_CALLBACK);
    double E;
    cr_expect_eq(sp_lie_rattle_energy(s, R, mu, &E), SP_ERR_CALLBACK);
    sp_lie_rattle_free(s);

    bad.potential = nan_potential;
    s = sp_lie_rattle_alloc(&bad, sp_retraction_exp);
    cr_expect_eq(sp_lie_rattle_step(s, 0.1, R, mu), SP_ERR_NONFINITE);
    cr_expect(memcmp(R, top_R0, sizeof R) == 0 && mu[0] == 0.8, "state must be left untouched");
    sp_lie_rattle_free(s);

    bad = r.model;
    bad.inertia = failing_inertia;
    s = sp_lie_rattle_alloc(&bad, sp_retraction_exp);
    cr_expect_eq(sp_lie_rattle_step(s, 0.1, R, mu), SP_ERR_CALLBACK);
    sp_lie_rattle_free(s);

    /* invalid models */
    const double zero_J[3] = {0, 1, 1};
    bad = r.model;
    bad.inertia_diag = zero_J;
    cr_expect_null(sp_lie_rattle_alloc(&bad, sp_retraction_cayley));
    bad = r.model;
    bad.group = NULL;
    cr_expect_null(sp_lie_rattle_alloc(&bad, sp_retraction_cayley));
    cr_expect_null(sp_lie_rattle_alloc(&r.model, sp_retraction_by_name("no_such_retraction")));
    cr_expect_null(sp_lie_rattle_alloc(NULL, sp_retraction_cayley));
    sp_lie_rattle_free(NULL);
}

/* ---- A9: Prop. 7 on S³ */

typedef struct s3_run {
    sp_s3_contact prm;
    sp_prop7_model model;
    sp_prop7 *s;
} s3_run;

static void s3_open(s3_run *r, double c4)
{
    cr_assert_eq(sp_s3_contact_init(&r->prm, 0.5, c4), SP_OK);
    sp_s3_contact_model(&r->prm, &r->model);
    r->s = sp_prop7_alloc(&r->model);
    cr_assert_not_null(r->s);
}

Test(prop7, a9_one_step_matches_golden)
{
    static const double golden[8] = {0.9967976434809477,     -5.551100985850058e-18, 0.07991256764193284,
                                     -0.0029050789495107874, -0.06427826935173767,   0.3009637933656833,
                                     0.8005418860682745,     -0.03410227327244915};
    s3_run r;
    s3_open(&r, 0.1);
    double z[8];
    memcpy(z, s3_q0, sizeof s3_q0), memcpy(z + 4, s3_p0, sizeof s3_p0);
    double H;
    cr_assert_eq(sp_prop7_energy(r.s, z, z + 4, &H, NULL), SP_OK);
    cr_expect_leq(fabs(H - 0.82), 1e-15, "H0 = %.17g", H);
    cr_assert_eq(sp_prop7_step(r.s, 0.1, z, z + 4), SP_OK);
    double e = max_abs_diff(8, z, golden);
    cr_log_info("A9 one step: off golden by %.1e, %d Newton iterations", e, sp_prop7_iterations(r.s));
    cr_expect_leq(e, 1e-13, "one Prop.-7 step off golden by %.2e", e);
    sp_prop7_free(r.s);
}

Test(prop7, newton_jacobian_matches_central_differences)
{
    s3_run r;
    s3_open(&r, 0.1);
    const double h = 0.2, x[9] = {0.95, 0.1, 0.2, -0.15, 0.1, 0.35, 0.7, -0.05, 0.3};
    double F[9], J[81], worst = 0.0;
    cr_assert_eq(sp_prop7_residual(r.s, h, s3_q0, s3_p0, x, F, J), SP_OK);
    for (int j = 0; j < 9; ++j) {
        double xp[9], xm[9], Fp[9], Fm[9];
        memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm);
        xp[j] += 1e-6, xm[j] -= 1e-6;
        cr_assert_eq(sp_prop7_residual(r.s, h, s3_q0, s3_p0, xp, Fp, NULL), SP_OK);
        cr_assert_eq(sp_prop7_residual(r.s, h, s3_q0, s3_p0, xm, Fm, NULL), SP_OK);
        for (int i = 0; i < 9; ++i) worst = fmax(worst, fabs((Fp[i] - Fm[i]) / 2e-6 - J[9 * i + j]));
    }
    cr_expect_leq(worst, 1e-8, "Prop.-7 Jacobian vs differences %.2e", worst);
    sp_prop7_free(r.s);
}

Test(prop7, a9_order_2_at_T5)
{
    double e[4];
    for (int l = 0; l < 4; ++l) {
        s3_run r;
        s3_open(&r, 0.1);
        double z[8];
        memcpy(z, s3_q0, sizeof s3_q0), memcpy(z + 4, s3_p0, sizeof s3_p0);
        const int N = 25 << l;
        for (int k = 0; k < N; ++k) cr_assert_eq(sp_prop7_step(r.s, 5.0 / N, z, z + 4), SP_OK);
        e[l] = max_abs_diff(8, z, s3_y_ref);
        sp_prop7_free(r.s);
    }
    double order = log2(e[2] / e[3]);
    cr_log_info("A9 errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f", e[0], e[1], e[2], e[3], log2(e[0] / e[1]),
                log2(e[1] / e[2]), order);
    cr_expect(order >= 1.95 && order <= 2.05, "errors %.3e %.3e %.3e %.3e, last order %.3f", e[0], e[1], e[2], e[3],
              order);
}

Test(prop7, a9_long_run_constraints_and_energy)
{
    s3_run r;
    s3_open(&r, 0.1);
    double q[4], p[4], H0, H;
    memcpy(q, s3_q0, sizeof q), memcpy(p, s3_p0, sizeof p);
    cr_assert_eq(sp_prop7_energy(r.s, q, p, &H0, NULL), SP_OK);
    double worst_h = 0.0, worst_qp = 0.0, worst_hidden = 0.0, first = 0.0, second = 0.0;
    const int N = 5000; /* T = 500, h = 0.1 */
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(sp_prop7_step(r.s, 0.1, q, p), SP_OK);
        double pos, hidden;
        cr_assert_eq(sp_prop7_residuals(r.s, q, p, &pos, &hidden), SP_OK);
        worst_h = fmax(worst_h, pos);
        worst_hidden = fmax(worst_hidden, hidden);
        worst_qp = fmax(worst_qp, fabs(sp_vec_dot(4, q, p)));
        sp_prop7_energy(r.s, q, p, &H, NULL);
        if (k < N / 2)
            first = fmax(first, fabs(H - H0));
        else
            second = fmax(second, fabs(H - H0));
    }
    cr_log_info("A9 T=500 h=0.1: |h(q)| %.1e, |q.p| %.1e, |Dh H_p| %.1e, |dH| %.3e / %.3e (halves)", worst_h, worst_qp,
                worst_hidden, first, second);
    cr_expect_leq(worst_h, 1e-14, "max |h(q)| %.2e", worst_h);
    cr_expect_leq(worst_qp, 1e-14, "max |q.p| %.2e", worst_qp);
    cr_expect_leq(worst_hidden, 1e-14, "max |Dh H_p| %.2e", worst_hidden);
    cr_expect_leq(fmax(first, second), 1.5e-3, "max |dH| %.3e", fmax(first, second));
    cr_expect_leq(second, 1.5 * first, "energy error grows: %.3e then %.3e", first, second);
    sp_prop7_free(r.s);
}

static int prop7_map(void *ctx, double *z) { return sp_prop7_step(ctx, 0.2, z, z + 4) != SP_OK; }

/* Negative control: the same model, explicit Euler then projection onto T*S³. */
static int s3_euler_projection_map(void *ctx, double *z)
{
    double H, lam, v[4], q[4], p[4];
    s3_run *r = ctx;
    if (sp_prop7_energy(r->s, z, z + 4, &H, &lam) != SP_OK) return 1;
    const double g[4] = {-z[1], z[0], -z[3], z[2]};
    for (int i = 0; i < 4; ++i) v[i] = z[4 + i] + lam * g[i];
    /* H_q = λ ∂(g·v)/∂q + ∇V with ∂(g·v)/∂q = (v₂, −v₁, v₄, −v₃) */
    const double Hq[4] = {lam * v[1] + z[0], lam * -v[0] + z[1], lam * v[3], lam * -v[2] + 0.1};
    for (int i = 0; i < 4; ++i) q[i] = z[i] + 0.2 * v[i], p[i] = z[4 + i] - 0.2 * Hq[i];
    double n = sp_vec_norm(4, q), qp;
    for (int i = 0; i < 4; ++i) q[i] /= n;
    qp = sp_vec_dot(4, q, p);
    for (int i = 0; i < 4; ++i) z[i] = q[i], z[4 + i] = p[i] - qp * q[i];
    return 0;
}

Test(prop7, a9_symplectic_on_TS3)
{
    s3_run r;
    s3_open(&r, 0.1);
    double z0[8], DC[16] = {0};
    memcpy(z0, s3_q0, sizeof s3_q0), memcpy(z0 + 4, s3_p0, sizeof s3_p0);
    /* C = (½(|q|² − 1), q·p) */
    for (int i = 0; i < 4; ++i) DC[i] = z0[i], DC[8 + i] = z0[4 + i], DC[12 + i] = z0[i];
    double d = symplecticity_defect(prop7_map, r.s, 4, z0, 2, DC);
    double de = symplecticity_defect(s3_euler_projection_map, &r, 4, z0, 2, DC);
    cr_log_info("A9 symplecticity defect h=0.2: %.2e; Euler+projection %.2e", d, de);
    cr_expect_leq(d, 1e-8, "Prop.-7 defect on T*S^3 %.2e (independent Python implementation: 7.2e-11)", d);
    cr_expect_geq(de, 1e-4, "Euler with projection should not be symplectic, defect %.2e", de);
    sp_prop7_free(r.s);
}

Test(prop7, hopf_invariant_potential_keeps_the_momentum_map)
{
    s3_run r;
    s3_open(&r, 0.0);
    double q[4], p[4], H, lam0, lam, worst = 0.0, worst_formula = 0.0;
    memcpy(q, s3_q0, sizeof q), memcpy(p, s3_p0, sizeof p);
    cr_assert_eq(sp_prop7_energy(r.s, q, p, &H, &lam0), SP_OK);
    cr_expect_leq(fabs(lam0 + 0.3), 1e-16, "lambda0 = -g.p = %.17g", lam0);
    for (int k = 0; k < 2000; ++k) { /* T = 200, h = 0.1 */
        cr_assert_eq(sp_prop7_step(r.s, 0.1, q, p), SP_OK);
        cr_assert_eq(sp_prop7_energy(r.s, q, p, &H, &lam), SP_OK);
        const double g[4] = {-q[1], q[0], -q[3], q[2]};
        worst = fmax(worst, fabs(lam - lam0));
        worst_formula = fmax(worst_formula, fabs(lam + sp_vec_dot(4, g, p)));
    }
    cr_log_info("Hopf-invariant V, T=200 h=0.1: lambda drift %.1e, lambda + g.p %.1e", worst, worst_formula);
    cr_expect_leq(worst, 1e-14, "lambda drift %.2e", worst);
    cr_expect_leq(worst_formula, 1e-14, "lambda vs -g.p %.2e", worst_formula);
    sp_prop7_free(r.s);
}

Test(prop7, symmetric_step)
{
    s3_run r;
    s3_open(&r, 0.1);
    double z[8];
    memcpy(z, s3_q0, sizeof s3_q0), memcpy(z + 4, s3_p0, sizeof s3_p0);
    cr_assert_eq(sp_prop7_step(r.s, 0.2, z, z + 4), SP_OK);
    cr_assert_eq(sp_prop7_step(r.s, -0.2, z, z + 4), SP_OK);
    double e = fmax(max_abs_diff(4, z, s3_q0), max_abs_diff(4, z + 4, s3_p0));
    cr_expect_leq(e, 1e-14, "step h then -h misses the start by %.2e", e);
    sp_prop7_free(r.s);
}

/* N steps of Prop. 7 on S³ from the A9 data; plain: every step from the plain guess
 * (sp_prop7_reset before each). With ref, the largest distance to its states is returned
 * in *worst; with keep, the states are stored there. Returns iterations per step. */
static double prop7_chain(double h, int N, int plain, const double *ref, double *keep, double *worst)
{
    s3_run r;
    s3_open(&r, 0.1);
    double z[8];
    long total = 0;
    memcpy(z, s3_q0, sizeof s3_q0), memcpy(z + 4, s3_p0, sizeof s3_p0);
    if (worst) *worst = 0.0;
    for (int k = 0; k < N; ++k) {
        if (plain) sp_prop7_reset(r.s);
        cr_assert_eq(sp_prop7_step(r.s, h, z, z + 4), SP_OK, "step %d at h = %g", k, h);
        total += sp_prop7_iterations(r.s);
        if (keep) memcpy(keep + 8 * k, z, sizeof z);
        if (ref) *worst = fmax(*worst, max_abs_diff(8, z, ref + 8 * k));
    }
    sp_prop7_free(r.s);
    return (double)total / N;
}

/* A step from where the last one ended starts from the last steps' increments and
 * multiplier extrapolated: the run stays on the trajectory of the plain start to
 * round-off (after 100 steps of h = 0.2, one unit in the last place of p0 moves the end by
 * 1.3e-14, the predicted start by 2e-14), with fewer Newton iterations per step. */
Test(prop7, predicted_run_follows_the_plain_start_with_fewer_iterations)
{
    static const double hs[3] = {0.2, 0.1, 0.01};
    for (int l = 0; l < 3; ++l) {
        enum { N = 100 };
        static double ref[8 * N];
        double worst;
        const double plain = prop7_chain(hs[l], N, 1, NULL, ref, NULL);
        const double warm = prop7_chain(hs[l], N, 0, ref, NULL, &worst);
        cr_log_info("A9 h=%g: %.3f → %.3f Newton iterations per step, largest distance %.1e", hs[l], plain, warm,
                    worst);
        cr_expect_leq(worst, 1e-13, "h=%g: the predicted run is %.3e from the plain one", hs[l], worst);
        cr_expect_leq(warm, 0.9 * plain, "h=%g: %.3f iterations per step, plain %.3f", hs[l], warm, plain);
    }
}

/* A state that is not the one the last step returned is stepped from the plain guess:
 * bitwise what a fresh stepper gives, with as many iterations. */
Test(prop7, a_jump_falls_back_to_the_plain_start)
{
    s3_run a, b;
    s3_open(&a, 0.1);
    s3_open(&b, 0.1);
    double z[8], w[8];
    memcpy(z, s3_q0, sizeof s3_q0), memcpy(z + 4, s3_p0, sizeof s3_p0);
    for (int k = 0; k < 10; ++k) cr_assert_eq(sp_prop7_step(a.s, 0.01, z, z + 4), SP_OK);
    const int continued = sp_prop7_iterations(a.s);
    z[5] += 1e-9; /* p jumps (off T*S³ by 1e-9 at most: a valid start for the step) */
    memcpy(w, z, sizeof z);
    cr_assert_eq(sp_prop7_step(a.s, 0.01, z, z + 4), SP_OK);
    cr_assert_eq(sp_prop7_step(b.s, 0.01, w, w + 4), SP_OK);
    cr_log_info("A9 h=0.01: %d iterations continuing, %d after a jump", continued, sp_prop7_iterations(a.s));
    cr_expect_lt(continued, sp_prop7_iterations(b.s), "the continued step must be predicted");
    cr_expect_eq(memcmp(z, w, sizeof z), 0, "the step after a jump differs from a fresh stepper's");
    cr_expect_eq(sp_prop7_iterations(a.s), sp_prop7_iterations(b.s), "%d iterations after a jump, %d fresh",
                 sp_prop7_iterations(a.s), sp_prop7_iterations(b.s));
    sp_prop7_free(a.s);
    sp_prop7_free(b.s);
}

static int failing_holonomic(const double *q, double *h, double *Dh, double *D2h, void *params)
{
    (void)q, (void)h, (void)Dh, (void)D2h, (void)params;
    return 1;
}

/* h(q) = |q|² + 1 cannot vanish. */
static int impossible_holonomic(const double *q, double *h, double *Dh, double *D2h, void *params)
{
    (void)D2h, (void)params;
    if (h) h[0] = sp_vec_dot(4, q, q) + 1.0;
    if (Dh)
        for (int i = 0; i < 4; ++i) Dh[i] = 2.0 * q[i];
    return 0;
}

static int failing_vak_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    (void)q, (void)V, (void)grad, (void)hess, (void)params;
    return 1;
}

Test(prop7, failures_come_back_as_status_with_the_state_untouched)
{
    s3_run r;
    s3_open(&r, 0.1);
    double q[4], p[4];
    memcpy(q, s3_q0, sizeof q), memcpy(p, s3_p0, sizeof p);
    sp_prop7_set_options(r.s, &(sp_newton_options){.tol = 1e-15, .max_iter = 1});
    cr_expect_eq(sp_prop7_step(r.s, 0.1, q, p), SP_ERR_NO_CONVERGENCE);
    cr_expect(memcmp(q, s3_q0, sizeof q) == 0 && memcmp(p, s3_p0, sizeof p) == 0, "state must be left untouched");
    sp_prop7_free(r.s);

    sp_prop7_model bad = r.model;
    bad.holonomic = failing_holonomic;
    sp_prop7 *s = sp_prop7_alloc(&bad);
    cr_expect_eq(sp_prop7_step(s, 0.1, q, p), SP_ERR_CALLBACK);
    double pos, hidden;
    cr_expect_eq(sp_prop7_residuals(s, q, p, &pos, &hidden), SP_ERR_CALLBACK);
    sp_prop7_free(s);

    bad = r.model;
    bad.holonomic = impossible_holonomic;
    s = sp_prop7_alloc(&bad);
    cr_expect_neq(sp_prop7_step(s, 0.1, q, p), SP_OK);
    cr_expect(memcmp(q, s3_q0, sizeof q) == 0 && memcmp(p, s3_p0, sizeof p) == 0, "state must be left untouched");
    sp_prop7_free(s);

    bad = r.model;
    bad.vak.potential = failing_vak_potential;
    s = sp_prop7_alloc(&bad);
    cr_expect_eq(sp_prop7_step(s, 0.1, q, p), SP_ERR_CALLBACK);
    sp_prop7_free(s);

    bad = r.model;
    bad.k = 0;
    cr_expect_null(sp_prop7_alloc(&bad));
    bad = r.model;
    bad.holonomic = NULL;
    cr_expect_null(sp_prop7_alloc(&bad));
    cr_expect_null(sp_prop7_alloc(NULL));
    cr_expect_eq(sp_s3_contact_init(&r.prm, NAN, 0.1), SP_ERR_INVALID);
    sp_prop7_free(NULL);
}
