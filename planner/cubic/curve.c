/* Planned curves read at any time (see sp_curve.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_hohp_rk.h"
#include "integrators/sp_round_sphere.h"
#include "lie/sp_linalg.h"
#include "planner/cubic/sp_curve.h"
#include "planner/cubic/sp_round.h"
#include "planner/cubic/sp_se3_metric.h"

struct sp_curve {
    const sp_group *G;
    sp_hohp *hohp;  /* the θ-family's stepper, or */
    sp_hohp_rk *rk; /* the RKMK scheme's, or */
    int round;      /* the round sphere's cubic, stepped in R³ from its lift nodes (sp_round.h) */
    sp_round_sphere rs;
    double y0[3];
    int N;
    double *t;
    sp_hohp_state *z;
    /* an SE(3) plan in a weighted metric: the nodes are the unit-metric plan's, read back
     * (sp_se3_metric.h) */
    int weighted;
    sp_se3_scaling scaling;
};

sp_curve *sp_curve_new(const sp_problem *pb, int N, const double *t, const sp_hohp_state *nodes)
{
    sp_curve *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->G = pb->cubic.group;
    c->N = N;
    if (pb->cubic.space == SP_SPACE_SPHERE && pb->cubic.metric == SP_SPHERE_ROUND) {
        c->round = sp_round_sphere_init(&c->rs) == SP_OK;
        sp_vec_copy(3, pb->cubic.y0, c->y0);
    } else if (pb->scheme->rk_table) {
        c->rk = sp_hohp_rk_alloc(c->G, pb->scheme->rk_table);
    } else {
        sp_hohp_config cfg = {.group = c->G,
                              .retraction = pb->retraction,
                              .theta = pb->scheme->theta,
                              .solver = pb->solver,
                              .solve = {.tol = pb->solver_tol, .max_iter = 50}};
        c->hohp = sp_hohp_alloc(&cfg);
    }
    c->t = malloc(((size_t)N + 1) * sizeof *c->t);
    c->z = malloc(((size_t)N + 1) * sizeof *c->z);
    if ((!c->rk && !c->hohp && !c->round) || !c->t || !c->z) {
        sp_curve_free(c);
        return NULL;
    }
    memcpy(c->t, t, ((size_t)N + 1) * sizeof *c->t);
    memcpy(c->z, nodes, ((size_t)N + 1) * sizeof *c->z);
    return c;
}

void sp_curve_free(sp_curve *c)
{
    if (!c) return;
    sp_hohp_free(c->hohp);
    sp_hohp_rk_free(c->rk);
    free(c->t), free(c->z);
    free(c);
}

const sp_group *sp_curve_group(const sp_curve *c) { return c->G; }
double sp_curve_start(const sp_curve *c) { return c->t[0]; }
double sp_curve_end(const sp_curve *c) { return c->t[c->N]; }

