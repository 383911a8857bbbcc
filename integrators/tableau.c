/* Runge–Kutta tables. Gauss–Legendre: nodes c_i are the roots of the shifted Legendre
 * polynomial P_s(2x − 1), weights b_j = ∫₀¹ ℓ_j and a_ij = ∫₀^{c_i} ℓ_j (collocation;
 * HLW II.1.3), each integral evaluated exactly by the s-point Gauss rule on [0, c_i].
 * Lobatto IIIA/IIIB: HLW II.1.4; s ≥ 5 computed likewise from the Lobatto nodes. */
#include <math.h>
#include <string.h>

#include "integrators/sp_tableau.h"

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

static const real pi_l = 3.141592653589793238462643383279502884L;

/* The s-point Gauss rule on [0, 1]: nodes x (increasing) and weights w. */
static void gauss_rule(int s, real *x, real *w)
{
    for (int i = 0; i < s; ++i) {
        /* Newton from the classical guess; roots in increasing order */
        real r = -cosl(pi_l * (i + 0.75L) / (s + 0.5L)), p, dp;
        for (int it = 0; it < 100; ++it) {
            legendre(s, r, &p, &dp);
            real dx = p / dp;
            r -= dx;
            if (fabsl(dx) <= 1e-19L * fabsl(r) + 1e-30L) break;
        }
        legendre(s, r, &p, &dp);
        x[i] = 0.5L * (1.0L + r);
        w[i] = 1.0L / ((1.0L - r * r) * dp * dp); /* = half the [−1, 1] weight */
    }
}

/* The collocation table of the nodes c: b_j = ∫₀¹ ℓ_j and a_ij = ∫₀^{c_i} ℓ_j, each
 * integral exact by the s-point Gauss rule (ℓ_j has degree s − 1 < 2s). */
static void collocation(int s, const real *c, real A[][SP_TABLEAU_MAX_STAGES], real *b)
{
    real x[SP_TABLEAU_MAX_STAGES], w[SP_TABLEAU_MAX_STAGES];
    gauss_rule(s, x, w);
    for (int j = 0; j < s; ++j) {
        b[j] = 0.0L;
        for (int k = 0; k < s; ++k) b[j] += w[k] * lagrange(s, c, j, x[k]);
        for (int i = 0; i < s; ++i) {
            real a = 0.0L;
            for (int k = 0; k < s; ++k) a += w[k] * lagrange(s, c, j, c[i] * x[k]);
            A[i][j] = c[i] * a;
        }
    }
}

static void gauss(int s, sp_tableau *t)
{
    real c[SP_TABLEAU_MAX_STAGES], w[SP_TABLEAU_MAX_STAGES], A[SP_TABLEAU_MAX_STAGES][SP_TABLEAU_MAX_STAGES];
    real bw[SP_TABLEAU_MAX_STAGES]; /* = w up to round-off; the rule's own weights are kept */
    gauss_rule(s, c, w);
    collocation(s, c, A, bw);
    for (int i = 0; i < s; ++i) {
        t->b[i] = (double)w[i];
        t->c[i] = (double)c[i];
        for (int j = 0; j < s; ++j) t->A[i][j] = (double)A[i][j];
    }
    t->order = 2 * s;
}

/* Lobatto IIIA and IIIB of s stages from the nodes: c_1 = 0, c_s = 1 and the roots of
 * P'_{s−1}(2x − 1) between them; IIIA is the collocation table of these nodes and IIIB
 * follows from the symplecticity condition of the pair, b_i â_ij + b_j a_ji = b_i b_j
 * (HLW II.1.4 and IV.2.2), i.e. â_ij = b_j (1 − a_ji / b_i). */
