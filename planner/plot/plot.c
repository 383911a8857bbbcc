/* Pictures of results (sp_plot.h), the part every family shares. A family draws its own
 * picture of the results it knows best through its figure (sp_family.h): the cubic
 * plans (planner/cubic/figures.c) and the car's plans (car_figure.c). Every other result
 * (simulations of any model, vakonomic plans) takes the common picture: the configuration
 * against time, one line per component, and the drift of the invariants on a log scale,
 * recomputed from the trajectory by the result's family (the momentum map, the
 * right-action momentum, the Casimir and the energy of a cubic; Ĥ, the first integrals
 * and the constraint residual of a vakonomic model; for a holonomic model |q|² − l² and
 * q·p (or the constraint and hidden constraint), |H − H0| and each first integral; for a
 * nonholonomic model |H − H0|, each first integral, |Ψ(q, p)| and, on groups, the
 * distance from the group); the families whose models move in the plane add the path in
 * the plane of their first two coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_family.h"
#include "planner/result_view.h"
#include "planner/plot/sp_plot.h"
#include "planner/draw/sp_figure.h"
#include "integrators/sp_hohp.h"
#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/custom/sp_expr.h"
#include "problems/sp_json_packed.h"

/* ---- configuration against time, invariants on a log scale */

#define MAX_DRIFT (SP_VAK_MAX_INTEGRALS + 4)

typedef struct drift_set {
    int count;
    char name[MAX_DRIFT][64];
    double *value[MAX_DRIFT]; /* rows each */
} drift_set;

static void drift_release(drift_set *d)
{
    for (int i = 0; i < d->count; ++i) free(d->value[i]);
    d->count = 0;
}

static double *drift_add(drift_set *d, const char *name, int rows)
{
    if (d->count == MAX_DRIFT) return NULL;
    d->value[d->count] = calloc((size_t)rows, sizeof(double));
    if (!d->value[d->count]) return NULL;
    snprintf(d->name[d->count], sizeof d->name[0], "%s", name);
    return d->value[d->count++];
}

/* drift_add as the callback of the families' drift (sp_family.h) */
static double *drift_add_cb(void *d, const char *name, int rows) { return drift_add(d, name, rows); }

/* Names of the components of q: the "coordinates", q_ij for a matrix group, else q_i. */
static void component_name(const sp_traj *tr, const char *field, int width, int i, char *out, size_t size)
{
    int k = (int)lround(sqrt(width));
    if (tr->n_coordinates == width)
        snprintf(out, size, "%s", tr->coordinates[i]);
    else if (strcmp(field, "q") == 0 && width >= 4 && k * k == width)
        snprintf(out, size, "%s_%d%d", field, i / k + 1, i % k + 1);
    else
        snprintf(out, size, "%s_%d", field, i + 1);
}

/* ---- the configuration as drawn: orientations as angle and axis */

enum { CONFIG_PLAIN, CONFIG_ROTATION, CONFIG_QUATERNION };

/* The configuration panel's view of q: its rows as they are, or, for rotation matrices,
 * the rotation angle and the three components of the unit axis (owned). */
typedef struct config_view {
    const double *data;
    double *owned;
    int width, kind;
} config_view;

/* Every finite row of 9 numbers is a rotation matrix (orthogonal within 1e-6, det > 0). */
static int rotation_rows(const sp_traj_field *q, int rows)
{
    if (q->width != 9 || rows < 1) return 0;
    for (int k = 0; k < rows; ++k) {
        const double *R = q->data + (size_t)k * 9;
        if (!sp_vec_isfinite(9, R)) continue;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double dot = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
                if (fabs(dot - (i == j)) > 1e-6) return 0;
            }
        double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                     R[2] * (R[3] * R[7] - R[4] * R[6]);
        if (!(det > 0)) return 0;
    }
    return 1;
}

/* The angle in [0, π] and unit axis of a rotation matrix; the axis is that of the previous
 * row (prev, may be NULL) where the angle is too small to define one. */
