/* Banded linear algebra for the car's smoothing (sp_car_plan.h, car_band_*): the
 * transcription's Hessians by grouped differences, and sparse systems solved on their
 * band. Why: with the unknowns numbered interval by interval (car_tx_place) every term
 * of the transcription lies within a band of CAR_TX_BAND, so a Newton step costs work in
 * proportion to the intervals where the dense factorisations cost their cube (a route
 * of 1613 unknowns out of a tight slot: 0.2 s an evaluation of the augmented
 * Lagrangian with its dense Jacobian, minutes a dense KKT step). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_band.h"
#include "planner/car/sp_car_plan.h"

void car_band_add_row(const car_tx *t, const long *col, const double *val, double w, double *hb)
{
    const size_t ld = CAR_TX_BAND + 1;
    /* (the places found once a nonzero: the interior-point method adds every clearance
     * row a step, TPCAP case 7's 17000 of them) */
    size_t place[CAR_TX_NZ];
    int nz = 0;
    while (nz < CAR_TX_NZ && col[nz] >= 0) place[nz] = car_tx_place(t, (size_t)col[nz]), ++nz;
    for (int p = 0; p < nz; ++p) {
        const double wp = w * val[p];
        for (int q = 0; q < nz; ++q)
            if (place[p] >= place[q]) hb[(place[p] - place[q]) + place[q] * ld] += wp * val[q];
    }
}

void car_band_hold(const car_tx *t, size_t j, double *hb)
{
    const size_t ld = CAR_TX_BAND + 1, n = t->n, p = car_tx_place(t, j);
    for (size_t q = p > CAR_TX_BAND ? p - CAR_TX_BAND : 0; q < p; ++q) hb[(p - q) + q * ld] = 0.0;
    for (size_t r = 1; r < ld && p + r < n; ++r) hb[r + p * ld] = 0.0;
    hb[p * ld] = 1.0;
}

int car_band_solve(size_t dim, size_t nz, const size_t *ri, const size_t *ci, const double *v, const size_t *order,
                   double *rhs)
{
    size_t kl = 0, ku = 0;
    for (size_t e = 0; e < nz; ++e) {
        const size_t r = order[ri[e]], c = order[ci[e]];
        if (r > c && r - c > kl) kl = r - c;
        if (c > r && c - r > ku) ku = c - r;
    }
    sp_band *band = sp_band_alloc((int)dim, (int)kl, (int)ku);
    double *b = malloc((dim ? dim : 1) * sizeof *b);
    int ok = -1;
    if (band && b) {
        for (size_t e = 0; e < nz; ++e) sp_band_add(band, (int)order[ri[e]], (int)order[ci[e]], v[e]);
        for (size_t i = 0; i < dim; ++i) b[order[i]] = rhs[i];
        if (sp_band_factor(band) == SP_OK && sp_band_solve(band, b) == SP_OK) {
            for (size_t i = 0; i < dim; ++i) rhs[i] = b[order[i]];
            ok = 0;
        }
    }
    sp_band_free(band);
    free(b);
    return ok;
}
