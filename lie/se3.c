/* SE(3): rigid motions of space, stored as row-major 4x4 homogeneous matrices
 *
 *     g = [ R  t ]      R ∈ SO(3), t ∈ R³,
 *         [ 0  1 ],
 *
 * whose last row is kept exactly (0, 0, 0, 1) by every operation. The algebra
 * se(3) ≅ R⁶ is ordered x = (ω, v): the angular velocity first, then the body linear
 * velocity, and hat(ω, v) = [[ω̂, v], [0, 0]] with ω̂ the hat of so(3) (lie/so3.c), so
 * that vee reads ω from the same entries as SO(3) does and v from the last column. The
 * group acts on R³ by g·y = R y + t (act_dim 3, homogeneous coordinates).
 *
 * The rotation part of every map is the SO(3) group's own (sp_group_so3 is called for
 * it); only what couples ω and v is new here. Below, W = ω̂ and V = v̂ (3x3), θ = |ω|,
 * A = dexp^SO(3)_ω = I + B W + C W² with B = (1 − cos θ)/θ², C = (θ − sin θ)/θ³, and
 * f = 4/(4 + θ²). As on SE(2), blocks are written [[rows of ω], [rows of v]].
 *
 *     ad_x      = [[W, 0], [V, W]],            ([x, y] = (ω×η, ω×w − η×v) for y = (η, w)),
 *     Ad_g      = [[R, 0], [t̂ R, R]],         Ad*_g = (Ad_g)ᵀ, ad*_x = (ad_x)ᵀ,
 *     exp(x)    = (exp^SO(3)(ω), A v),        (A = V(ω) = I + B W + C W², Rodrigues' V),
 *     log(g)    = (ω, A(ω)⁻¹ t),  ω = log^SO(3)(R)  (A⁻¹ = dexp⁻¹^SO(3)_ω; as on SO(3), the
 *                 principal logarithm, one of the two at angle π, where A is still regular),
 *     cay(x)    = (I − x̂/2)⁻¹(I + x̂/2) = (cay^SO(3)(ω), L⁻¹ v),  L = I − W/2,
 *                 L⁻¹ = I + (f/2) W + (f/4) W² = (I + cay^SO(3)(ω))/2,
 *     cay⁻¹(g)  = (ω, (I − W/2) t),  ω = cay⁻¹^SO(3)(R)  (SP_ERR_DOMAIN at angle π).
 *
 * Right-trivialised differentials (sp_lie.h). The exponential's is the series
 * dexp_x = Σ ad_xᵏ/(k+1)!; ad_x is block lower triangular, so
 *
 *     dexp_x   = [[A, 0], [Q, A]],
 *     Q(ω, v)  = Σₖ 1/(k+1)! Σ_{i+j=k−1} Wⁱ V Wʲ
 *              = ½V + c₂ (WV + VW + WVW) + c₃ (W²V + VW² − 3WVW) + c₄ (WVW² + W²VW),
 *     c₂ = (θ − sin θ)/θ³,  c₃ = (θ² + 2cos θ − 2)/(2θ⁴),  c₄ = (2θ − 3 sin θ + θ cos θ)/(2θ⁵)
 *
 * (the closed form of Q reduces the powers of W by W³ = −θ²W; it is Barfoot's coupling
 * block of the SE(3) Jacobian with his (ρ, φ) ordering turned around). The inverse is that
 * of a block triangular matrix,
 *
 *     dexp⁻¹_x = [[A⁻¹, 0], [−A⁻¹ Q A⁻¹, A⁻¹]],   A⁻¹ = I − ½W + e W² (SO(3)'s dexp⁻¹).
 *
 * The Cayley map's, from d/ds cay(x + s y) cay(x)⁻¹ = (I − x̂/2)⁻¹ ŷ (I + x̂/2)⁻¹ and its
 * inverse z ↦ z − ½[x, z] − ¼ x̂ẑx̂ (with x̂ẑx̂ = (−(ω·η) ω, ω×(η×v)) for z = (η, w)):
 *
 *     dcay_x   = [[f (I + W/2), 0], [(f/2) V (I + W/2), L⁻¹]]     (f (I + W/2) = dcay^SO(3)_ω),
 *     dcay⁻¹_x = [[I − ½W + ¼ωωᵀ, 0], [−½V + ¼WV, I − ½W]].
 *
 * D_τ(x, u) = ∂ₓ[dτ_xᵀ u] for u = (u_ω, u_v), differentiated exactly:
 *
 *     dexp_xᵀ u = (Aᵀu_ω + Qᵀu_v, Aᵀu_v),  Qᵀ = −½V + c₂(VW + WV − WVW) + c₃(3WVW − VW² − W²V)
 *                                              + c₄(W²VW + WVW²),
 *     D_exp    = [[D^SO(3)_exp(ω, u_ω) + ∂_ω(Qᵀu_v), ∂_v(Qᵀu_v)], [D^SO(3)_exp(ω, u_v), 0]],
 *
 * where each word in W and V applied to u_v is differentiated by the product rule
 * (∂_ω(W y) = W ∂_ω y − ŷ, and likewise for V and v) and each coefficient by
 * ∂_ω cₖ = (cₖ'/θ) ωᵀ;
 *
 *     dcay_xᵀ u = ((dcay^SO(3)_ω)ᵀ a, (I + W/2)⁻¹ u_v),  a = u_ω − ½ v × u_v,
 *     D_cay    = [[D^SO(3)_cay(ω, a), ½ (dcay^SO(3)_ω)ᵀ û_v], [½ (I + W/2)⁻¹ ŷ, 0]],
 *
 * with y = (I + W/2)⁻¹ u_v (from (I + W/2) y = u_v: ∂_ω y = ½ (I + W/2)⁻¹ ŷ), and
 * (I + W/2)⁻¹ = (L⁻¹)ᵀ.
 *
 * The coefficients c₂, c₃, c₄ and c₂'/θ, c₃'/θ, c₄'/θ are even functions of θ; below θ = 2
 * they are summed from their Taylor series (cₖ = Σⱼ (−1)ʲ mⱼ θ²ʲ/(2j+k+1)!, with mⱼ = 1
 * for c₂, c₃ and mⱼ = j + 1 for c₄), where the closed forms cancel (c₄'/θ loses about
 * four digits at θ = 1); above, the closed forms lose at most a digit or two, and the worst
 * of them (c₄, c₄'/θ) enter the maps weighted by θ³ and θ⁴, which keeps the maps at
 * round-off (tests/test_lie.c measures them against long-double references). */
