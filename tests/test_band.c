/* The banded LU of integrators/sp_band.h against LAPACK's dgbsv on the same matrices:
 *   - random band matrices of several shapes (kl, ku from 0 to 9, n from 1 to 300), some
 *     with a weak diagonal so that rows are interchanged: the solutions agree to 1e-10
 *     relative, and A·x reproduces b to round-off;
 *   - the condensed shape of a keyframe plan (kl = ku = 8, n = 6006) likewise;
 *   - the factors serve several right-hand sides, and a copy (sp_band_copy) solves alike;
 *   - an exactly singular matrix is reported as SP_ERR_SINGULAR, a non-finite right-hand
 *     side as SP_ERR_NONFINITE. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "integrators/sp_band.h"

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
