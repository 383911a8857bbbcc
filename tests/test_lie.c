/* Conformance suite for the Lie-group interface (lie/sp_lie.h).
 *
 * Every registered group (sp_group_at) is checked with both retractions
 * (sp_retraction_at) against references computed here, independently of the library:
 * matrix exponentials and Cayley maps of hat matrices in long double, central finite
 * differences of the group maps, and the retraction identities. Group elements are
 * compared through the matrices they stand for (as_matrix), so the same checks serve
 * SO(3), SE(2) and SE(3) (homogeneous 3x3 and 4x4 matrices) and the affine picture of
 * Rⁿ; round-off tolerances on elements scale with their largest entry (translations are
 * not unit size). Then come tests that target so3.c's small-angle series switch at
 * |x| = 0.1 and the angles 1e-9 and π − 1e-9 (SE(2)'s own closed-form and series checks:
 * test_se2.c), and last SE(3)'s own: closed forms (pure rotations and translations,
 * screws), its SO(3) blocks against the SO(3) group, and every map against long-double
 * references on a grid of angles from 1e-8 to 3 with translations from 1e-3 to 1e3 (the
 * generic sweeps above tie the translation to the angle).
 *
 * Each check sweeps many points from a fixed-seed generator and asserts once on the
 * worst error, printing it. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"

typedef long double ld;

#define MAXM SP_LIE_MAX_MAT
#define MAXD SP_LIE_MAX_DIM
#define NPOINTS 200

/* ---------------------------------------------------------------- random points -- */

/* splitmix64: small, seedable, and local to each test. */
typedef struct {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* A random direction scaled to length `len`. */
static void rng_vector_len(rng *r, int n, double len, double *x)
{
    double s;
    do {
        for (int i = 0; i < n; ++i) x[i] = 2.0 * rng_uniform(r) - 1.0;
        s = sp_vec_norm(n, x);
    } while (s < 1e-3);
    for (int i = 0; i < n; ++i) x[i] *= len / s;
}

/* Lengths spread over (0, rmax]: mostly uniform, every fourth one log-uniform down to
 * 1e-7 so that the small-angle branches get their share. */
static void rng_vector(rng *r, int n, double rmax, double *x)
{
    double u = rng_uniform(r);
    double len = (rng_next(r) & 3) == 0 ? 1e-7 * pow(rmax / 1e-7, u) : rmax * (1e-3 + (1.0 - 1e-3) * u);
    rng_vector_len(r, n, len, x);
}

/* ------------------------------------------------------ long-double matrix tools -- */

static void ld_identity(int n, ld *A)
{
    for (int i = 0; i < n * n; ++i) A[i] = 0.0L;
    for (int i = 0; i < n; ++i) A[i * n + i] = 1.0L;
}

static void ld_mul(int n, const ld *A, const ld *B, ld *C)
{
    ld T[MAXM * MAXM];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            ld s = 0.0L;
            for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
            T[i * n + j] = s;
        }
    memcpy(C, T, sizeof(ld) * (size_t)(n * n));
}

/* Inverse by Gauss–Jordan elimination with partial pivoting. */
static void ld_inverse(int n, const ld *A, ld *Ainv)
{
    ld W[MAXM * MAXM];
    memcpy(W, A, sizeof(ld) * (size_t)(n * n));
    ld_identity(n, Ainv);
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabsl(W[r * n + c]) > fabsl(W[p * n + c])) p = r;
        cr_assert(W[p * n + c] != 0.0L, "singular matrix in the test's reference inverse");
        for (int j = 0; j < n; ++j) {
            ld t = W[c * n + j];
            W[c * n + j] = W[p * n + j], W[p * n + j] = t;
            t = Ainv[c * n + j];
            Ainv[c * n + j] = Ainv[p * n + j], Ainv[p * n + j] = t;
        }
        ld d = W[c * n + c];
        for (int j = 0; j < n; ++j) W[c * n + j] /= d, Ainv[c * n + j] /= d;
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            ld f = W[r * n + c];
            for (int j = 0; j < n; ++j) W[r * n + j] -= f * W[c * n + j], Ainv[r * n + j] -= f * Ainv[c * n + j];
        }
    }
}

/* e^A by scaling and squaring with a 30-term Taylor series: accurate to long-double
 * round-off for the norms used here (|A| ≤ 2π). */
static void ld_expm(int n, const ld *A, ld *E)
{
    ld nrm = 0.0L, S[MAXM * MAXM], term[MAXM * MAXM];
    for (int i = 0; i < n * n; ++i) nrm += A[i] * A[i];
    nrm = sqrtl(nrm);
    int s = 0;
    while (nrm > 0.25L) nrm *= 0.5L, ++s;
    ld scale = ldexpl(1.0L, -s);
    for (int i = 0; i < n * n; ++i) S[i] = A[i] * scale;
    ld_identity(n, E);
    ld_identity(n, term);
    for (int k = 1; k <= 30; ++k) {
        ld_mul(n, term, S, term);
        for (int i = 0; i < n * n; ++i) term[i] /= (ld)k, E[i] += term[i];
    }
    while (s-- > 0) ld_mul(n, E, E, E);
}

static void ld_from(int n, const double *a, ld *b)
{
    for (int i = 0; i < n; ++i) b[i] = a[i];
}

/* Frobenius distances (double against long double, long double against long double)
 * and norm. */
static double dist_ld(int n, const double *a, const ld *b)
{
    ld s = 0.0L;
    for (int i = 0; i < n; ++i) s += ((ld)a[i] - b[i]) * ((ld)a[i] - b[i]);
    return (double)sqrtl(s);
}