#include <math.h>
#include <string.h>

#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

/* Below this θ every coupling coefficient is summed from its series. */
#define SE3_SERIES_ANGLE 2.0

/* ------------------------------------------------------------------ 3x3 helpers -- */

static void hat3(const double *a, double *A)
{
    A[0] = 0.0, A[1] = -a[2], A[2] = a[1];
    A[3] = a[2], A[4] = 0.0, A[5] = -a[0];
    A[6] = -a[1], A[7] = a[0], A[8] = 0.0;
}

/* C = A B (3x3); C may alias A or B. */
static void mul3(const double *A, const double *B, double *C)
{
    double T[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    memcpy(C, T, sizeof T);
}

/* M = α I + β ŵ + γ ŵ² (ŵ² = wwᵀ − |w|² I). */
static void poly3(const double *w, double alpha, double beta, double gamma, double *M)
{
    const double d = alpha - gamma * sp_vec_dot(3, w, w);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[3 * i + j] = gamma * w[i] * w[j] + (i == j ? d : 0.0);
    M[1] -= beta * w[2], M[2] += beta * w[1];
    M[3] += beta * w[2], M[5] -= beta * w[0];
    M[6] -= beta * w[1], M[7] += beta * w[0];
}

/* Writes the 6x6 matrix M = [B00 B01; B10 B11] from its 3x3 blocks (NULL: a zero block). */
static void put_blocks(double *M, const double *B00, const double *B01, const double *B10, const double *B11)
{
    const double *B[4] = {B00, B01, B10, B11};
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) M[6 * (3 * (b / 2) + i) + 3 * (b % 2) + j] = B[b] ? B[b][3 * i + j] : 0.0;
}

