/* The smoothing's solver for tight slots (sp_car_plan.h, car_ip_solve): a primal–dual
 * interior-point method that keeps every clearance constraint and every bound strictly
 * satisfied from a start that satisfies them (the route, laid out by
 * car_tx_init_pieces), and the defects by Newton's steps on their linearisation.
 *
 * Why. In a slot a few centimetres longer than the car the augmented Lagrangian leaves
 * the route at once: with its first small penalty the energy shrinks the short moves the
 * route needs to their floor, and once the path is outside, the penalty's minimiser under
 * the bounds is a point of least violation that no larger penalty undoes (a tight parallel
 * slot: the violation held at 2.4e-3 with ρ = 10⁹ while the inner problem was solved). A
 * barrier never leaves: every iterate keeps the clearance, and the short moves shrink only
 * as far as the obstacles let them.
 *
 * The method (A. Wächter & L. T. Biegler, On the implementation of an interior-point
 * filter line-search algorithm for large-scale nonlinear programming, 2006; J. Nocedal &
 * S. J. Wright, Numerical Optimization, 2006, ch. 19): for a barrier weight μ, Newton's steps on the conditions
 * ∇E + Aᵀy + Cᵀz = 0, d = 0, s_i z_i = μ with the slacks s = r − c of the inequality rows
 * c ≤ r: the clearance rows, the rate rows and the bounds, each bound a row of its own
 * (r = 0 but where the start breaks a row or sits on it: there r is a shift that makes
 * it hold). The duals z eliminated, and the shifts taken to zero by the step:
 *   [W + Cᵀ diag(z/s) C   Aᵀ] [dx]    [−∇E − Cᵀ((μ + z r)/s)]
 *   [A                    0 ] [y⁺]  = [−d                    ],
 *   dz = μ/s − z + (z/s)(C dx + r),
 * W the Hessian of E + yᵀd + zᵀc over the band of the transcription (car_tx_hessian:
 * convexified far from a solution, whole near one, see FULL_STEPS) and damped by τ I
 * where the step is no descent or its curvature not clearly positive (the LU
 * factorisation does not tell the inertia); every row touches
 * two neighbouring intervals, so the system is banded in car_tx_place order with each
 * equality after its unknowns (car_kkt_augmented_solve). A step α is cut so that every
 * slack keeps a hundredth of its value, and the point x + α dx with the shifts (1 − α) r
 * is judged by a filter on the barrier objective φ = E − μ Σ log s and the violation
 * θ = ‖d‖₁ + Σ r: taken when it lowers either enough and no earlier point of the barrier
 * problem was better in both, or, where θ is already small, when it lowers φ as Armijo
 * asks; the first trial is corrected back onto the defects when it is not taken. The
 * duals take their own step, as long as keeps each above a hundredth of its value (ibid.,
 * eq. 15), whatever the primal step was. μ falls tenfold (or to μ^1.5) once the barrier
 * problem's conditions, the shifts among them, hold to KAPPA μ.
 *
 * The duals' step was the primal one before. Where a slack is tiny and its dual far below
 * μ/s (uncentred: its row has lost its stiffness z/s in the system), the steps run into
 * that row and are cut to a fraction of a percent, and the dual, moved only as far as the
 * step, takes hundreds of them to recover (TPCAP case 7, whose route has the steering at
 * its limit on most moves: 188 of the first solve's first 300 steps were cut by a bound).
 *
 * The filter replaced the ℓ1 merit E − μ Σ log s + ν θ. In a tight slot the defects'
 * multipliers, and so ν, reach some 2000 (data/car/narrow_slot.json): the defects'
 * curvature along a step, times ν, outweighed the fall of the energy, and the steps were
 * cut to 1/16 for hundreds of iterations (the slot's first solve: 726 steps, 4540
 * evaluations; with the filter 168 evaluations for the whole smoothing).
 *
 * The bounds were held by projection before, a step cut where it met one: in a tight
 * slot, where the steering is at its limit on most moves and the short moves at their
 * floor, the path then met one bound a step, and a hair inside a bound the next step was
 * a hair long (TPCAP case 7 at clearance 0: the first barrier problem unsolved after 400
 * steps, most of them cut below 1 %). A shift that followed its row down by half its
 * slack each step (rather than with the step) kept a row the margin broke outside for
 * hundreds of steps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/sp_car_plan.h"

/* The first barrier weight, the last, and how close each barrier problem is solved. With
 * the steps of FULL_STEPS' comment, μ0 = 10⁻² took TPCAP case 7 (by this method alone)
 * in 648 evaluations where 10⁻³ took 1905, 3·10⁻³ 732 and 3·10⁻² 1386; the 22 tight
 * scenes in 5219 (5301, 10401, 13273: each of the last two has one scene in thousands). */
