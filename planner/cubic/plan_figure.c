/* The pieces of the cubic plan's pictures (plan_figure.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "planner/cubic/plan_figure.h"
#include "problems/sp_json_packed.h"

/* ---- 3-d views */

void plan_figure_view_from(const double *direction, view3 *v)
{
    double d[3] = {direction[0], direction[1], direction[2]}, n = sp_vec_norm(3, d);
    if (!(n > 1e-9)) d[0] = d[1] = d[2] = 1.0, n = sqrt(3.0);
    for (int i = 0; i < 3; ++i) v->depth[i] = d[i] / n;
    double up[3] = {0, 0, 1};
    if (fabs(v->depth[2]) > 0.95) up[1] = 1, up[2] = 0;
    double a = sp_vec_dot(3, up, v->depth);
    for (int i = 0; i < 3; ++i) up[i] -= a * v->depth[i];
    double un = sp_vec_norm(3, up);
    for (int i = 0; i < 3; ++i) v->up[i] = up[i] / un;
    /* right = up × depth, so that (right, up, depth) is right-handed */
    v->right[0] = v->up[1] * v->depth[2] - v->up[2] * v->depth[1];
    v->right[1] = v->up[2] * v->depth[0] - v->up[0] * v->depth[2];
    v->right[2] = v->up[0] * v->depth[1] - v->up[1] * v->depth[0];
}

/* Screen position of a point of the unit sphere in a chart spanning [-r, r]². */
void plan_figure_to_screen(const sp_chart *c, const view3 *v, const double *P, double *x, double *y)
{
    *x = sp_chart_px(c, sp_vec_dot(3, P, v->right));
    *y = sp_chart_py(c, sp_vec_dot(3, P, v->up));
}

typedef struct polyline {
    sp_svg *s;
    int open;
} polyline;

static void poly_point(polyline *p, const char *style, double x, double y)
{
    if (!p->open) sp_svg_add(p->s, "<polyline fill=\"none\" %s points=\"", style);
    sp_svg_add(p->s, "%s%.2f,%.2f", p->open ? " " : "", x, y);
    p->open = 1;
}

static void poly_close(polyline *p)
{
    if (p->open) sp_svg_add(p->s, "\"/>\n");
    p->open = 0;
}

/* A curve on the unit sphere (n points, 3 doubles apart by `stride` rows), near side in
 * front_style, far side in back_style (not drawn when NULL); the curve is cut where it
 * crosses the rim, at the crossing point. */
void plan_figure_sphere_curve(sp_svg *s, const sp_chart *c, const view3 *v, size_t n, const double *pts, size_t stride,
                         const char *front_style, const char *back_style)
{
    polyline p = {s, 0};
    int front_prev = 1;
    double prev[3] = {0};
    for (size_t i = 0; i < n; ++i) {
        const double *P = pts + i * stride;
        if (!sp_vec_isfinite(3, P)) {
            poly_close(&p);
            continue;
        }
        double depth = sp_vec_dot(3, P, v->depth), x, y;
        int front = depth >= 0.0;
        if (i > 0 && front != front_prev) {
            double dp = sp_vec_dot(3, prev, v->depth), f = dp / (dp - depth), X[3];
            for (int j = 0; j < 3; ++j) X[j] = prev[j] + f * (P[j] - prev[j]);
            double nx = sp_vec_norm(3, X);
            if (nx > 1e-12)
                for (int j = 0; j < 3; ++j) X[j] /= nx;
            plan_figure_to_screen(c, v, X, &x, &y);
            if (p.open) poly_point(&p, "", x, y);
            poly_close(&p);
            const char *style = front ? front_style : back_style;
            if (style) poly_point(&p, style, x, y);
        }
        const char *style = front ? front_style : back_style;
        if (style) {
            plan_figure_to_screen(c, v, P, &x, &y);
            poly_point(&p, style, x, y);
        }
        front_prev = front;
        sp_vec_copy(3, P, prev);
    }
    poly_close(&p);
}

