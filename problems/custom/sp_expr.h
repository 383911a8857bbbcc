/* Expressions of ordinary mathematics over named symbols ("g*(m1*z1 + m2*z2)"), parsed,
 * differentiated symbolically and evaluated by GNU libmatheval.
 *
 * The language: numbers (1, 2.5, 1e-3), the symbols a model declares, the constants pi
 * and e, + - * / ^ and parentheses, and the functions exp log sqrt sin cos tan cot sec csc
 * asin acos atan acot asec acsc sinh cosh tanh coth sech csch asinh acosh atanh acoth
 * asech acsch abs step delta nandelta erf.
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

/* The symbols an expression may name, in the order of the values array. */
typedef struct sp_expr_symbols {
    int count;
    const char *const *names;
} sp_expr_symbols;

/* The largest expression taken: numbers, names and operators, and depth of parentheses
 * (their derivatives grow about as the cube of the size; see expr.c). */
#define SP_EXPR_MAX_TOKENS 300
#define SP_EXPR_MAX_DEPTH 40

/* Parses `text`. On failure returns SP_ERR_INVALID with the reason in why ("names the
 * unknown symbol 'zz' (known: x, y, m)", "has an unexpected ')' at position 7"), or
 * SP_ERR_NOMEM. */
sp_status sp_expr_parse(const char *text, const sp_expr_symbols *symbols, sp_expr **out, char *why, size_t size);
/* The constant c, as an expression. */
sp_expr *sp_expr_constant(double c);
/* ∂e/∂(symbol i), simplified to a constant where it is one (0 when e does not read the
 * symbol). NULL when memory runs out. */
sp_expr *sp_expr_derivative(const sp_expr *e, const sp_expr_symbols *symbols, int symbol);
void sp_expr_free(sp_expr *e);

double sp_expr_eval(sp_expr *e, const double *values);
/* Whether e is the constant 0 (its derivatives need not be formed or evaluated). */
int sp_expr_is_zero(const sp_expr *e);
/* Whether e reads symbol i. */
int sp_expr_reads(const sp_expr *e, int symbol);

/* Whether `name` can name a symbol: an identifier that is no function or constant of
 * the language. */
int sp_expr_valid_symbol(const char *name, char *why, size_t size);

#endif