static void angle_axis(const double *R, const double *prev, double *out)
{
    double v[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]};
    double s2 = sp_vec_norm(3, v), c2 = R[0] + R[4] + R[8] - 1.0;
    double angle = atan2(s2, c2);
    out[0] = angle;
    if (!isfinite(angle)) {
        out[1] = out[2] = out[3] = NAN;
        return;
    }
    if (angle > 3.0) { /* near π: from the largest column of R + I, its sign from the skew part */
        int best = 0;
        double col[3][3], norm[3];
        for (int j = 0; j < 3; ++j) {
            for (int i = 0; i < 3; ++i) col[j][i] = R[3 * i + j] + (i == j);
            norm[j] = sp_vec_norm(3, col[j]);
            if (norm[j] > norm[best]) best = j;
        }
        double sign = sp_vec_dot(3, col[best], v) < 0 ? -1.0 : 1.0;
        for (int i = 0; i < 3; ++i) out[1 + i] = sign * col[best][i] / norm[best];
    } else if (s2 > 1e-12) {
        for (int i = 0; i < 3; ++i) out[1 + i] = v[i] / s2;
    } else if (prev && isfinite(prev[1])) {
        for (int i = 0; i < 3; ++i) out[1 + i] = prev[1 + i];
    } else {
        out[1] = out[2] = out[3] = NAN; /* filled in by config_of */
    }
}

static sp_status config_of(const sp_traj *tr, const sp_traj_field *q, config_view *v, sp_input_error *err)
{
    *v = (config_view){.data = q->data, .width = q->width, .kind = CONFIG_PLAIN};
    if (tr->n_coordinates == q->width) return SP_OK; /* the model names its coordinates */
    if (q->width == 4 && strcmp(q->name, "quaternion") == 0) {
        v->kind = CONFIG_QUATERNION;
        return SP_OK;
    }
    if (!rotation_rows(q, tr->rows)) return SP_OK;
    v->owned = malloc((size_t)tr->rows * 4 * sizeof(double));
    if (!v->owned) return sp_input_fail(err, "trajectory.q", "out of memory");
    for (int k = 0; k < tr->rows; ++k)
        angle_axis(q->data + (size_t)k * 9, k ? v->owned + (size_t)(k - 1) * 4 : NULL, v->owned + (size_t)k * 4);
    /* the leading rows without an axis of their own (the identity at the start): the first axis
     * defined, or (0, 0, 0) when the rotation never leaves the identity */
    int first = 0;
    while (first < tr->rows && !(isfinite(v->owned[(size_t)first * 4]) && isfinite(v->owned[(size_t)first * 4 + 1])))
        ++first;
    for (int k = 0; k < tr->rows; ++k) {
        double *row = v->owned + (size_t)k * 4;
        if (!isfinite(row[0]) || isfinite(row[1])) continue;
        for (int i = 1; i < 4; ++i) row[i] = first < tr->rows ? v->owned[(size_t)first * 4 + i] : 0.0;
    }
    v->data = v->owned, v->width = 4, v->kind = CONFIG_ROTATION;
    return SP_OK;
}

static void config_name(const sp_traj *tr, const sp_traj_field *q, const config_view *v, int i, char *out, size_t size)
{
    static const char *const rotation[4] = {"rotation angle (rad)", "axis x", "axis y", "axis z"};
    if (v->kind == CONFIG_ROTATION)
        snprintf(out, size, "%s", rotation[i]);
    else if (v->kind == CONFIG_QUATERNION) /* "quaternion w", … in the result's order */
        snprintf(out, size, "quaternion %c", sp_quaternion_order_at((size_t)tr->quaternion_xyzw)[i]);
    else
        component_name(tr, q->name, q->width, i, out, size);
}

static const char *config_label(const config_view *v)
{
    return v->kind == CONFIG_ROTATION     ? "rotation angle and axis"
           : v->kind == CONFIG_QUATERNION ? "quaternion"
                                          : "configuration q";
}

