/* Explicit Runge–Kutta steps and the adaptive driver of DOP853.
 *
 * A step with the table (A, b, c): k_1 = F(y0), k_i = F(y0 + h Σ_{j<i} a_ij k_j),
 * y1 = y0 + h Σ b_i k_i. The error estimate and the step-size control are those of
 * Hairer's dop853.f (Hairer, Nørsett & Wanner, Solving ODEs I, 2nd ed., §II.4 and §II.10):
 *
 *   sk_i  = atol + rtol max(|y0_i|, |y1_i|),
 *   err   = |h| E5 / sqrt(n (E5 + 0.01 E3)),  E5 = Σ_i (Σ_j e_j k_j,i / sk_i)², E3 likewise,
 *   fac   = max(1/fac_max, min(1/fac_min, err^{1/8} / facold^β / safety)),  h_new = h / fac,
 *
 * accepted when err ≤ 1 (then facold = max(err, 1e-4), and after a rejection the step may
 * not grow); otherwise h_new = h / min(1/fac_min, err^{1/8} / safety). The starting step
 * is Hairer's estimate (subroutine hinit of dop853.f). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrators/sp_explicit_rk.h"
#include "lie/sp_linalg.h"

struct sp_erk {
    sp_ode_system sys;
    sp_tableau_explicit tab;
    double *k[SP_TABLEAU_EXPLICIT_MAX_STAGES]; /* k[0] = F(y_cache) when have_k1 */
    double *y_cache, *ytmp, *ynew;
    int have_k1;
    /* the controller's memory between accepted steps */
    double facold;
    int rejected_last;
    sp_erk_stats stats;
    sp_erk_stop_reason stop;
};

/* The control parameters resolved for one call. */
typedef struct control {
    double rtol, atol, safety, facc1, facc2, beta, expo, hmax;
} control;

sp_erk_control sp_erk_control_default(void)
{
    sp_erk_control c = {1e-6, 1e-9, 0.9, 0.333, 6.0, 0.0, 0.0, 0.0, 100000};
    return c;
}

const char *sp_erk_stop_name(sp_erk_stop_reason r)
{
    switch (r) {
    case SP_ERK_DONE:
        return "done";
    case SP_ERK_CALLBACK:
        return "callback";
    case SP_ERK_NONFINITE:
        return "non_finite";
    case SP_ERK_STEP_UNDERFLOW:
        return "step_size_underflow";
    case SP_ERK_MAX_STEPS:
        return "too_many_steps";
    case SP_ERK_BAD_ARGUMENT:
        return "invalid_argument";
    }
    return "unknown";
}

sp_erk *sp_erk_alloc(const char *method, const sp_ode_system *system)
{
    if (!system || !system->function || system->dim < 1) return NULL;
    sp_tableau_explicit tab;
    if (sp_tableau_explicit_get(method, &tab) != SP_OK) return NULL;
    sp_erk *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sys = *system;
    s->tab = tab;
    const size_t n = (size_t)system->dim;
    /* one block: the stages, then y_cache, ytmp and ynew */
    double *block = malloc((size_t)(tab.stages + 3) * n * sizeof *block);
    if (!block) {
        free(s);
        return NULL;
    }
    for (int i = 0; i < tab.stages; ++i) s->k[i] = block + (size_t)i * n;
    s->y_cache = block + (size_t)tab.stages * n;
    s->ytmp = s->y_cache + n;
    s->ynew = s->ytmp + n;
    s->facold = 1e-4;
    s->stop = SP_ERK_DONE;
    return s;
}

void sp_erk_free(sp_erk *s)
{
    if (!s) return;
    free(s->k[0]);
    free(s);
}

