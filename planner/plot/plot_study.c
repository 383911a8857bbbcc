/* The picture of a study (sp_plot.h): a figure of every case against one varied
 * parameter, one line per combination of the other varied parameters.
 *
 * The summary is read tolerantly: an array of case records, or an object whose "rows"
 * (or "cases") is that array (planner/study/sp_study.h). The varied parameters are the
 * summary's "parameters", else the keys of the records' "values", else the plain
 * fields that differ between records and are not outcomes. A figure is looked up in a
 * record's "values", then the record itself, then its "diagnostics". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/result_view.h"
#include "planner/plot/sp_plot.h"
#include "planner/draw/svg.h"

#define MAX_PARAMS 32

typedef struct study_view {
    const cJSON *rows; /* the array of records */
    int n_rows;
    const char *param[MAX_PARAMS];
    int n_params;
} study_view;

static const cJSON *field_of(const cJSON *row, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(row, "values"), name);
    if (!v) v = cJSON_GetObjectItemCaseSensitive(row, name);
    if (!v) v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(row, "diagnostics"), name);
    return v;
}

static int has_param(const study_view *v, const char *name)
{
    for (int i = 0; i < v->n_params; ++i)
        if (strcmp(v->param[i], name) == 0) return 1;
    return 0;
}

static void add_param(study_view *v, const char *name)
{
    if (v->n_params < MAX_PARAMS && !has_param(v, name)) v->param[v->n_params++] = name;
}

/* Outcomes rather than inputs: what a record reports about its run. */
static int is_outcome(const char *name)
{
    static const char *const names[] = {"case",
                                        "index",
                                        "id",
                                        "file",
                                        "input_hash",
                                        "status",
                                        "error",
                                        "message",
                                        "cost",
                                        "iterations",
                                        "wall_seconds",
                                        "diagnostics",
                                        "timing",
                                        "values",
                                        "gradient_norm",
                                        "residual",
                                        "starts",
                                        "length",
                                        "energy",
                                        "hamiltonian",
                                        "running_cost",
                                        "target_cost",
                                        "optimizer_result",
                                        "failed_at_step",
                                        NULL};
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], name) == 0) return 1;
    static const char *const suffixes[] = {"_error",   "_drift",  "_residual",   "_defect", "_relative",
                                           "_seconds", "_sweeps", "_iterations", NULL};
    size_t n = strlen(name);
    for (int i = 0; suffixes[i]; ++i) {
        size_t m = strlen(suffixes[i]);
        if (n >= m && strcmp(name + n - m, suffixes[i]) == 0) return 1;
    }
    static const char *const groups[] = {"timing.", "terminal_residual.", "implicit_solve.", "diagnostics.", NULL};
    for (int i = 0; groups[i]; ++i)
        if (strncmp(name, groups[i], strlen(groups[i])) == 0) return 1;
    return 0;
}

static sp_status read_view(const cJSON *summary, study_view *v, sp_input_error *err)
{
    memset(v, 0, sizeof *v);
    v->rows = cJSON_IsArray(summary) ? summary : cJSON_GetObjectItemCaseSensitive(summary, "rows");
    if (!cJSON_IsArray(v->rows)) v->rows = cJSON_GetObjectItemCaseSensitive(summary, "cases");
    if (!cJSON_IsArray(v->rows))
        return sp_input_fail(err, "", "not a study summary: expected an array of cases or an object with \"rows\"");
    v->n_rows = cJSON_GetArraySize(v->rows);
    const cJSON *row;
    int i = 0;
    cJSON_ArrayForEach(row, v->rows)
    {
        if (!cJSON_IsObject(row)) {
            char path[48];
            snprintf(path, sizeof path, "rows[%d]", i);
            return sp_input_fail(err, path, "must be an object (one case)");
        }
        ++i;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(summary, "parameters"), *p;
    cJSON_ArrayForEach(p, params) if (cJSON_IsString(p)) add_param(v, p->valuestring);
    if (v->n_params == 0) cJSON_ArrayForEach(row, v->rows)
        {
            cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(row, "values")) add_param(v, p->string);
        }
    if (v->n_params == 0) /* plain fields that differ between the records */
        cJSON_ArrayForEach(row, v->rows)
        {
            cJSON_ArrayForEach(p, row)
            {
                if (is_outcome(p->string) || has_param(v, p->string) || !(cJSON_IsNumber(p) || cJSON_IsString(p)))
                    continue;
                const cJSON *other;
                cJSON_ArrayForEach(other, v->rows)
                {
                    const cJSON *q = cJSON_GetObjectItemCaseSensitive(other, p->string);
                    if (q && !cJSON_Compare(p, q, 1)) {
                        add_param(v, p->string);
                        break;
                    }
                }
            }
        }
    if (v->n_params == 0) return sp_input_fail(err, "parameters", "no varied parameter found in the summary");
    return SP_OK;
}

