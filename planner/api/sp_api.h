/* The library as a program uses it: a problem built by a constructor and setters (or read
 * from a problem file or JSON text), solved into a result read through typed getters, the
 * result written as JSON on request, and a plan's curve read at any time.
 *
 * Problems, results and their members are those of the files (docs/reference.md for
 * problems, docs/results.md for results): a setter names a member as the file does, a
 * dotted name reaching into an object ("optimizer.maxeval", "params.m",
 * "vehicle.wheelbase"). A problem is checked whole, as the problem reader checks a file,
 * by symplan_problem_check and by symplan_solve; its error is one line "path: message"
 * naming the JSON path at fault.
 *
 * Ownership follows the verb: what a function whose name says new, read, solve, json or
 * take hands back is the caller's, to be released with the matching free (texts with
 * sp_free_text, curves with sp_plan_curve_free); what a getter returns is borrowed from its
 * object and valid until that object is freed; setters copy their arguments. Every free
 * accepts NULL. A bad argument (a NULL object, a non-finite number, a size out of range)
 * is the status SP_ERR_INVALID, with the object unchanged; nothing aborts or prints.
 *
 * Objects are not shared between threads while one of them changes: a result's array
 * getters convert on first use, and a curve keeps its stepper's work space. Different
 * objects may be used from different threads at once. */
#ifndef SP_API_H
#define SP_API_H

#include <signal.h>
#include <stddef.h>

#include "lie/sp_status.h"
#include "planner/api/sp_text_api.h"

typedef struct symplan_problem symplan_problem;
typedef struct symplan_result symplan_result;

/* ---- names --------------------------------------------------------------------------- */

typedef enum { SYMPLAN_PLAN, SYMPLAN_SIMULATE } symplan_task;
/* "plan", "simulate"; NULL for a value outside the enum. */
const char *symplan_task_name(symplan_task task);
/* The task of a name: SP_OK and *task set, or SP_ERR_INVALID. */
sp_status symplan_task_from_name(const char *name, symplan_task *task);

/* How a result ended, its "status" member. The first three are a task done, the next four a
 * usable result that did not reach its goal, INTERRUPTED a caller's stop (the result is
 * partial), and from NEWTON_FAILED on the computation broke down. */
#define SYMPLAN_STATUS_LIST(X)                                                                                         \
    X(SYMPLAN_CONVERGED, "converged")                                                                                  \
    X(SYMPLAN_OK, "ok")                                                                                                \
    X(SYMPLAN_STOPVAL_REACHED, "stopval_reached")                                                                      \
    X(SYMPLAN_STALLED, "stalled")                                                                                      \
    X(SYMPLAN_MAXEVAL_REACHED, "maxeval_reached")                                                                      \
    X(SYMPLAN_MAXTIME_REACHED, "maxtime_reached")                                                                      \
    X(SYMPLAN_TARGET_NOT_REACHED, "target_not_reached")                                                                \
    X(SYMPLAN_INTERRUPTED, "interrupted")                                                                              \
    X(SYMPLAN_NEWTON_FAILED, "newton_failed")                                                                          \
    X(SYMPLAN_SINGULAR_MATRIX, "singular_matrix")                                                                      \
    X(SYMPLAN_NON_FINITE, "non_finite")                                                                                \
    X(SYMPLAN_DOMAIN_ERROR, "domain_error")                                                                            \
    X(SYMPLAN_MODEL_FAILED, "model_failed")                                                                            \
    X(SYMPLAN_STEP_SIZE_UNDERFLOW, "step_size_underflow")                                                              \
    X(SYMPLAN_TOO_MANY_STEPS, "too_many_steps")                                                                        \
    X(SYMPLAN_OUT_OF_MEMORY, "out_of_memory")                                                                          \
    X(SYMPLAN_INVALID_ARGUMENT, "invalid_argument")                                                                    \
    X(SYMPLAN_IO_ERROR, "io_error")                                                                                    \
    X(SYMPLAN_OPTIMIZER_FAILED, "optimizer_failed")

