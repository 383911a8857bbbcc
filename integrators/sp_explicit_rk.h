/* Explicit Runge–Kutta methods for an autonomous ODE ẏ = F(y), with the Butcher tables of
 * sp_tableau.h loaded by name:
 *
 *   "euler"   explicit Euler, fixed steps, order 1;
 *   "rk4"     the classical 4-stage method, fixed steps, order 4;
 *   "dop853"  Dormand–Prince 8(5,3) with Hairer's error norm (order-5 and order-3
 *             estimators) and step-size control (Hairer, Nørsett & Wanner, Solving ODEs I,
 *             §II.4 and §II.10; the control of Hairer's dop853.f). Fixed steps use its
 *             order-8 solution.
 *
 * The model is a callback plus its dimension and parameters. The callback returns 0 on
 * success, > 0 for a recoverable failure (for example a trial point outside the domain of
 * F: the adaptive driver rejects the step and retries with a smaller one) and < 0 for a
 * fatal one. Every failure comes back as a status; a failed step leaves y untouched (so
 * sp_erk_integrate stops at the last accepted state and tells where):
 *
 *   SP_ERR_CALLBACK        the callback failed (fatal, or recoverable in a fixed step);
 *   SP_ERR_NONFINITE       a stage or the new state is not finite;
 *   SP_ERR_STEP_UNDERFLOW  the step-size control failed: the step size underflowed
 *                          (0.1|h| ≤ ε|t|, Hairer's test) while the error stayed too large;
 *   SP_ERR_TOO_MANY_STEPS  the cap on the number of steps was reached before t1;
 *   SP_ERR_INVALID         bad arguments (tolerances, directions, a method without an
 *                          error estimator asked to adapt).
 * sp_erk_stop() tells which of these stopped the last call, in the module's own terms.
 *
 * All memory is allocated in sp_erk_alloc. The stepper remembers F at the last point it
 * evaluated, so that the first stage of the next step is free when the caller passes the
 * same y back (first-same-as-last for DOP853); sp_erk_reset() forgets it (call it after
 * changing the model's parameters). */
#ifndef SP_EXPLICIT_RK_H
#define SP_EXPLICIT_RK_H

#include "integrators/sp_tableau.h"

typedef int (*sp_ode_fn)(const double *y, double *dy, void *params);

typedef struct sp_ode_system {
    sp_ode_fn function;
    int dim;
    void *params;
} sp_ode_system;

/* Step-size control of the adaptive driver (Hairer's names in brackets). */
typedef struct sp_erk_control {
    double rtol, atol; /* sk_i = atol + rtol max(|y_i|, |y1_i|); both ≥ 0, not both 0 */
    double safety;     /* [safe] 0.9 */
    double fac_min;    /* [fac1] smallest h_new / h, 0.333 */
    double fac_max;    /* [fac2] largest h_new / h, 6 */
    double beta;       /* [beta] Lund stabilisation exponent, 0 (off) */
    double h_init;     /* first step; 0: Hairer's starting-step estimate */
    double h_max;      /* largest |h|; 0: |t1 − t0| */
    long max_steps;    /* [nmax] cap on attempted steps per sp_erk_integrate call, 100000 */
} sp_erk_control;

/* Hairer's defaults with rtol = 1e-6, atol = 1e-9. */
sp_erk_control sp_erk_control_default(void);

typedef enum {
    SP_ERK_DONE,           /* the last call succeeded */
    SP_ERK_CALLBACK,       /* the model's callback failed */
    SP_ERK_NONFINITE,      /* a non-finite stage or state */
    SP_ERK_STEP_UNDERFLOW, /* the step size became negligible */
    SP_ERK_MAX_STEPS,      /* too many steps */
    SP_ERK_BAD_ARGUMENT    /* invalid arguments */
} sp_erk_stop_reason;

const char *sp_erk_stop_name(sp_erk_stop_reason r); /* "done", "callback", … "too_many_steps" */

typedef struct sp_erk_stats {
    long evaluations; /* calls of F, all counted */
    long steps;       /* attempted steps (accepted + rejected; fixed steps count here too) */
    long accepted;
    long rejected; /* by the error test or by a recoverable callback failure */
    double h_last; /* size of the last accepted step */
} sp_erk_stats;

typedef struct sp_erk sp_erk;

/* NULL for an unknown method, an invalid system (no function, dim < 1) or out of memory.
 * Copies the system (the params pointer is borrowed). */
sp_erk *sp_erk_alloc(const char *method, const sp_ode_system *system);
void sp_erk_free(sp_erk *s);
const sp_tableau_explicit *sp_erk_tableau(const sp_erk *s);
int sp_erk_adaptive(const sp_erk *s); /* 1 when the table has an error estimator */
void sp_erk_reset(sp_erk *s);         /* forget the cached F(y) */
sp_erk_stats sp_erk_get_stats(const sp_erk *s);
void sp_erk_reset_stats(sp_erk *s);
sp_erk_stop_reason sp_erk_stop(const sp_erk *s);

/* One step of size h (any sign) with the table's main solution, in place on y. */
sp_status sp_erk_step(sp_erk *s, double h, double *y);
/* N fixed steps of size (t1 − t0)/N. */
sp_status sp_erk_fixed(sp_erk *s, double t0, double t1, long N, double *y);

/* One accepted adaptive step from *t towards t1 (never beyond), GSL's evolve_apply: *h
 * is the proposed step on entry (0: the starting-step estimate) and the proposal for the
 * next step on return; *t and y advance. Rejected attempts are retried inside, at most
 * ctl->max_steps of them. */
sp_status sp_erk_evolve(sp_erk *s, const sp_erk_control *ctl, double *t, double t1, double *h, double *y);
/* Adaptive integration from *t to t1 (either direction), y in place; *t is t1 on success
 * and the time of the last accepted step on failure. The step cap counts every attempt. */
sp_status sp_erk_integrate(sp_erk *s, const sp_erk_control *ctl, double *t, double t1, double *y);

#endif
