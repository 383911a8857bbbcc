/* JSON text in and out for foreign callers (sp_text_api.h): thin wrappers over the
 * problem reader, sp_solve_json, the study functions and the exact printer; and a plan's
 * curve kept for them to read (sp_plan_curve, over planner/cubic/sp_curve.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/sp_curve.h"
#include "planner/sp_clock.h"
#include "planner/sp_family.h"
#include "planner/sp_solve.h"
#include "planner/api/sp_text_api.h"
#include "planner/study/sp_study.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

/* "prefix path: message", or without the path for the whole document. The message is
 * kept whole: a path too long for the caller's buffer is cut short, with an ellipsis. */
static void put_error(char *error, size_t error_size, const char *prefix, const char *path, const char *message)
{
    if (error_size == 0) return;
    const size_t fixed = strlen(prefix) + strlen(message) + 3 /* ": " and the NUL */, len = strlen(path);
    size_t keep = len;
    /* (a buffer too small for the message itself gets the line's start, cut) */
    if (len && fixed + len > error_size && error_size > fixed + 3) keep = error_size - fixed - 3;
    while (keep > 0 && keep < len && ((unsigned char)path[keep] & 0xC0) == 0x80) --keep; /* whole characters */
    snprintf(error, error_size, "%s%.*s%s%s%s", prefix, (int)keep, path, keep < len ? "\u2026" : "", len ? ": " : "",
             message);
}

void sp_input_error_line(const sp_input_error *e, char *error, size_t error_size)
{
    put_error(error, error_size, "", e->path, e->message);
}

static int fail_input(const sp_input_error *e, int code, char *error, size_t error_size)
{
    sp_input_error_line(e, error, error_size);
    return code;
}

static int fail_message(const char *message, int code, char *error, size_t error_size)
{
    if (error_size > 0) snprintf(error, error_size, "%s", message);
    return code;
}

/* A study's error as the command words it ("cases[3]: steps: …"); out of memory is
 * the caller's internal failure, anything else (a base file that cannot be read too)
 * its input. */
static int fail_study(sp_status st, const sp_study_error *e, char *error, size_t error_size)
{
    const int code = st == SP_ERR_NOMEM ? SP_TEXT_INTERNAL : SP_TEXT_BAD_INPUT;
    if (e->case_index < 0) return fail_input(&e->input, code, error, error_size);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "cases[%ld]: ", e->case_index);
    put_error(error, error_size, prefix, e->input.path, e->input.message);
    return code;
}

struct sp_plan_curve {
    sp_curve *part[2]; /* the curve; a pose plan's orientation and position parts */
    int parts, kind, dim, elem_size;
    int screw; /* one SE(3) curve, read as a pose */
    double y0[3];
};

/* The handle over the curves a plan handed over (which it owns from here on; *out NULL,
 * and the curves freed, when there is no whole curve). SP_ERR_NOMEM frees them too. */
static sp_status plan_curve_new(const sp_problem *pb, sp_curve *curves[2], sp_plan_curve **out)
{
    *out = NULL;
    const int parts = pb->plan.pose ? 2 : 1, whole = curves[0] && (parts == 1 || curves[1]);
    sp_plan_curve *c = whole ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        sp_curve_free(curves[0]), sp_curve_free(curves[1]);
        return whole ? SP_ERR_NOMEM : SP_OK;
    }
    c->parts = parts;
    for (int k = 0; k < parts; ++k) {
        c->part[k] = curves[k];
        c->dim += sp_curve_group(curves[k])->dim;
        c->elem_size += sp_curve_group(curves[k])->elem_size;
    }
    c->screw = parts == 1 && sp_curve_group(curves[0]) == sp_group_se3;
    if (c->screw) c->dim = 6, c->elem_size = 12; /* (R, x), (ω, ẋ), (ω̇, ẍ) as for SO3xR3 */
    c->kind = pb->plan.pose || c->screw                  ? SP_PLAN_CURVE_POSE
              : pb->cubic.space == SP_SPACE_SPHERE       ? SP_PLAN_CURVE_SPHERE
              : sp_curve_group(curves[0]) == sp_group_so3 ? SP_PLAN_CURVE_ROTATION
                                                         : SP_PLAN_CURVE_POINT;
    if (c->kind == SP_PLAN_CURVE_SPHERE) memcpy(c->y0, pb->cubic.y0, sizeof c->y0);
    *out = c;
    return SP_OK;
}

