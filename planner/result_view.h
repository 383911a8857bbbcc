/* Reading a result JSON back (for pictures and CSV): the checks that it is a result,
 * and its trajectory as numeric columns. Every failure names the JSON path and what is
 * wrong: read by the pictures, the CSV export and the families' drift. Internal to
 * planner/. */
#ifndef SP_RESULT_VIEW_H
#define SP_RESULT_VIEW_H

#include <cjson/cJSON.h>

#include "planner/sp_clock.h"
#include "problems/sp_problem.h"

#define SP_TRAJ_MAX_FIELDS 16
#define SP_TRAJ_MAX_WIDTH 64

/* One member of "trajectory": a column of numbers (width 0, like "t") or rows of
 * `width` numbers (like "q"). */
typedef struct sp_traj_field {
    const char *name; /* owned by the cJSON tree */
    int width;
    double *data; /* rows x max(width, 1), row-major */
} sp_traj_field;

typedef struct sp_traj {
    int rows;
    const double *t;                         /* the "t" field's data */
    sp_traj_field field[SP_TRAJ_MAX_FIELDS]; /* in file order, "t" included */
    int n_fields;
    const char *coordinates[SP_TRAJ_MAX_WIDTH]; /* "coordinates" names, owned by the tree */
    int n_coordinates;
    int quaternion_xyzw; /* the result's quaternions (rows "quaternion", its targets) are [x, y, z, w]: its
                            "quaternion_order" is "xyzw"; 0: [w, x, y, z] ("wxyz", or no such member) */
} sp_traj;

/* Fails unless root is an object with "task" and "status" strings (a result, not a
 * problem file or a study summary). */
sp_status sp_result_check(const cJSON *root, sp_input_error *err);
/* Reads "trajectory" (which must exist, with "t"): its arrays of numbers or of rows, each
 * with as many rows as "t", all rows of one member the same width; other members (the
 * "coordinates" names, anything not numeric) are not state and are skipped. Also the
 * order of the result's quaternions, from its "quaternion_order" (sp_quaternion.h). The
 * tree must outlive tr. */
sp_status sp_traj_read(const cJSON *root, sp_traj *tr, sp_input_error *err);
/* The field named `name`, or NULL. */
const sp_traj_field *sp_traj_get(const sp_traj *tr, const char *name);
/* The field named `name`, which must have rows of `width` numbers; the error says it is
 * missing or of the wrong width, and `why` it is needed ("the state of the knife_edge
 * model"). */
sp_status sp_traj_need(const sp_traj *tr, const char *name, int width, const char *why, sp_input_error *err,
                       const sp_traj_field **out);
void sp_traj_release(sp_traj *tr);

/* Sets err (path and printf-style message) and returns SP_ERR_INVALID. */
sp_status sp_input_fail(sp_input_error *err, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The "timing" block of a solve: solve_seconds and its parts (start, plain sweeps,
 * derivative sweeps, linear algebra, NLopt's own work, output), which add up to it with
 * "other_seconds" (what none of them holds), and the counts of plain and derivative
 * sweeps. */
void sp_result_add_timing(cJSON *result, double solve_seconds, const sp_time_parts *parts, double plain_sweeps,
                          double derivative_sweeps);

#endif
