/* A derived quantity of a result against time (sp_plot_expression of sp_plot.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/draw/sp_figure.h"
#include "planner/result_view.h"
#include "planner/plot/sp_plot.h"
#include "problems/custom/sp_expr.h"

#define EXPR_MAX_COLUMNS 64

/* The CSV of sp_export_csv split into its column names (in place) and rows of numbers. */
typedef struct columns {
    int count;
    const char *name[EXPR_MAX_COLUMNS];
    size_t rows;
    double *value; /* rows x count */
} columns;

static sp_status read_columns(char *csv, columns *c, sp_input_error *err)
{
    memset(c, 0, sizeof *c);
    char *line_end = strchr(csv, '\n');
    if (!line_end) return sp_input_fail(err, "trajectory", "has no rows to draw");
    *line_end = '\0';
    for (char *p = csv; p && c->count < EXPR_MAX_COLUMNS;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        c->name[c->count++] = p;
        p = comma ? comma + 1 : NULL;
    }
    size_t lines = 0;
    for (const char *p = line_end + 1; *p; ++p) lines += *p == '\n';
    c->value = malloc((lines ? lines : 1) * (size_t)c->count * sizeof *c->value);
    if (!c->value) return sp_input_fail(err, "", "out of memory");
    char *p = line_end + 1;
    while (*p && c->rows < lines) {
        double *row = c->value + c->rows * (size_t)c->count;
        for (int k = 0; k < c->count; ++k) {
            char *end;
            row[k] = strtod(p, &end);
            p = *end == ',' ? end + 1 : end;
        }
        while (*p && *p != '\n') ++p;
        if (*p) ++p;
        c->rows++;
    }
    return SP_OK;
}

sp_status sp_plot_expression(const cJSON *result, const char *expression, char **svg, sp_input_error *err)
{
    *svg = NULL;
    char *csv = NULL;
    size_t length;
    sp_status st = sp_export_csv(result, &csv, &length, err);
    if (st != SP_OK) return st;
    columns c;
    st = read_columns(csv, &c, err);
    sp_expr *e = NULL;
    if (st == SP_OK) {
        char why[200];
        const sp_expr_symbols symbols = {.count = c.count, .names = c.name};
        st = sp_expr_parse(expression, &symbols, &e, why, sizeof why);
        if (st == SP_ERR_NOMEM) sp_input_fail(err, "", "out of memory");
        else if (st != SP_OK) {
            char names[400];
            size_t len = 0;
            for (int k = 0; k < c.count && len < sizeof names; ++k)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", c.name[k]);
            sp_input_fail(err, "", "--y '%s' %s; the columns (as symplan export writes them) are %s", expression, why,
                          names);
        }
    }
    double *y = st == SP_OK ? malloc((c.rows ? c.rows : 1) * sizeof *y) : NULL;
    if (st == SP_OK && !y) st = sp_input_fail(err, "", "out of memory");
    if (st == SP_OK) {
        sp_chart ch = {.left = 90, .top = 80, .width = 700, .height = 420, .x = {.label = c.name[0]},
                       .y = {.label = expression}};
        for (size_t r = 0; r < c.rows; ++r) {
            y[r] = sp_expr_eval(e, c.value + r * (size_t)c.count);
            sp_axis_include(&ch.x, c.value[r * (size_t)c.count]);
            sp_axis_include(&ch.y, y[r]);
        }
        sp_axis_finish(&ch.x), sp_axis_finish(&ch.y);
        char title[160];
        const char *model = sp_figure_string(result, "model");
        snprintf(title, sizeof title, "%s of a %s result", expression, model ? model : "");
        sp_svg s;
        sp_figure_begin(&s, 1000, 560, title, result);
        sp_chart_axes(&s, &ch);
        static const char *const style = "stroke=\"#1f77b4\" stroke-width=\"1.6\"";
        sp_chart_series(&s, &ch, expression, c.rows, c.value, (size_t)c.count, y, 1, style);
        sp_legend l = {.x = ch.left + ch.width + 20, .y = ch.top + 8};
        sp_svg_add(&s, "<g class=\"legend\">\n");
        sp_legend_entry(&s, &l, style, NULL, expression);
        sp_svg_add(&s, "</g>\n");
        st = sp_figure_finish(&s, svg, err);
    }
    free(y), sp_expr_free(e), free(c.value), free(csv);
    return st;
}

