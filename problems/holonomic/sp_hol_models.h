/* Mechanical systems with holonomic constraints known by name: the spherical and planar
 * pendulum, the heavy top (the free rigid body when mgl = 0) and the S³ contact example
 * of Prop. 7, with the schemes each one runs with, their parameters and the quantities a
 * run watches. Each type is a constant table; a problem holds the parameter values, and
 * sp_hol_model_bind() turns both into the callback models the integrators take
 * (sp_holonomic.h, sp_lie_rattle.h, sp_prop7.h, sp_feedback.h, sp_splitting.h).
 *
 * States are (q, p) ∈ R²ⁿ for every model; the heavy top's is the matrix form
 * (Q, P) ∈ R⁹ x R⁹ of sp_rigid_body.h (its Lie-group form (R, μ) embeds into it). */
#ifndef SP_HOL_MODELS_H
#define SP_HOL_MODELS_H

#include <stddef.h>

#include "problems/holonomic/sp_rigid_body.h"
#include "problems/holonomic/sp_s3_contact.h"
#include "integrators/sp_feedback.h"
#include "integrators/sp_splitting.h"
#include "problems/sp_params.h"

#define SP_HOL_MAX_INTEGRALS 4
#define SP_HOL_MAX_MONITORS 2

/* Scheme families; a model accepts a set of them. */
typedef enum {
    SP_HOL_FAMILY_CONSTRAINED = 1, /* sp_holonomic.h: se_a … rattle_tj6 */
    SP_HOL_FAMILY_FEEDBACK = 2,    /* sp_feedback.h on sp_explicit_rk.h */
    SP_HOL_FAMILY_SPLITTING = 4,   /* sp_splitting.h with exact flows */
    SP_HOL_FAMILY_LIE = 8,         /* sp_lie_rattle.h on SO(3) */
    SP_HOL_FAMILY_PROP7 = 16       /* sp_prop7.h */
} sp_hol_family;

typedef struct sp_hol_scheme {
    const char *name;
    sp_hol_family family;
    int order;
    const char *method; /* the integrator's own name: holonomic method, explicit RK table, splitting */
    int implicit;       /* takes solver_tol */
    int one_step;       /* a one-step map (SHAKE is not): has a symplecticity defect */
    const char *description;
} sp_hol_scheme;

const sp_hol_scheme *sp_hol_scheme_by_name(const char *name);
const sp_hol_scheme *sp_hol_scheme_at(size_t i);

typedef enum {
    SP_HOL_INITIAL_QP,      /* the file gives q0 and p0 */
    SP_HOL_INITIAL_ROTATION /* the file gives R0 and omega0 (heavy top) */
} sp_hol_initial;

typedef struct sp_hol_model_type {
    const char *name, *description;
    int n;                          /* coordinates of q and of p */
    const char *const *coordinates; /* n names, or NULL (matrix entries q_11 … q_33) */
    const sp_param *params;
    size_t n_params;
    const char *const *potential_names; /* NULL-terminated; the first is the default */
    sp_param_check_fn check_params;     /* relates J's entries (heavy_top), c4 and the potential (s3_contact) */
    unsigned families;                  /* the sp_hol_family values it runs with */
    sp_hol_initial initial;
    const char *const *monitor_names;  /* NULL-terminated: quantities that vanish on T*Q, as "<name>_drift" */
    const char *const *monitor_labels; /* their names in pictures */
    /* The declared first integrals (as sp_hol_values_at computes them). */
    sp_integral_names_fn integral_names;
} sp_hol_model_type;

extern const sp_hol_model_type sp_hol_spherical_pendulum;
extern const sp_hol_model_type sp_hol_planar_pendulum;
extern const sp_hol_model_type sp_hol_heavy_top;
extern const sp_hol_model_type sp_hol_s3_contact;

const sp_hol_model_type *sp_hol_model_by_name(const char *name);
const sp_hol_model_type *sp_hol_model_at(size_t i);
/* Whether the model runs with the scheme. */
int sp_hol_model_accepts(const sp_hol_model_type *type, const sp_hol_scheme *scheme);

/* A model bound to its parameter values: the callback models of the families it runs
 * with. The models point into the struct, so it must not be moved or copied after
 * sp_hol_model_bind (keep it where it was bound). */
typedef struct sp_hol_bound {
    const sp_hol_model_type *type;
    sp_param_values prm;
    double mass[SP_HOL_MAX_N];
    sp_holonomic_model holonomic;   /* every model but s3_contact */
    sp_lie_rattle_model lie;        /* heavy_top */
    sp_prop7_model prop7;           /* s3_contact */
    sp_spherical_pendulum pendulum; /* spherical_pendulum (its exact flows) */
    sp_heavy_top top;
    sp_s3_contact s3;
    sp_feedback_gains scales; /* the V_fb normalisation of sp_feedback.h (g_scale, hidden_scale) */
    int has_integral;         /* an integral for the feedback gain k4 (L₃) */
    sp_first_integral integral;
} sp_hol_bound;

/* SP_ERR_INVALID for parameters the model refuses. */
sp_status sp_hol_model_bind(const sp_hol_model_type *type, const sp_param_values *prm, sp_hol_bound *b);

/* What a run watches at a state (q, p): the energy H (Ĥ for s3_contact), the constraint
 * max |g(q)| and the hidden constraint max |G(q)M⁻¹p| (Dh H_p for s3_contact), the
 * monitors (quantities that vanish on T*Q: |q|² − l² and q·p for the pendulums) and the
 * declared first integrals (L₃; the vertical angular momentum tr(Pᵀê₃Q), and for the
 * free body the other two spatial components; λ for the Hopf-invariant S³ potential). */
typedef struct sp_hol_values {
    double energy, constraint, hidden;
    size_t n_monitors, n_integrals;
    double monitor[SP_HOL_MAX_MONITORS], integral[SP_HOL_MAX_INTEGRALS];
    double lambda; /* s3_contact: the contact multiplier λ(q, p); 0 otherwise */
} sp_hol_values;

/* Every value above at (q, p) into *v; a non-OK status when the model fails there. */
sp_status sp_hol_values_at(const sp_hol_bound *b, const double *q, const double *p, sp_hol_values *v);

/* DC (2m x 2n) of the constraint manifold T*Q at (q, p), for the symplecticity defect;
 * *rows receives 2m. */
sp_status sp_hol_manifold_jacobian(const sp_hol_bound *b, const double *q, const double *p, double *DC, int *rows);

/* Distances of (q, p) from T*Q, as the reader checks them: |g(q)| relative to the
 * model's scale and |G M⁻¹p| relative to |p|. */
sp_status sp_hol_off_manifold(const sp_hol_bound *b, const double *q, const double *p, double *position,
                              double *momentum);
/* Puts (q, p) onto T*Q (radially for the pendulums and S³, then the momentum onto the
 * tangent space); SP_ERR_DOMAIN at q = 0. Not for the heavy top (its states come from R0, ω0). */
sp_status sp_hol_project(const sp_hol_bound *b, double *q, double *p);

#endif