static void lobatto_computed(int s, int iiib, sp_tableau *t)
{
    real c[SP_TABLEAU_MAX_STAGES], b[SP_TABLEAU_MAX_STAGES], A[SP_TABLEAU_MAX_STAGES][SP_TABLEAU_MAX_STAGES];
    c[0] = 0.0L, c[s - 1] = 1.0L;
    for (int i = 1; i < s - 1; ++i) {
        /* Newton on P'_{s−1} from the Chebyshev–Lobatto guess, with P'' from Legendre's
         * equation (1 − x²) P'' = 2x P' − k(k + 1) P, k = s − 1 */
        const int k = s - 1;
        real x = -cosl(pi_l * i / k), p, dp;
        for (int it = 0; it < 100; ++it) {
            legendre(k, x, &p, &dp);
            real dx = dp * (1.0L - x * x) / (2.0L * x * dp - k * (k + 1) * p);
            x -= dx;
            if (fabsl(dx) <= 1e-19L * fabsl(x) + 1e-30L) break;
        }
        c[i] = 0.5L * (1.0L + x);
    }
    collocation(s, c, A, b);
    for (int i = 0; i < s; ++i) {
        t->b[i] = (double)b[i];
        t->c[i] = (double)c[i];
        for (int j = 0; j < s; ++j) t->A[i][j] = (double)(iiib ? b[j] * (1.0L - A[j][i] / b[i]) : A[i][j]);
    }
    t->order = 2 * s - 2;
}

/* s = 2, 3, 4 in closed form (HLW II.1.4), s ≥ 5 computed. */
static void lobatto(int s, int iiib, sp_tableau *t)
{
    if (s >= 5) {
        lobatto_computed(s, iiib, t);
        return;
    }
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
        stages <= SP_TABLEAU_MAX_STAGES) {
        int iiib = family[11] == 'b';
        t->family = iiib ? "lobatto_iiib" : "lobatto_iiia";
        lobatto(stages, iiib, t);
        return SP_OK;
    }
    return SP_ERR_INVALID;
}

/* Explicit tables. DOP853: the Dormand–Prince 8(5,3) pair as published in Hairer,
 * Nørsett & Wanner, Solving Ordinary Differential Equations I (2nd ed., Springer 1993),
 * §II.10, and tabulated to 30 digits in Hairer's code dop853.f (the coefficients
 * c_i, a_ij, b_i, bhh_i and er_i there). The stages are numbered as in the book (1…12);
 * the 3rd-order estimator is b − bhh with bhh on stages 1, 9 and 12, the 5th-order one
 * the er_i. The dense-output stages 14–16 are not needed here. */