static double ld_dist(int n, const ld *a, const ld *b)
{
    ld s = 0.0L;
    for (int i = 0; i < n; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return (double)sqrtl(s);
}

static double norm_ld(int n, const ld *a)
{
    ld s = 0.0L;
    for (int i = 0; i < n; ++i) s += a[i] * a[i];
    return (double)sqrtl(s);
}

/* ------------------------------------------------- group elements as matrices -- */

/* The matrix a group element stands for. Matrix groups store it row-major; Rⁿ stores
 * the translation t of the affine matrix [[I, t], [0, 1]] (sp_lie.h). A group with
 * another representation must be taught to this helper. */
static void as_matrix(const sp_group *G, const double *g, ld *M)
{
    int m = G->mat_dim;
    if (G->elem_size == m * m) {
        ld_from(m * m, g, M);
        return;
    }
    cr_assert(G->elem_size == G->dim && m == G->dim + 1, "%s: unknown element representation", G->name);
    ld_identity(m, M);
    for (int i = 0; i < G->dim; ++i) M[i * m + G->dim] = g[i];
}

static void hat_ld(const sp_group *G, const double *x, ld *X)
{
    double Xd[MAXM * MAXM];
    G->hat(G, x, Xd);
    ld_from(G->mat_dim * G->mat_dim, Xd, X);
}

/* vee of a long-double matrix, through the group's vee (rounding to double first). */
static void vee_ld(const sp_group *G, const ld *X, double *x)
{
    double Xd[MAXM * MAXM];
    for (int i = 0; i < G->mat_dim * G->mat_dim; ++i) Xd[i] = (double)X[i];
    G->vee(G, Xd, x);
}

/* The largest |entry| of a group element's matrix: the scale of its round-off (1 for
 * rotations, larger for the translations of SE(2) and Rⁿ). */
static double elem_scale(const sp_group *G, const double *g)
{
    ld M[MAXM * MAXM];
    as_matrix(G, g, M);
    double s = 0.0;
    for (int i = 0; i < G->mat_dim * G->mat_dim; ++i) s = fmax(s, (double)fabsl(M[i]));
    return s;
}

/* Distance of a group element from a reference matrix. */
static double elem_dist(const sp_group *G, const double *g, const ld *Ref)
{
    ld M[MAXM * MAXM];
    as_matrix(G, g, M);
    return ld_dist(G->mat_dim * G->mat_dim, M, Ref);
}

/* The n x n matrix of a linear map on the algebra, column by column. */
typedef void (*algebra_map)(const sp_group *G, const double *a, const double *x, double *out);
static void map_matrix(const sp_group *G, algebra_map f, const double *a, double *M)
{
    int n = G->dim;
    for (int j = 0; j < n; ++j) {
        double e[MAXD] = {0}, col[MAXD];
        e[j] = 1.0;
        f(G, a, e, col);
        for (int i = 0; i < n; ++i) M[i * n + j] = col[i];
    }
}

/* The largest |x| the generic sweeps use: below π, so that log and cay_inv are
 * defined and dexp⁻¹ is far from its singularity at 2π. */
#define RMAX 3.0

/* fmax that lets a NaN through, so that a NaN error cannot pass as a small one */
static double worse(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }

/* The worst error of a sweep, and where it occurred (a NaN error sticks). */
typedef struct {
    double err, at;
} worst;

static void worst_note(worst *w, double err, double at)
{
    if (isnan(w->err)) return;
    if (!(err <= w->err)) w->err = err, w->at = at;
}

#define FOR_EACH_GROUP(G) for (size_t gi_ = 0; ((G) = sp_group_at(gi_)) != NULL; ++gi_)
#define FOR_EACH_RETRACTION(T) for (size_t ri_ = 0; ((T) = sp_retraction_at(ri_)) != NULL; ++ri_)

/* ===================================================================== registry == */

Test(lie_conformance, registry_lists_every_group_and_retraction)
{
    const sp_group *G;
    size_t count = 0;
    FOR_EACH_GROUP(G)
    {
        cr_assert(G->name && G->name[0], "group %zu has no name", count);
        cr_assert(G->dim >= 1 && G->dim <= SP_LIE_MAX_DIM, "%s: dim %d", G->name, G->dim);
        cr_assert(G->elem_size >= 1 && G->elem_size <= SP_LIE_MAX_ELEM, "%s: elem_size %d", G->name, G->elem_size);
        cr_assert(G->mat_dim >= 1 && G->mat_dim <= SP_LIE_MAX_MAT, "%s: mat_dim %d", G->name, G->mat_dim);
        cr_assert(G->act_dim >= 1 && G->act_dim <= G->mat_dim, "%s: act_dim %d", G->name, G->act_dim);
        cr_assert(G->identity && G->compose && G->inverse && G->act && G->hat && G->vee && G->exp && G->log && G->cay &&
                      G->cay_inv && G->dexp && G->dexp_inv && G->dcay && G->dcay_inv && G->dexp_T_deriv &&
                      G->dcay_T_deriv && G->ad && G->ad_star && G->Ad && G->Ad_star,
                  "%s: a function of the group table is NULL", G->name);
        cr_assert_eq(sp_group_by_name(G->name), G, "%s: lookup by name does not return the group", G->name);
        for (size_t j = 0; j < count; ++j)
            cr_assert_str_neq(sp_group_at(j)->name, G->name, "group name %s registered twice", G->name);
        ++count;
    }
    cr_assert_geq(count, 9, "expected SO3, SE2, SE3 and R1…R6, found %zu groups", count);
    cr_assert_eq(sp_group_by_name("SO3"), sp_group_so3);
    cr_assert_eq(sp_group_by_name("SE2"), sp_group_se2);
    cr_assert_eq(sp_group_by_name("SE3"), sp_group_se3);
    for (int n = 1; n <= SP_LIE_MAX_DIM; ++n) {
        char name[16];
        snprintf(name, sizeof name, "R%d", n);
        cr_assert_eq(sp_group_by_name(name), sp_group_rn(n), "%s is not sp_group_rn(%d)", name, n);
        cr_assert_eq(sp_group_rn(n)->dim, n);
    }
    cr_assert_null(sp_group_rn(0));
    cr_assert_null(sp_group_rn(SP_LIE_MAX_DIM + 1));
    cr_assert_null(sp_group_by_name("SO4"));
    cr_assert_null(sp_group_by_name(NULL));

    const sp_retraction *T;
    count = 0;
    FOR_EACH_RETRACTION(T)
    {
        cr_assert(T->name && T->tau && T->tau_inv && T->dtau && T->dtau_inv && T->dtau_T_deriv,
                  "retraction %zu is incomplete", count);
        cr_assert_eq(sp_retraction_by_name(T->name), T, "%s: lookup by name", T->name);
        ++count;
    }
    cr_assert_eq(count, 2, "expected the retractions cayley and exp, found %zu", count);
    cr_assert_eq(sp_retraction_by_name("cayley"), sp_retraction_cayley);
    cr_assert_eq(sp_retraction_by_name("exp"), sp_retraction_exp);
    cr_assert_null(sp_retraction_by_name("cay"));
    cr_assert_null(sp_retraction_by_name(NULL));
}

/* ============================================================ algebra structure == */

Test(lie_conformance, hat_vee_and_bracket)
{
    const sp_group *G;
    FOR_EACH_GROUP(G)
    {
        rng r = {11};
        int n = G->dim, m = G->mat_dim;
        worst roundtrip = {0, 0}, bracket = {0, 0}, antisym = {0, 0}, jacobi = {0, 0}, action = {0, 0};
        for (int t = 0; t < NPOINTS; ++t) {
            double a[MAXD], b[MAXD], c[MAXD], X[MAXM * MAXM], back[MAXD];
            rng_vector(&r, n, RMAX, a);
            rng_vector(&r, n, RMAX, b);
            rng_vector(&r, n, RMAX, c);
            G->hat(G, a, X);
            G->vee(G, X, back);
            worst_note(&roundtrip, sp_vec_dist(n, a, back), sp_vec_norm(n, a));

            /* [â, b̂] = (ad_a b)^ */
            ld A[MAXM * MAXM], B[MAXM * MAXM], AB[MAXM * MAXM], BA[MAXM * MAXM], H[MAXM * MAXM];
            double ab[MAXD], ba[MAXD];
            hat_ld(G, a, A);
            hat_ld(G, b, B);
            ld_mul(m, A, B, AB);
            ld_mul(m, B, A, BA);
            G->ad(G, a, b, ab);
            hat_ld(G, ab, H);
            for (int i = 0; i < m * m; ++i) AB[i] -= BA[i];
            double scale = sp_vec_norm(n, a) * sp_vec_norm(n, b);
            worst_note(&bracket, ld_dist(m * m, AB, H) / scale, sp_vec_norm(n, a));
            G->ad(G, b, a, ba);
            for (int i = 0; i < n; ++i) ba[i] += ab[i];
            worst_note(&antisym, sp_vec_norm(n, ba) / scale, sp_vec_norm(n, a));

            /* Jacobi: [a,[b,c]] + [b,[c,a]] + [c,[a,b]] = 0 */
            double u[MAXD], v[MAXD], sum[MAXD] = {0};
            G->ad(G, b, c, u), G->ad(G, a, u, v), sp_vec_axpy(n, 1.0, v, sum);
            G->ad(G, c, a, u), G->ad(G, b, u, v), sp_vec_axpy(n, 1.0, v, sum);
            G->ad(G, a, b, u), G->ad(G, c, u, v), sp_vec_axpy(n, 1.0, v, sum);
            worst_note(&jacobi, sp_vec_norm(n, sum) / (scale * sp_vec_norm(n, c)), 0);

            /* Where hat matrices act linearly on the algebra itself (so(3): act_dim =
             * mat_dim = dim, not the homogeneous action of SE(2)), â b = ad_a b = a × b. */
            if (m == n && G->act_dim == n) {
                double Xb[MAXD], cross[3];
                sp_mat_vec(n, n, X, b, Xb);
                double e = sp_vec_dist(n, Xb, ab);
                if (n == 3) {
                    sp_cross(a, b, cross);
                    e = worse(e, sp_vec_dist(3, Xb, cross));
                }
                worst_note(&action, e / scale, sp_vec_norm(n, a));
            }
        }
        cr_log_info("%s: vee∘hat %.1e, [â,b̂]−(ad_a b)^ %.1e, ad antisymmetry %.1e, Jacobi %.1e, âb−a×b %.1e", G->name,
                    roundtrip.err, bracket.err, antisym.err, jacobi.err, action.err);
        cr_assert_eq(roundtrip.err, 0.0, "%s: vee(hat(a)) != a, error %.3e", G->name, roundtrip.err);
        cr_assert_leq(bracket.err, 1e-15, "%s: |[â,b̂] − (ad_a b)^|/(|a||b|) = %.3e", G->name, bracket.err);
        cr_assert_leq(antisym.err, 1e-16, "%s: |ad_a b + ad_b a|/(|a||b|) = %.3e", G->name, antisym.err);
        cr_assert_leq(jacobi.err, 1e-15, "%s: Jacobi identity violated by %.3e", G->name, jacobi.err);
        cr_assert_leq(action.err, 1e-16, "%s: |â b − ad_a b|/(|a||b|) = %.3e", G->name, action.err);
    }
}

/* ================================================================ group axioms == */

/* y = M [x] for the matrix M of g: directly, or in homogeneous coordinates for
 * affine matrices (act_dim = mat_dim − 1). */
static void act_ld(const sp_group *G, const ld *M, const double *x, ld *y)
{
    int m = G->mat_dim, a = G->act_dim;
    cr_assert(a == m || a == m - 1, "%s: act_dim %d does not fit mat_dim %d", G->name, a, m);
    for (int i = 0; i < a; ++i) {
        y[i] = a == m - 1 ? M[i * m + a] : 0.0L;
        for (int j = 0; j < a; ++j) y[i] += M[i * m + j] * x[j];
    }
}

Test(lie_conformance, group_operations_are_matrix_operations)
{
    const sp_group *G;
    FOR_EACH_GROUP(G)
    {
        rng r = {12};
        int m = G->mat_dim, n = G->dim, e = G->elem_size;
        double id[SP_LIE_MAX_ELEM];
        ld I[MAXM * MAXM];
        G->identity(G, id);
        ld_identity(m, I);
        cr_assert_eq(elem_dist(G, id, I), 0.0, "%s: identity is not the identity matrix", G->name);
        worst unit = {0, 0}, prod = {0, 0}, inv = {0, 0}, cancel = {0, 0}, act = {0, 0}, alias = {0, 0};
        for (int t = 0; t < NPOINTS; ++t) {
            double x[MAXD], y[MAXD], g[SP_LIE_MAX_ELEM], h[SP_LIE_MAX_ELEM], gh[SP_LIE_MAX_ELEM], gi[SP_LIE_MAX_ELEM],
                tmp[SP_LIE_MAX_ELEM];
            rng_vector(&r, n, RMAX, x);
            rng_vector(&r, n, RMAX, y);
            G->exp(G, x, g);
            G->cay(G, y, h);
            ld Mg[MAXM * MAXM], Mh[MAXM * MAXM], P[MAXM * MAXM], Minv[MAXM * MAXM];
            as_matrix(G, g, Mg);
            as_matrix(G, h, Mh);

            G->compose(G, g, id, tmp);
            double u = sp_vec_dist(e, tmp, g);
            G->compose(G, id, g, tmp);
            worst_note(&unit, worse(u, sp_vec_dist(e, tmp, g)), 0);

            G->compose(G, g, h, gh);
            ld_mul(m, Mg, Mh, P);
            worst_note(&prod, elem_dist(G, gh, P), 0);

            G->inverse(G, g, gi);
            ld_inverse(m, Mg, Minv);
            worst_note(&inv, elem_dist(G, gi, Minv), 0);
            G->compose(G, g, gi, tmp);
            worst_note(&cancel, elem_dist(G, tmp, I), 0);

            double v[MAXM], gv[MAXM];
            ld ref[MAXM];
            rng_vector_len(&r, G->act_dim, 1.0, v);
            G->act(G, g, v, gv);
            act_ld(G, Mg, v, ref);
            worst_note(&act, dist_ld(G->act_dim, gv, ref), 0);
            G->act(G, g, v, v); /* y may alias x */
            worst_note(&alias, sp_vec_dist(G->act_dim, v, gv), 0);
        }
        cr_log_info("%s: g·e %.1e, compose %.1e, inverse %.1e, g·g⁻¹ %.1e, act %.1e", G->name, unit.err, prod.err,
                    inv.err, cancel.err, act.err);
        cr_assert_eq(unit.err, 0.0, "%s: composing with the identity changes g by %.3e", G->name, unit.err);
        cr_assert_leq(prod.err, 1e-15, "%s: compose differs from the matrix product by %.3e", G->name, prod.err);
        cr_assert_leq(inv.err, 1e-14, "%s: inverse differs from the matrix inverse by %.3e", G->name, inv.err);
        cr_assert_leq(cancel.err, 1e-14, "%s: |g·g⁻¹ − I| = %.3e", G->name, cancel.err);
        cr_assert_leq(act.err, 1e-15, "%s: act differs from the matrix action by %.3e", G->name, act.err);
        cr_assert_eq(alias.err, 0.0, "%s: act in place differs by %.3e", G->name, alias.err);
    }
}

/* |τ(x)ᵀτ(x) − I| and det τ(x) for SO(3), and τ(−x) = τ(x)ᵀ exactly (so3.c
 * rounds the symmetric part once per pair of entries for this). */
Test(lie_conformance, so3_retractions_are_rotations)
{
    const sp_group *G = sp_group_so3;
    const sp_retraction *T;
    FOR_EACH_RETRACTION(T)
    {
        rng r = {13};
        worst orth = {0, 0}, det = {0, 0}, transpose = {0, 0};
        for (int t = 0; t < 4 * NPOINTS; ++t) {
            double x[3], R[9], RtR[9], I[9], mx[3], Rm[9], Rt[9];
            rng_vector(&r, 3, t % 2 ? RMAX : 20.0, x);
            T->tau(G, x, R);
            for (int i = 0; i < 3; ++i) mx[i] = -x[i];
            T->tau(G, mx, Rm);
            sp_mat_transpose(3, R, Rt);
            worst_note(&transpose, sp_mat_dist(9, Rm, Rt), sp_vec_norm(3, x));
            sp_mat_identity(3, I);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) RtR[3 * i + j] = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
            double d = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                       R[2] * (R[3] * R[7] - R[4] * R[6]);
            worst_note(&orth, sp_mat_dist(9, RtR, I), sp_vec_norm(3, x));
            worst_note(&det, fabs(d - 1.0), sp_vec_norm(3, x));
        }
        cr_log_info("SO3 %s: |τᵀτ − I| %.1e, |det τ − 1| %.1e, |τ(−x) − τ(x)ᵀ| %.1e", T->name, orth.err, det.err,
                    transpose.err);
        cr_assert_eq(transpose.err, 0.0, "SO3 %s: τ(−x) differs from τ(x)ᵀ by %.3e at |x| = %.3g", T->name,
                     transpose.err, transpose.at);
        cr_assert_leq(orth.err, 1e-14, "SO3 %s: |τ(x)ᵀτ(x) − I| = %.3e at |x| = %.3g", T->name, orth.err, orth.at);
        cr_assert_leq(det.err, 1e-14, "SO3 %s: |det τ(x) − 1| = %.3e at |x| = %.3g", T->name, det.err, det.at);
    }
}

/* ============================================================ exp, log and cay == */

/* exp(x) is the matrix exponential of x̂ (for Rⁿ: the translation by x). */
Test(lie_conformance, exp_is_the_matrix_exponential)
{
    const sp_group *G;
    FOR_EACH_GROUP(G)
    {
        rng r = {14};
        int n = G->dim, m = G->mat_dim;
        worst w = {0, 0};
        for (int t = 0; t < NPOINTS + 2; ++t) {
            double x[MAXD], g[SP_LIE_MAX_ELEM];
            if (t < NPOINTS)
                rng_vector(&r, n, SP_PI - 1e-9, x);
            else
                rng_vector_len(&r, n, t == NPOINTS ? 1e-9 : SP_PI - 1e-9, x);
            ld X[MAXM * MAXM], E[MAXM * MAXM];
            hat_ld(G, x, X);
            ld_expm(m, X, E);
            G->exp(G, x, g);
            worst_note(&w, elem_dist(G, g, E), sp_vec_norm(n, x));
        }
        cr_log_info("%s: |exp(x) − e^x̂| ≤ %.1e", G->name, w.err);
        cr_assert_leq(w.err, 2e-15, "%s: |exp(x) − e^x̂| = %.3e at |x| = %.6g", G->name, w.err, w.at);
    }
}

/* log(exp(x)) = x for |x| up to π − 1e-9, including 1e-9 and both sides of so3.c's
 * series switch at 0.1. The error is measured relative to max(|x|, 1e-300) for
 * small x (log must keep relative accuracy there) and absolutely near π. */
