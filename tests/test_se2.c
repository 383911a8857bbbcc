/* SE(2)-specific checks of lie/se2.c, beyond the conformance suite of test_lie.c (which
 * runs every registered group, SE(2) included, through the generic identities and the
 * finite-difference checks of every differential):
 *
 *   - closed forms: exp of a quarter turn with a translation, pure translations and
 *     rotations, Cayley's quarter turn, log of known elements;
 *   - the algebra ordering (ω, v_x, v_y) of hat/vee, ad, Ad, Ad* and the homogeneous
 *     action written out as matrices;
 *   - dexp, dexp⁻¹ and D_exp against long-double power series of ad_x (independent of
 *     the coefficient series of se2.c), everywhere in |ω| ≤ 3, on both sides of the
 *     series switch at |ω| = 1 (continuity included), and at ω = 0, 1e-9, π − 1e-9;
 *   - dcay against (I − x̂/2)⁻¹ ŷ (I + x̂/2)⁻¹ in matrices;
 *   - long products stay in SE(2): last row exactly (0, 0, 1). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

typedef long double ld;

static double max_abs_diff(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return isnan(e) ? INFINITY : e;
}

/* A deterministic spread of algebra vectors: |ω| from 0 to 3, translations up to 2. */
static void sample(int k, double *x)
{
    x[0] = 3.0 * sin(0.37 * k + 0.1) * ((k % 5 == 0) ? 1e-3 : 1.0);
    x[1] = 2.0 * cos(1.3 * k);
    x[2] = 1.5 * sin(2.1 * k + 0.5);
}

Test(se2, closed_forms_of_exp_log_and_cayley)
{
    const sp_group *G = sp_group_se2;
    cr_assert_eq(sp_group_by_name("SE2"), G);
    cr_assert(G->dim == 3 && G->elem_size == 9 && G->mat_dim == 3 && G->act_dim == 2);
    double g[9], x[3];

    /* a quarter turn while moving along x: t = V(π/2)(1, 0) = (2/π, 2/π) */
    const double q[3] = {SP_PI / 2, 1.0, 0.0}, gq[9] = {0, -1, 2 / SP_PI, 1, 0, 2 / SP_PI, 0, 0, 1};
    G->exp(G, q, g);
    double e = max_abs_diff(9, g, gq);
    cr_assert(g[6] == 0.0 && g[7] == 0.0 && g[8] == 1.0, "last row of exp");
    cr_assert_eq(G->log(G, g, x), SP_OK);
    e = fmax(e, max_abs_diff(3, x, q));

    /* pure translation and pure rotation */
    const double tr[3] = {0.0, 1.5, -2.0}, gt[9] = {1, 0, 1.5, 0, 1, -2.0, 0, 0, 1};
    G->exp(G, tr, g);
    cr_assert_eq(max_abs_diff(9, g, gt), 0.0, "exp of a pure translation must be exact");
    const double rot[3] = {0.7, 0.0, 0.0};
    G->exp(G, rot, g);
    const double gr[9] = {cos(0.7), -sin(0.7), 0, sin(0.7), cos(0.7), 0, 0, 0, 1};
    e = fmax(e, max_abs_diff(9, g, gr));

    /* log near a half turn: the angle and V⁻¹ = α I − (ω/2) J stay accurate */
    const double near_pi[3] = {SP_PI - 1e-9, -0.4, 0.9};
    G->exp(G, near_pi, g);
    cr_assert_eq(G->log(G, g, x), SP_OK);
    e = fmax(e, max_abs_diff(3, x, near_pi));

    /* Cayley: cay(2, 0, 0) is the quarter turn exactly; cay(2, 1, 1) translates by
     * (I + ωJ/2)(1, 1)/(1 + ω²/4) = (0, 1) */
    const double c2[3] = {2.0, 1.0, 1.0}, gc[9] = {0, -1, 0, 1, 0, 1, 0, 0, 1};
    G->cay(G, c2, g);
    cr_assert_eq(max_abs_diff(9, g, gc), 0.0, "cay(2, 1, 1) = quarter turn and (0, 1), exactly");
    cr_assert_eq(G->cay_inv(G, g, x), SP_OK);
    e = fmax(e, max_abs_diff(3, x, c2));
    cr_log_info("SE2 closed forms: worst %.1e", e);
    cr_assert_leq(e, 1e-15);

    /* domains: cay⁻¹ of a half turn, log of NaN */
    const double half[9] = {-1, 0, 0.3, 0, -1, 0.2, 0, 0, 1};
    cr_assert_eq(G->cay_inv(G, half, x), SP_ERR_DOMAIN);
    double bad[9] = {NAN, 0, 0, 0, 1, 0, 0, 0, 1};
    cr_assert_eq(G->log(G, bad, x), SP_ERR_DOMAIN);
}

