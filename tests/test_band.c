/* The banded LU of integrators/sp_band.h against LAPACK's dgbsv on the same matrices:
 *   - random band matrices of several shapes (kl, ku from 0 to 9, n from 1 to 300), some
 *     with a weak diagonal so that rows are interchanged: the solutions agree to 1e-10
 *     relative, and A·x reproduces b to round-off;
 *   - the condensed shape of a keyframe plan (kl = ku = 8, n = 6006) likewise;
 *   - the factors serve several right-hand sides, and a copy (sp_band_copy) solves alike;
 *   - an exactly singular matrix is reported as SP_ERR_SINGULAR, a non-finite right-hand
 *     side as SP_ERR_NONFINITE.
 * And the Levenberg–Marquardt steps of integrators/sp_band_lm.h: from far away they reach
 * the known solution of a banded nonlinear system, every accepted step lowering the
 * merit; a singular normal matrix, a stall (no descent direction, or failing trials), a
 * non-finite residual and missing arguments come back as statuses. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "integrators/sp_band_lm.h"

static double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* Fills a band matrix (dense copy A, column-major n x n) with random entries; the diagonal
 * is scaled by `diag` (small: pivoting needed). */
static void fill(sp_band *b, double *A, int n, int kl, int ku, double diag, uint64_t *s)
{
    sp_band_zero(b);
    for (int j = 0; j < n; ++j)
        for (int i = j - ku; i <= j + kl; ++i) {
            if (i < 0 || i >= n) continue;
            double v = uniform(s) * (i == j ? diag : 1.0);
            sp_band_add(b, i, j, v);
            A[(size_t)j * n + i] = v;
        }
}

/* Solves with sp_band and with dgbsv; returns the largest relative difference. */
static double compare(int n, int kl, int ku, double diag, uint64_t seed)
{
    uint64_t s = seed;
    sp_band *b = sp_band_alloc(n, kl, ku);
    cr_assert_not_null(b);
    double *A = calloc((size_t)n * n, sizeof *A), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    const int ldab = 2 * kl + ku + 1;
    double *ab = calloc((size_t)ldab * n, sizeof *ab);
    lapack_int *piv = malloc(n * sizeof *piv);
    fill(b, A, n, kl, ku, diag, &s);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (i - j <= kl && j - i <= ku) ab[(size_t)j * ldab + kl + ku + i - j] = A[(size_t)j * n + i];
    for (int i = 0; i < n; ++i) x[i] = y[i] = uniform(&s);
    cr_assert_eq(sp_band_factor(b), SP_OK, "n %d kl %d ku %d: factor failed", n, kl, ku);
    cr_assert_eq(sp_band_solve(b, x), SP_OK);
    cr_assert_eq(LAPACKE_dgbsv(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, piv, y, n), 0);
    double diff = 0.0, scale = 0.0, resid = 0.0, bnorm = 0.0;
    for (int i = 0; i < n; ++i) diff = fmax(diff, fabs(x[i] - y[i])), scale = fmax(scale, fabs(y[i]));
    /* A·x against the right-hand side, regenerated from the seed */
    uint64_t s2 = seed;
    fill(b, A, n, kl, ku, diag, &s2);
    for (int i = 0; i < n; ++i) {
        double rhs = uniform(&s2), ax = 0.0;
        for (int j = 0; j < n; ++j) ax += A[(size_t)j * n + i] * x[j];
        resid = fmax(resid, fabs(ax - rhs)), bnorm = fmax(bnorm, fabs(rhs));
    }
    cr_assert(resid <= 1e-9 * fmax(1.0, scale) * bnorm, "n %d kl %d ku %d: residual %g", n, kl, ku, resid);
    sp_band_free(b), free(A), free(x), free(y), free(ab), free(piv);
    return diff / fmax(scale, 1e-300);
}

