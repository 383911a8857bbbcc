/* The constant mass matrix of a holonomic model (sp_holonomic.h) as the steppers use it:
 * a diagonal M by its reciprocals, a full symmetric positive definite M by itself and its
 * inverse, checked and inverted once through its Cholesky factor. Shared by the RATTLE
 * family and the Lobatto IIIA–IIIB stage solver. Internal. */
#ifndef SP_HOL_MASS_H
#define SP_HOL_MASS_H

#include "integrators/sp_holonomic.h"

typedef struct sp_hol_mass {
    int n;
    int full;                  /* a full M: M and Minv hold it; else minv */
    double minv[SP_HOL_MAX_N]; /* a diagonal M: 1/M_ii */
    double M[SP_HOL_MAX_N * SP_HOL_MAX_N], Minv[SP_HOL_MAX_N * SP_HOL_MAX_N];
} sp_hol_mass;

/* 0 when the model's mass is missing, not positive or not symmetric positive definite. */
int sp_hol_mass_init(sp_hol_mass *mass, const sp_holonomic_model *model);
/* out = M⁻¹x (out may not alias x). */
void sp_hol_mass_apply_inverse(const sp_hol_mass *mass, const double *x, double *out);

#endif
