/* The expression engine's inside (sp_expr.h is its outside): a graph of nodes in which
 * every node is made once (hash-consing), so an expression and its derivatives share
 * their common subexpressions, and the constructors simplify as they go (constant
 * folding, 0·x → 0, 1·x → x, x + 0 → x, …).
 *
 * Nodes are appended, and a node's operands are always older nodes: the array is in
 * topological order, which lets derivatives and evaluation walk it front to back without
 * recursion. Every constructor returns a node's index, or -1 once memory ran out (or the
 * graph outgrew EXPR_MAX_NODES); -1 in, -1 out, so a chain of constructions needs one
 * check at its end. */
#ifndef SP_EXPR_GRAPH_H
#define SP_EXPR_GRAPH_H

#include <stddef.h>

#include "lie/sp_status.h"
#include "problems/custom/sp_expr.h"

/* The operations. The functions follow in the order of expr_function_names. */
enum {
    EXPR_CONST, /* c */
    EXPR_SYM,   /* symbol a */
    EXPR_NEG,
    EXPR_ADD,
    EXPR_SUB,
    EXPR_MUL,
    EXPR_DIV,
    EXPR_POW,  /* a ^ b */
    EXPR_POWI, /* a ^ b, b a small integer kept in the node (multiplications, not pow()) */
    EXPR_EXP,
    EXPR_LOG,
    EXPR_SQRT,
    EXPR_SIN,
    EXPR_COS,
    EXPR_TAN,
    EXPR_COT,
    EXPR_SEC,
    EXPR_CSC,
    EXPR_ASIN,
    EXPR_ACOS,
    EXPR_ATAN,
    EXPR_ACOT,
    EXPR_ASEC,
    EXPR_ACSC,
    EXPR_SINH,
    EXPR_COSH,
    EXPR_TANH,
    EXPR_COTH,
    EXPR_SECH,
    EXPR_CSCH,
    EXPR_ASINH,
    EXPR_ACOSH,
    EXPR_ATANH,
    EXPR_ACOTH,
    EXPR_ASECH,
    EXPR_ACSCH,
    EXPR_ABS,
    EXPR_STEP,
    EXPR_DELTA,
    EXPR_NANDELTA,
    EXPR_ERF,
    EXPR_OP_COUNT
};
#define EXPR_FIRST_FUNCTION EXPR_EXP

/* The function names of the language, NULL-terminated, in the order of the operations
 * from EXPR_FIRST_FUNCTION. */
extern const char *const expr_function_names[];

/* A graph's size limit: about 24 MB of nodes. Derivatives of the longest text taken
 * (SP_EXPR_MAX_TOKENS) stay far below it, since shared subexpressions are not repeated. */
#define EXPR_MAX_NODES (1 << 20)

typedef struct expr_node {
    int op;
    int a, b; /* operands (node indices); EXPR_SYM: a is the symbol; EXPR_POWI: b the exponent */
    double c; /* EXPR_CONST: the value */
} expr_node;

typedef struct expr_graph {
    expr_node *nodes;
    int count, cap;
    int *slots; /* the hash table: node index + 1, 0 where empty; a power of two long */
    int n_slots;
    int failed; /* memory ran out: every construction returns -1 from then on */
} expr_graph;

void expr_graph_init(expr_graph *g);
void expr_graph_release(expr_graph *g);

/* The simplifying constructors. */
int expr_const(expr_graph *g, double c);
int expr_sym(expr_graph *g, int symbol);
int expr_neg(expr_graph *g, int a);
int expr_add(expr_graph *g, int a, int b);
int expr_sub(expr_graph *g, int a, int b);
int expr_mul(expr_graph *g, int a, int b);
int expr_div(expr_graph *g, int a, int b);
int expr_pow(expr_graph *g, int a, int b);
/* f(a) for a function operation f (EXPR_EXP … EXPR_ERF). */
int expr_call(expr_graph *g, int f, int a);

/* Whether node n is the constant c. */
int expr_is_const(const expr_graph *g, int n, double c);
/* The value of function operation f at x (what evaluation and constant folding share). */
double expr_apply(int f, double x);
/* x^n for a small integer n, by multiplications. */
double expr_powi(double x, int n);

/* The node (op, a, b, c) as it stands, made once: no simplification (for nodes that
 * were simplified when first made). */
int expr_intern(expr_graph *g, int op, int a, int b, double c);
/* Copies the nodes `root` depends on from src into dst, which is empty or holds nodes
 * already; the index of root's copy, or -1. */
int expr_graph_copy(expr_graph *dst, const expr_graph *src, int root);
/* Marks in need (g->count long, zeroed) the nodes root depends on, root included. */
void expr_graph_mark(const expr_graph *g, int root, unsigned char *need);

/* ∂(node root)/∂(symbol), built in g; -1 when memory runs out. */
int expr_derive(expr_graph *g, int root, int symbol);

/* Parses text against the symbols into g; the root's index, or -1 with the status
 * (SP_ERR_INVALID, with the reason in why; SP_ERR_NOMEM) in *status. */
int expr_parse_text(expr_graph *g, const char *text, const sp_expr_symbols *symbols, sp_status *status, char *why,
                    size_t size);

/* Whether name is a function or constant of the language. */
int expr_reserved(const char *name, size_t len);

#endif
