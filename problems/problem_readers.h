/* Readers shared by the problem-file parsers of each model kind. Internal to problems/. */
#ifndef SP_PROBLEM_READERS_H
#define SP_PROBLEM_READERS_H

#include "json_input.h"

/* The optional "optimizer" block, with its defaults. */
int read_optimizer(const json_input *root, sp_optimizer_settings *o);
/* A problem of a vakonomic model (sp_vak_models.h), task and model already read. */
int read_vakonomic(const json_input *root, sp_problem *p);

/* Largest step count accepted. */
#define PROBLEM_MAX_STEPS 100000000L

#endif
