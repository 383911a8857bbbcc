/* Banded linear systems: a square matrix with kl sub- and ku super-diagonals, stored
 * in LAPACK's band layout, factored by LU with partial pivoting in O(n·kl·(kl + ku)) (the
 * algorithm of LAPACK's dgbtf2, written out for narrow bands) and solved in O(n·(2kl +
 * ku)). Newton's method on multiple-shooting systems, where every condition couples
 * neighbouring blocks only, uses it. */
#ifndef SP_BAND_H
#define SP_BAND_H

#include "lie/sp_status.h"

typedef struct sp_band sp_band;

/* NULL when out of memory. */
sp_band *sp_band_alloc(int n, int kl, int ku);
void sp_band_free(sp_band *b);
/* Copies src (its entries or its factors) into dst of the same shape; -1 when the shapes
 * differ (dst untouched). */
int sp_band_copy(sp_band *dst, const sp_band *src);
void sp_band_zero(sp_band *b);
/* A(r, c) += v; (r, c) must lie in the band. */
void sp_band_add(sp_band *b, int r, int c, double v);
/* The block row of one segment of a condensed shooting system, added at rows row … row+nw−1:
 * −Φ at columns col … col+nw−1 and the identity at columns col+nw …, where
 * Φ = B_w − B_μ A⁻¹ A_w eliminates the segment's inner unknowns (A⁻¹ n×n, A_w n×nw,
 * B_μ nw×n, B_w nw×nw, row-major; n ≤ SP_BAND_TRANSFER_MAX_N). */
#define SP_BAND_TRANSFER_MAX_N 64
void sp_band_add_transfer(sp_band *b, int row, int col, int n, int nw, const double *Ainv, const double *Aw,
                          const double *Bmu, const double *Bw);
/* A(r, c), 0 outside the band (before factoring). */
double sp_band_get(const sp_band *b, int r, int c);
/* LU in place; SP_ERR_SINGULAR when a pivot is exactly zero. */
sp_status sp_band_factor(sp_band *b);
/* x ← A⁻¹x with the factors. */
sp_status sp_band_solve(const sp_band *b, double *x);

#endif
