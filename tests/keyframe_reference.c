/* The keyframe reference of keyframe_reference.h: the cost J_d with its adjoint gradient,
 * three starting guesses, and L-BFGS from each of them.
 *
 * Gradient. Perturb every node on the right, g_k → g_k exp(δ_k^). Both retractions are
 * differentiated with the right-trivialised differential, d/ds τ(x + s y) = (dτ_x y)^ τ(x):
 *     dcay_x = 2/(4 + |x|²) (2I + x̂),   dexp_x = I + B x̂ + C x̂²,
 *     B = (1 − cos φ)/φ², C = (φ − sin φ)/φ³, φ = |x|.
 * From g_{k+1} = g_k Q_k, Q_k = τ(Δ_k), a perturbation δ_k of g_k and dΔ_k of Δ_k give
 *     δ_{k+1} = Q_kᵀ (δ_k + dτ_{Δ_k} dΔ_k).
 * With e_k the body gradient of the penalties at node k (the sum of ∇E_i over the
 * keyframes on node k), the costate a_k = ∂J/∂δ_k obeys
 *     a_N = e_N,   a_k = e_k + Q_k a_{k+1},
 * and ∂J/∂Δ_k = dτ_{Δ_k}ᵀ Q_k a_{k+1}, which reaches ξ_k with weight h(1 − θ) and ξ_{k+1}
 * with weight hθ. The body gradients of the penalties are
 *     sphere:    E = |g y0 − y|²/(2σ²),   ∇E = −(1/σ²) y0 × (gᵀ y),
 *     rotation:  E = |g − R|_F²/(2σ²),    ∇E = (1/σ²) (A − Aᵀ)^∨,  A = Rᵀ g.
 *
 * Starts. Every start lifts the keyframes to rotations first ("knots" K_0 = g0 at t = 0,
 * K_1 … K_n at the keyframes; on the sphere K_i = Rot(y_{i−1} → y_i) K_{i−1}, Rot the
 * smallest rotation between the two points, y_0 = g0 y0, so that K_i y0 = y_i). With
 * v_j = log(K_jᵀ K_{j+1}) / (t_{j+1} − t_j) the constant body velocity of the shortest
 * geodesic from knot j to knot j + 1:
 *   zero      ξ_k = xi0 everywhere (0 when xi0 is free);
 *   geodesic  ξ_k = v_j on the nodes inside interval j, the mean of v_{j−1} and v_j on
 *             the node of an interior knot, v_{n−1} after the last keyframe;
 *   spline    a C¹ Catmull–Rom-like curve: each knot gets the body velocity
 *             ω_j = (v_{j−1} + v_j)/2 (xi0 at the start, v_{n−1} at the last knot), and
 *             on interval j the curve is K_j exp(r(t)) with r the cubic Hermite
 *             interpolant of r = 0, ṙ = ω_j at the left end and r = log(K_jᵀ K_{j+1}),
 *             ṙ = J_r(r)⁻¹ ω_{j+1} at the right end (J_r the right Jacobian of exp, so
 *             that the body velocity J_r(r) ṙ is continuous at the knots). ξ_k is the
 *             exact body velocity J_r(r) ṙ of this curve at node k; after the last
 *             keyframe the velocity stays ω_n.
 * Prescribed end velocities (xi0, xiT) overwrite ξ_0 and ξ_N in every start. */
#include "tests/keyframe_reference.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <nlopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double kf_exact_sigmas[KF_EXACT_STAGES] = {1e-2, 1e-3, 1e-4};

static const double kf_pi = 3.14159265358979323846;

/* ---------------------------------------------------------------- 3-vectors and 3×3 matrices */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double *a) { return sqrt(dot3(a, a)); }

static void cross3(const double *a, const double *b, double *c)
{
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(c, r, sizeof r);
}

