/* Symbolic derivatives on the node graph (expr_graph.h).
 *
 * One pass over the nodes in their (topological) order gives every node its derivative
 * from its operands' derivatives, each computed once: a subexpression used many times is
 * differentiated once, and the derivative's nodes reuse the expression's own (d exp(u) =
 * exp(u)·du takes the node exp(u) itself), so a derivative is a few nodes per node of
 * its expression whatever the expression's shape. The constructors fold constants, so a
 * derivative that is a constant comes out as one node. */
#include <math.h>
#include <stdlib.h>

#include "problems/custom/expr_graph.h"

/* The derivative of f(u) with respect to u, at node n = f(u). */
static int function_slope(expr_graph *g, int f, int n, int u)
{
    const int one = expr_const(g, 1.0);
    const int u2 = expr_pow(g, u, expr_const(g, 2.0));
    switch (f) {
    case EXPR_EXP: return n;
    case EXPR_LOG: return expr_div(g, one, u);
    case EXPR_SQRT: return expr_div(g, expr_const(g, 0.5), n);
    case EXPR_SIN: return expr_call(g, EXPR_COS, u);
    case EXPR_COS: return expr_neg(g, expr_call(g, EXPR_SIN, u));
    case EXPR_TAN: return expr_add(g, one, expr_pow(g, n, expr_const(g, 2.0)));
    case EXPR_COT: return expr_neg(g, expr_add(g, one, expr_pow(g, n, expr_const(g, 2.0))));
    case EXPR_SEC: return expr_mul(g, n, expr_call(g, EXPR_TAN, u));
    case EXPR_CSC: return expr_neg(g, expr_mul(g, n, expr_call(g, EXPR_COT, u)));
    case EXPR_ASIN: return expr_div(g, one, expr_call(g, EXPR_SQRT, expr_sub(g, one, u2)));
    case EXPR_ACOS: return expr_neg(g, expr_div(g, one, expr_call(g, EXPR_SQRT, expr_sub(g, one, u2))));
    case EXPR_ATAN: return expr_div(g, one, expr_add(g, one, u2));
    case EXPR_ACOT: return expr_neg(g, expr_div(g, one, expr_add(g, one, u2)));
    case EXPR_ASEC:
        return expr_div(g, one, expr_mul(g, expr_call(g, EXPR_ABS, u), expr_call(g, EXPR_SQRT, expr_sub(g, u2, one))));
    case EXPR_ACSC:
        return expr_neg(g, expr_div(g, one, expr_mul(g, expr_call(g, EXPR_ABS, u),
                                                     expr_call(g, EXPR_SQRT, expr_sub(g, u2, one)))));
    case EXPR_SINH: return expr_call(g, EXPR_COSH, u);
    case EXPR_COSH: return expr_call(g, EXPR_SINH, u);
    case EXPR_TANH: /* (tanh)' = 1 - tanh², and (coth)' = -csch² = 1 - coth² */
    case EXPR_COTH: return expr_sub(g, one, expr_pow(g, n, expr_const(g, 2.0)));
    case EXPR_SECH: return expr_neg(g, expr_mul(g, n, expr_call(g, EXPR_TANH, u)));
    case EXPR_CSCH: return expr_neg(g, expr_mul(g, n, expr_call(g, EXPR_COTH, u)));
    case EXPR_ASINH: return expr_div(g, one, expr_call(g, EXPR_SQRT, expr_add(g, u2, one)));
    case EXPR_ACOSH: return expr_div(g, one, expr_call(g, EXPR_SQRT, expr_sub(g, u2, one)));
    case EXPR_ATANH: /* acoth u = atanh(1/u) has the same derivative, 1/(1 - u²) */
    case EXPR_ACOTH: return expr_div(g, one, expr_sub(g, one, u2));
    case EXPR_ASECH:
        return expr_neg(g, expr_div(g, one, expr_mul(g, u, expr_call(g, EXPR_SQRT, expr_sub(g, one, u2)))));
    case EXPR_ACSCH:
        return expr_neg(g, expr_div(g, one, expr_mul(g, expr_call(g, EXPR_ABS, u),
                                                     expr_call(g, EXPR_SQRT, expr_add(g, one, u2)))));
    /* |u|' = 2 step(u) - 1: 1 at 0, as step(0) = 1 */
    case EXPR_ABS: return expr_sub(g, expr_mul(g, expr_const(g, 2.0), expr_call(g, EXPR_STEP, u)), one);
    case EXPR_STEP: return expr_call(g, EXPR_DELTA, u);
    case EXPR_DELTA:
    case EXPR_NANDELTA: return expr_call(g, EXPR_NANDELTA, u);
    case EXPR_ERF:
        return expr_mul(g, expr_const(g, 2.0 / sqrt(acos(-1.0))), expr_call(g, EXPR_EXP, expr_neg(g, u2)));
    default: return -1;
    }
}