/* The ordering (ω, v_x, v_y) and the maps of the table, written out. */
Test(se2, algebra_ordering_and_adjoint_maps_written_out)
{
    const sp_group *G = sp_group_se2;
    double X[9], x[3];
    const double a[3] = {0.3, -1.2, 0.8}, b[3] = {-0.7, 0.4, 2.0};
    G->hat(G, a, X);
    const double Xa[9] = {0, -0.3, -1.2, 0.3, 0, 0.8, 0, 0, 0};
    cr_assert(memcmp(X, Xa, sizeof Xa) == 0, "hat(ω, v_x, v_y) = [[0, −ω, v_x], [ω, 0, v_y], [0, 0, 0]]");
    G->vee(G, Xa, x);
    cr_assert(memcmp(x, a, sizeof x) == 0);

    /* ad_a b = (0, ω_a J p_b − ω_b J p_a), J = [[0, −1], [1, 0]] */
    double ab[3], ref[3] = {0.0, -a[0] * b[2] + b[0] * a[2], a[0] * b[1] - b[0] * a[1]};
    G->ad(G, a, b, ab);
    double e = max_abs_diff(3, ab, ref);

    /* Ad_g x = (ω, R p − ω J t), Ad*_g m = (m₀ + t_y m₁ − t_x m₂, Rᵀ m_p), act = R y + t */
    double g[9], Ad[3], Ads[3], y[2];
    const double gx[3] = {1.1, 0.5, -0.3};
    G->exp(G, gx, g);
    const double t0 = g[2], t1 = g[5];
    G->Ad(G, g, a, Ad);
    const double Ad_ref[3] = {a[0], g[0] * a[1] + g[1] * a[2] + a[0] * t1, g[3] * a[1] + g[4] * a[2] - a[0] * t0};
    e = fmax(e, max_abs_diff(3, Ad, Ad_ref));
    G->Ad_star(G, g, b, Ads);
    const double Ads_ref[3] = {b[0] + t1 * b[1] - t0 * b[2], g[0] * b[1] + g[3] * b[2], g[1] * b[1] + g[4] * b[2]};
    e = fmax(e, max_abs_diff(3, Ads, Ads_ref));
    const double p2[2] = {0.25, -1.5};
    G->act(G, g, p2, y);
    const double y_ref[2] = {g[0] * p2[0] + g[1] * p2[1] + t0, g[3] * p2[0] + g[4] * p2[1] + t1};
    e = fmax(e, max_abs_diff(2, y, y_ref));
    cr_log_info("SE2 ad, Ad, Ad*, act written out: worst %.1e", e);
    cr_assert_leq(e, 1e-15);
}

/* ----------------------------------------------- long-double references of dexp -- */

static void ad_matrix_ld(const double *x, ld *A)
{
    /* ad_x = [[0, 0, 0], [v_y, 0, −ω], [−v_x, ω, 0]] */
    for (int i = 0; i < 9; ++i) A[i] = 0.0L;
    A[3] = x[2], A[5] = -(ld)x[0];
    A[6] = -(ld)x[1], A[7] = x[0];
}

static void mul3_ld(const ld *A, const ld *B, ld *C)
{
    ld T[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            T[3 * i + j] = 0.0L;
            for (int k = 0; k < 3; ++k) T[3 * i + j] += A[3 * i + k] * B[3 * k + j];
        }
    memcpy(C, T, sizeof T);
}

/* dexp_x = Σ_k ad_xᵏ/(k+1)! */
static void ref_dexp(const double *x, ld *D)
{
    ld A[9], P[9];
    ad_matrix_ld(x, A);
    for (int i = 0; i < 9; ++i) D[i] = P[i] = (i % 4 == 0) ? 1.0L : 0.0L;
    for (int k = 1; k < 90; ++k) {
        mul3_ld(P, A, P);
        for (int i = 0; i < 9; ++i) P[i] /= (ld)(k + 1), D[i] += P[i];
    }
}

/* The inverse of a block lower-triangular [[1, 0], [w, B]]: [[1, 0], [−B⁻¹w, B⁻¹]]. */
static void ref_dexp_inv(const double *x, ld *Di)
{
    ld D[9];
    ref_dexp(x, D);
    const ld det = D[4] * D[8] - D[5] * D[7];
    const ld Bi[4] = {D[8] / det, -D[5] / det, -D[7] / det, D[4] / det};
    for (int i = 0; i < 9; ++i) Di[i] = 0.0L;
    Di[0] = 1.0L;
    Di[4] = Bi[0], Di[5] = Bi[1], Di[7] = Bi[2], Di[8] = Bi[3];
    Di[3] = -(Bi[0] * D[3] + Bi[1] * D[6]);
    Di[6] = -(Bi[2] * D[3] + Bi[3] * D[6]);
}