/* C = A B (C may alias neither). */
static void mat_mul(const double *A, const double *B, double *C)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* C = Aᵀ B. */
static void mat_tmul(const double *A, const double *B, double *C)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* y = A x and y = Aᵀ x (y may not alias x). */
static void mat_vec(const double *A, const double *x, double *y)
{
    for (int i = 0; i < 3; ++i) y[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

static void mat_tvec(const double *A, const double *x, double *y)
{
    for (int i = 0; i < 3; ++i) y[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
}

static void identity3(double *M)
{
    memset(M, 0, 9 * sizeof *M);
    M[0] = M[4] = M[8] = 1.0;
}

/* M = a I + b x̂ + c x̂² (x̂² = x xᵀ − |x|² I). */
static void quadratic_in_hat(double a, double b, double c, const double *x, double *M)
{
    double xx = dot3(x, x);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) M[3 * i + j] = c * x[i] * x[j] + (i == j ? a - c * xx : 0.0);
    M[1] -= b * x[2], M[2] += b * x[1];
    M[3] += b * x[2], M[5] -= b * x[0];
    M[6] -= b * x[1], M[7] += b * x[0];
}

/* The coefficients of Rodrigues' formula and of the differential of exp:
 * s1 = sin φ/φ, s2 = (1 − cos φ)/φ², s3 = (φ − sin φ)/φ³, by their series for small φ. */
static void exp_coefficients(double phi, double *s1, double *s2, double *s3)
{
    double p2 = phi * phi;
    if (phi < 1e-3) {
        *s1 = 1.0 - p2 / 6.0 * (1.0 - p2 / 20.0);
        *s2 = 0.5 - p2 / 24.0 * (1.0 - p2 / 30.0);
        *s3 = 1.0 / 6.0 - p2 / 120.0 * (1.0 - p2 / 42.0);
    } else {
        *s1 = sin(phi) / phi;
        *s2 = (1.0 - cos(phi)) / p2;
        *s3 = (phi - sin(phi)) / (p2 * phi);
    }
}

static void so3_exp(const double *x, double *R)
{
    double s1, s2, s3;
    exp_coefficients(norm3(x), &s1, &s2, &s3);
    quadratic_in_hat(1.0, s1, s2, x, R);
}

static void so3_cay(const double *x, double *R)
{
    double f = 4.0 / (4.0 + dot3(x, x));
    quadratic_in_hat(1.0, f, 0.5 * f, x, R);
}

/* The right-trivialised differential of the retraction at x. */
static void so3_dretraction(int use_exp, const double *x, double *D)
{
    if (use_exp) {
        double s1, s2, s3;
        exp_coefficients(norm3(x), &s1, &s2, &s3);
        quadratic_in_hat(1.0, s2, s3, x, D);
    } else {
        double f = 2.0 / (4.0 + dot3(x, x));
        quadratic_in_hat(2.0 * f, f, 0.0, x, D);
    }
}

/* J_r(x) = dexp at −x: the body velocity of t ↦ K exp(r(t)) is J_r(r) ṙ. */
static void so3_right_jacobian(const double *x, double *D)
{
    double s1, s2, s3;
    exp_coefficients(norm3(x), &s1, &s2, &s3);
    quadratic_in_hat(1.0, -s2, s3, x, D);
}

/* The principal logarithm: the rotation vector of R with angle in [0, π]. */
static void so3_log(const double *R, double *x)
{
    double v[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])}; /* sin φ · axis */
    double s = norm3(v), c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    double phi = atan2(s, c);
    if (c > -0.9) {
        double f = phi < 1e-4 ? 1.0 + phi * phi / 6.0 : phi / sin(phi);
        for (int i = 0; i < 3; ++i) x[i] = f * v[i];
        return;
    }
    /* Near π the antisymmetric part is small: the axis from the symmetric part,
     * (R + Rᵀ)/2 = c I + (1 − c) u uᵀ, its sign from the antisymmetric part. */
    double S[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S[3 * i + j] = (0.5 * (R[3 * i + j] + R[3 * j + i]) - (i == j ? c : 0.0)) / (1.0 - c);
    int m = 0;
    for (int i = 1; i < 3; ++i)
        if (S[4 * i] > S[4 * m]) m = i;
    double u[3] = {S[3 * m], S[3 * m + 1], S[3 * m + 2]}, nu = norm3(u);
    for (int i = 0; i < 3; ++i) u[i] /= nu;
    if (dot3(u, v) < 0.0)
        for (int i = 0; i < 3; ++i) u[i] = -u[i];
    for (int i = 0; i < 3; ++i) x[i] = phi * u[i];
}

/* The smallest rotation taking the unit vector a to the unit vector b. */
static void rotation_between(const double *a, const double *b, double *R)
{
    double w[3], s, c = dot3(a, b);
    cross3(a, b, w);
    s = norm3(w);
    double phi = atan2(s, c);
    if (s < 1e-12 && c < 0.0) { /* antipodal: any axis orthogonal to a */
        double e[3] = {0.0, 0.0, 0.0};
        e[fabs(a[0]) < 0.6 ? 0 : fabs(a[1]) < 0.6 ? 1 : 2] = 1.0;
        cross3(a, e, w);
        s = norm3(w);
    }
    for (int i = 0; i < 3; ++i) w[i] = s > 0.0 ? w[i] / s * phi : 0.0;
    so3_exp(w, R);
}

/* Inverse of a 3×3 matrix by its adjugate. */
static void mat_inverse(const double *A, double *B)
{
    double C[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                   A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                   A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    double det = A[0] * C[0] + A[1] * C[3] + A[2] * C[6];
    for (int i = 0; i < 9; ++i) B[i] = C[i] / det;
}

/* ---------------------------------------------------------------- schedules */

void kf_schedule_free(kf_schedule *s)
{
    if (!s) return;
    free(s->t);
    free(s->y);
    free(s->R);
    s->t = s->y = s->R = NULL;
    s->n = 0;
}

/* splitmix64: a small, well-mixed generator whose whole state is one word. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *state) { return (double)(next_random(state) >> 11) * 0x1.0p-53; }

/* A uniformly distributed unit vector (Archimedes: z uniform in [−1, 1]). */
static void random_unit(uint64_t *state, double *u)
{
    double z = 2.0 * uniform01(state) - 1.0, a = 2.0 * kf_pi * uniform01(state), r = sqrt(fmax(0.0, 1.0 - z * z));
    u[0] = r * cos(a), u[1] = r * sin(a), u[2] = z;
}

/* A random unit vector orthogonal to the unit vector y. */
static void random_orthogonal(uint64_t *state, const double *y, double *u)
{
    for (;;) {
        random_unit(state, u);
        double d = dot3(u, y);
        for (int i = 0; i < 3; ++i) u[i] -= d * y[i];
        double n = norm3(u);
        if (n > 1e-3) {
            for (int i = 0; i < 3; ++i) u[i] /= n;
            return;
        }
    }
}

void kf_random_schedule(unsigned long seed, int sphere, int n_keyframes, double step_angle, int steps_per_unit,
                        double sigma, kf_schedule *out)
{
    memset(out, 0, sizeof *out);
    uint64_t state = (uint64_t)seed;
    int n = n_keyframes;
    out->sphere = sphere;
    out->y0[2] = 1.0;
    identity3(out->g0);
    out->T = n;
    out->steps = n * steps_per_unit;
    out->sigma = sigma;
    out->theta = 0.5;
    out->n = n;
    out->t = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->t);
    if (sphere)
        out->y = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *out->y);
    else
        out->R = malloc((size_t)(n > 0 ? n : 1) * 9 * sizeof *out->R);
    if (!out->t || (sphere ? !out->y : !out->R)) {
        kf_schedule_free(out);
        return;
    }
    double u[3];
    random_unit(&state, u);
    for (int i = 0; i < 3; ++i) out->xi0[i] = 0.2 * u[i];

    double prev_y[3] = {0.0, 0.0, 1.0}, prev_R[9];
    identity3(prev_R);
    for (int i = 0; i < n; ++i) {
        out->t[i] = i + 1;
        double w[3], E[9];
        if (sphere) {
            random_orthogonal(&state, prev_y, u);
            for (int j = 0; j < 3; ++j) w[j] = step_angle * u[j];
            so3_exp(w, E);
            mat_vec(E, prev_y, out->y + 3 * i);
            memcpy(prev_y, out->y + 3 * i, sizeof prev_y);
        } else {
            random_unit(&state, u);
            for (int j = 0; j < 3; ++j) w[j] = step_angle * u[j];
            so3_exp(w, E);
            mat_mul(prev_R, E, out->R + 9 * i);
            memcpy(prev_R, out->R + 9 * i, sizeof prev_R);
        }
    }
}