#define MU0 1e-2
#define MU_MIN 1e-11
#define KAPPA 10.0
/* a step moves no unknown by more than this (metres or radians): the clearance pairs are
 * picked near the point */
#define MAX_STEP 0.3
/* a clearance row within this of its bound at the start (or broken there) is shifted to
 * hold by this much: a slack much smaller would make its barrier's push μ/s dominate */
#define SHIFT 1e-4
/* the steps of a barrier problem between two selections of the pairs */
#define REFRESH 25
/* The Hessian the steps are taken on (car_tx_hessian). Far from a solution, the
 * convexified one: the Lagrangian's Hessian is strongly indefinite there (the defects'
 * multipliers reach thousands in a tight slot, and the arcs bend), and a step on it,
 * even damped until its curvature along the step is positive, is mostly a long way in a
 * direction of little curvature that the fraction to the boundary or MAX_STEP then cuts
 * to a thousandth (data/car/narrow_slot.json: one direction 60 m long; TPCAP case 7: the
 * damping τ rose to hundreds and stayed, every step a short one of steepest descent). The
 * convexified one takes full steps to the neighbourhood of a solution. There, after
 * FULL_STEPS full steps in a row, the whole Hessian takes over, for Newton's fast
 * convergence (on the convexified one the last digits come linearly: hundreds of steps);
 * a step on it longer than MAX_STEP gives the convexified one back the next steps. Both
 * ways, measured on the interior-point method alone with μ0 = 10⁻³: the narrow slot in 136
 * evaluations instead of 299, TPCAP case 7 in 1905 instead of 5302, the 22 tight scenes in
 * 5301 instead of 6640 (the duals' own step included: without it, case 7 did not converge
 * in 20000). */
#define FULL_STEPS 2

typedef struct ip {
    car_tx *t;
    size_t n, me, m;    /* unknowns, equalities (the defects), all constraints */
    const double *lb, *ub;
    size_t nb;          /* the bounds' rows, after the transcription's: lb_j − x_j ≤ 0, x_j − ub_j ≤ 0 */
    size_t *bj;         /* nb: their unknowns j, plus n for an upper bound */
    double *f;          /* m: the constraints' values at the point */
    long *col;          /* m × CAR_TX_NZ: their sparse rows (car_tx_constraints_sparse) */
    double *val;
    double *y;          /* me: the defects' multipliers */
    double *z;          /* m − me: the inequalities' duals */
    double *r;          /* m − me: their shifts (c_i ≤ r_i) */
    double keep;        /* the share of the shifts at the point judged: 1, or 1 − α at a trial step α */
    double *w;          /* m: the weights of the Hessian's terms (y, then z) */
    int evaluations;
} ip;

static double slack(const ip *a, size_t i) { return a->keep * a->r[i - a->me] - a->f[i]; }

/* The constraints at x into a->f, and with jac their rows. A trial point (no rows) is an
 * evaluation of the filter's measures and counted as one; the rows at a point taken are
 * the step's cost, as the Hessian is. */
static void rows(const ip *a, const double *x, long *col, double *val)
{
    const size_t m0 = a->m - a->nb;
    car_tx_constraints_sparse(a->t, x, a->f, col, val);
    for (size_t b = 0; b < a->nb; ++b) {
        const size_t j = a->bj[b] % a->n, i = m0 + b;
        const int upper = a->bj[b] >= a->n;
        a->f[i] = upper ? x[j] - a->ub[j] : a->lb[j] - x[j];
        if (!col) continue;
        for (int e = 0; e < CAR_TX_NZ; ++e) col[i * CAR_TX_NZ + e] = -1, val[i * CAR_TX_NZ + e] = 0.0;
        col[i * CAR_TX_NZ] = (long)j, val[i * CAR_TX_NZ] = upper ? 1.0 : -1.0;
    }
}