cJSON *sp_solve_json_input(const sp_problem *pb, const sp_progress *progress, cJSON *input, sp_plan_curve **curve)
{
    if (curve) *curve = NULL;
    sp_curve *parts[2] = {NULL, NULL};
    cJSON *result = sp_solve_json_curve(pb, progress, curve ? parts : NULL);
    sp_plan_curve *c = NULL;
    const sp_status st = plan_curve_new(pb, parts, &c);
    sp_result_take_input(result, input);
    if (st != SP_OK || !result) {
        sp_plan_curve_free(c);
        cJSON_Delete(result);
        return NULL;
    }
    if (curve) *curve = c;
    return result;
}

/* sp_solve_text, and with `curve` the plan's curve as well. */
static int solve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop, char **result_json,
                      sp_plan_curve **curve, char *error, size_t error_size)
{
    *result_json = NULL;
    if (curve) *curve = NULL;
    sp_problem pb;
    sp_input_error e;
    cJSON *input; /* the result carries the problem it solved, as the command's do */
    sp_status st = sp_problem_parse_input(problem_json, length, NULL, &pb, &input, &e);
    if (st != SP_OK) return fail_input(&e, st == SP_ERR_NOMEM ? SP_TEXT_INTERNAL : SP_TEXT_BAD_INPUT, error, error_size);
    const sp_progress progress = {.stop = stop};
    sp_plan_curve *c = NULL;
    cJSON *result = sp_solve_json_input(&pb, &progress, input, curve ? &c : NULL); /* not copied: it may be long */
    sp_problem_free(&pb);
    *result_json = result ? sp_json_print(result, 0, NULL) : NULL;
    cJSON_Delete(result);
    if (!*result_json) {
        sp_plan_curve_free(c);
        return fail_message("out of memory", SP_TEXT_INTERNAL, error, error_size);
    }
    if (curve) *curve = c;
    return SP_TEXT_OK;
}

int sp_solve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop, char **result_json,
                  char *error, size_t error_size)
{
    return solve_text(problem_json, length, stop, result_json, NULL, error, error_size);
}

int sp_plan_curve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop,
                       char **result_json, sp_plan_curve **curve, char *error, size_t error_size)
{
    return solve_text(problem_json, length, stop, result_json, curve, error, error_size);
}

int sp_plan_curve_kind(const sp_plan_curve *c) { return c->kind; }
int sp_plan_curve_dim(const sp_plan_curve *c) { return c->dim; }
int sp_plan_curve_elem_size(const sp_plan_curve *c) { return c->elem_size; }
double sp_plan_curve_start(const sp_plan_curve *c) { return sp_curve_start(c->part[0]); }
double sp_plan_curve_end(const sp_plan_curve *c) { return sp_curve_end(c->part[0]); }

int sp_plan_curve_y0(const sp_plan_curve *c, double y0[3])
{
    if (c->kind != SP_PLAN_CURVE_SPHERE) return 0;
    memcpy(y0, c->y0, sizeof c->y0);
    return 1;
}

int sp_plan_curve_sample(sp_plan_curve *c, size_t n, const double *t, double *g, double *omega, double *omega_dot)
{
    const double start = sp_plan_curve_start(c), end = sp_plan_curve_end(c);
    for (size_t i = 0; i < n; ++i)
        if (!(t[i] >= start && t[i] <= end)) return SP_TEXT_BAD_INPUT; /* NaN included */
    for (size_t i = 0; i < n; ++i) {
        /* the parts side by side: (R, x), (ω, ẋ), (ω̇, ẍ) */
        double *gi = g ? g + i * (size_t)c->elem_size : NULL, *wi = omega ? omega + i * (size_t)c->dim : NULL,
               *ai = omega_dot ? omega_dot + i * (size_t)c->dim : NULL;
        if (c->screw) {
            sp_curve_point p;
            sp_curve_pose q;
            if (sp_curve_eval(c->part[0], t[i], &p) != SP_OK) return SP_TEXT_INTERNAL;
            sp_curve_point_pose(&p, &q);
            if (gi) memcpy(gi, q.R, sizeof q.R), memcpy(gi + 9, q.x, sizeof q.x);
            if (wi) memcpy(wi, q.omega, sizeof q.omega), memcpy(wi + 3, q.velocity, sizeof q.velocity);
            if (ai) memcpy(ai, q.omega_dot, sizeof q.omega_dot), memcpy(ai + 3, q.acceleration, sizeof q.acceleration);
            continue;
        }
        for (int k = 0; k < c->parts; ++k) {
            const sp_group *G = sp_curve_group(c->part[k]);
            sp_curve_point p;
            if (sp_curve_eval(c->part[k], t[i], &p) != SP_OK) return SP_TEXT_INTERNAL;
            if (gi) memcpy(gi, p.g, (size_t)G->elem_size * sizeof *gi), gi += G->elem_size;
            if (wi) memcpy(wi, p.omega, (size_t)G->dim * sizeof *wi), wi += G->dim;
            if (ai) memcpy(ai, p.omega_dot, (size_t)G->dim * sizeof *ai), ai += G->dim;
        }
    }
    return SP_TEXT_OK;
}

