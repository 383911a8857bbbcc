/* Expressions (sp_expr.h): the node graph of each expression (expr_graph.h) and the flat
 * instruction list evaluation runs over it.
 *
 * An expression owns the graph of the nodes it depends on, in topological order with its
 * root last (derivatives are taken from it), and a tape: one instruction per operation
 * node, each writing its node's slot from its operands' slots. Constants sit in their
 * slots from the start, and the symbols read are copied into theirs by a plain loop before
 * the instructions run (no dispatch for them: most of a model's expressions are a few
 * operations on a few symbols). Evaluation allocates nothing and shares nothing between
 * expressions. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/custom/expr_graph.h"
#include "problems/custom/sp_expr.h"

/* The tape's own operation beside the graph's: squaring. */
enum { TAPE_SQR = EXPR_OP_COUNT };

typedef struct expr_op {
    int op, a, b, dst;
} expr_op;

/* A symbol's value into a slot. */
typedef struct expr_load {
    int symbol, slot;
} expr_load;

/* A constant or a lone symbol needs no tape (most second derivatives are one of these). */
enum { KIND_CONSTANT, KIND_SYMBOL, KIND_TAPE };

struct sp_expr {
    expr_graph g; /* the nodes the expression depends on, root last */
    int kind;
    double constant; /* KIND_CONSTANT */
    int symbol;      /* KIND_SYMBOL */
    expr_load *loads; /* KIND_TAPE: run first */
    int n_loads;
    expr_op *ops;
    int n_ops;
    double *slots;        /* one per node: the constants' values, the rest written by evaluations */
    unsigned char *reads; /* reads[i]: whether symbol i is read, for i < n_reads */
    int n_reads;
};

int sp_expr_valid_symbol(const char *name, char *why, size_t size)
{
    size_t len = strlen(name);
    int ok = len > 0 && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 1; ok && i < len; ++i) ok = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ok) {
        snprintf(why, size, "'%s' is not a name (letters, digits and _, not starting with a digit)", name);
        return 0;
    }
    if (expr_reserved(name, len)) {
        snprintf(why, size, "'%s' is a function or constant of the expression language", name);
        return 0;
    }
    return 1;
}

/* What an expression holds, not the expression itself. */
static void release(sp_expr *e)
{
    expr_graph_release(&e->g);
    free(e->loads);
    free(e->ops);
    free(e->slots);
    free(e->reads);
}

void sp_expr_free(sp_expr *e)
{
    if (!e) return;
    release(e);
    free(e);
}

/* Which symbols the graph reads. */
static int note_reads(sp_expr *e)
{
    for (int i = 0; i < e->g.count; ++i)
        if (e->g.nodes[i].op == EXPR_SYM && e->g.nodes[i].a >= e->n_reads) e->n_reads = e->g.nodes[i].a + 1;
    e->reads = calloc(e->n_reads ? (size_t)e->n_reads : 1, 1);
    if (!e->reads) return 0;
    for (int i = 0; i < e->g.count; ++i)
        if (e->g.nodes[i].op == EXPR_SYM) e->reads[e->g.nodes[i].a] = 1;
    return 1;
}

/* The loads and instructions: one per symbol and per operation node; the constants'
 * slots are filled here. */
static int compile(sp_expr *e)
{
    const int count = e->g.count;
    e->loads = malloc((size_t)count * sizeof *e->loads);
    e->ops = malloc((size_t)count * sizeof *e->ops);
    e->slots = malloc((size_t)count * sizeof *e->slots);
    if (!e->loads || !e->ops || !e->slots) return 0;
    for (int i = 0; i < count; ++i) {
        const expr_node *n = &e->g.nodes[i];
        e->slots[i] = n->op == EXPR_CONST ? n->c : 0.0;
        if (n->op == EXPR_CONST) continue;
        if (n->op == EXPR_SYM) {
            e->loads[e->n_loads++] = (expr_load){n->a, i};
            continue;
        }
        e->ops[e->n_ops++] = (expr_op){n->op == EXPR_POWI && n->b == 2 ? TAPE_SQR : n->op, n->a, n->b, i};
    }
    return 1;
}

/* The expression of node root of g: its nodes copied into a graph of their own (nothing
 * else), compiled. NULL when memory runs out. */
static sp_expr *expr_of(const expr_graph *g, int root)
{
    sp_expr *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    expr_graph_init(&e->g);
    const int top = expr_graph_copy(&e->g, g, root); /* (the last node: it depends on every other) */
    if (top < 0 || !note_reads(e)) {
        sp_expr_free(e);
        return NULL;
    }
    const expr_node *n = &e->g.nodes[top];
    e->kind = n->op == EXPR_CONST ? KIND_CONSTANT : n->op == EXPR_SYM ? KIND_SYMBOL : KIND_TAPE;
    e->constant = n->c;
    e->symbol = n->a;
    if (e->kind == KIND_TAPE && !compile(e)) {
        sp_expr_free(e);
        return NULL;
    }
    return e;
}

