/* Fixture models shared by the tests (step_fixtures.h). The models of the problem library
 * are wrapped so that one switch makes every callback fail. */
#include <math.h>
#include <string.h>

#include "integrators/sp_symplecticity.h"
#include "lie/sp_linalg.h"
#include "problems/nonholonomic/sp_nh_models.h"
#include "problems/vakonomic/sp_vak_models.h"
#include "step_fixtures.h"

static void count_call(void *params)
{
    if (params) ++*(long *)params;
}

int fixture_double_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    (void)hess;
    count_call(params);
    if (V) *V = q[1] + 2.0 * q[3];
    if (grad) grad[0] = 0.0, grad[1] = 1.0, grad[2] = 0.0, grad[3] = 2.0;
    return 0;
}

int fixture_double_constraints(const double *q, double *g, double *G, double *d2g, void *params)
{
    (void)d2g;
    count_call(params);
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    if (g) g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0), g[1] = 0.5 * (dx * dx + dy * dy - 1.0);
    if (G) {
        const double rows[8] = {q[0], q[1], 0.0, 0.0, -dx, -dy, dx, dy};
        memcpy(G, rows, sizeof rows);
    }
    return 0;
}

const double fixture_double_mass[4] = {1, 1, 2, 2};
const double fixture_double_q0[4] = {0.479425538604203, -0.8775825618903728, 0.7749457452655426, -1.8329190510159787};

double fixture_worse(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }

double fixture_max_abs_diff(int n, const double *a, const double *b)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fixture_worse(m, fabs(a[i] - b[i]));
    return m;
}

double fixture_max_abs(int n, const double *a)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i) m = fixture_worse(m, fabs(a[i]));
    return m;
}

typedef struct ts2_map {
    fixture_step_map map;
    void *ctx;
    double h;
} ts2_map;

static sp_status ts2_step(void *ctx, double *z)
{
    ts2_map *c = ctx;
    return c->map(c->ctx, c->h, z) == 0 ? SP_OK : SP_ERR_CALLBACK;
}

sp_status fixture_ts2_defect(fixture_step_map map, void *ctx, double h, const double *z0, const double *DC,
                             double *defect, int *dim)
{
    ts2_map c = {map, ctx, h};
    return sp_symplecticity_defect(ts2_step, &c, 3, z0, 2, DC, 1e-6, defect, dim);
}

static int failing(const void *params) { return params ? *(const int *)params : 0; }

int fixture_pendulum_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    if (failing(params)) return failing(params);
    if (V) *V = q[2];
    if (grad) grad[0] = grad[1] = 0.0, grad[2] = 1.0;
    if (hess) memset(hess, 0, 9 * sizeof *hess);
    return 0;
}

int fixture_sphere_constraint(const double *q, double *g, double *G, double *d2g, void *params)
{
    if (failing(params)) return failing(params);
    if (g) g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0);
    if (G) G[0] = q[0], G[1] = q[1], G[2] = q[2];
    if (d2g) {
        memset(d2g, 0, 9 * sizeof *d2g);
        d2g[0] = d2g[4] = d2g[8] = 1.0;
    }
    return 0;
}

static const double unit_mass[3] = {1, 1, 1};
const sp_holonomic_model fixture_pendulum = {
    3, 1, unit_mass, fixture_pendulum_potential, fixture_sphere_constraint, NULL, NULL};
const double fixture_pendulum_q0[3] = {0, 1, 0}, fixture_pendulum_p0[3] = {1, 0, 1};

/* ---- the wrappers: params is the fixture, whose `fail` decides */

#define FIXTURE(params) ((const step_fixture *)(params))

static int vak_potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    const step_fixture *f = FIXTURE(params);
    const sp_vakonomic_model *m = f->kind == SP_STEP_MODEL_PROP7 ? &f->prop7_inner.vak : &f->vak_inner;
    if (f->fail) return f->fail;
    if (!m->potential) {
        if (V) *V = 0.0;
        if (grad) sp_vec_zero(m->n, grad);
        if (hess) sp_vec_zero(m->n * m->n, hess);
        return 0;
    }
    return m->potential(q, V, grad, hess, m->params);
}

static int vak_constraints(const double *q, double *G, double *dG, double *d2G, void *params)
{
    const step_fixture *f = FIXTURE(params);
    const sp_vakonomic_model *m = f->kind == SP_STEP_MODEL_PROP7 ? &f->prop7_inner.vak : &f->vak_inner;
    return f->fail ? f->fail : m->constraints(q, G, dG, d2G, m->params);
}

static int prop7_holonomic(const double *q, double *h, double *Dh, double *D2h, void *params)
{
    const step_fixture *f = FIXTURE(params);
    return f->fail ? f->fail : f->prop7_inner.holonomic(q, h, Dh, D2h, f->prop7_inner.params);
}