/* ----------------------------------------------------------------- coefficients -- */

/* The coupling coefficients of Q and their derivatives divided by θ. */
typedef struct {
    double c2, c3, c4; /* (θ − sin θ)/θ³, (θ² + 2cos θ − 2)/(2θ⁴), (2θ − 3sin θ + θcos θ)/(2θ⁵) */
    double d2, d3, d4; /* c₂'/θ, c₃'/θ, c₄'/θ */
} se3_coeffs;

/* Σ_{j≥0} (−1)ʲ mⱼ wʲ/(2j+n)! and its derivative in θ divided by θ, Σ_{j≥1} (−1)ʲ mⱼ 2j w^(j−1)/(2j+n)!,
 * with w = θ² ≤ 4 and mⱼ = 1, or j + 1 when `weighted`; the terms fall by w/((2j+n+1)(2j+n+2)). */
static void alt_series(int n, int weighted, double w, double *sum, double *deriv)
{
    double u = 1.0; /* (−1)ʲ wʲ/(2j+n)! */
    for (int k = 2; k <= n; ++k) u /= (double)k;
    double s = 0.0, ds = 0.0, wpow_prev = 0.0; /* (−1)ʲ w^(j−1)/(2j+n)! for the derivative */
    for (int j = 0; j < 40; ++j) {
        const double m = weighted ? (double)(j + 1) : 1.0;
        const double term = m * u, dterm = j > 0 ? 2.0 * j * m * wpow_prev : 0.0;
        s += term, ds += dterm;
        if (j > 1 && fabs(term) <= 1e-18 * fabs(s) && fabs(dterm) <= 1e-18 * fabs(ds)) break;
        /* next: u_{j+1} = −u_j w/((2j+n+1)(2j+n+2)), and w^j/(2j+n+2)!·(−1)^(j+1) for the derivative */
        const double f = 1.0 / ((double)(2 * j + n + 1) * (double)(2 * j + n + 2));
        wpow_prev = -(u * f);
        u *= -w * f;
    }
    *sum = s;
    *deriv = ds;
}

static se3_coeffs coupling_coefficients(double t)
{
    se3_coeffs k;
    const double w = t * t;
    if (t < SE3_SERIES_ANGLE) {
        alt_series(3, 0, w, &k.c2, &k.d2);
        alt_series(4, 0, w, &k.c3, &k.d3);
        alt_series(5, 1, w, &k.c4, &k.d4);
        return k;
    }
    const double s = sin(t), c = cos(t), sh = sin(0.5 * t), omc = 2.0 * sh * sh; /* 1 − cos θ */
    const double w2 = w * w;
    k.c2 = (t - s) / (w * t);
    k.c3 = (w - 2.0 * omc) / (2.0 * w2);
    k.c4 = (2.0 * t - 3.0 * s + t * c) / (2.0 * w2 * t);
    k.d2 = (t * omc - 3.0 * (t - s)) / (w2 * t);
    k.d3 = (4.0 * omc - w - t * s) / (w2 * w);
    k.d4 = (15.0 * s - 8.0 * t - 7.0 * t * c - w * s) / (2.0 * w2 * w * t);
    return k;
}

/* Q(ω, v), the coupling block of dexp_x. */
static void coupling_block(const double *om, const double *v, const se3_coeffs *k, double *Q)
{
    double W[9], V[9], WV[9], VW[9], WVW[9], W2V[9], VW2[9], WVW2[9], W2VW[9];
    hat3(om, W);
    hat3(v, V);
    mul3(W, V, WV);
    mul3(V, W, VW);
    mul3(WV, W, WVW);
    mul3(W, WV, W2V);
    mul3(VW, W, VW2);
    mul3(WVW, W, WVW2);
    mul3(W, WVW, W2VW);
    for (int i = 0; i < 9; ++i)
        Q[i] = 0.5 * V[i] + k->c2 * (WV[i] + VW[i] + WVW[i]) + k->c3 * (W2V[i] + VW2[i] - 3.0 * WVW[i]) +
               k->c4 * (WVW2[i] + W2VW[i]);
}

