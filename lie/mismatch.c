/* The distance of two group elements as an algebra vector, with its derivatives (see
 * sp_lie.h). */
#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

sp_status sp_group_log_mismatch(const sp_group *G, const double *a, const double *b, double *r, double *Da, double *Db)
{
    const int n = G->dim;
    double ai[SP_LIE_MAX_ELEM], X[SP_LIE_MAX_ELEM], Di[SP_LIE_MAX_DIM * SP_LIE_MAX_DIM];
    G->inverse(G, a, ai);
    G->compose(G, ai, b, X);
    sp_status st = G->log(G, X, r);
    if (st != SP_OK) return st;
    if (!Da && !Db) return SP_OK;
    G->dexp_inv(G, r, Di);
    if (Da)
        for (int k = 0; k < n * n; ++k) Da[k] = -Di[k];
    if (Db)
        for (int c = 0; c < n; ++c) {
            double e[SP_LIE_MAX_DIM] = {0}, v[SP_LIE_MAX_DIM], w[SP_LIE_MAX_DIM];
            e[c] = 1.0;
            G->Ad(G, X, e, v);
            sp_mat_vec(n, n, Di, v, w);
            for (int k = 0; k < n; ++k) Db[k * n + c] = w[k];
        }
    return SP_OK;
}