/* A growing string; `failed` once an allocation failed. */
typedef struct text_buffer {
    char *data;
    size_t length, size;
    int failed;
} text_buffer;

static void append(text_buffer *b, const char *format, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, format);
        int m = vsnprintf(b->data ? b->data + b->length : NULL, b->data ? b->size - b->length : 0, format, ap);
        va_end(ap);
        if (m < 0) {
            b->failed = 1;
            return;
        }
        if (b->data && b->length + (size_t)m < b->size) {
            b->length += (size_t)m;
            return;
        }
        size_t size = 2 * (b->size + (size_t)m + 64);
        char *p = realloc(b->data, size);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->data = p, b->size = size;
    }
}

static void append_vector(text_buffer *b, const double *v)
{
    append(b, "[%.17g, %.17g, %.17g]", v[0], v[1], v[2]);
}

static void append_matrix(text_buffer *b, const double *M)
{
    append(b, "[");
    for (int i = 0; i < 3; ++i) {
        append_vector(b, M + 3 * i);
        append(b, i < 2 ? ", " : "]");
    }
}

static const char *scheme_name(double theta)
{
    return theta == 0.0 ? "hohp_euler" : theta == 1.0 ? "hohp_euler_adjoint" : "hohp_sv";
}

char *kf_schedule_json(const kf_schedule *s)
{
    text_buffer b = {0};
    double I[9];
    identity3(I);
    append(&b, "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3\", \"space\": \"%s\"",
           s->sphere ? "sphere" : "group");
    if (s->sphere) {
        append(&b, ", \"y0\": ");
        append_vector(&b, s->y0);
    }
    if (memcmp(s->g0, I, sizeof I) != 0) {
        append(&b, ", \"g0\": ");
        append_matrix(&b, s->g0);
    }
    append(&b, ", \"T\": %.17g, \"steps\": %d, \"scheme\": \"%s\", \"retraction\": \"%s\", \"xi0\": ", s->T, s->steps,
           scheme_name(s->theta), s->exp_retraction ? "exp" : "cayley");
    if (s->xi0_free)
        append(&b, "\"free\"");
    else
        append_vector(&b, s->xi0);
    if (s->has_xiT) {
        append(&b, ", \"xiT\": ");
        append_vector(&b, s->xiT);
    }
    append(&b, ", \"sigma\": %.17g, \"targets\": [", s->sigma);
    for (int i = 0; i < s->n; ++i) {
        append(&b, "%s{\"t\": %.17g, \"%s\": ", i ? ", " : "", s->t[i], s->sphere ? "y" : "R");
        if (s->sphere)
            append_vector(&b, s->y + 3 * i);
        else
            append_matrix(&b, s->R + 9 * i);
        append(&b, "}");
    }
    append(&b, "]}\n");
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* n numbers of a JSON array into v; 0 on success. */
static int read_numbers(const cJSON *a, int n, double *v)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) return -1;
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, ++i) {
        if (!cJSON_IsNumber(e)) return -1;
        v[i] = e->valuedouble;
    }
    return 0;
}