static void evaluate(ip *a, const double *x, int jac)
{
    a->evaluations += !jac;
    rows(a, x, jac ? a->col : NULL, a->val);
}

static void add_row(const ip *a, size_t i, double w, double *g)
{
    for (size_t e = i * CAR_TX_NZ; e < (i + 1) * CAR_TX_NZ; ++e)
        if (a->col[e] >= 0) g[a->col[e]] += w * a->val[e];
}

static double row_dot(const ip *a, size_t i, const double *v)
{
    double s = 0.0;
    for (size_t e = i * CAR_TX_NZ; e < (i + 1) * CAR_TX_NZ; ++e)
        if (a->col[e] >= 0) s += a->val[e] * v[a->col[e]];
    return s;
}

/* The barrier problem's two measures at the values in a->f: its objective φ = E − μ Σ log s
 * (HUGE_VAL where a slack is not positive), and its violation θ = ‖d‖₁ + Σ r (the defects
 * and the shifts still to be taken). */
static double barrier_objective(const ip *a, double energy, double mu)
{
    double v = energy;
    for (size_t i = a->me; i < a->m; ++i) {
        const double s = slack(a, i);
        if (!(s > 0.0)) return HUGE_VAL;
        v -= mu * log(s);
    }
    return v;
}

static double barrier_violation(const ip *a)
{
    double v = 0.0;
    for (size_t j = 0; j < a->me; ++j) v += fabs(a->f[j]);
    for (size_t i = a->me; i < a->m; ++i) v += a->keep * a->r[i - a->me];
    return v;
}

/* The filter of one barrier problem (Wächter & Biegler, 2006, §2.3): pairs (θ, φ) a trial
 * point must not be dominated by, and the violations beyond which no trial is taken
 * (th_max) and below which descent in φ alone is asked (th_min). */
typedef struct filter {
    double *th, *ph;
    size_t n, cap;
    double th_max, th_min;
    int fresh; /* the barrier problem is new: the bounds are set at its first step */
} filter;

/* The filter's constants (ibid., as in their IPOPT): margins γθ, γφ, the switching
 * condition's exponents sθ, sφ, and Armijo's ηφ. */
#define GAMMA_THETA 1e-5
#define GAMMA_PHI 1e-8
#define S_THETA 1.1
#define S_PHI 2.3
#define ETA_PHI 1e-4

static void filter_add(filter *F, double th, double ph)
{
    if (F->n == F->cap) {
        const size_t cap = F->cap ? 2 * F->cap : 64;
        double *a = realloc(F->th, cap * sizeof *a);
        if (!a) return; /* (a filter with fewer entries only accepts more) */
        F->th = a;
        double *b = realloc(F->ph, cap * sizeof *b);
        if (!b) return;
        F->ph = b, F->cap = cap;
    }
    F->th[F->n] = th, F->ph[F->n] = ph, ++F->n;
}

/* Whether a trial point (θt, φt) at step α from (θ0, φ0), along which φ's slope is gphi,
 * is taken; *descent 1 when taken for its descent in φ alone (then the filter is not
 * augmented). */
static int filter_accepts(const filter *F, double th0, double ph0, double gphi, double alpha, double tht, double pht,
                          int *descent)
{
    *descent = 0;
    if (!isfinite(pht) || tht > F->th_max) return 0;
    for (size_t i = 0; i < F->n; ++i)
        if (tht >= F->th[i] && pht >= F->ph[i]) return 0;
    if (th0 <= F->th_min && gphi < 0.0 && alpha * pow(-gphi, S_PHI) > pow(th0, S_THETA)) {
        *descent = 1;
        return pht <= ph0 + ETA_PHI * alpha * gphi;
    }
    return tht <= (1.0 - GAMMA_THETA) * th0 || pht <= ph0 - GAMMA_PHI * th0;
}

/* The largest |∇E + Aᵀy + Cᵀz| over the unknowns not fixed, g holding ∇E on entry and
 * the whole sum on return (a->col, a->val at the point). */
static double lagrangian_stationarity(const ip *a, const unsigned char *fixed, double *g)
{
    for (size_t j = 0; j < a->me; ++j) add_row(a, j, a->y[j], g);
    for (size_t i = a->me; i < a->m; ++i) add_row(a, i, a->z[i - a->me], g);
    double stat = 0.0;
    for (size_t j = 0; j < a->n; ++j)
        if (!fixed[j]) stat = fmax(stat, fabs(g[j]));
    return stat;
}