/* Small arrows of the world axes x, y, z as the camera sees them. */
void plan_figure_world_axes(sp_svg *s, const view3 *v, double cx, double cy, double len)
{
    static const char *const names[3] = {"x", "y", "z"};
    sp_svg_add(s, "<g class=\"world-axes\">\n");
    for (int j = 0; j < 3; ++j) {
        double dx = len * v->right[j], dy = -len * v->up[j];
        sp_svg_add(s,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"1.5\"%s/>\n",
                   cx, cy, cx + dx, cy + dy, v->depth[j] < 0 ? " stroke-dasharray=\"3 2\"" : "");
        sp_svg_text(s, cx + 1.25 * dx - 3, cy + 1.25 * dy + 4, "fill=\"#555\" font-size=\"11\"", names[j]);
    }
    sp_svg_add(s, "</g>\n");
}

/* ---- plans: targets and kicks */

/* A rotation given as three rows of three numbers or as a quaternion in order xyzw. */
static int read_rotation(const cJSON *node, int xyzw, double *R)
{
    double q[4];
    if (sp_figure_numbers(node, 9, R)) return 1;
    if (!sp_figure_numbers(node, 4, q)) return 0;
    sp_quaternion_from_order(q, xyzw, q);
    return sp_quaternion_to_rotation(q, R);
}

/* The result's "targets" with width 3 (points) or 9 (rotations: a matrix or a quaternion
 * in the result's order tr->quaternion_xyzw under "target", or a quaternion under "q"). */
sp_status plan_figure_read_targets(const cJSON *root, const sp_traj *tr, int width, plan_target **out, int *count,
                              sp_input_error *err)
{
    const int xyzw = tr->quaternion_xyzw;
    const cJSON *targets = cJSON_GetObjectItem(root, "targets");
    *out = NULL;
    *count = 0;
    if (!sp_json_is_array(targets)) return sp_input_fail(err, "targets", "missing: a plan result lists its targets");
    int n = sp_json_array_size(targets);
    plan_target *tg = calloc(n ? (size_t)n : 1, sizeof *tg);
    if (!tg) return sp_input_fail(err, "targets", "out of memory");
    sp_json_items items; /* a long list comes packed (problems/sp_json_packed.h) */
    sp_json_items_begin(&items, targets);
    for (int i = 0; i < n; ++i) {
        const cJSON *node = sp_json_items_next(&items);
        if (!node) {
            free(tg);
            sp_json_items_end(&items);
            return sp_input_fail(err, "targets", "out of memory");
        }
        char path[64];
        const cJSON *t = cJSON_GetObjectItem(node, "t"), *d = cJSON_GetObjectItem(node, "distance");
        const cJSON *target = cJSON_GetObjectItem(node, "target"), *reached = cJSON_GetObjectItem(node, "reached");
        if (width == 9 && !target) target = cJSON_GetObjectItem(node, "q");
        int target_ok = width == 3 ? sp_figure_numbers(target, 3, tg[i].target) : read_rotation(target, xyzw, tg[i].target);
        int reached_ok =
            width == 3 ? sp_figure_numbers(reached, 3, tg[i].reached) : read_rotation(reached, xyzw, tg[i].reached);
        const char *bad = !cJSON_IsNumber(t) ? "t" : !target_ok ? "target" : !reached_ok ? "reached" : NULL;
        if (bad) {
            free(tg);
            sp_json_items_end(&items);
            snprintf(path, sizeof path, "targets[%d].%s", i, bad);
            if (strcmp(bad, "t") == 0) return sp_input_fail(err, path, "must be a number");
            if (width == 3) return sp_input_fail(err, path, "must be 3 numbers");
            return sp_input_fail(err, path, "must be a 3x3 matrix or a quaternion %s",
                                 sp_quaternion_order_layout(xyzw));
        }
        tg[i].t = t->valuedouble;
        tg[i].distance = cJSON_IsNumber(d) ? d->valuedouble : NAN;
    }
    sp_json_items_end(&items);
    *out = tg;
    *count = n;
    return SP_OK;
}

/* ---- labels that keep clear of each other */

const char *const plan_figure_anchor_attr[3] = {"", " text-anchor=\"middle\"", " text-anchor=\"end\""};