const sp_tableau_explicit *sp_erk_tableau(const sp_erk *s) { return &s->tab; }
int sp_erk_adaptive(const sp_erk *s) { return s->tab.estimators > 0; }
void sp_erk_reset(sp_erk *s)
{
    s->have_k1 = 0;
    s->facold = 1e-4;
    s->rejected_last = 0;
}
sp_erk_stats sp_erk_get_stats(const sp_erk *s) { return s->stats; }
void sp_erk_reset_stats(sp_erk *s) { memset(&s->stats, 0, sizeof s->stats); }
sp_erk_stop_reason sp_erk_stop(const sp_erk *s) { return s->stop; }

static sp_status fail(sp_erk *s, sp_erk_stop_reason why)
{
    s->stop = why;
    switch (why) {
    case SP_ERK_DONE:
        return SP_OK;
    case SP_ERK_CALLBACK:
        return SP_ERR_CALLBACK;
    case SP_ERK_NONFINITE:
        return SP_ERR_NONFINITE;
    case SP_ERK_STEP_UNDERFLOW:
        return SP_ERR_STEP_UNDERFLOW;
    case SP_ERK_MAX_STEPS:
        return SP_ERR_TOO_MANY_STEPS;
    case SP_ERK_BAD_ARGUMENT:
        return SP_ERR_INVALID;
    }
    return SP_ERR_INVALID;
}

static int call(sp_erk *s, const double *y, double *dy)
{
    s->stats.evaluations++;
    return s->sys.function(y, dy, s->sys.params);
}

/* k[0] = F(y), unless it is cached for exactly this y. */
static int first_stage(sp_erk *s, const double *y)
{
    const int n = s->sys.dim;
    if (s->have_k1 && memcmp(s->y_cache, y, (size_t)n * sizeof *y) == 0) return 0;
    s->have_k1 = 0;
    int rc = call(s, y, s->k[0]);
    if (rc != 0) return rc;
    sp_vec_copy(n, y, s->y_cache);
    s->have_k1 = 1;
    return 0;
}

/* Stages 2…s from y with step h (k[0] must hold F(y)), then ynew = y + h Σ b_i k_i.
 * Returns the first non-zero callback code. */
static int stages(sp_erk *s, double h, const double *y)
{
    const int n = s->sys.dim, st = s->tab.stages;
    for (int i = 1; i < st; ++i) {
        sp_vec_copy(n, y, s->ytmp);
        for (int j = 0; j < i; ++j)
            if (s->tab.A[i][j] != 0.0) sp_vec_axpy(n, h * s->tab.A[i][j], s->k[j], s->ytmp);
        int rc = call(s, s->ytmp, s->k[i]);
        if (rc != 0) return rc;
    }
    sp_vec_copy(n, y, s->ynew);
    for (int i = 0; i < st; ++i)
        if (s->tab.b[i] != 0.0) sp_vec_axpy(n, h * s->tab.b[i], s->k[i], s->ynew);
    return 0;
}

sp_status sp_erk_step(sp_erk *s, double h, double *y)
{
    if (!y || !isfinite(h)) return fail(s, SP_ERK_BAD_ARGUMENT);
    const int n = s->sys.dim;
    s->stats.steps++;
    if (first_stage(s, y) != 0 || stages(s, h, y) != 0) return fail(s, SP_ERK_CALLBACK);
    if (!sp_vec_isfinite(n, s->ynew)) return fail(s, SP_ERK_NONFINITE);
    sp_vec_copy(n, s->ynew, y);
    s->stats.accepted++;
    s->stats.h_last = h;
    return fail(s, SP_ERK_DONE);
}

sp_status sp_erk_fixed(sp_erk *s, double t0, double t1, long N, double *y)
{
    if (N < 1 || !isfinite(t0) || !isfinite(t1)) return fail(s, SP_ERK_BAD_ARGUMENT);
    const double h = (t1 - t0) / (double)N;
    for (long i = 0; i < N; ++i) {
        sp_status st = sp_erk_step(s, h, y);
        if (st != SP_OK) return st;
    }
    return SP_OK;
}