void sp_plan_curve_free(sp_plan_curve *c)
{
    if (!c) return;
    sp_curve_free(c->part[0]), sp_curve_free(c->part[1]);
    free(c);
}

int sp_check_text(const char *json, size_t length, const char *base_dir, char *error, size_t error_size)
{
    int is_study;
    sp_input_error e;
    sp_status read = sp_study_text_is_study(json, length, &is_study, &e);
    if (read != SP_OK) return fail_input(&e, read == SP_ERR_NOMEM ? SP_TEXT_INTERNAL : SP_TEXT_BAD_INPUT, error, error_size);
    if (is_study) {
        sp_study *s;
        sp_study_error se;
        sp_status st = sp_study_parse_limited(json, length, base_dir, NULL, &s, &se);
        if (st != SP_OK) return fail_study(st, &se, error, error_size);
        sp_study_free(s);
        return SP_TEXT_OK;
    }
    sp_problem pb;
    sp_status st = sp_problem_parse_limited(json, length, NULL, &pb, &e);
    if (st != SP_OK) return fail_input(&e, st == SP_ERR_NOMEM ? SP_TEXT_INTERNAL : SP_TEXT_BAD_INPUT, error, error_size);
    sp_problem_free(&pb);
    return SP_TEXT_OK;
}

int sp_study_text(const char *study_json, size_t length, const char *base_dir, const char *out_dir,
                  const volatile sig_atomic_t *stop, char *error, size_t error_size)
{
    sp_study *s;
    sp_study_error se;
    sp_status st = sp_study_parse_limited(study_json, length, base_dir, NULL, &s, &se);
    if (st != SP_OK) return fail_study(st, &se, error, error_size);
    sp_study_summary *sum = sp_study_summary_new(s);
    size_t *todo = malloc((sp_study_case_count(s) + 1) * sizeof *todo); /* + 1: never malloc(0) */
    sp_study_log *log = NULL;
    char why[512];
    /* the folder's log and lock, as the command's: one study at a time in a folder */
    st = sum && todo ? sp_study_log_open(s, out_dir, &log, why, sizeof why) : SP_ERR_NOMEM;
    if (st != SP_OK) {
        sp_study_summary_free(sum);
        free(todo);
        sp_study_free(s);
        return fail_message(st == SP_ERR_NOMEM ? "out of memory" : why,
                            st == SP_ERR_INVALID ? SP_TEXT_BAD_INPUT : SP_TEXT_INTERNAL, error, error_size);
    }
    sp_study_remove_temporaries(out_dir);
    const size_t n = sp_study_log_resume(log, sum, todo);
    int rc = SP_TEXT_OK;
    for (size_t k = 0; k < n; ++k) {
        if (stop && *stop) {
            rc = SP_TEXT_INTERRUPTED;
            break;
        }
        char failure[512] = "";
        cJSON *figures = NULL;
        const double t0 = sp_clock_seconds();
        st = sp_study_run_case(s, todo[k], out_dir, &figures, failure, sizeof failure);
        const double wall = sp_clock_seconds() - t0;
        if (st == SP_OK && !figures) snprintf(failure, sizeof failure, "out of memory");
        if (sp_study_log_record(log, sum, todo[k], figures, failure, wall, why, sizeof why) != SP_OK &&
            rc == SP_TEXT_OK)
            rc = fail_message(why, SP_TEXT_INTERNAL, error, error_size);
        cJSON_Delete(figures);
    }
    /* written when stopped too: it lists what is done, as the command's does */
    if (sp_study_summary_write(sum, out_dir, why, sizeof why) != SP_OK)
        rc = fail_message(why, SP_TEXT_INTERNAL, error, error_size);
    else if (rc == SP_TEXT_INTERRUPTED)
        fail_message("stopped; the same call resumes the study", rc, error, error_size);
    sp_study_log_close(log);
    free(todo);
    sp_study_summary_free(sum);
    sp_study_free(s);
    return rc;
}

void sp_free_text(char *text) { free(text); }