/* The room a label takes on screen is estimated, not measured: LABEL_EM of the font
 * size per character (a little more than the advance of a digit in the usual sans-serif
 * fonts, 0.56 to 0.64 em), from 0.8 em above the baseline to 0.25 em below it. */
#define LABEL_EM 0.66

static int utf8_chars(const char *text)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p) n += (*p & 0xc0) != 0x80;
    return n;
}

box plan_figure_text_box(double x, double y, int anchor, double font, const char *text)
{
    const double w = LABEL_EM * font * utf8_chars(text);
    const double x0 = anchor == ANCHOR_START ? x : anchor == ANCHOR_MIDDLE ? x - w / 2 : x - w;
    return (box){x0, y - 0.8 * font, x0 + w, y + 0.25 * font};
}

int plan_figure_box_set_init(box_set *set, int capacity)
{
    set->b = calloc(capacity > 0 ? (size_t)capacity : 1, sizeof *set->b);
    set->count = 0;
    set->capacity = set->b ? capacity : 0;
    return set->b != NULL;
}

void plan_figure_box_take(box_set *set, box a)
{
    if (set->count < set->capacity) set->b[set->count++] = a;
}

int plan_figure_box_clear_of(const box_set *set, const box *a)
{
    for (int i = 0; i < set->count; ++i) {
        const box *b = &set->b[i];
        if (a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1) return 0;
    }
    return 1;
}

int plan_figure_box_inside(const box *a, const sp_chart *c)
{
    return a->x0 >= c->left && a->x1 <= c->left + c->width && a->y0 >= c->top && a->y1 <= c->top + c->height;
}

/* ---- plans: panels against time */

/* Stem markers sized to the narrowest gap between neighbouring times on the chart. */
static void stem_size(const sp_chart *c, const double *t, int n, double *radius, double *stroke)
{
    double gap = INFINITY;
    for (int j = 1; j < n; ++j) gap = fmin(gap, fabs(sp_chart_px(c, t[j]) - sp_chart_px(c, t[j - 1])));
    if (!isfinite(gap)) gap = 100.0;
    *radius = fmax(1.5, fmin(4.0, 0.3 * gap));
    *stroke = fmax(1.0, fmin(3.0, 0.25 * gap));
}

/* The kicks panel: |Δν| at each target time as a stem. */
sp_status plan_figure_kicks_panel(sp_svg *s, const cJSON *root, double T, double left, double top, double width,
                             double height, sp_input_error *err)
{
    const cJSON *kicks = cJSON_GetObjectItem(root, "kicks"), *k;
    int n = cJSON_GetArraySize(kicks), i = 0;
    double *t = calloc((size_t)n + 1, sizeof *t), *size = calloc((size_t)n + 1, sizeof *size);
    if (!t || !size) {
        free(t), free(size);
        return sp_input_fail(err, "kicks", "out of memory");
    }
    cJSON_ArrayForEach(k, kicks)
    {
        const cJSON *tk = cJSON_GetObjectItem(k, "t"), *v = cJSON_GetObjectItem(k, "kick"), *x;
        double sum = 0.0;
        int ok = cJSON_IsNumber(tk) && cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0;
        cJSON_ArrayForEach(x, v) ok = ok && cJSON_IsNumber(x), sum += ok ? x->valuedouble * x->valuedouble : 0.0;
        if (!ok) {
            free(t), free(size);
            char path[48];
            snprintf(path, sizeof path, "kicks[%d]", i);
            return sp_input_fail(err, path, "must hold a time \"t\" and a vector \"kick\"");
        }
        t[i] = tk->valuedouble, size[i] = sqrt(sum), ++i;
    }
    sp_chart c = {.left = left, .top = top, .width = width, .height = height, .title = "Momentum kicks at the targets"};
    c.x.label = "time t";
    c.y.label = "|Δν| (kick size)";
    sp_axis_include(&c.x, 0.0);
    sp_axis_include(&c.x, T);
    sp_axis_include(&c.y, 0.0);
    for (int j = 0; j < n; ++j) sp_axis_include(&c.x, t[j]), sp_axis_include(&c.y, size[j]);
    sp_axis_finish(&c.x);
    sp_axis_finish(&c.y);
    sp_chart_axes(s, &c);
    double y0 = sp_chart_py(&c, 0.0), r, w;
    stem_size(&c, t, n, &r, &w);
    for (int j = 0; j < n; ++j) {
        double x = sp_chart_px(&c, t[j]), y = sp_chart_py(&c, size[j]);
        sp_svg_add(s,
                   "<g class=\"kick\"><title>t = %g, |kick| = %.4g</title><line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                   "y2=\"%.2f\" stroke=\"#9467bd\" stroke-width=\"%.2f\"/><circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" "
                   "fill=\"#9467bd\"/></g>\n",
                   t[j], size[j], x, y0, x, y, w, x, y, r);
    }
    if (n == 0)
        sp_svg_text(s, left + width / 2, top + height / 2, "text-anchor=\"middle\" fill=\"#777\"",
                    "no kicks in the result");
    free(t), free(size);
    return SP_OK;
}

