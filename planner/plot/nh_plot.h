/* The invariants of a nonholonomic result recomputed from its trajectory, for the pictures
 * of plot.c: |H − H0|, |I − I0| for each declared first integral besides the energy, and
 * the constraint |Ψ(q, p)| (vector spaces, from q and p); |E − E0|, |⟨α(g), 𝕁⁻¹μ⟩| and
 * the distance from the group (Lie groups, from g and mu); the model bound to the result's
 * settings.params. Internal to planner/. */
#ifndef SP_NH_PLOT_H
#define SP_NH_PLOT_H

#include <cjson/cJSON.h>

#include "planner/plot/result_view.h"

/* Whether `model` names a nonholonomic model; and whether its first two coordinates of q
 * are a position in the plane (knife edge, rolling disk, the sleighs). */
int sp_nh_plot_knows(const char *model);
int sp_nh_plot_planar(const char *model);

/* Adds one series of `rows` values, named `name`, and returns where to write them (NULL
 * when out of memory or out of room). */
typedef double *(*sp_drift_add_fn)(void *ctx, const char *name, int rows);

sp_status sp_nh_plot_drift(const cJSON *root, const char *model, const sp_traj *tr, sp_drift_add_fn add, void *ctx,
                           sp_input_error *err);

#endif
