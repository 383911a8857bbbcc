/* Splitting methods with exact sub-flows. A split system H = H₁ + … + H_k is given by the
 * exact flows φ_i(t) of its parts; a method is data: the sequence of (part, fraction of h)
 * applied in order — "lie_trotter" φ₂(h) ∘ φ₁(h), order 1; "strang"
 * φ₂(h/2) ∘ φ₁(h) ∘ φ₂(h/2), order 2, symmetric. Compositions of exact Hamiltonian flows
 * are symplectic and keep every invariant all sub-flows keep. The exact flows of the
 * spherical pendulum (a great-circle rotation and a tangential kick, both on T*S²) are
 * below; their formulas are in docs/methods.md §5.9. */
#ifndef SP_SPLITTING_H
#define SP_SPLITTING_H

#include <stddef.h>

#include "lie/sp_status.h"

#define SP_SPLIT_MAX_PARTS 4

/* The exact flow of one part for time t, in place on the state z. Returns 0 on success. */
typedef int (*sp_split_flow)(double t, double *z, void *params);

typedef struct sp_split_system {
    int dim;
    int parts;
    sp_split_flow flow[SP_SPLIT_MAX_PARTS];
    void *params;
} sp_split_system;

typedef struct sp_splitting_method {
    const char *name;
    int order;
    int stages;
    const int *part;        /* which part each stage flows (0-based), in order of application */
    const double *fraction; /* its time as a fraction of h */
} sp_splitting_method;

const sp_splitting_method *sp_splitting_method_by_name(const char *name);
const sp_splitting_method *sp_splitting_method_at(size_t i); /* NULL past the end */

/* One step of size h (any sign), in place. SP_ERR_INVALID for a method that uses a part
 * the system lacks; SP_ERR_CALLBACK when a flow fails; SP_ERR_NONFINITE for a non-finite
 * result. On failure z may hold a partially advanced state: keep a copy to retry. */
sp_status sp_splitting_step(const sp_splitting_method *method, const sp_split_system *sys, double h, double *z);

/* Spherical pendulum, z = (q, p) ∈ R⁶. Flows return non-zero for m, l ≤ 0. */
typedef struct sp_spherical_pendulum {
    double m, g, l;
} sp_spherical_pendulum;

int sp_spherical_pendulum_flow_kinetic(double t, double *z, void *params); /* H₁, params: sp_spherical_pendulum */
int sp_spherical_pendulum_flow_gravity(double t, double *z, void *params); /* H₂ */
/* {6, 2, {kinetic, gravity}, pendulum}: part 0 is H₁, part 1 is H₂. Borrows the pendulum. */
sp_split_system sp_spherical_pendulum_split(const sp_spherical_pendulum *pendulum);

#endif