Test(lie_conformance, log_inverts_exp)
{
    const sp_group *G;
    const double special[] = {1e-9, 0.1 * (1 - 1e-12), 0.1, 0.1 * (1 + 1e-12), 1.0, SP_PI - 1e-6, SP_PI - 1e-9};
    const int nspecial = (int)(sizeof special / sizeof special[0]);
    FOR_EACH_GROUP(G)
    {
        rng r = {15};
        int n = G->dim;
        worst w = {0, 0};
        for (int t = 0; t < NPOINTS + 5 * nspecial; ++t) {
            double x[MAXD], g[SP_LIE_MAX_ELEM], y[MAXD];
            if (t < NPOINTS)
                rng_vector(&r, n, SP_PI - 1e-9, x);
            else
                rng_vector_len(&r, n, special[(t - NPOINTS) % nspecial], x);
            G->exp(G, x, g);
            sp_status st = G->log(G, g, y);
            cr_assert_eq(st, SP_OK, "%s: log failed (%s) at |x| = %.17g", G->name, sp_status_name(st),
                         sp_vec_norm(n, x));
            double len = sp_vec_norm(n, x);
            worst_note(&w, sp_vec_dist(n, x, y) / fmin(1.0, len), len);
        }
        cr_log_info("%s: |log(exp x) − x|/min(1,|x|) ≤ %.1e", G->name, w.err);
        cr_assert_leq(w.err, 2e-15, "%s: |log(exp x) − x|/min(1,|x|) = %.3e at |x| = %.17g", G->name, w.err, w.at);
    }
}

/* Near π the axis must come from the symmetric part of R: exp(log R) = R to 1e-12
 * for rotations by π − 1e-9, π − 1e-12 and exactly π. */
Test(lie_conformance, so3_log_is_robust_near_pi)
{
    const sp_group *G = sp_group_so3;
    rng r = {16};
    worst w = {0, 0}, angle = {0, 0};
    for (int t = 0; t < 3 * NPOINTS; ++t) {
        double u[3], R[9], x[3], back[9];
        rng_vector_len(&r, 3, 1.0, u);
        int kind = t % 3;
        if (kind < 2) {
            double th = kind == 0 ? SP_PI - 1e-9 : SP_PI - 1e-12;
            double x0[3] = {th * u[0], th * u[1], th * u[2]};
            G->exp(G, x0, R);
        } else { /* R = 2uuᵀ − I, the rotation by exactly π */
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) R[3 * i + j] = 2.0 * u[i] * u[j] - (i == j);
        }
        sp_status st = G->log(G, R, x);
        cr_assert_eq(st, SP_OK, "log failed (%s) near π", sp_status_name(st));
        G->exp(G, x, back);
        worst_note(&w, sp_mat_dist(9, back, R), kind);
        double expect = kind == 0 ? SP_PI - 1e-9 : kind == 1 ? SP_PI - 1e-12 : SP_PI;
        worst_note(&angle, fabs(sp_vec_norm(3, x) - expect), kind);
    }
    cr_log_info("SO3 near π: |exp(log R) − R| ≤ %.1e, angle error ≤ %.1e", w.err, angle.err);
    cr_assert_leq(w.err, 1e-12, "|exp(log R) − R| = %.3e near π (case %g)", w.err, w.at);
    cr_assert_leq(angle.err, 1e-12, "|log R| misses the angle by %.3e (case %g)", angle.err, angle.at);

    /* a failure is a status, not a NaN */
    double bad[9], x[3];
    for (int i = 0; i < 9; ++i) bad[i] = NAN;
    cr_assert_eq(G->log(G, bad, x), SP_ERR_DOMAIN, "log of a NaN matrix must be SP_ERR_DOMAIN");
    double flip[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    cr_assert_eq(G->cay_inv(G, flip, x), SP_ERR_DOMAIN, "cay⁻¹ of a rotation by π must be SP_ERR_DOMAIN");
}

/* cay(x) = (I − x̂/2)⁻¹(I + x̂/2) and cay⁻¹(cay(x)) = x, for |x| up to 10
 * (rotation angles up to 2·atan 5 ≈ 0.87π). */
Test(lie_conformance, cayley_matches_its_definition)
{
    const sp_group *G;
    FOR_EACH_GROUP(G)
    {
        rng r = {17};
        int n = G->dim, m = G->mat_dim;
        worst def = {0, 0}, inv = {0, 0};
        for (int t = 0; t < NPOINTS; ++t) {
            double x[MAXD], g[SP_LIE_MAX_ELEM], y[MAXD];
            rng_vector(&r, n, t % 2 ? RMAX : 10.0, x);
            ld X[MAXM * MAXM], L[MAXM * MAXM], Rt[MAXM * MAXM], Li[MAXM * MAXM], C[MAXM * MAXM];
            hat_ld(G, x, X);
            ld_identity(m, L);
            ld_identity(m, Rt);
            for (int i = 0; i < m * m; ++i) L[i] -= 0.5L * X[i], Rt[i] += 0.5L * X[i];
            ld_inverse(m, L, Li);
            ld_mul(m, Li, Rt, C);
            G->cay(G, x, g);
            double len = sp_vec_norm(n, x);
            /* round-off scales with the largest entry (SO(3): 1; translations up to 10) */
            worst_note(&def, elem_dist(G, g, C) / fmax(1.0, elem_scale(G, g)), len);
            sp_status st = G->cay_inv(G, g, y);
            cr_assert_eq(st, SP_OK, "%s: cay_inv failed (%s) at |x| = %g", G->name, sp_status_name(st), len);
            worst_note(&inv, sp_vec_dist(n, x, y) / worse(1e-300, len), len);
        }
        cr_log_info("%s: |cay − def|/max(1,|cay|ₘₐₓ) ≤ %.1e, |cay⁻¹(cay x) − x|/|x| ≤ %.1e", G->name, def.err, inv.err);
        cr_assert_leq(def.err, 1e-15, "%s: |cay(x) − (I−x̂/2)⁻¹(I+x̂/2)|/max(1,|cay(x)|ₘₐₓ) = %.3e at |x| = %g", G->name,
                      def.err, def.at);
        cr_assert_leq(inv.err, 1e-14, "%s: |cay⁻¹(cay x) − x|/|x| = %.3e at |x| = %g", G->name, inv.err, inv.at);
    }
}

/* ===================================================== retraction identities == */

/* The matrix of x ↦ Ad_g x. */
static void Ad_adapter(const sp_group *G, const double *g, const double *x, double *out) { G->Ad(G, g, x, out); }
static void Ad_star_adapter(const sp_group *G, const double *g, const double *m, double *out)
{
    G->Ad_star(G, g, m, out);
}
static void ad_adapter(const sp_group *G, const double *a, const double *x, double *out) { G->ad(G, a, x, out); }
static void ad_star_adapter(const sp_group *G, const double *a, const double *m, double *out)
{
    G->ad_star(G, a, m, out);
}

Test(lie_conformance, retraction_identities)
{
    const sp_group *G;
    const sp_retraction *T;
    FOR_EACH_GROUP(G)
    FOR_EACH_RETRACTION(T)
    {
        rng r = {18};
        int n = G->dim, nn = n * n, e = G->elem_size;
        worst inv = {0, 0}, cancel = {0, 0}, id2 = {0, 0}, id3 = {0, 0}, equi = {0, 0};
        double id[SP_LIE_MAX_ELEM];
        G->identity(G, id);
        for (int t = 0; t < NPOINTS; ++t) {
            double x[MAXD], mx[MAXD], y[MAXD], g[SP_LIE_MAX_ELEM], gm[SP_LIE_MAX_ELEM], gi[SP_LIE_MAX_ELEM],
                tmp[SP_LIE_MAX_ELEM];
            rng_vector(&r, n, RMAX, x);
            rng_vector(&r, n, RMAX, y);
            for (int i = 0; i < n; ++i) mx[i] = -x[i];
            double len = sp_vec_norm(n, x);
            T->tau(G, x, g);
            T->tau(G, mx, gm);

            /* 1. τ(−x) = τ(x)⁻¹, to round-off relative to the size of the entries (exact
             * for SO(3), whose inverse is a transpose: so3_retractions_are_rotations) */
            G->inverse(G, g, gi);
            worst_note(&inv, sp_vec_dist(e, gi, gm) / fmax(1.0, elem_scale(G, g)), len);
            G->compose(G, g, gm, tmp);
            worst_note(&cancel, sp_vec_dist(e, tmp, id), len);

            /* 2. dτ_x = Ad_{τ(x)} dτ_{−x} */
            double D[MAXD * MAXD], Dm[MAXD * MAXD], A[MAXD * MAXD], AD[MAXD * MAXD];
            T->dtau(G, x, D);
            T->dtau(G, mx, Dm);
            map_matrix(G, Ad_adapter, g, A);
            sp_mat_mul(n, n, n, A, Dm, AD);
            worst_note(&id2, sp_mat_dist(nn, D, AD) / worse(1.0, sp_vec_norm(nn, D)), len);

            /* 3. (dτ⁻¹_x)ᵀ = Ad*_{τ(−x)} (dτ⁻¹_{−x})ᵀ, the transpose-inverse of 2 (on SO(3),
             * where Ad is orthogonal, Ad*_{τ(−x)} = Ad_{τ(x)}) */
            double Di[MAXD * MAXD], Dmi[MAXD * MAXD], DiT[MAXD * MAXD], DmiT[MAXD * MAXD], As[MAXD * MAXD];
            T->dtau_inv(G, x, Di);
            T->dtau_inv(G, mx, Dmi);
            sp_mat_transpose(n, Di, DiT);
            sp_mat_transpose(n, Dmi, DmiT);
            map_matrix(G, Ad_star_adapter, gm, As);
            sp_mat_mul(n, n, n, As, DmiT, AD);
            worst_note(&id3, sp_mat_dist(nn, DiT, AD) / worse(1.0, sp_vec_norm(nn, Di)), len);

            /* 4. τ(Ad_R x) = R τ(x) R⁻¹ */
            double R[SP_LIE_MAX_ELEM], Ri[SP_LIE_MAX_ELEM], Rx[MAXD], lhs[SP_LIE_MAX_ELEM], rhs[SP_LIE_MAX_ELEM];
            G->exp(G, y, R);
            G->inverse(G, R, Ri);
            G->Ad(G, R, x, Rx);
            T->tau(G, Rx, lhs);
            G->compose(G, R, g, tmp);
            G->compose(G, tmp, Ri, rhs);
            worst_note(&equi, sp_vec_dist(e, lhs, rhs), len);
        }
        cr_log_info("%s %s: τ(−x)−τ(x)⁻¹ %.1e, τ(x)τ(−x)−e %.1e, id2 %.1e, id3 %.1e, equivariance %.1e", G->name,
                    T->name, inv.err, cancel.err, id2.err, id3.err, equi.err);
        cr_assert_leq(inv.err, 4.0 * DBL_EPSILON, "%s %s: |τ(−x) − τ(x)⁻¹|/max(1,|τ(x)|ₘₐₓ) = %.3e at |x| = %g",
                      G->name, T->name, inv.err, inv.at);
        cr_assert_leq(cancel.err, 5e-15, "%s %s: |τ(x)τ(−x) − e| = %.3e at |x| = %g", G->name, T->name, cancel.err,
                      cancel.at);
        cr_assert_leq(id2.err, 1e-14, "%s %s: |dτ_x − Ad_τ(x) dτ_−x| = %.3e at |x| = %g", G->name, T->name, id2.err,
                      id2.at);
        cr_assert_leq(id3.err, 1e-14, "%s %s: |(dτ⁻¹_x)ᵀ − Ad*_τ(−x)(dτ⁻¹_−x)ᵀ| = %.3e at |x| = %g", G->name, T->name,
                      id3.err, id3.at);
        cr_assert_leq(equi.err, 1e-14, "%s %s: |τ(Ad_R x) − Rτ(x)R⁻¹| = %.3e at |x| = %g", G->name, T->name, equi.err,
                      equi.at);
    }
}