/* D_exp(x, v) = ∂ₓ[dexp_xᵀ v], dexp_xᵀ v = Σ_k Nᵏ v/(k+1)! with N = ad_xᵀ, linear in x:
 * ∂_j(Nᵏ v) = N ∂_j(N^(k−1) v) + E_j N^(k−1) v, E_j = ad_{e_j}ᵀ. */
static void ref_dexp_T_deriv(const double *x, const double *v, ld *M)
{
    ld A[9], N[9];
    ad_matrix_ld(x, A);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) N[3 * i + j] = A[3 * j + i];
    for (int j = 0; j < 3; ++j) {
        double ej[3] = {0, 0, 0};
        ej[j] = 1.0;
        ld Aj[9], Ej[9];
        ad_matrix_ld(ej, Aj);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) Ej[3 * r + c] = Aj[3 * c + r];
        ld P[3] = {v[0], v[1], v[2]}, Q[3] = {0, 0, 0}, col[3] = {0, 0, 0}, fact = 1.0L;
        for (int k = 1; k < 90; ++k) {
            ld Qn[3], Pn[3];
            for (int r = 0; r < 3; ++r) {
                Qn[r] = 0.0L, Pn[r] = 0.0L;
                for (int c = 0; c < 3; ++c) {
                    Qn[r] += N[3 * r + c] * Q[c] + Ej[3 * r + c] * P[c];
                    Pn[r] += N[3 * r + c] * P[c];
                }
            }
            fact *= (ld)(k + 1);
            for (int r = 0; r < 3; ++r) Q[r] = Qn[r], P[r] = Pn[r], col[r] += Q[r] / fact;
        }
        for (int r = 0; r < 3; ++r) M[3 * r + j] = col[r];
    }
}

static double rel_err(const double *a, const ld *b)
{
    ld num = 0.0L, den = 0.0L;
    for (int i = 0; i < 9; ++i) num += ((ld)a[i] - b[i]) * ((ld)a[i] - b[i]), den += b[i] * b[i];
    return (double)sqrtl(num / (den > 0.0L ? den : 1.0L));
}

/* Relative errors of dexp, dexp⁻¹, D_exp at x against the references. */
static void dexp_family_errors(const double *x, const double *v, double err[3])
{
    const sp_group *G = sp_group_se2;
    double D[9], Di[9], M[9];
    ld Dr[9], Dir[9], Mr[9];
    G->dexp(G, x, D);
    G->dexp_inv(G, x, Di);
    G->dexp_T_deriv(G, x, v, M);
    ref_dexp(x, Dr);
    ref_dexp_inv(x, Dir);
    ref_dexp_T_deriv(x, v, Mr);
    err[0] = rel_err(D, Dr);
    err[1] = rel_err(Di, Dir);
    err[2] = rel_err(M, Mr);
}

static const char *const family[3] = {"dexp", "dexp_inv", "dexp_T_deriv"};

Test(se2, dexp_family_matches_long_double_series)
{
    double worst[3] = {0, 0, 0};
    for (int k = 0; k < 400; ++k) {
        double x[3], v[3], err[3];
        sample(k, x);
        sample(k + 1000, v);
        dexp_family_errors(x, v, err);
        for (int f = 0; f < 3; ++f) worst[f] = fmax(worst[f], err[f]);
    }
    for (int f = 0; f < 3; ++f) {
        cr_log_info("SE2 %s vs long-double series, |ω| ≤ 3: relative %.1e", family[f], worst[f]);
        cr_assert_leq(worst[f], 4e-15, "SE2 %s: relative error %.3e", family[f], worst[f]);
    }
}

/* se2.c sums every coefficient from its series below |ω| = 1. Both sides are accurate,
 * the branches meet at adjacent doubles, and ω = 0, 1e-9 and π − 1e-9 are fine. */
