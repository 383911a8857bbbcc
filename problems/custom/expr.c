/* Expressions on GNU libmatheval (sp_expr.h).
 *
 * libmatheval parses with a generated parser that keeps its state in globals, so every
 * call that builds an evaluator (parsing, differentiating) holds one lock; evaluating
 * touches only the evaluator's own symbol table and needs none. Its parser says only
 * whether a text parses, so the messages for a text it refuses come from a scan of the
 * tokens here, which names the first thing out of place and its position. */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <matheval.h>

#include "problems/custom/sp_expr.h"

struct sp_expr {
    void *evaluator; /* NULL: the constant below */
    double constant;
    int n_reads;
    char **names; /* the evaluator's own variable names */
    int *index;   /* their symbols */
    double *buf;  /* their values, gathered for each evaluation */
};

/* The parser's globals (see above): the one lock of the library. */
static pthread_mutex_t matheval_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const functions[] = {"exp",   "log",   "sqrt",  "sin",   "cos",   "tan",  "cot",   "sec",
                                        "csc",   "asin",  "acos",  "atan",  "acot",  "asec", "acsc",  "sinh",
                                        "cosh",  "tanh",  "coth",  "sech",  "csch",  "asinh", "acosh", "atanh",
                                        "acoth", "asech", "acsch", "abs",   "step",  "delta", "nandelta", "erf",
                                        NULL};
static const char *const constants[] = {"pi", "e", NULL};

static int listed(const char *const *list, const char *s, size_t len)
{
    for (; *list; ++list)
        if (strlen(*list) == len && strncmp(*list, s, len) == 0) return 1;
    return 0;
}

int sp_expr_valid_symbol(const char *name, char *why, size_t size)
{
    size_t len = strlen(name);
    int ok = len > 0 && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 1; ok && i < len; ++i) ok = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ok) {
        snprintf(why, size, "'%s' is not a name (letters, digits and _, not starting with a digit)", name);
        return 0;
    }
    if (listed(functions, name, len) || listed(constants, name, len)) {
        snprintf(why, size, "'%s' is a function or constant of the expression language", name);
        return 0;
    }
    return 1;
}

static sp_expr *expr_new(void)
{
    sp_expr *e = calloc(1, sizeof *e);
    return e;
}

sp_expr *sp_expr_constant(double c)
{
    sp_expr *e = expr_new();
    if (e) e->constant = c;
    return e;
}

void sp_expr_free(sp_expr *e)
{
    if (!e) return;
    if (e->evaluator) {
        pthread_mutex_lock(&matheval_lock);
        evaluator_destroy(e->evaluator);
        pthread_mutex_unlock(&matheval_lock);
    }
    free(e->index);
    free(e->buf);
    free(e);
}

/* The 1-based position of the identifier `name` standing alone in text (0 if it does not). */
static int position_of(const char *text, const char *name)
{
    const size_t len = strlen(name);
    for (const char *s = text; (s = strstr(s, name)); ++s) {
        const int before = s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '_');
        const int after = isalnum((unsigned char)s[len]) || s[len] == '_';
        if (!before && !after) return (int)(s - text) + 1;
    }
    return 0;
}

/* Binds an evaluator's variables to the symbols; an unknown one is named in why (-1 when
 * memory runs out, 0 for an unknown symbol — named in why with its place in text — 1
 * bound). A variable-free evaluator becomes its constant value. */
static int bind(sp_expr *e, const sp_expr_symbols *symbols, const char *text, char *why, size_t size)
{
    char **names;
    int count;
    evaluator_get_variables(e->evaluator, &names, &count);
    e->names = names;
    e->n_reads = count;
    e->index = malloc((count ? (size_t)count : 1) * sizeof *e->index);
    e->buf = malloc((count ? (size_t)count : 1) * sizeof *e->buf);
    if (!e->index || !e->buf) return -1;
    for (int k = 0; k < count; ++k) {
        e->index[k] = -1;
        for (int i = 0; i < symbols->count; ++i)
            if (strcmp(names[k], symbols->names[i]) == 0) e->index[k] = i;
        if (e->index[k] < 0) {
            if (why) snprintf(why, size, "names the unknown symbol '%s' at position %d", names[k],
                              position_of(text, names[k]));
            return 0;
        }
    }
    if (count == 0) { /* a constant: evaluate once, keep the number */
        e->constant = evaluator_evaluate(e->evaluator, 0, NULL, NULL);
        evaluator_destroy(e->evaluator);
        e->evaluator = NULL;
        e->names = NULL;
    }
    return 1;
}

/* The first thing out of place in a text, and where, into why; 1 when there is one. A text
 * longer than SP_EXPR_MAX_TOKENS numbers, names and operators, or nested deeper than
 * SP_EXPR_MAX_DEPTH, is out of place too: the second derivatives the models take grow
 * about as the cube of an expression's size (a product of 300 factors took 2.6 GB,
 * sin(sin(…)) 400 deep 1 GB), and the library under them ends the process when memory
 * runs out rather than report it. */