/* dτ_x dτ⁻¹_x = I: ≤ 1e-14 for Cayley, ≤ 1e-13 for exp with |x| ≤ 3. */
Test(lie_conformance, dtau_inverse_is_the_inverse)
{
    const sp_group *G;
    const sp_retraction *T;
    FOR_EACH_GROUP(G)
    FOR_EACH_RETRACTION(T)
    {
        rng r = {19};
        int n = G->dim, nn = n * n;
        double I[MAXD * MAXD];
        sp_mat_identity(n, I);
        worst w = {0, 0};
        for (int t = 0; t < NPOINTS + 1; ++t) {
            double x[MAXD], D[MAXD * MAXD], Di[MAXD * MAXD], P[MAXD * MAXD];
            if (t < NPOINTS)
                rng_vector(&r, n, RMAX, x);
            else
                rng_vector_len(&r, n, RMAX, x);
            T->dtau(G, x, D);
            T->dtau_inv(G, x, Di);
            sp_mat_mul(n, n, n, D, Di, P);
            double e = sp_mat_dist(nn, P, I);
            sp_mat_mul(n, n, n, Di, D, P);
            worst_note(&w, worse(e, sp_mat_dist(nn, P, I)), sp_vec_norm(n, x));
        }
        double tol = strcmp(T->name, "exp") == 0 ? 1e-13 : 1e-14;
        cr_log_info("%s %s: |dτ dτ⁻¹ − I| ≤ %.1e", G->name, T->name, w.err);
        cr_assert_leq(w.err, tol, "%s %s: |dτ_x dτ⁻¹_x − I| = %.3e at |x| = %g (tolerance %g)", G->name, T->name, w.err,
                      w.at, tol);
    }
}

/* ===================================================== finite-difference checks == */

#define FD_EPS 1e-6

/* Central difference of the right-trivialised differential:
 * dτ_x y ≈ vee([τ(x+εy) − τ(x−εy)]/(2ε) · τ(x)⁻¹), in matrices. */
static void dtau_fd(const sp_group *G, const sp_retraction *T, const double *x, const double *y, double *out)
{
    int n = G->dim, m = G->mat_dim;
    double xp[MAXD], xm[MAXD], gp[SP_LIE_MAX_ELEM], gm[SP_LIE_MAX_ELEM], g[SP_LIE_MAX_ELEM], gi[SP_LIE_MAX_ELEM];
    for (int i = 0; i < n; ++i) xp[i] = x[i] + FD_EPS * y[i], xm[i] = x[i] - FD_EPS * y[i];
    T->tau(G, xp, gp);
    T->tau(G, xm, gm);
    T->tau(G, x, g);
    G->inverse(G, g, gi);
    ld Mp[MAXM * MAXM], Mm[MAXM * MAXM], Mi[MAXM * MAXM], Dq[MAXM * MAXM];
    as_matrix(G, gp, Mp);
    as_matrix(G, gm, Mm);
    as_matrix(G, gi, Mi);
    for (int i = 0; i < m * m; ++i) Dq[i] = (Mp[i] - Mm[i]) / (2.0L * FD_EPS);
    ld_mul(m, Dq, Mi, Dq);
    vee_ld(G, Dq, out);
}

/* The worst of `error` over NPOINTS points x with |x| ≤ RMAX, drawn by the generator of
 * `seed` (from which the check may draw more), for group G and retraction T. */
typedef double (*point_error)(const sp_group *G, const sp_retraction *T, rng *r, const double *x);

static worst sweep_points(const sp_group *G, const sp_retraction *T, uint64_t seed, point_error error)
{
    rng r = {seed};
    worst w = {0, 0};
    for (int t = 0; t < NPOINTS; ++t) {
        double x[MAXD];
        rng_vector(&r, G->dim, RMAX, x);
        worst_note(&w, error(G, T, &r, x), sp_vec_norm(G->dim, x));
    }
    return w;
}

/* sweep_points over every group and retraction: the worst error `what` at most tol. */
static void expect_sweep(uint64_t seed, point_error error, double tol, const char *what)
{
    const sp_group *G;
    const sp_retraction *T;
    FOR_EACH_GROUP(G)
    FOR_EACH_RETRACTION(T)
    {
        const worst w = sweep_points(G, T, seed, error);
        cr_log_info("%s %s: %s ≤ %.1e", G->name, T->name, what, w.err);
        cr_assert_leq(w.err, tol, "%s %s: %s = %.3e at |x| = %g", G->name, T->name, what, w.err, w.at);
    }
}

/* |dτ_x − FD|/|dτ_x|, column by column. */
static double dtau_fd_error(const sp_group *G, const sp_retraction *T, rng *r, const double *x)
{
    (void)r;
    const int n = G->dim;
    double D[MAXD * MAXD], F[MAXD * MAXD];
    T->dtau(G, x, D);
    for (int j = 0; j < n; ++j) {
        double e[MAXD] = {0}, col[MAXD];
        e[j] = 1.0;
        dtau_fd(G, T, x, e, col);
        for (int i = 0; i < n; ++i) F[i * n + j] = col[i];
    }
    return sp_mat_dist(n * n, D, F) / sp_vec_norm(n * n, D);
}

Test(lie_conformance, dtau_matches_finite_differences) { expect_sweep(20, dtau_fd_error, 1e-8, "|dτ − FD|/|dτ|"); }

/* |D_τ(x, v) − FD|/max(|D|, |v|) for a v drawn after x, D_τ(x, v) = ∂ₓ[dτ_xᵀ v] against
 * central differences of dτ. */
static double dtau_T_deriv_fd_error(const sp_group *G, const sp_retraction *T, rng *r, const double *x)
{
    const int n = G->dim;
    double v[MAXD], M[MAXD * MAXD], F[MAXD * MAXD];
    rng_vector(r, n, 2.0, v);
    T->dtau_T_deriv(G, x, v, M);
    for (int j = 0; j < n; ++j) {
        double xp[MAXD], xm[MAXD], Bp[MAXD * MAXD], Bm[MAXD * MAXD], fp[MAXD], fm[MAXD];
        sp_vec_copy(n, x, xp);
        sp_vec_copy(n, x, xm);
        xp[j] += FD_EPS, xm[j] -= FD_EPS;
        T->dtau(G, xp, Bp);
        T->dtau(G, xm, Bm);
        sp_mat_tvec(n, n, Bp, v, fp);
        sp_mat_tvec(n, n, Bm, v, fm);
        for (int i = 0; i < n; ++i) F[i * n + j] = (fp[i] - fm[i]) / (2.0 * FD_EPS);
    }
    double scale = worse(sp_vec_norm(n * n, M), sp_vec_norm(n, v));
    return sp_mat_dist(n * n, M, F) / scale;
}

Test(lie_conformance, dtau_T_deriv_matches_finite_differences)
{
    expect_sweep(21, dtau_T_deriv_fd_error, 1e-8, "|D_τ − FD|/max(|D|,|v|)");
}

/* ================================================== adjoint and coadjoint maps == */

/* A group's closed form of Σ_{j<terms} c_j ad_x^j y (ad_series, where it has one) equals
 * the series by Horner's rule through ad, for every number of terms up to 9 and x up to
 * the size of a step (|x| ≤ 2), to round-off. */
Test(lie_conformance, ad_series_is_the_series)
{
    const sp_group *G;
    int groups_with_one = 0;
    FOR_EACH_GROUP(G)
    {
        if (!G->ad_series) continue;
        ++groups_with_one;
        rng r = {31};
        const int n = G->dim;
        double worst = 0.0;
        for (int t = 0; t < NPOINTS; ++t) {
            double x[MAXD], y[MAXD], c[9];
            rng_vector(&r, n, 2.0, x);
            rng_vector(&r, n, 1.0, y);
            rng_vector(&r, 9, 1.0, c);
            for (int terms = 1; terms <= 9; ++terms) {
                double horner[MAXD], w[MAXD], closed[MAXD];
                for (int k = 0; k < n; ++k) horner[k] = c[terms - 1] * y[k];
                for (int j = terms - 2; j >= 0; --j) {
                    G->ad(G, x, horner, w);
                    for (int k = 0; k < n; ++k) horner[k] = c[j] * y[k] + w[k];
                }
                G->ad_series(G, terms, c, x, y, closed);
                double scale = 1.0, d = 0.0;
                for (int k = 0; k < n; ++k) scale = fmax(scale, fabs(horner[k])), d = fmax(d, fabs(closed[k] - horner[k]));
                worst = fmax(worst, d / scale);
            }
        }
        cr_expect_lt(worst, 1e-13, "%s: ad_series differs from the series by %g", G->name, worst);
    }
    cr_expect_gt(groups_with_one, 0, "no group has a closed form: the test tests nothing");
}

Test(lie_conformance, adjoint_and_coadjoint_are_consistent)
{
    const sp_group *G;
    FOR_EACH_GROUP(G)
    {
        rng r = {22};
        int n = G->dim, m = G->mat_dim, nn = n * n;
        worst conj = {0, 0}, Adstar = {0, 0}, adstar = {0, 0}, hom = {0, 0}, inv = {0, 0}, expad = {0, 0};
        for (int t = 0; t < NPOINTS; ++t) {
            double y[MAXD], z[MAXD], x[MAXD], g[SP_LIE_MAX_ELEM], h[SP_LIE_MAX_ELEM], gh[SP_LIE_MAX_ELEM],
                gi[SP_LIE_MAX_ELEM];
            rng_vector(&r, n, RMAX, y);
            rng_vector(&r, n, RMAX, z);
            rng_vector(&r, n, 1.0, x);
            G->exp(G, y, g);
            G->cay(G, z, h);
            G->compose(G, g, h, gh);
            G->inverse(G, g, gi);

            /* g x̂ g⁻¹ = (Ad_g x)^ */
            double Agx[MAXD];
            ld Mg[MAXM * MAXM], Mgi[MAXM * MAXM], X[MAXM * MAXM], H[MAXM * MAXM];
            G->Ad(G, g, x, Agx);
            as_matrix(G, g, Mg);
            as_matrix(G, gi, Mgi);
            hat_ld(G, x, X);
            ld_mul(m, Mg, X, X);
            ld_mul(m, X, Mgi, X);
            hat_ld(G, Agx, H);
            worst_note(&conj, ld_dist(m * m, X, H) / sp_vec_norm(n, x), 0);

            /* Ad*_g = (Ad_g)ᵀ and ad*_y = (ad_y)ᵀ under the Euclidean pairing */
            double A[MAXD * MAXD], As[MAXD * MAXD], AT[MAXD * MAXD];
            map_matrix(G, Ad_adapter, g, A);
            map_matrix(G, Ad_star_adapter, g, As);
            sp_mat_transpose(n, A, AT);
            worst_note(&Adstar, sp_mat_dist(nn, As, AT), 0);
            map_matrix(G, ad_adapter, y, A);
            map_matrix(G, ad_star_adapter, y, As);
            sp_mat_transpose(n, A, AT);
            worst_note(&adstar, sp_mat_dist(nn, As, AT) / sp_vec_norm(n, y), 0);

            /* Ad_{gh} = Ad_g Ad_h and Ad_{g⁻¹} = (Ad_g)⁻¹ */
            double Ag[MAXD * MAXD], Ah[MAXD * MAXD], Agh[MAXD * MAXD], P[MAXD * MAXD], Agi[MAXD * MAXD], I[MAXD * MAXD];
            map_matrix(G, Ad_adapter, g, Ag);
            map_matrix(G, Ad_adapter, h, Ah);
            map_matrix(G, Ad_adapter, gh, Agh);
            sp_mat_mul(n, n, n, Ag, Ah, P);
            worst_note(&hom, sp_mat_dist(nn, Agh, P), 0);
            map_matrix(G, Ad_adapter, gi, Agi);
            sp_mat_mul(n, n, n, Ag, Agi, P);
            sp_mat_identity(n, I);
            worst_note(&inv, sp_mat_dist(nn, P, I), 0);

            /* Ad_{exp y} = e^{ad_y} */
            ld adm[MAXD * MAXD], E[MAXD * MAXD];
            map_matrix(G, ad_adapter, y, A);
            ld_from(nn, A, adm);
            ld_expm(n, adm, E);
            worst_note(&expad, dist_ld(nn, Ag, E), sp_vec_norm(n, y));
        }
        cr_log_info("%s: gx̂g⁻¹ %.1e, Ad* %.1e, ad* %.1e, Ad_gh %.1e, Ad_g⁻¹ %.1e, Ad_exp %.1e", G->name, conj.err,
                    Adstar.err, adstar.err, hom.err, inv.err, expad.err);
        cr_assert_leq(conj.err, 5e-15, "%s: |g x̂ g⁻¹ − (Ad_g x)^|/|x| = %.3e", G->name, conj.err);
        cr_assert_leq(Adstar.err, 1e-16, "%s: |Ad*_g − Ad_gᵀ| = %.3e", G->name, Adstar.err);
        cr_assert_leq(adstar.err, 1e-16, "%s: |ad*_y − ad_yᵀ|/|y| = %.3e", G->name, adstar.err);
        cr_assert_leq(hom.err, 5e-15, "%s: |Ad_gh − Ad_g Ad_h| = %.3e", G->name, hom.err);
        cr_assert_leq(inv.err, 5e-15, "%s: |Ad_g Ad_g⁻¹ − I| = %.3e", G->name, inv.err);
        cr_assert_leq(expad.err, 2e-15, "%s: |Ad_exp(y) − e^ad_y| = %.3e at |y| = %g", G->name, expad.err, expad.at);
    }
}