static sp_status plot_time_series(const cJSON *root, const sp_traj *tr, char **svg, sp_input_error *err)
{
    const char *model = sp_figure_string(root, "model"), *task = sp_figure_string(root, "task");
    const sp_traj_field *q = sp_traj_get(tr, "q");
    if (!q) q = sp_traj_get(tr, "quaternion");
    for (int i = 0; !q && i < tr->n_fields; ++i) /* a model without "q": its first state component */
        if (tr->field[i].width > 0) q = &tr->field[i];
    if (!q) return sp_input_fail(err, "trajectory.q", "missing: no configuration to draw");

    drift_set d = {0};
    const sp_family *family = sp_family_of_result(root);
    sp_status st = family && family->drift ? family->drift(root, model, tr, drift_add_cb, &d, err) : SP_OK;
    config_view cv;
    if (st == SP_OK) st = config_of(tr, q, &cv, err);
    if (st != SP_OK) {
        drift_release(&d);
        return st;
    }
    /* exact zeros drawn at a floor below every positive value (and at most 1e-16) */
    double minpos = INFINITY;
    for (int i = 0; i < d.count; ++i)
        for (int k = 1; k < tr->rows; ++k)
            if (d.value[i][k] > 0.0) minpos = fmin(minpos, d.value[i][k]);
    double floor_value = isfinite(minpos) ? fmin(1e-16, minpos / 10) : 1e-16;
    floor_value = pow(10.0, floor(log10(floor_value)));
    for (int i = 0; i < d.count; ++i)
        for (int k = 0; k < tr->rows; ++k)
            if (d.value[i][k] == 0.0) d.value[i][k] = floor_value;

    const int plane = family && family->planar && family->planar(model) && strcmp(q->name, "q") == 0 && q->width >= 2;
    const double width = plane ? 1240 : 1160, panel_w = plane ? 560 : 780;
    const int has_drift = d.count > 0 && tr->rows > 1;
    const double height = has_drift ? 760 : 420;
    char title[160];
    const char *gname = sp_figure_string(cJSON_GetObjectItem(root, "settings"), "group");
    snprintf(title, sizeof title, "%s %s%s%s", model ? model : "result", task, gname ? " on " : "", gname ? gname : "");
    sp_svg s;
    sp_figure_begin(&s, width, height, title, root);

    /* configuration against time */
    sp_chart a = {.left = 90, .top = 90, .width = panel_w, .height = 250, .title = "Configuration against time"};
    a.x.label = "time t";
    a.y.label = config_label(&cv);
    if (cv.kind == CONFIG_ROTATION) a.title = "Orientation against time: rotation angle and axis";
    for (int k = 0; k < tr->rows; ++k) {
        sp_axis_include(&a.x, tr->t[k]);
        for (int i = 0; i < cv.width; ++i) sp_axis_include(&a.y, cv.data[(size_t)k * cv.width + i]);
    }
    sp_axis_finish(&a.x);
    sp_axis_finish(&a.y);
    sp_chart_axes(&s, &a);
    sp_legend l = {.x = a.left + a.width + 18, .y = a.top + 8};
    for (int i = 0; i < cv.width; ++i) {
        char name[80], style[96];
        config_name(tr, q, &cv, i, name, sizeof name);
        snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"", sp_svg_color(i));
        sp_chart_series(&s, &a, name, (size_t)tr->rows, tr->t, 1, cv.data + i, (size_t)cv.width, style);
    }
    sp_svg_add(&s, "<g class=\"legend\">\n");
    for (int i = 0; i < cv.width; ++i) {
        char name[80], style[96];
        config_name(tr, q, &cv, i, name, sizeof name);
        snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"", sp_svg_color(i));
        sp_legend_entry(&s, &l, style, NULL, name);
    }
    sp_svg_add(&s, "</g>\n");

    /* invariants on a log scale (the drift at t = 0 is zero by definition: from the first step on) */
    if (has_drift) {
        sp_chart b = {.left = 90, .top = 450, .width = panel_w, .height = 250, .title = "Drift of the invariants"};
        b.x = (sp_axis){.min = a.x.min, .max = a.x.max, .have = 1, .label = "time t"};
        b.y.log = 1;
        b.y.label = "drift (log scale)";
        for (int i = 0; i < d.count; ++i)
            for (int k = 1; k < tr->rows; ++k) sp_axis_include(&b.y, d.value[i][k]);
        if (b.y.min <= floor_value) sp_axis_include(&b.y, floor_value / 10); /* floored lines above the frame */
        sp_axis_finish(&b.y);
        sp_chart_axes(&s, &b);
        static const char *const dash[3] = {"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 2\""};
        l = (sp_legend){.x = b.left + b.width + 18, .y = b.top + 8};
        for (int pass = 0; pass < 2; ++pass) {
            if (pass) sp_svg_add(&s, "<g class=\"legend\">\n");
            for (int i = 0; i < d.count; ++i) {
                char style[128];
                snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"%s", sp_svg_color(i + 4), dash[i % 3]);
                if (pass)
                    sp_legend_entry(&s, &l, style, NULL, d.name[i]);
                else
                    sp_chart_series(&s, &b, d.name[i], (size_t)tr->rows - 1, tr->t + 1, 1, d.value[i] + 1, 1, style);
            }
            if (pass) sp_svg_add(&s, "</g>\n");
        }
        char note[96];
        snprintf(note, sizeof note, "exact zeros drawn at %.0e", floor_value);
        sp_svg_text(&s, l.x, l.y + 18 * l.count + 10, "class=\"floor-note\" font-size=\"11\" fill=\"#555\"", note);
        if (model && strcmp(model, "cubic_spline") == 0)
            sp_svg_text(&s, l.x, l.y + 18 * l.count + 26, "font-size=\"11\" fill=\"#555\"",
                        "momenta and |ν| relative, energy absolute");
    }

    /* the path in the plane of the first two coordinates, equal scales */
    if (plane) {
        char xl[80], yl[80];
        component_name(tr, q->name, q->width, 0, xl, sizeof xl);
        component_name(tr, q->name, q->width, 1, yl, sizeof yl);
        sp_chart c = {.left = 910, .top = 90, .width = 290, .height = 290, .title = "Path in the plane"};
        sp_axis x = {0}, y = {0};
        double target[SP_TRAJ_MAX_WIDTH];
        int has_target = sp_figure_numbers(cJSON_GetObjectItem(root, "target"), q->width, target);
        for (int k = 0; k < tr->rows; ++k)
            sp_axis_include(&x, q->data[(size_t)k * q->width]), sp_axis_include(&y, q->data[(size_t)k * q->width + 1]);
        if (has_target) sp_axis_include(&x, target[0]), sp_axis_include(&y, target[1]);
        double span = fmax(fmax(x.max - x.min, y.max - y.min) * 1.12, 1e-6), mx = 0.5 * (x.min + x.max),
               my = 0.5 * (y.min + y.max);
        c.x = (sp_axis){.min = mx - span / 2, .max = mx + span / 2, .have = 1, .label = xl};
        c.y = (sp_axis){.min = my - span / 2, .max = my + span / 2, .have = 1, .label = yl};
        sp_chart_axes(&s, &c);
        sp_chart_path(&s, &c, "path", (size_t)tr->rows, q->data, (size_t)q->width, q->data + 1, (size_t)q->width,
                      "stroke=\"#1f77b4\" stroke-width=\"2\"");
        const double *end = q->data + (size_t)(tr->rows - 1) * q->width;
        sp_svg_add(
            &s,
            "<circle class=\"start\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"#2ca02c\"><title>start</title></circle>\n",
            sp_chart_px(&c, q->data[0]), sp_chart_py(&c, q->data[1]));
        sp_svg_add(&s,
                   "<rect class=\"end\" x=\"%.2f\" y=\"%.2f\" width=\"9\" height=\"9\" "
                   "fill=\"#1f77b4\"><title>end</title></rect>\n",
                   sp_chart_px(&c, end[0]) - 4.5, sp_chart_py(&c, end[1]) - 4.5);
        if (has_target)
            sp_svg_add(&s,
                       "<circle class=\"target\" cx=\"%.2f\" cy=\"%.2f\" r=\"8\" fill=\"none\" stroke=\"#ff7f0e\" "
                       "stroke-width=\"2.5\"><title>target</title></circle>\n",
                       sp_chart_px(&c, target[0]), sp_chart_py(&c, target[1]));
        l = (sp_legend){.x = c.left, .y = c.top + c.height + 60};
        sp_svg_add(&s, "<g class=\"legend\">\n");
        sp_legend_entry(&s, &l, "stroke=\"#1f77b4\" stroke-width=\"2\"", NULL, "path");
        sp_legend_entry(&s, &l, NULL, "<circle r=\"5\" fill=\"#2ca02c\"/>", "start");
        sp_legend_entry(&s, &l, NULL, "<rect x=\"-4.5\" y=\"-4.5\" width=\"9\" height=\"9\" fill=\"#1f77b4\"/>", "end");
        if (has_target)
            sp_legend_entry(&s, &l, NULL, "<circle r=\"7\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"2.5\"/>",
                            "target");
        sp_svg_add(&s, "</g>\n");
    }
    drift_release(&d);
    free(cv.owned);
    return sp_figure_finish(&s, svg, err);
}

