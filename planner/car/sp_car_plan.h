/* The car's plan, internally: the scene as the search sees it (car_world.c), paths as
 * intervals of constant steering (car_path.c), the route search (car_route.c with
 * reeds_shepp.c). car_plan.c puts them together. */
#ifndef SP_CAR_PLAN_H
#define SP_CAR_PLAN_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "planner/sp_parallel.h"
#include "planner/sp_progress.h"
#include "problems/car/sp_car.h"
#include "problems/sp_problem.h"

/* The processor time of the calling thread in seconds (car_clock.c): the budgets
 * max_seconds of the route and the smoothing count it, so that a machine loaded by other
 * work does not cut a plan short (the wall time is reported beside it). */
double car_cpu_seconds(void);
/* The time of a solve whose evaluations are shared among threads: car_cpu_seconds plus,
 * for each shared evaluation, the processor time by which its busiest helper outworked
 * the calling thread, counted in *waited (NULL: none) by car_wait_add. That is the wall
 * time of the evaluation on an unloaded machine with a processor a thread, and no load
 * changes it: the wall time the calling thread waited, counted before, grew with every
 * other process that took a helper's processor (TPCAP case 7, its two processors busy
 * with two other loops: the smoothing's 7.4 s were used up in 3.5 s of its own processor
 * time, and the route was returned). Its budgets count it. */
double car_solve_seconds(const double *waited);
/* *waited (when not NULL) grows by how much more processor time `helpers` (the longest a
 * helper thread worked on a shared evaluation) is than `own` (the calling thread's over
 * the same evaluation). */
void car_wait_add(double *waited, double helpers, double own);
/* The pace of a solver's steps (car_clock.c), so that none is begun that would end past
 * its deadline: the longest step so far, timed from the start of one step to the start of
 * the next within a run of them. A run begins with last = −1 (the work between runs, a
 * multiplier update or a new barrier weight, is no step); longest carries over. */
typedef struct car_pace {
    double longest, last;
    const double *waited; /* the solve's (car_solve_seconds) */
} car_pace;
/* A step begins now: 1 when, as long as the longest so far, it would end past deadline
 * (of car_solve_seconds). */
int car_pace_late(car_pace *p, double deadline);

/* The obstacles with the bounds as four walls, each with its bounding box. */
typedef struct car_world {
    const sp_car_vehicle *vehicle;
    double clearance, radius; /* the footprint's disc about its centre */
    double bounds[4];
    size_t n;       /* polygons, walls included */
    size_t *first;  /* n + 1 offsets into xy */
    double *xy;     /* vertices */
    double *box;    /* 4 per polygon: xmin, ymin, xmax, ymax */
    /* the distance to the nearest obstacle (0 inside one) at the nodes of a grid of step
     * gres over the bounds, capped at gcap: a quick acceptance before the exact test */
    float *grid;
    int gx, gy;
    double gres, gcap;
} car_world;

sp_status car_world_init(car_world *w, const sp_car_problem *c);
void car_world_free(car_world *w);
/* The least signed distance from the footprint at pose to any polygon, looking only at
 * polygons nearer than `cutoff` (the answer is cutoff when none is); *which (may be NULL)
 * gets the index of the nearest, or −1. */
double car_world_distance(const car_world *w, const double pose[3], double cutoff, long *which);
double car_world_polygon_distance(const car_world *w, size_t i, const double pose[3], double grad[3]);
/* Feature f of polygon i at pose: f = −1, the footprint–polygon distance itself; 0 ≤ f <
 * 4, the signed distance from the footprint's corner f to the polygon; f = 4 + j, from
 * the polygon's vertex j to the footprint (these two smooth where they keep the
 * clearance; sp_car_geometry.h). Polygon i has 4 + its vertex count features besides −1;
 * grad and hess (may be NULL) its first and second derivatives in the pose. */
double car_world_feature_distance(const car_world *w, size_t i, int feature, const double pose[3], double grad[3],
                                  double hess[9]);
