/* The tables of the step types by model kind, and what their adapters share (internal to
 * integrators/: the registry of sp_step.h lists these). */
#ifndef SP_STEP_TYPES_H
#define SP_STEP_TYPES_H

#include "integrators/sp_step.h"

typedef struct sp_step_type_list {
    const sp_step_type *types;
    size_t count;
} sp_step_type_list;

extern const sp_step_type_list sp_step_types_hohp, sp_step_types_holonomic, sp_step_types_lie_rattle,
    sp_step_types_prop7, sp_step_types_feedback, sp_step_types_splitting, sp_step_types_index1,
    sp_step_types_nonholonomic, sp_step_types_nh_lie, sp_step_types_explicit, sp_step_types_round_sphere;

/* The Newton options of opt with zero tolerance and iteration cap read as the defaults. */
sp_newton_options sp_step_newton_options(const sp_step_options *opt);
/* Sets the members of a method's own Newton options that opt sets: tolerance and cap
 * (their defaults when zero), warm start and rate stop always, stale_updates when not zero
 * (else the method's own default stays). */
void sp_step_merge_newton(sp_newton_options *newton, const sp_step_options *opt);
/* Adds one step's Newton iterations (and factorisations) to *stats. */
void sp_step_count_newton(sp_step_stats *stats, int iterations, int factorizations);
/* Appends a part to a layout. */
void sp_step_layout_add(sp_step_layout *layout, const char *name, int size, int aux);

#endif
