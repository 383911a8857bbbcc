/* Holonomic integrators on the spherical pendulum (checks B1–B5 below): golden one-step
 * values (computed independently), orders against the reference solution, the constraint
 * and hidden constraint at every step, first integrals and bounded energy, SHAKE against
 * RATTLE, and the symplecticity defect on T*S² with Euler-plus-projection as the negative
 * control. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_holonomic.h"
#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "step_fixtures.h"

/* The spherical pendulum of the shared fixtures (step_fixtures.h): m = g = ℓ = 1, V = q₃,
 * g(q) = ½(|q|² − 1). */

static sp_holonomic *stepper(const char *method)
{
    sp_holonomic *s = sp_holonomic_alloc(&fixture_pendulum, sp_holonomic_method_by_name(method));
    cr_assert_not_null(s, "method %s", method);
    return s;
}

/* B1: golden one-step values, h = 0.1, computed independently */
Test(holonomic, one_step_matches_golden_values)
{
    static const struct {
        const char *method;
        double z[6];
    } golden[] = {
        {"se_a", {0.1, 0.9909086738948246, 0.09000000000000001, 0.9909086738948247, -0.18100000000000005, 0.8918178065053423}},
        {"se_b", {0.1, 0.9899494936611666, 0.1, 0.9909494936611665, -0.19010050506338835, 0.8909494936611665}},
        {"rattle", {0.1, 0.9904418206033103, 0.095, 0.9909168206033104, -0.18554540135213432, 0.8913709795731448}},
        {"rattle_tj4",
         {0.09967630375317857, 0.9905046220848517, 0.09468488843869893, 0.9909772984220426, -0.1849226429728984,
          0.8912697662142641}},
        {"rattle_suzuki5",
         {0.0996910084560041, 0.9905018209257468, 0.09469870947275266, 0.9909745803685892, -0.1849502170691936,
          0.891271612742759}},
        {"rattle_tj6",
         {0.09969288981018073, 0.9905014701940853, 0.0947003973838059, 0.9909742328723737, -0.184953665708414,
          0.8912717911564842}},
    };
    for (size_t c = 0; c < sizeof golden / sizeof golden[0]; ++c) {
        sp_holonomic *s = stepper(golden[c].method);
        double z[6];
        memcpy(z, fixture_pendulum_q0, sizeof fixture_pendulum_q0);
        memcpy(z + 3, fixture_pendulum_p0, sizeof fixture_pendulum_p0);
        cr_assert_eq(sp_holonomic_step(s, 0.1, z, z + 3), SP_OK);
        double err = 0.0;
        for (int i = 0; i < 6; ++i) err = fmax(err, fabs(z[i] - golden[c].z[i]));
        cr_expect_leq(err, 1e-13, "%s: one step off the golden value by %.2e", golden[c].method, err);
        sp_holonomic_free(s);
    }
}

static double run_error(const char *method, double T, int N)
{
    static const double y_ref_5[6] = {0.6072100708563345, 0.7894137639116936,  0.09012124719953225,
                                      0.8453771355337075, -0.5478296054021252, -0.8972055103285813};
    sp_holonomic *s = stepper(method);
    double q[3], p[3];
    memcpy(q, fixture_pendulum_q0, sizeof q);
    memcpy(p, fixture_pendulum_p0, sizeof p);
    for (int k = 0; k < N; ++k) cr_assert_eq(sp_holonomic_step(s, T / N, q, p), SP_OK);
    double err = 0.0;
    for (int i = 0; i < 3; ++i) err = fmax(err, fabs(q[i] - y_ref_5[i]));
    if (strcmp(method, "shake") != 0) /* SHAKE's momenta are half-step values */
        for (int i = 0; i < 3; ++i) err = fmax(err, fabs(p[i] - y_ref_5[3 + i]));
    sp_holonomic_free(s);
    return err;
}