/* The conventions fixed on so(3) ≅ R³, which the HOHP invariants rely on:
 * â b = a × b, ad*_a m = m × a, Ad_g a = g a, Ad*_g m = gᵀ m. */
Test(lie_conformance, so3_conventions_of_hat_ad_and_Ad)
{
    const sp_group *G = sp_group_so3;
    rng r = {23};
    worst w = {0, 0};
    for (int t = 0; t < NPOINTS; ++t) {
        double a[3], m[3], y[3], g[9], out[3], ref[3];
        rng_vector(&r, 3, 2.0, a);
        rng_vector(&r, 3, 2.0, m);
        rng_vector(&r, 3, RMAX, y);
        G->exp(G, y, g);
        G->ad(G, a, m, out), sp_cross(a, m, ref);
        worst_note(&w, sp_vec_dist(3, out, ref), 1);
        G->ad_star(G, a, m, out), sp_cross(m, a, ref);
        worst_note(&w, sp_vec_dist(3, out, ref), 2);
        G->Ad(G, g, a, out), sp_mat_vec(3, 3, g, a, ref);
        worst_note(&w, sp_vec_dist(3, out, ref), 3);
        G->Ad_star(G, g, m, out), sp_mat_tvec(3, 3, g, m, ref);
        worst_note(&w, sp_vec_dist(3, out, ref), 4);
    }
    double A[9], e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0}, X[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, v[3];
    G->hat(G, e1, A);
    cr_assert(A[7] == 1.0 && A[5] == -1.0, "hat(e1) must have A[2][1] = 1, A[1][2] = −1");
    G->hat(G, e2, A);
    cr_assert(A[2] == 1.0 && A[6] == -1.0, "hat(e2) must have A[0][2] = 1, A[2][0] = −1");
    G->vee(G, X, v);
    cr_assert(v[0] == 8.0 && v[1] == 3.0 && v[2] == 4.0, "vee(A) must be (A32, A13, A21), got (%g, %g, %g)", v[0], v[1],
              v[2]);
    cr_assert_eq(w.err, 0.0, "SO3 operation %g differs from its table entry by %.3e", w.at, w.err);
}

/* ================================= SO(3): series switch at 0.1 and extreme angles == */

/* Long-double references on so(3), from power series of x̂ (independent of the
 * closed forms and coefficient series of so3.c); the series are summed until the
 * terms fall below long-double round-off. */
static void so3_hat_ld(const double *x, ld *X)
{
    X[0] = 0, X[1] = -(ld)x[2], X[2] = x[1];
    X[3] = x[2], X[4] = 0, X[5] = -(ld)x[0];
    X[6] = -(ld)x[1], X[7] = x[0], X[8] = 0;
}

/* dexp_x = Σ_k x̂^k/(k+1)!  (right-trivialised) */
static void ref_dexp(const double *x, ld *D)
{
    ld X[9], P[9];
    so3_hat_ld(x, X);
    ld_identity(3, D);
    ld_identity(3, P);
    for (int k = 1; k < 80; ++k) {
        ld_mul(3, P, X, P);
        for (int i = 0; i < 9; ++i) P[i] /= (ld)(k + 1);
        for (int i = 0; i < 9; ++i) D[i] += P[i];
    }
}

/* D_exp(x, v) = ∂ₓ[dexp_xᵀ v] with dexp_xᵀ v = Σ_k N^k v/(k+1)!, N = −x̂:
 * ∂_j(N^k v) = N ∂_j(N^{k−1} v) + (∂_j N) N^{k−1} v, and ∂_j N = −ê_j. */
static void ref_dexp_T_deriv(const double *x, const double *v, ld *M)
{
    ld N[9];
    so3_hat_ld(x, N);
    for (int i = 0; i < 9; ++i) N[i] = -N[i];
    for (int j = 0; j < 3; ++j) {
        double e[3] = {0, 0, 0};
        e[j] = 1.0;
        ld Ej[9], P[3] = {v[0], v[1], v[2]}, Q[3] = {0, 0, 0}, col[3] = {0, 0, 0}, fact = 1.0L;
        so3_hat_ld(e, Ej);
        for (int k = 1; k < 80; ++k) {
            ld Qn[3], Pn[3];
            for (int i = 0; i < 3; ++i) {
                Qn[i] = 0.0L, Pn[i] = 0.0L;
                for (int l = 0; l < 3; ++l) {
                    Qn[i] += N[3 * i + l] * Q[l] - Ej[3 * i + l] * P[l];
                    Pn[i] += N[3 * i + l] * P[l];
                }
            }
            fact *= (ld)(k + 1);
            for (int i = 0; i < 3; ++i) Q[i] = Qn[i], P[i] = Pn[i], col[i] += Q[i] / fact;
        }
        for (int i = 0; i < 3; ++i) M[3 * i + j] = col[i];
    }
}

/* Relative errors of exp, dexp, dexp⁻¹ and D_exp at x (index 0…3), against the
 * long-double references. */
static void so3_exp_family_errors(const double *x, const double *v, double err[4])
{
    const sp_group *G = sp_group_so3;
    double R[9], D[9], Di[9], M[9];
    ld X[9], E[9], Dr[9], Dir[9], Mr[9];
    G->exp(G, x, R);
    G->dexp(G, x, D);
    G->dexp_inv(G, x, Di);
    G->dexp_T_deriv(G, x, v, M);
    so3_hat_ld(x, X);
    ld_expm(3, X, E);
    ref_dexp(x, Dr);
    ld_inverse(3, Dr, Dir);
    ref_dexp_T_deriv(x, v, Mr);
    err[0] = dist_ld(9, R, E) / norm_ld(9, E);
    err[1] = dist_ld(9, D, Dr) / norm_ld(9, Dr);
    err[2] = dist_ld(9, Di, Dir) / norm_ld(9, Dir);
    err[3] = dist_ld(9, M, Mr) / norm_ld(9, Mr);
}

static const char *const exp_family[4] = {"exp", "dexp", "dexp_inv", "dexp_T_deriv"};
/* Relative accuracy demanded near the series switch: round-off, except that D_exp keeps
 * the cancellation of the closed form C = (θ − sinθ)/θ³ (≈ 2e-14 relative at θ = 0.1,
 * weighted by θ in D), about 1e-15 in all. */
static const double switch_tol[4] = {1e-15, 1e-15, 1e-15, 2e-15};

/* Accuracy everywhere in |x| ≤ 3 against the long-double references. */
Test(lie_conformance, so3_exp_family_matches_long_double_series)
{
    rng r = {24};
    worst w[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    for (int t = 0; t < 2 * NPOINTS; ++t) {
        double x[3], v[3], err[4];
        rng_vector(&r, 3, RMAX, x);
        rng_vector_len(&r, 3, 1.0, v);
        so3_exp_family_errors(x, v, err);
        for (int f = 0; f < 4; ++f) worst_note(&w[f], err[f], sp_vec_norm(3, x));
    }
    for (int f = 0; f < 4; ++f) {
        cr_log_info("SO3 %s vs long-double series, |x| ≤ 3: %.1e (at |x| = %.3g)", exp_family[f], w[f].err, w[f].at);
        cr_assert_leq(w[f].err, 4e-15, "SO3 %s: relative error %.3e at |x| = %.6g", exp_family[f], w[f].err, w[f].at);
    }
}

/* so3.c switches to Taylor series below |x| = 0.1. Both sides of the switch must be
 * accurate (no digits lost to the cancellation in the closed forms just above it),
 * and the two branches must meet: values at the last double below 0.1 and at 0.1
 * itself, along a coordinate axis so that |x| is exact, differ by round-off only. */
Test(lie_conformance, so3_series_switch_is_seamless)
{
    const double t0 = 0.1;
    const double ts[] = {
        t0 * (1 - 1e-12), t0 * (1 + 1e-12), nextafter(t0, 0.0), t0, nextafter(t0, 1.0), 0.05, 0.099, 0.101, 0.2};
    rng r = {25};
    worst w[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; ++k)
        for (int d = 0; d < 40; ++d) {
            double x[3], v[3], err[4];
            if (d < 3) {
                x[0] = x[1] = x[2] = 0.0;
                x[d] = ts[k];
            } else
                rng_vector_len(&r, 3, ts[k], x);
            rng_vector_len(&r, 3, 1.0, v);
            so3_exp_family_errors(x, v, err);
            for (int f = 0; f < 4; ++f) worst_note(&w[f], err[f], ts[k]);
        }
    for (int f = 0; f < 4; ++f) {
        cr_log_info("SO3 %s near the switch at 0.1: relative error %.1e (at |x| = %.17g)", exp_family[f], w[f].err,
                    w[f].at);
        cr_assert_leq(w[f].err, switch_tol[f], "SO3 %s: relative error %.3e at |x| = %.17g near the series switch",
                      exp_family[f], w[f].err, w[f].at);
    }

    /* continuity: the two branches at adjacent doubles */
    const sp_group *G = sp_group_so3;
    double below = nextafter(t0, 0.0), jump[4] = {0, 0, 0, 0};
    for (int d = 0; d < 3; ++d) {
        double xa[3] = {0, 0, 0}, xb[3] = {0, 0, 0}, v[3] = {0.3, -0.7, 0.5}, A[4][9], B[4][9];
        xa[d] = below, xb[d] = t0;
        G->exp(G, xa, A[0]), G->exp(G, xb, B[0]);
        G->dexp(G, xa, A[1]), G->dexp(G, xb, B[1]);
        G->dexp_inv(G, xa, A[2]), G->dexp_inv(G, xb, B[2]);
        G->dexp_T_deriv(G, xa, v, A[3]), G->dexp_T_deriv(G, xb, v, B[3]);
        for (int f = 0; f < 4; ++f) jump[f] = worse(jump[f], sp_mat_dist(9, A[f], B[f]) / sp_vec_norm(9, B[f]));
    }
    for (int f = 0; f < 4; ++f) {
        cr_log_info("SO3 %s: jump across the switch %.1e", exp_family[f], jump[f]);
        cr_assert_leq(jump[f], switch_tol[f], "SO3 %s jumps by %.3e (relative) across |x| = 0.1", exp_family[f],
                      jump[f]);
    }
}

/* The extreme angles 0, 1e-9 and π − 1e-9. */
Test(lie_conformance, so3_exp_family_at_extreme_angles)
{
    const double ts[] = {0.0, 1e-9, SP_PI - 1e-9};
    rng r = {26};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; ++k) {
        worst w[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
        for (int d = 0; d < 50; ++d) {
            double x[3], v[3], err[4];
            rng_vector_len(&r, 3, 1.0, x);
            for (int i = 0; i < 3; ++i) x[i] *= ts[k];
            rng_vector_len(&r, 3, 1.0, v);
            so3_exp_family_errors(x, v, err);
            for (int f = 0; f < 4; ++f) worst_note(&w[f], err[f], ts[k]);
        }
        for (int f = 0; f < 4; ++f) {
            cr_log_info("SO3 %s at |x| = %.17g: relative error %.1e", exp_family[f], ts[k], w[f].err);
            cr_assert_leq(w[f].err, 2e-15, "SO3 %s: relative error %.3e at |x| = %.17g", exp_family[f], w[f].err,
                          ts[k]);
        }
    }
}

/* ===================================================================== SE(3) == */

/* Long-double references on se(3), from hat matrices, their commutators and power series
 * (independent of se3.c's closed forms, its coefficient series and its use of SO(3)). */

/* vee of a 4x4 matrix of se(3), in long double: ω from the entries (2,1), (0,2), (1,0),
 * v from the last column. */
static void se3_vee_ld(const ld *X, ld *x)
{
    x[0] = X[9], x[1] = X[2], x[2] = X[4];
    x[3] = X[3], x[4] = X[7], x[5] = X[11];
}

/* ad_x as a 6x6 matrix: column j is vee([x̂, ê_j]). */
static void se3_ref_ad(const double *x, ld *A)
{
    const sp_group *G = sp_group_se3;
    ld X[16], E[16], XE[16], EX[16], col[6];
    hat_ld(G, x, X);
    for (int j = 0; j < 6; ++j) {
        double e[6] = {0, 0, 0, 0, 0, 0};
        e[j] = 1.0;
        hat_ld(G, e, E);
        ld_mul(4, X, E, XE);
        ld_mul(4, E, X, EX);
        for (int i = 0; i < 16; ++i) XE[i] -= EX[i];
        se3_vee_ld(XE, col);
        for (int i = 0; i < 6; ++i) A[6 * i + j] = col[i];
    }
}

/* dexp_x = Σ_k ad_xᵏ/(k+1)! (ad_x is nilpotent in v, so the series converges as it does
 * on so(3) whatever the translation). */
static void se3_ref_dexp(const double *x, ld *D)
{
    ld A[36], P[36];
    se3_ref_ad(x, A);
    ld_identity(6, D);
    ld_identity(6, P);
    for (int k = 1; k < 120; ++k) {
        ld_mul(6, P, A, P);
        for (int i = 0; i < 36; ++i) P[i] /= (ld)(k + 1), D[i] += P[i];
    }
}

/* D_exp(x, u) = ∂ₓ[dexp_xᵀ u], dexp_xᵀ u = Σ_k Nᵏ u/(k+1)! with N = ad_xᵀ, linear in x:
 * ∂_j(Nᵏ u) = N ∂_j(N^(k−1) u) + E_j N^(k−1) u with E_j = ad_{e_j}ᵀ. */
static void se3_ref_dexp_T_deriv(const double *x, const double *u, ld *M)
{
    ld A[36], N[36];
    se3_ref_ad(x, A);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) N[6 * i + j] = A[6 * j + i];
    for (int j = 0; j < 6; ++j) {
        double e[6] = {0, 0, 0, 0, 0, 0};
        e[j] = 1.0;
        ld Aj[36], Ej[36];
        se3_ref_ad(e, Aj);
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) Ej[6 * r + c] = Aj[6 * c + r];
        ld P[6], Q[6] = {0, 0, 0, 0, 0, 0}, col[6] = {0, 0, 0, 0, 0, 0}, fact = 1.0L;
        ld_from(6, u, P);
        for (int k = 1; k < 120; ++k) {
            ld Qn[6], Pn[6];
            for (int r = 0; r < 6; ++r) {
                Qn[r] = 0.0L, Pn[r] = 0.0L;
                for (int c = 0; c < 6; ++c) {
                    Qn[r] += N[6 * r + c] * Q[c] + Ej[6 * r + c] * P[c];
                    Pn[r] += N[6 * r + c] * P[c];
                }
            }
            fact *= (ld)(k + 1);
            for (int r = 0; r < 6; ++r) Q[r] = Qn[r], P[r] = Pn[r], col[r] += Q[r] / fact;
        }
        for (int r = 0; r < 6; ++r) M[6 * r + j] = col[r];
    }
}