typedef enum {
#define SYMPLAN_STATUS_ENUM(code, name) code,
    SYMPLAN_STATUS_LIST(SYMPLAN_STATUS_ENUM)
#undef SYMPLAN_STATUS_ENUM
        SYMPLAN_STATUS_COUNT
} symplan_status;
/* "converged", …, as results write them; NULL outside the enum. */
const char *symplan_status_name(symplan_status status);
/* The status of a name: SP_OK and *status set, or SP_ERR_INVALID. */
sp_status symplan_status_from_name(const char *name, symplan_status *status);
/* Whether a status is a task done (CONVERGED, OK, STOPVAL_REACHED). */
int symplan_status_done(symplan_status status);

/* ---- problems ------------------------------------------------------------------------- */

/* A new problem of a task for a model named as a file names it ("cubic_spline",
 * "planar_pendulum", "heisenberg", "knife_edge", "car", …; `symplan list` lists them),
 * with nothing else set: everything a file may leave out takes its default, the rest is
 * set below before the problem is solved. SP_ERR_INVALID for an unknown model. */
sp_status symplan_problem_new(symplan_task task, const char *model, symplan_problem **out);
/* A problem from a problem file, or from `length` bytes of JSON text, read and checked
 * whole: on failure *out is NULL and `error` (error_size bytes, NUL-terminated when
 * error_size > 0) holds "path: message"; SP_ERR_INVALID for bad content, SP_ERR_IO for a
 * file that cannot be read, SP_ERR_NOMEM. */
sp_status symplan_problem_read_file(const char *path, symplan_problem **out, char *error, size_t error_size);
sp_status symplan_problem_read_json(const char *text, size_t length, symplan_problem **out, char *error,
                                    size_t error_size);
void symplan_problem_free(symplan_problem *pb);

/* The task and model name of a problem (the name borrowed). */
symplan_task symplan_problem_task(const symplan_problem *pb);
const char *symplan_problem_model(const symplan_problem *pb);

/* The horizon T, the number of steps over it, and a simulation's step size h. */
sp_status symplan_problem_set_horizon(symplan_problem *pb, double T);
sp_status symplan_problem_set_steps(symplan_problem *pb, int steps);
sp_status symplan_problem_set_step_size(symplan_problem *pb, double h);
/* The keyframe weight σ of a cubic-spline plan (0: pass through every keyframe). */
sp_status symplan_problem_set_weight(symplan_problem *pb, double sigma);
/* A model parameter ("params.NAME" of the file: m, g, l, …). */
sp_status symplan_problem_set_param(symplan_problem *pb, const char *name, double value);
/* The optimiser: an NLopt algorithm name ("LD_LBFGS") and the most evaluations (0: the
 * default); other settings through symplan_problem_set_number("optimizer.…"). */
sp_status symplan_problem_set_optimizer(symplan_problem *pb, const char *algorithm, int maxeval);

/* Any member by its file name: a number, an integer-valued number, a flag, a name, or a
 * vector of n numbers (the initial state "xi0", "y0", "g0", "x0", "q0", "p0", "v0", the
 * end velocity "xiT", a car's "start", "goal" and "bounds", …). The member replaces what
 * the problem held under that name. */
sp_status symplan_problem_set_number(symplan_problem *pb, const char *name, double value);
sp_status symplan_problem_set_flag(symplan_problem *pb, const char *name, int value);
sp_status symplan_problem_set_name(symplan_problem *pb, const char *name, const char *value);
sp_status symplan_problem_set_vector(symplan_problem *pb, const char *name, size_t n, const double *x);

/* Keyframes of a cubic-spline plan, appended in time order (0 < t ≤ T, increasing): a
 * point y of the sphere S² (plans with space "sphere"); a rotation R (row-major 3 x 3, plans
 * on SO3 with space "group"); a pose, rotation R and position x (plans on SE3 or SO3xR3);
 * a point x of Rⁿ (n numbers, plans on Rn). symplan_problem_clear_targets removes them all. */