static inline int car_world_features(const car_world *w, size_t i) { return 4 + (int)(w->first[i + 1] - w->first[i]); }
/* Whether the footprint at pose is at least `need` from every polygon (exact; the grid
 * only spares the exact test where three discs covering the footprint are clear). */
int car_world_clear(const car_world *w, const double pose[3], double need);

/* A path: K intervals, each of constant steering delta[k] driven over the signed travel
 * s[k] (gear = its sign), read at m[k] sub-steps. */
typedef struct car_path {
    size_t K;
    double *delta, *s;
    int *m;
} car_path;

sp_status car_path_alloc(car_path *p, size_t K);
void car_path_free(car_path *p);
/* The pose after driving signed travel s at curvature kappa from pose (exact arc). */
void car_arc(const double from[3], double kappa, double s, double to[3]);
/* The end pose of the path from start. */
void car_path_end(const car_path *p, const sp_car_vehicle *v, const double start[3], double end[3]);
double car_path_length(const car_path *p);
int car_path_gear_changes(const car_path *p);
/* The least clearance along the whole path, swept: poses so close that no point of the
 * footprint moves more than `step` metres between them. *where gets the travel at it. */
double car_path_min_clearance(const car_path *p, const car_world *w, const double start[3], double step,
                              double *where);

/* A piece of a route: constant steering, one gear, travel length > 0. */
typedef struct car_piece {
    double delta, length;
    int gear;
} car_piece;

/* Reeds–Shepp paths between two poses at turning radius 1: up to 8 words of at most
 * 5 segments each, every one checked to end at the goal, shortest first. */
typedef struct car_rs_path {
    int n;          /* segments */
    char type[5];   /* 'L', 'S', 'R' */
    double len[5];  /* signed, in radii: sign = gear */
    double total;
} car_rs_path;
int car_reeds_shepp(const double from[3], const double to[3], double radius, car_rs_path *out, int max_out);
/* The length of the shortest word, unchecked (the search's heuristic), in metres. */
double car_reeds_shepp_length(const double from[3], const double to[3], double radius);

typedef struct car_route {
    car_piece *pieces;
    size_t n, cap;
    long expanded, generated;
    long escape_nodes; /* poses car_escape expanded on the way out of a confined start */
    double seconds, cpu_seconds;
    int found;
    char message[200];
} car_route;

/* Hybrid A* from start to goal over the car's arcs, with Reeds–Shepp expansions to the
 * goal; fills *r (found 0 with a message when the budget ran out or no way exists).
 * SP_ERR_NOMEM, SP_ERR_INTERRUPTED, or SP_OK. */
sp_status car_route_search(const car_world *w, const sp_car_problem *c, const sp_progress *progress,
                           car_route *r);
void car_route_free(car_route *r);
/* The travel time T the smoothing gives route r: its length at settings.speed and, with a
 * bound on the steering rate, the time to turn the wheel through the route's steering
 * changes at that rate (the route's steering jumps between its pieces; in the length's
 * time alone a tight bound cannot be met). */
double car_route_duration(const car_route *r, const sp_car_problem *c);

/* The way out of a confined pose (car_escape.c): best first over moves of one gear and
 * steering value as long as the clearance allows (or half that), a move of the same gear
 * as the last at another steering allowed, fewest gear changes first against the
 * rotation gained; at most max_nodes poses and until the processor time
 * (car_cpu_seconds) reaches deadline, until out(ctx, pose) says a pose is out. Fills *r
 * with the moves (found 0 when none leads out within the budget), owned by r
 * (car_route_free); every move keeps the clearance at poses 0.02 m of travel apart.
 * SP_ERR_NOMEM or SP_OK. */
typedef int (*car_escape_out_fn)(void *ctx, const double pose[3]);
sp_status car_escape(const car_world *w, const double from[3], long max_nodes, double deadline, car_escape_out_fn out,
                     void *ctx, car_route *r);