/* d(a^b) at node n = a^b, from da and db. */
static int power_slope(expr_graph *g, int n, int a, int b, int da, int db)
{
    const int zero_db = expr_is_const(g, db, 0.0);
    if (zero_db) /* b · a^(b-1) · da */
        return expr_mul(g, expr_mul(g, b, expr_pow(g, a, expr_sub(g, b, expr_const(g, 1.0)))), da);
    const int log_a = expr_call(g, EXPR_LOG, a);
    if (expr_is_const(g, da, 0.0)) return expr_mul(g, expr_mul(g, n, log_a), db);
    return expr_mul(g, n, expr_add(g, expr_mul(g, db, log_a), expr_div(g, expr_mul(g, b, da), a)));
}

/* The derivative of node i, its operands' derivatives in d. */
static int node_derivative(expr_graph *g, int i, int symbol, const int *d)
{
    if (g->failed) return -1; /* (then an operand's derivative may be -1, no node to look at) */
    const expr_node n = g->nodes[i]; /* a copy: constructions below may move the array */
    switch (n.op) {
    case EXPR_CONST: return expr_const(g, 0.0);
    case EXPR_SYM: return expr_const(g, n.a == symbol ? 1.0 : 0.0);
    case EXPR_NEG: return expr_neg(g, d[n.a]);
    case EXPR_ADD: return expr_add(g, d[n.a], d[n.b]);
    case EXPR_SUB: return expr_sub(g, d[n.a], d[n.b]);
    case EXPR_MUL: return expr_add(g, expr_mul(g, d[n.a], n.b), expr_mul(g, n.a, d[n.b]));
    case EXPR_DIV: /* (da - (a/b)·db)/b, reusing the quotient */
        return expr_div(g, expr_sub(g, d[n.a], expr_mul(g, i, d[n.b])), n.b);
    case EXPR_POW: return power_slope(g, i, n.a, n.b, d[n.a], d[n.b]);
    case EXPR_POWI: /* k · a^(k-1) · da */
        return expr_mul(g, expr_mul(g, expr_const(g, n.b), expr_pow(g, n.a, expr_const(g, n.b - 1))), d[n.a]);
    default:
        if (expr_is_const(g, d[n.a], 0.0)) return d[n.a];
        return expr_mul(g, function_slope(g, n.op, i, n.a), d[n.a]);
    }
}

int expr_derive(expr_graph *g, int root, int symbol)
{
    const int count = root + 1;
    unsigned char *need = calloc((size_t)count, 1);
    int *d = malloc((size_t)count * sizeof *d);
    int out = -1;
    if (need && d) {
        expr_graph_mark(g, root, need);
        for (int i = 0; i < count; ++i) /* (a failed construction fails every later one) */
            d[i] = need[i] ? node_derivative(g, i, symbol, d) : 0;
        out = g->failed ? -1 : d[root];
    }
    free(need);
    free(d);
    return out;
}