sp_expr *sp_expr_constant(double c)
{
    expr_graph g;
    expr_graph_init(&g);
    const int n = expr_const(&g, c);
    sp_expr *e = n < 0 ? NULL : expr_of(&g, n);
    expr_graph_release(&g);
    return e;
}

sp_status sp_expr_parse(const char *text, const sp_expr_symbols *symbols, sp_expr **out, char *why, size_t size)
{
    *out = NULL;
    if (text[strspn(text, " \t\r\n")] == '\0') {
        snprintf(why, size, "is empty");
        return SP_ERR_INVALID;
    }
    expr_graph g;
    expr_graph_init(&g);
    sp_status st;
    const int root = expr_parse_text(&g, text, symbols, &st, why, size);
    if (root >= 0 && !(*out = expr_of(&g, root))) st = SP_ERR_NOMEM;
    expr_graph_release(&g);
    return st;
}

int sp_expr_reads(const sp_expr *e, int symbol) { return symbol >= 0 && symbol < e->n_reads && e->reads[symbol]; }

int sp_expr_is_zero(const sp_expr *e) { return e->kind == KIND_CONSTANT && e->constant == 0.0; }

sp_expr *sp_expr_derivative(const sp_expr *e, const sp_expr_symbols *symbols, int symbol)
{
    (void)symbols; /* the symbol's index is all the graph knows of it */
    if (!sp_expr_reads(e, symbol)) return sp_expr_constant(0.0);
    expr_graph g; /* the expression's nodes and the derivative's, which reuses them */
    expr_graph_init(&g);
    const int root = expr_graph_copy(&g, &e->g, e->g.count - 1);
    const int d = root < 0 ? -1 : expr_derive(&g, root, symbol);
    sp_expr *out = d < 0 ? NULL : expr_of(&g, d);
    expr_graph_release(&g);
    return out;
}

int sp_expr_tape_length(const sp_expr *e) { return e->kind == KIND_TAPE ? e->n_loads + e->n_ops : 0; }

/* Runs the tape: every slot holds its node's value after. */
static void run(sp_expr *e, const double *values)
{
    double *v = e->slots;
    for (int k = 0; k < e->n_loads; ++k) v[e->loads[k].slot] = values[e->loads[k].symbol];
    for (const expr_op *o = e->ops, *end = o + e->n_ops; o < end; ++o) {
        double r;
        switch (o->op) {
        case TAPE_SQR: r = v[o->a] * v[o->a]; break;
        case EXPR_NEG: r = -v[o->a]; break;
        case EXPR_ADD: r = v[o->a] + v[o->b]; break;
        case EXPR_SUB: r = v[o->a] - v[o->b]; break;
        case EXPR_MUL: r = v[o->a] * v[o->b]; break;
        case EXPR_DIV: r = v[o->a] / v[o->b]; break;
        case EXPR_POW: r = pow(v[o->a], v[o->b]); break;
        case EXPR_POWI: r = expr_powi(v[o->a], o->b); break;
        default: r = expr_apply(o->op, v[o->a]); break;
        }
        v[o->dst] = r;
    }
}

double sp_expr_eval(sp_expr *e, const double *values)
{
    if (e->kind == KIND_CONSTANT) return e->constant;
    if (e->kind == KIND_SYMBOL) return values[e->symbol];
    run(e, values);
    return e->slots[e->g.count - 1];
}

/* ---- several expressions evaluated together */

/* One graph and one tape for all the members, whose roots are nodes of it. */
struct sp_expr_set {
    sp_expr e;
    int *roots;
    int count;
};

void sp_expr_set_free(sp_expr_set *s)
{
    if (!s) return;
    release(&s->e);
    free(s->roots);
    free(s);
}

sp_expr_set *sp_expr_set_new(sp_expr *const *members, int count)
{
    sp_expr_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    expr_graph_init(&s->e.g);
    s->e.kind = KIND_TAPE;
    s->count = count;
    s->roots = malloc((count > 0 ? (size_t)count : 1) * sizeof *s->roots);
    int ok = s->roots && expr_const(&s->e.g, 0.0) >= 0; /* (a node at least, for an empty set) */
    for (int i = 0; ok && i < count; ++i) /* the copy interns: what members share is made once */
        ok = (s->roots[i] = expr_graph_copy(&s->e.g, &members[i]->g, members[i]->g.count - 1)) >= 0;
    if (!ok || !note_reads(&s->e) || !compile(&s->e)) {
        sp_expr_set_free(s);
        return NULL;
    }
    return s;
}

void sp_expr_set_eval(sp_expr_set *s, const double *values, double *out)
{
    run(&s->e, values);
    for (int i = 0; i < s->count; ++i) out[i] = s->e.slots[s->roots[i]];
}

int sp_expr_set_tape_length(const sp_expr_set *s) { return s->e.n_loads + s->e.n_ops; }