static int nh_hamiltonian(const double *q, const double *p, const sp_nh_hamiltonian_out *out, void *params)
{
    const step_fixture *f = FIXTURE(params);
    return f->fail ? f->fail : f->nh_inner.hamiltonian(q, p, out, f->nh_inner.params);
}

static int nh_constraints(const double *q, double *mu, double *dmu, void *params)
{
    const step_fixture *f = FIXTURE(params);
    return f->fail ? f->fail : f->nh_inner.constraints(q, mu, dmu, f->nh_inner.params);
}

static int nh_lie_constraints(const double *g, double *alpha, double *dalpha, void *params)
{
    const step_fixture *f = FIXTURE(params);
    return f->fail ? f->fail : f->nh_lie_inner.constraints(g, alpha, dalpha, f->nh_lie_inner.params);
}

/* V = 0 for the Suslov problem: the wrapper is its potential, so that it can fail. */
static int nh_lie_potential(const double *g, double *V, double *force, void *params)
{
    const step_fixture *f = FIXTURE(params);
    if (f->fail) return f->fail;
    if (f->nh_lie_inner.potential) return f->nh_lie_inner.potential(g, V, force, f->nh_lie_inner.params);
    if (V) *V = 0.0;
    if (force) sp_vec_zero(f->nh_lie_inner.group->dim, force);
    return 0;
}

static int lie_potential(const double *g, double *V, double *force, void *params)
{
    const step_fixture *f = FIXTURE(params);
    return f->fail ? f->fail : f->lie_inner.potential(g, V, force, f->lie_inner.params);
}

/* The harmonic oscillator ẏ = (y₂, −y₁). */
static int oscillator(const double *y, double *dy, void *params)
{
    const step_fixture *f = FIXTURE(params);
    if (f->fail) return f->fail;
    dy[0] = y[1];
    dy[1] = -y[0];
    return 0;
}

/* ---- the fixtures */

/* x0 = (a, b) (b may be NULL). */
static void set_state(step_fixture *f, const double *a, int na, const double *b, int nb)
{
    sp_vec_copy(na, a, f->x0);
    if (b) sp_vec_copy(nb, b, f->x0 + na);
    f->dim = na + (b ? nb : 0);
}

