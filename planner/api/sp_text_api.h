/* Entry points for foreign callers (Python's ctypes, other languages' FFIs): documents in
 * and out as JSON text, so that a caller needs none of the library's struct layouts
 * and no JSON library of its own. Problems, studies and results are the files of docs/reference.md,
 * docs/studies.md and docs/results.md; every number of a result text reads back bitwise
 * equal to the one computed.
 *
 * Each function returns one of the codes below, which are those of the command's exit
 * status for the same failure. On SP_TEXT_BAD_INPUT and SP_TEXT_INTERNAL `error`
 * receives one line (truncated to error_size, always NUL-terminated when error_size > 0):
 * "path: message" with the JSON path at fault, as `symplan check` prints it after the
 * file's name ("targets[2].t: must be increasing"); for a case of a study
 * "cases[3]: steps: …". Limits are the defaults of sp_limits.h.
 *
 * `stop` (may be NULL) is a flag the caller owns and may set from another thread or a
 * signal handler: a solve ends at its next check with status "interrupted" and what it
 * computed so far (sp_progress.h), a study after its current case. On Linux
 * sig_atomic_t is an int. */
#ifndef SP_TEXT_API_H
#define SP_TEXT_API_H

#include <signal.h>
#include <stddef.h>

enum {
    SP_TEXT_OK = 0,          /* done (a solve's result may still say it did not converge) */
    SP_TEXT_INTERNAL = 1,    /* out of memory, or a study's file could not be written */
    SP_TEXT_BAD_INPUT = 2,   /* malformed or invalid document, a limit exceeded */
    SP_TEXT_INTERRUPTED = 3  /* a study stopped through `stop` (its summary is written) */
};

/* Reads the problem (`length` bytes of JSON text, NUL-terminated or not), runs its task
 * as `symplan solve` does and returns its result in *result_json: compact JSON, malloc'd and
 * NUL-terminated, to be released with sp_free_text (NULL on failure). A result whose
 * status is not "converged"/"ok" (stalled, newton_failed, interrupted, …) is still
 * SP_TEXT_OK: the caller reads its "status" and "message". */
int sp_solve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop, char **result_json,
                  char *error, size_t error_size);

/* Validates a problem or a study without running it: a document whose top level has a
 * "base" member is a study (sp_study.h), read with every case expanded and validated;
 * anything else is a problem. `base_dir` resolves a study's relative "base" path (NULL:
 * the working directory); it is ignored for a problem. */
int sp_check_text(const char *json, size_t length, const char *base_dir, char *error, size_t error_size);

/* Runs a study into the existing folder out_dir as `symplan study STUDY -o DIR -j 1`
 * does: each case to DIR/case-NNNN.json and a record of it to DIR/cases.log, a case
 * already complete there kept (so the same call resumes a stopped study), then
 * DIR/summary.json and summary.csv. A case that fails is a "failed" row of the summary,
 * not an error of the call. SP_TEXT_BAD_INPUT, with nothing run, while another process
 * runs a study in out_dir. */
int sp_study_text(const char *study_json, size_t length, const char *base_dir, const char *out_dir,
                  const volatile sig_atomic_t *stop, char *error, size_t error_size);

/* Releases a text returned by these functions (NULL is allowed). */
void sp_free_text(char *text);

/* A plan's curve as a function of time, for foreign callers: the solved cubic spline read
 * at any t in [start, end] (between the grid's nodes one step of the plan's own scheme
 * from the node before t). A pose plan's handle
 * covers both its parts, the orientation's and the position's curve. */
typedef struct sp_plan_curve sp_plan_curve;

/* What the curve's points are (sp_plan_curve_kind), with the numbers sp_plan_curve_sample
 * writes per time: g (elem_size of them), its rate ω and ω̇ (dim each).
 *   ROTATION (group SO3, space "group"): g = R row-major (9), ω = (RᵀṘ)^∨ the body
 *            angular velocity (3), ω̇ (3);
 *   SPHERE   (group SO3, space "sphere"): the same rotation, whose point is y = R y0
 *            (sp_plan_curve_y0); then ẏ = R (ω × y0) and ÿ = R (ω × (ω × y0) + ω̇ × y0);
 *   POINT    (group Rn): g = x (n), ω = ẋ (n), ω̇ = ẍ (n);
 *   POSE     (group SO3xR3 or SE3): g = (R row-major, x) (12), ω = (ω, ẋ) (6), ω̇ = (ω̇, ẍ) (6),
 *            ẋ and ẍ in the fixed frame (on SE(3) from the body twist (ω, v): ẋ = R v,
 *            ẍ = R (ω × v + v̇)). */
enum { SP_PLAN_CURVE_ROTATION = 0, SP_PLAN_CURVE_SPHERE = 1, SP_PLAN_CURVE_POINT = 2, SP_PLAN_CURVE_POSE = 3 };

/* sp_solve_text, and for a cubic-spline plan whose solve produced a curve (the method
 * multiple_shooting or direct, with a solution to show, converged or not: read the
 * result's "status") that curve in *curve, to be released with sp_plan_curve_free.
 * *curve is NULL for any other task or model, a single-shooting plan, a solve that left
 * no solution, and on failure. */
int sp_plan_curve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop,
                       char **result_json, sp_plan_curve **curve, char *error, size_t error_size);

int sp_plan_curve_kind(const sp_plan_curve *c);      /* SP_PLAN_CURVE_… */
int sp_plan_curve_dim(const sp_plan_curve *c);       /* numbers of ω (and of ω̇) */
int sp_plan_curve_elem_size(const sp_plan_curve *c); /* numbers of g */
double sp_plan_curve_start(const sp_plan_curve *c);  /* 0 */
double sp_plan_curve_end(const sp_plan_curve *c);    /* T */
/* For a plan on the sphere y0, the point the rotations carry (returns 1); 0 otherwise. */
int sp_plan_curve_y0(const sp_plan_curve *c, double y0[3]);

/* The curve at the n times t[] into the caller's arrays: g[n·elem_size], omega[n·dim],
 * omega_dot[n·dim], row after row (any of the three may be NULL). Allocates nothing; one
 * curve is not to be read from two threads at once. SP_TEXT_BAD_INPUT, with nothing
 * written, when a time is outside [start, end] or not a number; SP_TEXT_INTERNAL when a
 * step of the curve failed (a θ-scheme's implicit solve), the rows before it written. */
int sp_plan_curve_sample(sp_plan_curve *c, size_t n, const double *t, double *g, double *omega, double *omega_dot);

/* Releases a curve (NULL is allowed). */
void sp_plan_curve_free(sp_plan_curve *c);

#endif
