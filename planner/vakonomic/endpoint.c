/* Endpoint planning for vakonomic models: find p0 such that the discrete geodesic from
 * q0 (Gauss–Legendre, N steps of T/N) reaches q1 at T.
 *
 * NLopt (the algorithm the file names) minimises f(p0) = ½|q_N(p0) − q1|² with the exact
 * gradient (∂q_N/∂p0)ᵀ(q_N − q1) from the tangent-linear sweep through the implicit
 * stages; a damped Gauss–Newton polish on the square system q_N(p0) = q1 then takes the
 * residual to the tolerance. Where the mismatch is orthogonal to every direction the path
 * can bend in to first order — zero momenta when q1 lies across the constraints, as in
 * parallel parking — f is stationary and no local method can move: further starts are
 * drawn (deterministically, at growing scales) until one reaches q1. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_clock.h"
#include "planner/sp_optimize.h"
#include "planner/vakonomic/sp_vak_run.h"
#include "integrators/sp_linsolve.h"
#include "lie/sp_linalg.h"
#include "planner/result_view.h"
#include "problems/sp_result_file.h"

typedef struct endpoint {
    const sp_problem *pb;
    sp_vak_system sys;
    sp_progress stop_only; /* the caller's stop flag without its reports */
    long sweeps, derivative_sweeps;
    sp_time_parts times; /* where the search's time went */
    sp_run_work work;    /* summed over every sweep of the search */
    long steps_done;
} endpoint;

/* F = q_N(p0) − q1 and, when J is not NULL, J = ∂q_N/∂p0 (n x n, row-major). */
static sp_status mismatch(endpoint *e, const double *p0, double *F, double *J)
{
    const int n = e->sys.model.n;
    sp_vak_run run;
    const double t0 = sp_clock_seconds();
    sp_status st = sp_vak_integrate(&e->sys, e->pb->vak.q0, p0, 0, J != NULL, &run);
    *(J ? &e->times.derivative_sweeps : &e->times.plain_sweeps) += sp_clock_seconds() - t0;
    e->sweeps++, e->derivative_sweeps += J != NULL;
    sp_run_work_add(&e->work, &run.work);
    e->steps_done += run.steps_done;
    if (st == SP_OK) {
        for (int i = 0; i < n; ++i) F[i] = run.q_end[i] - e->pb->vak.q1[i];
        if (J) sp_vec_copy(n * n, run.jacobian, J); /* the q-rows of ∂z_N/∂p0 */
    }
    sp_vak_run_release(&run);
    return st;
}

static sp_status objective(void *ctx, const double *x, double *f, double *grad)
{
    endpoint *e = ctx;
    const int n = e->sys.model.n;
    double F[SP_VAK_MAX_N], J[SP_VAK_MAX_N * SP_VAK_MAX_N];
    sp_status st = mismatch(e, x, F, grad ? J : NULL);
    if (st != SP_OK) return st;
    *f = 0.5 * sp_vec_dot(n, F, F);
    if (grad) sp_mat_tvec(n, n, J, F, grad);
    return SP_OK;
}

/* Damped Gauss–Newton (Levenberg–Marquardt) on q_N(p0) = q1 from p0, keeping every step
 * that lowers |F|. Stops at the tolerance, on a step that no damping makes useful, or
 * after 50 iterations; *residual is |F| at the returned p0. */
static sp_status polish(endpoint *e, double *p0, double *residual)
{
    const int n = e->sys.model.n;
    double F[SP_VAK_MAX_N], J[SP_VAK_MAX_N * SP_VAK_MAX_N];
    sp_status st = mismatch(e, p0, F, J);
    if (st != SP_OK) return st;
    *residual = sp_vec_norm(n, F);
    double mu = 0.0;
    for (int it = 0; it < 50 && *residual > e->pb->vak.tolerance; ++it) {
        int improved = 0;
        for (int tries = 0; tries < 30 && !improved; ++tries) {
            /* (JᵀJ + μI) d = −JᵀF */
            double A[SP_VAK_MAX_N * SP_VAK_MAX_N], d[SP_VAK_MAX_N], trial[SP_VAK_MAX_N], Ft[SP_VAK_MAX_N];
            int piv[SP_VAK_MAX_N];
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    double a = 0.0;
                    for (int k = 0; k < n; ++k) a += J[k * n + r] * J[k * n + c];
                    A[r * n + c] = a + (r == c ? mu : 0.0);
                }
            sp_mat_tvec(n, n, J, F, d);
            for (int r = 0; r < n; ++r) d[r] = -d[r];
            if (sp_linsolve(n, A, d, 1, piv, 0) == SP_OK) {
                for (int r = 0; r < n; ++r) trial[r] = p0[r] + d[r];
                if (mismatch(e, trial, Ft, NULL) == SP_OK && sp_vec_norm(n, Ft) < *residual) {
                    sp_vec_copy(n, trial, p0);
                    improved = 1;
                    mu *= 0.1;
                    break;
                }
            }
            /* grow the damping relative to the size of JᵀJ */
            double scale = 0.0;
            for (int r = 0; r < n; ++r) scale = fmax(scale, A[r * n + r] - mu);
            mu = mu > 0.0 ? 10.0 * mu : 1e-6 * fmax(scale, 1e-300);
        }
        if (!improved) break;
        st = mismatch(e, p0, F, J);
        if (st != SP_OK) return st;
        *residual = sp_vec_norm(n, F);
    }
    return SP_OK;
}