/* (I − x̂/2)⁻¹ and (I + x̂/2)⁻¹ */
static void se3_ref_cayley_factors(const double *x, ld *Li, ld *Pi)
{
    ld X[16], L[16], P[16];
    hat_ld(sp_group_se3, x, X);
    ld_identity(4, L);
    ld_identity(4, P);
    for (int i = 0; i < 16; ++i) L[i] -= 0.5L * X[i], P[i] += 0.5L * X[i];
    ld_inverse(4, L, Li);
    ld_inverse(4, P, Pi);
}

/* cay(x) = (I − x̂/2)⁻¹(I + x̂/2) */
static void se3_ref_cay(const double *x, ld *C)
{
    ld X[16], Li[16], Pi[16], P[16];
    se3_ref_cayley_factors(x, Li, Pi);
    hat_ld(sp_group_se3, x, X);
    ld_identity(4, P);
    for (int i = 0; i < 16; ++i) P[i] += 0.5L * X[i];
    ld_mul(4, Li, P, C);
}

/* dcay_x, column j = vee((I − x̂/2)⁻¹ ê_j (I + x̂/2)⁻¹). */
static void se3_ref_dcay(const double *x, ld *D)
{
    ld Li[16], Pi[16], E[16], T[16], col[6];
    se3_ref_cayley_factors(x, Li, Pi);
    for (int j = 0; j < 6; ++j) {
        double e[6] = {0, 0, 0, 0, 0, 0};
        e[j] = 1.0;
        hat_ld(sp_group_se3, e, E);
        ld_mul(4, Li, E, T);
        ld_mul(4, T, Pi, T);
        se3_vee_ld(T, col);
        for (int i = 0; i < 6; ++i) D[6 * i + j] = col[i];
    }
}

/* D_cay(x, u)[i][j] = Σ_k u_k ∂_j(dcay_x)[k][i], with ∂_j(L⁻¹ Ê P⁻¹) = L⁻¹ (Ê_j/2) L⁻¹ Ê P⁻¹
 * − L⁻¹ Ê P⁻¹ (Ê_j/2) P⁻¹ for L = I − x̂/2, P = I + x̂/2. */
static void se3_ref_dcay_T_deriv(const double *x, const double *u, ld *M)
{
    ld Li[16], Pi[16];
    se3_ref_cayley_factors(x, Li, Pi);
    for (int j = 0; j < 6; ++j) {
        double ej[6] = {0, 0, 0, 0, 0, 0};
        ej[j] = 1.0;
        ld Ej[16];
        hat_ld(sp_group_se3, ej, Ej);
        for (int i = 0; i < 16; ++i) Ej[i] *= 0.5L;
        for (int i = 0; i < 6; ++i) {
            double ei[6] = {0, 0, 0, 0, 0, 0};
            ei[i] = 1.0;
            ld Ei[16], A[16], B[16], col[6];
            hat_ld(sp_group_se3, ei, Ei);
            /* A = L⁻¹ Ej L⁻¹ Ei P⁻¹ */
            ld_mul(4, Li, Ej, A);
            ld_mul(4, A, Li, A);
            ld_mul(4, A, Ei, A);
            ld_mul(4, A, Pi, A);
            /* B = L⁻¹ Ei P⁻¹ Ej P⁻¹ */
            ld_mul(4, Li, Ei, B);
            ld_mul(4, B, Pi, B);
            ld_mul(4, B, Ej, B);
            ld_mul(4, B, Pi, B);
            for (int k = 0; k < 16; ++k) A[k] -= B[k];
            se3_vee_ld(A, col);
            ld s = 0.0L;
            for (int k = 0; k < 6; ++k) s += (ld)u[k] * col[k];
            M[6 * i + j] = s;
        }
    }
}

/* The worst error over the four 3x3 blocks of a 6x6 matrix, each relative to its own
 * reference block (the coupling blocks grow with the translation, the rotation blocks do
 * not); a block whose reference is zero must be zero. */
static double se3_block_err(const double *M, const ld *R)
{
    double e = 0.0;
    ld total = 0.0L;
    for (int k = 0; k < 36; ++k) total += R[k] * R[k];
    if (!(total > 0.0L)) total = 1.0L;
    for (int bi = 0; bi < 2; ++bi)
        for (int bj = 0; bj < 2; ++bj) {
            ld num = 0.0L, den = 0.0L;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    const int k = 6 * (3 * bi + i) + 3 * bj + j;
                    num += ((ld)M[k] - R[k]) * ((ld)M[k] - R[k]), den += R[k] * R[k];
                }
            /* a zero block of the reference (up to the long-double round-off of an inverse)
             * is compared relative to the whole matrix */
            e = worse(e, (double)(den > 1e-36L * total ? sqrtl(num / den) : sqrtl(num / total)));
        }
    return e;
}

/* An algebra vector with angle |ω| = theta and translation |v| = vlen, directions random. */
static void se3_sample(rng *r, double theta, double vlen, double *x)
{
    rng_vector_len(r, 3, theta, x);
    rng_vector_len(r, 3, vlen, x + 3);
}

/* The grid of the SE(3) sweeps: angles from 1e-8 to 3 (both sides of se3.c's series switch
 * at 2 included) against translations from 1e-3 to 1e3. */
static const double se3_angles[] = {1e-8, 1e-7, 1e-5, 1e-3, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 1.9999999999999998,
                                    2.0,  2.5,  3.0};
static const double se3_vlens[] = {1e-3, 1.0, 1e3};
#define SE3_NA ((int)(sizeof se3_angles / sizeof se3_angles[0]))
#define SE3_NV ((int)(sizeof se3_vlens / sizeof se3_vlens[0]))
#define SE3_REPEAT 6

static const char *const se3_maps[] = {"dexp", "dexp_inv", "dexp_T_deriv", "dcay", "dcay_inv", "dcay_T_deriv"};
#define SE3_NMAPS 6
/* Round-off: a few units, D_exp (sums of words in ω̂ and v̂ with its own SO(3) block) a few
 * more. */
static const double se3_map_tol[SE3_NMAPS] = {2e-15, 2e-15, 3e-15, 2e-15, 2e-15, 2e-15};

/* Blockwise relative errors of the six differentials at x (with the covector u for D_τ). */
static void se3_differential_errors(const double *x, const double *u, double err[SE3_NMAPS])
{
    const sp_group *G = sp_group_se3;
    double M[36];
    ld R[36], Ri[36];
    se3_ref_dexp(x, R);
    G->dexp(G, x, M);
    err[0] = se3_block_err(M, R);
    ld_inverse(6, R, Ri);
    G->dexp_inv(G, x, M);
    err[1] = se3_block_err(M, Ri);
    se3_ref_dexp_T_deriv(x, u, R);
    G->dexp_T_deriv(G, x, u, M);
    err[2] = se3_block_err(M, R);
    se3_ref_dcay(x, R);
    G->dcay(G, x, M);
    err[3] = se3_block_err(M, R);
    ld_inverse(6, R, Ri);
    G->dcay_inv(G, x, M);
    err[4] = se3_block_err(M, Ri);
    se3_ref_dcay_T_deriv(x, u, R);
    G->dcay_T_deriv(G, x, u, M);
    err[5] = se3_block_err(M, R);
}

/* Every differential against its long-double reference, block by block, over the grid. */
Test(lie_conformance, se3_differentials_match_long_double_references)
{
    rng r = {30};
    worst w[SE3_NMAPS];
    for (int f = 0; f < SE3_NMAPS; ++f) w[f] = (worst){0, 0};
    for (int a = 0; a < SE3_NA; ++a)
        for (int b = 0; b < SE3_NV; ++b)
            for (int k = 0; k < SE3_REPEAT; ++k) {
                double x[6], u[6], err[SE3_NMAPS];
                se3_sample(&r, se3_angles[a], se3_vlens[b], x);
                rng_vector_len(&r, 6, 1.0, u);
                se3_differential_errors(x, u, err);
                for (int f = 0; f < SE3_NMAPS; ++f) worst_note(&w[f], err[f], 100.0 * a + b);
            }
    for (int f = 0; f < SE3_NMAPS; ++f) {
        const int a = (int)(w[f].at / 100.0), b = (int)w[f].at % 100;
        cr_log_info("SE3 %s vs long-double reference, blockwise: %.1e (at θ = %g, |v| = %g)", se3_maps[f], w[f].err,
                    se3_angles[a], se3_vlens[b]);
        cr_assert_leq(w[f].err, se3_map_tol[f], "SE3 %s: blockwise relative error %.3e at θ = %.17g, |v| = %g",
                      se3_maps[f], w[f].err, se3_angles[a], se3_vlens[b]);
    }
}

/* The coupling coefficients switch from their series to closed forms at θ = 2: the two
 * branches meet at adjacent doubles (along a coordinate axis, so that θ is exact). */
