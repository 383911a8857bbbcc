/* The smoothing's first solver (sp_car_plan.h, car_al_solve): an augmented Lagrangian
 * (M. R. Hestenes, Multiplier and gradient methods, 1969; M. J. D. Powell, A method for
 * nonlinear constraints in minimization problems, 1969; for inequalities R. T.
 * Rockafellar, The multiplier method of Hestenes and Powell applied to convex
 * programming, 1973) whose inner problems are solved by projected Newton steps.
 *
 * Why. SLSQP's subproblem is dense: at 273 unknowns and some 800 constraints an iteration
 * costs 25 to 70 ms, most of it in its least-squares factorisation, and its quasi-Newton
 * matrix learns the curvature slowly. Here the curvature is computed: each term of the
 * transcription (energy, defect, clearance) touches the unknowns of two neighbouring
 * intervals only, so the Hessian of E + Σ w c, with w the weights the terms have in L_A at
 * the point (λ + ρ c, or max(0, λ + ρ c) for an inequality), comes from the rows'
 * structure (car_tx_hessian), and is kept for a few steps while they are taken whole.
 * The penalty's part ρ Σ ∇c ∇cᵀ is formed from the Jacobian rows' few nonzeros (kept
 * sparse). With the
 * unknowns numbered interval by interval (car_tx_place) all of it is a band of half-width
 * CAR_TX_BAND, and a step is one banded Cholesky factorisation (Levenberg damping τ when
 * it fails, on the same Hessian), at most 5 cm or 0.05 rad in any unknown: an iteration
 * costs work in proportion to the intervals (dense, at 1613 unknowns and 4000
 * constraints, an evaluation alone took 0.2 s).
 *
 * What made it stall, and what holds it now (A. R. Conn, N. I. M. Gould & Ph. L. Toint,
 * LANCELOT, 1992, for the first two):
 * - the bounds on x (the steering limit, the travel's sign) were penalised like the other
 *   constraints: the path ended at full lock a little past the limit with the goal out of
 *   reach (the parallel slot: a heading defect of 0.02 rad that ρ = 10⁹ did not remove).
 *   They are kept exactly now, by projection (D. P. Bertsekas, Projected Newton methods
 *   for optimization problems with simple constraints, 1982);
 * - the multipliers were moved after every inner solve, also from far outside: they grew
 *   with ρ to 10⁹, the Hessian went indefinite and τ to 10¹⁸. They move now only when the
 *   violation fell below its goal; otherwise ρ grows;
 * - with λ = 0 and ρ = 10² the first inner solve pushed the footprint 1 m into an
 *   obstacle (TPCAP case 1), whose pair was picked too late or held too weakly: a path
 *   across an obstacle is a local minimum of the violation that no penalty undoes. No
 *   step may now take a checked point more than `guard` deeper than at the start; a step
 *   that would, brings the pairs near its end in, and is made again;
 * - the Hessian took λ where the merit has the weights w: an inequality inactive in L_A
 *   with λ > 0 put curvature that is not there, and the inner steps crawled (case 19:
 *   |∇L_A| 3e-4 after 60 steps).
 * What is left at the end (a stationarity of 1e-4) car_kkt_polish finishes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/sp_car_plan.h"
/* last: it brings complex.h, whose macro I the project headers must not see */
#include <lapacke.h>

/* The inner problems' last tolerance on |∇L_A|∞: what is left is Newton's on the KKT
 * conditions (car_kkt_polish); tighter, the noise of the differenced Hessian of the
 * time kept the inner steps from reaching it. */
#define STATIONARITY 1e-4
/* whole steps taken with one Hessian of the Lagrangian */
#define REUSE 3
/* the largest penalty weight */
#define RHO_MAX 1e9

typedef struct al {
    const car_tx *t;
    const double *lb, *ub;
    size_t n, me, m;  /* unknowns, equalities, all constraints of the transcription */
    double *lam;      /* m multipliers */
    double *w;        /* m: the terms' weights in L_A at the point the Hessian is taken */
    double rho;
    double *f;        /* m values at the last point evaluated */
    long *col;        /* m × CAR_TX_NZ: the Jacobian's sparse rows there (car_tx_constraints_sparse) */
    double *val;
    int evaluations;  /* of L_A (the Hessian's differences are not counted: they are the steps' cost) */
} al;

/* The multiplier a term i of value c contributes: λ + ρ c for an equality, max(0, λ + ρ c)
 * for an inequality. */
