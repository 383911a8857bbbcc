/* Resource limits of problem files (sp_limits.h): the defaults, the memory estimate of a
 * run and the checks the problem reader makes once a problem has been read. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "problems/sp_limits.h"

sp_limits sp_limits_default(void)
{
    return (sp_limits){.steps = 10000000L,
                       .evaluations = 1000000L,
                       .targets = 10000L,
                       .cases = 100000L,
                       .memory = 4.0 * 1024.0 * 1024.0 * 1024.0};
}

void sp_format_bytes(double bytes, char *out, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024.0) {
        snprintf(out, size, "%.0f bytes", bytes);
        return;
    }
    int u = -1;
    while (bytes >= 1024.0 && u < 4) bytes /= 1024.0, ++u;
    snprintf(out, size, bytes < 10.0 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

/* What one number of a result costs: its cJSON node, and its printed text (at most 24
 * characters and a separator) in a buffer that grows by doubling. */
#define NUMBER_BYTES ((double)sizeof(cJSON) + 2.0 * 26.0)
#define NODE_BYTES ((double)sizeof(cJSON))

/* A result with `rows` trajectory rows of `numbers` numbers in `arrays` arrays each. */
static double result_bytes(double rows, double numbers, double arrays)
{
    return rows * (numbers * NUMBER_BYTES + arrays * NODE_BYTES) + 65536.0;
}

static double problem_bytes(const sp_problem *pb);

/* What an NLopt algorithm keeps for n variables, in bytes: the quadratic models of the
 * derivative-free local methods (NEWUOA and BOBYQA interpolate with 2n + 1 points and hold
 * (n + 13)(5n + 2) + 3n(n + 3)/2 numbers), SLSQP's quasi-Newton matrix and least-squares
 * workspace, a simplex, or a population of the global methods are n² in size; the
 * limited-memory and CCSA methods are linear in n. The factors are measured peaks, rounded
 * up (NEWUOA: 533 MB at n = 3003; SLSQP: 4.1 GB at n = 9003). */
double sp_optimizer_memory_estimate(const char *algorithm, double n, int maxeval)
{
    static const struct {
        const char *prefix;
        double per_n2, per_n;
    } table[] = {
        {"LN_NEWUOA", 8.0, 0.0}, {"LN_BOBYQA", 8.0, 0.0},    {"LD_SLSQP", 7.0, 0.0},   {"LN_COBYLA", 4.0, 0.0},
        {"LN_PRAXIS", 4.0, 0.0}, {"LN_NELDERMEAD", 2.0, 0.0}, {"LN_SBPLX", 2.0, 0.0},   {"GN_CRS2", 12.0, 0.0},
        {"GN_ISRES", 24.0, 0.0}, {"GN_ESCH", 24.0, 0.0},      {"LD_LBFGS", 0.0, 64.0}, {"LD_VAR", 0.0, 64.0},
        {"LD_TNEWTON", 0.0, 64.0}, {"LD_MMA", 0.0, 32.0},     {"LD_CCSAQ", 0.0, 32.0},
    };
    if (!algorithm) return 0.0;
    if (strncmp(algorithm, "GN_DIRECT", 9) == 0 || strncmp(algorithm, "GN_ORIG_DIRECT", 14) == 0)
        return (maxeval > 0 ? (double)maxeval : 1e5) * (n + 4.0) * sizeof(double); /* every rectangle kept */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (strncmp(algorithm, table[i].prefix, strlen(table[i].prefix)) == 0)
            return (table[i].per_n2 * n * n + table[i].per_n * n) * sizeof(double);
    return 4.0 * n * n * sizeof(double); /* the others: as a model of n² numbers */
}

/* The optimiser's part of a plan: the direct form's velocities at every step, or the
 * initial momenta of single shooting; an AUGLAG or MLSL wrapper runs its local algorithm. */
static double optimizer_bytes(const sp_problem *pb)
{
    if (pb->task != SP_TASK_PLAN || pb->kind != SP_KIND_CUBIC || pb->plan.method != SP_METHOD_DIRECT) return 0.0;
    const double n = (double)pb->cubic.group->dim * (pb->steps + 1.0);
    const sp_optimizer_settings *o = &pb->optimizer;
    const double own = sp_optimizer_memory_estimate(o->algorithm, n, o->maxeval);
    const int wraps = strstr(o->algorithm, "AUGLAG") || strstr(o->algorithm, "MLSL");
    return wraps ? fmax(own, sp_optimizer_memory_estimate(o->local_algorithm, n, o->maxeval)) : own;
}

double sp_problem_memory_estimate(const sp_problem *pb)
{
    return problem_bytes(pb) + optimizer_bytes(pb);
}