/* The KKT conditions at x with the method's own multipliers: *stationarity the largest
 * of |∇E + Aᵀy + Cᵀz| over the unknowns not fixed and of the complementarity z_i |c_i|,
 * over max(1, ‖∇E‖∞) as car_kkt_eval's; *violation the largest defect or broken row. The
 * duals are positive by construction. Where the active rows are degenerate (a tight slot:
 * corners of the car against one polygon at neighbouring points) the least-squares
 * multipliers of car_kkt_eval are one choice among many and may break the sign of some,
 * while these, found with the path, keep it (data/car/narrow_slot.json: stationarity
 * 8e-11 with these, 0.12 with those). a->f, a->col, a->val are left at x. */
static void own_conditions(ip *a, const double *x, const unsigned char *fixed, double *g, double *stationarity,
                           double *violation)
{
    evaluate(a, x, 1);
    car_tx_energy(a->t, x, g);
    double gmax = 0.0, v = 0.0, comp = 0.0;
    for (size_t j = 0; j < a->n; ++j) gmax = fmax(gmax, fabs(g[j]));
    for (size_t j = 0; j < a->me; ++j) v = fmax(v, fabs(a->f[j]));
    for (size_t i = a->me; i < a->m; ++i) {
        v = fmax(v, a->f[i]);
        comp = fmax(comp, a->z[i - a->me] * fabs(a->f[i]));
    }
    *stationarity = fmax(lagrangian_stationarity(a, fixed, g), comp) / fmax(1.0, gmax);
    *violation = v;
}

/* Picks the pairs near x again; the new clearance rows (inserted after the old ones,
 * before the rate rows) get a shift that keeps them satisfied at x and the dual μ/s.
 * a->f, a->col, a->val are left at x. SP_ERR_NOMEM or SP_OK. */
static sp_status reselect(ip *a, const double *x, double near, double mu)
{
    car_tx *t = a->t;
    const size_t old_obs = t->n_obs;
    if (car_tx_select(t, x, near) != SP_OK) return SP_ERR_NOMEM;
    const size_t added = t->n_obs - old_obs, m = car_tx_n_constraints(t) + a->nb, mi = m - a->me;
    if (added) {
        double *f = malloc(m * sizeof *f), *val = malloc(m * CAR_TX_NZ * sizeof *val), *w = malloc(m * sizeof *w);
        double *z = malloc(mi * sizeof *z), *r = malloc(mi * sizeof *r);
        long *col = malloc(m * CAR_TX_NZ * sizeof *col);
        if (!f || !val || !w || !z || !r || !col) {
            free(f), free(val), free(w), free(z), free(r), free(col);
            return SP_ERR_NOMEM;
        }
        const size_t head = old_obs, tail = a->m - a->me - old_obs;
        memcpy(z, a->z, head * sizeof *z), memcpy(z + head + added, a->z + head, tail * sizeof *z);
        memcpy(r, a->r, head * sizeof *r), memcpy(r + head + added, a->r + head, tail * sizeof *r);
        free(a->f), free(a->val), free(a->w), free(a->z), free(a->r), free(a->col);
        a->f = f, a->val = val, a->w = w, a->z = z, a->r = r, a->col = col, a->m = m;
        evaluate(a, x, 1);
        for (size_t i = a->me + head; i < a->me + head + added; ++i) {
            a->r[i - a->me] = a->f[i] > -SHIFT ? a->f[i] + SHIFT : 0.0;
            a->z[i - a->me] = mu / slack(a, i);
        }
    }
    evaluate(a, x, 1);
    /* (a row made one piece's keeps its value at x but for rounding: it is shifted to
     * hold if that took its slack) */
    for (size_t i = a->me; i < a->m; ++i)
        if (!(slack(a, i) > 0.0)) a->r[i - a->me] = a->f[i] + SHIFT;
    return SP_OK;
}