/* A word in W and V applied to a vector, with its Jacobians in ω and in v. */
typedef struct {
    double y[3], Jw[9], Jv[9];
} se3_word;

/* (W y, ∂_ω: W J_ω − ŷ, ∂_v: W J_v) when `by_omega`, else the same with V and v. */
static se3_word word_apply(const se3_word *a, const double *om, const double *v, int by_omega)
{
    se3_word b;
    double M[9], Y[9];
    hat3(by_omega ? om : v, M);
    hat3(a->y, Y);
    sp_mat_vec(3, 3, M, a->y, b.y);
    mul3(M, a->Jw, b.Jw);
    mul3(M, a->Jv, b.Jv);
    double *J = by_omega ? b.Jw : b.Jv;
    for (int i = 0; i < 9; ++i) J[i] -= Y[i];
    return b;
}

/* acc += c·word, and c'/θ (word.y) ωᵀ into ∂_ω (dc: the coefficient's derivative over θ). */
static void word_accumulate(se3_word *acc, double c, double dc, const se3_word *a, const double *om)
{
    for (int i = 0; i < 3; ++i) {
        acc->y[i] += c * a->y[i];
        for (int j = 0; j < 3; ++j) {
            acc->Jw[3 * i + j] += c * a->Jw[3 * i + j] + dc * a->y[i] * om[j];
            acc->Jv[3 * i + j] += c * a->Jv[3 * i + j];
        }
    }
}

/* Qᵀu with its Jacobians in ω and v. */
static se3_word coupling_transpose_apply(const double *om, const double *v, const double *u)
{
    const se3_coeffs k = coupling_coefficients(sp_vec_norm(3, om));
    se3_word u0;
    memset(&u0, 0, sizeof u0);
    sp_vec_copy(3, u, u0.y);
    const se3_word a = word_apply(&u0, om, v, 1); /* W u */
    const se3_word b = word_apply(&a, om, v, 0);  /* V W u */
    const se3_word c = word_apply(&b, om, v, 1);  /* W V W u */
    const se3_word d = word_apply(&c, om, v, 1);  /* W² V W u */
    const se3_word e = word_apply(&a, om, v, 1);  /* W² u */
    const se3_word f = word_apply(&e, om, v, 0);  /* V W² u */
    const se3_word g = word_apply(&f, om, v, 1);  /* W V W² u */
    const se3_word h = word_apply(&u0, om, v, 0); /* V u */
    const se3_word i = word_apply(&h, om, v, 1);  /* W V u */
    const se3_word j = word_apply(&i, om, v, 1);  /* W² V u */
    se3_word acc;
    memset(&acc, 0, sizeof acc);
    word_accumulate(&acc, -0.5, 0.0, &h, om);
    word_accumulate(&acc, k.c2, k.d2, &b, om);
    word_accumulate(&acc, k.c2, k.d2, &i, om);
    word_accumulate(&acc, 3.0 * k.c3 - k.c2, 3.0 * k.d3 - k.d2, &c, om);
    word_accumulate(&acc, -k.c3, -k.d3, &f, om);
    word_accumulate(&acc, -k.c3, -k.d3, &j, om);
    word_accumulate(&acc, k.c4, k.d4, &d, om);
    word_accumulate(&acc, k.c4, k.d4, &g, om);
    return acc;
}

/* ------------------------------------------------------------------- the group -- */

#define SO3 sp_group_so3

void sp_se3_from_pose(const double *R, const double *t, double *g)
{
    for (int i = 0; i < 3; ++i) {
        g[4 * i] = R[3 * i], g[4 * i + 1] = R[3 * i + 1], g[4 * i + 2] = R[3 * i + 2];
        g[4 * i + 3] = t[i];
    }
    g[12] = 0.0, g[13] = 0.0, g[14] = 0.0, g[15] = 1.0;
}

