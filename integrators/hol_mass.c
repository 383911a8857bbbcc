/* The constant mass matrix of a holonomic model (sp_hol_mass.h), and M⁻¹x for a model
 * (sp_holonomic_apply_minv of sp_holonomic.h). */
#include <math.h>
#include <string.h>

#include "integrators/sp_hol_mass.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"

sp_status sp_holonomic_apply_minv(const sp_holonomic_model *model, const double *x, double *out)
{
    const int n = model->n;
    if (!model->mass_matrix) {
        for (int i = 0; i < n; ++i) out[i] = x[i] / model->mass[i];
        return SP_OK;
    }
    double L[SP_HOL_MAX_N * SP_HOL_MAX_N];
    if (!sp_cholesky_factor(n, model->mass_matrix, L)) return SP_ERR_SINGULAR;
    sp_vec_copy(n, x, out);
    sp_cholesky_solve(n, L, out);
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
    if (!sp_cholesky_factor(n, model->mass_matrix, L)) return 0;
    mass->full = 1;
    sp_vec_copy(n * n, model->mass_matrix, mass->M);
    for (int j = 0; j < n; ++j) { /* column j of M⁻¹, which is its row j (symmetric) */
        double *e = mass->Minv + j * n;
        for (int i = 0; i < n; ++i) e[i] = i == j ? 1.0 : 0.0;
        sp_cholesky_solve(n, L, e);
    }
    return 1;
}

void sp_hol_mass_apply_inverse(const sp_hol_mass *mass, const double *x, double *out)
{
    const int n = mass->n;
    for (int i = 0; i < n; ++i) out[i] = mass->full ? sp_vec_dot(n, mass->Minv + i * n, x) : mass->minv[i] * x[i];
}