sp_status sp_plot_result(const cJSON *result, char **svg, sp_input_error *err)
{
    *svg = NULL;
    sp_status st = sp_result_check(result, err);
    if (st != SP_OK) return st;
    sp_traj tr;
    if ((st = sp_traj_read(result, &tr, err)) != SP_OK) return st;
    const sp_family *family = sp_family_of_result(result);
    if (family && family->figure) st = family->figure(result, &tr, svg, err);
    if (st == SP_OK && !*svg) st = plot_time_series(result, &tr, svg, err);
    sp_traj_release(&tr);
    return st;
}

/* ---- several results overlaid */

/* One result of a comparison: its trajectory, configuration and drift. */
typedef struct compared {
    sp_traj tr;
    int have_tr;
    const sp_traj_field *q;
    config_view cv;
    drift_set d;
} compared;

#define COMPARE_COMPONENTS 3

static sp_status compared_read(const cJSON *root, compared *c, sp_input_error *err)
{
    sp_status st = sp_result_check(root, err);
    if (st != SP_OK) return st;
    if ((st = sp_traj_read(root, &c->tr, err)) != SP_OK) return st;
    c->have_tr = 1;
    c->q = sp_traj_get(&c->tr, "q");
    if (!c->q) c->q = sp_traj_get(&c->tr, "quaternion");
    for (int i = 0; !c->q && i < c->tr.n_fields; ++i)
        if (c->tr.field[i].width > 0) c->q = &c->tr.field[i];
    if (!c->q) return sp_input_fail(err, "trajectory.q", "missing: no configuration to draw");
    if ((st = config_of(&c->tr, c->q, &c->cv, err)) != SP_OK) return st;
    const char *model = sp_figure_string(root, "model");
    const sp_family *family = sp_family_of_result(root);
    return family && family->drift ? family->drift(root, model, &c->tr, drift_add_cb, &c->d, err) : SP_OK;
}

