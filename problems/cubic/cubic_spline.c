/* Target terms of the cubic-spline planning cost (points on S², rotations, points of Rⁿ,
 * SE(3) poses). All use chordal distances, so that gradients stay smooth at every
 * configuration. */
#include <math.h>
#include <stdlib.h>

#include "problems/sp_problem.h"
#include "lie/sp_linalg.h"

double sp_cubic_target_cost(const sp_cubic_spline *c, size_t i, const double *g)
{
    const sp_cubic_target *tg = &c->targets[i];
    double s2 = c->sigma * c->sigma;
    if (c->space == SP_SPACE_SPHERE) {
        double y[3];
        sp_mat_vec(3, 3, g, c->y0, y);
        double d = sp_vec_dist(3, y, tg->y);
        return 0.5 * d * d / s2;
    }
    double d = sp_vec_dist(c->group->elem_size, g, tg->R);
    return 0.5 * d * d / s2;
}

/* A = Rᵢᵀ g */
static void relative_rotation(const sp_cubic_target *tg, const double *g, double *A)
{
    double Rt[9];
    sp_mat_transpose(3, tg->R, Rt);
    sp_mat_mul(3, 3, 3, Rt, g, A);
}

/* Matrix groups in general (SE(3)), with E = ½|g − T|²_F/σ² and body perturbations
 * g exp(εÊ_k) of the basis Ê_k = hat(e_k):
 *   ∇E_k = ⟨g − T, g Ê_k⟩/σ² = ⟨Ê_k, gᵀ(g − T)⟩/σ²,
 * and its derivative along Ê_j, K_kj = (⟨g Ê_j, g Ê_k⟩ + ⟨g − T, g Ê_j Ê_k⟩)/σ², so that
 *   (Kᵀv)_j = ⟨Ê_j, gᵀg V̂ + gᵀ(g − T) V̂ᵀ⟩/σ²   with V̂ = hat(v).
 * Both are projections ⟨Ê_k, M⟩ of one matrix M onto the basis. */