sp_status symplan_problem_add_point_target(symplan_problem *pb, double t, const double y[3]);
sp_status symplan_problem_add_rotation_target(symplan_problem *pb, double t, const double R[9]);
sp_status symplan_problem_add_pose_target(symplan_problem *pb, double t, const double R[9], const double x[3]);
sp_status symplan_problem_add_position_target(symplan_problem *pb, double t, size_t n, const double *x);
sp_status symplan_problem_clear_targets(symplan_problem *pb);
/* A car plan's obstacle: a polygon of n corners (x, y) in order, xy[2n]. */
sp_status symplan_problem_add_obstacle(symplan_problem *pb, size_t n, const double *xy);

/* Checks the problem as the problem reader checks a file: SP_OK, or SP_ERR_INVALID (or
 * SP_ERR_NOMEM) with "path: message" in `error`. */
sp_status symplan_problem_check(const symplan_problem *pb, char *error, size_t error_size);
/* The problem as the JSON text of a problem file (formatted when `formatted` is non-zero),
 * to be released with sp_free_text; NULL when out of memory. */
char *symplan_problem_json(const symplan_problem *pb, int formatted);

/* ---- solving and results -------------------------------------------------------------- */

/* Checks and runs the problem's task. `stop` (may be NULL) is a flag the caller owns and
 * may set from another thread or a signal handler: the solve ends at its next check with
 * status INTERRUPTED and what it computed so far. SP_OK with *out set whatever the result's
 * own status (read it with symplan_result_status); an invalid problem is SP_ERR_INVALID
 * with *out NULL and "path: message" in `error`; SP_ERR_NOMEM. */
sp_status symplan_solve(const symplan_problem *pb, const volatile sig_atomic_t *stop, symplan_result **out, char *error,
                        size_t error_size);
void symplan_result_free(symplan_result *r);

/* How the result ended, and when it is not done the one-line reason (borrowed; "" when
 * done): "newton_failed: the implicit solve did not converge at step 3". */
symplan_status symplan_result_status(const symplan_result *r);
const char *symplan_result_message(const symplan_result *r);
/* The cost of a plan (NaN for a simulation, or a plan that left none). */
double symplan_result_cost(const symplan_result *r);

/* A number of the result by its dotted path ("iterations", "diagnostics.energy_error",
 * "work.newton_iterations", "extremes.omega"): SP_OK, or SP_ERR_INVALID when there is no
 * number there (the member missing, or null where the value was not finite). */
sp_status symplan_result_number(const symplan_result *r, const char *path, double *value);
/* An array of the result by its dotted path, as rows x cols numbers, row after row: a
 * vector is one column. The trajectory ("trajectory.t", "trajectory.q", "trajectory.xi",
 * …), samples ("samples.t", "samples.omega", …) and any other array of numbers.
 * *data is borrowed. SP_ERR_INVALID when there is no such array, or it is not of numbers
 * with rows of one length. */
sp_status symplan_result_array(symplan_result *r, const char *path, size_t *rows, size_t *cols, const double **data);
/* The same for the members of "trajectory" and of "samples" (name "t", "q", "omega", …). */
sp_status symplan_result_trajectory(symplan_result *r, const char *name, size_t *rows, size_t *cols,
                                    const double **data);
sp_status symplan_result_samples(symplan_result *r, const char *name, size_t *rows, size_t *cols, const double **data);

/* The result as JSON text, the document `symplan solve -o` writes (the problem it solved
 * as "input"), to be released with sp_free_text; NULL when out of memory. Numbers read
 * back bitwise equal. */
char *symplan_result_json(const symplan_result *r, int formatted);
/* The same written to a file, whole or not at all (an existing file is replaced only
 * once the new one is complete): SP_OK, or SP_ERR_IO with the reason in `error`. */
sp_status symplan_result_write(const symplan_result *r, const char *path, char *error, size_t error_size);

/* The planned curve of a cubic-spline plan (sp_text_api.h: sampled at any time in [0, T],
 * g, ω and ω̇), handed over to the caller, who releases it with sp_plan_curve_free. NULL
 * when the result has none (another task or model, single shooting, a solve that left no
 * solution) or it was already taken. */
sp_plan_curve *symplan_result_take_curve(symplan_result *r);

#endif
