/* Dense solves. Systems of up to SMALL_SYSTEM unknowns (the algebra of SO(3), a stage
 * of a small model) are factored here by the same algorithm as LAPACK's dgetrf (LU
 * with partial pivoting), because for them LAPACK's per-call overhead costs several
 * times the arithmetic. Larger ones go to LAPACK: its unblocked dgetf2 up to
 * BLOCKED_SYSTEM unknowns (the stage systems of Gauss methods, where the blocked dgetrf
 * spends its time in Level-3 BLAS calls on tiny blocks), dgetrf beyond. */
#include <lapacke.h>
#include <math.h>

#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

_Static_assert(sizeof(lapack_int) == sizeof(int), "symplan expects LAPACK's 32-bit integers");

#define SMALL_SYSTEM 4
#define BLOCKED_SYSTEM 64

/* LU with partial pivoting of the row-major A, then the two triangular solves
 * (or, transposed, Uᵀ then Lᵀ and the inverse row permutation). */
static sp_status small_factor(int n, double *A, int *piv)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (A[p * n + k] == 0.0) return SP_ERR_SINGULAR;
        if (p != k)
            for (int j = 0; j < n; ++j) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
        for (int i = k + 1; i < n; ++i) {
            double l = A[i * n + k] /= A[k * n + k];
            for (int j = k + 1; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return SP_OK;
}

static void small_solve(int n, const double *A, double *b, const int *piv, int transpose)
{
    if (!transpose) {
        /* P A = L U: permute b, forward (unit L), backward (U) */
        for (int k = 0; k < n; ++k)
            if (piv[k] != k) {
                double t = b[k];
                b[k] = b[piv[k]];
                b[piv[k]] = t;
            }
        for (int i = 1; i < n; ++i)
            for (int j = 0; j < i; ++j) b[i] -= A[i * n + j] * b[j];
        for (int i = n - 1; i >= 0; --i) {
            for (int j = i + 1; j < n; ++j) b[i] -= A[i * n + j] * b[j];
            b[i] /= A[i * n + i];
        }
    } else {
        /* Aᵀ = Uᵀ Lᵀ P: forward with Uᵀ, backward with unit Lᵀ, then undo P */
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < i; ++j) b[i] -= A[j * n + i] * b[j];
            b[i] /= A[i * n + i];
        }
        for (int i = n - 1; i >= 0; --i)
            for (int j = i + 1; j < n; ++j) b[i] -= A[j * n + i] * b[j];
        for (int k = n - 1; k >= 0; --k)
            if (piv[k] != k) {
                double t = b[k];
                b[k] = b[piv[k]];
                b[piv[k]] = t;
            }
    }
}

/* A x = b with LAPACK's factors of the row-major A (those of Aᵀ read column-major,
 * P Aᵀ = L U, so A = Uᵀ Lᵀ P): the two triangular solves and the row swaps of dgetrs
 * ('T') in the same order of operations, so the same numbers, without the per-call and
 * per-column overhead of the reference BLAS (a Newton update of the Lobatto IIIA–IIIB
 * stage system, 54 unknowns: 2.3 µs instead of 2.7). Row i of the buffer holds column
 * i of L and U. */
static void lapack_lu_solve(int n, const double *F, double *b, const int *pivots)
{
    for (int i = 0; i < n; ++i) { /* Uᵀ w = b */
        const double *Fi = F + (size_t)i * n;
        double t = b[i];
        for (int k = 0; k < i; ++k) t -= Fi[k] * b[k];
        b[i] = t / Fi[i];
    }
    for (int i = n - 1; i >= 0; --i) { /* Lᵀ v = w, L unit */
        const double *Fi = F + (size_t)i * n;
        double t = b[i];
        for (int k = i + 1; k < n; ++k) t -= Fi[k] * b[k];
        b[i] = t;
    }
    for (int k = n - 1; k >= 0; --k) { /* x = Pᵀ v (LAPACK's pivots count from 1) */
        const int p = pivots[k] - 1;
        if (p != k) {
            const double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
    }
}

sp_status sp_lu_factor(int n, double *A, int *pivots)
{
    if (!sp_vec_isfinite(n * n, A)) return SP_ERR_NONFINITE;
    if (n <= SMALL_SYSTEM) return small_factor(n, A, pivots);
    /* The row-major buffer read column-major is Aᵀ: factor that (sp_lu_solve then solves
     * with the transpose flag flipped). The _work variants neither copy nor allocate. */
    lapack_int info = n <= BLOCKED_SYSTEM ? LAPACKE_dgetf2_work(LAPACK_COL_MAJOR, n, n, A, n, pivots)
                                          : LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, pivots);
    if (info > 0) return SP_ERR_SINGULAR;
    if (info < 0) return SP_ERR_INVALID;
    return SP_OK;
}

sp_status sp_lu_solve(int n, const double *LU, double *b, int nrhs, const int *pivots, int transpose)
{
    if (!sp_vec_isfinite(n * nrhs, b)) return SP_ERR_NONFINITE;
    if (n <= SMALL_SYSTEM) {
        for (int r = 0; r < nrhs; ++r) small_solve(n, LU, b + r * n, pivots, transpose);
    } else if (!transpose && n <= BLOCKED_SYSTEM) {
        for (int r = 0; r < nrhs; ++r) lapack_lu_solve(n, LU, b + (size_t)r * n, pivots);
    } else {
        lapack_int info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transpose ? 'N' : 'T', n, nrhs, LU, n, pivots, b, n);
        if (info != 0) return SP_ERR_INVALID;
    }
    return sp_vec_isfinite(n * nrhs, b) ? SP_OK : SP_ERR_NONFINITE;
}

sp_status sp_linsolve(int n, double *A, double *b, int nrhs, int *pivots, int transpose)
{
    if (n == 1) { /* one constraint's multiplier: a division, the same one the LU path does */
        if (!isfinite(A[0])) return SP_ERR_NONFINITE;
        if (A[0] == 0.0) return SP_ERR_SINGULAR;
        pivots[0] = 0;
        int finite = 1;
        for (int r = 0; r < nrhs; ++r) finite &= isfinite(b[r] /= A[0]);
        return finite ? SP_OK : SP_ERR_NONFINITE;
    }
    if (!sp_vec_isfinite(n * n, A) || !sp_vec_isfinite(n * nrhs, b)) return SP_ERR_NONFINITE;
    sp_status st = sp_lu_factor(n, A, pivots);
    return st == SP_OK ? sp_lu_solve(n, A, b, nrhs, pivots, transpose) : st;
}

int sp_cholesky_factor(int n, const double *M, double *L)
{
    memset(L, 0, (size_t)n * n * sizeof *L);
    for (int j = 0; j < n; ++j) {
        double d = M[j * n + j];
        for (int k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
        if (!(d > 0.0) || !isfinite(d)) return 0;
        L[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            if (M[i * n + j] != M[j * n + i]) return 0;
            double t = M[i * n + j];
            for (int k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    return 1;
}

void sp_cholesky_solve(int n, const double *L, double *x)
{
    for (int i = 0; i < n; ++i) { /* L y = x */
        for (int k = 0; k < i; ++k) x[i] -= L[i * n + k] * x[k];
        x[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) { /* Lᵀ x = y */
        for (int k = i + 1; k < n; ++k) x[i] -= L[k * n + i] * x[k];
        x[i] /= L[i * n + i];
    }
}