static double problem_bytes(const sp_problem *pb)
{
    const double N = pb->steps, rows = N + 1.0;
    switch (pb->kind) {
    case SP_KIND_CUBIC: {
        const sp_group *G = pb->cubic.group;
        const double numbers = 1.0 + G->elem_size + 3.0 * G->dim + 3.0; /* t, q, xi, nu, p, y */
        if (pb->task == SP_TASK_PLAN && pb->plan.method != SP_METHOD_SINGLE_SHOOTING) {
            /* per step: its size, time and keyframe index, and the direct form's curve (its
             * step factors, element and velocity) where it is used; per block of at most
             * block_steps steps: states, Jacobians and a band of the Newton matrix (twice over
             * for pose plans, whose parts are planned one after the other); rows recorded
             * every record_every steps */
            const double per_step = 2.0 * sizeof(double) + sizeof(int) +
                                    (pb->plan.method == SP_METHOD_DIRECT || pb->cubic.space == SP_SPACE_SPHERE
                                         ? (2.0 * SP_LIE_MAX_ELEM + 2.0 * SP_LIE_MAX_DIM) * sizeof(double)
                                         : 0.0);
            const double blocks =
                N / (pb->plan.block_steps > 0 ? pb->plan.block_steps : 64) + 2.0 * pb->cubic.n_targets + 2.0;
            const double kept = N / (pb->record_every > 1 ? pb->record_every : 1) + pb->cubic.n_targets + 2.0;
            /* samples of the curve: time, point and two rates (both parts for poses) */
            const double samples = pb->plan.has_sample_times ? (double)pb->plan.n_sample_times
                                   : pb->plan.sample_rate > 0.0 ? pb->T * pb->plan.sample_rate + 2.0
                                                                : 0.0;
            const double sample_numbers = pb->plan.pose ? 1.0 + 9.0 + 3.0 + 12.0 : 1.0 + G->elem_size + 2.0 * G->dim;
            /* a block's states, Jacobians and band: 14 KB measured at block_steps 1 (an
             * orientation plan of 20000 steps peaked at 339 MB), and 7 KB more for the
             * position part of a pose plan (468 MB) */
            const double per_block = pb->plan.pose ? 21000.0 : 14000.0;
            return N * per_step + blocks * per_block + kept * (double)sizeof(sp_hohp_state) +
                   result_bytes(kept, numbers + 3.0, 6.0) + result_bytes(samples, sample_numbers, 4.0);
        }
        double arrays = rows * ((double)sizeof(sp_hohp_state) + sizeof(double)); /* states and times */
        if (pb->task == SP_TASK_PLAN) /* steps and tape of the shooting, target index per step */
            arrays += N * ((double)sizeof(sp_hohp_interval) + sizeof(double)) + rows * sizeof(int) +
                      (double)pb->cubic.n_targets * (sizeof(sp_cubic_target) + 2.0 * SP_LIE_MAX_ELEM * sizeof(double));
        return arrays + result_bytes(rows, numbers, 6.0);
    }
    case SP_KIND_VAKONOMIC: {
        /* rows every record_every steps and the last: t, q, p, λ */
        const double n = pb->vak.type->n, m = pb->vak.type->m;
        const double every = pb->record_every > 1 ? pb->record_every : 1.0, kept = N / every + 2.0;
        const double numbers = 1.0 + 2.0 * n + m;
        return kept * numbers * sizeof(double) + result_bytes(kept, numbers, 3.0);
    }
    case SP_KIND_HOLONOMIC: {
        /* rows every record_every steps and the last: t, q, p of the model's n and room for
         * the heavy top's (R, μ) and the monitors */
        const double every = pb->record_every > 1 ? pb->record_every : 1.0;
        const double n = pb->hol.type ? pb->hol.type->n : SP_HOL_MAX_N;
        const double kept = N / every + 2.0, numbers = 1.0 + 2.0 * n + 13.0;
        return kept * numbers * sizeof(double) + result_bytes(kept, numbers, 6.0);
    }
    case SP_KIND_NONHOLONOMIC:
    case SP_KIND_NONHOLONOMIC_LIE: {
        /* rows every record_every steps and the last: t, q, p, λ (and g, μ on a group, at
         * their largest) */
        const double every = pb->record_every > 1 ? pb->record_every : 1.0;
        const int lie = pb->kind == SP_KIND_NONHOLONOMIC_LIE;
        const double n = !lie && pb->nh.type ? pb->nh.type->n : SP_NH_MAX_N,
                     m = !lie && pb->nh.type ? pb->nh.type->m : SP_NH_MAX_M;
        const double kept = N / every + 2.0,
                     numbers = 1.0 + 2.0 * n + (lie ? SP_LIE_MAX_ELEM + SP_LIE_MAX_DIM : 0.0) + m;
        return kept * numbers * sizeof(double) + result_bytes(kept, numbers, 6.0);
    }
    default: {
        /* every other kind: rows of up to 64 numbers each, stored and written */
        const double numbers = 64.0;
        return rows * numbers * sizeof(double) + result_bytes(rows, numbers, 6.0);
    }
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static sp_status
fail(sp_input_error *err, const char *path, const char *fmt, ...)
{
    snprintf(err->path, sizeof err->path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return SP_ERR_INVALID;
}

/* NLopt algorithms that keep a dense model of the unknowns (a quadratic interpolant, a
 * quasi-Newton matrix, a factorised basis) and spend O(n³) between two evaluations: NEWUOA
 * went 5.2 s on the direct form's 3003 unknowns, SLSQP minutes on 9003, deaf meanwhile to
 * signals and to --max-seconds, which are answered at evaluations. Up to
 * SP_DENSE_OPTIMIZER_MAX unknowns that gap stays near 0.1 s on this class of machine. */
#define SP_DENSE_OPTIMIZER_MAX 500

static int dense_model(const char *algorithm)
{
    static const char *const dense[] = {"LN_NEWUOA", "LN_BOBYQA", "LD_SLSQP", "LN_COBYLA", "LN_PRAXIS"};
    for (size_t i = 0; i < sizeof dense / sizeof dense[0]; ++i)
        if (strncmp(algorithm, dense[i], strlen(dense[i])) == 0) return 1;
    return 0;
}

sp_status sp_problem_check_limits(const sp_problem *pb, const sp_limits *limits, sp_input_error *err)
{
    if (pb->task == SP_TASK_PLAN && pb->kind == SP_KIND_CUBIC && pb->plan.method == SP_METHOD_DIRECT) {
        const sp_optimizer_settings *o = &pb->optimizer;
        const int wraps = strstr(o->algorithm, "AUGLAG") || strstr(o->algorithm, "MLSL");
        const char *dense = dense_model(o->algorithm) ? o->algorithm
                            : wraps && dense_model(o->local_algorithm) ? o->local_algorithm
                                                                       : NULL;
        const long n = (long)pb->cubic.group->dim * (pb->steps + 1L);
        if (dense && n > SP_DENSE_OPTIMIZER_MAX)
            return fail(err, wraps && dense == o->local_algorithm ? "optimizer.local_algorithm" : "optimizer.algorithm",
                        "%s keeps a dense model of the direct form's %ld variables (%d steps) and can spend "
                        "seconds between evaluations, unable to answer a signal or --max-seconds; it takes at "
                        "most %d variables (%ld steps here): use LD_LBFGS, or fewer steps",
                        dense, n, pb->steps, SP_DENSE_OPTIMIZER_MAX,
                        SP_DENSE_OPTIMIZER_MAX / pb->cubic.group->dim - 1L);
    }
    const sp_limits def = sp_limits_default();
    const sp_limits *L = limits ? limits : &def;
    if (pb->steps > L->steps)
        return fail(err, "steps", "%d exceeds the limit %ld (raise it with --max-steps)", pb->steps, L->steps);
    if (pb->kind == SP_KIND_CUBIC && pb->task == SP_TASK_PLAN && (long)pb->cubic.n_targets > L->targets)
        return fail(err, "targets", "%zu targets exceed the limit %ld (raise it with --max-targets)",
                    pb->cubic.n_targets, L->targets);
    if (pb->task == SP_TASK_PLAN) {
        if (pb->optimizer.maxeval > L->evaluations)
            return fail(err, "optimizer.maxeval", "%d exceeds the limit %ld (raise it with --max-evaluations)",
                        pb->optimizer.maxeval, L->evaluations);
        if (pb->kind == SP_KIND_VAKONOMIC && (double)pb->vak.starts * pb->optimizer.maxeval > (double)L->evaluations)
            return fail(err, "starts",
                        "%d starts of up to %d evaluations (optimizer.maxeval) make %.0f, above the limit %ld "
                        "(raise it with --max-evaluations)",
                        pb->vak.starts, pb->optimizer.maxeval, (double)pb->vak.starts * pb->optimizer.maxeval,
                        L->evaluations);
    }
    double need = sp_problem_memory_estimate(pb);
    if (need > L->memory) {
        char need_text[32], limit_text[32];
        sp_format_bytes(need, need_text, sizeof need_text);
        sp_format_bytes(L->memory, limit_text, sizeof limit_text);
        if (optimizer_bytes(pb) > problem_bytes(pb))
            return fail(err, "optimizer.algorithm",
                        "%s on the direct form's %d variables (%d steps) needs about %s, above the limit %s "
                        "(LD_LBFGS needs a few numbers per variable; or fewer steps, or raise --max-memory)",
                        pb->optimizer.algorithm, pb->cubic.group->dim * (pb->steps + 1), pb->steps, need_text,
                        limit_text);
        if (pb->steps == 0) { /* error_tolerance or accuracy picks the steps later; even none do not fit */
            const char *what = pb->task != SP_TASK_PLAN                                     ? "error_tolerance"
                               : pb->plan.has_sample_times                                  ? "output.sample_times"
                               : pb->plan.sample_rate > 0.0                                 ? "output.sample_rate"
                                                                                            : "accuracy";
            return fail(err, what,
                        "the result needs about %s before any step, above the limit %s (raise it with --max-memory)",
                        need_text, limit_text);
        }
        return fail(err, "steps",
                    "%d steps need about %s for the trajectory and the result, above the limit %s "
                    "(raise it with --max-memory)",
                    pb->steps, need_text, limit_text);
    }
    return SP_OK;
}