/* Newton on q_N(p) = target from p, at most `iterations` steps, each solving J d = −F
 * exactly; fails (returns 0) on a singular J or when |F| stops falling. */
static int newton_to(endpoint *e, const double *target, double *p, double tol, int iterations, double *residual)
{
    const int n = e->sys.model.n;
    double F[SP_VAK_MAX_N], J[SP_VAK_MAX_N * SP_VAK_MAX_N], previous = HUGE_VAL;
    for (int it = 0; it <= iterations; ++it) {
        if (mismatch(e, p, F, J) != SP_OK) return 0;
        for (int i = 0; i < n; ++i) F[i] += e->pb->vak.q1[i] - target[i];
        *residual = sp_vec_norm(n, F);
        if (*residual <= tol) return 1;
        if (it == iterations || !(*residual < 0.5 * previous)) return 0;
        previous = *residual;
        int piv[SP_VAK_MAX_N];
        for (int i = 0; i < n; ++i) F[i] = -F[i];
        if (sp_linsolve(n, J, F, 1, piv, 0) != SP_OK) return 0;
        sp_vec_axpy(n, 1.0, F, p);
    }
    return 0;
}

/* Continuation from the geodesic of p: its end point q_a is reached; the target moves
 * along the segment from q_a to q1 in steps that grow after a success and halve after a
 * failure, each step predicted along the tangent J⁻¹(q1 − q_a) and corrected by Newton.
 * Returns 1 with p reaching q1, 0 when the path of solutions is lost (a conjugate point,
 * where J is singular, or steps below 1e-4). */
static int continuation(endpoint *e, double *p, double *residual)
{
    const int n = e->sys.model.n;
    const double *q1 = e->pb->vak.q1;
    double F[SP_VAK_MAX_N], J[SP_VAK_MAX_N * SP_VAK_MAX_N], qa[SP_VAK_MAX_N], target[SP_VAK_MAX_N];
    if (mismatch(e, p, F, NULL) != SP_OK) return 0;
    for (int i = 0; i < n; ++i) qa[i] = F[i] + q1[i];
    const double scale = fmax(1.0, sp_vec_norm(n, q1));
    const long budget = e->sweeps + 400; /* a path this hard to follow is better dropped */
    double s = 0.0, ds = 0.25;
    while (s < 1.0) {
        if (ds < 1e-4 || e->sweeps > budget) return 0;
        double s1 = fmin(1.0, s + ds), tangent[SP_VAK_MAX_N], trial[SP_VAK_MAX_N];
        int piv[SP_VAK_MAX_N];
        if (mismatch(e, p, F, J) != SP_OK) return 0;
        for (int i = 0; i < n; ++i) tangent[i] = q1[i] - qa[i];
        if (sp_linsolve(n, J, tangent, 1, piv, 0) != SP_OK) return 0;
        sp_vec_copy(n, p, trial);
        sp_vec_axpy(n, s1 - s, tangent, trial);
        for (int i = 0; i < n; ++i) target[i] = qa[i] + s1 * (q1[i] - qa[i]);
        double tol = s1 < 1.0 ? 1e-8 * scale : e->pb->vak.tolerance;
        if (newton_to(e, target, trial, tol, 8, residual)) {
            sp_vec_copy(n, trial, p);
            s = s1;
            ds = fmin(2.0 * ds, 1.0);
        } else {
            ds *= 0.5;
        }
    }
    return 1;
}

/* Deterministic starting points: splitmix64 draws in [−1, 1]ⁿ, scaled by the momentum
 * that would cover the distance |q1 − q0| in time T, times 4, 2, 8 or 1 in turn (paths
 * across the constraints are several times longer than the distance). */
static void starting_point(const endpoint *e, int start, double *p0)
{
    const sp_problem *pb = e->pb;
    const int n = e->sys.model.n;
    if (start == 0) {
        if (pb->has_initial_momenta)
            sp_vec_copy(n, pb->initial_momenta, p0);
        else
            sp_vec_zero(n, p0);
        return;
    }
    static const double factors[4] = {4.0, 2.0, 8.0, 1.0};
    double scale = fmax(sp_vec_dist(n, pb->vak.q0, pb->vak.q1), 1e-3) / pb->T * factors[(start - 1) % 4];
    uint64_t state = 0x9E3779B97F4A7C15ull * (uint64_t)start;
    for (int i = 0; i < n; ++i) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
        p0[i] = scale * e->sys.mass[i] * (2.0 * u - 1.0);
    }
}

cJSON *sp_vak_plan_json(const sp_problem *pb) { return sp_vak_plan_json_progress(pb, NULL); }