/* The energy Σ (w_v s_k² + w_s (δ_k − δ_{k−1})²)/h + gear_change_cost · gear changes of a
 * path whose intervals last h each. */
double car_path_energy(const car_path *p, const sp_car_settings *set, double h);

/* The smoothing stage (car_tx.c, solved in car_smooth.c): a direct transcription of the energy among the
 * obstacles, started from the route. N intervals of equal duration h = T/N (T = route
 * length / speed, fixed), nodes 0…N with poses (x, y, θ) and steering δ, one signed
 * travel s_k per interval (its sign the route's gear there). Within interval k the
 * steering moves linearly from δ_k to δ_{k+1} (rate ω_k = (δ_{k+1} − δ_k)/h) and the
 * car drives CAR_SUB exact arcs of s_k/CAR_SUB each, at the steering of their
 * midpoints. Unknowns: δ_0…δ_N, s_0…s_{N−1}, the poses of nodes 1…N−1 (node 0 is the
 * start, node N the goal). */
#define CAR_SUB 8

typedef struct car_tx {
    const car_world *w;
    const sp_car_problem *c;
    double start[3], goal[3];
    size_t N, n;      /* intervals, unknowns (5N − 2) */
    double h;         /* duration of one interval */
    int *gear;        /* N: +1 / −1; 0 for a joint at a gear change (car_tx_init_pieces) */
    unsigned char *joint; /* N, or NULL: interval k joins two of the route's pieces (car_tx_init_pieces) */
    double smax;      /* |s_k| ≤ smax: rows at most 0.1 m apart */
    double *margin;   /* N: the clearance constraints of interval k ask clearance + margin[k] */
    unsigned char *swept; /* N: interval k's constraints hold over its arcs, not only at their ends */
    /* clearance constraints: feature obs_feature of polygon obs_poly
     * (car_world_feature_distance: the whole distance, or where two pieces of it are
     * nearly tied, each piece) at point obs_point, where point p = k·CAR_SUB + j is node k
     * when j = 0, else the pose after j arcs of interval k */
    size_t n_obs, cap_obs;
    size_t *obs_point, *obs_poly;
    int *obs_feature;
    size_t refined; /* rows of a whole polygon car_tx_select has made rows of one piece */
    int workers;          /* threads an evaluation may be shared among (sp_parallel_workers) */
    double *waited;       /* the solve's time the helpers worked beyond it (car_solve_seconds), or NULL */
    double parallel_work; /* the least work one is shared for (CAR_PARALLEL_WORK) */
} car_tx;

/* Threads (sp_parallel.h, up to car_tx.workers) are started for one of the smoothing's
 * evaluations (the rows, the Hessian's groups, car_tx_depth) only where it is worth
 * car_tx.parallel_work, by default this much work in microseconds, or more: starting
 * and joining one costs about 100 µs on a virtual machine of two processors (there, 240
 * µs of work split in two took 194 µs, 1.2 ms took 0.71 ms). Each row is found by one
 * worker as it would be alone, so the results are the same for any number of them. */
#define CAR_PARALLEL_WORK 1500.0
/* The work of one evaluation of every row with its derivative, in microseconds: about one
 * an interval (its arcs and defects) and 0.15 a clearance row. */
double car_rows_work(const car_tx *t);
/* fn over items [0, count) by `workers` threads in even chunks (1: on the calling thread
 * alone), the helpers' work beyond the calling thread's counted in t->waited; fn's
 * pieces must not fail. */
void car_tx_shared(const car_tx *t, int workers, int count, sp_piece_fn fn, void *ctx);

/* The unknowns' layout. */
static inline size_t car_tx_delta(const car_tx *t, size_t k) { (void)t; return k; }
static inline size_t car_tx_s(const car_tx *t, size_t k) { return t->N + 1 + k; }
static inline size_t car_tx_pose(const car_tx *t, size_t k) { return 2 * t->N + 1 + 3 * (k - 1); }