/* A 3×3 matrix given as three rows. */
static int read_matrix(const cJSON *a, double *M)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) return -1;
    int i = 0;
    for (const cJSON *row = a->child; row; row = row->next, ++i)
        if (read_numbers(row, 3, M + 3 * i) != 0) return -1;
    return 0;
}

static int read_number(const cJSON *root, const char *key, double *x)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!cJSON_IsNumber(v)) return -1;
    *x = v->valuedouble;
    return 0;
}

static int read_schedule(const cJSON *root, kf_schedule *s)
{
    const cJSON *v;
    const char *space = "sphere", *scheme = "hohp_sv", *retraction = "cayley";
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "space")) && !(space = cJSON_GetStringValue(v))) return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "scheme")) && !(scheme = cJSON_GetStringValue(v))) return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "retraction")) && !(retraction = cJSON_GetStringValue(v)))
        return -1;
    if (strcmp(space, "sphere") != 0 && strcmp(space, "group") != 0) return -1;
    s->sphere = strcmp(space, "sphere") == 0;
    if (strcmp(scheme, "hohp_euler") == 0)
        s->theta = 0.0;
    else if (strcmp(scheme, "hohp_sv") == 0)
        s->theta = 0.5;
    else if (strcmp(scheme, "hohp_euler_adjoint") == 0)
        s->theta = 1.0;
    else
        return -1;
    if (strcmp(retraction, "cayley") != 0 && strcmp(retraction, "exp") != 0) return -1;
    s->exp_retraction = strcmp(retraction, "exp") == 0;

    if (s->sphere && read_numbers(cJSON_GetObjectItemCaseSensitive(root, "y0"), 3, s->y0) != 0) return -1;
    identity3(s->g0);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "g0")) && read_matrix(v, s->g0) != 0) return -1;
    v = cJSON_GetObjectItemCaseSensitive(root, "xi0");
    if (cJSON_IsString(v) && strcmp(v->valuestring, "free") == 0)
        s->xi0_free = 1;
    else if (read_numbers(v, 3, s->xi0) != 0)
        return -1;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "xiT"))) {
        if (read_numbers(v, 3, s->xiT) != 0) return -1;
        s->has_xiT = 1;
    }
    double steps;
    if (read_number(root, "T", &s->T) != 0 || !(s->T > 0.0) || read_number(root, "steps", &steps) != 0 ||
        !(steps >= 1.0 && steps <= 1e7) || read_number(root, "sigma", &s->sigma) != 0 || !(s->sigma >= 0.0))
        return -1;
    s->steps = (int)steps;

    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets");
    if (!cJSON_IsArray(targets)) return -1;
    int n = cJSON_GetArraySize(targets);
    s->n = n;
    s->t = malloc((size_t)(n > 0 ? n : 1) * sizeof *s->t);
    if (s->sphere)
        s->y = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof *s->y);
    else
        s->R = malloc((size_t)(n > 0 ? n : 1) * 9 * sizeof *s->R);
    if (!s->t || (s->sphere ? !s->y : !s->R)) return -1;
    int i = 0;
    for (const cJSON *e = targets->child; e; e = e->next, ++i) {
        if (read_number(e, "t", &s->t[i]) != 0) return -1;
        if (s->sphere ? read_numbers(cJSON_GetObjectItemCaseSensitive(e, "y"), 3, s->y + 3 * i)
                      : read_matrix(cJSON_GetObjectItemCaseSensitive(e, "R"), s->R + 9 * i))
            return -1;
    }
    return 0;
}