void sp_se3_to_pose(const double *g, double *R, double *t)
{
    for (int i = 0; i < 3; ++i) {
        R[3 * i] = g[4 * i], R[3 * i + 1] = g[4 * i + 1], R[3 * i + 2] = g[4 * i + 2];
        t[i] = g[4 * i + 3];
    }
}

static void se3_identity(const sp_group *G, double *g)
{
    (void)G;
    sp_mat_identity(4, g);
}

static void se3_compose(const sp_group *G, const double *a, const double *b, double *ab)
{
    (void)G;
    double r[12];
    for (int i = 0; i < 3; ++i) {
        const double *ar = a + 4 * i;
        for (int j = 0; j < 4; ++j) r[4 * i + j] = ar[0] * b[j] + ar[1] * b[4 + j] + ar[2] * b[8 + j];
        r[4 * i + 3] += ar[3];
    }
    memcpy(ab, r, sizeof r);
    ab[12] = 0.0, ab[13] = 0.0, ab[14] = 0.0, ab[15] = 1.0;
}

/* (R, t)⁻¹ = (Rᵀ, −Rᵀ t). */
static void se3_inverse(const sp_group *G, const double *g, double *gi)
{
    (void)G;
    double r[12];
    for (int i = 0; i < 3; ++i) {
        r[4 * i] = g[i], r[4 * i + 1] = g[4 + i], r[4 * i + 2] = g[8 + i];
        r[4 * i + 3] = -(g[i] * g[3] + g[4 + i] * g[7] + g[8 + i] * g[11]);
    }
    memcpy(gi, r, sizeof r);
    gi[12] = 0.0, gi[13] = 0.0, gi[14] = 0.0, gi[15] = 1.0;
}

static void se3_act(const sp_group *G, const double *g, const double *x, double *y)
{
    (void)G;
    double y0 = g[0] * x[0] + g[1] * x[1] + g[2] * x[2] + g[3];
    double y1 = g[4] * x[0] + g[5] * x[1] + g[6] * x[2] + g[7];
    double y2 = g[8] * x[0] + g[9] * x[1] + g[10] * x[2] + g[11];
    y[0] = y0, y[1] = y1, y[2] = y2;
}

static void se3_hat(const sp_group *G, const double *x, double *X)
{
    (void)G;
    X[0] = 0.0, X[1] = -x[2], X[2] = x[1], X[3] = x[3];
    X[4] = x[2], X[5] = 0.0, X[6] = -x[0], X[7] = x[4];
    X[8] = -x[1], X[9] = x[0], X[10] = 0.0, X[11] = x[5];
    X[12] = 0.0, X[13] = 0.0, X[14] = 0.0, X[15] = 0.0;
}

static void se3_vee(const sp_group *G, const double *X, double *x)
{
    (void)G;
    x[0] = X[9];
    x[1] = X[2];
    x[2] = X[4];
    x[3] = X[3];
    x[4] = X[7];
    x[5] = X[11];
}

static void se3_exp(const sp_group *G, const double *x, double *g)
{
    (void)G;
    double R[9], A[9], t[3];
    SO3->exp(SO3, x, R);
    SO3->dexp(SO3, x, A);
    sp_mat_vec(3, 3, A, x + 3, t);
    sp_se3_from_pose(R, t, g);
}

static sp_status se3_log(const sp_group *G, const double *g, double *x)
{
    (void)G;
    if (!sp_vec_isfinite(16, g)) return SP_ERR_DOMAIN;
    double R[9], t[3], Ai[9];
    sp_se3_to_pose(g, R, t);
    sp_status st = SO3->log(SO3, R, x);
    if (st != SP_OK) return st;
    SO3->dexp_inv(SO3, x, Ai);
    sp_mat_vec(3, 3, Ai, t, x + 3);
    return sp_vec_isfinite(6, x) ? SP_OK : SP_ERR_DOMAIN;
}

