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
/* A(r, c), 0 outside the band (before factoring). */
double sp_band_get(const sp_band *b, int r, int c);
/* LU in place; SP_ERR_SINGULAR when a pivot is exactly zero. */
sp_status sp_band_factor(sp_band *b);
/* x ← A⁻¹x with the factors. */
sp_status sp_band_solve(const sp_band *b, double *x);

#endif
