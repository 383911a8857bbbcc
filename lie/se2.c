/* SE(2): rigid motions of the plane, stored as row-major 3x3 homogeneous matrices
 *
 *     g = [ R  t ]      R = [cos θ  −sin θ]
 *         [ 0  1 ],         [sin θ   cos θ],   t = (t_x, t_y),
 *
 * whose last row is kept exactly (0, 0, 1) by every operation. The algebra se(2) ≅ R³
 * is ordered x = (ω, v_x, v_y): the angular velocity first, then the body translation
 * velocity, and
 *
 *     hat(ω, v_x, v_y) = [ 0  −ω  v_x ]
 *                        [ ω   0  v_y ]
 *                        [ 0   0   0  ].
 *
 * The group acts on R² by g·y = R y + t (act_dim 2, homogeneous coordinates). Writing
 * x = (ω, p) with p ∈ R² and J = [[0, −1], [1, 0]] (so that hat's rotation block is ωJ):
 *
 *     [x, y]    = (0, ω_x J p_y − ω_y J p_x),          ad_x = [[0, 0], [−J p, ωJ]],
 *     Ad_g x    = (ω, R p − ω J t),                    Ad*_g = (Ad_g)ᵀ, ad*_x = (ad_x)ᵀ,
 *     exp(x)    = (R(ω), V(ω) p),   V(ω) = a I + b J,  a = sin ω/ω, b = (1 − cos ω)/ω,
 *     log(g)    = (ω, V⁻¹ t),  ω = atan2(R₁₀, R₀₀),    V⁻¹ = α I − (ω/2) J, α = (ω/2) cot(ω/2),
 *     cay(x)    = (I − x̂/2)⁻¹(I + x̂/2) = (R_c, (I − ωJ/2)⁻¹ p),
 *     cay⁻¹(g)  = (ω, (I − ωJ/2) t),  ω = (R₁₀ − R₀₁)/(1 + (R₀₀ + R₁₁)/2).
 *
 * Right-trivialised differentials (sp_lie.h): with c = (1 − cos ω)/ω², d = (ω − sin ω)/ω³
 * and e = (1 − α)/ω²,
 *
 *     dexp_x   = Σ ad_xᵏ/(k+1)! = [[1, 0], [ω d p − c J p, V(ω)]],
 *     dexp⁻¹_x = Σ Bₖ ad_xᵏ/k!  = [[1, 0], [ω e p + ½ J p, V(ω)⁻¹]],
 *     dcay_x   = (I + ½ ad_x)/(1 + ω²/4),
 *     dcay⁻¹_x = I − ½ ad_x + ¼ ω x e₀ᵀ       (from dcay⁻¹_x z = z − ½[x, z] − ¼ x̂ ẑ x̂),
 *
 * and D_τ(x, v) = ∂ₓ[dτ_xᵀ v], with v = (v₀, q):
 *
 *     dexp_xᵀ v = (v₀ + ω d p·q + c p·Jq,  a q − b J q),
 *     dcay_xᵀ v = (v + ½ ad*_x v)/(1 + ω²/4),   ad*_x v = (p·Jq, ω q_y, −ω q_x).
 *
 * Every coefficient is an even function of ω (a, c, d, e and the derivatives a'/ω, c'/ω,
 * d'/ω); each is summed from its Taylor series below |ω| = 1, where the closed forms
 * lose digits to cancellation, and taken from the closed form above (which then loses
 * at most one digit). */
#include <math.h>

#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

/* Below this |ω| every coefficient is summed from its series. */
#define SE2_SERIES_ANGLE 1.0

/* ----------------------------------------------------------------- coefficients -- */

/* Σ_{k≥0} (−1)ᵏ wᵏ/(2k+n)!, w = ω² ≤ 1: terms fall by w/((2k+n+1)(2k+n+2)). */
static double alt_series(int n, double w)
{
    double term = 1.0;
    for (int j = 2; j <= n; ++j) term /= (double)j;
    double sum = 0.0;
    for (int k = 0; k < 30; ++k) {
        sum += term;
        if (fabs(term) <= 1e-18 * fabs(sum)) break;
        term *= -w / ((double)(2 * k + n + 1) * (double)(2 * k + n + 2));
    }
    return sum;
}