/* (I − W/2)⁻¹ = I + (f/2) W + (f/4) W², f = 4/(4 + θ²), and its transpose (I + W/2)⁻¹. */
static void half_cayley_factor(const double *om, int transpose, double *M)
{
    const double f = 4.0 / (4.0 + sp_vec_dot(3, om, om));
    poly3(om, 1.0, transpose ? -0.5 * f : 0.5 * f, 0.25 * f, M);
}

static void se3_cay(const sp_group *G, const double *x, double *g)
{
    (void)G;
    double R[9], Li[9], t[3];
    SO3->cay(SO3, x, R);
    half_cayley_factor(x, 0, Li);
    sp_mat_vec(3, 3, Li, x + 3, t);
    sp_se3_from_pose(R, t, g);
}

static sp_status se3_cay_inv(const sp_group *G, const double *g, double *x)
{
    (void)G;
    double R[9], t[3], wt[3];
    sp_se3_to_pose(g, R, t);
    sp_status st = SO3->cay_inv(SO3, R, x);
    if (st != SP_OK) return st;
    sp_cross(x, t, wt);
    for (int i = 0; i < 3; ++i) x[3 + i] = t[i] - 0.5 * wt[i];
    return sp_vec_isfinite(6, x) ? SP_OK : SP_ERR_DOMAIN;
}

static void se3_dexp(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double A[9], Q[9];
    const se3_coeffs k = coupling_coefficients(sp_vec_norm(3, x));
    SO3->dexp(SO3, x, A);
    coupling_block(x, x + 3, &k, Q);
    put_blocks(M, A, NULL, Q, A);
}

static void se3_dexp_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double Ai[9], Q[9], P[9];
    const se3_coeffs k = coupling_coefficients(sp_vec_norm(3, x));
    SO3->dexp_inv(SO3, x, Ai);
    coupling_block(x, x + 3, &k, Q);
    mul3(Ai, Q, P);
    mul3(P, Ai, P);
    for (int i = 0; i < 9; ++i) P[i] = -P[i];
    put_blocks(M, Ai, NULL, P, Ai);
}

static void se3_dcay(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double D[9], V[9], E[9], Li[9];
    SO3->dcay(SO3, x, D);
    hat3(x + 3, V);
    mul3(V, D, E);
    for (int i = 0; i < 9; ++i) E[i] *= 0.5;
    half_cayley_factor(x, 0, Li);
    put_blocks(M, D, NULL, E, Li);
}

static void se3_dcay_inv(const sp_group *G, const double *x, double *M)
{
    (void)G;
    double D[9], W[9], V[9], WV[9], E[9], L[9];
    SO3->dcay_inv(SO3, x, D);
    hat3(x, W);
    hat3(x + 3, V);
    mul3(W, V, WV);
    for (int i = 0; i < 9; ++i) E[i] = -0.5 * V[i] + 0.25 * WV[i], L[i] = (i % 4 == 0) - 0.5 * W[i];
    put_blocks(M, D, NULL, E, L);
}

static void se3_dexp_T_deriv(const sp_group *G, const double *x, const double *u, double *M)
{
    (void)G;
    double Dw[9], Dv[9];
    SO3->dexp_T_deriv(SO3, x, u, Dw);
    SO3->dexp_T_deriv(SO3, x, u + 3, Dv);
    const se3_word q = coupling_transpose_apply(x, x + 3, u + 3);
    for (int i = 0; i < 9; ++i) Dw[i] += q.Jw[i];
    put_blocks(M, Dw, q.Jv, Dv, NULL);
}