/* The multiplier solve starts from the last substep's multiplier and stops by Newton's
 * measured rate: every step must land where Newton iterated to round-off takes the same
 * state (tol 1e-18 leaves only the stagnation rule to stop it), and a resolved substep
 * must take two iterations on average at h = 0.05 (three for the compositions at h = 0.25,
 * where the start is further off). */
Test(holonomic, multiplier_solve_stops_at_the_round_off_solution)
{
    static const char *const methods[] = {"rattle", "rattle_suzuki5", "rattle_kl8", "rattle_kl10"};
    static const double steps[] = {0.05, 0.25};
    for (size_t c = 0; c < sizeof methods / sizeof *methods; ++c)
        for (size_t j = 0; j < (c == 0 ? 1u : 2u); ++j) { /* RATTLE alone: h = 0.25 is one coarse step */
            const sp_holonomic_method *method = sp_holonomic_method_by_name(methods[c]);
            sp_holonomic *fast = stepper(methods[c]), *exact = stepper(methods[c]);
            sp_newton_options to_round_off = sp_newton_options_default();
            to_round_off.tol = 1e-18;
            to_round_off.max_iter = 100;
            sp_holonomic_set_options(exact, &to_round_off);
            double a[6], b[6], diff = 0.0;
            memcpy(a, fixture_pendulum_q0, sizeof fixture_pendulum_q0), memcpy(a + 3, fixture_pendulum_p0, sizeof fixture_pendulum_p0);
            memcpy(b, a, sizeof a);
            long iterations = 0, exact_iterations = 0;
            const int N = 400;
            for (int k = 0; k < N; ++k) {
                memcpy(b, a, sizeof a);
                cr_assert_eq(sp_holonomic_step(fast, steps[j], a, a + 3), SP_OK);
                cr_assert_eq(sp_holonomic_step(exact, steps[j], b, b + 3), SP_OK);
                if (k > 0) { /* the first step starts from nothing */
                    iterations += sp_holonomic_iterations(fast);
                    exact_iterations += sp_holonomic_iterations(exact);
                }
                for (int i = 0; i < 6; ++i) diff = fmax(diff, fabs(a[i] - b[i]));
            }
            const double substeps = (N - 1.0) * (double)method->stages, per_substep = iterations / substeps;
            cr_log_info("%s, h = %g: |fast - to round-off| %.1e in one step (max of %d); iterations per "
                        "substep %.3f (to round-off %.3f)",
                        methods[c], steps[j], diff, N, per_substep, exact_iterations / substeps);
            cr_expect_leq(diff, 1e-14, "%s, h = %g: the early stop changed a step by %.1e", methods[c], steps[j],
                          diff);
            cr_expect_leq(per_substep, j == 0 ? 2.0 : 3.0, "%s, h = %g: %.3f Newton iterations per substep",
                          methods[c], steps[j], per_substep);
            sp_holonomic_free(fast);
            sp_holonomic_free(exact);
        }
}

/* G and ∇V are remembered from where the last step ended: a step from anywhere else must
 * evaluate them afresh (the same result as a new stepper's, up to the start of the solve). */
Test(holonomic, remembered_jacobian_belongs_to_its_position)
{
    sp_holonomic *used = stepper("rattle_kl8"), *fresh = stepper("rattle_kl8");
    double z[6], w[6];
    memcpy(z, fixture_pendulum_q0, sizeof fixture_pendulum_q0), memcpy(z + 3, fixture_pendulum_p0, sizeof fixture_pendulum_p0);
    for (int k = 0; k < 10; ++k) cr_assert_eq(sp_holonomic_step(used, 0.1, z, z + 3), SP_OK);
    /* elsewhere on T*S²: the start rotated by a quarter turn about the vertical */
    const double elsewhere[6] = {-1, 0, 0, 0, 1, 1};
    memcpy(z, elsewhere, sizeof z), memcpy(w, elsewhere, sizeof w);
    cr_assert_eq(sp_holonomic_step(used, 0.1, z, z + 3), SP_OK);
    cr_assert_eq(sp_holonomic_step(fresh, 0.1, w, w + 3), SP_OK);
    double diff = 0.0;
    for (int i = 0; i < 6; ++i) diff = fmax(diff, fabs(z[i] - w[i]));
    cr_expect_leq(diff, 1e-14, "a step from a new position differs from a new stepper's by %.1e", diff);
    sp_holonomic_free(used);
    sp_holonomic_free(fresh);
}