/* The miss at each keyframe against its time, as <g id="`id`" class="time-plot">: a dot
 * per keyframe on a thin line, on a log axis when the positive misses span two decades
 * or more (exact zeros, as after exact interpolation, then sit a decade below the
 * smallest positive miss, which a note says); `what` names the miss on the y axis. */
sp_status plan_figure_miss_panel(sp_svg *s, const plan_target *tg, int n, double T, sp_chart c, const char *id,
                            const char *what, sp_input_error *err)
{
    double *t = calloc((size_t)n + 1, sizeof *t), *v = calloc((size_t)n + 1, sizeof *v);
    if (!t || !v) {
        free(t), free(v);
        return sp_input_fail(err, "targets", "out of memory");
    }
    double minpos = INFINITY, maxpos = 0.0;
    int zeros = 0, finite = 0;
    for (int i = 0; i < n; ++i) {
        t[i] = tg[i].t, v[i] = tg[i].distance;
        if (!isfinite(v[i])) continue;
        ++finite;
        if (v[i] > 0.0)
            minpos = fmin(minpos, v[i]), maxpos = fmax(maxpos, v[i]);
        else
            ++zeros;
    }
    c.y.log = isfinite(minpos) && maxpos >= 100.0 * minpos;
    double floor_value = 0.0;
    if (c.y.log && zeros) {
        floor_value = pow(10.0, floor(log10(minpos)) - 1.0);
        for (int i = 0; i < n; ++i)
            if (isfinite(v[i]) && v[i] <= 0.0) v[i] = floor_value;
    }
    char label[96]; /* "miss angle (rad)" becomes "miss angle (rad, log scale)" */
    const size_t wl = strlen(what);
    if (!c.y.log)
        snprintf(label, sizeof label, "%s", what);
    else if (wl > 0 && what[wl - 1] == ')')
        snprintf(label, sizeof label, "%.*s, log scale)", (int)(wl - 1), what);
    else
        snprintf(label, sizeof label, "%s (log scale)", what);
    c.y.label = label;
    c.x.label = "time t";
    if (!c.title) c.title = "Miss at the keyframes";
    sp_axis_include(&c.x, 0.0);
    sp_axis_include(&c.x, T);
    if (!c.y.log) sp_axis_include(&c.y, 0.0);
    for (int i = 0; i < n; ++i) sp_axis_include(&c.x, t[i]), sp_axis_include(&c.y, v[i]);
    if (floor_value > 0.0) sp_axis_include(&c.y, floor_value / 10); /* room below the zeros for the note */
    sp_axis_finish(&c.x);
    sp_axis_finish(&c.y);
    sp_svg_add(s, "<g id=\"%s\" class=\"time-plot\">\n", id);
    sp_chart_axes(s, &c);
    sp_chart_series(s, &c, "miss at the keyframes", (size_t)n, t, 1, v, 1,
                    "stroke=\"#a0522d\" stroke-width=\"1\" stroke-opacity=\"0.6\"");
    for (int i = 0; i < n; ++i) {
        if (!isfinite(v[i]) || (c.y.log && !(v[i] > 0.0))) continue;
        sp_svg_add(s,
                   "<circle class=\"miss-point\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.6\" fill=\"#a0522d\"><title>keyframe %d "
                   "at t = %g: miss %.4g</title></circle>\n",
                   sp_chart_px(&c, t[i]), sp_chart_py(&c, v[i]), i + 1, t[i], tg[i].distance);
    }
    if (!finite)
        sp_svg_text(s, c.left + c.width / 2, c.top + c.height / 2, "text-anchor=\"middle\" fill=\"#777\"",
                    "no misses in the result");
    if (floor_value > 0.0) {
        char note[64];
        snprintf(note, sizeof note, "exact zeros drawn at %.0e", floor_value);
        sp_svg_text(s, c.left + c.width - 6, c.top + c.height - 6,
                    "class=\"floor-note\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\"", note);
    }
    sp_svg_add(s, "</g>\n");
    free(t), free(v);
    return SP_OK;
}