int kf_schedule_parse(const char *text, kf_schedule *out)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 0);
    int st = cJSON_IsObject(root) ? read_schedule(root, out) : -1;
    cJSON_Delete(root);
    if (st != 0) kf_schedule_free(out);
    return st;
}

int kf_schedule_read(const char *path, kf_schedule *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t size = 0, length = 0;
    char *text = NULL;
    for (;;) {
        if (length + 4096 + 1 > size) {
            size = 2 * size + 4096 + 1;
            char *p = realloc(text, size);
            if (!p) break;
            text = p;
        }
        size_t m = fread(text + length, 1, size - length - 1, f);
        length += m;
        if (m == 0) break;
    }
    int ok = text && !ferror(f);
    fclose(f);
    int st = -1;
    if (ok) {
        text[length] = '\0';
        st = kf_schedule_parse(text, out);
    }
    free(text);
    return st;
}

/* ---------------------------------------------------------------- the cost and its gradient */

/* What one evaluation needs, allocated once per schedule. */
typedef struct kf_work {
    const kf_schedule *s;
    int N;
    double h;
    int *node;      /* the grid node of each keyframe */
    double *delta;  /* Δ_k, 3N */
    double *Q;      /* τ(Δ_k), 9N */
    double *g;      /* g_k, 9(N+1) */
    double *e;      /* body gradients of the penalties on each node, 3(N+1) */
    /* the optimiser's view: the free velocities are xi[3 first … 3 (last + 1)) */
    int first, last;
    double *xi, *grad, *best_x;
    double best_f, sigma, scale;
    int evaluations;
} kf_work;

static void work_free(kf_work *w)
{
    free(w->node);
    free(w->delta);
    free(w->Q);
    free(w->g);
    free(w->e);
    free(w->xi);
    free(w->grad);
    free(w->best_x);
}

static int work_alloc(const kf_schedule *s, kf_work *w)
{
    memset(w, 0, sizeof *w);
    int N = s->steps;
    size_t m = (size_t)N + 1;
    w->s = s, w->N = N, w->h = s->T / N;
    w->first = s->xi0_free ? 0 : 1;
    w->last = s->has_xiT ? N - 1 : N;
    w->node = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *w->node);
    w->delta = malloc(3 * m * sizeof *w->delta);
    w->Q = malloc(9 * m * sizeof *w->Q);
    w->g = malloc(9 * m * sizeof *w->g);
    w->e = malloc(3 * m * sizeof *w->e);
    w->xi = malloc(3 * m * sizeof *w->xi);
    w->grad = malloc(3 * m * sizeof *w->grad);
    w->best_x = malloc(3 * m * sizeof *w->best_x);
    if (!w->node || !w->delta || !w->Q || !w->g || !w->e || !w->xi || !w->grad || !w->best_x) {
        work_free(w);
        return -1;
    }
    for (int i = 0; i < s->n; ++i) {
        long k = lround(s->t[i] / w->h);
        w->node[i] = k < 0 ? 0 : k > N ? N : (int)k;
    }
    return 0;
}

/* J_d at penalty width sigma > 0; the running cost in *running, the gradient (zero on
 * fixed velocities) in grad when not NULL. */
