/* Readers shared by the problem-file parsers of each model kind. Internal to problems/. */
#ifndef SP_PROBLEM_READERS_H
#define SP_PROBLEM_READERS_H

#include "problems/json_input.h"

/* The optional "optimizer" block, with its defaults. */
int read_optimizer(const json_input *root, sp_optimizer_settings *o);
/* A problem of a vakonomic model (sp_vak_models.h), task and model already read. */
int read_vakonomic(const json_input *root, sp_problem *p);

/* A simulation of a holonomic model (sp_hol_models.h), task and model already read. */
int read_holonomic(const json_input *root, sp_problem *p);
/* A simulation of a nonholonomic model (sp_nh_problem.h), task and model already read. */
int read_nonholonomic(const json_input *root, sp_problem *p);
/* A 3 x 3 rotation matrix (|RᵀR − I| ≤ 1e-6, det R > 0), rounded onto SO(3). */
int json_rotation(const json_input *in, const char *key, int required, double *R);
int json_quaternion(const json_input *in, const char *key, int required, double *R);

/* Largest step count a file may name; the resource limit (sp_limits.h, 10^7 by default)
 * is checked once the problem has been read. */
#define PROBLEM_MAX_STEPS 1000000000L

#endif