static double weight(const al *a, size_t i, double c)
{
    const double v = a->lam[i] + a->rho * c;
    return i < a->me ? v : fmax(0.0, v);
}

/* grad += w · row i of the Jacobian in a->col, a->val */
static void add_row(const al *a, size_t i, double w, double *grad)
{
    for (size_t e = i * CAR_TX_NZ; e < (i + 1) * CAR_TX_NZ; ++e)
        if (a->col[e] >= 0) grad[a->col[e]] += w * a->val[e];
}

/* L_A(x) = E + Σ_eq (λ c + ρ c²/2) + Σ_ineq (max(0, λ + ρ c)² − λ²)/(2ρ); grad (n) and the
 * constraint values and Jacobian in a->f, a->col, a->val when grad is given. */
static double merit(al *a, const double *x, double *grad)
{
    const size_t m = a->m;
    ++a->evaluations;
    double v = car_tx_energy(a->t, x, grad);
    car_tx_constraints_sparse(a->t, x, a->f, grad ? a->col : NULL, a->val);
    for (size_t i = 0; i < m; ++i) {
        const double c = a->f[i], w = weight(a, i, c);
        v += i < a->me ? a->lam[i] * c + 0.5 * a->rho * c * c : (w * w - a->lam[i] * a->lam[i]) / (2.0 * a->rho);
        if (grad && w != 0.0) add_row(a, i, w, grad);
    }
    return v;
}

/* The largest violation of the constraints at the values in a->f (x keeps its bounds). */
static double violation(const al *a)
{
    double v = 0.0;
    for (size_t i = 0; i < a->m; ++i) v = fmax(v, i < a->me ? fabs(a->f[i]) : a->f[i]);
    return v;
}

/* The projected gradient's size: how far x − g moves within the bounds. */
static double projected_gradient(const al *a, const double *x, const double *g)
{
    double gn = 0.0;
    for (size_t j = 0; j < a->n; ++j) gn = fmax(gn, fabs(fmin(a->ub[j], fmax(a->lb[j], x[j] - g[j])) - x[j]));
    return gn;
}

/* Whether unknown j sits on a bound that the gradient g pushes it against: it stays there
 * for the step (D. P. Bertsekas, Projected Newton methods for optimization problems with
 * simple constraints, 1982). */
static int binding(const al *a, const double *x, const double *g, size_t j)
{
    return (x[j] <= a->lb[j] && g[j] > 0.0) || (x[j] >= a->ub[j] && g[j] < 0.0);
}

/* A Newton step d on L_A at x (gradient g; a->f, a->col, a->val at x): (H + τ I) d = −g
 * with H the penalty's Gauss–Newton part plus HL, the Hessian of E + Σ w c with the
 * weights at x, found anew (car_tx_hessian) when `fresh`; the unknowns held
 * on a bound keep d = 0. H and HL are lower bands in car_tx_place order (CAR_TX_BAND + 1
 * rows, column-major), so a step costs work in proportion to the intervals. b work
 * space. 1, 0 when the factorisation fails, −1 when memory is short. */
static int newton_step(al *a, const double *x, const double *g, double tau, double *H, double *HL, int fresh,
                       double *b, double *d)
{
    const car_tx *t = a->t;
    const size_t n = a->n, ld = CAR_TX_BAND + 1;
    /* the penalty's part first, from the Jacobian at x (in a->f, a->col, a->val from the caller) */
    memset(H, 0, ld * n * sizeof *H);
    for (size_t i = 0; i < a->m; ++i)
        if (weight(a, i, a->f[i]) != 0.0) car_band_add_row(t, a->col + i * CAR_TX_NZ, a->val + i * CAR_TX_NZ, a->rho, H);
    /* then the Lagrangian's Hessian */
    if (fresh) {
        for (size_t i = 0; i < a->m; ++i) a->w[i] = weight(a, i, a->f[i]);
        memset(HL, 0, ld * n * sizeof *HL);
        if (car_tx_hessian(t, x, a->w, CAR_HESSIAN_WHOLE, HL) != SP_OK) return -1;
    }
    for (size_t i = 0; i < ld * n; ++i) H[i] += HL[i];
    for (size_t j = 0; j < n; ++j) {
        const size_t p = car_tx_place(t, j);
        H[p * ld] += tau;
        b[p] = -g[j];
    }
    /* the unknowns held on their bounds drop out of the system */
    for (size_t j = 0; j < n; ++j)
        if (binding(a, x, g, j)) car_band_hold(t, j, H), b[car_tx_place(t, j)] = 0.0;
    if (LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'L', (lapack_int)n, CAR_TX_BAND, 1, H, (lapack_int)ld, b, (lapack_int)n) != 0)
        return 0;
    for (size_t j = 0; j < n; ++j) d[j] = b[car_tx_place(t, j)];
    return 1;
}