/* The pose after `upto` of the CAR_SUB arcs of an interval from pose with steering δ0 → δ1
 * and travel s; J (3 × 6, row-major, may be NULL) its derivative in (x, y, θ, δ0, δ1, s). */
void car_tx_interval(const double pose[3], double d0, double d1, double s, int upto, double wheelbase, double out[3],
                     double J[18]);
/* The pose after each of the CAR_SUB arcs of such an interval, with its derivative:
 * CAR_TRAIL values an arc in trail (CAR_SUB × CAR_TRAIL), the pose and then J as
 * car_tx_interval's. */
#define CAR_TRAIL 21
void car_tx_interval_trail(const double pose[3], double d0, double d1, double s, double wheelbase, double *trail);
/* The unknown behind column col (0…5: x, y, θ, δ0, δ1, s) of a derivative of interval k
 * as car_tx_interval's, or −1 where that is a fixed value (the start's pose). */
long car_tx_column(const car_tx *t, size_t k, int col);
/* Sets up the transcription from the route (x0 gets the starting unknowns, n of them:
 * allocate after car_tx_init; call car_tx_guess). */
sp_status car_tx_init(car_tx *t, const car_world *w, const sp_car_problem *c, const car_route *r,
                      const double goal[3]);
void car_tx_guess(const car_tx *t, const car_route *r, double *x);
/* The same with intervals that follow the route's pieces: each piece its own (of at most
 * the same length as car_tx_init's), each at the piece's steering, and between two pieces
 * of another steering a joint, an interval that starts with no travel while the wheel
 * turns. car_tx_guess then gives the route itself: no defect, every clearance kept. A
 * joint's travel may grow in its pieces' gear, or either way at a gear change. */
sp_status car_tx_init_pieces(car_tx *t, const car_world *w, const sp_car_problem *c, const car_route *r,
                             const double goal[3]);
/* Adds to the clearance constraints every point, polygon and feature nearer than `near`
 * (beyond the clearance) at x that is not there yet; a row of a whole polygon whose
 * pieces now tie within 0.1 m becomes the row of the least of them (t->refined counts
 * these), the others added. SP_ERR_NOMEM or SP_OK. */
sp_status car_tx_select(car_tx *t, const double *x, double near);
void car_tx_free(car_tx *t);
/* The pose of point p (as in obs_point) at x, and its derivative in the unknowns it
 * depends on (J 3 × 6 as car_tx_interval's, or the identity for a node). */
void car_tx_point(const car_tx *t, const double *x, size_t p, double pose[3], double J[18]);
/* The energy Σ (w_v s_k² + w_s (δ_{k+1} − δ_k)²)/h; grad (n, may be NULL). */
double car_tx_energy(const car_tx *t, const double *x, double *grad);
/* The 3N defects (interval end minus next node); jac (3N × n row-major, may be NULL). */
void car_tx_defects(const car_tx *t, const double *x, double *f, double *jac);
/* The n_obs clearance constraints clearance + margin − distance ≤ 0 (a node takes the
 * larger margin of its two intervals); jac (n_obs × n). */
void car_tx_clearance(const car_tx *t, const double *x, double *f, double *jac);
/* The 2N steering-rate constraints ±(δ_{k+1} − δ_k) − h · max_steering_rate ≤ 0; jac
 * (2N × n, may be NULL). */
void car_tx_rate(const car_tx *t, const double *x, double *f, double *jac);
/* All constraints at x: the defects (3N, = 0), then clearance (n_obs) and rate (2N when
 * the rate is bounded), ≤ 0; jac (rows in that order, × n row-major, may be NULL). */
size_t car_tx_n_constraints(const car_tx *t);
void car_tx_constraints(const car_tx *t, const double *x, double *f, double *jac);
/* Clearance row i (0 ≤ i < n_obs) at x: its value, and when col is given its nonzeros
 * as car_tx_constraints_sparse's. */