static int misplaced(const char *text, char *why, size_t size)
{
    int depth = 0, open_at = -1, prev = 'o'; /* o: operator or start; v: value; f: function name */
    int tokens = 0;
    /* a power not yet closed by another operator, per depth of parentheses: the parser takes
     * a^b^c as (a^b)^c, which a reader would not expect, so the text must say which */
    char power_open[32] = {0};
#define POWER_OPEN power_open[depth < 32 ? depth : 31]
    const char *s = text;
    while (*s) {
        const int at = (int)(s - text) + 1;
        const unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '\t') { /* the blanks the parser reads; a line break it refuses, and leaks */
            ++s;
            continue;
        }
        if (c != '(' && c != ')' && ++tokens > SP_EXPR_MAX_TOKENS) {
            snprintf(why, size, "is longer than %d numbers, names and operators (at position %d): split the model "
                     "or simplify it", SP_EXPR_MAX_TOKENS, at);
            return 1;
        }
        if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[1]))) {
            char *end;
            (void)strtod(s, &end);
            if (prev == 'v') {
                snprintf(why, size, "has a number at position %d right after a value (an operator is missing)", at);
                return 1;
            }
            s = end, prev = 'v';
            continue;
        }
        if (isalpha(c) || c == '_') {
            const char *t = s;
            while (isalnum((unsigned char)*s) || *s == '_') ++s;
            const size_t len = (size_t)(s - t);
            const char *u = s;
            while (isspace((unsigned char)*u)) ++u;
            if (prev == 'v') {
                snprintf(why, size, "has '%.*s' at position %d right after a value (an operator is missing)", (int)len,
                         t, at);
                return 1;
            }
            if (*u == '(' && !listed(functions, t, len)) {
                snprintf(why, size, "calls the unknown function '%.*s' at position %d", (int)len, t, at);
                return 1;
            }
            if (*u != '(' && listed(functions, t, len)) {
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
            POWER_OPEN = 0;
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
            if (c == '^' && POWER_OPEN) {
                snprintf(why, size, "has a second '^' at position %d: write (a^b)^c or a^(b^c)", at);
                return 1;
            }
            if (prev == 'v') POWER_OPEN = c == '^';
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
#undef POWER_OPEN
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

sp_status sp_expr_parse(const char *text, const sp_expr_symbols *symbols, sp_expr **out, char *why, size_t size)
{
    *out = NULL;
    size_t len = strlen(text), blank = strspn(text, " \t\r\n");
    if (blank == len) {
        snprintf(why, size, "is empty");
        return SP_ERR_INVALID;
    }
    sp_expr *e = expr_new();
    char *copy = malloc(len + 1);
    if (!e || !copy) {
        free(e);
        free(copy);
        return SP_ERR_NOMEM;
    }
    memcpy(copy, text, len + 1);
    if (misplaced(text, why, size)) {
        free(copy);
        sp_expr_free(e);
        return SP_ERR_INVALID;
    }
    pthread_mutex_lock(&matheval_lock);
    e->evaluator = evaluator_create(copy);
    const int parsed = e->evaluator != NULL;
    const int bound = parsed ? bind(e, symbols, text, why, size) : 0;
    pthread_mutex_unlock(&matheval_lock);
    free(copy);
    if (!parsed) { /* what the scan lets through and the grammar does not */
        snprintf(why, size, "is not an expression of the language");
        sp_expr_free(e);
        return SP_ERR_INVALID;
    }
    if (bound != 1) {
        sp_expr_free(e);
        return bound < 0 ? SP_ERR_NOMEM : SP_ERR_INVALID;
    }
    *out = e;
    return SP_OK;
}

int sp_expr_reads(const sp_expr *e, int symbol)
{
    for (int k = 0; e->evaluator && k < e->n_reads; ++k)
        if (e->index[k] == symbol) return 1;
    return 0;
}

int sp_expr_is_zero(const sp_expr *e) { return !e->evaluator && e->constant == 0.0; }

sp_expr *sp_expr_derivative(const sp_expr *e, const sp_expr_symbols *symbols, int symbol)
{
    if (!sp_expr_reads(e, symbol)) return sp_expr_constant(0.0);
    sp_expr *d = expr_new();
    if (!d) return NULL;
    pthread_mutex_lock(&matheval_lock);
    d->evaluator = evaluator_derivative(e->evaluator, (char *)symbols->names[symbol]);
    int bound = d->evaluator ? bind(d, symbols, NULL, NULL, 0) : -1;
    pthread_mutex_unlock(&matheval_lock);
    if (bound != 1) { /* a derivative reads no symbol its expression does not */
        sp_expr_free(d);
        return NULL;
    }
    return d;
}

double sp_expr_eval(sp_expr *e, const double *values)
{
    if (!e->evaluator) return e->constant;
    for (int k = 0; k < e->n_reads; ++k) e->buf[k] = values[e->index[k]];
    return evaluator_evaluate(e->evaluator, e->n_reads, e->names, e->buf);
}
