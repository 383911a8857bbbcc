/* Model parameters as data (sp_params.h): defaults, bounds, potentials, and their place
 * in results. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "problems/custom/sp_custom_model.h"
#include "problems/sp_params.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"

size_t sp_param_offset(sp_param_spec s, size_t i)
{
    size_t offset = 0;
    for (size_t k = 0; k < i; ++k) offset += (size_t)s.params[k].size;
    return offset;
}

void sp_params_default(sp_param_spec s, sp_param_values *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < s.n_params; ++i)
        memcpy(v->value + sp_param_offset(s, i), s.params[i].defaults, (size_t)s.params[i].size * sizeof(double));
}

/* ---- bounds */

static int above(sp_bound b, double x)
{
    return b.kind == SP_BOUND_NONE || (b.kind == SP_BOUND_OPEN ? x > b.at : x >= b.at);
}

static int below(sp_bound b, double x)
{
    return b.kind == SP_BOUND_NONE || (b.kind == SP_BOUND_OPEN ? x < b.at : x <= b.at);
}

void sp_param_must(const sp_param *p, char *out, size_t size)
{
    const sp_bound lo = p->lower, hi = p->upper;
    const int has_lo = lo.kind != SP_BOUND_NONE, has_hi = hi.kind != SP_BOUND_NONE;
    const int lo_open = lo.kind == SP_BOUND_OPEN, hi_open = hi.kind == SP_BOUND_OPEN;
    if (has_lo && has_hi)
        snprintf(out, size, "in %c%g, %g%c", lo_open ? '(' : '[', lo.at, hi.at, hi_open ? ')' : ']');
    else if (has_lo && lo.at == 0.0)
        snprintf(out, size, "%s", lo_open ? "positive" : "non-negative");
    else if (has_lo)
        snprintf(out, size, "%s %g", lo_open ? "greater than" : "at least", lo.at);
    else if (has_hi)
        snprintf(out, size, "%s %g", hi_open ? "less than" : "at most", hi.at);
    else
        snprintf(out, size, "a finite number");
}

/* Whether number j of parameter p, x, is refused; why then says what it must be, and
 * which entry of a vector it is. */
static int refused(const sp_param *p, int j, double x, char *why, size_t size)
{
    if (isfinite(x) && above(p->lower, x) && below(p->upper, x)) return 0;
    char must[64] = "a finite number";
    if (isfinite(x)) sp_param_must(p, must, sizeof must);
    if (p->size == 1)
        snprintf(why, size, "must be %s (got %.17g)", must, x);
    else
        snprintf(why, size, "must be %s (%s[%d] = %.17g)", must, p->name, j, x);
    return 1;
}

int sp_params_check(sp_param_spec s, const sp_param_values *v, char *why, size_t size)
{
    const double *x = v->value;
    for (size_t i = 0; i < s.n_params; x += s.params[i++].size)
        for (int j = 0; j < s.params[i].size; ++j)
            if (refused(&s.params[i], j, x[j], why, size)) return (int)i;
    return s.check ? s.check(v, why, size) : -1;
}

int sp_param_potential(sp_param_spec s, const char *name, char *why, size_t size)
{
    char known[160] = "";
    size_t used = 0;
    for (int i = 0; s.potential_names && s.potential_names[i]; ++i) {
        if (strcmp(s.potential_names[i], name) == 0) return i;
        if (used < sizeof known)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", s.potential_names[i]);
    }
    snprintf(why, size, "unknown potential '%s' for %s (known: %s)", name, s.model, known);
    return -1;
}

/* ---- results */

void sp_params_add_json(cJSON *settings, sp_param_spec s, const sp_param_values *v)
{
    cJSON *params = cJSON_AddObjectToObject(settings, "params");
    if (v->custom) { /* an expression model's parameters are the ones its file names */
        for (int i = 0; i < v->custom->n_params; ++i)
            cJSON_AddNumberToObject(params, v->custom->param_name[i], v->custom->param_value[i]);
        return;
    }
    for (size_t i = 0; i < s.n_params; ++i) {
        const sp_param *p = &s.params[i];
        const double *x = v->value + sp_param_offset(s, i);
        if (p->size == 1)
            cJSON_AddNumberToObject(params, p->name, *x);
        else
            sp_json_add_vector(params, p->name, p->size, x);
    }
    if (s.potential_names) cJSON_AddStringToObject(params, "potential", s.potential_names[v->potential]);
}

/* Sets the error at settings.params.<name> ("settings.params" when name is NULL). */
static sp_status fail(struct sp_input_error *err, const char *name, const char *fmt, ...)
{
    snprintf(err->path, sizeof err->path, "settings.params%s%s", name ? "." : "", name ? name : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return SP_ERR_INVALID;
}

/* The numbers of parameter p, when the result has them: a number, or an array of size numbers. */
static sp_status read_numbers(const cJSON *params, const sp_param *p, double *x, struct sp_input_error *err)
{
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(params, p->name);
    if (!node || cJSON_IsNull(node)) return SP_OK;
    if (p->size == 1) {
        if (!cJSON_IsNumber(node)) return fail(err, p->name, "must be a number");
        *x = node->valuedouble;
        return SP_OK;
    }
    if (!cJSON_IsArray(node) || cJSON_GetArraySize(node) != p->size)
        return fail(err, p->name, "must be an array of %d numbers", p->size);
    for (int j = 0; j < p->size; ++j) {
        const cJSON *e = cJSON_GetArrayItem(node, j);
        if (!cJSON_IsNumber(e)) return fail(err, p->name, "must be an array of %d numbers", p->size);
        x[j] = e->valuedouble;
    }
    return SP_OK;
}

sp_status sp_params_from_json(const cJSON *settings, sp_param_spec s, sp_param_values *v, struct sp_input_error *err)
{
    sp_params_default(s, v);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(settings, "params");
    if (!params || cJSON_IsNull(params)) return SP_OK;
    if (!cJSON_IsObject(params)) return fail(err, NULL, "must be an object");
    for (size_t i = 0; i < s.n_params; ++i)
        if (read_numbers(params, &s.params[i], v->value + sp_param_offset(s, i), err) != SP_OK) return SP_ERR_INVALID;
    char why[256];
    const char *potential = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "potential"));
    if (potential && s.potential_names) {
        v->potential = sp_param_potential(s, potential, why, sizeof why);
        if (v->potential < 0) return fail(err, "potential", "%s", why);
    }
    int bad = sp_params_check(s, v, why, sizeof why);
    return bad < 0 ? SP_OK : fail(err, s.params[bad].name, "%s", why);
}