Test(band, agrees_with_lapack_on_random_shapes)
{
    static const int ns[] = {1, 2, 5, 17, 64, 300};
    uint64_t seed = 1;
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; ++a)
        for (int kl = 0; kl <= 9; kl += 3)
            for (int ku = 0; ku <= 9; ku += 3)
                for (int weak = 0; weak < 2; ++weak) {
                    /* a weak diagonal needs both bands: with one, the matrix is triangular
                     * and as ill-conditioned as the product of its diagonal */
                    if (weak && (kl == 0 || ku == 0)) continue;
                    double d = compare(ns[a], kl, ku, weak ? 1e-3 : 4.0, seed++);
                    cr_assert(d <= 1e-10, "n %d kl %d ku %d weak %d: relative difference %g", ns[a], kl, ku, weak, d);
                }
}

Test(band, agrees_with_lapack_on_a_keyframe_plan_shape)
{
    double d = compare(6006, 8, 8, 0.05, 42);
    cr_assert(d <= 1e-10, "relative difference %g", d);
}

Test(band, factors_serve_several_right_hand_sides_and_copies)
{
    const int n = 40, kl = 3, ku = 2;
    uint64_t s = 7;
    sp_band *b = sp_band_alloc(n, kl, ku), *c = sp_band_alloc(n, kl, ku);
    double A[40 * 40] = {0}, x[40], y[40];
    fill(b, A, n, kl, ku, 0.01, &s);
    cr_assert_eq(sp_band_factor(b), SP_OK);
    cr_assert_eq(sp_band_copy(c, b), 0);
    for (int rhs = 0; rhs < 3; ++rhs) {
        for (int i = 0; i < n; ++i) x[i] = y[i] = uniform(&s);
        double bvec[40];
        for (int i = 0; i < n; ++i) bvec[i] = x[i];
        cr_assert_eq(sp_band_solve(b, x), SP_OK);
        cr_assert_eq(sp_band_solve(c, y), SP_OK);
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(x[i], y[i]);
            double ax = 0.0;
            for (int j = 0; j < n; ++j) ax += A[j * n + i] * x[j];
            cr_assert(fabs(ax - bvec[i]) < 1e-10, "row %d: %g", i, ax - bvec[i]);
        }
    }
    sp_band *other = sp_band_alloc(n, kl + 1, ku);
    cr_assert_eq(sp_band_copy(other, b), -1);
    sp_band_free(b), sp_band_free(c), sp_band_free(other);
}

Test(band, singular_and_nonfinite)
{
    sp_band *b = sp_band_alloc(3, 1, 1);
    sp_band_zero(b);
    sp_band_add(b, 0, 0, 1.0), sp_band_add(b, 1, 0, 2.0), sp_band_add(b, 0, 1, 2.0), sp_band_add(b, 1, 1, 4.0);
    sp_band_add(b, 2, 2, 1.0);
    cr_assert_eq(sp_band_factor(b), SP_ERR_SINGULAR);
    sp_band_zero(b);
    for (int i = 0; i < 3; ++i) sp_band_add(b, i, i, 2.0);
    cr_assert_eq(sp_band_factor(b), SP_OK);
    double x[3] = {1.0, NAN, 0.0};
    cr_assert_eq(sp_band_solve(b, x), SP_ERR_NONFINITE);
    sp_band_free(b);
}

/* ---- Levenberg–Marquardt steps on banded systems (integrators/sp_band_lm.h) ---- */

/* A discrete nonlinear boundary-value problem, tridiagonal:
 *     F_i(x) = 2x_i + x_i³ − x_{i−1} − x_{i+1} − b_i   (x_{−1} = x_n = 0),
 * with b chosen so that x*_i = 2 sin(3i/n) + 1 solves it. */
typedef struct lm_problem {
    int n;
    double *x, *x_trial, *b;
    int trials, failing; /* trial calls; failing > 0: the trials fail (a model failure) */
} lm_problem;

static void lm_exact(int n, int i, double *v) { *v = 2.0 * sin(3.0 * i / n) + 1.0; }

static void lm_residual(const lm_problem *p, const double *x, double *F)
{
    for (int i = 0; i < p->n; ++i) {
        double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < p->n ? x[i + 1] : 0.0;
        F[i] = 2.0 * x[i] + x[i] * x[i] * x[i] - left - right - p->b[i];
    }
}