double car_tx_clearance_row(const car_tx *t, const double *x, size_t i, long *col, double *val);
/* The same with the Jacobian's rows sparse: each constraint touches one interval's
 * unknowns and the next node's, at most CAR_TX_NZ of them; row i's are col[i·CAR_TX_NZ +
 * e] with values val[…] (col −1: an unused place). col, val may be NULL. */
#define CAR_TX_NZ 7
void car_tx_constraints_sparse(const car_tx *t, const double *x, double *f, long *col, double *val);
/* The unknowns by interval. Unknown j belongs to interval car_tx_owner (δ_k, s_k and node
 * k's pose to k; δ_N to N) at car_tx_slot (δ 0, s 1, pose 2–4); car_tx_place numbers them
 * interval by interval (δ_0, s_0, then δ_k, s_k, x_k, y_k, θ_k for k = 1…N−1, then δ_N).
 * The goal is no unknown, so every term of the transcription (energy, defect, clearance,
 * rate) touches the unknowns of two neighbouring intervals only, whose places are at
 * most CAR_TX_BAND apart: the Hessians of the energy and of any weighted sum of the
 * constraints are banded in this order, with half-bandwidth CAR_TX_BAND. */
#define CAR_TX_BAND 9
size_t car_tx_owner(const car_tx *t, size_t j);
size_t car_tx_slot(const car_tx *t, size_t j);
size_t car_tx_place(const car_tx *t, size_t j);
/* The bounds: |δ_k| ≤ max_steering, s_k of the route's sign (at least 1 mm; a joint's from
 * 0, or of either sign at a gear change) and at most smax. */
void car_tx_bounds(const car_tx *t, double *lb, double *ub);
/* How far the footprint at the checked points of x comes inside the clearance against
 * any polygon, the pairs constrained or not (0 when it keeps it). */
double car_tx_depth(const car_tx *t, const double *x);
/* The path of the unknowns x: N·CAR_SUB arcs, read at rows ≤ 0.04 m apart. */
sp_status car_tx_path(const car_tx *t, const double *x, car_path *p);

/* The KKT conditions at x (car_kkt.c): the multipliers μ of the equalities, of the
 * inequalities within 1e-6 of their bound and of the bounds x sits on, by least squares
 * on ∇f + M μ = 0; the residual is the largest of the stationarity error (relative to
 * max(1, |∇f|∞)), the most negative multiplier of an inequality (same scale) and the
 * constraint violation. */
typedef struct car_kkt {
    size_t n, na, m_eq;
    double *g;   /* n: the energy's gradient */
    long *mcol;  /* na × CAR_TX_NZ: the active constraints' gradients (equalities first), */
    double *mval; /* sparse as car_tx_constraints_sparse's rows */
    double *mu;  /* na multipliers */
    double *c;   /* na: the active constraints' values */
    long *row;   /* na: the constraint (defects, clearance, rate in turn), or −1 − j for a bound on x_j */
    double stationarity, violation, residual;
} car_kkt;
sp_status car_kkt_eval(const car_tx *t, const double *x, const double *lb, const double *ub, car_kkt *k);
void car_kkt_free(car_kkt *k);
/* The augmented system [A M; Mᵀ D] (n + na unknowns: x's, then the constraints'), M the
 * columns k->mcol, k->mval (k->n, k->na: only these are read), on the band: A the band hb
 * (car_band_hessian's layout) or, when hb is NULL, the identity; D = −eps I. Its variables
 * are numbered interval by interval, a constraint right after the last unknown it
 * touches. rhs (n + na) is replaced by the solution. 0, or −1 when singular or out of
 * memory. */
