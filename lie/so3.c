/* SO(3): rotations of R³, stored as row-major 3x3 matrices; so(3) ≅ R³ by hat/vee.
 *
 * Formulas (Rodrigues' formula; the closed Cayley map
 * cay(x) = I + 4/(4+|x|²)(x̂ + ½x̂²); right-trivialised differentials
 * dexp_x = I + B x̂ + C x̂², dexp⁻¹_x = I − ½x̂ + c x̂², dcay_x = 2/(4+|x|²)(2I + x̂),
 * dcay⁻¹_x = I − ½x̂ + ¼xxᵀ; and D_τ(x, v) = ∂ₓ[dτ_xᵀ v]). The trigonometric
 * coefficients switch to their Taylor series below |x| = 0.1, where the closed forms
 * lose digits to cancellation. */
#include <math.h>

#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

/* Below this angle every trigonometric coefficient is evaluated by its series. */
#define SO3_SERIES_ANGLE 0.1

/* Unrolled 3x3 kernels: these run several times per integration step. Outputs may
 * alias inputs. */
static inline void mat3_mul(const double *a, const double *b, double *c)
{
    double t[9];
    for (int i = 0; i < 3; ++i) {
        const double *r = a + 3 * i;
        t[3 * i + 0] = r[0] * b[0] + r[1] * b[3] + r[2] * b[6];
        t[3 * i + 1] = r[0] * b[1] + r[1] * b[4] + r[2] * b[7];
        t[3 * i + 2] = r[0] * b[2] + r[1] * b[5] + r[2] * b[8];
    }
    memcpy(c, t, sizeof t);
}

static inline void mat3_vec(const double *a, const double *x, double *y)
{
    double y0 = a[0] * x[0] + a[1] * x[1] + a[2] * x[2];
    double y1 = a[3] * x[0] + a[4] * x[1] + a[5] * x[2];
    double y2 = a[6] * x[0] + a[7] * x[1] + a[8] * x[2];
    y[0] = y0, y[1] = y1, y[2] = y2;
}

static inline void mat3_tvec(const double *a, const double *x, double *y)
{
    double y0 = a[0] * x[0] + a[3] * x[1] + a[6] * x[2];
    double y1 = a[1] * x[0] + a[4] * x[1] + a[7] * x[2];
    double y2 = a[2] * x[0] + a[5] * x[1] + a[8] * x[2];
    y[0] = y0, y[1] = y1, y[2] = y2;
}

static void so3_hat(const sp_group *G, const double *a, double *A)
{
    (void)G;
    A[0] = 0.0, A[1] = -a[2], A[2] = a[1];
    A[3] = a[2], A[4] = 0.0, A[5] = -a[0];
    A[6] = -a[1], A[7] = a[0], A[8] = 0.0;
}

static void so3_vee(const sp_group *G, const double *A, double *a)
{
    (void)G;
    a[0] = A[7];
    a[1] = A[2];
    a[2] = A[3];
}

static void so3_identity(const sp_group *G, double *g)
{
    (void)G;
    sp_mat_identity(3, g);
}

static void so3_compose(const sp_group *G, const double *a, const double *b, double *ab)
{
    (void)G;
    mat3_mul(a, b, ab);
}

static void so3_inverse(const sp_group *G, const double *g, double *g_inv)
{
    (void)G;
    double t[9] = {g[0], g[3], g[6], g[1], g[4], g[7], g[2], g[5], g[8]};
    memcpy(g_inv, t, sizeof t);
}

static void so3_act(const sp_group *G, const double *g, const double *x, double *y)
{
    (void)G;
    mat3_vec(g, x, y);
}

/* M = α I + β x̂ + γ x̂², the shape shared by exp, cay and their differentials
 * (x̂² = xxᵀ − |x|² I). The symmetric part γ xxᵀ is rounded once per pair (i, j), so
 * that M(−x) = M(x)ᵀ holds exactly: τ(−x) = τ(x)ᵀ. */