static double evaluate(kf_work *w, const double *xi, double sigma, double *running, double *grad)
{
    const kf_schedule *s = w->s;
    const int N = w->N;
    const double h = w->h, th = s->theta, w2 = 1.0 / (sigma * sigma);

    memcpy(w->g, s->g0, 9 * sizeof *w->g);
    for (int k = 0; k < N; ++k) {
        double *d = w->delta + 3 * k;
        for (int j = 0; j < 3; ++j) d[j] = h * ((1.0 - th) * xi[3 * k + j] + th * xi[3 * k + 3 + j]);
        if (s->exp_retraction)
            so3_exp(d, w->Q + 9 * k);
        else
            so3_cay(d, w->Q + 9 * k);
        mat_mul(w->g + 9 * k, w->Q + 9 * k, w->g + 9 * k + 9);
    }

    double run = 0.0;
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < 3; ++j) {
            double eta = (xi[3 * k + 3 + j] - xi[3 * k + j]) / h;
            run += 0.5 * h * eta * eta;
        }

    double penalty = 0.0;
    memset(w->e, 0, 3 * ((size_t)N + 1) * sizeof *w->e);
    for (int i = 0; i < s->n; ++i) {
        const int k = w->node[i];
        const double *g = w->g + 9 * k;
        double *e = w->e + 3 * k;
        if (s->sphere) {
            const double *y = s->y + 3 * i;
            double p[3], gy[3], c[3];
            mat_vec(g, s->y0, p);
            for (int j = 0; j < 3; ++j) penalty += 0.5 * w2 * (p[j] - y[j]) * (p[j] - y[j]);
            mat_tvec(g, y, gy);
            cross3(s->y0, gy, c);
            for (int j = 0; j < 3; ++j) e[j] -= w2 * c[j];
        } else {
            const double *R = s->R + 9 * i;
            double A[9];
            for (int j = 0; j < 9; ++j) penalty += 0.5 * w2 * (g[j] - R[j]) * (g[j] - R[j]);
            mat_tmul(R, g, A);
            e[0] += w2 * (A[7] - A[5]);
            e[1] += w2 * (A[2] - A[6]);
            e[2] += w2 * (A[3] - A[1]);
        }
    }
    if (running) *running = run;

    if (grad) {
        memset(grad, 0, 3 * ((size_t)N + 1) * sizeof *grad);
        for (int k = 0; k < N; ++k)
            for (int j = 0; j < 3; ++j) {
                double eta = (xi[3 * k + 3 + j] - xi[3 * k + j]) / h;
                grad[3 * k + j] -= eta;
                grad[3 * k + 3 + j] += eta;
            }
        /* the reverse sweep: a holds a_{k+1} on entry to step k */
        double a[3], b[3], c[3], D[9];
        memcpy(a, w->e + 3 * N, sizeof a);
        for (int k = N - 1; k >= 0; --k) {
            mat_vec(w->Q + 9 * k, a, b);
            so3_dretraction(s->exp_retraction, w->delta + 3 * k, D);
            mat_tvec(D, b, c);
            for (int j = 0; j < 3; ++j) {
                grad[3 * k + j] += h * (1.0 - th) * c[j];
                grad[3 * k + 3 + j] += h * th * c[j];
                a[j] = b[j] + w->e[3 * k + j];
            }
        }
        if (!s->xi0_free) memset(grad, 0, 3 * sizeof *grad);
        if (s->has_xiT) memset(grad + 3 * N, 0, 3 * sizeof *grad);
    }
    return run + penalty;
}

static double penalty_sigma(const kf_schedule *s)
{
    return s->sigma > 0.0 ? s->sigma : kf_exact_sigmas[KF_EXACT_STAGES - 1];
}

double kf_cost(const kf_schedule *s, const double *xi, double *running_cost, double *grad)
{
    kf_work w;
    if (work_alloc(s, &w) != 0) return NAN;
    double J = evaluate(&w, xi, penalty_sigma(s), running_cost, grad);
    work_free(&w);
    return J;
}

/* ---------------------------------------------------------------- starts */

/* The knots: K_0 = g0 on node 0, then the keyframes lifted to rotations. K holds 9(n+1)
 * numbers, node n + 1. */
static void knots(const kf_schedule *s, const kf_work *w, double *K, int *node)
{
    memcpy(K, s->g0, 9 * sizeof *K);
    node[0] = 0;
    double prev[3], cur[3], Rot[9];
    if (s->sphere) {
        mat_vec(s->g0, s->y0, prev);
        double n0 = norm3(prev);
        for (int j = 0; j < 3; ++j) prev[j] /= n0;
    }
    for (int i = 0; i < s->n; ++i) {
        node[i + 1] = w->node[i];
        if (s->sphere) {
            double ny = norm3(s->y + 3 * i);
            for (int j = 0; j < 3; ++j) cur[j] = s->y[3 * i + j] / ny;
            rotation_between(prev, cur, Rot);
            mat_mul(Rot, K + 9 * i, K + 9 * i + 9);
            memcpy(prev, cur, sizeof prev);
        } else {
            memcpy(K + 9 * i + 9, s->R + 9 * i, 9 * sizeof *K);
        }
    }
}

/* log(K_aᵀ K_b). */
static void relative_log(const double *Ka, const double *Kb, double *r)
{
    double M[9];
    mat_tmul(Ka, Kb, M);
    so3_log(M, r);
}

/* v[3n]: the geodesic velocity of each interval between knots (an interval of no length
 * repeats the previous velocity). */
static void interval_velocities(const kf_schedule *s, const kf_work *w, const double *K, const int *node, double *v)
{
    for (int j = 0; j < s->n; ++j) {
        int len = node[j + 1] - node[j];
        if (len <= 0) {
            for (int c = 0; c < 3; ++c) v[3 * j + c] = j ? v[3 * j - 3 + c] : 0.0;
            continue;
        }
        relative_log(K + 9 * j, K + 9 * j + 9, v + 3 * j);
        for (int c = 0; c < 3; ++c) v[3 * j + c] /= len * w->h;
    }
}