int car_kkt_augmented_solve(const car_tx *t, const car_kkt *k, const double *hb, double eps, double *rhs);
/* Newton's method on the KKT conditions of x's active set (the Lagrangian's Hessian by
 * car_tx_hessian, a second-order correction after each step), at
 * most max_steps steps while the residual is above tolerance, and none begun that would
 * end past the processor time `deadline` (car_cpu_seconds; judged by the last step, or
 * before the first by the time of one gradient of the Lagrangian times the gradients a
 * step takes); a step is kept only when it lowers
 * the residual and keeps the active set. *steps gets the steps kept. SP_ERR_NOMEM or
 * SP_OK. */
sp_status car_kkt_polish(const car_tx *t, double *x, const double *lb, const double *ub, double tolerance,
                         int max_steps, double deadline, int *steps);

/* Which Hessian car_tx_hessian finds: the whole, or the convexified one the
 * interior-point method steps on far from a solution (see car_tx_hessian.c). */
typedef enum { CAR_HESSIAN_WHOLE, CAR_HESSIAN_CONVEX } car_hessian_kind;
/* The Hessian of the Lagrangian E + Σ w_i c_i over the transcription's rows (w: a weight a
 * row of car_tx_constraints_sparse) at x, from the rows' structure: the distances' own
 * curvature in the pose and the arcs' (CAR_HESSIAN_WHOLE), or each interval's block with
 * its negative eigenvalues set to zero and without the distances' own curvature
 * (CAR_HESSIAN_CONVEX: positive semidefinite). Added into hb, the lower band
 * in car_tx_place order, column-major with CAR_TX_BAND + 1 rows (hb[(p − q) + q
 * (CAR_TX_BAND + 1)] the entry of places p ≥ q): every term of the transcription touches
 * the unknowns of two neighbouring intervals, so the band holds it all. The intervals are
 * shared among car_tx.workers threads where that is worth it, each found by one of them
 * as it would be alone: the same to the bit for any number of them. SP_ERR_NOMEM or
 * SP_OK. */
sp_status car_tx_hessian(const car_tx *t, const double *x, const double *w, car_hessian_kind kind, double *hb);

/* Banded linear algebra for the smoothing (car_band.c). */
/* hb += w r rᵀ for the sparse row r (col, val: CAR_TX_NZ places, col −1 unused) of the
 * transcription's Jacobian, in hb's layout. */
void car_band_add_row(const car_tx *t, const long *col, const double *val, double w, double *hb);
/* Unknown j's row and column of hb become the identity's: it is held where it is. */
void car_band_hold(const car_tx *t, size_t j, double *hb);
/* Solves A z = rhs in place for the dim × dim matrix A given by its nz entries (ri, ci,
 * v; repeated entries add up), after renumbering the variables by `order` (order[i]: the
 * place of variable i, a permutation), by Gaussian elimination with partial pivoting on
 * the band the entries span in that order (sp_band.h): the work grows with dim
 * times the bandwidth squared. 0, or −1 when A is singular, the solution not finite, or memory short. */
int car_band_solve(size_t dim, size_t nz, const size_t *ri, const size_t *ci, const double *v, const size_t *order,
                   double *rhs);

/* The augmented Lagrangian (car_al.c): projected Newton inner steps on x from its value
 * in place, within the bounds lb ≤ x ≤ ub throughout, the clearance pairs within `near`
 * picked again (car_tx_select) after each multiplier update, and no step taking the
 * footprint at a checked point more than `guard` further inside the clearance than at
 * the start (against any polygon; HUGE_VAL: no such limit). It stops when the violation
 * is at most `tolerance` with the inner problem solved (converged 1), after max_outer
 * updates, when the caller's stop flag is set, or when a step would pass
 * max_evaluations evaluations of its merit function or the processor time `deadline`
 * (of car_cpu_seconds; out_of_budget 1), or when it stalls (stalled 1). The KKT residual is
 * car_kkt_eval's to judge.
 * SP_ERR_NOMEM or SP_OK. */