static void so3_poly(const double *x, double alpha, double beta, double gamma, double *M)
{
    const double d = alpha - gamma * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    const double gxy = gamma * (x[0] * x[1]), gxz = gamma * (x[0] * x[2]), gyz = gamma * (x[1] * x[2]);
    const double bx = beta * x[0], by = beta * x[1], bz = beta * x[2];
    M[0] = d + gamma * (x[0] * x[0]), M[1] = gxy - bz, M[2] = gxz + by;
    M[3] = gxy + bz, M[4] = d + gamma * (x[1] * x[1]), M[5] = gyz - bx;
    M[6] = gxz - by, M[7] = gyz + bx, M[8] = d + gamma * (x[2] * x[2]);
}

/* Rodrigues coefficients A = sinθ/θ, B = (1−cosθ)/θ², C = (θ−sinθ)/θ³. */
static void rodrigues_coefficients(double t, double *A, double *B, double *C)
{
    double t2 = t * t;
    if (t < SO3_SERIES_ANGLE) {
        *A = 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0)));
        *B = 0.5 - t2 / 24.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0 * (1.0 - t2 / 90.0)));
        *C = 1.0 / 6.0 - t2 / 120.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0 * (1.0 - t2 / 110.0)));
    } else {
        /* 1 − cosθ = 2 sin²(θ/2) does not cancel; (1 − cosθ)/θ² loses two digits at
         * θ = 0.1, which D_exp (where B multiplies v̂) would show as a 1e-14 jump. */
        double s = sin(t), sh = sin(0.5 * t) / (0.5 * t);
        *A = s / t;
        *B = 0.5 * sh * sh;
        *C = (t - s) / (t2 * t);
    }
}

static void so3_exp(const sp_group *G, const double *x, double *g)
{
    (void)G;
    double A, B, C;
    rodrigues_coefficients(sp_vec_norm(3, x), &A, &B, &C);
    so3_poly(x, 1.0, A, B, g);
}

/* θ/sinθ, finite for θ in [0, π). */
static double angle_over_sine(double t, double s)
{
    if (t < SO3_SERIES_ANGLE) {
        double t2 = t * t;
        /* 1 + t²/6 + 7t⁴/360 + 31t⁶/15120 + 127t⁸/604800 + 73t¹⁰/3421440: every term
         * down to round-off at t = 0.1 (stopping at t⁶ leaves a 2e-12 error there). */
        return 1.0 +
               t2 / 6.0 *
                   (1.0 + 7.0 * t2 / 60.0 *
                              (1.0 + 31.0 * t2 / 294.0 * (1.0 + 127.0 * t2 / 1240.0 * (1.0 + 2555.0 * t2 / 25146.0))));
    }
    return t / s;
}

/* Principal logarithm, accurate at every angle: the angle comes from atan2 of the
 * antisymmetric and trace parts; near π the axis is read off the symmetric part,
 * where the antisymmetric part has lost its digits. */
