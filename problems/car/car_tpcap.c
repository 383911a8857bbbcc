/* TPCAP cases as problem files (sp_car_tpcap.h). The vehicle is the competition's:
 * wheelbase 2.8 m, overhangs 0.96 m front and 0.929 m rear, width 1.942 m, steering
 * limit 0.75 rad. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/car/sp_car_tpcap.h"

static sp_status fail(sp_input_error *err, const char *fmt, long at)
{
    snprintf(err->path, sizeof err->path, "%s", "");
    snprintf(err->message, sizeof err->message, fmt, at);
    return SP_ERR_INVALID;
}

/* The numbers of the file, comma or space separated (NULL with err filled). */
static double *numbers(const char *text, size_t length, size_t *n, sp_input_error *err)
{
    size_t cap = 256;
    double *v = malloc(cap * sizeof *v);
    char *copy = malloc(length + 1);
    if (!v || !copy) {
        free(v), free(copy);
        fail(err, "out of memory%.0ld", 0);
        return NULL;
    }
    memcpy(copy, text, length);
    copy[length] = '\0';
    *n = 0;
    for (char *p = copy;;) {
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
        if (!*p) break;
        errno = 0;
        char *end;
        double x = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(x)) {
            fail(err, "value %ld is not a finite number", (long)*n + 1);
            free(v), free(copy);
            return NULL;
        }
        if (*n == cap) {
            double *w = realloc(v, 2 * cap * sizeof *v);
            if (!w) {
                free(v), free(copy);
                fail(err, "out of memory%.0ld", 0);
                return NULL;
            }
            v = w, cap *= 2;
        }
        v[(*n)++] = x;
        p = end;
    }
    free(copy);
    return v;
}

sp_status sp_car_tpcap_problem(const char *text, size_t length, const char *name, cJSON **out, sp_input_error *err)
{
    *out = NULL;
    size_t n;
    double *v = numbers(text, length, &n, err);
    if (!v) return SP_ERR_INVALID;
    if (n < 7) {
        free(v);
        return fail(err, "a TPCAP case has at least 7 values (got %ld)", (long)n);
    }
    const long m = (long)v[6];
    if (v[6] != (double)m || m < 0 || (size_t)m > n - 7) {
        free(v);
        return fail(err, "value 7, the number of obstacles, does not fit the file (%ld)", m);
    }
    size_t at = 7 + (size_t)m, need = at;
    for (long i = 0; i < m; ++i) {
        if (v[7 + i] != floor(v[7 + i]) || v[7 + i] < 0 || v[7 + i] > 1e6) {
            free(v);
            return fail(err, "value %ld, a vertex count, is not a whole number", 8 + i);
        }
        need += 2 * (size_t)v[7 + i];
    }
    if (need != n) {
        free(v);
        return fail(err, "the vertex counts call for %ld values", (long)need);
    }
    const double ox = v[0], oy = v[1];
    cJSON *doc = cJSON_CreateObject();
    char desc[256];
    snprintf(desc, sizeof desc, "TPCAP %s (B. Li et al.), coordinates relative to the start (%.17g, %.17g)",
             name ? name : "case", ox, oy);
    cJSON_AddStringToObject(doc, "task", "plan");
    cJSON_AddStringToObject(doc, "model", "car");
    cJSON_AddStringToObject(doc, "description", desc);
    cJSON *veh = cJSON_AddObjectToObject(doc, "vehicle");
    cJSON_AddNumberToObject(veh, "wheelbase", 2.8);
    cJSON_AddNumberToObject(veh, "front_overhang", 0.96);
    cJSON_AddNumberToObject(veh, "rear_overhang", 0.929);
    cJSON_AddNumberToObject(veh, "width", 1.942);
    cJSON_AddNumberToObject(veh, "max_steering", 0.75);
    const double start[3] = {0.0, 0.0, v[2]}, goal[3] = {v[3] - ox, v[4] - oy, v[5]};
    cJSON_AddItemToObject(doc, "start", cJSON_CreateDoubleArray(start, 3));
    cJSON_AddItemToObject(doc, "goal", cJSON_CreateDoubleArray(goal, 3));
    cJSON *obs = cJSON_AddArrayToObject(doc, "obstacles");
    for (long i = 0; i < m; ++i) {
        cJSON *poly = cJSON_CreateArray();
        for (long k = 0; k < (long)v[7 + i]; ++k, at += 2) {
            /* repeated vertices (some cases list corners twice) add nothing */
            const double p[2] = {v[at] - ox, v[at + 1] - oy};
            cJSON *last = cJSON_GetArrayItem(poly, cJSON_GetArraySize(poly) - 1);
            if (last && cJSON_GetArrayItem(last, 0)->valuedouble == p[0] && cJSON_GetArrayItem(last, 1)->valuedouble == p[1])
                continue;
            cJSON_AddItemToArray(poly, cJSON_CreateDoubleArray(p, 2));
        }
        cJSON_AddItemToArray(obs, poly);
    }
    free(v);
    *out = doc;
    return SP_OK;
}
