/* Runge–Kutta coefficient tables, loaded by family name and number of stages.
 *
 *  "gauss"        Gauss–Legendre collocation, s = 1…6, order 2s (symplectic). Computed
 *                 in extended precision from the Legendre nodes and rounded once, so
 *                 every coefficient is correct to round-off.
 *  "lobatto_iiia" Lobatto IIIA, s = 2…4, order 2s − 2.
 *  "lobatto_iiib" Lobatto IIIB, s = 2…4 (the partner of IIIA; same b and c).
 */
#ifndef SP_TABLEAU_H
#define SP_TABLEAU_H

#include "../lie/sp_status.h"

#define SP_TABLEAU_MAX_STAGES 6

typedef struct sp_tableau {
    const char *family;
    int stages;
    int order;
    double A[SP_TABLEAU_MAX_STAGES][SP_TABLEAU_MAX_STAGES];
    double b[SP_TABLEAU_MAX_STAGES];
    double c[SP_TABLEAU_MAX_STAGES];
} sp_tableau;

/* Fills *t; SP_ERR_INVALID for an unknown family or a number of stages it lacks. */
sp_status sp_tableau_get(const char *family, int stages, sp_tableau *t);

#endif