/* Σ_{k≥1} (−1)ᵏ 2k w^(k−1)/(2k+n)!: the derivative of the series above divided by ω. */
static double alt_series_deriv(int n, double w)
{
    double u = -1.0; /* (−1)ᵏ w^(k−1)/(2k+n)! at k = 1 */
    for (int j = 2; j <= n + 2; ++j) u /= (double)j;
    double sum = 0.0;
    for (int k = 1; k < 30; ++k) {
        double term = 2.0 * k * u;
        sum += term;
        if (fabs(term) <= 1e-18 * fabs(sum)) break;
        u *= -w / ((double)(2 * k + n + 1) * (double)(2 * k + n + 2));
    }
    return sum;
}

/* The coefficients of exp and its differentials at angle ω. */
typedef struct {
    double a, c, d;    /* sin ω/ω, (1 − cos ω)/ω², (ω − sin ω)/ω³ */
    double ap, cp, dp; /* a'/ω, c'/ω, d'/ω */
} se2_exp_coeffs;

static se2_exp_coeffs exp_coefficients(double om, int derivatives)
{
    se2_exp_coeffs k = {0};
    double w = om * om;
    if (fabs(om) < SE2_SERIES_ANGLE) {
        k.a = alt_series(1, w);
        k.c = alt_series(2, w);
        k.d = alt_series(3, w);
        if (derivatives) {
            k.ap = alt_series_deriv(1, w);
            k.cp = alt_series_deriv(2, w);
            k.dp = alt_series_deriv(3, w);
        }
        return k;
    }
    double s = sin(om), co = cos(om), sh = sin(0.5 * om);
    double omc = 2.0 * sh * sh; /* 1 − cos ω without cancellation */
    k.a = s / om;
    k.c = omc / w;
    k.d = (om - s) / (w * om);
    if (derivatives) {
        k.ap = (om * co - s) / (w * om);
        k.cp = (om * s - 2.0 * omc) / (w * w);
        k.dp = (om * omc - 3.0 * (om - s)) / (w * w * om);
    }
    return k;
}

/* |B₂ₙ|/(2n)!, n = 1…13: 1 − (ω/2)cot(ω/2) = Σ |B₂ₙ| ω²ⁿ/(2n)!. */
static const double bernoulli_coeffs[] = {
    0.083333333333333329,   0.0013888888888888889,  3.3068783068783071e-05, 8.2671957671957675e-07,
    2.08767569878681e-08,   5.2841901386874932e-10, 1.3382536530684679e-11, 3.3896802963225827e-13,
    8.5860620562778452e-15, 2.1748686985580619e-16, 5.5090028283602295e-18, 1.3954464685812522e-19,
    3.5347070396294673e-21,
};

/* e = (1 − α)/ω² with α = (ω/2) cot(ω/2). */
static double coefficient_e(double om)
{
    double w = om * om;
    if (fabs(om) < SE2_SERIES_ANGLE) {
        double sum = 0.0;
        for (int n = (int)(sizeof bernoulli_coeffs / sizeof bernoulli_coeffs[0]) - 1; n >= 0; --n)
            sum = sum * w + bernoulli_coeffs[n];
        return sum;
    }
    double h = 0.5 * om;
    return (1.0 - h * cos(h) / sin(h)) / w;
}

/* ------------------------------------------------------------------- the group -- */

static void se2_set(double c, double s, double tx, double ty, double *g)
{
    g[0] = c, g[1] = -s, g[2] = tx;
    g[3] = s, g[4] = c, g[5] = ty;
    g[6] = 0.0, g[7] = 0.0, g[8] = 1.0;
}

static void se2_identity(const sp_group *G, double *g)
{
    (void)G;
    se2_set(1.0, 0.0, 0.0, 0.0, g);
}

static void se2_compose(const sp_group *G, const double *a, const double *b, double *ab)
{
    (void)G;
    double r[6];
    r[0] = a[0] * b[0] + a[1] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[4];
    r[2] = a[0] * b[2] + a[1] * b[5] + a[2];
    r[3] = a[3] * b[0] + a[4] * b[3];
    r[4] = a[3] * b[1] + a[4] * b[4];
    r[5] = a[3] * b[2] + a[4] * b[5] + a[5];
    memcpy(ab, r, sizeof r);
    ab[6] = 0.0, ab[7] = 0.0, ab[8] = 1.0;
}

/* (R, t)⁻¹ = (Rᵀ, −Rᵀ t). */
static void se2_inverse(const sp_group *G, const double *g, double *gi)
{
    (void)G;
    double r[6] = {g[0], g[3], -(g[0] * g[2] + g[3] * g[5]), g[1], g[4], -(g[1] * g[2] + g[4] * g[5])};
    memcpy(gi, r, sizeof r);
    gi[6] = 0.0, gi[7] = 0.0, gi[8] = 1.0;
}

