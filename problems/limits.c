/* Resource limits of problem files (sp_limits.h): the defaults, the memory estimate of a
 * run and the checks the problem reader makes once a problem has been read. */
#include <cjson/cJSON.h>
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

double sp_problem_memory_estimate(const sp_problem *pb)
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
            return N * per_step + blocks * 12000.0 + kept * (double)sizeof(sp_hohp_state) +
                   result_bytes(kept, numbers + 3.0, 6.0) + result_bytes(samples, sample_numbers, 4.0);
        }
        double arrays = rows * ((double)sizeof(sp_hohp_state) + sizeof(double)); /* states and times */
        if (pb->task == SP_TASK_PLAN) /* steps and tape of the shooting, target index per step */
            arrays += N * ((double)sizeof(sp_hohp_interval) + sizeof(double)) + rows * sizeof(int) +
                      (double)pb->cubic.n_targets * (sizeof(sp_cubic_target) + 2.0 * SP_LIE_MAX_ELEM * sizeof(double));
        return arrays + result_bytes(rows, numbers, 6.0);
    }
    case SP_KIND_VAKONOMIC: {
        const double n = pb->vak.type->n, m = pb->vak.type->m;
        const double numbers = 1.0 + 2.0 * n + m; /* t, q, p, lambda */
        return rows * numbers * sizeof(double) + result_bytes(rows, numbers, 3.0);
    }
    case SP_KIND_HOLONOMIC: {
        /* rows every record_every steps and the last; q, p and the heavy top's (R, μ), λ */
        const double every = pb->record_every > 1 ? pb->record_every : 1.0;
        const double kept = N / every + 2.0, numbers = 1.0 + 2.0 * SP_HOL_MAX_N + 13.0;
        return kept * numbers * sizeof(double) + result_bytes(kept, numbers, 6.0);
    }
    case SP_KIND_NONHOLONOMIC:
    case SP_KIND_NONHOLONOMIC_LIE: {
        /* rows every record_every steps and the last; t, q, p, g, μ, λ at their largest */
        const double every = pb->record_every > 1 ? pb->record_every : 1.0;
        const double kept = N / every + 2.0,
                     numbers = 1.0 + 2.0 * SP_NH_MAX_N + SP_LIE_MAX_ELEM + SP_LIE_MAX_DIM + SP_NH_MAX_M;
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

sp_status sp_problem_check_limits(const sp_problem *pb, const sp_limits *limits, sp_input_error *err)
{
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