static int resolve(const sp_erk *s, const sp_erk_control *ctl, double span, control *c)
{
    if (!ctl || !(ctl->rtol >= 0.0) || !(ctl->atol >= 0.0) || !(ctl->rtol + ctl->atol > 0.0) ||
        !(ctl->safety > 0.0 && ctl->safety <= 1.0) || !(ctl->fac_min > 0.0 && ctl->fac_min <= 1.0) ||
        !(ctl->fac_max >= 1.0) || !(ctl->beta >= 0.0 && ctl->beta <= 0.2) || !(ctl->h_max >= 0.0) ||
        !isfinite(ctl->h_init) || !isfinite(ctl->h_max) || !isfinite(ctl->fac_max) || ctl->max_steps < 1 ||
        s->tab.estimators < 1)
        return 0;
    c->rtol = ctl->rtol;
    c->atol = ctl->atol;
    c->safety = ctl->safety;
    c->facc1 = 1.0 / ctl->fac_min;
    c->facc2 = 1.0 / ctl->fac_max;
    c->beta = ctl->beta;
    c->expo = 1.0 / s->tab.control_order - 0.2 * ctl->beta;
    c->hmax = ctl->h_max > 0.0 ? ctl->h_max : fabs(span);
    return 1;
}

/* Hairer's starting step (dop853.f, hinit); k[0] = F(y). Uses k[1] as scratch. */
static int starting_step(sp_erk *s, const control *c, const double *y, double dir, double *h_out)
{
    const int n = s->sys.dim;
    const double *f0 = s->k[0];
    double dnf = 0.0, dny = 0.0;
    for (int i = 0; i < n; ++i) {
        double sk = c->atol + c->rtol * fabs(y[i]);
        dnf += (f0[i] / sk) * (f0[i] / sk);
        dny += (y[i] / sk) * (y[i] / sk);
    }
    double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : sqrt(dny / dnf) * 0.01;
    h = fmin(h, c->hmax);
    for (int i = 0; i < n; ++i) s->ytmp[i] = y[i] + dir * h * f0[i];
    int rc = call(s, s->ytmp, s->k[1]);
    if (rc < 0) return rc;
    if (rc > 0 || !sp_vec_isfinite(n, s->k[1])) { /* no second-derivative estimate: keep the first guess */
        *h_out = dir * h;
        return 0;
    }
    double der2 = 0.0;
    for (int i = 0; i < n; ++i) {
        double sk = c->atol + c->rtol * fabs(y[i]), d = (s->k[1][i] - f0[i]) / sk;
        der2 += d * d;
    }
    der2 = sqrt(der2) / h;
    double der12 = fmax(der2, sqrt(dnf));
    double h1 = der12 <= 1e-15 ? fmax(1e-6, h * 1e-3) : pow(0.01 / der12, 1.0 / s->tab.order);
    *h_out = dir * fmin(fmin(100.0 * h, h1), c->hmax);
    return 0;
}

/* Hairer's error norm of the step just computed (ynew from y with step h). */
static double error_norm(const sp_erk *s, const control *c, double h, const double *y)
{
    const int n = s->sys.dim, st = s->tab.stages;
    double e5 = 0.0, e3 = 0.0;
    for (int i = 0; i < n; ++i) {
        double sk = c->atol + c->rtol * fmax(fabs(y[i]), fabs(s->ynew[i])), a = 0.0, b = 0.0;
        for (int j = 0; j < st; ++j) {
            if (s->tab.e[j] != 0.0) a += s->tab.e[j] * s->k[j][i];
            if (s->tab.estimators > 1 && s->tab.e2[j] != 0.0) b += s->tab.e2[j] * s->k[j][i];
        }
        e5 += (a / sk) * (a / sk);
        e3 += (b / sk) * (b / sk);
    }
    if (s->tab.estimators == 1) return fabs(h) * sqrt(e5 / n);
    double deno = e5 + 0.01 * e3;
    if (deno <= 0.0) deno = 1.0;
    return fabs(h) * e5 * sqrt(1.0 / (n * deno));
}