static void se2_act(const sp_group *G, const double *g, const double *x, double *y)
{
    (void)G;
    double y0 = g[0] * x[0] + g[1] * x[1] + g[2];
    double y1 = g[3] * x[0] + g[4] * x[1] + g[5];
    y[0] = y0, y[1] = y1;
}

static void se2_hat(const sp_group *G, const double *x, double *X)
{
    (void)G;
    X[0] = 0.0, X[1] = -x[0], X[2] = x[1];
    X[3] = x[0], X[4] = 0.0, X[5] = x[2];
    X[6] = 0.0, X[7] = 0.0, X[8] = 0.0;
}

static void se2_vee(const sp_group *G, const double *X, double *x)
{
    (void)G;
    x[0] = X[3];
    x[1] = X[2];
    x[2] = X[5];
}

static void se2_exp(const sp_group *G, const double *x, double *g)
{
    (void)G;
    const double om = x[0];
    se2_exp_coeffs k = exp_coefficients(om, 0);
    const double b = om * k.c;
    se2_set(cos(om), sin(om), k.a * x[1] - b * x[2], b * x[1] + k.a * x[2], g);
}

static sp_status se2_log(const sp_group *G, const double *g, double *x)
{
    (void)G;
    if (!sp_vec_isfinite(9, g)) return SP_ERR_DOMAIN;
    const double om = atan2(g[3], g[0]);
    const double alpha = 1.0 - om * om * coefficient_e(om), h = 0.5 * om;
    x[0] = om;
    x[1] = alpha * g[2] + h * g[5];
    x[2] = alpha * g[5] - h * g[2];
    return sp_vec_isfinite(3, x) ? SP_OK : SP_ERR_DOMAIN;
}

/* cay(ω, p): R = [(1 − ω²/4) I + ωJ]/f, t = (I + ωJ/2) p / f, f = 1 + ω²/4. */
static void se2_cay(const sp_group *G, const double *x, double *g)
{
    (void)G;
    const double om = x[0], f = 1.0 / (1.0 + 0.25 * om * om), h = 0.5 * om;
    se2_set((1.0 - 0.25 * om * om) * f, om * f, (x[1] - h * x[2]) * f, (x[2] + h * x[1]) * f, g);
}

static sp_status se2_cay_inv(const sp_group *G, const double *g, double *x)
{
    (void)G;
    const double den = 1.0 + 0.5 * (g[0] + g[4]);
    if (!(den > 1e-300)) return SP_ERR_DOMAIN;
    const double om = (g[3] - g[1]) / den, h = 0.5 * om;
    x[0] = om;
    x[1] = g[2] + h * g[5];
    x[2] = g[5] - h * g[2];
    return sp_vec_isfinite(3, x) ? SP_OK : SP_ERR_DOMAIN;
}

static void se2_dexp(const sp_group *G, const double *x, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2];
    se2_exp_coeffs k = exp_coefficients(om, 0);
    const double b = om * k.c, d2 = om * k.d;
    M[0] = 1.0, M[1] = 0.0, M[2] = 0.0;
    M[3] = d2 * px + k.c * py, M[4] = k.a, M[5] = -b;
    M[6] = d2 * py - k.c * px, M[7] = b, M[8] = k.a;
}

static void se2_dexp_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2];
    const double e = coefficient_e(om), alpha = 1.0 - om * om * e, gam = om * e, h = 0.5 * om;
    M[0] = 1.0, M[1] = 0.0, M[2] = 0.0;
    M[3] = gam * px - 0.5 * py, M[4] = alpha, M[5] = h;
    M[6] = gam * py + 0.5 * px, M[7] = -h, M[8] = alpha;
}

static void se2_dcay(const sp_group *G, const double *x, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2], f = 1.0 / (1.0 + 0.25 * om * om);
    M[0] = f, M[1] = 0.0, M[2] = 0.0;
    M[3] = 0.5 * py * f, M[4] = f, M[5] = -0.5 * om * f;
    M[6] = -0.5 * px * f, M[7] = 0.5 * om * f, M[8] = f;
}

static void se2_dcay_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2], q = 0.25 * om;
    M[0] = 1.0 + q * om, M[1] = 0.0, M[2] = 0.0;
    M[3] = -0.5 * py + q * px, M[4] = 1.0, M[5] = 0.5 * om;
    M[6] = 0.5 * px + q * py, M[7] = -0.5 * om, M[8] = 1.0;
}