/* How many records hold a number under name. */
static int count_numbers(const study_view *v, const char *name)
{
    int n = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, v->rows) n += cJSON_IsNumber(field_of(row, name));
    return n;
}

/* A parameter whose every present value is a number. */
static int numeric_param(const study_view *v, const char *name)
{
    int n = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, v->rows)
    {
        const cJSON *x = field_of(row, name);
        if (x && !cJSON_IsNumber(x)) return 0;
        n += x != NULL;
    }
    return n > 0;
}

/* "steps", "h", "optimizer.steps": a step count or size. */
static int is_step_parameter(const char *name)
{
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    return strcmp(last, "steps") == 0 || strcmp(last, "h") == 0;
}

/* "scheme=hohp_sv, retraction=cayley": the values of the parameters other than x. */
static void series_key(const study_view *v, const cJSON *row, const char *x, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < v->n_params && len < size; ++i) {
        if (strcmp(v->param[i], x) == 0) continue;
        const cJSON *val = field_of(row, v->param[i]);
        char *text = val ? cJSON_PrintUnformatted(val) : NULL;
        const char *shown = cJSON_IsString(val) ? val->valuestring : text ? text : "-";
        len += (size_t)snprintf(out + len, size - len, "%s%s=%s", len ? ", " : "", v->param[i], shown);
        free(text);
    }
    if (!out[0]) snprintf(out, size, "all cases");
}

/* The position of a case along x: its number, or for a categorical x the index of its
 * value among the categories (a new value becomes the next category); 0 when it has none. */
static int x_position(const cJSON *row, const char *x, int categorical, char (*cat)[64], int *n_cat, double *out)
{
    const cJSON *xv = field_of(row, x);
    if (!categorical) {
        if (!cJSON_IsNumber(xv)) return 0;
        *out = xv->valuedouble;
        return 1;
    }
    if (!xv) return 0;
    char name[64];
    if (cJSON_IsString(xv))
        snprintf(name, sizeof name, "%s", xv->valuestring);
    else if (cJSON_IsNumber(xv))
        snprintf(name, sizeof name, "%g", xv->valuedouble);
    else {
        char *text = cJSON_PrintUnformatted(xv);
        snprintf(name, sizeof name, "%s", text ? text : "?");
        free(text);
    }
    int i = 0;
    while (i < *n_cat && strcmp(cat[i], name) != 0) ++i;
    if (i == *n_cat) snprintf(cat[(*n_cat)++], sizeof cat[0], "%s", name);
    *out = i;
    return 1;
}

/* The point (x, y) a study row draws, if it draws one: a finite y, a placed x (positive on
 * log-log axes). Both passes over the rows (counting, then filling) go by it. */
static int drawn_point(const cJSON *row, const char *x, const char *y, int categorical, char (*cat)[64], int *n_cat,
                       int loglog, double *xd, double *yd)
{
    const cJSON *yv = field_of(row, y);
    if (!cJSON_IsNumber(yv) || !isfinite(yv->valuedouble) || !x_position(row, x, categorical, cat, n_cat, xd))
        return 0;
    if (loglog && !(*xd > 0)) return 0;
    *yd = yv->valuedouble;
    return 1;
}

typedef struct point {
    double x, y;
} point;

static int by_x(const void *a, const void *b)
{
    double d = ((const point *)a)->x - ((const point *)b)->x;
    return (d > 0) - (d < 0);
}

static int by_double(const void *a, const void *b)
{
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

typedef struct series {
    char key[256];
    point *pt;
    int n;
} series;

int sp_plot_is_study_summary(const cJSON *doc)
{
    if (cJSON_IsArray(doc)) return 1;
    return cJSON_IsObject(doc) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "rows")) &&
           !cJSON_GetObjectItemCaseSensitive(doc, "trajectory");
}