static void se3_dcay_T_deriv(const sp_group *G, const double *x, const double *u, double *M)
{
    (void)G;
    double a[3], vu[3], Dtop[9], D[9], U[9], B[9], Pi[9], y[3], Y[9], C[9];
    sp_cross(x + 3, u + 3, vu);
    for (int i = 0; i < 3; ++i) a[i] = u[i] - 0.5 * vu[i];
    SO3->dcay_T_deriv(SO3, x, a, Dtop);
    /* ½ (dcay^SO(3))ᵀ û_v */
    SO3->dcay(SO3, x, D);
    hat3(u + 3, U);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) B[3 * i + j] = 0.5 * (D[i] * U[j] + D[3 + i] * U[3 + j] + D[6 + i] * U[6 + j]);
    /* ½ (I + W/2)⁻¹ ŷ, y = (I + W/2)⁻¹ u_v */
    half_cayley_factor(x, 1, Pi);
    sp_mat_vec(3, 3, Pi, u + 3, y);
    hat3(y, Y);
    mul3(Pi, Y, C);
    for (int i = 0; i < 9; ++i) C[i] *= 0.5;
    put_blocks(M, Dtop, B, C, NULL);
}

/* ad_x y = (ω × η, ω × w + v × η) for y = (η, w). */
static void se3_ad(const sp_group *G, const double *x, const double *y, double *out)
{
    (void)G;
    double a[3], b[3], c[3];
    sp_cross(x, y, a);
    sp_cross(x, y + 3, b);
    sp_cross(x + 3, y, c);
    for (int i = 0; i < 3; ++i) out[i] = a[i], out[3 + i] = b[i] + c[i];
}

/* ad*_x m = (ad_x)ᵀ m = (m_ω × ω + m_v × v, m_v × ω). */
static void se3_ad_star(const sp_group *G, const double *x, const double *m, double *out)
{
    (void)G;
    double a[3], b[3], c[3];
    sp_cross(m, x, a);
    sp_cross(m + 3, x + 3, b);
    sp_cross(m + 3, x, c);
    for (int i = 0; i < 3; ++i) out[i] = a[i] + b[i], out[3 + i] = c[i];
}

/* Ad_g x = (R ω, R v + t × R ω). */
static void se3_Ad(const sp_group *G, const double *g, const double *x, double *out)
{
    (void)G;
    double R[9], t[3], Rw[3], Rv[3], tRw[3];
    sp_se3_to_pose(g, R, t);
    sp_mat_vec(3, 3, R, x, Rw);
    sp_mat_vec(3, 3, R, x + 3, Rv);
    sp_cross(t, Rw, tRw);
    for (int i = 0; i < 3; ++i) out[i] = Rw[i], out[3 + i] = Rv[i] + tRw[i];
}

/* Ad*_g m = (Ad_g)ᵀ m = (Rᵀ(m_ω + m_v × t), Rᵀ m_v). */
static void se3_Ad_star(const sp_group *G, const double *g, const double *m, double *out)
{
    (void)G;
    double R[9], t[3], a[3], mt[3], o[6];
    sp_se3_to_pose(g, R, t);
    sp_cross(m + 3, t, mt);
    for (int i = 0; i < 3; ++i) a[i] = m[i] + mt[i];
    sp_mat_tvec(3, 3, R, a, o);
    sp_mat_tvec(3, 3, R, m + 3, o + 3);
    memcpy(out, o, sizeof o);
}

static const sp_group se3_type = {
    .name = "SE3",
    .dim = 6,
    .elem_size = 16,
    .mat_dim = 4,
    .act_dim = 3,
    .identity = se3_identity,
    .compose = se3_compose,
    .inverse = se3_inverse,
    .act = se3_act,
    .hat = se3_hat,
    .vee = se3_vee,
    .exp = se3_exp,
    .log = se3_log,
    .cay = se3_cay,
    .cay_inv = se3_cay_inv,
    .dexp = se3_dexp,
    .dexp_inv = se3_dexp_inv,
    .dcay = se3_dcay,
    .dcay_inv = se3_dcay_inv,
    .dexp_T_deriv = se3_dexp_T_deriv,
    .dcay_T_deriv = se3_dcay_T_deriv,
    .ad = se3_ad,
    .ad_star = se3_ad_star,
    .Ad = se3_Ad,
    .Ad_star = se3_Ad_star,
};

const sp_group *const sp_group_se3 = &se3_type;