/* The step k with t_k ≤ t < t_{k+1} (the last step for t ≥ its start). */
static int find_step(const sp_curve *c, double t)
{
    int lo = 0, hi = c->N - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->t[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void sp_curve_read_weighted(sp_curve *c, const sp_se3_scaling *k)
{
    c->weighted = 1;
    c->scaling = *k;
}

/* The state at t of the plan that was solved (before any reading back). */
static sp_status solved_state(sp_curve *c, double t, sp_hohp_state *z)
{
    if (!(t > c->t[0])) t = c->t[0]; /* NaN included */
    if (t > c->t[c->N]) t = c->t[c->N];
    const int k = find_step(c, t);
    const double tau = t - c->t[k];
    if (t == c->t[k + 1]) {
        *z = c->z[k + 1];
        return SP_OK;
    }
    if (!(tau > 0.0)) {
        *z = c->z[k];
        return SP_OK;
    }
    if (c->round) {
        /* the lift node in R³, one step of the order-8 table with the lift, and back */
        double x[SP_RS_DIM];
        sp_round_from_lift(c->y0, &c->z[k], x);
        sp_status st = sp_round_sphere_step(&c->rs, tau, x, x, 1, 0, NULL);
        if (st == SP_OK) sp_round_to_lift(c->y0, x, z);
        return st;
    }
    return c->rk ? sp_hohp_rk_step(c->rk, tau, &c->z[k], z, NULL, 0, NULL)
                 : sp_hohp_step(c->hohp, tau, &c->z[k], z, NULL);
}

sp_status sp_curve_state(sp_curve *c, double t, sp_hohp_state *z)
{
    sp_status st = solved_state(c, t, z);
    if (st == SP_OK && c->weighted) sp_se3_unscale_state(&c->scaling, z);
    return st;
}

sp_status sp_curve_eval(sp_curve *c, double t, sp_curve_point *out)
{
    const sp_group *G = c->G;
    sp_hohp_state z;
    sp_status st = solved_state(c, t, &z);
    if (st != SP_OK) return st;
    memcpy(out->g, z.g, (size_t)G->elem_size * sizeof *out->g);
    memcpy(out->omega, z.xi, (size_t)G->dim * sizeof *out->omega);
    memcpy(out->omega_dot, z.p, (size_t)G->dim * sizeof *out->omega_dot); /* ξ̇ = p in the unit metric */
    if (c->weighted) {
        /* ξ̇ is a twist, read back as ξ is (the weighted p is the covector 𝕀ξ̇) */
        sp_se3_unscale_pose(&c->scaling, out->g);
        sp_se3_unscale_twist(&c->scaling, out->omega);
        sp_se3_unscale_twist(&c->scaling, out->omega_dot);
    }
    return SP_OK;
}

sp_status sp_curve_eval_many(sp_curve *c, size_t n, const double *t, sp_curve_point *out)
{
    for (size_t i = 0; i < n; ++i) {
        sp_status st = sp_curve_eval(c, t[i], &out[i]);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

void sp_curve_point_pose(const sp_curve_point *p, sp_curve_pose *out)
{
    /* ẋ = R v and ẍ = Ṙ v + R v̇ = R (ω × v + v̇) */
    const double *v = p->omega + 3, *v_dot = p->omega_dot + 3;
    double a[3];
    sp_se3_to_pose(p->g, out->R, out->x);
    sp_vec_copy(3, p->omega, out->omega);
    sp_vec_copy(3, p->omega_dot, out->omega_dot);
    sp_mat_vec(3, 3, out->R, v, out->velocity);
    sp_cross(p->omega, v, a);
    for (int k = 0; k < 3; ++k) a[k] += v_dot[k];
    sp_mat_vec(3, 3, out->R, a, out->acceleration);
}

/* The rates the extremes track: |ω| and |ω̇| of the whole algebra vector, and on SE(3)
 * the angular part alone, then the position's speed and acceleration in the fixed frame
 * (rotations leave their norms as they are in the body frame). */
static int rate_count(const sp_curve *c) { return c->G == sp_group_se3 ? 4 : 2; }

static double rate_of(const sp_curve *c, const sp_curve_point *p, int which)
{
    if (c->G != sp_group_se3) return sp_vec_norm(c->G->dim, which ? p->omega_dot : p->omega);
    double a[3];
    switch (which) {
    case 0: return sp_vec_norm(3, p->omega);
    case 1: return sp_vec_norm(3, p->omega_dot);
    case 2: return sp_vec_norm(3, p->omega + 3);
    default:
        sp_cross(p->omega, p->omega + 3, a);
        for (int k = 0; k < 3; ++k) a[k] += p->omega_dot[3 + k];
        return sp_vec_norm(3, a);
    }
}

/* Rate `which` at t. */
static sp_status rate(sp_curve *c, double t, int which, double *value)
{
    sp_curve_point p;
    sp_status st = sp_curve_eval(c, t, &p);
    *value = rate_of(c, &p, which);
    return st;
}

/* Golden-section search for the largest rate on [a, b] around the scanned best. */
static sp_status refine(sp_curve *c, int which, double a, double b, double *best, double *t_best)
{
    const double r = 0.5 * (sqrt(5.0) - 1.0);
    double x1 = b - r * (b - a), x2 = a + r * (b - a), f1, f2;
    sp_status st = rate(c, x1, which, &f1);
    if (st == SP_OK) st = rate(c, x2, which, &f2);
    for (int it = 0; it < 60 && st == SP_OK && b - a > 1e-12 * fmax(1.0, fabs(b)); ++it) {
        if (f1 > f2) {
            b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a);
            st = rate(c, x1, which, &f1);
        } else {
            a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a);
            st = rate(c, x2, which, &f2);
        }
    }
    if (st == SP_OK && fmax(f1, f2) > *best) *best = fmax(f1, f2), *t_best = f1 > f2 ? x1 : x2;
    return st;
}

sp_status sp_curve_find_extremes(sp_curve *c, sp_curve_extremes *out)
{
    enum { SCAN = 4 };
    const int n = rate_count(c);
    double best[4] = {-1.0, -1.0, -1.0, -1.0}, t_best[4] = {0}, h_best[4] = {0};
    for (int k = 0; k < c->N; ++k) {
        const double h = c->t[k + 1] - c->t[k];
        for (int q = 0; q <= SCAN; ++q) {
            const double t = c->t[k] + h * q / SCAN;
            sp_curve_point p;
            sp_status st = sp_curve_eval(c, q == SCAN ? c->t[k + 1] : t, &p);
            if (st != SP_OK) return st;
            for (int w = 0; w < n; ++w) {
                const double v = rate_of(c, &p, w);
                if (v > best[w]) best[w] = v, t_best[w] = t, h_best[w] = h / SCAN;
            }
        }
    }
    for (int w = 0; w < n; ++w) {
        const double a = fmax(c->t[0], t_best[w] - h_best[w]), b = fmin(c->t[c->N], t_best[w] + h_best[w]);
        sp_status st = refine(c, w, a, b, &best[w], &t_best[w]);
        if (st != SP_OK) return st;
    }
    *out = (sp_curve_extremes){best[0], t_best[0], best[1], t_best[1], n > 2, best[2], t_best[2], best[3], t_best[3]};
    return SP_OK;
}

/* Distance between two group elements: |log(a⁻¹b)|, the rotation angle on SO(3) (π where
 * the logarithm is not defined), |b − a| on Rⁿ. */
static double group_distance(const sp_group *G, const double *a, const double *b)
{
    double r[SP_LIE_MAX_DIM];
    return sp_group_log_mismatch(G, a, b, r, NULL, NULL) == SP_OK ? sp_vec_norm(G->dim, r) : SP_PI;
}

sp_status sp_curve_distance(sp_curve *a, sp_curve *b, const sp_plan_grid *grid, size_t n_targets, double *dist)
{
    size_t seg = 0;
    dist[0] = 0.0;
    for (int k = 0; k < b->N; ++k) {
        while (seg < n_targets && k >= grid->target_step[seg]) dist[++seg] = 0.0;
        for (int q = 1; q <= 2; ++q) {
            const double t = q == 2 ? b->t[k + 1] : 0.5 * (b->t[k] + b->t[k + 1]);
            sp_curve_point pa, pb;
            sp_status st = sp_curve_eval(a, t, &pa);
            if (st == SP_OK) st = sp_curve_eval(b, t, &pb);
            if (st != SP_OK) return st;
            dist[seg] = fmax(dist[seg], group_distance(a->G, pa.g, pb.g));
        }
    }
    return SP_OK;
}
