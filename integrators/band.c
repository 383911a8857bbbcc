/* Banded LU through LAPACK (see sp_band.h). */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"

struct sp_band {
    int n, kl, ku, ldab;
    double *ab; /* column-major, ldab = 2kl + ku + 1 rows: kl extra rows hold the LU's fill */
    lapack_int *piv;
};

sp_band *sp_band_alloc(int n, int kl, int ku)
{
    sp_band *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->n = n, b->kl = kl, b->ku = ku, b->ldab = 2 * kl + ku + 1;
    b->ab = calloc((size_t)b->ldab * (size_t)n, sizeof *b->ab);
    b->piv = malloc((size_t)n * sizeof *b->piv);
    if (!b->ab || !b->piv) {
        sp_band_free(b);
        return NULL;
    }
    return b;
}

void sp_band_free(sp_band *b)
{
    if (!b) return;
    free(b->ab);
    free(b->piv);
    free(b);
}

int sp_band_copy(sp_band *dst, const sp_band *src)
{
    if (dst->n != src->n || dst->kl != src->kl || dst->ku != src->ku) return -1;
    memcpy(dst->ab, src->ab, (size_t)src->ldab * (size_t)src->n * sizeof *src->ab);
    memcpy(dst->piv, src->piv, (size_t)src->n * sizeof *src->piv);
    return 0;
}

void sp_band_zero(sp_band *b) { memset(b->ab, 0, (size_t)b->ldab * (size_t)b->n * sizeof *b->ab); }

void sp_band_add(sp_band *b, int r, int c, double v)
{
    b->ab[(size_t)c * b->ldab + (size_t)(b->kl + b->ku + r - c)] += v;
}

double sp_band_get(const sp_band *b, int r, int c)
{
    if (r - c > b->kl || c - r > b->ku) return 0.0;
    return b->ab[(size_t)c * b->ldab + (size_t)(b->kl + b->ku + r - c)];
}

sp_status sp_band_factor(sp_band *b)
{
    lapack_int info = LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, b->n, b->n, b->kl, b->ku, b->ab, b->ldab, b->piv);
    return info == 0 ? SP_OK : info > 0 ? SP_ERR_SINGULAR : SP_ERR_INVALID;
}

sp_status sp_band_solve(const sp_band *b, double *x)
{
    lapack_int info =
        LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', b->n, b->kl, b->ku, 1, b->ab, b->ldab, b->piv, x, b->n);
    if (info != 0) return SP_ERR_INVALID;
    for (int k = 0; k < b->n; ++k)
        if (!(x[k] - x[k] == 0.0)) return SP_ERR_NONFINITE;
    return SP_OK;
}