sp_status car_ip_solve(car_tx *t, double *x, const double *lb, const double *ub, const car_al_limits *lim,
                       car_al_out *out)
{
    const size_t n = t->n, me = 3 * t->N, ld = CAR_TX_BAND + 1;
    ip a = {.t = t, .n = n, .me = me, .m = me, .lb = lb, .ub = ub, .keep = 1.0};
    *out = (car_al_out){.own_stationarity = HUGE_VAL, .own_violation = HUGE_VAL};
    double *g = malloc(n * sizeof *g), *gb = malloc(n * sizeof *gb), *hb = malloc(ld * n * sizeof *hb),
           *hl = malloc(ld * n * sizeof *hl), *g1 = malloc(n * sizeof *g1), *xt = malloc(n * sizeof *xt),
           *rhs = malloc((n + me) * sizeof *rhs),
           *dx = malloc(n * sizeof *dx), *ynew = malloc(me * sizeof *ynew);
    unsigned char *fixed = malloc(n);
    double *mval = malloc((me ? me : 1) * CAR_TX_NZ * sizeof *mval);
    a.y = calloc(me, sizeof *a.y), a.bj = malloc(2 * n * sizeof *a.bj);
    sp_status st = SP_ERR_NOMEM;
    if (!g || !gb || !hb || !hl || !g1 || !xt || !rhs || !dx || !ynew || !fixed || !a.y || !a.bj || !mval)
        goto done;
    for (size_t j = 0; j < n; ++j) {
        fixed[j] = lb[j] == ub[j]; /* (held where it is) */
        if (fixed[j]) continue;
        if (isfinite(lb[j])) a.bj[a.nb++] = j;
        if (isfinite(ub[j])) a.bj[a.nb++] = j + n;
    }
    /* (an unknown a hair inside its bound, the route's steering kept in single precision,
     * sits on it: otherwise the first step to cross it would be a hair long) */
    for (size_t j = 0; j < n; ++j) {
        x[j] = fmin(ub[j], fmax(lb[j], x[j]));
        if (x[j] - lb[j] < 1e-7) x[j] = lb[j];
        if (ub[j] - x[j] < 1e-7) x[j] = ub[j];
    }
    double mu = MU0;
    /* the constraints at the start: a row it breaks is shifted to hold there */
    if (car_tx_select(t, x, lim->near) != SP_OK) goto done;
    a.m = car_tx_n_constraints(t) + a.nb;
    const size_t mi0 = a.m - me;
    a.f = malloc(a.m * sizeof *a.f), a.w = malloc(a.m * sizeof *a.w), a.val = malloc(a.m * CAR_TX_NZ * sizeof *a.val);
    a.col = malloc(a.m * CAR_TX_NZ * sizeof *a.col);
    a.z = malloc((mi0 ? mi0 : 1) * sizeof *a.z), a.r = malloc((mi0 ? mi0 : 1) * sizeof *a.r);
    if (!a.f || !a.w || !a.val || !a.col || !a.z || !a.r) goto done;
    evaluate(&a, x, 1);
    for (size_t i = me; i < a.m; ++i) {
        a.r[i - me] = a.f[i] > -SHIFT ? a.f[i] + SHIFT : 0.0;
        a.z[i - me] = mu / slack(&a, i);
    }
    st = SP_OK;
    double *dz = NULL, *cdx = NULL;
    double nu = 1.0, tau = 0.0;
    filter F = {.fresh = 1};
    car_pace pace = {.longest = 0.0, .waited = t->waited};
    const double allowed = car_tx_depth(t, x) + 1e-3;
    int fresh = 1;
    /* near: the steps are on the whole Hessian; full: the full steps in a row on the
     * convexified one */
    int near = 0, full = 0;
    for (int outer = 0; outer < lim->max_outer; ++outer) {
        int solved = 0;
        pace.last = -1.0;
        for (int inner = 0; inner < lim->max_inner; ++inner) {
            if (sp_progress_stopped(lim->progress)) goto finish;
            /* Every REFRESH steps within a barrier problem, the pairs near x again: where
             * the path has moved so that two pieces of a polygon's distance tie, its row
             * is split (car_tx_select), which ends the cycling of the steps on the kink;
             * the barrier problem is then a new one. */
            if (inner > 0 && inner % REFRESH == 0) {
                const size_t had = a.m, refined = t->refined;
                if (reselect(&a, x, lim->near, mu) != SP_OK) {
                    st = SP_ERR_NOMEM;
                    goto finish;
                }
                if (a.m != had || t->refined != refined) F.fresh = 1, fresh = 1;
            }
            /* no step is begun that would end past the deadline, judged by the longest
             * one so far (as the augmented Lagrangian's) */
            if (a.evaluations >= lim->max_evaluations || car_pace_late(&pace, lim->deadline)) {
                out->out_of_budget = 1;
                goto finish;
            }
            const size_t mi = a.m - me;
            free(dz), free(cdx);
            dz = malloc((mi ? mi : 1) * sizeof *dz), cdx = malloc((mi ? mi : 1) * sizeof *cdx);
            if (!dz || !cdx) {
                st = SP_ERR_NOMEM;
                goto finish;
            }
            /* the conditions of the barrier problem at x (a.f, a.col, a.val are at x) */
            const double energy = car_tx_energy(t, x, g);
            /* the barrier's gradient ∇E + Cᵀ(μ + z r)/s (the shifts' term: the step that
             * takes them to zero) */
            memcpy(gb, g, n * sizeof *gb);
            double gmax = 0.0, comp = 0.0, eq = 0.0;
            for (size_t j = 0; j < n; ++j) gmax = fmax(gmax, fabs(g[j]));
            for (size_t i = me; i < a.m; ++i) {
                const double s = slack(&a, i);
                add_row(&a, i, (mu + a.z[i - me] * a.r[i - me]) / s, gb);
                comp = fmax(comp, fabs(s * a.z[i - me] - mu));
                eq = fmax(eq, a.r[i - me]);
            }
            for (size_t j = 0; j < me; ++j) eq = fmax(eq, fabs(a.f[j]));
            /* stationarity with the multipliers: ∇E + Aᵀy + Cᵀz */
            memcpy(g1, g, n * sizeof *g1);
            const double stat = lagrangian_stationarity(&a, fixed, g1);
            out->violation = eq;
            if (fmax(stat / fmax(1.0, gmax), fmax(eq, comp)) <= KAPPA * mu) {
                solved = 1;
                break;
            }
            /* the Hessian of E + yᵀd + zᵀc, convexified but near a solution (the bounds'
             * rows, linear, add nothing) */
            if (fresh) {
                for (size_t j = 0; j < me; ++j) a.w[j] = a.y[j];
                for (size_t i = me; i < a.m; ++i) a.w[i] = a.z[i - me];
                memset(hl, 0, ld * n * sizeof *hl);
                if (car_tx_hessian(t, x, a.w, near ? CAR_HESSIAN_WHOLE : CAR_HESSIAN_CONVEX, hl) != SP_OK) {
                    st = SP_ERR_NOMEM;
                    goto finish;
                }
            }
            memcpy(hb, hl, ld * n * sizeof *hb);
            /* + Cᵀ diag(z/s) C, from the rows' few nonzeros */
            for (size_t i = me; i < a.m; ++i)
                car_band_add_row(t, a.col + i * CAR_TX_NZ, a.val + i * CAR_TX_NZ, a.z[i - me] / slack(&a, i), hb);
            for (size_t j = 0; j < n; ++j) hb[car_tx_place(t, j) * ld] += tau;
            car_kkt k = {.n = n, .na = me, .mcol = a.col, .mval = mval};
            /* the unknowns whose bounds are equal drop out (their rows and columns the
             * identity) */
            for (size_t j = 0; j < n; ++j) rhs[j] = -gb[j];
            for (size_t j = 0; j < me; ++j) rhs[n + j] = -a.f[j];
            for (size_t j = 0; j < n; ++j)
                if (fixed[j]) car_band_hold(t, j, hb), rhs[j] = 0.0;
            memcpy(mval, a.val, me * CAR_TX_NZ * sizeof *mval);
            for (size_t e = 0; e < me * CAR_TX_NZ; ++e)
                if (a.col[e] >= 0 && fixed[a.col[e]]) mval[e] = 0.0;
            const int ok = car_kkt_augmented_solve(t, &k, hb, 0.0, rhs);
            fresh = 0;
            if (ok != 0) {
                tau = fmax(1e-6, 10.0 * tau);
                if (tau > 1e8) break;
                continue;
            }
            memcpy(dx, rhs, n * sizeof *dx);
            memcpy(ynew, rhs + n, me * sizeof *ynew);
            /* the model's curvature along the step: where it is not clearly positive, the
             * Hessian is indefinite there and the step no Newton step of a minimum (an LU
             * factorisation does not tell the inertia that would say so beforehand) */
            double curv = 0.0, dd = 0.0;
            for (size_t j = 0; j < n; ++j) xt[car_tx_place(t, j)] = dx[j], dd += dx[j] * dx[j];
            for (size_t q = 0; q < n; ++q)
                for (size_t r = 0; r < ld && q + r < n; ++r)
                    curv += (r ? 2.0 : 1.0) * hb[r + q * ld] * xt[q + r] * xt[q];
            if (!(curv > 1e-6 * dd)) {
                tau = fmax(1e-4, 10.0 * tau);
                if (tau > 1e8) break;
                continue;
            }
            double big = 0.0;
            for (size_t j = 0; j < n; ++j) big = fmax(big, fabs(dx[j]));
            if (near && big > MAX_STEP) {
                /* (not so near after all: the convexified Hessian at x, undamped) */
                near = 0, full = 0, tau = 0.0, fresh = 1;
                continue;
            }
            const double cap = big > MAX_STEP ? MAX_STEP / big : 1.0;
            /* the merit's slope along dx, and the longest step that keeps the slacks positive
             * to first order (fraction to the boundary 0.99) */
            double ymax = 0.0, dnorm = 0.0, slope = 0.0, amax = cap;
            for (size_t j = 0; j < me; ++j) ymax = fmax(ymax, fabs(ynew[j])), dnorm += fabs(a.f[j]);
            for (size_t i = me; i < a.m; ++i)
                if (a.r[i - me] > 0.0) ymax = fmax(ymax, a.z[i - me]), dnorm += a.r[i - me];
            /* (the penalty follows the multipliers down as well as up: kept at its
             * largest, 3100 from a shifted row's early dual on scene 500052, it made
             * the defects' curvature outweigh the energy and cut the steps to 3 % for
             * 430 of them) */
            nu = 1.1 * ymax + 1.0;
            for (size_t j = 0; j < n; ++j) slope += g[j] * dx[j];
            /* (a slack's rate of fall along the step: its row's, and its shift's) */
            for (size_t i = me; i < a.m; ++i) {
                const double s = slack(&a, i), c = row_dot(&a, i, dx) + a.r[i - me];
                cdx[i - me] = c;
                slope += mu * c / s;
                if (c > 0.0) amax = fmin(amax, 0.99 * s / c);
                dz[i - me] = mu / s - a.z[i - me] + a.z[i - me] / s * c;
            }
            /* (the ℓ1 merit's slope: a direction along which it does not fall is no
             * Newton step of a minimum; the step itself is judged by the filter) */
            const double gphi = slope;
            slope -= nu * dnorm;
            if (!(slope < 0.0)) {
                tau = fmax(1e-6, 10.0 * tau);
                if (tau > 1e8) break;
                continue;
            }
            const double th0 = barrier_violation(&a), ph0 = barrier_objective(&a, energy, mu);
            if (F.fresh) {
                F.n = 0, F.fresh = 0;
                F.th_max = 1e4 * fmax(1.0, th0), F.th_min = 1e-4 * fmax(1.0, th0);
            }
            double alpha = amax;
            int taken = 0, grown = 0, descent = 0;
            for (int ls = 0; ls < 30 && !taken && !grown; ++ls, alpha *= 0.5) {
                for (size_t j = 0; j < n; ++j) xt[j] = fixed[j] ? x[j] : x[j] + alpha * dx[j];
                evaluate(&a, xt, 0);
                a.keep = 1.0 - alpha;
                int ok_t = filter_accepts(&F, th0, ph0, gphi, alpha, barrier_violation(&a),
                                          barrier_objective(&a, car_tx_energy(t, xt, NULL), mu), &descent);
                /* a second-order correction of the first trial (Nocedal & Wright, §15.6):
                 * the least change that undoes the defects the step's curvature made,
                 * with the Jacobian at x (a.col, a.val are still x's) */
                for (int soc = 0; soc < 3 && ls == 0 && !ok_t; ++soc) {
                    memset(rhs, 0, n * sizeof *rhs);
                    for (size_t j = 0; j < me; ++j) rhs[n + j] = -a.f[j];
                    if (car_kkt_augmented_solve(t, &k, NULL, 0.0, rhs) != 0) break;
                    for (size_t j = 0; j < n; ++j)
                        if (!fixed[j]) xt[j] += rhs[j];
                    evaluate(&a, xt, 0);
                    ok_t = filter_accepts(&F, th0, ph0, gphi, alpha, barrier_violation(&a),
                                          barrier_objective(&a, car_tx_energy(t, xt, NULL), mu), &descent);
                }
                a.keep = 1.0;
                if (!ok_t) continue;
                if (car_tx_depth(t, xt) > allowed) {
                    /* a pair not yet constrained comes into play: pick the pairs near
                     * the trial point, and make the step again */
                    const size_t had = a.m;
                    if (reselect(&a, xt, lim->near, mu) != SP_OK) {
                        st = SP_ERR_NOMEM;
                        goto finish;
                    }
                    grown = a.m > had;
                    if (grown) F.fresh = 1; /* (the measures change with the rows) */
                    continue;
                }
                taken = 1;
            }
            if (grown || !taken) {
                if (!taken && !grown) tau = fmax(1e-6, 10.0 * tau);
                if (tau > 1e8) break;
                fresh = 1;
                if (grown) {
                    /* (the new rows were shifted to hold at the trial point; at x too) */
                    evaluate(&a, x, 1);
                    for (size_t i = me; i < a.m; ++i)
                        if (!(slack(&a, i) > 0.0)) a.r[i - me] = a.f[i] + SHIFT;
                }
                evaluate(&a, x, 1);
                continue;
            }
            if (!descent) filter_add(&F, (1.0 - GAMMA_THETA) * th0, ph0 - GAMMA_PHI * th0);
            const double used = alpha * 2.0; /* (the loop halved it once past the step taken) */
            if (!near) {
                full = used >= 1.0 ? full + 1 : 0;
                near = full >= FULL_STEPS;
            }
            memcpy(x, xt, n * sizeof *x);
            memcpy(a.y, ynew, me * sizeof *a.y);
            for (size_t i = me; i < a.m; ++i) {
                a.r[i - me] *= 1.0 - used;
                if (a.r[i - me] < 1e-13) a.r[i - me] = 0.0;
            }
            evaluate(&a, x, 1);
            /* the duals' own step: no dual falls below 1 % of its value */
            double az = 1.0;
            for (size_t i = me; i < a.m; ++i)
                if (dz[i - me] < 0.0) az = fmin(az, -0.99 * a.z[i - me] / dz[i - me]);
            for (size_t i = me; i < a.m; ++i) {
                const double s = slack(&a, i);
                double z = a.z[i - me] + az * dz[i - me];
                /* the duals stay within a factor 10¹⁰ of μ/s (Wächter & Biegler, 2006) */
                z = fmin(1e10 * mu / s, fmax(mu / (1e10 * s), z));
                a.z[i - me] = z;
            }
            tau = used >= cap ? 0.3 * tau : tau;
            if (tau < 1e-9) tau = 0.0;
            fresh = 1;
            ++out->iterations;
        }
        if (!solved) break;
        if (mu <= MU_MIN) {
            out->converged = out->violation <= lim->tolerance;
            break;
        }
        mu = fmax(MU_MIN, fmin(0.1 * mu, pow(mu, 1.5)));
        /* A new barrier problem starts undamped: τ falls only after a full step, so one
         * barrier problem's τ could hold the next one's steps short (in a trial on TPCAP
         * case 7, τ = 30 carried over, then 600 to 1350 steps at μ = 3·10⁻⁵ at ten
         * evaluations a step). The 22 tight scenes: 6207 evaluations instead of 6933. */
        tau = 0.0;
        F.fresh = 1;
        /* the pairs near x again (after the path moved within the barrier problem) */
        if (reselect(&a, x, lim->near, mu) != SP_OK) {
            st = SP_ERR_NOMEM;
            goto finish;
        }
    }
finish:
    /* (within the bounds: a bound's row may still have had a shift, or kept a slack of
     * the order of μ) */
    for (size_t j = 0; j < n; ++j) x[j] = fmin(ub[j], fmax(lb[j], x[j]));
    out->evaluations = a.evaluations;
    if (st == SP_OK) own_conditions(&a, x, fixed, g, &out->own_stationarity, &out->own_violation);
    free(dz), free(cdx);
    free(F.th), free(F.ph);
done:
    free(g), free(gb), free(hb), free(hl), free(g1), free(xt), free(rhs), free(dx), free(ynew),
        free(fixed), free(mval);
    free(a.bj), free(a.y), free(a.z), free(a.r), free(a.w), free(a.f), free(a.col), free(a.val);
    return st;
}