/* The label of a result: its name, unless names repeat (or there are none): model + scheme. */
/* The block that says what a result was run with: a study case's varied values, else the
 * problem it ran ("input"). */
static const cJSON *run_values(const cJSON *root, int study)
{
    return study ? cJSON_GetObjectItem(cJSON_GetObjectItem(root, "case"), "values") : cJSON_GetObjectItem(root, "input");
}

/* A value as a legend shows it: numbers by %g, strings bare, anything else as compact JSON
 * (cut to the buffer). */
static void legend_value(const cJSON *v, char *out, size_t size)
{
    if (cJSON_IsNumber(v)) {
        snprintf(out, size, "%g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        snprintf(out, size, "%s", v->valuestring);
    } else {
        char *text = v ? cJSON_PrintUnformatted(v) : NULL;
        snprintf(out, size, "%s", text ? text : "none");
        free(text);
    }
}

/* Whether member `key` of the run values differs between any two of the n results (absent
 * counts as a value of its own). */
static int differs(const cJSON *const *results, int n, int study, const char *key)
{
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(run_values(results[0], study), key);
    for (int j = 1; j < n; ++j) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(run_values(results[j], study), key);
        if (!first != !other || (first && !cJSON_Compare(first, other, 1))) return 1;
    }
    return 0;
}