static sp_status so3_log(const sp_group *G, const double *R, double *x)
{
    (void)G;
    double a[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
    double s = sp_vec_norm(3, a);
    double c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    double t = atan2(s, c);
    if (!isfinite(t)) return SP_ERR_DOMAIN;
    if (c > -0.9) {
        double f = angle_over_sine(t, s);
        for (int i = 0; i < 3; ++i) x[i] = f * a[i];
        return SP_OK;
    }
    /* (R + Rᵀ)/2 − c I = (1 − c) w wᵀ: take the best-conditioned column. */
    double S[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S[3 * i + j] = 0.5 * (R[3 * i + j] + R[3 * j + i]) - (i == j ? c : 0.0);
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (S[4 * i] > S[4 * k]) k = i;
    double w[3] = {S[k], S[3 + k], S[6 + k]};
    double n = sp_vec_norm(3, w);
    if (!(n > 0.0)) return SP_ERR_DOMAIN;
    double sign = sp_vec_dot(3, w, a) < 0.0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; ++i) x[i] = sign * t * w[i] / n;
    return SP_OK;
}

static void so3_cay(const sp_group *G, const double *x, double *g)
{
    (void)G;
    double f = 4.0 / (4.0 + sp_vec_dot(3, x, x));
    so3_poly(x, 1.0, f, 0.5 * f, g);
}

/* cay⁻¹(R) = 4 a / (1 + tr R) with a = vee(R − Rᵀ)/2; undefined for rotations by π. */
static sp_status so3_cay_inv(const sp_group *G, const double *R, double *x)
{
    (void)G;
    double d = 1.0 + R[0] + R[4] + R[8];
    if (!(d > 1e-300)) return SP_ERR_DOMAIN;
    x[0] = 2.0 * (R[7] - R[5]) / d;
    x[1] = 2.0 * (R[2] - R[6]) / d;
    x[2] = 2.0 * (R[3] - R[1]) / d;
    return sp_vec_isfinite(3, x) ? SP_OK : SP_ERR_DOMAIN;
}

static void so3_dexp(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double A, B, C;
    rodrigues_coefficients(sp_vec_norm(3, x), &A, &B, &C);
    so3_poly(x, 1.0, B, C, M);
}

static void so3_dexp_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double t = sp_vec_norm(3, x), t2 = t * t, c;
    if (t < SO3_SERIES_ANGLE)
        c = 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2 * t2 * t2 / 1209600.0;
    else
        c = (1.0 - 0.5 * t / tan(0.5 * t)) / t2;
    so3_poly(x, 1.0, -0.5, c, M);
}

static void so3_dcay(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double f = 2.0 / (4.0 + sp_vec_dot(3, x, x));
    so3_poly(x, 2.0 * f, f, 0.0, M);
}

static void so3_dcay_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    so3_poly(x, 1.0, -0.5, 0.0, M);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[3 * i + j] += 0.25 * x[i] * x[j];
}

/* D_cay(x, v) = −4/s² f xᵀ + 2/s v̂, s = 4 + |x|², f = 2v + v × x. */
static void so3_dcay_T_deriv(const sp_group *G, const double *x, const double *v, double *M)
{
    double s = 4.0 + sp_vec_dot(3, x, x), f[3];
    sp_cross(v, x, f);
    for (int i = 0; i < 3; ++i) f[i] += 2.0 * v[i];
    so3_hat(G, v, M);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[3 * i + j] = 2.0 / s * M[3 * i + j] - 4.0 / (s * s) * f[i] * x[j];
}

/* The closed forms of a'/θ and b'/θ cancel far more than those of A, B, C: at
 * θ = 0.1 they lose five digits (relative errors 1e-11 and 1e-10, a 1e-14 relative
 * jump in D_exp at a switch at 0.1). Their series, two terms longer than the
 * standard truncation, are used up to 0.5, beyond which the closed forms are accurate to round-off. */
#define SO3_DERIV_SERIES_ANGLE 0.5

/* a'/θ and b'/θ for a = B(θ), b = C(θ):
 * a'/θ = Σₖ (−1)ᵏ 2k θ^(2k−2)/(2k+2)!, b'/θ = Σₖ (−1)ᵏ 2k θ^(2k−2)/(2k+3)!, k ≥ 1. */
static void rodrigues_derivatives(double t, double *da, double *db)
{
    double t2 = t * t;
    if (t < SO3_DERIV_SERIES_ANGLE) {
        *da =
            -1.0 / 12.0 +
            t2 * (1.0 / 180.0 + t2 * (-1.0 / 6720.0 +
                                      t2 * (1.0 / 453600.0 + t2 * (-1.0 / 47900160.0 +
                                                                   t2 * (1.0 / 7264857600.0 - t2 / 1494484992000.0)))));
        *db = -1.0 / 60.0 +
              t2 * (1.0 / 1260.0 +
                    t2 * (-1.0 / 60480.0 +
                          t2 * (1.0 / 4989600.0 +
                                t2 * (-1.0 / 622702080.0 + t2 * (1.0 / 108972864000.0 - t2 / 25406244864000.0)))));
    } else {
        double s = sin(t), c = cos(t);
        *da = (t * s - 2.0 * (1.0 - c)) / (t2 * t2);
        *db = (t * (1.0 - c) - 3.0 * (t - s)) / (t2 * t2 * t);
    }
}

