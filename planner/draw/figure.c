/* The parts every picture of a result shares (sp_figure.h). */
#include <stdio.h>
#include <string.h>

#include "planner/draw/sp_figure.h"

const char *sp_figure_string(const cJSON *obj, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(obj, key));
}

int sp_figure_numbers(const cJSON *node, int n, double *out)
{
    if (!cJSON_IsArray(node)) return 0;
    int k = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, node)
    {
        if (cJSON_IsNumber(x)) {
            if (k >= n) return 0;
            out[k++] = x->valuedouble;
        } else if (cJSON_IsArray(x) && n == 9) {
            const cJSON *y;
            cJSON_ArrayForEach(y, x)
            {
                if (!cJSON_IsNumber(y) || k >= n) return 0;
                out[k++] = y->valuedouble;
            }
        } else {
            return 0;
        }
    }
    return k == n;
}

/* "status converged · cost 2.06591 · scheme=hohp_sv, steps=100, L=0.3" from the result. */
static void subtitle(const cJSON *root, char *out, size_t size)
{
    size_t len = 0;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        if (len < size) len += (size_t)snprintf(out + len, size - len, __VA_ARGS__);                                   \
    } while (0)
    out[0] = '\0';
    PUT("status %s", sp_figure_string(root, "status"));
    const cJSON *cost = cJSON_GetObjectItem(root, "cost");
    if (cJSON_IsNumber(cost)) PUT(" · cost %.6g", cost->valuedouble);
    const cJSON *it = cJSON_GetObjectItem(root, "iterations");
    const cJSON *optimality = cJSON_GetObjectItem(root, "optimality_residual");
    if (cJSON_IsNumber(it) && cJSON_IsNumber(optimality))
        PUT(" after %d Newton iterations · optimality residual %.1g", (int)it->valuedouble, optimality->valuedouble);
    else if (cJSON_IsNumber(it))
        PUT(" after %d evaluations", (int)it->valuedouble);
    const cJSON *res = cJSON_GetObjectItem(root, "residual");
    if (cJSON_IsNumber(res)) PUT(" · endpoint residual %.2g", res->valuedouble);
    const char *sep = " · ";
    const cJSON *settings = cJSON_GetObjectItem(root, "settings"), *m;
    for (int pass = 0; pass < 2; ++pass) { /* the settings, then their "params" */
        const cJSON *obj = pass ? cJSON_GetObjectItem(settings, "params") : settings;
        cJSON_ArrayForEach(m, obj)
        {
            if (cJSON_IsString(m))
                PUT("%s%s=%s", sep, m->string, m->valuestring);
            else if (cJSON_IsNumber(m))
                PUT("%s%s=%g", sep, m->string, m->valuedouble);
            else
                continue;
            sep = ", ";
        }
    }
#undef PUT
    if (len >= size && size > 4) strcpy(out + size - 4, "...");
}

void sp_figure_begin(sp_svg *s, double width, double height, const char *title, const cJSON *root)
{
    char sub[400];
    sp_svg_begin(s, width, height, title);
    subtitle(root, sub, sizeof sub);
    sp_svg_text(s, width / 2, 50, "class=\"subtitle\" text-anchor=\"middle\" fill=\"#444\"", sub);
}

sp_status sp_figure_finish(sp_svg *s, char **svg, sp_input_error *err)
{
    *svg = sp_svg_end(s);
    if (!*svg) {
        snprintf(err->path, sizeof err->path, "%s", "");
        snprintf(err->message, sizeof err->message, "%s", "out of memory while drawing");
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

