/* Vakonomic (sub-Riemannian) models known by name: their configuration, constraints,
 * potentials and declared first integrals. Each is a constant table; a problem holds
 * the parameter values, and sp_vak_model_bind() turns both into the callback model
 * the integrators take. */
#ifndef SP_VAK_MODELS_H
#define SP_VAK_MODELS_H

#include <stddef.h>

#include "integrators/sp_vakonomic.h"
#include "problems/sp_params.h"

#define SP_VAK_MAX_INTEGRALS 4

/* The parameter values of an instance (sp_param_values) hold its potential: an index
 * into the type's potential_names. */
typedef struct sp_vak_model_type {
    const char *name, *description;
    int n, m;
    const char *const *coordinates; /* n names, e.g. "x", "y", "theta", "phi" */
    const sp_param *params;
    size_t n_params;
    const char *const *potential_names; /* NULL-terminated; the first is the default */
    sp_param_check_fn check_params;     /* NULL: the bounds say it all */

    void (*mass)(const sp_param_values *prm, double *mass);
    int (*potential)(const double *q, double *V, double *grad, double *hess, void *params);
    int (*constraints)(const double *q, double *G, double *dG, double *d2G, void *params);
    /* The first integrals this instance has (which may depend on its potential): their
     * names, and their values at (q, p) into out; each returns how many. */
    sp_integral_names_fn integral_names;
    size_t (*integrals)(const double *q, const double *p, const sp_param_values *prm, double *out);
} sp_vak_model_type;

extern const sp_vak_model_type sp_vak_heisenberg;
extern const sp_vak_model_type sp_vak_parking;

const sp_vak_model_type *sp_vak_model_by_name(const char *name);
const sp_vak_model_type *sp_vak_model_at(size_t i);

/* The callback model of a type with parameters `prm`; mass must hold n doubles and,
 * like prm, outlive the model. */
void sp_vak_model_bind(const sp_vak_model_type *type, const sp_param_values *prm, double *mass,
                       sp_vakonomic_model *model);

#endif