Test(lie_conformance, se3_series_switch_is_seamless)
{
    const sp_group *G = sp_group_se3;
    const double below = nextafter(2.0, 0.0);
    double jump[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d) {
        double xa[6] = {0, 0, 0, 0.8, -1.3, 0.4}, xb[6] = {0, 0, 0, 0.8, -1.3, 0.4};
        const double u[6] = {0.3, -0.7, 0.5, 0.2, 0.9, -0.4};
        double A[3][36], B[3][36];
        xa[d] = below, xb[d] = 2.0;
        G->dexp(G, xa, A[0]), G->dexp(G, xb, B[0]);
        G->dexp_inv(G, xa, A[1]), G->dexp_inv(G, xb, B[1]);
        G->dexp_T_deriv(G, xa, u, A[2]), G->dexp_T_deriv(G, xb, u, B[2]);
        for (int f = 0; f < 3; ++f) jump[f] = worse(jump[f], sp_mat_dist(36, A[f], B[f]) / sp_vec_norm(36, B[f]));
    }
    for (int f = 0; f < 3; ++f) {
        cr_log_info("SE3 %s: jump across θ = 2: %.1e", se3_maps[f], jump[f]);
        cr_assert_leq(jump[f], 2e-15, "SE3 %s jumps by %.3e (relative) across θ = 2", se3_maps[f], jump[f]);
    }
}

/* exp, log, cay and cay⁻¹ over the grid: exp and cay against the matrix exponential and
 * (I − x̂/2)⁻¹(I + x̂/2) in long double, relative to the element's largest entry; the round
 * trips log(exp x) and cay⁻¹(cay x), ω relative to θ and v relative to |v|. */
Test(lie_conformance, se3_exp_log_and_cayley_with_large_translations)
{
    const sp_group *G = sp_group_se3;
    rng r = {31};
    worst ex = {0, 0}, lg = {0, 0}, cy = {0, 0}, ci = {0, 0};
    for (int a = 0; a < SE3_NA; ++a)
        for (int b = 0; b < SE3_NV; ++b)
            for (int k = 0; k < SE3_REPEAT; ++k) {
                double x[6], g[16], y[6];
                ld X[16], E[16], C[16];
                const double at = 100.0 * a + b;
                se3_sample(&r, se3_angles[a], se3_vlens[b], x);
                hat_ld(G, x, X);
                ld_expm(4, X, E);
                G->exp(G, x, g);
                worst_note(&ex, elem_dist(G, g, E) / elem_scale(G, g), at);
                cr_assert_eq(G->log(G, g, y), SP_OK);
                worst_note(
                    &lg, worse(sp_vec_dist(3, x, y) / se3_angles[a], sp_vec_dist(3, x + 3, y + 3) / se3_vlens[b]), at);
                se3_ref_cay(x, C);
                G->cay(G, x, g);
                worst_note(&cy, elem_dist(G, g, C) / elem_scale(G, g), at);
                cr_assert_eq(G->cay_inv(G, g, y), SP_OK);
                worst_note(
                    &ci, worse(sp_vec_dist(3, x, y) / se3_angles[a], sp_vec_dist(3, x + 3, y + 3) / se3_vlens[b]), at);
            }
    const worst all[4] = {ex, lg, cy, ci};
    const char *const what[4] = {"|exp − e^x̂|", "log(exp x) − x", "|cay − def|", "cay⁻¹(cay x) − x"};
    for (int f = 0; f < 4; ++f) {
        const int a = (int)(all[f].at / 100.0), b = (int)all[f].at % 100;
        cr_log_info("SE3 %s, relative: %.1e (at θ = %g, |v| = %g)", what[f], all[f].err, se3_angles[a], se3_vlens[b]);
        cr_assert_leq(all[f].err, 3e-15, "SE3 %s: relative error %.3e at θ = %g, |v| = %g", what[f], all[f].err,
                      se3_angles[a], se3_vlens[b]);
    }
}

/* The finite-difference checks of the generic sweeps (dτ, D_τ) and dτ dτ⁻¹ = I, over the
 * grid of angles and translations. */
Test(lie_conformance, se3_differentials_match_finite_differences_with_large_translations)
{
    const sp_group *G = sp_group_se3;
    const sp_retraction *T;
    FOR_EACH_RETRACTION(T)
    {
        rng r = {32};
        worst fd = {0, 0}, dfd = {0, 0}, inv = {0, 0};
        for (int a = 0; a < SE3_NA; ++a)
            for (int b = 0; b < SE3_NV; ++b)
                for (int k = 0; k < 2; ++k) {
                    const double at = 100.0 * a + b;
                    double x[6], u[6], D[36], Di[36], F[36], M[36], P[36], I[36];
                    se3_sample(&r, se3_angles[a], se3_vlens[b], x);
                    rng_vector_len(&r, 6, 1.0, u);
                    T->dtau(G, x, D);
                    T->dtau_inv(G, x, Di);
                    for (int j = 0; j < 6; ++j) {
                        double e[6] = {0, 0, 0, 0, 0, 0}, col[6];
                        e[j] = 1.0;
                        dtau_fd(G, T, x, e, col);
                        for (int i = 0; i < 6; ++i) F[6 * i + j] = col[i];
                    }
                    worst_note(&fd, sp_mat_dist(36, D, F) / sp_vec_norm(36, D), at);
                    T->dtau_T_deriv(G, x, u, M);
                    for (int j = 0; j < 6; ++j) {
                        double xp[6], xm[6], Bp[36], Bm[36], fp[6], fm[6];
                        sp_vec_copy(6, x, xp);
                        sp_vec_copy(6, x, xm);
                        xp[j] += FD_EPS, xm[j] -= FD_EPS;
                        T->dtau(G, xp, Bp);
                        T->dtau(G, xm, Bm);
                        sp_mat_tvec(6, 6, Bp, u, fp);
                        sp_mat_tvec(6, 6, Bm, u, fm);
                        for (int i = 0; i < 6; ++i) F[6 * i + j] = (fp[i] - fm[i]) / (2.0 * FD_EPS);
                    }
                    worst_note(&dfd, sp_mat_dist(36, M, F) / worse(sp_vec_norm(36, M), 1.0), at);
                    sp_mat_mul(6, 6, 6, D, Di, P);
                    sp_mat_identity(6, I);
                    worst_note(&inv, sp_mat_dist(36, P, I) / (sp_vec_norm(36, D) * sp_vec_norm(36, Di)), at);
                }
        cr_log_info("SE3 %s over the grid: dτ vs FD %.1e, D_τ vs FD %.1e, |dτ dτ⁻¹ − I|/(|dτ||dτ⁻¹|) %.1e", T->name,
                    fd.err, dfd.err, inv.err);
        cr_assert_leq(fd.err, 1e-8, "SE3 %s: |dτ − FD|/|dτ| = %.3e", T->name, fd.err);
        cr_assert_leq(dfd.err, 1e-8, "SE3 %s: |D_τ − FD|/max(|D_τ|, 1) = %.3e", T->name, dfd.err);
        cr_assert_leq(inv.err, 1e-15, "SE3 %s: |dτ dτ⁻¹ − I|/(|dτ||dτ⁻¹|) = %.3e", T->name, inv.err);
    }
}

/* Ad_g against g x̂ g⁻¹, Ad* and ad* as the transposes, and the action against the matrix,
 * for elements with translations up to 1e3. */
Test(lie_conformance, se3_adjoint_maps_and_action_with_large_translations)
{
    const sp_group *G = sp_group_se3;
    rng r = {33};
    worst conj = {0, 0}, duals = {0, 0}, act = {0, 0};
    for (int a = 0; a < SE3_NA; ++a)
        for (int b = 0; b < SE3_NV; ++b)
            for (int k = 0; k < SE3_REPEAT; ++k) {
                double y[6], x[6], g[16], gi[16], Agx[6], A[36], As[36], AT[36], p[3], gp[3];
                se3_sample(&r, se3_angles[a], se3_vlens[b], y);
                rng_vector_len(&r, 6, 1.0, x);
                G->exp(G, y, g);
                G->inverse(G, g, gi);
                ld Mg[16], Mgi[16], X[16], H[16], ref[3];
                G->Ad(G, g, x, Agx);
                as_matrix(G, g, Mg);
                as_matrix(G, gi, Mgi);
                hat_ld(G, x, X);
                ld_mul(4, Mg, X, X);
                ld_mul(4, X, Mgi, X);
                hat_ld(G, Agx, H);
                const double s = elem_scale(G, g);
                worst_note(&conj, ld_dist(16, X, H) / (s * s), 0);
                map_matrix(G, Ad_adapter, g, A);
                map_matrix(G, Ad_star_adapter, g, As);
                sp_mat_transpose(6, A, AT);
                double e = sp_mat_dist(36, As, AT);
                map_matrix(G, ad_adapter, y, A);
                map_matrix(G, ad_star_adapter, y, As);
                sp_mat_transpose(6, A, AT);
                worst_note(&duals, worse(e, sp_mat_dist(36, As, AT)), 0);
                rng_vector_len(&r, 3, se3_vlens[b], p);
                G->act(G, g, p, gp);
                act_ld(G, Mg, p, ref);
                worst_note(&act, dist_ld(3, gp, ref) / (s + se3_vlens[b]), 0);
            }
    cr_log_info("SE3 with large translations: |g x̂ g⁻¹ − (Ad_g x)^|/|g|² %.1e, Ad*, ad* %.1e, act %.1e", conj.err,
                duals.err, act.err);
    cr_assert_leq(conj.err, 2e-15, "SE3: |g x̂ g⁻¹ − (Ad_g x)^| = %.3e relative to |g|²", conj.err);
    cr_assert_eq(duals.err, 0.0, "SE3: Ad* or ad* differs from the transpose by %.3e", duals.err);
    cr_assert_leq(act.err, 1e-15, "SE3: act differs from the matrix action by %.3e (relative)", act.err);
}

/* The table's maps written out in the ordering (ω, v): hat, vee, ad, ad*, Ad, Ad*, act. */
Test(lie_conformance, se3_algebra_ordering_and_adjoint_maps_written_out)
{
    const sp_group *G = sp_group_se3;
    cr_assert(G->dim == 6 && G->elem_size == 16 && G->mat_dim == 4 && G->act_dim == 3, "SE3: sizes");
    cr_assert(SP_LIE_MAX_DIM >= 6 && SP_LIE_MAX_ELEM >= 16 && SP_LIE_MAX_MAT >= 4, "SE3 does not fit the limits");
    const double a[6] = {0.3, -1.2, 0.8, 2.5, -0.4, 1.1}, c[6] = {-0.7, 0.4, 2.0, 0.6, 1.7, -0.9};
    double X[16], x[6];
    G->hat(G, a, X);
    const double Xa[16] = {0, -0.8, -1.2, 2.5, 0.8, 0, -0.3, -0.4, 1.2, 0.3, 0, 1.1, 0, 0, 0, 0};
    cr_assert(memcmp(X, Xa, sizeof Xa) == 0, "hat(ω, v) = [[ω̂, v], [0, 0]] with ω̂ the hat of so(3)");
    G->vee(G, Xa, x);
    cr_assert(memcmp(x, a, sizeof x) == 0, "vee inverts hat");

    double e = 0.0, out[6], ref[6], t1[3], t2[3];
    /* ad_a c = (ω_a × ω_c, ω_a × v_c + v_a × ω_c) */
    G->ad(G, a, c, out);
    sp_cross(a, c, ref);
    sp_cross(a, c + 3, t1);
    sp_cross(a + 3, c, t2);
    for (int i = 0; i < 3; ++i) ref[3 + i] = t1[i] + t2[i];
    e = fmax(e, sp_vec_dist(6, out, ref));
    /* ad*_a m = (m_ω × ω_a + m_v × v_a, m_v × ω_a) */
    G->ad_star(G, a, c, out);
    sp_cross(c, a, ref);
    sp_cross(c + 3, a + 3, t1);
    sp_cross(c + 3, a, ref + 3);
    for (int i = 0; i < 3; ++i) ref[i] += t1[i];
    e = fmax(e, sp_vec_dist(6, out, ref));
    /* Ad_g x = (Rω, Rv + t × Rω), Ad*_g m = (Rᵀ(m_ω + m_v × t), Rᵀ m_v), g·y = R y + t */
    double g[16], R[9], t[3];
    const double gx[6] = {1.1, 0.5, -0.3, 2.0, -1.0, 0.7};
    G->exp(G, gx, g);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) R[3 * i + j] = g[4 * i + j];
        t[i] = g[4 * i + 3];
    }
    cr_assert(g[12] == 0.0 && g[13] == 0.0 && g[14] == 0.0 && g[15] == 1.0, "last row of exp");
    G->Ad(G, g, a, out);
    sp_mat_vec(3, 3, R, a, ref);
    sp_mat_vec(3, 3, R, a + 3, ref + 3);
    sp_cross(t, ref, t1);
    for (int i = 0; i < 3; ++i) ref[3 + i] += t1[i];
    e = fmax(e, sp_vec_dist(6, out, ref));
    G->Ad_star(G, g, c, out);
    sp_cross(c + 3, t, t1);
    for (int i = 0; i < 3; ++i) t1[i] += c[i];
    sp_mat_tvec(3, 3, R, t1, ref);
    sp_mat_tvec(3, 3, R, c + 3, ref + 3);
    e = fmax(e, sp_vec_dist(6, out, ref));
    const double p[3] = {0.25, -1.5, 3.0};
    G->act(G, g, p, out);
    sp_mat_vec(3, 3, R, p, ref);
    for (int i = 0; i < 3; ++i) ref[i] += t[i];
    e = fmax(e, sp_vec_dist(3, out, ref));
    cr_log_info("SE3 ad, ad*, Ad, Ad*, act written out: worst %.1e", e);
    cr_assert_leq(e, 1e-15, "SE3: a map differs from its formula by %.3e", e);
}