Test(se2, series_switch_and_extreme_angles)
{
    const double ws[] = {0.0, 1e-9, 0.5, nextafter(1.0, 0.0), 1.0, nextafter(1.0, 2.0), 1.0 + 1e-12, SP_PI - 1e-9};
    double worst[3] = {0, 0, 0};
    for (size_t k = 0; k < sizeof ws / sizeof ws[0]; ++k)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double x[3] = {sgn * ws[k], 0.8, -1.3}, v[3] = {0.4, -0.9, 1.7}, err[3];
            dexp_family_errors(x, v, err);
            for (int f = 0; f < 3; ++f) worst[f] = fmax(worst[f], err[f]);
        }
    double jump[3] = {0, 0, 0};
    {
        const sp_group *G = sp_group_se2;
        double xa[3] = {nextafter(1.0, 0.0), 0.8, -1.3}, xb[3] = {1.0, 0.8, -1.3}, v[3] = {0.4, -0.9, 1.7};
        double A[3][9], B[3][9], ga[9], gb[9];
        G->dexp(G, xa, A[0]), G->dexp(G, xb, B[0]);
        G->dexp_inv(G, xa, A[1]), G->dexp_inv(G, xb, B[1]);
        G->dexp_T_deriv(G, xa, v, A[2]), G->dexp_T_deriv(G, xb, v, B[2]);
        for (int f = 0; f < 3; ++f) jump[f] = sp_mat_dist(9, A[f], B[f]) / sp_vec_norm(9, B[f]);
        G->exp(G, xa, ga), G->exp(G, xb, gb);
        const double je = sp_mat_dist(9, ga, gb);
        cr_log_info("SE2 exp across |ω| = 1: jump %.1e", je);
        cr_assert_leq(je, 1e-15);
    }
    for (int f = 0; f < 3; ++f) {
        cr_log_info("SE2 %s at the switch and extreme angles: relative %.1e, jump across |ω| = 1: %.1e", family[f],
                    worst[f], jump[f]);
        cr_assert_leq(worst[f], 2e-15, "SE2 %s: relative error %.3e", family[f], worst[f]);
        cr_assert_leq(jump[f], 2e-15, "SE2 %s jumps by %.3e across |ω| = 1", family[f], jump[f]);
    }
}

/* dcay_x ŷ = (I − x̂/2)⁻¹ ŷ (I + x̂/2)⁻¹ (right-trivialised derivative of the Cayley map),
 * and dcay⁻¹ is its inverse. */
Test(se2, dcay_is_the_matrix_derivative_of_the_cayley_map)
{
    const sp_group *G = sp_group_se2;
    double worst = 0.0;
    for (int k = 0; k < 100; ++k) {
        double x[3], X[9], L[9], Rm[9], Li[9], Ri[9], D[9], Dinv[9], P[9];
        sample(k, x);
        G->hat(G, x, X);
        for (int i = 0; i < 9; ++i) L[i] = (i % 4 == 0) - 0.5 * X[i], Rm[i] = (i % 4 == 0) + 0.5 * X[i];
        /* inverses of unipotent-affine 3x3 matrices [[A, b], [0, 1]] */
        for (int w = 0; w < 2; ++w) {
            const double *M = w ? Rm : L;
            double *I = w ? Ri : Li;
            const double det = M[0] * M[4] - M[1] * M[3];
            I[0] = M[4] / det, I[1] = -M[1] / det, I[3] = -M[3] / det, I[4] = M[0] / det;
            I[2] = -(I[0] * M[2] + I[1] * M[5]), I[5] = -(I[3] * M[2] + I[4] * M[5]);
            I[6] = 0, I[7] = 0, I[8] = 1;
        }
        G->dcay(G, x, D);
        G->dcay_inv(G, x, Dinv);
        for (int j = 0; j < 3; ++j) {
            double e[3] = {0, 0, 0}, Y[9], T[9], col[3];
            e[j] = 1.0;
            G->hat(G, e, Y);
            sp_mat_mul(3, 3, 3, Li, Y, T);
            sp_mat_mul(3, 3, 3, T, Ri, Y);
            G->vee(G, Y, col);
            for (int i = 0; i < 3; ++i) worst = fmax(worst, fabs(col[i] - D[3 * i + j]));
        }
        sp_mat_mul(3, 3, 3, D, Dinv, P);
        for (int i = 0; i < 9; ++i) worst = fmax(worst, fabs(P[i] - (i % 4 == 0)));
    }
    cr_log_info("SE2 dcay vs (I − x̂/2)⁻¹ŷ(I + x̂/2)⁻¹, dcay dcay⁻¹ = I: worst %.1e", worst);
    cr_assert_leq(worst, 1e-15);
}

/* A million-step walk by compose keeps the last row exactly (0, 0, 1) and the rotation
 * block orthogonal up to the linear growth of round-off (about 1e-17 per product). */
Test(se2, long_products_stay_in_se2)
{
    const sp_group *G = sp_group_se2;
    double g[9], step[9];
    G->identity(G, g);
    const double x[3] = {0.013, 0.02, -0.01};
    G->cay(G, x, step);
    double orth = 0.0;
    int last_row = 1;
    for (int k = 0; k < 1000000; ++k) {
        G->compose(G, g, step, g);
        last_row &= g[6] == 0.0 && g[7] == 0.0 && g[8] == 1.0;
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) orth = fmax(orth, fabs(g[i] * g[j] + g[3 + i] * g[3 + j] - (i == j)));
    cr_log_info("SE2: 1e6 compositions: |RᵀR − I| = %.1e, last row exact: %s", orth, last_row ? "yes" : "no");
    cr_assert(last_row);
    cr_assert_leq(orth, 1e-10);
}
