/* Vakonomic (sub-Riemannian) models known by name: their configuration, constraints,
 * potentials and declared first integrals. Each is a constant table; a problem holds
 * the parameter values, and sp_vak_model_bind() turns both into the callback model
 * the integrators take. */
#ifndef SP_VAK_MODELS_H
#define SP_VAK_MODELS_H

#include <stddef.h>

#include "integrators/sp_vakonomic.h"

#define SP_VAK_MAX_PARAMS 4
#define SP_VAK_MAX_INTEGRALS 4

/* Parameter values of a model instance (in the order of the type's param_names) and
 * the index of its potential in the type's potential_names. */
typedef struct sp_vak_params {
    double value[SP_VAK_MAX_PARAMS];
    int potential;
} sp_vak_params;

typedef struct sp_vak_model_type {
    const char *name, *description;
    int n, m;
    const char *const *coordinates; /* n names, e.g. "x", "y", "theta", "phi" */
    size_t n_params;
    const char *const *param_names;
    const double *param_defaults;
    const char *const *potential_names; /* NULL-terminated; the first is the default */

    /* Checks parameter values; returns the index of the first bad one, or −1. */
    int (*check_params)(const sp_vak_params *prm);
    void (*mass)(const sp_vak_params *prm, double *mass);
    int (*potential)(const double *q, double *V, double *grad, double *hess, void *params);
    int (*constraints)(const double *q, double *G, double *dG, double *d2G, void *params);
    /* The first integrals this instance has (which may depend on its potential): their
     * values into out and, when names is not NULL, their names ("p_z"); returns how many. */
    size_t (*integrals)(const double *q, const double *p, const sp_vak_params *prm, double *out, const char **names);
} sp_vak_model_type;

extern const sp_vak_model_type sp_vak_heisenberg;
extern const sp_vak_model_type sp_vak_parking;

const sp_vak_model_type *sp_vak_model_by_name(const char *name);
const sp_vak_model_type *sp_vak_model_at(size_t i);

/* The callback model of a type with parameters `prm`; mass must hold n doubles and,
 * like prm, outlive the model. */
void sp_vak_model_bind(const sp_vak_model_type *type, const sp_vak_params *prm, double *mass,
                       sp_vakonomic_model *model);

#endif