/* Picks the clearance pairs near x again (car_tx_select): the new rows come after the
 * old clearance rows, with multipliers 0, and the arrays grow to match. SP_ERR_NOMEM or
 * SP_OK. */
static sp_status reselect(al *a, car_tx *t, const double *x, double near)
{
    const size_t old_obs = t->n_obs;
    if (car_tx_select(t, x, near) != SP_OK) return SP_ERR_NOMEM;
    const size_t added = t->n_obs - old_obs, m = car_tx_n_constraints(t);
    if (!added) return SP_OK;
    double *lam = calloc(m, sizeof *lam), *f = malloc(m * sizeof *f), *val = malloc(m * CAR_TX_NZ * sizeof *val);
    double *w = malloc(m * sizeof *w);
    long *col = malloc(m * CAR_TX_NZ * sizeof *col);
    if (!lam || !f || !val || !w || !col) {
        free(lam), free(f), free(val), free(w), free(col);
        return SP_ERR_NOMEM;
    }
    free(a->w);
    a->w = w;
    const size_t head = a->me + old_obs;
    memcpy(lam, a->lam, head * sizeof *lam);
    memcpy(lam + head + added, a->lam + head, (a->m - head) * sizeof *lam);
    free(a->lam), free(a->f), free(a->col), free(a->val);
    a->lam = lam, a->f = f, a->col = col, a->val = val, a->m = m;
    return SP_OK;
}