static void zero_start(const kf_schedule *s, int N, double *xi)
{
    for (int k = 0; k <= N; ++k)
        for (int c = 0; c < 3; ++c) xi[3 * k + c] = s->xi0_free ? 0.0 : s->xi0[c];
}

static void geodesic_start(const kf_schedule *s, const kf_work *w, const int *node, const double *v, double *xi)
{
    const int N = w->N, n = s->n;
    for (int j = 0; j < n; ++j)
        for (int k = node[j]; k <= node[j + 1]; ++k)
            for (int c = 0; c < 3; ++c) xi[3 * k + c] = v[3 * j + c];
    for (int j = 1; j < n; ++j) /* interior knots: the mean of the two sides */
        for (int c = 0; c < 3; ++c) xi[3 * node[j] + c] = 0.5 * (v[3 * j - 3 + c] + v[3 * j + c]);
    for (int k = node[n] + 1; k <= N; ++k)
        for (int c = 0; c < 3; ++c) xi[3 * k + c] = v[3 * n - 3 + c];
}

static void spline_start(const kf_schedule *s, const kf_work *w, const double *K, const int *node, const double *v,
                         double *xi)
{
    const int N = w->N, n = s->n;
    const double h = w->h;
    /* knot velocities ω_j, one at a time: ω_j and ω_{j+1} bound interval j */
    double om0[3], om1[3];
    for (int c = 0; c < 3; ++c) om0[c] = s->xi0_free ? v[c] : s->xi0[c];
    for (int j = 0; j < n; ++j) {
        for (int c = 0; c < 3; ++c) om1[c] = j + 1 < n ? 0.5 * (v[3 * j + c] + v[3 * j + 3 + c]) : v[3 * j + c];
        int a = node[j], b = node[j + 1];
        if (b > a) {
            double rho[3], Jr[9], Ji[9], rd1[3], Delta = (b - a) * h;
            relative_log(K + 9 * j, K + 9 * j + 9, rho);
            so3_right_jacobian(rho, Jr);
            mat_inverse(Jr, Ji);
            mat_vec(Ji, om1, rd1);
            for (int k = a; k < b; ++k) {
                double u = (double)(k - a) / (b - a), u2 = u * u, u3 = u2 * u, r[3], rd[3];
                double h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
                double d10 = 3 * u2 - 4 * u + 1, d01 = -6 * u2 + 6 * u, d11 = 3 * u2 - 2 * u;
                for (int c = 0; c < 3; ++c) {
                    r[c] = h10 * Delta * om0[c] + h01 * rho[c] + h11 * Delta * rd1[c];
                    rd[c] = d10 * om0[c] + d01 * rho[c] / Delta + d11 * rd1[c];
                }
                so3_right_jacobian(r, Jr);
                mat_vec(Jr, rd, xi + 3 * k);
            }
        }
        memcpy(om0, om1, sizeof om0);
    }
    for (int k = node[n]; k <= N; ++k) memcpy(xi + 3 * k, om0, sizeof om0);
}

static void start_with(const kf_schedule *s, const kf_work *w, int start, double *xi)
{
    const int N = w->N, n = s->n;
    zero_start(s, N, xi);
    if (start != KF_START_ZERO && n > 0) {
        double *K = malloc(9 * ((size_t)n + 1) * sizeof *K), *v = malloc(3 * (size_t)n * sizeof *v);
        int *node = malloc(((size_t)n + 1) * sizeof *node);
        if (K && v && node) {
            knots(s, w, K, node);
            interval_velocities(s, w, K, node, v);
            if (start == KF_START_GEODESIC)
                geodesic_start(s, w, node, v, xi);
            else
                spline_start(s, w, K, node, v, xi);
        }
        free(K);
        free(v);
        free(node);
    }
    if (!s->xi0_free) memcpy(xi, s->xi0, 3 * sizeof *xi);
    if (s->has_xiT) memcpy(xi + 3 * N, s->xiT, 3 * sizeof *xi);
}

void kf_start(const kf_schedule *s, int start, double *xi)
{
    kf_work w;
    if (work_alloc(s, &w) != 0) return;
    start_with(s, &w, start, xi);
    work_free(&w);
}

/* ---------------------------------------------------------------- L-BFGS */

static double objective(unsigned n, const double *x, double *grad, void *data)
{
    kf_work *w = data;
    memcpy(w->xi + 3 * w->first, x, n * sizeof *x);
    double J = evaluate(w, w->xi, w->sigma, NULL, grad ? w->grad : NULL);
    ++w->evaluations;
    if (grad)
        for (unsigned i = 0; i < n; ++i) grad[i] = w->grad[3 * w->first + i] / w->scale;
    if (J < w->best_f) {
        w->best_f = J;
        memcpy(w->best_x, x, n * sizeof *x);
    }
    return J / w->scale;
}