static void lm_jacobian(const lm_problem *p, const double *x, sp_band *J)
{
    sp_band_zero(J);
    for (int i = 0; i < p->n; ++i) {
        sp_band_add(J, i, i, 2.0 + 3.0 * x[i] * x[i]);
        if (i > 0) sp_band_add(J, i, i - 1, -1.0);
        if (i + 1 < p->n) sp_band_add(J, i, i + 1, -1.0);
    }
}

static sp_status lm_problem_trial(void *ctx, const double *dx, double *F)
{
    lm_problem *p = ctx;
    p->trials++;
    if (p->failing) return SP_ERR_CALLBACK;
    for (int i = 0; i < p->n; ++i) p->x_trial[i] = p->x[i] + dx[i];
    lm_residual(p, p->x_trial, F);
    return SP_OK;
}

static lm_problem lm_problem_new(int n)
{
    lm_problem p = {.n = n};
    p.x = calloc((size_t)n, sizeof *p.x), p.x_trial = calloc((size_t)n, sizeof *p.x);
    p.b = calloc((size_t)n, sizeof *p.b);
    cr_assert(p.x && p.x_trial && p.b);
    double *xs = calloc((size_t)n, sizeof *xs);
    cr_assert(xs);
    for (int i = 0; i < n; ++i) lm_exact(n, i, &xs[i]);
    lm_residual(&p, xs, p.b); /* F(x*) with b = 0 */
    free(xs);
    return p;
}

static void lm_problem_free(lm_problem *p) { free(p->x), free(p->x_trial), free(p->b); }

Test(band_lm, converges_to_the_known_solution_of_a_banded_system)
{
    const int n = 60;
    lm_problem p = lm_problem_new(n);
    sp_band *J = sp_band_alloc(n, 1, 1);
    sp_band_lm *lm = sp_band_lm_alloc(n, 1, 1);
    double *F = malloc((size_t)n * sizeof *F), *scale = malloc((size_t)n * sizeof *scale);
    cr_assert(J && lm && F && scale);
    for (int i = 0; i < n; ++i) p.x[i] = -3.0, scale[i] = 1.0; /* far from x* */
    double mu = 1e-3, growth = 2.0, merit0 = 0.0;
    lm_residual(&p, p.x, F);
    for (int i = 0; i < n; ++i) merit0 += 0.5 * F[i] * F[i];
    int steps = 0;
    for (; steps < 200; ++steps) {
        lm_residual(&p, p.x, F);
        double norm = 0.0;
        for (int i = 0; i < n; ++i) norm = fmax(norm, fabs(F[i]));
        if (norm < 1e-13) break;
        lm_jacobian(&p, p.x, J);
        int accepted = 0;
        double merit_before = 0.0, merit_after = 0.0;
        for (int i = 0; i < n; ++i) merit_before += 0.5 * F[i] * F[i];
        cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_OK);
        cr_assert(accepted, "step %d rejected", steps);
        memcpy(p.x, p.x_trial, (size_t)n * sizeof *p.x);
        lm_residual(&p, p.x, F);
        for (int i = 0; i < n; ++i) merit_after += 0.5 * F[i] * F[i];
        cr_assert_lt(merit_after, merit_before, "an accepted step lowers the merit");
    }
    cr_assert_lt(steps, 200, "converged in %d steps", steps);
    cr_assert_gt(merit0, 1.0);
    for (int i = 0; i < n; ++i) {
        double xs;
        lm_exact(n, i, &xs);
        cr_assert_lt(fabs(p.x[i] - xs), 1e-10, "x[%d] = %.17g, x* = %.17g", i, p.x[i], xs);
    }
    free(F), free(scale);
    sp_band_free(J), sp_band_lm_free(lm), lm_problem_free(&p);
}