/* Closed forms: exp of a pure rotation is that rotation, of a pure translation that
 * translation; exp of a twist (ω, q × ω + hω) is the screw motion about the axis through
 * q along ω, with pitch h: y ↦ R(y − q) + q + hω, i.e. t = (I − R) q + h ω. */
Test(lie_conformance, se3_exp_of_rotations_translations_and_screws)
{
    const sp_group *G = sp_group_se3, *S = sp_group_so3;
    rng r = {34};
    worst rot = {0, 0}, screw = {0, 0};
    for (int k = 0; k < NPOINTS; ++k) {
        double w[3], q[3], g[16], R[9], x[6], back[6], qw[3];
        const double theta = k % 4 == 0 ? 1e-8 * pow(1e8, rng_uniform(&r)) : RMAX * rng_uniform(&r);
        rng_vector_len(&r, 3, theta, w);

        /* pure rotation: [exp^SO(3)(ω), 0], checked against the 3x3 matrix exponential */
        x[0] = w[0], x[1] = w[1], x[2] = w[2], x[3] = x[4] = x[5] = 0.0;
        G->exp(G, x, g);
        ld W[9], E[9];
        so3_hat_ld(w, W);
        ld_expm(3, W, E);
        double e = 0.0;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) e = fmax(e, fabs((double)((ld)g[4 * i + j] - E[3 * i + j])));
            cr_assert(g[4 * i + 3] == 0.0, "exp of a pure rotation moves the origin (t[%d] = %g)", i, g[4 * i + 3]);
        }
        cr_assert(g[12] == 0.0 && g[13] == 0.0 && g[14] == 0.0 && g[15] == 1.0, "last row");
        cr_assert_eq(G->log(G, g, back), SP_OK);
        e = fmax(e, sp_vec_dist(6, back, x) / theta);
        worst_note(&rot, e, theta);

        /* pure translation: [I, v], exactly */
        const double v[6] = {0, 0, 0, 1e3 * (rng_uniform(&r) - 0.5), -3.0 * rng_uniform(&r), 1e-3 * rng_uniform(&r)};
        G->exp(G, v, g);
        const double gt[16] = {1, 0, 0, v[3], 0, 1, 0, v[4], 0, 0, 1, v[5], 0, 0, 0, 1};
        cr_assert(memcmp(g, gt, sizeof gt) == 0, "exp of a pure translation must be that translation, exactly");
        cr_assert_eq(G->log(G, g, back), SP_OK);
        cr_assert(memcmp(back, v, sizeof v) == 0, "log of a pure translation must be exact");

        /* screw about the axis through q, pitch h */
        rng_vector(&r, 3, k % 2 ? 1e3 : 2.0, q);
        const double h = 4.0 * rng_uniform(&r) - 2.0;
        sp_cross(q, w, qw);
        for (int i = 0; i < 3; ++i) x[i] = w[i], x[3 + i] = qw[i] + h * w[i];
        G->exp(G, x, g);
        S->exp(S, w, R);
        double t_ref[3], scale = 0.0;
        for (int i = 0; i < 3; ++i) {
            t_ref[i] = q[i] + h * w[i];
            for (int j = 0; j < 3; ++j) t_ref[i] -= R[3 * i + j] * q[j];
            scale = fmax(scale, fabs(q[i]));
        }
        e = 0.0;
        for (int i = 0; i < 3; ++i) e = fmax(e, fabs(g[4 * i + 3] - t_ref[i]));
        /* (I − R) q cancels to θ|q|: the reference itself is accurate to eps |q| */
        worst_note(&screw, e / fmax(scale, 1.0), theta);
        if (k < 8) { /* v ∥ ω: a pure advance along the axis, t = hω */
            for (int i = 0; i < 3; ++i) x[3 + i] = h * w[i];
            G->exp(G, x, g);
            double ea = 0.0;
            for (int i = 0; i < 3; ++i) ea = fmax(ea, fabs(g[4 * i + 3] - h * w[i]));
            worst_note(&screw, ea / fmax(theta, 1e-300), theta);
        }
    }
    cr_log_info("SE3: exp of pure rotations %.1e, of screws %.1e", rot.err, screw.err);
    cr_assert_leq(rot.err, 2e-15, "SE3: exp of a pure rotation is off by %.3e at θ = %g", rot.err, rot.at);
    cr_assert_leq(screw.err, 4e-15, "SE3: exp of a screw is off by %.3e at θ = %g", screw.err, screw.at);
}

/* The rotation part of every map is SO(3)'s: exp, log, cay, cay⁻¹, the diagonal blocks of
 * dexp, dexp⁻¹ (both), dcay, dcay⁻¹ (the first), ad and Ad, and D_τ where v = 0 (D_exp's
 * lower-left block is SO(3)'s D_exp in u_v whatever v). */
Test(lie_conformance, se3_rotation_blocks_are_so3)
{
    const sp_group *G = sp_group_se3, *S = sp_group_so3;
    rng r = {35};
    double e = 0.0;
    for (int k = 0; k < NPOINTS; ++k) {
        double x[6], u[6], g[16], R[9], y[6], w3[3];
        rng_vector(&r, 3, RMAX, x);
        rng_vector(&r, 3, k % 2 ? 1e3 : 1.0, x + 3);
        rng_vector_len(&r, 6, 1.0, u);
        /* elements: the rotation block and the ω of log and cay⁻¹ */
        G->exp(G, x, g);
        S->exp(S, x, R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) e = fmax(e, fabs(g[4 * i + j] - R[3 * i + j]));
        cr_assert_eq(G->log(G, g, y), SP_OK);
        cr_assert_eq(S->log(S, R, w3), SP_OK);
        e = fmax(e, sp_vec_dist(3, y, w3));
        G->cay(G, x, g);
        S->cay(S, x, R);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) e = fmax(e, fabs(g[4 * i + j] - R[3 * i + j]));
        cr_assert_eq(G->cay_inv(G, g, y), SP_OK);
        cr_assert_eq(S->cay_inv(S, R, w3), SP_OK);
        e = fmax(e, sp_vec_dist(3, y, w3));

        /* differentials: blocks (0,0) and, for dexp and dexp⁻¹, (1,1); block (0,1) is zero */
        void (*const big[4])(const sp_group *, const double *, double *) = {G->dexp, G->dexp_inv, G->dcay, G->dcay_inv};
        void (*const small[4])(const sp_group *, const double *, double *) = {S->dexp, S->dexp_inv, S->dcay,
                                                                              S->dcay_inv};
        for (int f = 0; f < 4; ++f) {
            double M[36], m[9];
            big[f](G, x, M);
            small[f](S, x, m);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    e = fmax(e, fabs(M[6 * i + j] - m[3 * i + j]));
                    e = fmax(e, fabs(M[6 * i + 3 + j]));
                    if (f < 2) e = fmax(e, fabs(M[6 * (3 + i) + 3 + j] - m[3 * i + j]));
                }
        }
        /* ad_x (on (η, 0)) and Ad_g: their rotation parts */
        double ad6[6], ad3[3], eta[6] = {u[0], u[1], u[2], 0, 0, 0};
        G->ad(G, x, eta, ad6);
        S->ad(S, x, eta, ad3);
        e = fmax(e, sp_vec_dist(3, ad6, ad3));
        G->exp(G, x, g);
        S->exp(S, x, R);
        G->Ad(G, g, u, ad6);
        S->Ad(S, R, u, ad3);
        e = fmax(e, sp_vec_dist(3, ad6, ad3));

        /* D_exp's lower-left block, and D_τ at v = 0 */
        double M[36], m[9];
        G->dexp_T_deriv(G, x, u, M);
        S->dexp_T_deriv(S, x, u + 3, m);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) e = fmax(e, fabs(M[6 * (3 + i) + j] - m[3 * i + j]));
        double x0[6] = {x[0], x[1], x[2], 0, 0, 0};
        for (int f = 0; f < 2; ++f) {
            if (f == 0)
                G->dexp_T_deriv(G, x0, u, M), S->dexp_T_deriv(S, x0, u, m);
            else
                G->dcay_T_deriv(G, x0, u, M), S->dcay_T_deriv(S, x0, u, m);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) e = fmax(e, fabs(M[6 * i + j] - m[3 * i + j]));
        }
    }
    cr_log_info("SE3: rotation blocks against SO3: worst %.1e", e);
    cr_assert_leq(e, 1e-15, "SE3: a rotation block differs from the SO3 group's by %.3e", e);
}

/* Domains: log is defined up to the rotation by π (one of its two logarithms, as on SO(3)),
 * cay⁻¹ is not defined there (checked on half turns that are exact in floating point: SO(3)'s
 * test is 1 + tr R > 0), and an element with a NaN or an infinity is refused. */
Test(lie_conformance, se3_log_and_cayley_domains)
{
    const sp_group *G = sp_group_se3;
    rng r = {36};
    double worst_back = 0.0;
    for (int k = 0; k < NPOINTS; ++k) {
        double u[3], g[16], x[6], back[16];
        rng_vector_len(&r, 3, 1.0, u);
        sp_mat_identity(4, g);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) g[4 * i + j] = 2.0 * u[i] * u[j] - (i == j); /* rotation by π */
            g[4 * i + 3] = 10.0 * (rng_uniform(&r) - 0.5);
        }
        cr_assert_eq(G->log(G, g, x), SP_OK, "log of a rotation by π");
        cr_assert_leq(fabs(sp_vec_norm(3, x) - SP_PI), 1e-12, "log of a rotation by π has angle %.17g",
                      sp_vec_norm(3, x));
        G->exp(G, x, back);
        worst_back = fmax(worst_back, sp_mat_dist(16, back, g));
    }
    /* half turns about the axes e₁, e₂, e₃ and (e₁ ± e₂)/√2, with a translation */
    const double half_turns[5][9] = {{1, 0, 0, 0, -1, 0, 0, 0, -1},
                                     {-1, 0, 0, 0, 1, 0, 0, 0, -1},
                                     {-1, 0, 0, 0, -1, 0, 0, 0, 1},
                                     {0, 1, 0, 1, 0, 0, 0, 0, -1},
                                     {0, -1, 0, -1, 0, 0, 0, 0, -1}};
    for (int k = 0; k < 5; ++k) {
        double g[16], x[6];
        sp_mat_identity(4, g);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) g[4 * i + j] = half_turns[k][3 * i + j];
            g[4 * i + 3] = 0.5 + i;
        }
        cr_assert_eq(G->cay_inv(G, g, x), SP_ERR_DOMAIN, "cay⁻¹ of half turn %d must be SP_ERR_DOMAIN", k);
        cr_assert_eq(G->log(G, g, x), SP_OK, "log of half turn %d", k);
    }
    cr_log_info("SE3: |exp(log g) − g| at rotations by π: %.1e", worst_back);
    cr_assert_leq(worst_back, 1e-13, "SE3: exp(log g) misses g by %.3e at a rotation by π", worst_back);
    double bad[16], x[6];
    sp_mat_identity(4, bad);
    bad[7] = NAN;
    cr_assert_eq(G->log(G, bad, x), SP_ERR_DOMAIN, "log of an element with a NaN must be SP_ERR_DOMAIN");
    bad[7] = 0.0, bad[5] = INFINITY;
    cr_assert_eq(G->log(G, bad, x), SP_ERR_DOMAIN, "log of an element with an infinity must be SP_ERR_DOMAIN");
}
