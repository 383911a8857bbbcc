/* The node graph of expressions (expr_graph.h): storage, hash-consing, and the
 * simplifying constructors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "problems/custom/expr_graph.h"

void expr_graph_init(expr_graph *g) { memset(g, 0, sizeof *g); }

void expr_graph_release(expr_graph *g)
{
    free(g->nodes);
    free(g->slots);
    expr_graph_init(g);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdu;
}

static uint64_t node_hash(int op, int a, int b, double c)
{
    uint64_t bits;
    memcpy(&bits, &c, sizeof bits); /* constants are told apart by their bits: 0 and -0 differ */
    uint64_t h = mix(mix(mix((uint64_t)op, (uint64_t)(uint32_t)a), (uint64_t)(uint32_t)b), bits);
    return h ^ (h >> 29);
}

static int same(const expr_node *n, int op, int a, int b, double c)
{
    return n->op == op && n->a == a && n->b == b && memcmp(&n->c, &c, sizeof c) == 0;
}

/* Doubles the hash table (kept at most half full, so probes stay short). */
static int grow_table(expr_graph *g)
{
    const int n_slots = g->n_slots ? 2 * g->n_slots : 64;
    int *slots = calloc((size_t)n_slots, sizeof *slots);
    if (!slots) return 0;
    for (int i = 0; i < g->count; ++i) {
        const expr_node *n = &g->nodes[i];
        size_t k = (size_t)node_hash(n->op, n->a, n->b, n->c) & (size_t)(n_slots - 1);
        while (slots[k]) k = (k + 1) & (size_t)(n_slots - 1);
        slots[k] = i + 1;
    }
    free(g->slots);
    g->slots = slots;
    g->n_slots = n_slots;
    return 1;
}

static int grow_nodes(expr_graph *g)
{
    const int cap = g->cap ? 2 * g->cap : 32;
    expr_node *nodes = realloc(g->nodes, (size_t)cap * sizeof *nodes);
    if (!nodes) return 0;
    g->nodes = nodes;
    g->cap = cap;
    return 1;
}

int expr_intern(expr_graph *g, int op, int a, int b, double c)
{
    if (g->failed) return -1;
    if (2 * (g->count + 1) > g->n_slots && !grow_table(g)) {
        g->failed = 1;
        return -1;
    }
    const size_t mask = (size_t)(g->n_slots - 1);
    size_t k = (size_t)node_hash(op, a, b, c) & mask;
    for (; g->slots[k]; k = (k + 1) & mask)
        if (same(&g->nodes[g->slots[k] - 1], op, a, b, c)) return g->slots[k] - 1;
    if (g->count >= EXPR_MAX_NODES || (g->count == g->cap && !grow_nodes(g))) {
        g->failed = 1;
        return -1;
    }
    g->nodes[g->count] = (expr_node){op, a, b, c};
    g->slots[k] = ++g->count;
    return g->count - 1;
}

/* ---- values */

static double step(double x) { return x < 0.0 ? 0.0 : 1.0; }

double expr_apply(int f, double x)
{
    switch (f) {
    case EXPR_EXP: return exp(x);
    case EXPR_LOG: return log(x);
    case EXPR_SQRT: return sqrt(x);
    case EXPR_SIN: return sin(x);
    case EXPR_COS: return cos(x);
    case EXPR_TAN: return tan(x);
    case EXPR_COT: return 1.0 / tan(x);
    case EXPR_SEC: return 1.0 / cos(x);
    case EXPR_CSC: return 1.0 / sin(x);
    case EXPR_ASIN: return asin(x);
    case EXPR_ACOS: return acos(x);
    case EXPR_ATAN: return atan(x);
    /* the inverse cofunctions are the inverse functions of 1/x, as libraries of this
     * language have defined them: acot(-2) = atan(-1/2), not π/2 - atan(-2) */
    case EXPR_ACOT: return atan(1.0 / x);
    case EXPR_ASEC: return acos(1.0 / x);
    case EXPR_ACSC: return asin(1.0 / x);
    case EXPR_SINH: return sinh(x);
    case EXPR_COSH: return cosh(x);
    case EXPR_TANH: return tanh(x);
    case EXPR_COTH: return 1.0 / tanh(x);
    case EXPR_SECH: return 1.0 / cosh(x);
    case EXPR_CSCH: return 1.0 / sinh(x);
    case EXPR_ASINH: return asinh(x);
    case EXPR_ACOSH: return acosh(x);
    case EXPR_ATANH: return atanh(x);
    case EXPR_ACOTH: return atanh(1.0 / x);
    case EXPR_ASECH: return acosh(1.0 / x);
    case EXPR_ACSCH: return asinh(1.0 / x);
    case EXPR_ABS: return fabs(x);
    /* step is 1 from 0 on; delta is the derivative of step, infinite at 0 and 0
     * elsewhere; nandelta is delta with NaN at 0 (the derivative of delta) */
    case EXPR_STEP: return step(x);
    case EXPR_DELTA: return x == 0.0 ? HUGE_VAL : 0.0;
    case EXPR_NANDELTA: return x == 0.0 ? NAN : 0.0;
    case EXPR_ERF: return erf(x);
    default: return NAN;
    }
}

