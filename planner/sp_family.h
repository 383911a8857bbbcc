/* A model family as the planner sees it: one constant table per family (cubic splines,
 * vakonomic, holonomic, nonholonomic and their Lie-group forms, the car), defined in the
 * family's own folder and listed once in planner/families.c. The dispatch of solve, study,
 * fuzzing, export and plot all go through that list, so adding a family is its folder
 * and one line there. A family is known by the problem kinds it serves: the problem
 * reader's table of the same family (problems/problem_family.h) names the same kinds, and
 * a model, a problem or a result finds its family through them.
 *
 * Its pictures: `drift` recomputes its invariants along a result (through sp_family_drift,
 * the model bound to the result's parameters), `planar` says whose paths lie in the plane,
 * and `figure` draws the pictures only the family knows (the cubic and car plans); every
 * other result takes the common picture of planner/plot/plot.c.
 *
 * A family's simulate task is a stepper for the one loop of sp_run.h: `init` binds the
 * problem's model and fills the stepper, the loop runs it, `report` adds what only the
 * family knows (its diagnostics and settings) to the common result, `release` frees
 * what init took. */
#ifndef SP_FAMILY_H
#define SP_FAMILY_H

#include <cjson/cJSON.h>

#include "planner/sp_progress.h"
#include "planner/result_view.h"
#include "planner/sp_run.h"
#include "problems/sp_problem.h"

typedef struct sp_simulation_ops {
    size_t size; /* of the family's state, allocated zeroed by the caller, where it stays */
    /* Binds the problem's model in *self and fills *stepper (its self is self); on
     * failure (out of memory, a model that cannot be bound) release still runs. */
    sp_status (*init)(void *self, const sp_problem *pb, sp_stepper *stepper);
    /* Adds the family's members (diagnostics, settings) to the result of a finished run. */
    void (*report)(void *self, const sp_run *run, cJSON *result);
    void (*release)(void *self);
    /* The order of the problem's fixed-step scheme, which step selection needs to turn the
     * difference of two runs into an error estimate. */
    int (*order)(const sp_problem *pb);
} sp_simulation_ops;

/* A planned curve read at any time (planner/cubic/sp_curve.h). */
typedef struct sp_curve sp_curve;

/* Adds one series of `rows` values named `name` to a picture and returns where to write
 * them (NULL when out of memory or out of room). */
typedef double *(*sp_drift_add_fn)(void *ctx, const char *name, int rows);

/* A family's invariants recomputed along a result's trajectory with `pb`, the model bound
 * to the parameters the result ran with; one series each through `add`. */
typedef sp_status (*sp_problem_drift_fn)(const sp_problem *pb, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                                         sp_input_error *err);
/* Binds a family's model named pb->model (in a problem fresh from sp_problem_defaults):
 * sets pb->kind, the model's type and its parameters, read from a result's "settings"
 * (its "params"); an input error for a model the family does not have. */
typedef sp_status (*sp_model_bind_fn)(const cJSON *settings, sp_problem *pb, sp_input_error *err);
/* A family's `drift` through the one step every family shares, the model of a result bound
 * to its parameters: for an expression model ("custom") the problem it solved, read back
 * from its "input", which must be of `custom_kind` (else an input error saying it is not
 * of that family); for a named one (NULL reads as "(none)"), `bind`. Then `drift` with that
 * problem, which is freed before returning. */
sp_status sp_family_drift(const cJSON *result, const char *model, sp_model_kind custom_kind, sp_model_bind_fn bind,
                          sp_problem_drift_fn drift, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                          sp_input_error *err);

typedef struct sp_family {
    const char *name;                    /* as the problem reader's family of the same models */
    unsigned kinds;                      /* the problem kinds it serves: SP_KIND_FLAG(k) | … */
    const sp_simulation_ops *simulation; /* NULL when the family has no simulate task */
    /* The plan task; NULL when the family has none. */
    cJSON *(*plan)(const sp_problem *pb, const sp_progress *progress);
    /* The plan task handing over its solved curve too, for the caller to free with
     * sp_curve_free: curves[0] the plan's (a pose plan's orientation part), curves[1] a
     * pose plan's position part; NULL where there is none. NULL when the family's plans
     * have no curves. */
    cJSON *(*plan_curve)(const sp_problem *pb, const sp_progress *progress, sp_curve *curves[2]);
    /* For pictures of a result: its invariants recomputed along the recorded trajectory,
     * one series each through `add` (NULL: none); whether the model's q starts with a
     * position in the plane (NULL: never). */
    sp_status (*drift)(const cJSON *result, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                       sp_input_error *err);
    int (*planar)(const char *model);
    /* The family's own picture of a result (an SVG document in *svg, the caller's to
     * free), or SP_OK with *svg left NULL when the result takes the common picture, its
     * configuration and drift against time (NULL: always the common one). */
    sp_status (*figure)(const cJSON *result, const sp_traj *tr, char **svg, sp_input_error *err);
} sp_family;

/* The family of a problem's kind (NULL for none), and the i-th of the list (NULL past
 * the end). */
const sp_family *sp_family_of(sp_model_kind kind);
/* The family of a model named in a file or a result (NULL for none). */
const sp_family *sp_family_of_model(const char *model);
/* The family of a result: its model's, or for an expression model ("custom") the family
 * of the kind its problem names. */
const sp_family *sp_family_of_result(const cJSON *root);
const sp_family *sp_family_at(size_t i);

/* A simulate task of a family through the loop of sp_run.h: the result tree, or NULL
 * when out of memory. A problem with an error tolerance first has its step chosen
 * (sp_step_selection.h). */
cJSON *sp_family_simulate(const sp_family *f, const sp_problem *pb, const sp_progress *progress);

/* sp_solve_json, handing over a plan's curve as the family's plan_curve does (both NULL
 * for another task, or a family without curves). */
cJSON *sp_solve_json_curve(const sp_problem *pb, const sp_progress *progress, sp_curve *curves[2]);

/* What a run of a family's simulate task leaves behind, handed to `finish` before the
 * family's state is released: the state (for ops->report), its stepper and the run. */
typedef void (*sp_family_finish_fn)(void *ctx, void *self, const sp_stepper *stepper, const sp_run *run);
/* One run of a family's stepper under `settings`, then `finish` (whose run's start_seconds
 * includes the binding of the model). SP_ERR_NOMEM when the
 * family could not be bound or the rows not kept (finish is not called); otherwise the
 * run's own status. */
sp_status sp_family_run(const sp_family *f, const sp_problem *pb, const sp_run_settings *settings,
                        sp_family_finish_fn finish, void *ctx);

#endif