/* L-BFGS on the free velocities x at penalty width sigma, restarted while a restart still
 * improves; the best point seen is left in x. 0, or -1 when NLopt refuses. */
static int minimise(kf_work *w, double *x, double sigma)
{
    const unsigned n = (unsigned)(3 * (w->last - w->first + 1));
    if (n == 0) return 0;
    w->sigma = sigma;
    /* NLopt's L-BFGS tries a first step as long as the gradient: scale J so that it is at
     * most 1 */
    evaluate(w, w->xi, sigma, NULL, w->grad); /* w->xi holds x in place already */
    double gn = 0.0;
    for (unsigned i = 0; i < n; ++i) gn += w->grad[3 * w->first + i] * w->grad[3 * w->first + i];
    w->scale = fmax(1.0, sqrt(gn));

    nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n);
    if (!opt) return -1;
    int st = 0;
    if (nlopt_set_min_objective(opt, objective, w) < 0 || nlopt_set_vector_storage(opt, 20) < 0 ||
        nlopt_set_ftol_rel(opt, 1e-15) < 0 || nlopt_set_xtol_rel(opt, 1e-14) < 0 ||
        nlopt_set_maxeval(opt, 20000 + 100 * w->N) < 0)
        st = -1;
    double previous = HUGE_VAL;
    for (int round = 0; st == 0 && round < 8; ++round) {
        w->best_f = HUGE_VAL;
        double f;
        nlopt_result r = nlopt_optimize(opt, x, &f);
        if (r == NLOPT_INVALID_ARGS || r == NLOPT_OUT_OF_MEMORY) st = -1;
        if (w->best_f < HUGE_VAL) memcpy(x, w->best_x, n * sizeof *x);
        memcpy(w->xi + 3 * w->first, x, n * sizeof *x);
        if (!(w->best_f < previous - 1e-14 * fabs(w->best_f))) break;
        previous = w->best_f;
    }
    nlopt_destroy(opt);
    return st;
}

int kf_reference_solve(const kf_schedule *s, kf_reference *out)
{
    memset(out, 0, sizeof *out);
    kf_work w;
    if (work_alloc(s, &w) != 0) return -1;
    const int N = w.N;
    out->xi = malloc(3 * ((size_t)N + 1) * sizeof *out->xi);
    if (!out->xi) {
        work_free(&w);
        return -1;
    }
    out->best = HUGE_VAL;
    out->best_start = -1;
    int st = 0;
    double *x = w.xi + 3 * w.first;
    for (int start = 0; start < KF_STARTS && st == 0; ++start) {
        start_with(s, &w, start, w.xi);
        /* minimise works on a copy: w.xi is overwritten by every evaluation */
        size_t n = 3 * (size_t)(w.last - w.first + 1);
        double *y = malloc((n ? n : 1) * sizeof *y);
        if (!y) {
            st = -1;
            break;
        }
        memcpy(y, x, n * sizeof *y);
        double cost, running;
        if (s->sigma > 0.0) {
            st = minimise(&w, y, s->sigma);
            memcpy(x, y, n * sizeof *y);
            cost = evaluate(&w, w.xi, s->sigma, &running, NULL);
        } else {
            for (int stage = 0; stage < KF_EXACT_STAGES && st == 0; ++stage) {
                st = minimise(&w, y, kf_exact_sigmas[stage]);
                memcpy(x, y, n * sizeof *y);
            }
            evaluate(&w, w.xi, kf_exact_sigmas[KF_EXACT_STAGES - 1], &running, NULL);
            cost = running;
        }
        free(y);
        out->cost[start] = cost;
        if (cost < out->best) {
            out->best = cost;
            out->best_start = start;
            memcpy(out->xi, w.xi, 3 * ((size_t)N + 1) * sizeof *out->xi);
        }
    }
    out->evaluations = w.evaluations;
    work_free(&w);
    if (st != 0) kf_reference_free(out);
    return st;
}

void kf_reference_free(kf_reference *r)
{
    if (!r) return;
    free(r->xi);
    r->xi = NULL;
}

void kf_schedule_write_rotations(FILE *f, const kf_schedule *s)
{
    fprintf(f, "{\"t\": [0");
    for (int i = 0; i < s->n; ++i) fprintf(f, ", %.17g", s->t[i]);
    fprintf(f, "], \"R\": [[");
    for (int j = 0; j < 9; ++j) fprintf(f, "%s%.17g", j ? ", " : "", s->g0[j]);
    fprintf(f, "]");
    for (int i = 0; i < s->n; ++i) {
        fprintf(f, ", [");
        for (int j = 0; j < 9; ++j) fprintf(f, "%s%.17g", j ? ", " : "", s->R[9 * i + j]);
        fprintf(f, "]");
    }
    fprintf(f, "]}");
}