/* The rotation angle between two rotation matrices (of R1ᵀ R2), accurate for small angles too. */
static double rotation_angle(const double *R1, const double *R2)
{
    double A[9];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) A[3 * a + b] = R1[a] * R2[b] + R1[3 + a] * R2[3 + b] + R1[6 + a] * R2[6 + b];
    const double axial[3] = {A[7] - A[5], A[2] - A[6], A[3] - A[1]};
    return atan2(0.5 * sp_vec_norm(3, axial), 0.5 * (A[0] + A[4] + A[8] - 1.0));
}

/* The angular speed |ω| against time, as <g id="angular-speed" class="time-plot">: |ξ| of
 * the trajectory's "xi" (the body angular velocity; the spatial one has the same length),
 * or, without it, the rotation angle between neighbouring rows of R over their time step. */
sp_status plan_figure_speed_panel(sp_svg *s, const sp_traj *tr, const double *R, double T, sp_chart c, sp_input_error *err)
{
    const sp_traj_field *xi = sp_traj_get(tr, "xi");
    /* ξ = (ω) on SO(3), (ω, v) for poses: the angular part comes first */
    const int rows = tr->rows, from_xi = xi && (xi->width == 3 || xi->width == 6);
    double *t = calloc((size_t)rows + 1, sizeof *t), *w = calloc((size_t)rows + 1, sizeof *w);
    if (!t || !w) {
        free(t), free(w);
        return sp_input_fail(err, "trajectory", "out of memory");
    }
    int count = 0;
    if (from_xi) {
        for (int k = 0; k < rows; ++k) t[k] = tr->t[k], w[k] = sp_vec_norm(3, xi->data + (size_t)xi->width * k);
        count = rows;
    } else {
        for (int k = 1; k < rows; ++k, ++count) {
            const double dt = tr->t[k] - tr->t[k - 1];
            t[count] = 0.5 * (tr->t[k] + tr->t[k - 1]);
            w[count] = dt > 0.0 ? rotation_angle(R + 9 * (size_t)(k - 1), R + 9 * (size_t)k) / dt : NAN;
        }
    }
    c.title = from_xi ? "Angular speed |ω| = |ξ|" : "Angular speed |ω| (from the rotations)";
    c.x.label = "time t";
    c.y.label = "|ω| (rad per unit time)";
    sp_axis_include(&c.x, 0.0);
    sp_axis_include(&c.x, T);
    sp_axis_include(&c.y, 0.0);
    for (int k = 0; k < count; ++k) sp_axis_include(&c.x, t[k]), sp_axis_include(&c.y, 1.05 * w[k]); /* headroom */
    sp_axis_finish(&c.x);
    sp_axis_finish(&c.y);
    sp_svg_add(s, "<g id=\"angular-speed\" class=\"time-plot\">\n");
    sp_chart_axes(s, &c);
    sp_chart_series(s, &c, "|ω|", (size_t)count, t, 1, w, 1, "stroke=\"#1f77b4\" stroke-width=\"1.6\"");
    if (count == 0)
        sp_svg_text(s, c.left + c.width / 2, c.top + c.height / 2, "text-anchor=\"middle\" fill=\"#777\"",
                    "a single row: no speed to show");
    sp_svg_add(s, "</g>\n");
    free(t), free(w);
    return SP_OK;
}

