/* Status codes shared by every symplan module.
 *
 * The library never prints, aborts or exits: every failure comes back as one of
 * these codes, and sp_status_message() turns it into text for the caller. The list is
 * an X-macro so that the enum and its messages cannot drift apart. */
#ifndef SP_STATUS_H
#define SP_STATUS_H

#define SP_STATUS_LIST(X)                                                                                              \
    X(SP_OK, "ok", "success")                                                                                          \
    X(SP_ERR_NO_CONVERGENCE, "newton_failed", "the implicit solve did not converge")                                   \
    X(SP_ERR_SINGULAR, "singular_matrix", "a linear system was singular")                                              \
    X(SP_ERR_NONFINITE, "non_finite", "a non-finite value appeared")                                                   \
    X(SP_ERR_DOMAIN, "domain_error", "argument outside the domain of the map")                                         \
    X(SP_ERR_CALLBACK, "model_failed", "a model callback reported a failure")                                         \
    X(SP_ERR_STEP_UNDERFLOW, "step_size_underflow", "the adaptive step size underflowed")                             \
    X(SP_ERR_TOO_MANY_STEPS, "too_many_steps", "the cap on the number of steps was reached")                                         \
    X(SP_ERR_NOMEM, "out_of_memory", "memory allocation failed")                                                       \
    X(SP_ERR_INVALID, "invalid_argument", "invalid argument")                                                          \
    X(SP_ERR_IO, "io_error", "input/output failure")                                                                   \
    X(SP_ERR_OPTIMIZER, "optimizer_failed", "the optimiser failed")                                                    \
    X(SP_ERR_INTERRUPTED, "interrupted", "interrupted")

typedef enum {
#define SP_STATUS_ENUM(code, name, message) code,
    SP_STATUS_LIST(SP_STATUS_ENUM)
#undef SP_STATUS_ENUM
} sp_status;

/* Short snake_case name, as written in result files ("newton_failed"). */
const char *sp_status_name(sp_status status);
/* One-line human description. */
const char *sp_status_message(sp_status status);

#endif