sp_status sp_plot_study(const cJSON *summary, const sp_study_plot_options *opt, char **svg, sp_input_error *err)
{
    *svg = NULL;
    memset(err, 0, sizeof *err);
    study_view v;
    sp_status st = read_view(summary, &v, err);
    if (st != SP_OK) return st;

    /* the figure and the parameter along x */
    const char *y = opt && opt->y ? opt->y : count_numbers(&v, "cost") ? "cost" : "energy_error";
    if (count_numbers(&v, y) == 0) {
        char known[200] = "";
        const cJSON *row, *m;
        cJSON_ArrayForEach(row, v.rows)
        {
            cJSON_ArrayForEach(m, row) if (cJSON_IsNumber(m) && !has_param(&v, m->string) &&
                                           strlen(known) + strlen(m->string) + 8 < sizeof known &&
                                           !strstr(known, m->string))
            {
                strcat(known, known[0] ? ", " : "");
                strcat(known, m->string);
            }
            if (known[0]) break;
        }
        return sp_input_fail(err, opt && opt->y ? "--y" : "rows", "no case has a number '%s' (figures: %s)", y,
                             known[0] ? known : "none");
    }
    const char *x = opt ? opt->x : NULL;
    if (x && !has_param(&v, x) && count_numbers(&v, x) == 0)
        return sp_input_fail(err, "--x", "'%s' is not a varied parameter (varied: %s%s%s)", x, v.param[0],
                             v.n_params > 1 ? ", " : "", v.n_params > 1 ? v.param[1] : "");
    for (int i = 0; !x && i < v.n_params; ++i)
        if (numeric_param(&v, v.param[i])) x = v.param[i];
    if (!x) x = v.param[0]; /* no numeric one: the first, as categories */
    /* a categorical x (any value not a number): the cases at evenly spaced positions 0, 1, …
     * in order of first appearance, named by their values */
    const int categorical = !numeric_param(&v, x);
    char(*cat_name)[64] = NULL;
    const char **cat = NULL;
    int n_cat = 0;
    if (categorical) {
        if (opt && opt->error)
            return sp_input_fail(err, "--error", "needs a numeric parameter along x ('%s' is not)", x);
        cat_name = calloc((size_t)v.n_rows + 1, sizeof *cat_name);
        cat = calloc((size_t)v.n_rows + 1, sizeof *cat);
        if (!cat_name || !cat) {
            free(cat_name), free(cat);
            sp_input_fail(err, "", "out of memory");
            return SP_ERR_NOMEM;
        }
    }
    const int loglog = !categorical && is_step_parameter(x);

    /* the series, in order of first appearance */
    series *ser = calloc((size_t)v.n_rows + 1, sizeof *ser);
    point *pts = calloc((size_t)v.n_rows + 1, sizeof *pts);
    if (!ser || !pts) {
        free(ser), free(pts), free(cat_name), free(cat);
        sp_input_fail(err, "", "out of memory");
        return SP_ERR_NOMEM;
    }
    int n_series = 0, used = 0, failed = 0;
    double minpos = INFINITY;
    const cJSON *row;
    cJSON_ArrayForEach(row, v.rows)
    {
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "status"));
        if (status && strcmp(status, "failed") == 0) ++failed;
        double xd, yd;
        if (!drawn_point(row, x, y, categorical, cat_name, &n_cat, loglog, &xd, &yd)) continue;
        if (yd > 0) minpos = fmin(minpos, yd);
        char key[256];
        series_key(&v, row, x, key, sizeof key);
        int s = 0;
        while (s < n_series && strcmp(ser[s].key, key) != 0) ++s;
        if (s == n_series) {
            snprintf(ser[s].key, sizeof ser[s].key, "%s", key);
            ++n_series;
        }
        ++ser[s].n;
        ++used;
    }
    /* each series' points together (its records need not be adjacent) */
    int offset = 0;
    for (int s = 0; s < n_series; ++s) ser[s].pt = pts + offset, offset += ser[s].n, ser[s].n = 0;
    int positive = 1;
    cJSON_ArrayForEach(row, v.rows)
    {
        double xd, yd;
        if (!drawn_point(row, x, y, categorical, cat_name, &n_cat, loglog, &xd, &yd)) continue;
        char key[256];
        series_key(&v, row, x, key, sizeof key);
        int s = 0;
        while (strcmp(ser[s].key, key) != 0) ++s;
        ser[s].pt[ser[s].n++] = (point){xd, yd};
        positive = positive && yd > 0;
    }
    for (int s = 0; s < n_series; ++s) qsort(ser[s].pt, (size_t)ser[s].n, sizeof *ser[s].pt, by_x);
    const int error = opt && opt->error;
    if (error) { /* each case against the next finer one of its line; the finest drops out */
        minpos = INFINITY;
        const char *last = strrchr(x, '.');
        const int finer_below = strcmp(last ? last + 1 : x, "h") == 0; /* smaller h is finer */
        used = 0;
        positive = 1;
        for (int s = 0; s < n_series; ++s) {
            if (ser[s].n == 0) continue;
            point *p = ser[s].pt;
            const int m = ser[s].n - 1;
            if (finer_below)
                for (int i = m; i >= 1; --i) p[i].y = fabs(p[i].y - p[i - 1].y);
            else
                for (int i = 0; i < m; ++i) p[i].y = fabs(p[i].y - p[i + 1].y);
            if (finer_below) memmove(p, p + 1, (size_t)m * sizeof *p);
            ser[s].n = m;
            for (int i = 0; i < m; ++i) {
                positive = positive && p[i].y > 0;
                if (p[i].y > 0) minpos = fmin(minpos, p[i].y);
            }
            used += m;
        }
        /* keep the points contiguous for the range below */
        int at = 0;
        for (int s = 0; s < n_series; ++s) {
            memmove(pts + at, ser[s].pt, (size_t)ser[s].n * sizeof *pts);
            ser[s].pt = pts + at;
            at += ser[s].n;
        }
    }

    /* scales: log–log for step counts and sizes; else linear x, and log y over wide positive ranges */
    double ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < used; ++i) ymin = fmin(ymin, pts[i].y), ymax = fmax(ymax, pts[i].y);
    const int ylog = loglog || (positive && used > 0 && ymax / ymin > 1e3);
    double floor_value = isfinite(minpos) ? pow(10.0, floor(log10(minpos / 10))) : 1e-16;
    if (ylog)
        for (int i = 0; i < used; ++i)
            if (!(pts[i].y > 0)) pts[i].y = floor_value;

    /* slopes where they mean an order: of errors, drifts and residuals */
    static const char *const error_like[] = {"error", "_drift", "_residual", "_defect", NULL};
    int show_slope = error;
    for (int i = 0; error_like[i]; ++i) {
        size_t n = strlen(y), m = strlen(error_like[i]);
        show_slope |= n >= m && strcmp(y + n - m, error_like[i]) == 0;
    }
    char title[300], sub[200], xlabel[160], ylabel[200], figure[160];
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(summary, "study"));
    if (error)
        snprintf(figure, sizeof figure, "|Δ%s| to the next finer case", y);
    else
        snprintf(figure, sizeof figure, "%s", y);
    snprintf(title, sizeof title, "Study%s%s: %s against %s", name ? " " : "", name ? name : "", figure, x);
    const char *last = strrchr(x, '.');
    const int by_size = strcmp(last ? last + 1 : x, "h") == 0;
    snprintf(sub, sizeof sub, "%d cases, %d drawn, %d failed · %s%s", v.n_rows, used, failed,
             loglog        ? "log–log axes"
             : categorical ? (ylog ? "categories along x, log y" : "categories along x")
             : ylog        ? "linear x, log y"
                           : "linear axes",
             !loglog || !show_slope ? ""
             : by_size              ? " · order p shows as slope p"
                                    : " · order p shows as slope −p");
    snprintf(xlabel, sizeof xlabel, "%s%s", x, loglog ? " (log scale)" : categorical ? " (categories)" : "");
    snprintf(ylabel, sizeof ylabel, "%s%s", figure, ylog ? " (log scale)" : "");

    sp_svg s;
    sp_svg_begin(&s, 1060, 620, title);
    sp_svg_text(&s, 530, 50, "class=\"subtitle\" text-anchor=\"middle\" fill=\"#444\"", sub);
    sp_chart c = {.left = 100, .top = 90, .width = 600, .height = 440};
    c.x.log = loglog, c.y.log = ylog;
    c.x.label = xlabel, c.y.label = ylabel;
    /* ticks at the varied values themselves when there are few of them */
    double xticks[12];
    int n_xticks = 0;
    for (int i = 0; i < used && n_xticks <= 12; ++i) {
        int seen = 0;
        for (int j = 0; j < n_xticks && !seen; ++j) seen = xticks[j] == pts[i].x;
        if (!seen && n_xticks < 12) xticks[n_xticks] = pts[i].x;
        if (!seen) ++n_xticks;
    }
    if (categorical) { /* every category, half a step of room at either end */
        for (int i = 0; i < n_cat; ++i) cat[i] = cat_name[i];
        c.x_category = cat, c.n_x_categories = n_cat;
        c.x.min = -0.5, c.x.max = n_cat - 0.5, c.x.have = 1;
    } else if (n_xticks >= 2 && n_xticks <= 12) {
        qsort(xticks, (size_t)n_xticks, sizeof *xticks, by_double);
        c.x.ticks = xticks, c.x.n_ticks = n_xticks;
    }
    for (int i = 0; i < used; ++i) {
        if (!categorical) sp_axis_include(&c.x, pts[i].x);
        sp_axis_include(&c.y, pts[i].y);
    }
    if (c.x.n_ticks && c.x.log) { /* a little room around the first and last value */
        double f = pow(c.x.max / c.x.min, 0.05);
        c.x.min /= f, c.x.max *= f;
    }
    if (c.x.n_ticks && !c.x.log) {
        double d = 0.05 * (c.x.max - c.x.min);
        c.x.min -= d, c.x.max += d;
    }
    if (!c.x.n_ticks && !categorical) sp_axis_finish(&c.x);
    sp_axis_finish(&c.y);
    sp_chart_axes(&s, &c);
    sp_legend l = {.x = c.left + c.width + 20, .y = c.top + 8};
    for (int pass = 0; pass < 2; ++pass) {
        if (pass) sp_svg_add(&s, "<g class=\"legend\">\n");
        for (int k = 0; k < n_series; ++k) {
            char style[96], label[320], marker[256];
            snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"2\"", sp_svg_color(k));
            if (pass) {
                /* on log–log axes the least-squares slope is the observed order (negated for counts) */
                double sx = 0, sy = 0, sxx = 0, sxy = 0;
                int m = ser[k].n;
                for (int i = 0; i < m; ++i) {
                    double lx = log(ser[k].pt[i].x), ly = log(ser[k].pt[i].y);
                    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
                }
                double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
                if (loglog && show_slope && m >= 2 && isfinite(slope))
                    snprintf(label, sizeof label, "%s (slope %.2f)", ser[k].key, slope);
                else
                    snprintf(label, sizeof label, "%s", ser[k].key);
                snprintf(marker, sizeof marker,
                         "<line x1=\"-12\" y1=\"0\" x2=\"12\" y2=\"0\" %s/><circle r=\"3.5\" fill=\"%s\"/>", style,
                         sp_svg_color(k));
                sp_legend_entry(&s, &l, NULL, marker, label);
                continue;
            }
            sp_chart_series(&s, &c, ser[k].key, (size_t)ser[k].n, &ser[k].pt[0].x, 2, &ser[k].pt[0].y, 2, style);
            for (int i = 0; i < ser[k].n; ++i) {
                char tip[400];
                if (categorical)
                    snprintf(tip, sizeof tip, "%s = %s, %s = %.6g", x, cat_name[(int)ser[k].pt[i].x], y,
                             ser[k].pt[i].y);
                else
                    snprintf(tip, sizeof tip, "%s = %g, %s = %.6g", x, ser[k].pt[i].x, y, ser[k].pt[i].y);
                sp_svg_add(&s, "<circle class=\"point\" cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\" fill=\"%s\"><title>",
                           sp_chart_px(&c, ser[k].pt[i].x), sp_chart_py(&c, ser[k].pt[i].y), sp_svg_color(k));
                sp_svg_escaped(&s, tip);
                sp_svg_add(&s, "</title></circle>\n");
            }
        }
        if (pass) sp_svg_add(&s, "</g>\n");
    }
    free(ser), free(pts), free(cat_name), free(cat);
    *svg = sp_svg_end(&s);
    if (!*svg) {
        sp_input_fail(err, "", "out of memory while drawing");
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}