/* B2: orders at T = 5 against y_ref_5, with the declared order of every method. */
Test(holonomic, measured_orders_match_declared_orders)
{
    static const struct {
        const char *method;
        double lo, hi, h0;
    } cases[] = {
        {"se_a", 0.9, 1.1, 0.1},          {"se_b", 0.9, 1.1, 0.1},         {"se_ab", 1.95, 2.05, 0.1},
        {"rattle", 1.95, 2.05, 0.1},      {"shake", 1.95, 2.05, 0.1},      {"rattle_tj4", 3.9, 4.1, 0.1},
        {"rattle_suzuki5", 3.9, 4.1, 0.1}, {"rattle_tj6", 5.8, 6.6, 0.2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double e[4];
        for (int l = 0; l < 4; ++l) e[l] = run_error(cases[c].method, 5.0, (int)lround(5.0 / cases[c].h0) << l);
        double order = log2(e[2] / e[3]);
        cr_expect(order >= cases[c].lo && order <= cases[c].hi, "%s: errors %.3e %.3e %.3e %.3e, last order %.3f",
                  cases[c].method, e[0], e[1], e[2], e[3], order);
        const sp_holonomic_method *m = sp_holonomic_method_by_name(cases[c].method);
        cr_expect_eq(lround(order), m->order, "%s declares order %d, measured %.2f", m->name, m->order, order);
    }
}

/* The compositions of order 8 and 10 (Kahan & Li, 1997) on the same problem: the order
 * each declares, measured from larger steps (their error constants are small). */
Test(holonomic, high_order_compositions_reach_their_orders)
{
    static const struct {
        const char *method;
        double lo, hi, h0;
    } cases[] = {{"rattle_kl8", 7.6, 8.6, 0.5}, {"rattle_kl10", 9.4, 10.8, 1.0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        double e[4];
        for (int l = 0; l < 4; ++l) e[l] = run_error(cases[c].method, 5.0, (int)lround(5.0 / cases[c].h0) << l);
        double order = log2(e[1] / e[2]);
        cr_log_info("%s: errors %.3e %.3e %.3e %.3e, orders %.2f %.2f %.2f\n", cases[c].method, e[0], e[1], e[2], e[3],
                    log2(e[0] / e[1]), log2(e[1] / e[2]), log2(e[2] / e[3]));
        cr_expect(order >= cases[c].lo && order <= cases[c].hi, "%s: errors %.3e %.3e %.3e %.3e, order %.3f",
                  cases[c].method, e[0], e[1], e[2], e[3], order);
        const sp_holonomic_method *m = sp_holonomic_method_by_name(cases[c].method);
        cr_expect_eq(lround(order), m->order, "%s declares order %d, measured %.2f", m->name, m->order, order);
    }
}

/* B3: the constraint and the hidden constraint at every step, L₃ = q₁p₂ − q₂p₁ and bounded
 * energy with no growth between the two halves of the run (T = 1000, h = 0.01 for the
 * order-1 and order-2 maps; T = 200 for the compositions, which cost 3–9 steps each). */
Test(holonomic, constraints_and_invariants_over_long_runs, .timeout = 120)
{
    static const struct {
        const char *method;
        double T, energy;
    } cases[] = {
        {"se_a", 1000, 1.3e-2}, {"se_b", 1000, 1.3e-2}, {"se_ab", 1000, 1e-4},
        {"rattle", 1000, 1e-4}, {"rattle_tj4", 200, 6e-8}, {"rattle_suzuki5", 200, 2e-9},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        sp_holonomic *s = stepper(cases[c].method);
        double q[3], p[3], H0, H, L0 = fixture_pendulum_q0[0] * fixture_pendulum_p0[1] - fixture_pendulum_q0[1] * fixture_pendulum_p0[0];
        memcpy(q, fixture_pendulum_q0, sizeof q);
        memcpy(p, fixture_pendulum_p0, sizeof p);
        cr_assert_eq(sp_holonomic_energy(s, q, p, &H0), SP_OK);
        const int N = (int)lround(cases[c].T / 0.01);
        double worst_g = 0.0, worst_hidden = 0.0, worst_L = 0.0, first = 0.0, second = 0.0;
        for (int k = 0; k < N; ++k) {
            cr_assert_eq(sp_holonomic_step(s, 0.01, q, p), SP_OK);
            double g, hidden;
            sp_holonomic_residuals(s, q, p, &g, &hidden);
            sp_holonomic_energy(s, q, p, &H);
            worst_g = fmax(worst_g, g);
            worst_hidden = fmax(worst_hidden, hidden);
            worst_L = fmax(worst_L, fabs(q[0] * p[1] - q[1] * p[0] - L0));
            if (k < N / 2) first = fmax(first, fabs(H - H0));
            else second = fmax(second, fabs(H - H0));
        }
        cr_expect_leq(worst_g, 1e-14, "%s: max |g| = %.2e", cases[c].method, worst_g);
        cr_expect_leq(worst_hidden, 1e-14, "%s: max |G M^-1 p| = %.2e", cases[c].method, worst_hidden);
        cr_expect_leq(worst_L, 1e-11, "%s: max |dL3| = %.2e", cases[c].method, worst_L);
        cr_expect_leq(fmax(first, second), cases[c].energy, "%s: max |dH| = %.2e", cases[c].method, fmax(first, second));
        cr_expect_leq(second, 1.1 * first, "%s: energy error grows: %.3e then %.3e", cases[c].method, first, second);
        sp_holonomic_free(s);
    }
}

/* B4: SHAKE positions are RATTLE positions (h = 0.025, 200 steps). */
Test(holonomic, shake_positions_equal_rattle_positions)
{
    sp_holonomic *r = stepper("rattle"), *s = stepper("shake");
    double qr[3], pr[3], qs[3], ps[3], worst = 0.0;
    memcpy(qr, fixture_pendulum_q0, sizeof qr), memcpy(qs, fixture_pendulum_q0, sizeof qs);
    memcpy(pr, fixture_pendulum_p0, sizeof pr), memcpy(ps, fixture_pendulum_p0, sizeof ps);
    for (int k = 0; k < 200; ++k) {
        cr_assert_eq(sp_holonomic_step(r, 0.025, qr, pr), SP_OK);
        cr_assert_eq(sp_holonomic_step(s, 0.025, qs, ps), SP_OK);
        worst = fmax(worst, sp_vec_dist(3, qr, qs));
    }
    cr_expect_leq(worst, 1e-12, "SHAKE and RATTLE positions differ by %.2e", worst);
    sp_holonomic_free(r);
    sp_holonomic_free(s);
}

typedef int (*step_map)(void *ctx, double h, double *z);

static int holonomic_map(void *ctx, double h, double *z) { return sp_holonomic_step(ctx, h, z, z + 3) != SP_OK; }

/* Explicit Euler on the unconstrained equations, then q onto the sphere and p onto its
 * tangent plane: the projection method that is not symplectic. */
static int euler_projection_map(void *ctx, double h, double *z)
{
    (void)ctx;
    double q[3] = {z[0] + h * z[3], z[1] + h * z[4], z[2] + h * z[5]}, p[3] = {z[3], z[4], z[5] - h};
    double n = sp_vec_norm(3, q);
    for (int i = 0; i < 3; ++i) q[i] /= n;
    double along = sp_vec_dot(3, q, p);
    for (int i = 0; i < 3; ++i) z[i] = q[i], z[3 + i] = p[i] - along * q[i];
    return 0;
}

/* The symplecticity defect through the library's one implementation (integrators/sp_symplecticity.h):
 * on ker DC(z0), C = (g, G M⁻¹p), with DC from the model's d2g. */
static double symplecticity_defect(step_map map, void *ctx, const double *z0, double h)
{
    double DC[2 * 6];
    cr_assert_eq(sp_holonomic_manifold_jacobian(&fixture_pendulum, z0, z0 + 3, DC), SP_OK);
    double defect;
    int dim;
    cr_assert_eq(fixture_ts2_defect(map, ctx, h, z0, DC, &defect, &dim), SP_OK);
    cr_assert_eq(dim, 4, "T*S^2 has dimension 4, got %d", dim);
    return defect;
}

/* B5 */
Test(holonomic, symplectic_on_the_constraint_manifold)
{
    double z0[6];
    memcpy(z0, fixture_pendulum_q0, sizeof fixture_pendulum_q0);
    memcpy(z0 + 3, fixture_pendulum_p0, sizeof fixture_pendulum_p0);
    for (size_t i = 0; sp_holonomic_method_at(i); ++i) {
        const sp_holonomic_method *m = sp_holonomic_method_at(i);
        if (m->base == SP_HOL_SHAKE) continue; /* a two-step map: no one-step symplecticity */
        sp_holonomic *s = sp_holonomic_alloc(&fixture_pendulum, m);
        double d = symplecticity_defect(holonomic_map, s, z0, 0.1);
        cr_expect_leq(d, 1e-8, "%s: symplecticity defect %.2e", m->name, d);
        sp_holonomic_free(s);
    }
    double d = symplecticity_defect(euler_projection_map, NULL, z0, 0.1);
    cr_expect_geq(d, 1e-4, "Euler with projection should not be symplectic, defect %.2e", d);
}

/* The shared implementation: U = I without constraints gives ‖DΦᵀJDΦ − J‖ (a rotation of
 * the (q, p) plane is symplectic, a scaling of q alone is not), the kernel dimension is
 * 2n − rank DC, and the analytic DC of the pendulum agrees with central differences. */
static sp_status rotate(void *ctx, double *z)
{
    const double a = *(const double *)ctx, q = z[0], p = z[1];
    z[0] = cos(a) * q + sin(a) * p;
    z[1] = -sin(a) * q + cos(a) * p;
    return SP_OK;
}

static sp_status stretch(void *ctx, double *z)
{
    (void)ctx;
    z[0] *= 1.5;
    return SP_OK;
}

static sp_status failing_map(void *ctx, double *z)
{
    (void)ctx, (void)z;
    return SP_ERR_NO_CONVERGENCE;
}

Test(holonomic, shared_symplecticity_defect)
{
    double z0[2] = {0.3, -0.7}, a = 0.4, d;
    int dim;
    cr_assert_eq(sp_symplecticity_defect(rotate, &a, 1, z0, 0, NULL, 0.0, &d, &dim), SP_OK);
    cr_expect_eq(dim, 2);
    cr_expect_leq(d, 1e-9, "a rotation is symplectic: defect %.2e", d);
    cr_assert_eq(sp_symplecticity_defect(stretch, NULL, 1, z0, 0, NULL, 1e-6, &d, NULL), SP_OK);
    cr_expect_float_eq(d, 0.5, 1e-8, "a stretch by 1.5 changes the area by 0.5, got %.17g", d);
    cr_expect_eq(sp_symplecticity_defect(failing_map, NULL, 1, z0, 0, NULL, 1e-6, &d, NULL), SP_ERR_NO_CONVERGENCE);
    cr_expect_eq(sp_symplecticity_defect(rotate, &a, 0, z0, 0, NULL, 1e-6, &d, NULL), SP_ERR_INVALID);

    /* DC of T*S² at an off-manifold point against central differences of C = (g, q·p) */
    const double z[6] = {0.3, 1.1, -0.4, 0.7, -0.2, 0.5};
    double DC[12];
    cr_assert_eq(sp_holonomic_manifold_jacobian(&fixture_pendulum, z, z + 3, DC), SP_OK);
    for (int j = 0; j < 6; ++j) {
        double zp[6], zm[6], e = 1e-6;
        memcpy(zp, z, sizeof zp), memcpy(zm, z, sizeof zm);
        zp[j] += e, zm[j] -= e;
        double gp = 0.5 * (sp_vec_dot(3, zp, zp) - 1), gm = 0.5 * (sp_vec_dot(3, zm, zm) - 1);
        double hp = sp_vec_dot(3, zp, zp + 3), hm = sp_vec_dot(3, zm, zm + 3);
        cr_expect_float_eq(DC[j], (gp - gm) / (2 * e), 1e-8, "dg/dz_%d", j);
        cr_expect_float_eq(DC[6 + j], (hp - hm) / (2 * e), 1e-8, "d(q.p)/dz_%d", j);
    }
    /* dependent rows: the kernel is still the complement of their span */
    double twice[2 * 6];
    memcpy(twice, DC, 6 * sizeof *DC);
    memcpy(twice + 6, DC, 6 * sizeof *DC);
    double zs[6] = {0, 1, 0, 1, 0, 1};
    cr_assert_eq(sp_symplecticity_defect(rotate, &a, 3, zs, 2, twice, 1e-6, &d, &dim), SP_OK);
    cr_expect_eq(dim, 5, "one independent row leaves a kernel of dimension 5, got %d", dim);
}

/* A constraint that cannot be met (g = |q|² + 1) fails as a status, leaving the state. */
static int impossible_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    (void)params, (void)d2g;
    if (g) g[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + 1.0;
    if (G) G[0] = 2 * q[0], G[1] = 2 * q[1], G[2] = 2 * q[2];
    return 0;
}

static int failing_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    (void)q, (void)V, (void)grad, (void)hess, (void)params;
    return 1;
}

Test(holonomic, failures_come_back_as_status)
{
    /* the RATTLE family and the Lobatto IIIA–IIIB stage solve alike */
    static const char *const methods[] = {"rattle", "se_a", "lobatto3", "lobatto4"};
    static const double singular[9] = {1, 0, 0, 0, 0, 0, 0, 0, 1};
    for (size_t c = 0; c < sizeof methods / sizeof *methods; ++c) {
        sp_holonomic_model bad = fixture_pendulum;
        bad.constraints = impossible_constraint;
        sp_holonomic *s = sp_holonomic_alloc(&bad, sp_holonomic_method_by_name(methods[c]));
        double q[3] = {0, 1, 0}, p[3] = {1, 0, 1};
        cr_expect_neq(sp_holonomic_step(s, 0.1, q, p), SP_OK, "%s", methods[c]);
        cr_expect(q[1] == 1.0 && p[0] == 1.0 && p[2] == 1.0, "%s: the state must be left untouched", methods[c]);
        sp_holonomic_free(s);

        bad = fixture_pendulum;
        bad.potential = failing_potential;
        s = sp_holonomic_alloc(&bad, sp_holonomic_method_by_name(methods[c]));
        cr_expect_eq(sp_holonomic_step(s, 0.1, q, p), SP_ERR_CALLBACK, "%s", methods[c]);
        cr_expect(q[1] == 1.0 && p[0] == 1.0, "%s: the state must be left untouched", methods[c]);
        sp_holonomic_free(s);

        bad = fixture_pendulum;
        bad.mass_matrix = singular;
        cr_expect_null(sp_holonomic_alloc(&bad, sp_holonomic_method_by_name(methods[c])), "%s", methods[c]);
    }
    cr_expect_null(sp_holonomic_alloc(NULL, sp_holonomic_method_by_name("rattle")));
    cr_expect_null(sp_holonomic_method_by_name("no_such_method"));
    sp_holonomic_free(NULL);
}
