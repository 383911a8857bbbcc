/* Small dense helpers (row-major) used across modules. Inline so that the 3x3 work in
 * stepping loops costs nothing but arithmetic. */
#ifndef SP_LINALG_H
#define SP_LINALG_H

#include <math.h>
#include <string.h>

#define SP_PI 3.14159265358979323846

/* For kernels written once for any dimension n and instantiated with a constant n
 * (3, the dimension of so(3)) so that the compiler unrolls their small loops. */
#if defined(__GNUC__)
#define SP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SP_ALWAYS_INLINE inline
#endif

static inline void sp_vec_copy(int n, const double *x, double *y) { memcpy(y, x, (size_t)n * sizeof *x); }
static inline void sp_vec_zero(int n, double *x) { memset(x, 0, (size_t)n * sizeof *x); }

static inline double sp_vec_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
}

static inline double sp_vec_norm(int n, const double *x) { return sqrt(sp_vec_dot(n, x, x)); }

/* y += a x */
static inline void sp_vec_axpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

static inline double sp_vec_dist(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += (x[i] - y[i]) * (x[i] - y[i]);
    return sqrt(s);
}

/* Bitwise equal: whether a state handed to a stepper is the one its last step returned.
 * memcmp, which a constant n turns into a few vector compares (a loop of == with its NaN
 * branches cost a third of the bookkeeping of a HOHP step). */
static inline int sp_vec_equal(int n, const double *x, const double *y)
{
    return memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

static inline int sp_vec_isfinite(int n, const double *x)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* y = A x, A is m x n; y must not alias x. */
static inline void sp_mat_vec(int m, int n, const double *A, const double *x, double *y)
{
    for (int i = 0; i < m; ++i) y[i] = sp_vec_dot(n, A + i * n, x);
}

/* y = Aᵀ x, A is m x n; y must not alias x. */
static inline void sp_mat_tvec(int m, int n, const double *A, const double *x, double *y)
{
    for (int j = 0; j < n; ++j) y[j] = 0.0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) y[j] += A[i * n + j] * x[i];
}

/* C = A B with A m x k, B k x n; C must not alias A or B. */
static inline void sp_mat_mul(int m, int k, int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int l = 0; l < k; ++l) s += A[i * k + l] * B[l * n + j];
            C[i * n + j] = s;
        }
}

static inline void sp_mat_transpose(int n, const double *A, double *At)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) At[j * n + i] = A[i * n + j];
}

static inline void sp_mat_identity(int n, double *A)
{
    memset(A, 0, (size_t)(n * n) * sizeof *A);
    for (int i = 0; i < n; ++i) A[i * n + i] = 1.0;
}

/* Frobenius norm of A - B (m entries). */
static inline double sp_mat_dist(int m, const double *A, const double *B) { return sp_vec_dist(m, A, B); }

static inline void sp_cross(const double *a, const double *b, double *c)
{
    double c0 = a[1] * b[2] - a[2] * b[1];
    double c1 = a[2] * b[0] - a[0] * b[2];
    double c2 = a[0] * b[1] - a[1] * b[0];
    c[0] = c0;
    c[1] = c1;
    c[2] = c2;
}

#endif