static void dop853(sp_tableau_explicit *t)
{
    static const double c[12] = {0.0,
                                 0.526001519587677318785587544488e-01,
                                 0.789002279381515978178381316732e-01,
                                 0.118350341907227396726757197510e+00,
                                 0.281649658092772603273242802490e+00,
                                 0.333333333333333333333333333333e+00,
                                 0.25e+00,
                                 0.307692307692307692307692307692e+00,
                                 0.651282051282051282051282051282e+00,
                                 0.6e+00,
                                 0.857142857142857142857142857142e+00,
                                 1.0};
    /* row i holds a_{i+1, j+1}; zero entries omitted */
    static const double A[12][12] = {
        {0},
        {5.26001519587677318785587544488e-2},
        {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
        {2.95875854768068491816892993775e-2, 0, 8.87627564304205475450678981324e-2},
        {2.41365134159266685502369798665e-1, 0, -8.84549479328286085344864962717e-1,
         9.24834003261792003115737966543e-1},
        {3.7037037037037037037037037037e-2, 0, 0, 1.70828608729473871279604482173e-1,
         1.25467687566822425016691814123e-1},
        {3.7109375e-2, 0, 0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2, -1.7578125e-2},
        {3.70920001185047927108779319836e-2, 0, 0, 1.70383925712239993810214054705e-1,
         1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2, 8.27378916381402288758473766002e-3},
        {6.24110958716075717114429577812e-1, 0, 0, -3.36089262944694129406857109825e0,
         -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1, 2.01540675504778934086186788979e1,
         -4.34898841810699588477366255144e1},
        {4.77662536438264365890433908527e-1, 0, 0, -2.48811461997166764192642586468e0,
         -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1, 1.52792336328824235832596922938e1,
         -3.32882109689848629194453265587e1, -2.03312017085086261358222928593e-2},
        {-9.3714243008598732571704021658e-1, 0, 0, 5.18637242884406370830023853209e0,
         1.09143734899672957818500254654e0, -8.14978701074692612513997267357e0, -1.85200656599969598641566180701e1,
         2.27394870993505042818970056734e1, 2.49360555267965238987089396762e0, -3.0467644718982195003823669022e0},
        {2.27331014751653820792359768449e0, 0, 0, -1.05344954667372501984066689879e1,
         -2.00087205822486249909675718444e0, -1.79589318631187989172765950534e1, 2.79488845294199600508499808837e1,
         -2.85899827713502369474065508674e0, -8.87285693353062954433549289258e0, 1.23605671757943030647266201528e1,
         6.43392746015763530355970484046e-1},
    };
    static const double b[12] = {5.42937341165687622380535766363e-2,
                                 0,
                                 0,
                                 0,
                                 0,
                                 4.45031289275240888144113950566e0,
                                 1.89151789931450038304281599044e0,
                                 -5.8012039600105847814672114227e0,
                                 3.1116436695781989440891606237e-1,
                                 -1.52160949662516078556178806805e-1,
                                 2.01365400804030348374776537501e-1,
                                 4.47106157277725905176885569043e-2};
    static const double er[12] = {0.1312004499419488073250102996e-01,
                                  0,
                                  0,
                                  0,
                                  0,
                                  -0.1225156446376204440720569753e+01,
                                  -0.4957589496572501915214079952e+00,
                                  0.1664377182454986536961530415e+01,
                                  -0.3503288487499736816886487290e+00,
                                  0.3341791187130174790297318841e+00,
                                  0.8192320648511571246570742613e-01,
                                  -0.2235530786388629525884427845e-01};
    static const double bhh1 = 0.244094488188976377952755905512e+00, bhh2 = 0.733846688281611857341361741547e+00,
                        bhh3 = 0.220588235294117647058823529412e-01;
    t->stages = 12;
    t->order = 8;
    t->estimators = 2;
    t->control_order = 8;
    memcpy(t->A, A, sizeof A);
    memcpy(t->b, b, sizeof b);
    memcpy(t->c, c, sizeof c);
    memcpy(t->e, er, sizeof er);
    memcpy(t->e2, b, sizeof b);
    t->e2[0] -= bhh1;
    t->e2[8] -= bhh2;
    t->e2[11] -= bhh3;
}

sp_status sp_tableau_explicit_get(const char *name, sp_tableau_explicit *t)
{
    memset(t, 0, sizeof *t);
    if (!name) return SP_ERR_INVALID;
    if (strcmp(name, "euler") == 0) {
        t->name = "euler";
        t->stages = t->order = t->control_order = 1;
        t->b[0] = 1.0;
        return SP_OK;
    }
    if (strcmp(name, "rk4") == 0) { /* A&S 25.5.10 */
        t->name = "rk4";
        t->stages = t->order = t->control_order = 4;
        t->A[1][0] = t->A[2][1] = 0.5;
        t->A[3][2] = 1.0;
        t->c[1] = t->c[2] = 0.5;
        t->c[3] = 1.0;
        t->b[0] = t->b[3] = 1.0 / 6;
        t->b[1] = t->b[2] = 1.0 / 3;
        return SP_OK;
    }
    if (strcmp(name, "dop853") == 0) {
        t->name = "dop853";
        dop853(t);
        return SP_OK;
    }
    return SP_ERR_INVALID;
}

void sp_lagrange_weights(int k, const double *t, double tau, double *w)
{
    for (int i = 0; i < k; ++i) {
        double l = 1.0;
        for (int j = 0; j < k; ++j)
            if (j != i) l *= (tau - t[j]) / (t[i] - t[j]);
        w[i] = l;
    }
}
