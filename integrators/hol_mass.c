/* The constant mass matrix of a holonomic model (sp_hol_mass.h), and M⁻¹x for a model
 * (sp_holonomic_apply_minv of sp_holonomic.h). */
#include <math.h>
#include <string.h>

#include "integrators/sp_hol_mass.h"
#include "lie/sp_linalg.h"

/* The Cholesky factor L (lower, row-major) of a symmetric positive definite M; 0 if M is not. */
static int cholesky(int n, const double *M, double *L)
{
    memset(L, 0, (size_t)n * n * sizeof *L);
    for (int j = 0; j < n; ++j) {
        double d = M[j * n + j];
        for (int k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
        if (!(d > 0.0) || !isfinite(d)) return 0;
        L[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            if (M[i * n + j] != M[j * n + i]) return 0;
            double t = M[i * n + j];
            for (int k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    return 1;
}

/* x ← M⁻¹x from the Cholesky factor: L y = x, then Lᵀ x = y. */
static void cholesky_solve(int n, const double *L, double *x)
{
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) x[i] -= L[i * n + k] * x[k];
        x[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) x[i] -= L[k * n + i] * x[k];
        x[i] /= L[i * n + i];
    }
}

sp_status sp_holonomic_apply_minv(const sp_holonomic_model *model, const double *x, double *out)
{
    const int n = model->n;
    if (!model->mass_matrix) {
        for (int i = 0; i < n; ++i) out[i] = x[i] / model->mass[i];
        return SP_OK;
    }
    double L[SP_HOL_MAX_N * SP_HOL_MAX_N];
    if (!cholesky(n, model->mass_matrix, L)) return SP_ERR_SINGULAR;
    sp_vec_copy(n, x, out);
    cholesky_solve(n, L, out);
    return SP_OK;
}

int sp_hol_mass_init(sp_hol_mass *mass, const sp_holonomic_model *model)
{
    const int n = model->n;
    memset(mass, 0, sizeof *mass);
    mass->n = n;
    if (!model->mass_matrix) {
        for (int i = 0; i < n; ++i) {
            if (!model->mass || !(model->mass[i] > 0.0) || !isfinite(model->mass[i])) return 0;
            mass->minv[i] = 1.0 / model->mass[i];
        }
        return 1;
    }
    double L[SP_HOL_MAX_N * SP_HOL_MAX_N];
    if (!cholesky(n, model->mass_matrix, L)) return 0;
    mass->full = 1;
    sp_vec_copy(n * n, model->mass_matrix, mass->M);
    for (int j = 0; j < n; ++j) { /* column j of M⁻¹, which is its row j (symmetric) */
        double *e = mass->Minv + j * n;
        for (int i = 0; i < n; ++i) e[i] = i == j ? 1.0 : 0.0;
        cholesky_solve(n, L, e);
    }
    return 1;
}

void sp_hol_mass_apply_inverse(const sp_hol_mass *mass, const double *x, double *out)
{
    const int n = mass->n;
    for (int i = 0; i < n; ++i) out[i] = mass->full ? sp_vec_dot(n, mass->Minv + i * n, x) : mass->minv[i] * x[i];
}