/* Whether the results ran one problem with a few fields changed (the same model, at most
 * three fields of the input differ): then the fields say best which is which; results of
 * different problems are told apart by their file names. */
static int variants_of_one_problem(const cJSON *const *results, int n)
{
    const cJSON *first = run_values(results[0], 0);
    if (!cJSON_IsObject(first)) return 0;
    const char *model = sp_figure_string(first, "model");
    int differing = 0;
    for (int j = 0; j < n; ++j) {
        const cJSON *in = run_values(results[j], 0), *v;
        const char *m = sp_figure_string(in, "model");
        if (!cJSON_IsObject(in) || !model || !m || strcmp(model, m) != 0) return 0;
        /* keys of any result, counted once: at the first result that has them */
        cJSON_ArrayForEach(v, in)
        {
            int earlier = 0;
            for (int k = 0; k < j && !earlier; ++k)
                earlier = cJSON_GetObjectItemCaseSensitive(run_values(results[k], 0), v->string) != NULL;
            if (!earlier && differs(results, n, 0, v->string)) ++differing;
        }
    }
    return differing >= 1 && differing <= 3;
}

/* Appends "key = value" for every member of result i's run values that differs between
 * the results (every one of a study case when none differs); 0 when there is none. */
static int label_by_differences(const cJSON *const *results, int n, int i, int study, char *out, size_t size)
{
    const cJSON *mine = run_values(results[i], study);
    if (!cJSON_IsObject(mine)) return 0;
    size_t len = 0;
    int written = 0;
    for (int pass = 0; pass < 2 && !written; ++pass) {
        if (pass == 1 && !study) break; /* the inputs are all alike: nothing tells them apart */
        const cJSON *v;
        cJSON_ArrayForEach(v, mine)
        {
            if (!v->string || (pass == 0 && !differs(results, n, study, v->string))) continue;
            char value[48];
            legend_value(v, value, sizeof value);
            int k = snprintf(out + len, size - len, "%s%s = %s", written ? ", " : "", v->string, value);
            if (k < 0 || (size_t)k >= size - len) break; /* the legend is full */
            len += (size_t)k, ++written;
        }
        /* keys only result i lacks are said as such by the others' labels */
    }
    return written;
}

/* The legend of result i among n compared: what sets it apart from the others (a study
 * case's varied values, or the fields of its problem that differ), else its file name when
 * the names differ, else its model, scheme and steps. */
static void compared_label(const cJSON *const *results, const char *const *names, int n, int i, char *out, size_t size)
{
    int study = 1;
    for (int j = 0; j < n && study; ++j) study = cJSON_IsObject(run_values(results[j], 1));
    if ((study || variants_of_one_problem(results, n)) && label_by_differences(results, n, i, study, out, size)) return;
    int unique = names != NULL;
    for (int j = 0; unique && j < n; ++j)
        if (j != i && strcmp(names[j], names[i]) == 0) unique = 0;
    if (unique) {
        snprintf(out, size, "%s", names[i]);
        return;
    }
    const cJSON *root = results[i], *settings = cJSON_GetObjectItem(root, "settings");
    const char *model = sp_figure_string(root, "model"), *scheme = sp_figure_string(settings, "scheme");
    const cJSON *steps = cJSON_GetObjectItem(settings, "steps");
    char extra[32] = "";
    if (cJSON_IsNumber(steps)) snprintf(extra, sizeof extra, ", %g steps", steps->valuedouble);
    snprintf(out, size, "%d: %s%s%s%s", i + 1, model ? model : "result", scheme ? " " : "", scheme ? scheme : "",
             extra);
}