/* One accepted step; every attempt spends one unit of *budget. */
static sp_status evolve(sp_erk *s, const control *c, double *t, double t1, double *h, double *y, long *budget)
{
    const int n = s->sys.dim;
    if (t1 == *t) return fail(s, SP_ERK_DONE);
    const double dir = t1 > *t ? 1.0 : -1.0;
    int rc = first_stage(s, y);
    if (rc != 0) return fail(s, SP_ERK_CALLBACK);
    if (!sp_vec_isfinite(n, s->k[0])) return fail(s, SP_ERK_NONFINITE);
    double hh = *h;
    if (hh == 0.0 || !isfinite(hh)) {
        if (starting_step(s, c, y, dir, &hh) != 0) return fail(s, SP_ERK_CALLBACK);
    }
    hh = dir * fmin(fabs(hh), c->hmax);
    for (;;) {
        if (*budget <= 0) return fail(s, SP_ERK_MAX_STEPS);
        if (hh == 0.0 || 0.1 * fabs(hh) <= fabs(*t) * DBL_EPSILON) return fail(s, SP_ERK_STEP_UNDERFLOW);
        int last = 0;
        if ((*t + 1.01 * hh - t1) * dir > 0.0) {
            hh = t1 - *t;
            last = 1;
        }
        --*budget;
        s->stats.steps++;
        rc = stages(s, hh, y);
        if (rc < 0) return fail(s, SP_ERK_CALLBACK);
        if (rc > 0) { /* recoverable: retry with the smallest allowed factor */
            s->stats.rejected++;
            s->rejected_last = 1;
            hh /= c->facc1;
            continue;
        }
        double err = error_norm(s, c, hh, y);
        if (!isfinite(err) || !sp_vec_isfinite(n, s->ynew)) return fail(s, SP_ERK_NONFINITE);
        double fac11 = pow(err, c->expo);
        double fac = fac11 / pow(s->facold, c->beta);
        fac = fmax(c->facc2, fmin(c->facc1, fac / c->safety));
        double hnew = hh / fac;
        if (err <= 1.0) {
            s->facold = fmax(err, 1e-4);
            sp_vec_copy(n, s->ynew, y);
            *t = last ? t1 : *t + hh;
            if (fabs(hnew) > c->hmax) hnew = dir * c->hmax;
            if (s->rejected_last) hnew = dir * fmin(fabs(hnew), fabs(hh));
            s->rejected_last = 0;
            s->stats.accepted++;
            s->stats.h_last = hh;
            *h = hnew;
            return fail(s, SP_ERK_DONE);
        }
        s->stats.rejected++;
        s->rejected_last = 1;
        hh /= fmin(c->facc1, fac11 / c->safety);
    }
}

sp_status sp_erk_evolve(sp_erk *s, const sp_erk_control *ctl, double *t, double t1, double *h, double *y)
{
    control c;
    if (!t || !h || !y || !isfinite(*t) || !isfinite(t1) || !resolve(s, ctl, t1 - *t, &c))
        return fail(s, SP_ERK_BAD_ARGUMENT);
    long budget = ctl->max_steps;
    return evolve(s, &c, t, t1, h, y, &budget);
}

sp_status sp_erk_integrate(sp_erk *s, const sp_erk_control *ctl, double *t, double t1, double *y)
{
    control c;
    if (!t || !y || !isfinite(*t) || !isfinite(t1) || !resolve(s, ctl, t1 - *t, &c))
        return fail(s, SP_ERK_BAD_ARGUMENT);
    s->facold = 1e-4;
    s->rejected_last = 0;
    long budget = ctl->max_steps;
    double h = ctl->h_init;
    while (*t != t1) {
        sp_status st = evolve(s, &c, t, t1, &h, y, &budget);
        if (st != SP_OK) return st;
    }
    return fail(s, SP_ERK_DONE);
}