sp_status step_fixture_init(step_fixture *f, sp_step_model_kind kind)
{
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->T = 1.0;
    f->callbacks = 1;
    f->options = sp_step_options_default();
    /* feedback gains within explicit Euler's stability at h = 0.05 */
    f->options.gains = (sp_feedback_gains){2, 2, 2, 0, 1, 1};
    f->options.reference = f->x0;
    switch (kind) {
    case SP_STEP_MODEL_GROUP: {
        /* SO(3), a generic node state */
        static const double xi[3] = {0.3, -0.2, 0.5}, nu[3] = {0.1, 0.4, -0.3}, p[3] = {-0.2, 0.1, 0.2};
        f->group = sp_group_by_name("SO3");
        if (!f->group) return SP_ERR_INVALID;
        f->group->identity(f->group, f->x0);
        sp_vec_copy(3, xi, f->x0 + 9);
        sp_vec_copy(3, nu, f->x0 + 12);
        sp_vec_copy(3, p, f->x0 + 15);
        f->dim = 18;
        f->model = f->group;
        f->callbacks = 0;
        return SP_OK;
    }
    case SP_STEP_MODEL_HOLONOMIC:
        f->holonomic = fixture_pendulum;
        f->holonomic.params = &f->fail;
        set_state(f, fixture_pendulum_q0, 3, fixture_pendulum_p0, 3);
        f->model = &f->holonomic;
        return SP_OK;
    case SP_STEP_MODEL_LIE_RATTLE: {
        /* the heavy top */
        static const double J[3] = {2, 3, 4}, chi[3] = {0.3, 0.2, 1.0}, omega0[3] = {0.4, -0.7, 1.1};
        static const double R0[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        if (sp_heavy_top_init(&f->top, J, 1.0, chi) != SP_OK) return SP_ERR_INVALID;
        sp_heavy_top_lie_model(&f->top, &f->lie_inner);
        f->lie = f->lie_inner;
        f->lie.potential = lie_potential;
        f->lie.params = f;
        sp_heavy_top_lie_state(&f->top, R0, omega0, f->x0, f->x0 + 9);
        f->dim = 12;
        f->model = &f->lie;
        return SP_OK;
    }
    case SP_STEP_MODEL_PROP7: {
        static const double q0[4] = {1, 0, 0, 0}, p0[4] = {0, 0.3, 0.8, 0};
        if (sp_s3_contact_init(&f->s3, 1.0, 0.0) != SP_OK) return SP_ERR_INVALID;
        sp_s3_contact_model(&f->s3, &f->prop7_inner);
        f->prop7 = f->prop7_inner;
        f->prop7.vak.potential = vak_potential;
        f->prop7.vak.constraints = vak_constraints;
        f->prop7.vak.params = f;
        f->prop7.holonomic = prop7_holonomic;
        f->prop7.params = f;
        set_state(f, q0, 4, p0, 4);
        f->model = &f->prop7;
        return SP_OK;
    }
    case SP_STEP_MODEL_VAKONOMIC: {
        /* the Heisenberg system */
        static const double q0[3] = {0, 0, 0}, p0[3] = {0.1, 0.3, 1};
        sp_params_default(SP_PARAM_SPEC(&sp_vak_heisenberg), &f->prm);
        sp_vak_model_bind(&sp_vak_heisenberg, &f->prm, f->mass, &f->vak_inner);
        f->vak = f->vak_inner;
        f->vak.potential = vak_potential;
        f->vak.constraints = vak_constraints;
        f->vak.params = f;
        set_state(f, q0, 3, p0, 3);
        sp_vakonomic_point *pt = sp_vakonomic_point_alloc(&f->vak_inner);
        if (!pt) return SP_ERR_NOMEM;
        sp_status st = sp_vakonomic_multiplier(&f->vak_inner, pt, q0, p0, f->x0 + 6);
        sp_vakonomic_point_free(pt);
        f->dim = 6 + f->vak.m;
        f->model = &f->vak;
        return st;
    }
    case SP_STEP_MODEL_NONHOLONOMIC: {
        /* the knife edge on an inclined plane */
        const sp_nh_model_type *t = &sp_nh_knife_edge;
        sp_params_default(SP_PARAM_SPEC(t), &f->prm);
        sp_nh_model_bind(t, &f->prm, &f->nh_inner);
        f->nh = f->nh_inner;
        f->nh.hamiltonian = nh_hamiltonian;
        f->nh.constraints = nh_constraints;
        f->nh.params = f;
        t->initial(&f->prm, f->x0, f->x0 + t->n);
        f->dim = 2 * t->n + t->m;
        f->model = &f->nh;
        return sp_nh_multiplier(&f->nh_inner, f->x0, f->x0 + t->n, f->x0 + 2 * t->n);
    }
    case SP_STEP_MODEL_NH_LIE: {
        /* the Suslov problem: Ω ⟂ e, from the identity */
        static const sp_suslov suslov = {{1.0, 2.0, 3.0}, {0.0, 0.0, 1.0}};
        f->suslov = suslov;
        if (sp_suslov_model(&f->suslov, &f->nh_lie_inner) != SP_OK) return SP_ERR_INVALID;
        f->nh_lie = f->nh_lie_inner;
        f->nh_lie.constraints = nh_lie_constraints;
        f->nh_lie.potential = nh_lie_potential;
        f->nh_lie.params = f;
        const sp_group *G = f->nh_lie.group;
        G->identity(G, f->x0);
        const double omega[3] = {0.8, -0.5, 0.0};
        for (int i = 0; i < 3; ++i) f->x0[G->elem_size + i] = f->suslov.J[i] * omega[i];
        f->dim = G->elem_size + G->dim + f->nh_lie.m;
        f->model = &f->nh_lie;
        return sp_nh_lie_multiplier(&f->nh_lie_inner, f->x0, f->x0 + G->elem_size, f->x0 + G->elem_size + G->dim);
    }
    case SP_STEP_MODEL_SPLIT:
        f->pendulum = (sp_spherical_pendulum){1.0, 1.0, 1.0};
        f->split = sp_spherical_pendulum_split(&f->pendulum);
        set_state(f, fixture_pendulum_q0, 3, fixture_pendulum_p0, 3);
        f->model = &f->split;
        f->callbacks = 0; /* the flows fail only on bad data */
        return SP_OK;
    case SP_STEP_MODEL_ODE: {
        static const double y0[2] = {1.0, 0.5};
        f->ode = (sp_ode_system){oscillator, 2, f};
        set_state(f, y0, 2, NULL, 0);
        f->model = &f->ode;
        return SP_OK;
    }
    case SP_STEP_MODEL_ROUND_SPHERE: {
        static const double x0[13] = {1, 0, 0, 0, 0.5, 0.2, 0, 0.1, -0.3, 0, 0.2, 0.1, 0};
        set_state(f, x0, 13, NULL, 0);
        f->callbacks = 0;
        return SP_OK;
    }
    case SP_STEP_MODEL_KINDS:
        break;
    }
    return SP_ERR_INVALID;
}
