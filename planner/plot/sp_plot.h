/* Pictures and tables of results, for `symplan plot` and `symplan export`.
 *
 * A result JSON (any task, any model) becomes a self-contained SVG picture of what its
 * user wants to see: the path on the sphere with its targets, reached points and
 * momentum kicks; orientation frames along an SO(3) path; the configuration against
 * time with the drift of the invariants (recomputed from the trajectory) on a log
 * scale. A study's summary becomes the chosen figure against a varied parameter, one
 * line per combination of the other varied parameters (log–log for step counts and
 * sizes). A result's trajectory becomes CSV whose numbers read back bitwise.
 *
 * Everything is built in memory and handed to the caller (who frees it); nothing is
 * printed. Bad input comes back as SP_ERR_INVALID with the JSON path and what is wrong
 * in err; SP_ERR_NOMEM when memory runs out. */
#ifndef SP_PLOT_H
#define SP_PLOT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_problem.h"

/* The picture of a result. */
sp_status sp_plot_result(const cJSON *result, char **svg, sp_input_error *err);

/* A derived quantity of a result against time (`symplan plot R.json --y EXPR`): any
 * expression (the language of expression models) of the columns sp_export_csv writes
 * ("q_x^2 + q_y^2", "sqrt(p_x^2 + p_y^2)"), evaluated at every row. A name that is no
 * column is refused with the list of the columns. */
sp_status sp_plot_expression(const cJSON *result, const char *expression, char **svg, sp_input_error *err);

/* Several results overlaid (`symplan plot A.json B.json …`): the first configuration
 * components of each against time, then one panel per diagnostic (each drift series the
 * results' families compute, drawn for the results that have it) on shared axes, one line
 * per result named in the legend by names[i] (the file names; model + scheme when they
 * repeat or names is NULL). One result is exactly sp_plot_result. On failure *failed is
 * the index of the result at fault. */
sp_status sp_plot_compare(const cJSON *const *results, const char *const *names, int n, char **svg, int *failed,
                          sp_input_error *err);

/* Choices for a study picture; NULL members take the defaults. */
typedef struct sp_study_plot_options {
    const char *x; /* the varied field along x; default: the first numeric varied field, else the
                      first one; a field with values other than numbers (like "scheme") is drawn
                      as categories, evenly spaced and named by their values */
    const char *y; /* the figure; default: "cost" if the cases have one, else "energy_error" */
    int error;     /* draw instead |figure − figure of the next finer case of its line| (the
                      next larger x, or the next smaller for a step size "h"), at the coarser
                      case: successive differences, which fall with the order of the method */
} sp_study_plot_options;

/* The picture of a study from its summary (the contents of DIR/summary.json: an array
 * of case records, or an object with a "cases" array). */
sp_status sp_plot_study(const cJSON *summary, const sp_study_plot_options *opt, char **svg, sp_input_error *err);

/* Whether a document is a study summary (an array of records, or an object with a
 * "rows" array and no "trajectory") rather than a result. */
int sp_plot_is_study_summary(const cJSON *doc);

/* The trajectory of a result as CSV: a header row naming the columns (t, q_x… or
 * q_11…q_33 or the quaternion's q_w, q_x, q_y, q_z in the result's order, omega_x… for
 * the angular velocity of a cubic on SO(3), xi_1…, p_…, lambda_…), then one row per time,
 * numbers as %.17g. */
sp_status sp_export_csv(const cJSON *result, char **csv, size_t *length, sp_input_error *err);

#endif