/* D_exp(x, v): row 0 = ∂ₓ(v₀ + ω d p·q + c p·Jq), rows 1–2 = ∂ₓ(a q − b Jq) (only ω). */
static void se2_dexp_T_deriv(const sp_group *G, const double *x, const double *v, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2], qx = v[1], qy = v[2];
    se2_exp_coeffs k = exp_coefficients(om, 1);
    const double pq = px * qx + py * qy, pJq = py * qx - px * qy; /* Jq = (−q_y, q_x) */
    const double d2 = om * k.d, d2p = k.d + om * om * k.dp, cprime = om * k.cp;
    const double ap = om * k.ap, bp = k.c + om * om * k.cp;
    M[0] = d2p * pq + cprime * pJq;
    M[1] = d2 * qx - k.c * qy;
    M[2] = d2 * qy + k.c * qx;
    M[3] = ap * qx + bp * qy, M[4] = 0.0, M[5] = 0.0;
    M[6] = ap * qy - bp * qx, M[7] = 0.0, M[8] = 0.0;
}

/* D_cay(x, v) = (1/f) ∂ₓg − (ω/2)/f² g e₀ᵀ with g = v + ½ ad*_x v, f = 1 + ω²/4. */
static void se2_dcay_T_deriv(const sp_group *G, const double *x, const double *v, double *M)
{
    (void)G;
    const double om = x[0], px = x[1], py = x[2], qx = v[1], qy = v[2];
    const double f = 1.0 / (1.0 + 0.25 * om * om), s = -0.5 * om * f * f;
    const double g0 = v[0] + 0.5 * (py * qx - px * qy), g1 = qx + 0.5 * om * qy, g2 = qy - 0.5 * om * qx;
    M[0] = s * g0, M[1] = -0.5 * qy * f, M[2] = 0.5 * qx * f;
    M[3] = 0.5 * qy * f + s * g1, M[4] = 0.0, M[5] = 0.0;
    M[6] = -0.5 * qx * f + s * g2, M[7] = 0.0, M[8] = 0.0;
}

/* ad_x y = (0, ω_x J p_y − ω_y J p_x). */
static void se2_ad(const sp_group *G, const double *x, const double *y, double *out)
{
    (void)G;
    double o1 = -x[0] * y[2] + y[0] * x[2];
    double o2 = x[0] * y[1] - y[0] * x[1];
    out[0] = 0.0, out[1] = o1, out[2] = o2;
}

/* ad*_x m = (ad_x)ᵀ m = (p·J m_p, ω m_y, −ω m_x). */
static void se2_ad_star(const sp_group *G, const double *x, const double *m, double *out)
{
    (void)G;
    double o0 = x[2] * m[1] - x[1] * m[2];
    double o1 = x[0] * m[2];
    double o2 = -x[0] * m[1];
    out[0] = o0, out[1] = o1, out[2] = o2;
}

/* Ad_g x = (ω, R p + ω (t_y, −t_x)). */
static void se2_Ad(const sp_group *G, const double *g, const double *x, double *out)
{
    (void)G;
    double o1 = g[0] * x[1] + g[1] * x[2] + x[0] * g[5];
    double o2 = g[3] * x[1] + g[4] * x[2] - x[0] * g[2];
    out[0] = x[0], out[1] = o1, out[2] = o2;
}

/* Ad*_g m = (Ad_g)ᵀ m = (m₀ + t_y m₁ − t_x m₂, Rᵀ m_p). */
static void se2_Ad_star(const sp_group *G, const double *g, const double *m, double *out)
{
    (void)G;
    double o0 = m[0] + g[5] * m[1] - g[2] * m[2];
    double o1 = g[0] * m[1] + g[3] * m[2];
    double o2 = g[1] * m[1] + g[4] * m[2];
    out[0] = o0, out[1] = o1, out[2] = o2;
}

static const sp_group se2_type = {
    .name = "SE2",
    .dim = 3,
    .elem_size = 9,
    .mat_dim = 3,
    .act_dim = 2,
    .identity = se2_identity,
    .compose = se2_compose,
    .inverse = se2_inverse,
    .act = se2_act,
    .hat = se2_hat,
    .vee = se2_vee,
    .exp = se2_exp,
    .log = se2_log,
    .cay = se2_cay,
    .cay_inv = se2_cay_inv,
    .dexp = se2_dexp,
    .dexp_inv = se2_dexp_inv,
    .dcay = se2_dcay,
    .dcay_inv = se2_dcay_inv,
    .dexp_T_deriv = se2_dexp_T_deriv,
    .dcay_T_deriv = se2_dcay_T_deriv,
    .ad = se2_ad,
    .ad_star = se2_ad_star,
    .Ad = se2_Ad,
    .Ad_star = se2_Ad_star,
};

const sp_group *const sp_group_se2 = &se2_type;
