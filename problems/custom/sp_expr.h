/* Expressions of ordinary mathematics over named symbols ("g*(m1*z1 + m2*z2)"), parsed,
 * differentiated symbolically and evaluated by our own engine (expr.c, expr_parse.c,
 * expr_graph.c, expr_diff.c).
 *
 * The language: numbers (1, 2.5, 1e-3), the symbols a model declares, the constants pi
 * and e, + - * / ^ and parentheses, and the functions exp log sqrt sin cos tan cot sec csc
 * asin acos atan acot asec acsc sinh cosh tanh coth sech csch asinh acosh atanh acoth
 * asech acsch abs step delta nandelta erf. ^ binds tighter than unary minus (-2^2 = -4,
 * 2^-1 = 0.5); a^b^c is refused (write (a^b)^c or a^(b^c)). The inverse cofunctions are
 * those of 1/x (acot x = atan(1/x), asec, acsc, acoth, asech, acsch alike); step(x) is 0
 * below 0 and 1 from 0 on; delta(x), its derivative, is +inf at 0 and 0 elsewhere;
 * nandelta(x) is NaN at 0 and 0 elsewhere (the derivative of delta and of itself);
 * abs'(x) = 2 step(x) - 1.
 *
 * An expression and its derivatives share their common subexpressions (every node is
 * made once), and constants are folded as they are made (0*x = 0, 1*x = x, x + 0 = x),
 * so a derivative that is a constant is one, and one that is 0 is known to be 0.
 *
 * An expression reads its symbols' values from one array the caller fills (values[i] is
 * symbol i of the table it was compiled against); evaluation allocates nothing. An
 * expression keeps scratch of its own, so one expression is evaluated by one thread at
 * a time (a problem and everything compiled for it belong to the thread that runs it). */
#ifndef SP_EXPR_H
#define SP_EXPR_H

#include <stddef.h>

#include "lie/sp_status.h"

typedef struct sp_expr sp_expr;

/* The symbols an expression may name, in the order of the values array. When fixed is
 * not NULL, the symbols from first_fixed on hold the values fixed[i] once and for all (a
 * model's parameters): expressions read them as those constants, folded into whatever
 * else is constant, and do not read them as symbols (sp_expr_reads says 0). */
typedef struct sp_expr_symbols {
    int count;
    const char *const *names;
    const double *fixed;
    int first_fixed;
} sp_expr_symbols;

/* The largest expression taken: numbers, names and operators, and depth of parentheses
 * (a bound on the memory and time an expression and its second derivatives take). */
#define SP_EXPR_MAX_TOKENS 300
#define SP_EXPR_MAX_DEPTH 40

/* Parses `text`. On failure returns SP_ERR_INVALID with the reason in why ("names the
 * unknown symbol 'zz' (known: x, y, m)", "has an unexpected ')' at position 7"), or
 * SP_ERR_NOMEM. */
sp_status sp_expr_parse(const char *text, const sp_expr_symbols *symbols, sp_expr **out, char *why, size_t size);
/* The constant c, as an expression (NULL when memory runs out). */
sp_expr *sp_expr_constant(double c);
/* ∂e/∂(symbol i), simplified to a constant where it is one (0 when e does not read the
 * symbol). NULL when memory runs out. */
sp_expr *sp_expr_derivative(const sp_expr *e, const sp_expr_symbols *symbols, int symbol);
void sp_expr_free(sp_expr *e);

/* The value of e at the symbols' values (values[i] is symbol i); allocates nothing. */
double sp_expr_eval(sp_expr *e, const double *values);
/* Whether e is the constant 0 (its derivatives need not be formed or evaluated). */
int sp_expr_is_zero(const sp_expr *e);
/* Whether e reads symbol i. */
int sp_expr_reads(const sp_expr *e, int symbol);

/* The number of instructions an evaluation of e runs, symbols read included (0 for a
 * constant or a lone symbol): for tests, which check that derivatives share their
 * subexpressions. */
int sp_expr_tape_length(const sp_expr *e);

/* Several expressions evaluated as one: their nodes in one graph and one instruction list,
 * so a subexpression they share (cos(phi) in a constraint row and in its derivative) is
 * computed once per evaluation, and the values of all of them come out together, each
 * exactly what sp_expr_eval gives. The members are copied: they may be freed after. NULL
 * when memory runs out. Like an expression, a set keeps scratch of its own. */
typedef struct sp_expr_set sp_expr_set;
sp_expr_set *sp_expr_set_new(sp_expr *const *members, int count);
/* out[i] = member i at values. */
void sp_expr_set_eval(sp_expr_set *s, const double *values, double *out);
/* Its instructions, symbols read included (for tests: what members share is run once). */
int sp_expr_set_tape_length(const sp_expr_set *s);
void sp_expr_set_free(sp_expr_set *s);

/* Whether `name` can name a symbol: an identifier that is no function or constant of
 * the language. */
int sp_expr_valid_symbol(const char *name, char *why, size_t size);

#endif