Test(band_lm, singular_stalled_and_invalid_come_back_as_statuses)
{
    const int n = 8;
    lm_problem p = lm_problem_new(n);
    sp_band *J = sp_band_alloc(n, 1, 1);
    sp_band_lm *lm = sp_band_lm_alloc(n, 1, 1);
    double F[8], scale[8];
    cr_assert(J && lm);
    for (int i = 0; i < n; ++i) p.x[i] = 0.5, scale[i] = 1.0;
    lm_residual(&p, p.x, F);
    int accepted = 1;
    /* a zero column of J and no damping: the normal matrix is singular */
    lm_jacobian(&p, p.x, J);
    for (int r = 2; r <= 4; ++r) sp_band_add(J, r, 3, -sp_band_get(J, r, 3));
    double mu = 0.0, growth = 2.0;
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_ERR_SINGULAR);
    cr_assert_eq(accepted, 0);
    cr_assert_eq(p.trials, 0, "no trial point before the solve");
    /* the same J with damping: LM regularises the missing direction and still descends */
    mu = 1e-3;
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_OK);
    cr_assert_eq(accepted, 1);
    cr_assert_eq(sp_band_lm_last_step(lm)[3], 0.0, "no step along the direction J does not see");
    /* J = 0: no direction of descent, every damping tried, the point stands */
    sp_band_zero(J);
    p.trials = 0, mu = 1e-3, growth = 2.0;
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_OK);
    cr_assert_eq(accepted, 0);
    cr_assert_eq(p.trials, 40);
    cr_assert_gt(mu, 1e-3, "the damping grew");
    /* failing trials count as no decrease */
    lm_jacobian(&p, p.x, J);
    p.trials = 0, p.failing = 1, mu = 1e-3, growth = 2.0;
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_OK);
    cr_assert_eq(accepted, 0);
    cr_assert_eq(p.trials, 40);
    /* a non-finite residual, and missing arguments */
    p.failing = 0;
    F[2] = NAN;
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_ERR_NONFINITE);
    cr_assert_eq(sp_band_lm_step(lm, J, F, scale, &mu, &growth, NULL, &p, &accepted), SP_ERR_INVALID);
    cr_assert_eq(sp_band_lm_step(NULL, J, F, scale, &mu, &growth, lm_problem_trial, &p, &accepted), SP_ERR_INVALID);
    cr_assert_null(sp_band_lm_alloc(0, 1, 1));
    cr_assert_null(sp_band_lm_alloc(4, -1, 1));
    sp_band_free(J), sp_band_lm_free(lm), lm_problem_free(&p);
}

/* The block row of a condensed segment: −Φ = −(B_w − B_μ A⁻¹ A_w) beside the identity, entry
 * by entry against Φ written out as sums, with the rest of the band untouched. */
Test(band, the_transfer_rows_are_minus_phi_beside_the_identity)
{
    enum { N = 3, NW = 2, ROW = 2, COL = 1 };
    double Ainv[N * N], Aw[N * NW], Bmu[NW * N], Bw[NW * NW];
    for (int k = 0; k < N * N; ++k) Ainv[k] = sin(1.0 + k);
    for (int k = 0; k < N * NW; ++k) Aw[k] = cos(2.0 + k);
    for (int k = 0; k < NW * N; ++k) Bmu[k] = sin(3.0 * k + 0.5);
    for (int k = 0; k < NW * NW; ++k) Bw[k] = 0.25 * k - 0.4;
    sp_band *b = sp_band_alloc(8, 4, 4);
    cr_assert_not_null(b);
    sp_band_zero(b);
    sp_band_add_transfer(b, ROW, COL, N, NW, Ainv, Aw, Bmu, Bw);
    for (int a = 0; a < NW; ++a)
        for (int c = 0; c < NW; ++c) {
            double phi = Bw[a * NW + c];
            for (int q = 0; q < N; ++q)
                for (int r = 0; r < N; ++r) phi -= Bmu[a * N + q] * Ainv[q * N + r] * Aw[r * NW + c];
            cr_expect_float_eq(sp_band_get(b, ROW + a, COL + c), -phi, 1e-14, "(%d, %d)", a, c);
            cr_expect_eq(sp_band_get(b, ROW + a, COL + NW + c), a == c ? 1.0 : 0.0, "(%d, %d)", a, c);
        }
    double rest = 0.0;
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c)
            if (r < ROW || r >= ROW + NW || c < COL || c >= COL + 2 * NW) rest += fabs(sp_band_get(b, r, c));
    cr_expect_eq(rest, 0.0, "entries outside the block row");
    sp_band_free(b);
}
