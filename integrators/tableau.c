/* Runge–Kutta tables. Gauss–Legendre: nodes c_i are the roots of the shifted Legendre
 * polynomial P_s(2x − 1), weights b_j = ∫₀¹ ℓ_j and a_ij = ∫₀^{c_i} ℓ_j (collocation;
 * HLW II.1.3), each integral evaluated exactly by the s-point Gauss rule on [0, c_i].
 * Lobatto IIIA/IIIB: HLW II.1.4, as tabulated in CONSTRAINED spec §1.2. */
#include <math.h>
#include <string.h>

#include "sp_tableau.h"

typedef long double real;

/* P_s(x) and P_s'(x) on [−1, 1] by the three-term recurrence. */
static void legendre(int s, real x, real *p, real *dp)
{
    real p0 = 1.0L, p1 = x;
    if (s == 0) {
        *p = 1.0L, *dp = 0.0L;
        return;
    }
    for (int k = 2; k <= s; ++k) {
        real pk = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = pk;
    }
    *p = p1;
    *dp = s * (x * p1 - p0) / (x * x - 1.0L);
}

/* Lagrange basis polynomial ℓ_j(x) on the nodes c. */
static real lagrange(int s, const real *c, int j, real x)
{
    real l = 1.0L;
    for (int k = 0; k < s; ++k)
        if (k != j) l *= (x - c[k]) / (c[j] - c[k]);
    return l;
}

static void gauss(int s, sp_tableau *t)
{
    real c[SP_TABLEAU_MAX_STAGES], w[SP_TABLEAU_MAX_STAGES];
    const real pi = 3.141592653589793238462643383279502884L;
    for (int i = 0; i < s; ++i) {
        /* Newton from the classical guess; roots in increasing order */
        real x = -cosl(pi * (i + 0.75L) / (s + 0.5L)), p, dp;
        for (int it = 0; it < 100; ++it) {
            legendre(s, x, &p, &dp);
            real dx = p / dp;
            x -= dx;
            if (fabsl(dx) <= 1e-19L * fabsl(x) + 1e-30L) break;
        }
        legendre(s, x, &p, &dp);
        c[i] = 0.5L * (1.0L + x);
        w[i] = 1.0L / ((1.0L - x * x) * dp * dp); /* = half the [−1, 1] weight */
    }
    for (int i = 0; i < s; ++i) {
        t->b[i] = (double)w[i];
        t->c[i] = (double)c[i];
        for (int j = 0; j < s; ++j) {
            real a = 0.0L;
            for (int k = 0; k < s; ++k) a += w[k] * lagrange(s, c, j, c[i] * c[k]);
            t->A[i][j] = (double)(c[i] * a);
        }
    }
    t->order = 2 * s;
}

static void lobatto(int s, int iiib, sp_tableau *t)
{
    const double r5 = sqrt(5.0);
    static const double A2[2][2] = {{0, 0}, {0.5, 0.5}}, B2[2][2] = {{0.5, 0}, {0.5, 0}};
    static const double A3[3][3] = {{0, 0, 0}, {5.0 / 24, 1.0 / 3, -1.0 / 24}, {1.0 / 6, 2.0 / 3, 1.0 / 6}};
    static const double B3[3][3] = {{1.0 / 6, -1.0 / 6, 0}, {1.0 / 6, 1.0 / 3, 0}, {1.0 / 6, 5.0 / 6, 0}};
    const double A4[4][4] = {{0, 0, 0, 0},
                             {(11 + r5) / 120, (25 - r5) / 120, (25 - 13 * r5) / 120, (-1 + r5) / 120},
                             {(11 - r5) / 120, (25 + 13 * r5) / 120, (25 + r5) / 120, (-1 - r5) / 120},
                             {1.0 / 12, 5.0 / 12, 5.0 / 12, 1.0 / 12}};
    const double B4[4][4] = {{1.0 / 12, (-1 - r5) / 24, (-1 + r5) / 24, 0},
                             {1.0 / 12, (25 + r5) / 120, (25 - 13 * r5) / 120, 0},
                             {1.0 / 12, (25 + 13 * r5) / 120, (25 - r5) / 120, 0},
                             {1.0 / 12, (11 - r5) / 24, (11 + r5) / 24, 0}};
    static const double b2[2] = {0.5, 0.5}, c2[2] = {0, 1};
    static const double b3[3] = {1.0 / 6, 2.0 / 3, 1.0 / 6}, c3[3] = {0, 0.5, 1};
    const double b4[4] = {1.0 / 12, 5.0 / 12, 5.0 / 12, 1.0 / 12}, c4[4] = {0, (5 - r5) / 10, (5 + r5) / 10, 1};
    for (int i = 0; i < s; ++i) {
        t->b[i] = s == 2 ? b2[i] : s == 3 ? b3[i] : b4[i];
        t->c[i] = s == 2 ? c2[i] : s == 3 ? c3[i] : c4[i];
        for (int j = 0; j < s; ++j)
            t->A[i][j] = s == 2   ? (iiib ? B2 : A2)[i][j]
                         : s == 3 ? (iiib ? B3 : A3)[i][j]
                                  : (iiib ? B4 : A4)[i][j];
    }
    t->order = 2 * s - 2;
}

sp_status sp_tableau_get(const char *family, int stages, sp_tableau *t)
{
    memset(t, 0, sizeof *t);
    t->stages = stages;
    if (family && strcmp(family, "gauss") == 0 && stages >= 1 && stages <= 6) {
        t->family = "gauss";
        gauss(stages, t);
        return SP_OK;
    }
    if (family && (strcmp(family, "lobatto_iiia") == 0 || strcmp(family, "lobatto_iiib") == 0) && stages >= 2 &&
        stages <= 4) {
        int iiib = family[11] == 'b';
        t->family = iiib ? "lobatto_iiib" : "lobatto_iiia";
        lobatto(stages, iiib, t);
        return SP_OK;
    }
    return SP_ERR_INVALID;
}
