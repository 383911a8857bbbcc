#include <lapacke.h>

#include "sp_linsolve.h"
#include "../lie/sp_linalg.h"

_Static_assert(sizeof(lapack_int) == sizeof(int), "symplan expects LAPACK's 32-bit integers");

sp_status sp_linsolve(int n, double *A, double *b, int *pivots, int transpose)
{
    if (!sp_vec_isfinite(n * n, A) || !sp_vec_isfinite(n, b)) return SP_ERR_NONFINITE;
    /* The row-major buffer read column-major is Aᵀ: factor that, then solve with the
     * transpose flag flipped. The _work variants neither copy nor allocate. */
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, pivots);
    if (info > 0) return SP_ERR_SINGULAR;
    if (info < 0) return SP_ERR_INVALID;
    info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, transpose ? 'N' : 'T', n, 1, A, n, pivots, b, n);
    if (info != 0) return SP_ERR_INVALID;
    return sp_vec_isfinite(n, b) ? SP_OK : SP_ERR_NONFINITE;
}
