/* Reading expressions (expr_graph.h): a scan that names the first thing out of place in a
 * text and its position, then a recursive-descent parser over the text the scan let
 * through, which builds the nodes.
 *
 * The grammar, loosest first:
 *   sum     = product (('+' | '-') product)*
 *   product = unary (('*' | '/') unary)*
 *   unary   = '-' unary | power              (-2^2 = -(2^2))
 *   power   = primary ('^' unary)?           (2^-1 = 0.5; a^b^c would be a^(b^c))
 *   primary = number | constant | symbol | function '(' sum ')' | '(' sum ')'
 * The scan refuses a^b^c nonetheless: readers disagree about it, so the text must say. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/custom/expr_graph.h"

const char *const expr_function_names[] = {
    "exp",   "log",   "sqrt",  "sin",   "cos",   "tan",   "cot",   "sec",   "csc",   "asin",     "acos",
    "atan",  "acot",  "asec",  "acsc",  "sinh",  "cosh",  "tanh",  "coth",  "sech",  "csch",     "asinh",
    "acosh", "atanh", "acoth", "asech", "acsch", "abs",   "step",  "delta", "nandelta", "erf", NULL};
static const char *const constant_names[] = {"pi", "e", NULL};

/* The index of the name s[0..len) in list, or -1. */
static int find(const char *const *list, const char *s, size_t len)
{
    for (int i = 0; list[i]; ++i)
        if (strlen(list[i]) == len && strncmp(list[i], s, len) == 0) return i;
    return -1;
}

int expr_reserved(const char *name, size_t len)
{
    return find(expr_function_names, name, len) >= 0 || find(constant_names, name, len) >= 0;
}

static int name_char(int c) { return isalnum((unsigned char)c) || c == '_'; }

/* The end of the decimal number at s (digits, an optional fraction, an optional
 * exponent), its value in *v. Only decimal: strtod would read 0x10 as sixteen. */
static const char *number_end(const char *s, double *v)
{
    const char *t = s;
    while (isdigit((unsigned char)*t)) ++t;
    if (*t == '.')
        for (++t; isdigit((unsigned char)*t);) ++t;
    if (*t == 'e' || *t == 'E') {
        const char *u = t + 1;
        if (*u == '+' || *u == '-') ++u;
        if (isdigit((unsigned char)*u)) {
            while (isdigit((unsigned char)*u)) ++u;
            t = u;
        }
    }
    /* strtod reads exactly [s, t) unless s starts a hexadecimal number: "0x…" is a 0 here,
     * followed by a name the scan then refuses */
    *v = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 0.0 : strtod(s, NULL);
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? s + 1 : t;
}

/* ---- the scan */

/* The first thing out of place in a text, and where, into why; 1 when there is one. A text
 * longer than SP_EXPR_MAX_TOKENS numbers, names and operators, or nested deeper than
 * SP_EXPR_MAX_DEPTH, is out of place too: it bounds the memory and time an expression
 * and its second derivatives take. */
static int misplaced(const char *text, char *why, size_t size)
{
    int depth = 0, open_at = -1, prev = 'o'; /* o: operator or start; v: value; f: function name */
    int tokens = 0;
    /* a power not yet closed by another operator, per depth of parentheses (a^b^c) */
    char power_open[SP_EXPR_MAX_DEPTH + 1] = {0};
    const char *s = text;
    while (*s) {
        const int at = (int)(s - text) + 1;
        const unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '\t') { /* the blanks of the language; a line break is not one */
            ++s;
            continue;
        }
        if (c != '(' && c != ')' && ++tokens > SP_EXPR_MAX_TOKENS) {
            snprintf(why, size, "is longer than %d numbers, names and operators (at position %d): split the model "
                     "or simplify it", SP_EXPR_MAX_TOKENS, at);
            return 1;
        }
        if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
            double v;
            if (prev == 'v') {
                snprintf(why, size, "has a number at position %d right after a value (an operator is missing)", at);
                return 1;
            }
            s = number_end(s, &v), prev = 'v';
            continue;
        }
        if (isalpha(c) || c == '_') {
            const char *t = s;
            while (name_char(*s)) ++s;
            const size_t len = (size_t)(s - t);
            const char *u = s;
            while (isspace((unsigned char)*u)) ++u;
            const int function = find(expr_function_names, t, len) >= 0;
            if (prev == 'v') {
                snprintf(why, size, "has '%.*s' at position %d right after a value (an operator is missing)", (int)len,
                         t, at);
                return 1;
            }
            if (*u == '(' && !function) {
                snprintf(why, size, "calls the unknown function '%.*s' at position %d", (int)len, t, at);
                return 1;
            }
            if (*u != '(' && function) {
                snprintf(why, size, "has the function '%.*s' at position %d without its argument in parentheses",
                         (int)len, t, at);
                return 1;
            }
            prev = *u == '(' ? 'f' : 'v';
            continue;
        }
        if (c == '(') {
            if (prev == 'v') {
                snprintf(why, size, "has '(' at position %d right after a value (an operator is missing)", at);
                return 1;
            }
            if (depth++ == 0) open_at = at;
            if (depth > SP_EXPR_MAX_DEPTH) {
                snprintf(why, size, "nests parentheses deeper than %d (at position %d)", SP_EXPR_MAX_DEPTH, at);
                return 1;
            }
            power_open[depth] = 0;
            prev = 'o', ++s;
            continue;
        }
        if (c == ')') {
            if (depth == 0) {
                snprintf(why, size, "has an unmatched ')' at position %d", at);
                return 1;
            }
            if (prev != 'v') {
                snprintf(why, size, "has ')' at position %d where a value is expected", at);
                return 1;
            }
            --depth, ++s;
            continue;
        }
        if (strchr("+-*/^", (int)c)) {
            if (c == '*' && s[1] == '*') {
                snprintf(why, size, "has '**' at position %d: write powers as a^b", at);
                return 1;
            }
            if (prev != 'v' && c != '-') { /* the one unary operator is minus */
                snprintf(why, size, "has '%c' at position %d where a value is expected", c, at);
                return 1;
            }
            if (c == '^' && power_open[depth]) {
                snprintf(why, size, "has a second '^' at position %d: write (a^b)^c or a^(b^c)", at);
                return 1;
            }
            if (prev == 'v') power_open[depth] = c == '^';
            prev = 'o', ++s;
            continue;
        }
        if (iscntrl(c))
            snprintf(why, size, "has the control character 0x%02x at position %d, which is not part of the language",
                     c, at);
        else
            snprintf(why, size, "has the character '%c' at position %d, which is not part of the language", c, at);
        return 1;
    }
    if (depth > 0) {
        snprintf(why, size, "has an unmatched '(' at position %d", open_at);
        return 1;
    }
    if (prev != 'v') {
        snprintf(why, size, "ends where a value is expected (at position %d)", (int)strlen(text) + 1);
        return 1;
    }
    return 0;
}

