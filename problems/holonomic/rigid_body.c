/* The heavy top as a holonomic system on R⁹ and as a mechanical system on SO(3)
 * (sp_rigid_body.h; an independent Python implementation served as reference). */
#include <math.h>
#include <string.h>

#include "problems/holonomic/sp_rigid_body.h"
#include "lie/sp_linalg.h"

/* The independent entries (i, j) of the symmetric QᵀQ − I, in constraint order. */
static const int sym_index[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

sp_status sp_heavy_top_init(sp_heavy_top *top, const double J[3], double mgl, const double chi[3])
{
    if (!top || !J || !chi || !isfinite(mgl) || !sp_vec_isfinite(3, J) || !sp_vec_isfinite(3, chi))
        return SP_ERR_INVALID;
    double half_trace = 0.5 * (J[0] + J[1] + J[2]);
    for (int k = 0; k < 3; ++k)
        if (!(half_trace - J[k] > 0.0)) return SP_ERR_INVALID;
    memset(top, 0, sizeof *top);
    for (int k = 0; k < 3; ++k) {
        top->J[k] = J[k];
        top->chi[k] = chi[k];
        top->Jd[k] = half_trace - J[k];
    }
    top->mgl = mgl;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) top->mass[3 * i + k] = top->Jd[k];
    return SP_OK;
}

/* ---- (a) matrix form on R⁹ */

/* V = mgl e₃ᵀQχ = mgl Σ_k Q_2k χ_k; ∇V = mgl e₃χᵀ; ∇²V = 0. */
static int matrix_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    const sp_heavy_top *top = params;
    if (V) *V = top->mgl * (q[6] * top->chi[0] + q[7] * top->chi[1] + q[8] * top->chi[2]);
    if (grad) {
        memset(grad, 0, 9 * sizeof *grad);
        for (int k = 0; k < 3; ++k) grad[6 + k] = top->mgl * top->chi[k];
    }
    if (hess) memset(hess, 0, 81 * sizeof *hess);
    return 0;
}

/* g_r = S_ij (halved when i = j), S = QᵀQ − I:
 *   ∂S_ij/∂Q_ak = δ_ki Q_aj + δ_kj Q_ai,   ∂²S_ij/∂Q_ak∂Q_bl = δ_ab (δ_ki δ_lj + δ_kj δ_li). */
static int orthogonality(const double *q, double *g, double *G, double *d2g, void *params)
{
    (void)params;
    for (int r = 0; r < 6; ++r) {
        const int i = sym_index[r][0], j = sym_index[r][1];
        const double w = i == j ? 0.5 : 1.0;
        if (g) {
            double s = 0.0;
            for (int a = 0; a < 3; ++a) s += q[3 * a + i] * q[3 * a + j];
            g[r] = w * (s - (i == j ? 1.0 : 0.0));
        }
        if (G) {
            double *row = G + 9 * r;
            memset(row, 0, 9 * sizeof *row);
            for (int a = 0; a < 3; ++a) {
                row[3 * a + i] += w * q[3 * a + j];
                row[3 * a + j] += w * q[3 * a + i];
            }
        }
        if (d2g) {
            double *H = d2g + 81 * r;
            memset(H, 0, 81 * sizeof *H);
            for (int a = 0; a < 3; ++a) {
                H[(3 * a + i) * 9 + 3 * a + j] += w;
                H[(3 * a + j) * 9 + 3 * a + i] += w;
            }
        }
    }
    return 0;
}

void sp_heavy_top_matrix_model(const sp_heavy_top *top, sp_holonomic_model *model)
{
    *model = (sp_holonomic_model){
        .n = 9,
        .m = 6,
        .mass = top->mass,
        .potential = matrix_potential,
        .constraints = orthogonality,
        .params = (void *)top,
    };
}

/* ---- (b) Lie-group form on SO(3) */

/* V = mgl e₃ᵀRχ, f = mgl χ × (Rᵀe₃) (Rᵀe₃ is the third row of R). */
static int lie_potential(const double *R, double *V, double *f, void *params)
{
    const sp_heavy_top *top = params;
    if (V) *V = top->mgl * (R[6] * top->chi[0] + R[7] * top->chi[1] + R[8] * top->chi[2]);
    if (f) {
        sp_cross(top->chi, R + 6, f);
        for (int k = 0; k < 3; ++k) f[k] *= top->mgl;
    }
    return 0;
}

void sp_heavy_top_lie_model(const sp_heavy_top *top, sp_lie_rattle_model *model)
{
    *model = (sp_lie_rattle_model){
        .group = sp_group_so3,
        .inertia_diag = top->J,
        .potential = lie_potential,
        .params = (void *)top,
    };
}

/* ---- states and conversions */

void sp_heavy_top_embed(const sp_heavy_top *top, const double *R, const double *mu, double *q, double *p)
{
    double w[3] = {mu[0] / top->J[0], mu[1] / top->J[1], mu[2] / top->J[2]}, W[9], RW[9];
    sp_group_so3->hat(sp_group_so3, w, W);
    sp_mat_mul(3, 3, 3, R, W, RW);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) p[3 * i + k] = RW[3 * i + k] * top->Jd[k];
    if (q != R) memmove(q, R, 9 * sizeof *q);
}

void sp_heavy_top_matrix_to_body(const sp_heavy_top *top, const double *q, const double *p, double *R, double *mu)
{
    double QtP[9], w[3];
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
            double s = 0.0;
            for (int a = 0; a < 3; ++a) s += q[3 * a + i] * p[3 * a + k];
            QtP[3 * i + k] = s / top->Jd[k];
        }
    sp_group_so3->vee(sp_group_so3, QtP, w);
    for (int k = 0; k < 3; ++k) mu[k] = top->J[k] * w[k];
    if (R != q) memmove(R, q, 9 * sizeof *R);
}

void sp_heavy_top_matrix_state(const sp_heavy_top *top, const double *R0, const double *omega0, double *q, double *p)
{
    double mu[3] = {top->J[0] * omega0[0], top->J[1] * omega0[1], top->J[2] * omega0[2]};
    sp_heavy_top_embed(top, R0, mu, q, p);
}

void sp_heavy_top_lie_state(const sp_heavy_top *top, const double *R0, const double *omega0, double *R, double *mu)
{
    for (int k = 0; k < 3; ++k) mu[k] = top->J[k] * omega0[k];
    if (R != R0) memmove(R, R0, 9 * sizeof *R);
}

double sp_heavy_top_matrix_energy(const sp_heavy_top *top, const double *q, const double *p)
{
    double T = 0.0, V;
    for (int i = 0; i < 9; ++i) T += p[i] * p[i] / top->mass[i];
    matrix_potential(q, &V, NULL, NULL, (void *)top);
    return 0.5 * T + V;
}

double sp_heavy_top_lie_energy(const sp_heavy_top *top, const double *R, const double *mu)
{
    double V;
    lie_potential(R, &V, NULL, (void *)top);
    return 0.5 * (mu[0] * mu[0] / top->J[0] + mu[1] * mu[1] / top->J[1] + mu[2] * mu[2] / top->J[2]) + V;
}

/* tr(Pᵀ ê₃ Q) = Σ_ik P_ik (ê₃Q)_ik with ê₃Q = (−Q_1·, Q_0·, 0) by rows. */
double sp_heavy_top_matrix_vertical_momentum(const double *q, const double *p)
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k) s += -p[k] * q[3 + k] + p[3 + k] * q[k];
    return s;
}

double sp_heavy_top_lie_vertical_momentum(const double *R, const double *mu)
{
    return R[6] * mu[0] + R[7] * mu[1] + R[8] * mu[2];
}
