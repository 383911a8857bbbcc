/* Readers shared by the problem files of every model family (problem_readers.c), below
 * the families that use them. Internal to problems/. */
#ifndef SP_PROBLEM_READERS_H
#define SP_PROBLEM_READERS_H

#include "problems/json_input.h"

/* The optional "optimizer" block over sp_optimizer_defaults. */
int read_optimizer(const json_input *root, sp_optimizer_settings *o);
/* A 3 x 3 rotation matrix (|RᵀR − I| ≤ 1e-6, det R > 0), rounded onto SO(3), or a unit
 * quaternion; a quaternion alone. Quaternions are written [w, x, y, z] (xyzw 0) or
 * [x, y, z, w] (xyzw 1: a cubic-spline plan's "quaternion_order": "xyzw"). */
/* json_vector for a state of n coordinates named `names` (NULL: unnamed): a wrong count
 * says which numbers go where ("must be an array of 3 numbers, one per coordinate: x, y,
 * z"). */
int json_coordinates(const json_input *in, const char *key, int required, int n, const char *const *names, double *out);

/* How a file writes its rotations (flags of json_rotation and json_quaternion): quaternions
 * in order xyzw (else wxyz); any non-zero quaternion taken as its direction (else its norm
 * must be within 1e-2 of 1); any matrix of positive determinant projected onto the
 * nearest rotation (else it must be a rotation to 1e-4). */
enum { SP_ROTATION_XYZW = 1, SP_ROTATION_NORMALIZE = 2, SP_ROTATION_ORTHONORMALIZE = 4 };

int json_rotation(const json_input *in, const char *key, int required, int format, double *R);
int json_quaternion(const json_input *in, const char *key, int required, int format, double *R);
/* The length of a run: "steps", or for a simulate task "error_tolerance" (the global
 * error at T the planner chooses the fixed step for), never both. */
int read_steps(const json_input *root, sp_problem *p);
/* The horizon of a run of p->steps steps: "T", or the step "h", or both when they agree;
 * when neither is there the error names `missing_key`. A run chosen by error_tolerance
 * takes T alone (its step is the planner's to choose). */
int read_horizon(const json_input *root, sp_problem *p, const char *missing_key);
/* The optional "solver" of the nonholonomic models into p->stage_solver: newton or
 * simplified_newton; of the vakonomic models (Gauss steps), any sp_stage_solver_at names. */
int read_stage_solver(const json_input *root, sp_problem *p);
int read_gauss_stage_solver(const json_input *root, sp_problem *p);
/* The optional "record_every" into p->record_every (sp_problem_defaults: 1). */
int read_record_every(const json_input *root, sp_problem *p);
/* The optional "params" of a model: {"L": 0.3, "J": [2, 3, 4], "potential": "cos_bowl"}
 * with no other members, defaults for what is absent, checked (sp_params_check) with
 * the error at params.<name>; v->given says which parameters the file wrote. */
int read_params(const json_input *root, sp_param_spec s, sp_param_values *v);

/* Largest step count a file may name; the resource limit (sp_limits.h, 10^7 by default)
 * is checked once the problem has been read. */
#define PROBLEM_MAX_STEPS 1000000000L

#endif
