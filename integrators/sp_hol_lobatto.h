/* Lobatto IIIA–IIIB for mechanical systems with holonomic constraints (Jay 1996): the
 * stage solver behind the methods lobatto3, lobatto4 and lobatto5 of sp_holonomic.h, for
 * H = ½pᵀM⁻¹p + V(q), g(q) = 0, M constant. Symmetric, symplectic on T*Q, order 2s − 2;
 * g = 0 and G M⁻¹p = 0 kept to the solver tolerance. The condensed stage equations, the
 * Newton matrix and the warm start are in docs/methods.md §5.4a.
 * The solver borrows the model and owns its work space; failures come back as a status with
 * (q, p) untouched. */
#ifndef SP_HOL_LOBATTO_H
#define SP_HOL_LOBATTO_H

#include "integrators/sp_holonomic.h"

#define SP_HOL_LOBATTO_MAX_STAGES 5

typedef struct sp_hol_lobatto sp_hol_lobatto;

/* s = 2..5 stages (order 2s − 2); borrows the model, whose sizes and masses
 * sp_holonomic_alloc checks (positive definiteness of a full M included). NULL for
 * another s, sizes out of range, a missing, non-positive or singular mass, or out of memory. */
sp_hol_lobatto *sp_hol_lobatto_alloc(const sp_holonomic_model *model, int stages);
void sp_hol_lobatto_free(sp_hol_lobatto *L); /* NULL is a no-op */
/* Forgets the last step: the next starts from its own data only. */
void sp_hol_lobatto_reset(sp_hol_lobatto *L);

/* One step of size h (finite, non-zero, either sign) in place on (q, p), with the Newton
 * options opt; *iterations (may be NULL) gets the Newton iterations it took. */
sp_status sp_hol_lobatto_step(sp_hol_lobatto *L, double h, double *q, double *p, const sp_newton_options *opt,
                              int *iterations);

#endif