sp_status car_al_solve(car_tx *t, double *x, const double *lb, const double *ub, const car_al_limits *lim,
                       car_al_out *out)
{
    const size_t n = t->n;
    const size_t m = car_tx_n_constraints(t);
    al a = {.t = t, .lb = lb, .ub = ub, .n = n, .me = 3 * t->N, .m = m, .rho = lim->rho};
    *out = (car_al_out){.own_stationarity = HUGE_VAL, .own_violation = HUGE_VAL};
    a.lam = calloc(m ? m : 1, sizeof *a.lam);
    a.f = malloc((m ? m : 1) * sizeof *a.f);
    a.col = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *a.col);
    a.val = malloc((m ? m : 1) * CAR_TX_NZ * sizeof *a.val);
    a.w = malloc((m ? m : 1) * sizeof *a.w);
    const size_t band = (CAR_TX_BAND + 1) * n;
    double *H = malloc(band * sizeof *H), *HL = malloc(band * sizeof *HL), *g = malloc(n * sizeof *g),
           *d = malloc(n * sizeof *d), *y = malloc(n * sizeof *y);
    double *b = malloc(n * sizeof *b);
    sp_status st = SP_ERR_NOMEM;
    if (!b || !HL || !a.w || !a.lam || !a.f || !a.col || !a.val || !H || !g || !d || !y) goto done;
    st = SP_OK;
    for (size_t j = 0; j < n; ++j) x[j] = fmin(ub[j], fmax(lb[j], x[j]));
    /* No step may take the footprint at a checked point further inside the clearance than
     * `guard` beyond where it starts, against any polygon: a path pushed across an obstacle
     * (a pair not yet picked, or a penalty still small) sits in a local minimum of the
     * violation that no penalty undoes, and the pieces of the distance are smooth only
     * near the clearance. */
    const double guard = isfinite(lim->guard) ? car_tx_depth(t, x) + lim->guard : HUGE_VAL;
    double omega = 1e-2, viol_goal = 1e-2, tau = 1e-6, last_violation = HUGE_VAL;
    car_pace pace = {.longest = 0.0, .waited = t->waited};
    for (int outer = 0; outer < lim->max_outer; ++outer) {
        double v = merit(&a, x, g);
        int inner_ok = 0, fresh = 1, age = 0;
        pace.last = -1.0;
        tau = 1e-6;
        /* the inner problem: projected Newton with a backtracking line search on L_A, the
         * damping τ raised when a step fails and lowered when it is taken whole */
        for (int inner = 0; inner < lim->max_inner; ++inner) {
            if (projected_gradient(&a, x, g) <= omega) {
                inner_ok = 1;
                break;
            }
            if (sp_progress_stopped(lim->progress)) goto finish;
            /* no step is begun that would end past the deadline, judged by the longest
             * one so far (on 700 unknowns a step with its line search takes up to 0.1 s) */
            if (a.evaluations >= lim->max_evaluations || car_pace_late(&pace, lim->deadline)) {
                out->out_of_budget = 1;
                goto finish;
            }
            const int stepped = newton_step(&a, x, g, tau, H, HL, fresh, b, d);
            if (stepped < 0) {
                st = SP_ERR_NOMEM;
                goto finish;
            }
            if (!stepped) {
                /* the same Hessian with more damping */
                fresh = 0;
                tau = fmax(1e-6, 10.0 * tau);
                continue;
            }
            /* steps of at most 5 cm or 0.05 rad: the clearance pairs were picked near x; cut
             * at most 10 times (to 0.1 mm): a direction no shorter step improves calls for
             * more damping, not more evaluations (case 19: 1100 evaluations in one outer
             * iteration with 20 cuts, 714 in all with 10) */
            double big = 0.0;
            for (size_t j = 0; j < n; ++j) big = fmax(big, fabs(d[j]));
            if (big > 0.05)
                for (size_t j = 0; j < n; ++j) d[j] *= 0.05 / big;
            double step = 1.0, v1 = v;
            int taken = 0, grown = 0;
            for (int ls = 0; ls < 10 && !grown; ++ls, step *= 0.5) {
                double slope = 0.0;
                for (size_t j = 0; j < n; ++j) {
                    y[j] = fmin(ub[j], fmax(lb[j], x[j] + step * d[j]));
                    slope += g[j] * (y[j] - x[j]);
                }
                v1 = merit(&a, y, NULL);
                const int armijo = isfinite(v1) && v1 <= v + 1e-4 * slope;
                taken = armijo && (guard == HUGE_VAL || car_tx_depth(t, y) <= guard);
                if (taken) break;
                if (armijo) {
                    /* the step goes too deep against a pair not yet picked (or not held
                     * yet): the pairs near the trial point join, and the step is made again */
                    const size_t had = a.m;
                    if (reselect(&a, t, y, lim->near) != SP_OK) {
                        st = SP_ERR_NOMEM;
                        goto finish;
                    }
                    grown = a.m > had;
                }
            }
            if (grown) {
                fresh = 1;
                v = merit(&a, x, g);
                continue;
            }
            if (!taken) {
                fresh = 1;
                tau = 10.0 * tau;
                if (tau > 1e8) break;
                v = merit(&a, x, g); /* a->f, a->col, a->val back at x */
                continue;
            }
            tau = step == 1.0 ? fmax(1e-9, 0.3 * tau) : tau;
            /* the Lagrangian's Hessian is kept for REUSE steps while they are taken whole */
            fresh = step < 1.0 || ++age % REUSE == 0;
            memcpy(x, y, n * sizeof *x);
            v = merit(&a, x, g);
            ++out->iterations;
        }
        if (reselect(&a, t, x, lim->near) != SP_OK) {
            st = SP_ERR_NOMEM;
            goto finish;
        }
        merit(&a, x, g); /* the constraints at x */
        /* LANCELOT's rule (A. R. Conn, N. I. M. Gould & Ph. L. Toint, LANCELOT, 1992): the
         * multipliers move only when the violation fell enough, else ρ grows and they
         * stay; moved from far outside, they grow with ρ and make the Hessian indefinite */
        const double viol = violation(&a);
        out->violation = viol;
        if (viol <= lim->tolerance && inner_ok && omega <= STATIONARITY) {
            out->converged = 1;
            break;
        }
        /* at the largest penalty, an outer iteration that lowered the violation by less
         * than 1 % is followed by more of the same (in a tight slot, a point of least
         * violation outside the route: the budget is the other methods') */
        if (a.rho >= RHO_MAX && viol > 0.99 * last_violation) {
            out->stalled = 1;
            break;
        }
        last_violation = a.rho >= RHO_MAX ? viol : HUGE_VAL;
        if (viol <= viol_goal) {
            for (size_t i = 0; i < a.m; ++i) a.lam[i] = weight(&a, i, a.f[i]);
            viol_goal = fmax(0.1 * viol_goal, 0.1 * lim->tolerance);
            omega = fmax(0.1 * omega, STATIONARITY);
        } else
            a.rho = fmin(RHO_MAX, 10.0 * a.rho);
    }
finish:
    out->evaluations = a.evaluations;
done:
    free(a.lam), free(a.w), free(a.f), free(a.col), free(a.val), free(H), free(HL), free(g), free(b), free(d), free(y);
    return st;
}
