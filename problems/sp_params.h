/* Model parameters as data, in one format for every model family. A model type lists
 * its parameters (params, n_params): each a number or a vector of numbers, with the
 * bounds every number must satisfy and its default. A type may name potentials to
 * choose from, and may add a rule relating parameters where bounds cannot say it. The
 * problem-file reader (problem_readers.h), the writer of a result's settings.params and
 * its reader back (below) all go by the same list, so that what a file may say, what a
 * result records and what a picture rebuilds from it cannot drift apart. */
#ifndef SP_PARAMS_H
#define SP_PARAMS_H

#include <stddef.h>

#include "lie/sp_status.h"

#define SP_PARAM_MAX 4        /* parameters of one model */
#define SP_PARAM_MAX_SIZE 3   /* numbers of one vector parameter */
#define SP_PARAM_MAX_VALUES 8 /* numbers of all the parameters of one model */

/* One end of the interval a parameter's numbers must lie in. */
typedef enum { SP_BOUND_NONE, SP_BOUND_OPEN, SP_BOUND_CLOSED } sp_bound_kind;
typedef struct sp_bound {
    sp_bound_kind kind;
    double at;
} sp_bound;

typedef struct sp_param {
    const char *name;
    int size;                           /* 1: a number; k > 1: a vector of k numbers */
    sp_bound lower, upper;              /* every number must be finite and within both */
    double defaults[SP_PARAM_MAX_SIZE]; /* its first `size` numbers */
} sp_param;

/* The parameter values of a model instance. */
struct sp_custom_model;
typedef struct sp_param_values {
    double value[SP_PARAM_MAX_VALUES]; /* the numbers of the parameters one after another, in list order */
    int potential;                     /* index into the model's potential names (0, the default, if it has none) */
    unsigned given;                    /* bit i: parameter i was written in the problem file */
    /* An expression model's instance (problems/custom/sp_custom_model.h): its parameters
     * and functions live there; NULL for the built-in models. */
    struct sp_custom_model *custom;
} sp_param_values;

/* Whether parameter i was given in the file (else it holds its default). */
static inline int sp_param_given(const sp_param_values *v, size_t i) { return (int)((v->given >> i) & 1u); }

/* A rule the bounds cannot say (one relating two parameters, or a vector's entries):
 * the index of the parameter it refuses, with the reason in why ("must …"), or −1. */
typedef int (*sp_param_check_fn)(const sp_param_values *v, char *why, size_t size);

/* The declared first integrals of a model instance: their names ("p_z", "L3") into
 * names, in the order its values come in; returns how many. */
typedef size_t (*sp_integral_names_fn)(const sp_param_values *v, const char **names);

/* The parameters of a model type, as the readers and the writer below take them. */
typedef struct sp_param_spec {
    const char *model; /* the model's name, for messages */
    const sp_param *params;
    size_t n_params;
    const char *const *potential_names; /* NULL-terminated, the first the default; NULL: no potentials */
    sp_param_check_fn check;            /* NULL: the bounds say it all */
} sp_param_spec;

/* Every family's model type carries the same members (name, params, n_params,
 * potential_names, check_params), so that one view serves them all. */
#define SP_PARAM_SPEC(type)                                                                                            \
    ((sp_param_spec){(type)->name, (type)->params, (type)->n_params, (type)->potential_names, (type)->check_params})

/* Where parameter i's numbers start in sp_param_values.value. */
size_t sp_param_offset(sp_param_spec s, size_t i);
/* The defaults, the first potential, nothing given. */
void sp_params_default(sp_param_spec s, sp_param_values *v);
/* What the bounds ask of a parameter's numbers, as a phrase after "must be": "positive",
 * "non-negative", "in [0, 1)", "at least 2". */
void sp_param_must(const sp_param *p, char *out, size_t size);
/* The bounds of every parameter in list order, then the model's own rule: the index of
 * the first parameter refused, with the reason in why ("must be positive (got 0)"), or −1. */
int sp_params_check(sp_param_spec s, const sp_param_values *v, char *why, size_t size);
/* The index of the potential called `name`, or −1 with the reason in why ("unknown
 * potential 'x' for parking (known: none, cos_bowl)"). */
int sp_param_potential(sp_param_spec s, const char *name, char *why, size_t size);

struct cJSON;
struct sp_input_error;
/* Adds "params" to a result's settings: every parameter (numbers and vectors) and, for a
 * model with potentials, the name of the one chosen. */
void sp_params_add_json(struct cJSON *settings, sp_param_spec s, const sp_param_values *v);
/* Reads a result's settings.params back (defaults for what is absent) and checks it as a
 * problem file's would be, with nothing counted as given (a result records every
 * parameter); SP_ERR_INVALID with err naming settings.params.<name>. */
sp_status sp_params_from_json(const struct cJSON *settings, sp_param_spec s, sp_param_values *v,
                              struct sp_input_error *err);

#endif