double expr_powi(double x, int n)
{
    if (n < 0) return 1.0 / expr_powi(x, -n);
    double r = 1.0;
    for (double b = x; n; n >>= 1, b *= b)
        if (n & 1) r *= b;
    return r;
}

/* ---- the simplifying constructors */

static int is_const(const expr_graph *g, int n) { return g->nodes[n].op == EXPR_CONST; }

int expr_is_const(const expr_graph *g, int n, double c) { return is_const(g, n) && g->nodes[n].c == c; }

static double value(const expr_graph *g, int n) { return g->nodes[n].c; }

static int op_of(const expr_graph *g, int n) { return g->nodes[n].op; }

int expr_const(expr_graph *g, double c) { return expr_intern(g, EXPR_CONST, 0, 0, c); }

int expr_sym(expr_graph *g, int symbol) { return expr_intern(g, EXPR_SYM, symbol, 0, 0.0); }

int expr_neg(expr_graph *g, int a)
{
    if (a < 0) return -1;
    if (is_const(g, a)) return expr_const(g, -value(g, a));
    if (op_of(g, a) == EXPR_NEG) return g->nodes[a].a;
    if (op_of(g, a) == EXPR_MUL && is_const(g, g->nodes[a].a)) /* -(c·x) = (-c)·x */
        return expr_intern(g, EXPR_MUL, expr_const(g, -value(g, g->nodes[a].a)), g->nodes[a].b, 0.0);
    return expr_intern(g, EXPR_NEG, a, 0, 0.0);
}

/* The operands of a commutative operation in one order, so a+b and b+a are one node. */
static int ordered(expr_graph *g, int op, int a, int b)
{
    return a <= b ? expr_intern(g, op, a, b, 0.0) : expr_intern(g, op, b, a, 0.0);
}

int expr_add(expr_graph *g, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (is_const(g, a) && is_const(g, b)) return expr_const(g, value(g, a) + value(g, b));
    if (expr_is_const(g, a, 0.0)) return b;
    if (expr_is_const(g, b, 0.0)) return a;
    if (op_of(g, b) == EXPR_NEG) return expr_sub(g, a, g->nodes[b].a);
    if (op_of(g, a) == EXPR_NEG) return expr_sub(g, b, g->nodes[a].a);
    if (a == b) return expr_mul(g, expr_const(g, 2.0), a);
    return ordered(g, EXPR_ADD, a, b);
}

int expr_sub(expr_graph *g, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (is_const(g, a) && is_const(g, b)) return expr_const(g, value(g, a) - value(g, b));
    if (expr_is_const(g, b, 0.0)) return a;
    if (expr_is_const(g, a, 0.0)) return expr_neg(g, b);
    if (op_of(g, b) == EXPR_NEG) return expr_add(g, a, g->nodes[b].a);
    return expr_intern(g, EXPR_SUB, a, b, 0.0);
}