cJSON *sp_vak_plan_json_progress(const sp_problem *pb, const sp_progress *progress)
{
    const double start = sp_clock_seconds();
    endpoint e = {.pb = pb};
    if (sp_vak_system_init(&e.sys, pb) != SP_OK) return NULL;
    /* every sweep checks the stop flag; progress is the optimiser's, not each sweep's steps */
    e.stop_only = (sp_progress){.stop = progress ? progress->stop : NULL};
    e.sys.progress = &e.stop_only;
    const int n = e.sys.model.n;
    double best[SP_VAK_MAX_N], x[SP_VAK_MAX_N], best_residual = HUGE_VAL, residual = HUGE_VAL;
    sp_optimize_result opt = {0}, best_opt = {0};
    sp_status failure = SP_OK;
    int starts = 0, evaluations = 0, found_at = -1;
    for (int k = 0; k < pb->vak.starts && found_at < 0; ++k) {
        if (sp_progress_stopped(progress)) {
            failure = SP_ERR_INTERRUPTED;
            break;
        }
        starting_point(&e, k, x);
        ++starts;
        const double t_opt = sp_clock_seconds(), swept = e.times.plain_sweeps + e.times.derivative_sweeps;
        const sp_status ost = sp_optimize(&pb->optimizer, n, objective, &e, x, progress, k + 1, &opt);
        e.times.optimizer +=
            sp_clock_seconds() - t_opt - (e.times.plain_sweeps + e.times.derivative_sweeps - swept);
        if (ost != SP_OK) {
            failure = SP_ERR_NOMEM;
            break;
        }
        evaluations += opt.evaluations;
        residual = HUGE_VAL;
        sp_status st = opt.failure == SP_OK ? polish(&e, x, &residual) : opt.failure;
        if (st != SP_OK) failure = st;
        if (st == SP_ERR_INTERRUPTED) {
            /* keep the point this start got to, measured without the stop */
            double F[SP_VAK_MAX_N];
            e.sys.progress = NULL;
            if (mismatch(&e, x, F, NULL) == SP_OK && sp_vec_norm(n, F) < best_residual) {
                best_residual = sp_vec_norm(n, F);
                sp_vec_copy(n, x, best);
                best_opt = opt;
            }
            break;
        }
        if (!(residual <= pb->vak.tolerance)) {
            /* the search stalled away from q1: follow the geodesics from the start itself */
            double y[SP_VAK_MAX_N], r = HUGE_VAL;
            starting_point(&e, k, y);
            if (continuation(&e, y, &r) && r < residual) {
                residual = r;
                sp_vec_copy(n, y, x);
            }
        }
        if (residual < best_residual) {
            best_residual = residual;
            sp_vec_copy(n, x, best);
            best_opt = opt;
        }
        if (residual <= pb->vak.tolerance) found_at = k;
    }

    cJSON *root = NULL;
    sp_vak_run run = {0};
    e.sys.progress = NULL; /* the report integrates the best path in full */
    if (failure != SP_ERR_NOMEM) {
        root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "task", "plan");
        cJSON_AddStringToObject(root, "model", pb->model);
        const char *status = found_at >= 0                   ? "converged"
                             : failure == SP_ERR_INTERRUPTED ? sp_status_name(failure)
                             : isfinite(best_residual)       ? "target_not_reached"
                                                             : sp_status_name(failure);
        cJSON_AddStringToObject(root, "status", status);
        cJSON_AddStringToObject(root, "optimizer_result", best_opt.code_name);
        cJSON_AddNumberToObject(root, "iterations", evaluations);
        cJSON_AddNumberToObject(root, "starts", starts);
        cJSON_AddNumberToObject(root, "forward_sweeps", (double)e.sweeps);
        const double t_out = sp_clock_seconds(); /* the reported run: the best path in full */
        if (isfinite(best_residual) && sp_vak_integrate(&e.sys, pb->vak.q0, best, 1, 0, &run) == SP_OK) {
            cJSON_AddNumberToObject(root, "residual", best_residual);
            sp_json_add_vector(root, "initial_momenta", n, best);
            sp_json_add_vector(root, "target", n, pb->vak.q1);
            sp_json_add_vector(root, "reached", n, run.q_end);
            cJSON_AddNumberToObject(root, "length", run.length);
            cJSON_AddNumberToObject(root, "energy", run.energy);
            sp_vak_run_json(&e.sys, &run, root);
        }
        /* the effort of the whole search, not of the final run alone */
        cJSON_DeleteItemFromObjectCaseSensitive(root, "work");
        cJSON *work = cJSON_AddObjectToObject(root, "work");
        cJSON_AddNumberToObject(work, "optimizer_evaluations", evaluations);
        cJSON_AddNumberToObject(work, "starts", starts);
        cJSON_AddNumberToObject(work, "sweeps", (double)e.sweeps);
        sp_run_work_json(SP_WORK_IMPLICIT, &e.work, e.steps_done, work);
        sp_vak_settings_json(pb, root);
        e.times.output += sp_clock_seconds() - t_out;
        sp_result_add_timing(root, sp_clock_seconds() - start, &e.times, (double)(e.sweeps - e.derivative_sweeps),
                             (double)e.derivative_sweeps);
    }
    sp_vak_run_release(&run);
    sp_vak_system_release(&e.sys);
    return root;
}