/* D_exp(x, v) = −(a'/θ)(x×v)xᵀ + a v̂ + (b'/θ)(x×(x×v))xᵀ + b((x·v)I + x vᵀ − 2 v xᵀ). */
static void so3_dexp_T_deriv(const sp_group *G, const double *x, const double *v, double *M)
{
    double t = sp_vec_norm(3, x), A, a, b, da, db, xv[3], xxv[3];
    rodrigues_coefficients(t, &A, &a, &b);
    rodrigues_derivatives(t, &da, &db);
    sp_cross(x, v, xv);
    sp_cross(x, xv, xxv);
    double dot = sp_vec_dot(3, x, v);
    so3_hat(G, v, M);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            M[3 * i + j] = a * M[3 * i + j] + (-da * xv[i] + db * xxv[i]) * x[j] +
                           b * ((i == j ? dot : 0.0) + x[i] * v[j] - 2.0 * v[i] * x[j]);
}

static void so3_ad(const sp_group *G, const double *x, const double *y, double *out)
{
    (void)G;
    sp_cross(x, y, out);
}

/* Σ_{j<terms} c_j ad_x^j y with ad_x = x×: since ad_x³ = −|x|² ad_x, every odd power is
 * (−|x|²)^k ad_x and every even one from 2 on (−|x|²)^k ad_x², so the series is
 * c0 y + (c1 − c3|x|² + c5|x|⁴ …) x×y + (c2 − c4|x|² + c6|x|⁴ …) x×(x×y): two cross
 * products instead of one per term. */
static void so3_ad_series(const sp_group *G, int terms, const double *c, const double *x, const double *y,
                          double *out)
{
    (void)G;
    const double xx = sp_vec_dot(3, x, x);
    double odd = 0.0, even = 0.0, power = 1.0;
    for (int j = 1; j < terms; j += 2, power *= -xx) odd += c[j] * power;
    power = 1.0;
    for (int j = 2; j < terms; j += 2, power *= -xx) even += c[j] * power;
    double u[3], w[3];
    sp_cross(x, y, u);
    sp_cross(x, u, w);
    for (int r = 0; r < 3; ++r) out[r] = (terms > 0 ? c[0] * y[r] : 0.0) + odd * u[r] + even * w[r];
}

/* ad*_x m = m × x. */
static void so3_ad_star(const sp_group *G, const double *x, const double *m, double *out)
{
    (void)G;
    sp_cross(m, x, out);
}

static void so3_Ad(const sp_group *G, const double *g, const double *x, double *out) { so3_act(G, g, x, out); }

/* Ad*_g m = gᵀ m. */
static void so3_Ad_star(const sp_group *G, const double *g, const double *m, double *out)
{
    (void)G;
    mat3_tvec(g, m, out);
}

static const sp_group so3_type = {
    .name = "SO3",
    .dim = 3,
    .elem_size = 9,
    .mat_dim = 3,
    .act_dim = 3,
    .identity = so3_identity,
    .compose = so3_compose,
    .inverse = so3_inverse,
    .act = so3_act,
    .hat = so3_hat,
    .vee = so3_vee,
    .exp = so3_exp,
    .log = so3_log,
    .cay = so3_cay,
    .cay_inv = so3_cay_inv,
    .dexp = so3_dexp,
    .dexp_inv = so3_dexp_inv,
    .dcay = so3_dcay,
    .dcay_inv = so3_dcay_inv,
    .dexp_T_deriv = so3_dexp_T_deriv,
    .dcay_T_deriv = so3_dcay_T_deriv,
    .ad = so3_ad,
    .ad_series = so3_ad_series,
    .ad_star = so3_ad_star,
    .Ad = so3_Ad,
    .Ad_star = so3_Ad_star,
};

const sp_group *const sp_group_so3 = &so3_type;