int expr_mul(expr_graph *g, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (is_const(g, a) && is_const(g, b)) return expr_const(g, value(g, a) * value(g, b));
    if (is_const(g, b)) { /* the constant first: the rules below look there only */
        const int t = a;
        a = b, b = t;
    }
    if (is_const(g, a)) {
        const double c = value(g, a);
        if (c == 0.0) return a;
        if (c == 1.0) return b;
        if (c == -1.0) return expr_neg(g, b);
        if (op_of(g, b) == EXPR_NEG) return expr_mul(g, expr_const(g, -c), g->nodes[b].a);
        if (op_of(g, b) == EXPR_MUL && is_const(g, g->nodes[b].a)) /* c·(d·x) = (cd)·x */
            return expr_mul(g, expr_const(g, c * value(g, g->nodes[b].a)), g->nodes[b].b);
        return expr_intern(g, EXPR_MUL, a, b, 0.0);
    }
    if (op_of(g, a) == EXPR_NEG && op_of(g, b) == EXPR_NEG) return expr_mul(g, g->nodes[a].a, g->nodes[b].a);
    if (op_of(g, a) == EXPR_NEG) return expr_neg(g, expr_mul(g, g->nodes[a].a, b));
    if (op_of(g, b) == EXPR_NEG) return expr_neg(g, expr_mul(g, a, g->nodes[b].a));
    if (a == b) return expr_pow(g, a, expr_const(g, 2.0));
    return ordered(g, EXPR_MUL, a, b);
}

/* Whether 1/c is exact (c a power of two), so x/c may be multiplied by it. */
static int exact_reciprocal(double c)
{
    int e;
    return isfinite(c) && c != 0.0 && fabs(frexp(c, &e)) == 0.5;
}

int expr_div(expr_graph *g, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (is_const(g, a) && is_const(g, b)) return expr_const(g, value(g, a) / value(g, b));
    if (expr_is_const(g, b, 1.0)) return a;
    if (expr_is_const(g, b, -1.0)) return expr_neg(g, a);
    if (expr_is_const(g, a, 0.0)) return a;
    if (is_const(g, b) && exact_reciprocal(value(g, b))) return expr_mul(g, expr_const(g, 1.0 / value(g, b)), a);
    return expr_intern(g, EXPR_DIV, a, b, 0.0);
}

/* Integer powers up to this are multiplications (pow() costs ten times as much). */
#define POWI_MAX 16

int expr_pow(expr_graph *g, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (is_const(g, a) && is_const(g, b)) return expr_const(g, pow(value(g, a), value(g, b)));
    if (is_const(g, b)) {
        const double c = value(g, b);
        if (c == 0.0) return expr_const(g, 1.0);
        if (c == 1.0) return a;
        if (c == rint(c) && fabs(c) <= POWI_MAX) return expr_intern(g, EXPR_POWI, a, (int)c, 0.0);
    }
    return expr_intern(g, EXPR_POW, a, b, 0.0);
}

int expr_call(expr_graph *g, int f, int a)
{
    if (a < 0) return -1;
    if (is_const(g, a)) return expr_const(g, expr_apply(f, value(g, a)));
    return expr_intern(g, f, a, 0, 0.0);
}

/* ---- copies */

/* Whether operation op has a second operand node. */
static int binary(int op) { return op >= EXPR_ADD && op <= EXPR_POW; }

void expr_graph_mark(const expr_graph *g, int root, unsigned char *need)
{
    need[root] = 1;
    for (int i = root; i >= 0; --i) { /* operands come before their users */
        if (!need[i]) continue;
        const expr_node *n = &g->nodes[i];
        if (n->op == EXPR_CONST || n->op == EXPR_SYM) continue;
        need[n->a] = 1;
        if (binary(n->op)) need[n->b] = 1;
    }
}

int expr_graph_copy(expr_graph *dst, const expr_graph *src, int root)
{
    unsigned char *need = calloc((size_t)src->count, 1);
    int *remap = malloc((size_t)src->count * sizeof *remap);
    int out = -1;
    if (need && remap) {
        expr_graph_mark(src, root, need);
        for (int i = 0; i <= root; ++i) {
            if (!need[i]) continue;
            const expr_node *n = &src->nodes[i];
            const int leaf = n->op == EXPR_CONST || n->op == EXPR_SYM;
            const int a = leaf ? n->a : remap[n->a];
            const int b = binary(n->op) ? remap[n->b] : n->b; /* (EXPR_POWI: the exponent, maybe negative) */
            remap[i] = a < 0 || (binary(n->op) && b < 0) ? -1 : expr_intern(dst, n->op, a, b, n->c);
        }
        out = remap[root];
    }
    free(need);
    free(remap);
    return out;
}