static void project_on_basis(const sp_group *G, const double *M, double scale, double *out)
{
    const int m2 = G->mat_dim * G->mat_dim;
    double e[SP_LIE_MAX_DIM] = {0}, E[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    for (int k = 0; k < G->dim; ++k) {
        e[k] = 1.0;
        G->hat(G, e, E);
        e[k] = 0.0;
        out[k] = sp_vec_dot(m2, E, M) * scale;
    }
}

/* gᵀ(g − T) of target i, m x m. */
static void matrix_residual(const sp_group *G, const double *g, const double *T, double *out)
{
    const int m = G->mat_dim;
    double D[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    for (int k = 0; k < m * m; ++k) D[k] = g[k] - T[k];
    double gt[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    sp_mat_transpose(m, g, gt);
    sp_mat_mul(m, m, m, gt, D, out);
}

static void matrix_gradient(const sp_group *G, const double *g, const double *T, double s2, double *grad)
{
    double A[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    matrix_residual(G, g, T, A);
    project_on_basis(G, A, 1.0 / s2, grad);
}

static void matrix_jacobian_T(const sp_group *G, const double *g, const double *T, double s2, const double *v,
                              double *out)
{
    const int m = G->mat_dim;
    double V[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT], Vt[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    double A[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT], gtg[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    double M[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT], B[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    G->hat(G, v, V);
    sp_mat_transpose(m, V, Vt);
    matrix_residual(G, g, T, A);
    double gt[SP_LIE_MAX_MAT * SP_LIE_MAX_MAT];
    sp_mat_transpose(m, g, gt);
    sp_mat_mul(m, m, m, gt, g, gtg);
    sp_mat_mul(m, m, m, gtg, V, M);
    sp_mat_mul(m, m, m, A, Vt, B);
    for (int k = 0; k < m * m; ++k) M[k] += B[k];
    project_on_basis(G, M, 1.0 / s2, out);
}

void sp_cubic_target_gradient(const sp_cubic_spline *c, size_t i, const double *g, double *grad)
{
    const sp_cubic_target *tg = &c->targets[i];
    double s2 = c->sigma * c->sigma;
    if (c->space == SP_SPACE_SPHERE) {
        /* ∇E = −(1/σ²) y0 × (gᵀ yᵢ) */
        double gy[3];
        sp_mat_tvec(3, 3, g, tg->y, gy);
        sp_cross(c->y0, gy, grad);
        for (int k = 0; k < 3; ++k) grad[k] /= -s2;
        return;
    }
    if (c->group == sp_group_se3) {
        matrix_gradient(c->group, g, tg->R, s2, grad);
        return;
    }
    if (c->group != sp_group_so3) {
        /* points of Rⁿ: ∇E = (g − xᵢ)/σ² */
        for (int k = 0; k < c->group->dim; ++k) grad[k] = (g[k] - tg->R[k]) / s2;
        return;
    }
    /* ∇E = (1/σ²) vee(A − Aᵀ) */
    double A[9];
    relative_rotation(tg, g, A);
    grad[0] = (A[7] - A[5]) / s2;
    grad[1] = (A[2] - A[6]) / s2;
    grad[2] = (A[3] - A[1]) / s2;
}

void sp_cubic_target_jacobian_T(const sp_cubic_spline *c, size_t i, const double *g, const double *v, double *out)
{
    const sp_cubic_target *tg = &c->targets[i];
    double s2 = c->sigma * c->sigma;
    if (c->space == SP_SPACE_SPHERE) {
        /* Kᵀv = −(1/σ²)(gᵀyᵢ) × (y0 × v) */
        double gy[3], w[3];
        sp_mat_tvec(3, 3, g, tg->y, gy);
        sp_cross(c->y0, v, w);
        sp_cross(gy, w, out);
        for (int k = 0; k < 3; ++k) out[k] /= -s2;
        return;
    }
    if (c->group == sp_group_se3) {
        matrix_jacobian_T(c->group, g, tg->R, s2, v, out);
        return;
    }
    if (c->group != sp_group_so3) {
        for (int k = 0; k < c->group->dim; ++k) out[k] = v[k] / s2; /* K = I/σ² */
        return;
    }
    /* K = (1/σ²)(tr(A) I − Aᵀ), so Kᵀv = (1/σ²)(tr(A) v − A v) */
    double A[9], Av[3];
    relative_rotation(tg, g, A);
    sp_mat_vec(3, 3, A, v, Av);
    double tr = A[0] + A[4] + A[8];
    for (int k = 0; k < 3; ++k) out[k] = (tr * v[k] - Av[k]) / s2;
}

size_t sp_cubic_segments(const sp_cubic_spline *c, double T)
{
    if (c->n_targets == 0) return 1;
    return c->n_targets + (fabs(c->targets[c->n_targets - 1].t - T) > 1e-9 * T);
}

double sp_cubic_target_distance(const sp_cubic_spline *c, size_t i, const double *g)
{
    const sp_cubic_target *tg = &c->targets[i];
    if (c->space == SP_SPACE_SPHERE) {
        double y[3];
        sp_mat_vec(3, 3, g, c->y0, y);
        return sp_vec_dist(3, y, tg->y);
    }
    if (c->group == sp_group_se3) {
        /* the rotation angle and the distance of the positions as one length (radians and
         * the model's length unit weigh alike, as in the metric |ω|² + |v|²) */
        double R[9], x[3], Rt[9], xt[3];
        sp_se3_to_pose(g, R, x);
        sp_se3_to_pose(tg->R, Rt, xt);
        return hypot(sp_rotation_angle_between(Rt, R), sp_vec_dist(3, x, xt));
    }
    if (c->group != sp_group_so3) return sp_vec_dist(c->group->elem_size, g, tg->R);
    return sp_rotation_angle_between(tg->R, g);
}

double sp_rotation_angle_between(const double *Ra, const double *Rb)
{
    double Rt[9], A[9], x[3];
    sp_mat_transpose(3, Ra, Rt);
    sp_mat_mul(3, 3, 3, Rt, Rb, A);
    if (sp_group_so3->log(sp_group_so3, A, x) != SP_OK) return SP_PI;
    return sp_vec_norm(3, x);
}

/* Node times and step sizes from the target steps: the steps of one segment are even,
 * and segment ends sit exactly on the target times (`uniform`: every node at k·T/N). */
static void fill_steps(const sp_cubic_spline *c, double T, int N, int uniform, const int *target_step, double *h,
                       double *t)
{
    const size_t m = c->n_targets;
    int k0 = 0;
    double t0 = 0.0;
    t[0] = 0.0;
    for (size_t i = 0; i <= m; ++i) {
        int k1 = i < m ? target_step[i] : N;
        double t1 = i < m ? c->targets[i].t : T;
        double hs = uniform ? T / N : (t1 - t0) / (k1 - k0);
        for (int k = k0; k < k1; ++k) {
            h[k] = hs;
            t[k + 1] = uniform ? (k + 1) * hs : t0 + (k + 1 - k0) * hs;
        }
        if (k1 > k0) t[k1] = t1;
        k0 = k1, t0 = t1;
    }
}

/* The target steps of N steps shared in proportion to the segments' lengths. */
static int share_steps(const sp_cubic_spline *c, double T, int N, int *target_step)
{
    size_t m = c->n_targets;
    int uniform = 1;
    for (size_t i = 0; i < m; ++i) {
        double k = c->targets[i].t / T * N;
        uniform &= fabs(k - nearbyint(k)) <= 1e-9 * fmax(1.0, k);
    }
    int previous = 0;
    for (size_t i = 0; i < m; ++i) {
        int k = (int)nearbyint(c->targets[i].t / T * N);
        int segments_left = (int)(sp_cubic_segments(c, T) - 1 - i);
        if (k < previous + 1) k = previous + 1;
        if (k > N - segments_left) k = N - segments_left;
        target_step[i] = previous = k;
    }
    return uniform;
}

static sp_status grid_alloc(sp_plan_grid *g, size_t n, size_t m)
{
    g->h = malloc(n * sizeof *g->h);
    g->t = malloc((n + 1) * sizeof *g->t);
    g->target_step = malloc((m ? m : 1) * sizeof *g->target_step);
    g->target_at = malloc((n + 1) * sizeof *g->target_at);
    if (!g->h || !g->t || !g->target_step || !g->target_at) {
        sp_plan_grid_free(g);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

static void index_targets(sp_plan_grid *g, size_t n, size_t m)
{
    for (size_t k = 0; k <= n; ++k) g->target_at[k] = -1;
    for (size_t i = 0; i < m; ++i) g->target_at[g->target_step[i]] = (int)i;
}

sp_status sp_plan_grid_init(sp_plan_grid *g, const sp_cubic_spline *c, double T, int N)
{
    const size_t n = (size_t)N, m = c->n_targets;
    if (grid_alloc(g, n, m) != SP_OK) return SP_ERR_NOMEM;
    const int uniform = share_steps(c, T, N, g->target_step);
    fill_steps(c, T, N, uniform, g->target_step, g->h, g->t);
    index_targets(g, n, m);
    return SP_OK;
}

sp_status sp_plan_grid_init_segments(sp_plan_grid *g, const sp_cubic_spline *c, double T, const int *segment_steps)
{
    const size_t segments = sp_cubic_segments(c, T), m = c->n_targets;
    size_t n = 0;
    for (size_t i = 0; i < segments; ++i) n += (size_t)segment_steps[i];
    if (grid_alloc(g, n, m) != SP_OK) return SP_ERR_NOMEM;
    for (size_t i = 0, k = 0; i < m; ++i) g->target_step[i] = (int)(k += (size_t)segment_steps[i]);
    fill_steps(c, T, (int)n, 0, g->target_step, g->h, g->t);
    index_targets(g, n, m);
    return SP_OK;
}

int sp_plan_grid_steps(const sp_cubic_spline *c, double T, int N, const int *segment_steps)
{
    if (!segment_steps) return N;
    N = 0;
    for (size_t i = 0, k = sp_cubic_segments(c, T); i < k; ++i) N += segment_steps[i];
    return N;
}

sp_status sp_plan_grid_init_steps(sp_plan_grid *g, const sp_cubic_spline *c, double T, int N, const int *segment_steps)
{
    return segment_steps ? sp_plan_grid_init_segments(g, c, T, segment_steps) : sp_plan_grid_init(g, c, T, N);
}

sp_status sp_plan_setup(const sp_problem *pb, double sigma, const int *segment_steps, sp_cubic_spline *cubic, int *N,
                        sp_plan_grid *grid)
{
    *cubic = pb->cubic;
    cubic->sigma = sigma;
    *N = sp_plan_grid_steps(&pb->cubic, pb->T, pb->steps, segment_steps);
    return sp_plan_grid_init_steps(grid, &pb->cubic, pb->T, *N, segment_steps);
}

void sp_plan_grid_free(sp_plan_grid *g)
{
    free(g->h), free(g->t), free(g->target_step), free(g->target_at);
    *g = (sp_plan_grid){0};
}