typedef struct car_al_limits {
    double tolerance, deadline;
    double near;  /* beyond the clearance */
    double rho;   /* the first penalty weight */
    double guard; /* metres */
    int max_outer, max_inner, max_evaluations;
    const sp_progress *progress;
} car_al_limits;
typedef struct car_al_out {
    int converged, out_of_budget, iterations, evaluations;
    int stalled; /* at the largest penalty, an outer iteration lowered the violation by less than 1 % */
    double violation;
    /* car_ip_solve: the KKT conditions at x with its own multipliers (the defects' and the
     * inequalities', nonnegative): the scaled stationarity with the complementarity, and
     * the largest violation of any row (car_al_solve: HUGE_VAL) */
    double own_stationarity, own_violation;
} car_al_out;
sp_status car_al_solve(car_tx *t, double *x, const double *lb, const double *ub, const car_al_limits *lim,
                       car_al_out *out);

/* The interior-point method (car_ip.c) from x in place, which keeps every clearance
 * constraint strictly satisfied (a row the start breaks is relaxed to hold there) and the
 * bounds throughout, the defects by Newton's steps: for tight slots, from the route laid
 * out by car_tx_init_pieces. The limits and the figures as car_al_solve's (guard, rho
 * unused; iterations: the steps taken; violation: the largest defect); converged when the
 * barrier weight reached its last value with the defects within the tolerance. SP_ERR_NOMEM
 * or SP_OK. */
sp_status car_ip_solve(car_tx *t, double *x, const double *lb, const double *ub, const car_al_limits *lim,
                       car_al_out *out);

typedef struct car_smooth_out {
    int converged;    /* KKT conditions hold to the tolerance */
    int used;         /* 0: the smoothing failed; the caller keeps the route */
    double residual;  /* scaled KKT residual: max of stationarity, sign of multipliers, violation */
    double stationarity, violation, energy;
    double margin;    /* the largest clearance margin of the last solve */
    int swept;        /* its intervals whose constraints held over their arcs (car_tx.swept) */
    int iterations, solves, unknowns, constraints;
    int newton_steps; /* kept steps of car_kkt_polish */
    double seconds, cpu_seconds;
    double max_seconds; /* the processor time it was given: search.max_seconds, less what the route took
                         * beyond 1.5 s (car_route.cpu_seconds) and 0.05 s for the result, at least 2 */
    const char *budget; /* the budget that ran out (max_seconds, max_evaluations, max_unknowns), or NULL */
    char message[240];
} car_smooth_out;

/* Smooths the route r (found) into *p (allocated here when out->used) within the
 * processor time out->max_seconds (see there): the augmented
 * Lagrangian first with half the budgets, its steps kept near the clearance (above 250
 * unknowns: not); where it does not converge, from the route again up to 60 % of them,
 * SLSQP up to 250 unknowns, above them the augmented Lagrangian with its steps kept near
 * the clearance; where that does not converge either, the interior-point method with the
 * rest, from the route laid out by its pieces (out->message names the solver of the
 * result). SP_ERR_NOMEM, SP_ERR_INTERRUPTED or SP_OK. */
sp_status car_smooth(const car_world *w, const sp_car_problem *c, const car_route *r, const double goal[3],
                     const sp_progress *progress, car_path *p, car_smooth_out *out);
/* The same with one solver alone, with the whole budgets (CAR_SMOOTH_AUTO: car_smooth). */
typedef enum car_smooth_method { CAR_SMOOTH_AUTO, CAR_SMOOTH_SLSQP, CAR_SMOOTH_AL, CAR_SMOOTH_IP } car_smooth_method;
sp_status car_smooth_by(const car_world *w, const sp_car_problem *c, const car_route *r, const double goal[3],
                        const sp_progress *progress, car_smooth_method how, car_path *p, car_smooth_out *out);

extern const struct sp_family sp_car_family;

/* The plan task of model car: the result tree (NULL when out of memory). */
cJSON *sp_car_plan_json(const sp_problem *pb, const sp_progress *progress);

#endif