sp_status sp_plot_compare(const cJSON *const *results, const char *const *names, int n, char **svg, int *failed,
                          sp_input_error *err)
{
    *svg = NULL;
    *failed = 0;
    if (n == 1) return sp_plot_result(results[0], svg, err);
    if (n < 1) return sp_input_fail(err, "", "no result to draw");
    compared *c = calloc((size_t)n, sizeof *c);
    char(*label)[96] = calloc((size_t)n, sizeof *label);
    char(*drift_name)[64] = calloc((size_t)n * MAX_DRIFT, sizeof *drift_name);
    if (!c || !label || !drift_name) {
        free(c), free(label), free(drift_name);
        return sp_input_fail(err, "", "out of memory");
    }
    sp_status st = SP_OK;
    int n_drift = 0, width_max = 0;
    for (int i = 0; i < n && st == SP_OK; ++i) {
        st = compared_read(results[i], &c[i], err);
        if (st != SP_OK) {
            *failed = i;
            break;
        }
        compared_label(results, names, n, i, label[i], sizeof label[i]);
        if (c[i].cv.width > width_max) width_max = c[i].cv.width;
        for (int k = 0; k < c[i].d.count; ++k) {
            int j = 0;
            while (j < n_drift && strcmp(drift_name[j], c[i].d.name[k]) != 0) ++j;
            if (j == n_drift) snprintf(drift_name[n_drift++], sizeof drift_name[0], "%s", c[i].d.name[k]);
        }
    }
    if (st == SP_OK) {
        /* exact zeros drawn at a floor below every positive value (and at most 1e-16) */
        double minpos = INFINITY;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < c[i].d.count; ++j)
                for (int k = 1; k < c[i].tr.rows; ++k)
                    if (c[i].d.value[j][k] > 0.0) minpos = fmin(minpos, c[i].d.value[j][k]);
        double floor_value = isfinite(minpos) ? fmin(1e-16, minpos / 10) : 1e-16;
        floor_value = pow(10.0, floor(log10(floor_value)));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < c[i].d.count; ++j)
                for (int k = 0; k < c[i].tr.rows; ++k)
                    if (c[i].d.value[j][k] == 0.0) c[i].d.value[j][k] = floor_value;

        const int components = width_max < COMPARE_COMPONENTS ? width_max : COMPARE_COMPONENTS;
        const double panel_h = 200, gap = 90, top0 = 90;
        const double height = top0 + (1 + n_drift) * (panel_h + gap) + 20;
        char title[96];
        snprintf(title, sizeof title, "Comparison of %d results", n);
        sp_svg s;
        sp_svg_begin(&s, 1160, height, title);
        static const char *const dash[COMPARE_COMPONENTS] = {"", " stroke-dasharray=\"6 3\"",
                                                             " stroke-dasharray=\"2 2\""};
        sp_axis tx = {.label = "time t"};
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < c[i].tr.rows; ++k) sp_axis_include(&tx, c[i].tr.t[k]);
        sp_axis_finish(&tx);

        /* the configuration: the first components of every result */
        sp_chart a = {.left = 90, .top = top0, .width = 780, .height = panel_h};
        char atitle[96];
        snprintf(atitle, sizeof atitle, "Configuration against time (first %d component%s)", components,
                 components == 1 ? "" : "s");
        a.title = atitle;
        a.x = tx;
        a.y.label = "configuration q";
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < c[i].tr.rows; ++k)
                for (int m = 0; m < components && m < c[i].cv.width; ++m)
                    sp_axis_include(&a.y, c[i].cv.data[(size_t)k * c[i].cv.width + m]);
        sp_axis_finish(&a.y);
        sp_chart_axes(&s, &a);
        for (int i = 0; i < n; ++i)
            for (int m = 0; m < components && m < c[i].cv.width; ++m) {
                char name[200], comp[80], style[128];
                config_name(&c[i].tr, c[i].q, &c[i].cv, m, comp, sizeof comp);
                snprintf(name, sizeof name, "%s: %s", label[i], comp);
                snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"%s", sp_svg_color(i), dash[m]);
                sp_chart_series(&s, &a, name, (size_t)c[i].tr.rows, c[i].tr.t, 1, c[i].cv.data + m,
                                (size_t)c[i].cv.width, style);
            }
        sp_legend l = {.x = a.left + a.width + 18, .y = a.top + 8};
        sp_svg_add(&s, "<g class=\"legend\">\n");
        for (int i = 0; i < n; ++i) {
            char style[96];
            snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"", sp_svg_color(i));
            sp_legend_entry(&s, &l, style, NULL, label[i]);
        }
        for (int m = 0; m < components; ++m) {
            char style[96], comp[80];
            snprintf(comp, sizeof comp, "component %d", m + 1);
            snprintf(style, sizeof style, "stroke=\"#555\" stroke-width=\"1.6\"%s", dash[m]);
            sp_legend_entry(&s, &l, style, NULL, comp);
        }
        sp_svg_add(&s, "</g>\n");

        /* one panel per diagnostic, one line per result that has it */
        for (int j = 0; j < n_drift; ++j) {
            sp_chart b = {.left = 90, .top = top0 + (1 + j) * (panel_h + gap), .width = 780, .height = panel_h};
            b.title = drift_name[j];
            b.x = tx;
            b.y.log = 1;
            b.y.label = "drift (log scale)";
            for (int i = 0; i < n; ++i)
                for (int k2 = 0; k2 < c[i].d.count; ++k2)
                    if (strcmp(c[i].d.name[k2], drift_name[j]) == 0)
                        for (int k = 1; k < c[i].tr.rows; ++k) sp_axis_include(&b.y, c[i].d.value[k2][k]);
            if (b.y.min <= floor_value) sp_axis_include(&b.y, floor_value / 10);
            sp_axis_finish(&b.y);
            sp_chart_axes(&s, &b);
            l = (sp_legend){.x = b.left + b.width + 18, .y = b.top + 8};
            sp_svg_add(&s, "<g class=\"legend\">\n");
            for (int i = 0; i < n; ++i)
                for (int k2 = 0; k2 < c[i].d.count; ++k2)
                    if (strcmp(c[i].d.name[k2], drift_name[j]) == 0) {
                        char style[96];
                        snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"", sp_svg_color(i));
                        sp_legend_entry(&s, &l, style, NULL, label[i]);
                    }
            sp_svg_add(&s, "</g>\n");
            for (int i = 0; i < n; ++i)
                for (int k2 = 0; k2 < c[i].d.count; ++k2)
                    if (strcmp(c[i].d.name[k2], drift_name[j]) == 0 && c[i].tr.rows > 1) {
                        char style[96], name[200];
                        snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"1.6\"", sp_svg_color(i));
                        snprintf(name, sizeof name, "%s: %s", label[i], drift_name[j]);
                        sp_chart_series(&s, &b, name, (size_t)c[i].tr.rows - 1, c[i].tr.t + 1, 1, c[i].d.value[k2] + 1,
                                        1, style);
                    }
            if (j == 0) {
                char note[96];
                snprintf(note, sizeof note, "exact zeros drawn at %.0e", floor_value);
                sp_svg_text(&s, l.x, l.y + 18 * l.count + 10, "class=\"floor-note\" font-size=\"11\" fill=\"#555\"",
                            note);
            }
        }
        st = sp_figure_finish(&s, svg, err);
    }
    for (int i = 0; i < n; ++i) {
        drift_release(&c[i].d);
        free(c[i].cv.owned);
        if (c[i].have_tr) sp_traj_release(&c[i].tr);
    }
    free(c), free(label), free(drift_name);
    return st;
}