/* ---- the parser */

typedef struct parser {
    const char *text, *s;
    expr_graph *g;
    const sp_expr_symbols *symbols;
    sp_status status; /* SP_OK until something fails */
    char *why;
    size_t size;
} parser;

static int parse_sum(parser *p);
static int parse_unary(parser *p);

static int peek(parser *p)
{
    while (*p->s == ' ' || *p->s == '\t') ++p->s;
    return (unsigned char)*p->s;
}

/* What the scan let through and the grammar does not (which the scan should prevent). */
static int refuse(parser *p)
{
    if (p->status == SP_OK) {
        p->status = SP_ERR_INVALID;
        snprintf(p->why, p->size, "is not an expression of the language (at position %d)", (int)(p->s - p->text) + 1);
    }
    return -1;
}

/* A name: a constant, a symbol, or a function with its parenthesised argument. */
static int parse_name(parser *p)
{
    const char *t = p->s;
    while (name_char(*p->s)) ++p->s;
    const size_t len = (size_t)(p->s - t);
    const int f = find(expr_function_names, t, len);
    if (f >= 0) {
        if (peek(p) != '(') return refuse(p);
        ++p->s;
        const int arg = parse_sum(p);
        if (arg < 0 || peek(p) != ')') return arg < 0 ? -1 : refuse(p);
        ++p->s;
        return expr_call(p->g, EXPR_FIRST_FUNCTION + f, arg);
    }
    const int k = find(constant_names, t, len);
    if (k >= 0) return expr_const(p->g, k == 0 ? acos(-1.0) : exp(1.0));
    const sp_expr_symbols *s = p->symbols;
    for (int i = 0; i < s->count; ++i)
        if (strlen(s->names[i]) == len && strncmp(s->names[i], t, len) == 0)
            return s->fixed && i >= s->first_fixed ? expr_const(p->g, s->fixed[i]) : expr_sym(p->g, i);
    p->status = SP_ERR_INVALID;
    snprintf(p->why, p->size, "names the unknown symbol '%.*s' at position %d", (int)len, t, (int)(t - p->text) + 1);
    return -1;
}

static int parse_primary(parser *p)
{
    const int c = peek(p);
    if (isdigit(c) || c == '.') {
        double v;
        p->s = number_end(p->s, &v);
        return expr_const(p->g, v);
    }
    if (isalpha(c) || c == '_') return parse_name(p);
    if (c != '(') return refuse(p);
    ++p->s;
    const int inner = parse_sum(p);
    if (inner < 0 || peek(p) != ')') return inner < 0 ? -1 : refuse(p);
    ++p->s;
    return inner;
}

static int parse_power(parser *p)
{
    const int base = parse_primary(p);
    if (base < 0 || peek(p) != '^') return base;
    ++p->s;
    return expr_pow(p->g, base, parse_unary(p));
}

static int parse_unary(parser *p)
{
    if (peek(p) != '-') return parse_power(p);
    ++p->s;
    return expr_neg(p->g, parse_unary(p));
}

static int parse_product(parser *p)
{
    int left = parse_unary(p);
    for (int c; left >= 0 && ((c = peek(p)) == '*' || c == '/');) {
        ++p->s;
        const int right = parse_unary(p);
        left = c == '*' ? expr_mul(p->g, left, right) : expr_div(p->g, left, right);
    }
    return left;
}

static int parse_sum(parser *p)
{
    int left = parse_product(p);
    for (int c; left >= 0 && ((c = peek(p)) == '+' || c == '-');) {
        ++p->s;
        const int right = parse_product(p);
        left = c == '+' ? expr_add(p->g, left, right) : expr_sub(p->g, left, right);
    }
    return left;
}

int expr_parse_text(expr_graph *g, const char *text, const sp_expr_symbols *symbols, sp_status *status, char *why,
                    size_t size)
{
    if (misplaced(text, why, size)) {
        *status = SP_ERR_INVALID;
        return -1;
    }
    parser p = {text, text, g, symbols, SP_OK, why, size};
    int root = parse_sum(&p);
    if (root >= 0 && peek(&p) != '\0') root = refuse(&p);
    *status = root >= 0 ? SP_OK : p.status != SP_OK ? p.status : SP_ERR_NOMEM;
    return root;
}
