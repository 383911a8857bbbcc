/* Pictures of results (sp_plot.h): one figure per kind of result.
 *
 *  - cubic-spline plans on the sphere: an orthographic view of S² centred on the path
 *    y(t) (far side dashed and dimmed), targets, reached points and the miss between
 *    them, labelled without overlaps (only some of them when there are many), and
 *    panels of the momentum kicks |Δν| and of the misses against t;
 *  - cubic-spline plans of orientations (rotation matrices or quaternions): body frames
 *    (RGB triads) along the path at sampled times, the target and reached frames at the
 *    target times (as many as fit side by side), the kicks, and two time plots: the miss
 *    angle at each keyframe and the angular speed |ω| = |ξ|;
 *  - everything else (simulations of any model, vakonomic plans): the configuration
 *    against time, one line per component, and the drift of the invariants on a log
 *    scale, recomputed from the trajectory through the library (the momentum map, the
 *    right-action momentum, the Casimir and the energy of a cubic; Ĥ, the first
 *    integrals and the constraint residual of a vakonomic model; for a holonomic model
 *    |q|² − l² and q·p (or the constraint and hidden constraint), |H − H0| and each
 *    first integral; for a nonholonomic model (nh_drift.c) |H − H0|, each first integral,
 *    |Ψ(q, p)| and, on groups, the distance from the group); vakonomic models, and the
 *    nonholonomic ones that move in the plane, add the path in the plane of their first
 *    two coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_family.h"
#include "planner/result_view.h"
#include "planner/plot/sp_plot.h"
#include "planner/plot/svg.h"
#include "integrators/sp_hohp.h"
#include "lie/sp_lie.h"
#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "problems/custom/sp_expr.h"
#include "problems/sp_json_packed.h"

/* ---- small readers */

static const char *string_at(const cJSON *obj, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(obj, key));
}

/* n numbers from an array of numbers, or (n = 9) from an array of three rows of three. */
static int read_numbers(const cJSON *node, int n, double *out)
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
    PUT("status %s", string_at(root, "status"));
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

/* The document with its title and subtitle. */
static void begin(sp_svg *s, double width, double height, const char *title, const cJSON *root)
{
    char sub[400];
    sp_svg_begin(s, width, height, title);
    subtitle(root, sub, sizeof sub);
    sp_svg_text(s, width / 2, 50, "class=\"subtitle\" text-anchor=\"middle\" fill=\"#444\"", sub);
}

static sp_status finish(sp_svg *s, char **svg, sp_input_error *err)
{
    *svg = sp_svg_end(s);
    if (!*svg) {
        sp_input_fail(err, "", "out of memory while drawing");
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

/* ---- 3-d views */

/* An orthographic camera looking at the origin from direction `depth`, z up on screen
 * (y when looking along z). */
typedef struct view3 {
    double right[3], up[3], depth[3];
} view3;

static void view_from(const double *direction, view3 *v)
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
static void to_screen(const sp_chart *c, const view3 *v, const double *P, double *x, double *y)
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
static void sphere_curve(sp_svg *s, const sp_chart *c, const view3 *v, size_t n, const double *pts, size_t stride,
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
            to_screen(c, v, X, &x, &y);
            if (p.open) poly_point(&p, "", x, y);
            poly_close(&p);
            const char *style = front ? front_style : back_style;
            if (style) poly_point(&p, style, x, y);
        }
        const char *style = front ? front_style : back_style;
        if (style) {
            to_screen(c, v, P, &x, &y);
            poly_point(&p, style, x, y);
        }
        front_prev = front;
        sp_vec_copy(3, P, prev);
    }
    poly_close(&p);
}

/* Small arrows of the world axes x, y, z as the camera sees them. */
static void world_axes(sp_svg *s, const view3 *v, double cx, double cy, double len)
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

typedef struct plan_target {
    double t, target[9], reached[9], distance;
} plan_target;

/* A rotation given as three rows of three numbers or as a quaternion in order xyzw. */
static int read_rotation(const cJSON *node, int xyzw, double *R)
{
    double q[4];
    if (read_numbers(node, 9, R)) return 1;
    if (!read_numbers(node, 4, q)) return 0;
    sp_quaternion_from_order(q, xyzw, q);
    return sp_quaternion_to_rotation(q, R);
}

/* The result's "targets" with width 3 (points) or 9 (rotations: a matrix or a quaternion
 * in the result's order tr->quaternion_xyzw under "target", or a quaternion under "q"). */
static sp_status read_targets(const cJSON *root, const sp_traj *tr, int width, plan_target **out, int *count,
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
        int target_ok = width == 3 ? read_numbers(target, 3, tg[i].target) : read_rotation(target, xyzw, tg[i].target);
        int reached_ok =
            width == 3 ? read_numbers(reached, 3, tg[i].reached) : read_rotation(reached, xyzw, tg[i].reached);
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

/* The room a label takes on screen is estimated, not measured: LABEL_EM of the font
 * size per character (a little more than the advance of a digit in the usual sans-serif
 * fonts, 0.56 to 0.64 em), from 0.8 em above the baseline to 0.25 em below it. */
#define LABEL_EM 0.66

typedef struct box {
    double x0, y0, x1, y1;
} box;

enum { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END };
static const char *const ANCHOR_ATTR[3] = {"", " text-anchor=\"middle\"", " text-anchor=\"end\""};

static int utf8_chars(const char *text)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p) n += (*p & 0xc0) != 0x80;
    return n;
}

static box text_box(double x, double y, int anchor, double font, const char *text)
{
    const double w = LABEL_EM * font * utf8_chars(text);
    const double x0 = anchor == ANCHOR_START ? x : anchor == ANCHOR_MIDDLE ? x - w / 2 : x - w;
    return (box){x0, y - 0.8 * font, x0 + w, y + 0.25 * font};
}

/* Boxes already taken on screen (markers, or labels placed before). */
typedef struct box_set {
    box *b;
    int count, capacity;
} box_set;

static int box_set_init(box_set *set, int capacity)
{
    set->b = calloc(capacity > 0 ? (size_t)capacity : 1, sizeof *set->b);
    set->count = 0;
    set->capacity = set->b ? capacity : 0;
    return set->b != NULL;
}

static void box_take(box_set *set, box a)
{
    if (set->count < set->capacity) set->b[set->count++] = a;
}

static int box_clear_of(const box_set *set, const box *a)
{
    for (int i = 0; i < set->count; ++i) {
        const box *b = &set->b[i];
        if (a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1) return 0;
    }
    return 1;
}

static int box_inside(const box *a, const sp_chart *c)
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
static sp_status kicks_panel(sp_svg *s, const cJSON *root, double T, double left, double top, double width,
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
static sp_status miss_panel(sp_svg *s, const plan_target *tg, int n, double T, sp_chart c, const char *id,
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
static sp_status speed_panel(sp_svg *s, const sp_traj *tr, const double *R, double T, sp_chart c, sp_input_error *err)
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

/* ---- the sphere plan */

/* How a camera along `d` sees points of the sphere: how many fall on the far side, and
 * how round their cloud looks on screen (the square root of the ratio of the small to
 * the large principal spread of the projected points: 0 for a line, 1 for a disc). */
static void view_score(const double *d, const double *pts, int count, int *far, double *roundness)
{
    view3 v;
    view_from(d, &v);
    double su = 0, sw = 0, suu = 0, sww = 0, suw = 0;
    *far = 0;
    for (int k = 0; k < count; ++k) {
        const double *P = pts + 3 * k;
        if (sp_vec_dot(3, P, v.depth) < 0.0) ++*far;
        double u = sp_vec_dot(3, P, v.right), w = sp_vec_dot(3, P, v.up);
        su += u, sw += w, suu += u * u, sww += w * w, suw += u * w;
    }
    *roundness = 0.0;
    if (count < 2) return;
    su /= count, sw /= count;
    double a = suu / count - su * su, c = sww / count - sw * sw, b = suw / count - su * sw;
    double mid = 0.5 * (a + c), half = sqrt(0.25 * (a - c) * (a - c) + b * b), big = mid + half, small = mid - half;
    if (big > 1e-12) *roundness = sqrt(fmax(small, 0.0) / big);
}

/* A camera for points on the sphere (the path y(t), thinned, and the targets) that keeps
 * them on the near hemisphere and in the middle of the disc: it looks along their mean
 * direction, or along the centre of the smallest ball holding them where that leaves
 * fewer points on the far side (a long arc, whose mean is pulled towards its middle).
 * A path close to a great circle seen from within its plane would collapse to a line:
 * then the camera turns towards the normal of the plane through the origin that fits the
 * points best, or away from it, by the smallest of 5°, 10°, … 35° that makes the cloud
 * round enough on screen (else by the one that makes it roundest) without moving points
 * to the far side. */
static void sphere_view(const double *y, int rows, const plan_target *tg, int n, view3 *v)
{
    const int stride = rows > 2000 ? (rows + 1999) / 2000 : 1;
    int count = 0;
    double *pts = malloc(((size_t)rows / (size_t)stride + 2 + (size_t)n) * 3 * sizeof *pts);
    if (!pts) { /* no room to choose: a fixed oblique view */
        view_from((const double[3]){1.0, 0.8, 0.6}, v);
        return;
    }
#define TAKE(P)                                                                                                        \
    do {                                                                                                               \
        if (sp_vec_isfinite(3, (P))) sp_vec_copy(3, (P), pts + 3 * count++);                                           \
    } while (0)
    for (int k = 0; k < rows; k += stride) TAKE(y + 3 * (size_t)k);
    if (rows > 0 && (rows - 1) % stride) TAKE(y + 3 * (size_t)(rows - 1));
    for (int i = 0; i < n; ++i) TAKE(tg[i].target);
#undef TAKE
    double mean[3] = {0, 0, 0}, M[9] = {0};
    for (int k = 0; k < count; ++k) {
        const double *P = pts + 3 * k;
        sp_vec_axpy(3, 1.0, P, mean);
        for (int i = 0; i < 9; ++i) M[i] += P[i / 3] * P[i % 3];
    }
    double m = sp_vec_norm(3, mean);
    if (!(m > 0.2 * count)) { /* spread all round: a fixed oblique view */
        free(pts);
        view_from((const double[3]){1.0, 0.8, 0.6}, v);
        return;
    }
    double d[3], roundness;
    int far;
    for (int i = 0; i < 3; ++i) d[i] = mean[i] / m;
    view_score(d, pts, count, &far, &roundness);
    if (far > 0) { /* the smallest enclosing ball, by Bădoiu and Clarkson's iteration from the mean */
        double c[3];
        for (int i = 0; i < 3; ++i) c[i] = mean[i] / count;
        for (int it = 1; it <= 400; ++it) {
            int worst = 0;
            double wd = -1.0;
            for (int k = 0; k < count; ++k) {
                double dk = sp_vec_dist(3, pts + 3 * k, c);
                if (dk > wd) wd = dk, worst = k;
            }
            for (int i = 0; i < 3; ++i) c[i] += (pts[3 * worst + i] - c[i]) / (it + 1);
        }
        double cn = sp_vec_norm(3, c), dc[3], rc;
        int fc;
        if (cn > 1e-6) {
            for (int i = 0; i < 3; ++i) dc[i] = c[i] / cn;
            view_score(dc, pts, count, &fc, &rc);
            if (fc < far) sp_vec_copy(3, dc, d), far = fc, roundness = rc;
        }
    }
    /* the normal: the dominant eigenvector of tr(M) I − M, by power iteration */
    double trace = M[0] + M[4] + M[8], nrm[3] = {0.3, 0.5, 0.8};
    for (int it = 0; it < 200; ++it) {
        double w[3];
        for (int i = 0; i < 3; ++i) w[i] = trace * nrm[i] - sp_vec_dot(3, M + 3 * i, nrm);
        double wn = sp_vec_norm(3, w);
        if (!(wn > 0)) break;
        for (int i = 0; i < 3; ++i) nrm[i] = w[i] / wn;
    }
    double a = sp_vec_dot(3, nrm, d); /* made orthogonal to the view */
    for (int i = 0; i < 3; ++i) nrm[i] -= a * d[i];
    double nn = sp_vec_norm(3, nrm);
    const double enough = 0.12; /* a cloud rounder than this reads as two-dimensional */
    if (nn > 1e-6 && roundness < enough) {
        if (nrm[2] < 0) nn = -nn; /* tried first: tilting upwards, looking from above */
        double best[3], best_round = roundness;
        sp_vec_copy(3, d, best);
        for (int deg = 5; deg <= 35 && best_round < enough; deg += 5)
            for (int sign = 1; sign >= -1 && best_round < enough; sign -= 2) {
                const double tilt = sign * deg * SP_PI / 180.0;
                double dt[3], r;
                int f;
                for (int i = 0; i < 3; ++i) dt[i] = cos(tilt) * d[i] + sin(tilt) * nrm[i] / nn;
                view_score(dt, pts, count, &f, &r);
                if (f <= far && r > best_round) sp_vec_copy(3, dt, best), best_round = r;
            }
        sp_vec_copy(3, best, d);
    }
    free(pts);
    view_from(d, v);
}

static const char *const PATH_FRONT = "stroke=\"#1f77b4\" stroke-width=\"2.2\"";
static const char *const PATH_BACK =
    "stroke=\"#1f77b4\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\" stroke-opacity=\"0.45\"";

static sp_status plot_sphere_plan(const cJSON *root, const sp_traj *tr, char **svg, sp_input_error *err)
{
    const sp_traj_field *y = sp_traj_get(tr, "y");
    if (!y || y->width != 3)
        return sp_input_fail(err, "trajectory.y", "missing: a sphere plan has rows of 3 numbers y(t)");
    plan_target *tg;
    int n;
    sp_status st = read_targets(root, tr, 3, &tg, &n, err);
    if (st != SP_OK) return st;
    box_set markers, labels;
    int ok_markers = box_set_init(&markers, 2 * n + 1), ok_labels = box_set_init(&labels, n);
    if (!ok_markers || !ok_labels) {
        free(markers.b), free(labels.b), free(tg);
        return sp_input_fail(err, "targets", "out of memory");
    }

    view3 v;
    sphere_view(y->data, tr->rows, tg, n, &v);

    sp_svg s;
    begin(&s, 1180, 610, "Riemannian cubic on the sphere S²", root);
    sp_chart c = {
        .left = 80, .top = 90, .width = 440, .height = 440, .title = "Path y(t) = g(t)·y0, orthographic view"};
    char xl[96], yl[96];
    snprintf(xl, sizeof xl, "along (%.2f, %.2f, %.2f)", v.right[0], v.right[1], v.right[2]);
    snprintf(yl, sizeof yl, "along (%.2f, %.2f, %.2f)", v.up[0], v.up[1], v.up[2]);
    c.x = (sp_axis){.min = -1.15, .max = 1.15, .have = 1, .label = xl};
    c.y = (sp_axis){.min = -1.15, .max = 1.15, .have = 1, .label = yl};
    sp_chart_axes(&s, &c);

    /* the sphere: outline, latitudes every 30°, meridians every 30° */
    double cx = sp_chart_px(&c, 0), cy = sp_chart_py(&c, 0), r = sp_chart_px(&c, 1) - cx;
    sp_svg_add(&s, "<circle class=\"sphere\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"#f4f7fb\" stroke=\"#555\"/>\n",
               cx, cy, r);
    sp_svg_add(&s, "<g class=\"graticule\">\n");
    enum { SAMPLES = 121 };
    double circle[3 * SAMPLES];
    for (int lat = -60; lat <= 60; lat += 30) {
        for (int j = 0; j < SAMPLES; ++j) {
            double a = 2 * SP_PI * j / (SAMPLES - 1), phi = lat * SP_PI / 180;
            circle[3 * j] = cos(phi) * cos(a), circle[3 * j + 1] = cos(phi) * sin(a), circle[3 * j + 2] = sin(phi);
        }
        sphere_curve(&s, &c, &v, SAMPLES, circle, 3, lat == 0 ? "stroke=\"#999\"" : "stroke=\"#c8c8c8\"", NULL);
    }
    for (int lon = 0; lon < 180; lon += 30) {
        for (int j = 0; j < SAMPLES; ++j) {
            double a = 2 * SP_PI * j / (SAMPLES - 1), l = lon * SP_PI / 180;
            circle[3 * j] = cos(a) * cos(l), circle[3 * j + 1] = cos(a) * sin(l), circle[3 * j + 2] = sin(a);
        }
        sphere_curve(&s, &c, &v, SAMPLES, circle, 3, "stroke=\"#c8c8c8\"", NULL);
    }
    sp_svg_add(&s, "</g>\n");
    world_axes(&s, &v, c.left + 40, c.top + c.height - 40, 24);

    /* the path, thinned to about 3000 points (the last one kept) */
    size_t stride = (size_t)tr->rows > 3000 ? ((size_t)tr->rows + 2999) / 3000 : 1;
    sp_svg_add(&s, "<g class=\"series path\"><title>path y(t)</title>\n");
    sphere_curve(&s, &c, &v, ((size_t)tr->rows - 1) / stride + 1, y->data, 3 * stride, PATH_FRONT, PATH_BACK);
    if (((size_t)tr->rows - 1) % stride)
        sphere_curve(&s, &c, &v, 2, y->data + 3 * (((size_t)tr->rows - 1) / stride * stride),
                     3 * ((size_t)tr->rows - 1 - ((size_t)tr->rows - 1) / stride * stride), PATH_FRONT, PATH_BACK);
    sp_svg_add(&s, "</g>\n");
    double x, yy;
    to_screen(&c, &v, y->data, &x, &yy);
    sp_svg_add(&s,
               "<rect class=\"start\" x=\"%.2f\" y=\"%.2f\" width=\"8\" height=\"8\" fill=\"#2ca02c\"><title>start "
               "y(0)</title></rect>\n",
               x - 4, yy - 4);
    box_take(&markers, (box){x - 4, yy - 4, x + 4, yy + 4});

    /* targets, reached points and the miss between them; markers shrink past 10 keyframes */
    const double scale = n > 10 ? fmax(0.55, sqrt(10.0 / n)) : 1.0, mr = 5.5 * scale, cross = 4.0 * scale,
                 stroke = fmax(1.2, 2.0 * scale);
    for (int i = 0; i < n; ++i) {
        double tx, ty, rx, ry;
        to_screen(&c, &v, tg[i].target, &tx, &ty);
        to_screen(&c, &v, tg[i].reached, &rx, &ry);
        int tfront = sp_vec_dot(3, tg[i].target, v.depth) >= 0, rfront = sp_vec_dot(3, tg[i].reached, v.depth) >= 0;
        sp_svg_add(&s,
                   "<line class=\"miss\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\" "
                   "stroke-dasharray=\"2 2\"/>\n",
                   tx, ty, rx, ry);
        sp_svg_add(&s,
                   "<circle class=\"target\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\" stroke=\"#ff7f0e\" "
                   "stroke-width=\"%.2f\"><title>target %d at t = %g</title></circle>\n",
                   tx, ty, mr, tfront ? "#ff7f0e" : "white", stroke, i + 1, tg[i].t);
        sp_svg_add(&s,
                   "<path class=\"reached\" d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\" stroke=\"#d62728\" "
                   "stroke-width=\"%.2f\"%s><title>reached at t = %g, distance %.4g</title></path>\n",
                   rx - cross, ry - cross, rx + cross, ry + cross, rx - cross, ry + cross, rx + cross, ry - cross,
                   stroke, rfront ? "" : " stroke-opacity=\"0.5\"", tg[i].t, tg[i].distance);
        const double half = mr + 0.5 * stroke;
        box_take(&markers, (box){tx - half, ty - half, tx + half, ty + half});
        box_take(&markers, (box){rx - cross, ry - cross, rx + cross, ry + cross});
    }

    /* Labels: with at most 12 keyframes each one's time and miss; with more, the time of
     * every k-th keyframe and of the last, about 12 in all (the misses have their own
     * panel). A label goes to the first of nine places round its target (radially
     * outwards first) that stays inside the chart and clear of the labels placed before
     * it, and preferably of the markers too; one that fits nowhere is left out (the
     * marker's tooltip still gives its time). */
    const int every = n > 12 ? (n + 11) / 12 : 1;
    const double font = 11.0, gap = mr + 3.0;
    for (int i = 0; i < n; ++i) {
        if (i % every != 0 && i != n - 1) continue;
        char label[64];
        if (every == 1)
            snprintf(label, sizeof label, "t=%g (%.2g)", tg[i].t, tg[i].distance);
        else
            snprintf(label, sizeof label, "t=%g", tg[i].t);
        double tx, ty;
        to_screen(&c, &v, tg[i].target, &tx, &ty);
        double ox = tx - cx, oy = ty - cy, on = hypot(ox, oy);
        if (!(on > 1e-9)) ox = 0, oy = -1, on = 1;
        const double dir[9][2] = {{ox / on, oy / on}, {1, 0},         {-1, 0},      {0, -1},      {0, 1},
                                  {0.71, -0.71},      {-0.71, -0.71}, {0.71, 0.71}, {-0.71, 0.71}};
        int placed = 0;
        for (int pass = 0; pass < 2 && !placed; ++pass)
            for (int j = 0; j < 9 && !placed; ++j) {
                const double dx = dir[j][0], dy = dir[j][1];
                const int anchor = dx > 0.3 ? ANCHOR_START : dx < -0.3 ? ANCHOR_END : ANCHOR_MIDDLE;
                const double lx = tx + gap * dx, ly = ty + gap * dy +
                                                      (dy < -0.3  ? -0.25 * font
                                                       : dy > 0.3 ? 0.8 * font
                                                                  : 0.3 * font);
                const box b = text_box(lx, ly, anchor, font, label);
                if (!box_inside(&b, &c) || !box_clear_of(&labels, &b) || (pass == 0 && !box_clear_of(&markers, &b)))
                    continue;
                char attrs[128];
                snprintf(attrs, sizeof attrs, "class=\"target-label\" font-size=\"%g\" fill=\"#a0522d\"%s", font,
                         ANCHOR_ATTR[anchor]);
                sp_svg_text(&s, lx, ly, attrs, label);
                box_take(&labels, b);
                placed = 1;
            }
    }

    sp_legend l = {.x = c.left + c.width + 18, .y = c.top + 10};
    sp_svg_add(&s, "<g class=\"legend\">\n");
    sp_legend_entry(&s, &l, PATH_FRONT, NULL, "path y(t), near side");
    sp_legend_entry(&s, &l, PATH_BACK, NULL, "path y(t), far side");
    sp_legend_entry(&s, &l, NULL, "<rect x=\"-4\" y=\"-4\" width=\"8\" height=\"8\" fill=\"#2ca02c\"/>", "start y(0)");
    sp_legend_entry(&s, &l, NULL, "<circle r=\"5.5\" fill=\"#ff7f0e\" stroke=\"#ff7f0e\" stroke-width=\"2\"/>",
                    "target (hollow: far side)");
    sp_legend_entry(&s, &l, NULL, "<path d=\"M-4 -4L4 4M-4 4L4 -4\" stroke=\"#d62728\" stroke-width=\"2\"/>",
                    "reached point");
    sp_legend_entry(&s, &l, "stroke=\"#333\" stroke-dasharray=\"2 2\"", NULL,
                    every == 1 ? "miss (label: t, distance)" : "miss (label: t)");
    sp_svg_add(&s, "</g>\n");

    double T = tr->t[tr->rows - 1];
    st = kicks_panel(&s, root, T, 820, 90, 320, 170, err);
    if (st == SP_OK) {
        sp_chart m = {.left = 820, .top = 360, .width = 320, .height = 170};
        st = miss_panel(&s, tg, n, T, m, "miss-distance", "miss |y − target|", err);
    }
    free(tg), free(markers.b), free(labels.b);
    if (st != SP_OK) {
        sp_svg_release(&s);
        return st;
    }
    return finish(&s, svg, err);
}

/* ---- the orientation plan */

static const char *const AXIS_COLOR[3] = {"#d62728", "#2ca02c", "#1f77b4"};

/* The body axes (columns of R) as seen by the camera, from (cx, cy), far-pointing ones
 * faded, drawn back to front. */
static void triad(sp_svg *s, const view3 *v, double cx, double cy, double len, const double *R, const char *cls,
                  const char *extra, const char *tooltip)
{
    sp_svg_add(s, "<g class=\"%s\"><title>", cls);
    sp_svg_escaped(s, tooltip);
    sp_svg_add(s, "</title>");
    double depth[3];
    int order[3] = {0, 1, 2};
    double axis[3][3]; /* unit columns: a result's numbers may be anything, the picture stays finite */
    for (int j = 0; j < 3; ++j) {
        double a[3] = {R[j], R[3 + j], R[6 + j]}, na = sp_vec_norm(3, a);
        for (int k = 0; k < 3; ++k) axis[j][k] = na > 0.0 && isfinite(na) ? a[k] / na : 0.0;
        depth[j] = sp_vec_dot(3, axis[j], v->depth);
    }
    for (int i = 0; i < 3; ++i) /* sort by depth, farthest first */
        for (int j = i + 1; j < 3; ++j)
            if (depth[order[j]] < depth[order[i]]) {
                int tmp = order[i];
                order[i] = order[j], order[j] = tmp;
            }
    for (int i = 0; i < 3; ++i) {
        int j = order[i];
        double dx = len * sp_vec_dot(3, axis[j], v->right), dy = -len * sp_vec_dot(3, axis[j], v->up);
        sp_svg_add(s,
                   "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2.4\" "
                   "stroke-linecap=\"round\"%s%s/>",
                   cx, cy, cx + dx, cy + dy, AXIS_COLOR[j], depth[j] < 0 ? " stroke-opacity=\"0.45\"" : "", extra);
    }
    sp_svg_add(s, "</g>\n");
}

static sp_status plot_orientation_plan(const cJSON *root, const sp_traj *tr, char **svg, sp_input_error *err)
{
    /* the rotations of the path: rows of "q", or of "quaternion" (in the result's order) turned into matrices */
    const sp_traj_field *q = sp_traj_get(tr, "q"), *quat = sp_traj_get(tr, "quaternion");
    double *owned = NULL;
    const double *R;
    if (q && q->width == 9) {
        R = q->data;
    } else if (!q && quat && quat->width == 4) {
        owned = malloc((size_t)tr->rows * 9 * sizeof *owned);
        if (!owned) return sp_input_fail(err, "trajectory.quaternion", "out of memory");
        for (int k = 0; k < tr->rows; ++k) {
            double wxyz[4];
            sp_quaternion_from_order(quat->data + 4 * (size_t)k, tr->quaternion_xyzw, wxyz);
            if (!sp_quaternion_to_rotation(wxyz, owned + 9 * (size_t)k)) {
                free(owned);
                char path[64];
                snprintf(path, sizeof path, "trajectory.quaternion[%d]", k);
                return sp_input_fail(err, path, "must be a non-zero quaternion %s",
                                     sp_quaternion_order_layout(tr->quaternion_xyzw));
            }
        }
        R = owned;
    } else {
        return sp_input_fail(err, q ? "trajectory.q" : "trajectory",
                             q ? "rows of 9 numbers (rotations) expected"
                               : "missing: rows \"q\" of 9 numbers or \"quaternion\" of 4 (rotations) expected");
    }
    plan_target *tg;
    int n;
    sp_status st = read_targets(root, tr, 9, &tg, &n, err);
    box_set labels = {0};
    if (st == SP_OK && !box_set_init(&labels, 2 * n)) {
        free(tg);
        st = sp_input_fail(err, "targets", "out of memory");
    }
    if (st != SP_OK) {
        free(owned);
        return st;
    }
    view3 v;
    view_from((const double[3]){1.0, 0.75, 0.55}, &v);
    const double T = tr->t[tr->rows - 1];

    sp_svg s;
    begin(&s, 1180, 970, "Riemannian cubic of orientations on SO(3)", root);
    static const char *rows[2] = {"targets", "path g(t)"};
    sp_chart c = {.left = 90, .top = 90, .width = 840, .height = 320, .title = "Body frames along the path"};
    c.x.label = "time t";
    sp_axis_include(&c.x, 0.0);
    sp_axis_include(&c.x, T);
    sp_axis_finish(&c.x);
    double pad = 0.05 * (c.x.max - c.x.min);
    c.x.min -= pad, c.x.max += pad;
    c.y = (sp_axis){.min = -0.7, .max = 1.6, .have = 1, .label = "frames"};
    c.y_category = rows;
    c.n_categories = 2;

    /* Which keyframes get their frames: all while neighbours are at least 64 px apart
     * (axes 30 px long); else axes of 22 px, and from the left each keyframe at least
     * 48 px from the last one drawn, the last keyframe taking its predecessor's place
     * when they are too close. */
    char *drawn = calloc(n ? (size_t)n : 1, 1);
    if (!drawn) {
        free(tg), free(labels.b), free(owned);
        sp_svg_release(&s);
        return sp_input_fail(err, "targets", "out of memory");
    }
    double len = 30.0;
    for (int i = 1; i < n; ++i)
        if (fabs(sp_chart_px(&c, tg[i].t) - sp_chart_px(&c, tg[i - 1].t)) < 2 * len + 4) len = 22.0;
    int shown = 0, last = -1;
    for (int i = 0; i < n; ++i) {
        const double x = sp_chart_px(&c, tg[i].t);
        if (last >= 0 && fabs(x - sp_chart_px(&c, tg[last].t)) < 2 * len + 4) {
            if (i != n - 1 || last == 0) continue;
            drawn[last] = 0, --shown; /* the last keyframe replaces its too-close predecessor */
        }
        drawn[i] = 1, ++shown, last = i;
    }
    char title[96];
    if (shown < n) {
        snprintf(title, sizeof title, "Body frames along the path (targets: %d of %d keyframes drawn)", shown, n);
        c.title = title;
    }
    sp_chart_axes(&s, &c);
    const int frames = tr->rows < 11 ? tr->rows : 11;
    for (int j = 0; j < frames; ++j) {
        int k = frames > 1 ? (int)lround((double)j * (tr->rows - 1) / (frames - 1)) : 0;
        char tip[64];
        snprintf(tip, sizeof tip, "g(t) at t = %g", tr->t[k]);
        triad(&s, &v, sp_chart_px(&c, tr->t[k]), sp_chart_py(&c, 1.0), 30.0, R + 9 * (size_t)k, "frame", "", tip);
    }
    /* the target frames with their times below (and the miss, while all are drawn) */
    const double font = 11.0;
    for (int i = 0; i < n; ++i) {
        if (!drawn[i]) continue;
        char tip[96], label[64];
        double x = sp_chart_px(&c, tg[i].t), y = sp_chart_py(&c, 0.0);
        snprintf(tip, sizeof tip, "target %d at t = %g", i + 1, tg[i].t);
        triad(&s, &v, x, y, len, tg[i].target, "target", " stroke-dasharray=\"4 3\"", tip);
        snprintf(tip, sizeof tip, "reached at t = %g, %.4g rad from the target", tg[i].t, tg[i].distance);
        triad(&s, &v, x, y, len * 0.8, tg[i].reached, "reached", "", tip);
        for (int line = 0; line < (shown < n ? 1 : 2); ++line) {
            if (line == 0)
                snprintf(label, sizeof label, "t=%g", tg[i].t);
            else
                snprintf(label, sizeof label, "%.2g rad", tg[i].distance);
            const double ly = y + len + 14 + 13 * line;
            const box b = text_box(x, ly, ANCHOR_MIDDLE, font, label);
            if (!box_clear_of(&labels, &b)) continue;
            sp_svg_text(&s, x, ly, "class=\"target-label\" text-anchor=\"middle\" font-size=\"11\"", label);
            box_take(&labels, b);
        }
    }
    free(drawn);

    sp_legend l = {.x = c.left + c.width + 18, .y = c.top + 10};
    sp_svg_add(&s, "<g class=\"legend\">\n");
    static const char *const axis_names[3] = {"body x-axis", "body y-axis", "body z-axis"};
    for (int j = 0; j < 3; ++j) {
        char style[64];
        snprintf(style, sizeof style, "stroke=\"%s\" stroke-width=\"2.4\"", AXIS_COLOR[j]);
        sp_legend_entry(&s, &l, style, NULL, axis_names[j]);
    }
    sp_legend_entry(&s, &l, "stroke=\"#555\" stroke-width=\"2.4\" stroke-dasharray=\"4 3\"", NULL, "target frame");
    sp_legend_entry(&s, &l, "stroke=\"#555\" stroke-width=\"2.4\"", NULL, "reached frame (shorter)");
    sp_legend_entry(&s, &l, "stroke=\"#555\" stroke-width=\"2.4\" stroke-opacity=\"0.45\"", NULL, "axis pointing away");
    sp_svg_add(&s, "</g>\n");
    sp_svg_text(&s, l.x, l.y + 18 * l.count + 20, "font-size=\"11\" fill=\"#555\"", "world axes as seen:");
    world_axes(&s, &v, l.x + 40, l.y + 18 * l.count + 65, 24);

    st = kicks_panel(&s, root, T, 90, 500, 840, 150, err);
    if (st == SP_OK) {
        sp_chart m = {.left = 90, .top = 750, .width = 360, .height = 160, .title = "Miss angle at the keyframes"};
        st = miss_panel(&s, tg, n, T, m, "miss-angle", "miss angle (rad)", err);
    }
    if (st == SP_OK) {
        sp_chart w = {.left = 570, .top = 750, .width = 360, .height = 160};
        st = speed_panel(&s, tr, R, T, w, err);
    }
    free(tg), free(labels.b), free(owned);
    if (st != SP_OK) {
        sp_svg_release(&s);
        return st;
    }
    return finish(&s, svg, err);
}

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
    const char *model = string_at(root, "model"), *task = string_at(root, "task");
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
    const char *gname = string_at(cJSON_GetObjectItem(root, "settings"), "group");
    snprintf(title, sizeof title, "%s %s%s%s", model ? model : "result", task, gname ? " on " : "", gname ? gname : "");
    sp_svg s;
    begin(&s, width, height, title, root);

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
        int has_target = read_numbers(cJSON_GetObjectItem(root, "target"), q->width, target);
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
    return finish(&s, svg, err);
}

/* ------------------------------------------------- a derived quantity -- */

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
        snprintf(title, sizeof title, "%s of a %s result", expression, string_at(result, "model") ? string_at(result, "model") : "");
        sp_svg s;
        begin(&s, 1000, 560, title, result);
        sp_chart_axes(&s, &ch);
        static const char *const style = "stroke=\"#1f77b4\" stroke-width=\"1.6\"";
        sp_chart_series(&s, &ch, expression, c.rows, c.value, (size_t)c.count, y, 1, style);
        sp_legend l = {.x = ch.left + ch.width + 20, .y = ch.top + 8};
        sp_svg_add(&s, "<g class=\"legend\">\n");
        sp_legend_entry(&s, &l, style, NULL, expression);
        sp_svg_add(&s, "</g>\n");
        st = finish(&s, svg, err);
    }
    free(y), sp_expr_free(e), free(c.value), free(csv);
    return st;
}

/* ------------------------------------------------------ a car's plan -- */

/* The footprint's corners at pose (x, y, θ): the rectangle from −rear to wheelbase + front
 * along the heading, ±width/2 across, about the rear-axle midpoint. */
static void footprint(const double *pose, const double *dims, double corners[4][2])
{
    const double c = cos(pose[2]), s = sin(pose[2]), back = -dims[2], ahead = dims[0] + dims[1], half = 0.5 * dims[3];
    const double along[4] = {back, ahead, ahead, back}, across[4] = {-half, -half, half, half};
    for (int k = 0; k < 4; ++k)
        corners[k][0] = pose[0] + c * along[k] - s * across[k], corners[k][1] = pose[1] + s * along[k] + c * across[k];
}

static void polygon(sp_svg *s, const sp_chart *c, int n, const double (*p)[2], const char *cls, const char *style)
{
    sp_svg_add(s, "<polygon class=\"%s\" points=\"", cls);
    for (int k = 0; k < n; ++k) sp_svg_add(s, "%s%.2f,%.2f", k ? " " : "", sp_chart_px(c, p[k][0]), sp_chart_py(c, p[k][1]));
    sp_svg_add(s, "\" %s/>\n", style);
}

/* The scene of a car plan from its input (obstacles, vehicle, start, goal) and its rows:
 * obstacles filled, the path by gear, the footprint every 0.5 m of travel, the cusps
 * marked, the start and goal footprints; equal scales on both axes. */
static sp_status plot_car_plan(const cJSON *root, const sp_traj *tr, char **svg, sp_input_error *err)
{
    const sp_traj_field *q, *gear = sp_traj_get(tr, "gear");
    sp_status st = sp_traj_need(tr, "q", 4, "the poses (x, y, θ, δ) of the car", err, &q);
    if (st != SP_OK) return st;
    const cJSON *input = cJSON_GetObjectItem(root, "input"), *vehicle = cJSON_GetObjectItem(input, "vehicle");
    static const char *const dim_names[4] = {"wheelbase", "front_overhang", "rear_overhang", "width"};
    double dims[4];
    for (int k = 0; k < 4; ++k) {
        const cJSON *v = cJSON_GetObjectItem(vehicle, dim_names[k]);
        if (!cJSON_IsNumber(v)) return sp_input_fail(err, "input.vehicle", "has no %s to draw the car with", dim_names[k]);
        dims[k] = v->valuedouble;
    }
    const cJSON *obstacles = cJSON_GetObjectItem(input, "obstacles"), *ob, *pt;
    /* the picture's extent: the footprints along the path and the obstacles near it */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int r = 0; r < tr->rows; ++r) {
        double corners[4][2];
        footprint(q->data + 4 * (size_t)r, dims, corners);
        for (int k = 0; k < 4; ++k)
            for (int d = 0; d < 2; ++d) lo[d] = fmin(lo[d], corners[k][d]), hi[d] = fmax(hi[d], corners[k][d]);
    }
    cJSON_ArrayForEach(ob, obstacles) /* the obstacles whole: a scene is drawn as it is */
    {
        cJSON_ArrayForEach(pt, ob)
        {
            for (int d = 0; d < 2 && cJSON_GetArraySize(pt) == 2; ++d) {
                const double v = cJSON_GetArrayItem(pt, d)->valuedouble;
                if (isfinite(v)) lo[d] = fmin(lo[d], v), hi[d] = fmax(hi[d], v);
            }
        }
    }
    const double margin = 1.0 + 0.05 * fmax(hi[0] - lo[0], hi[1] - lo[1]);
    for (int d = 0; d < 2; ++d) lo[d] -= margin, hi[d] += margin;
    const double span_x = hi[0] - lo[0], span_y = hi[1] - lo[1];
    const double width = 860.0, height = fmin(700.0, fmax(200.0, width * span_y / span_x));
    const double scale = fmin(width / span_x, height / span_y);
    sp_chart c = {.left = 70, .top = 80, .width = span_x * scale, .height = span_y * scale,
                  .x = {.label = "x (m)", .min = lo[0], .max = lo[0] + span_x, .have = 1},
                  .y = {.label = "y (m)", .min = lo[1], .max = lo[1] + span_y, .have = 1}};
    char title[160];
    const cJSON *len = cJSON_GetObjectItem(root, "length"), *changes = cJSON_GetObjectItem(root, "gear_changes");
    snprintf(title, sizeof title, "Car plan: %.2f m, %d gear changes", cJSON_IsNumber(len) ? len->valuedouble : 0.0,
             cJSON_IsNumber(changes) ? changes->valueint : 0);
    sp_svg s;
    begin(&s, c.left + c.width + 240, c.top + c.height + 70, title, root);
    sp_chart_axes(&s, &c);
    static const char *const obstacle_style = "fill=\"#bbbbbb\" stroke=\"#666\"";
    cJSON_ArrayForEach(ob, obstacles)
    {
        double p[64][2];
        int n = 0;
        cJSON_ArrayForEach(pt, ob)
        {
            if (n < 64 && cJSON_GetArraySize(pt) == 2)
                p[n][0] = cJSON_GetArrayItem(pt, 0)->valuedouble, p[n][1] = cJSON_GetArrayItem(pt, 1)->valuedouble, ++n;
        }
        if (n >= 3) polygon(&s, &c, n, (const double(*)[2])p, "obstacle", obstacle_style);
    }
    /* footprints every 0.5 m of travel, the path by gear, the cusps */
    static const char *const print_style = "fill=\"none\" stroke=\"#1f77b4\" stroke-opacity=\"0.35\"";
    double travelled = 0.0, next_print = 0.0;
    for (int r = 0; r < tr->rows; ++r) {
        const double *pose = q->data + 4 * (size_t)r;
        if (r > 0) travelled += hypot(pose[0] - pose[-4], pose[1] - pose[-3]);
        if (travelled >= next_print || r + 1 == tr->rows) {
            double corners[4][2];
            footprint(pose, dims, corners);
            polygon(&s, &c, 4, (const double(*)[2])corners, "footprint", print_style);
            next_print = travelled + 0.5;
        }
    }
    static const char *const forward = "stroke=\"#1f77b4\" stroke-width=\"2\"", *const reverse =
        "stroke=\"#ff7f0e\" stroke-width=\"2\" stroke-dasharray=\"6 3\"";
    for (int r0 = 0; r0 + 1 < tr->rows;) {
        int r1 = r0 + 1;
        const double g = gear ? gear->data[r0] : 1.0;
        while (r1 + 1 < tr->rows && (!gear || gear->data[r1] == g)) ++r1;
        sp_chart_series(&s, &c, g < 0 ? "path, reverse" : "path, forward", (size_t)(r1 - r0 + 1), q->data + 4 * (size_t)r0,
                        4, q->data + 4 * (size_t)r0 + 1, 4, g < 0 ? reverse : forward);
        r0 = r1;
    }
    int cusps = 0;
    for (int r = 1; gear && r < tr->rows; ++r)
        if (gear->data[r] != gear->data[r - 1]) {
            const double *pose = q->data + 4 * (size_t)r;
            sp_svg_add(&s, "<circle class=\"cusp\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"none\" stroke=\"#d62728\" "
                           "stroke-width=\"2\"/>\n", sp_chart_px(&c, pose[0]), sp_chart_py(&c, pose[1]));
            ++cusps;
        }
    double ends[2][4][2];
    footprint(q->data, dims, ends[0]);
    footprint(q->data + 4 * (size_t)(tr->rows - 1), dims, ends[1]);
    polygon(&s, &c, 4, (const double(*)[2])ends[0], "start", "fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"2\"");
    polygon(&s, &c, 4, (const double(*)[2])ends[1], "goal",
            "fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"4 3\"");
    sp_legend l = {.x = c.left + c.width + 20, .y = c.top + 8};
    sp_svg_add(&s, "<g class=\"legend\">\n");
    sp_legend_entry(&s, &l, forward, NULL, "path, forward");
    sp_legend_entry(&s, &l, reverse, NULL, "path, reverse");
    sp_legend_entry(&s, &l, NULL, "<rect x=\"-6\" y=\"-4\" width=\"12\" height=\"8\" fill=\"none\" stroke=\"#1f77b4\"/>",
                    "footprint every 0.5 m");
    sp_legend_entry(&s, &l, NULL, "<rect x=\"-6\" y=\"-4\" width=\"12\" height=\"8\" fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"2\"/>", "start");
    sp_legend_entry(&s, &l, NULL, "<rect x=\"-6\" y=\"-4\" width=\"12\" height=\"8\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>", "goal");
    if (cusps) sp_legend_entry(&s, &l, NULL, "<circle r=\"5\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>", "cusp (gear change)");
    sp_legend_entry(&s, &l, NULL, "<rect x=\"-6\" y=\"-4\" width=\"12\" height=\"8\" fill=\"#bbbbbb\" stroke=\"#666\"/>", "obstacle");
    sp_svg_add(&s, "</g>\n");
    return finish(&s, svg, err);
}

sp_status sp_plot_result(const cJSON *result, char **svg, sp_input_error *err)
{
    *svg = NULL;
    sp_status st = sp_result_check(result, err);
    if (st != SP_OK) return st;
    sp_traj tr;
    if ((st = sp_traj_read(result, &tr, err)) != SP_OK) return st;
    const char *model = string_at(result, "model"), *task = string_at(result, "task");
    const cJSON *targets = cJSON_GetObjectItem(result, "targets");
    if (model && strcmp(model, "car") == 0 && strcmp(task, "plan") == 0) {
        st = plot_car_plan(result, &tr, svg, err);
    } else if (model && strcmp(model, "cubic_spline") == 0 && strcmp(task, "plan") == 0) {
        /* orientations when the first target is a matrix or a quaternion, or, without a
         * readable one, when the trajectory has no points y(t) of the sphere */
        sp_json_items items;
        sp_json_items_begin(&items, targets);
        const cJSON *first = cJSON_GetObjectItem(sp_json_items_next(&items), "target");
        int orientation = cJSON_IsArray(first) ? cJSON_IsArray(first->child) || cJSON_GetArraySize(first) == 4
                                               : !sp_traj_get(&tr, "y");
        sp_json_items_end(&items);
        if (orientation)
            st = plot_orientation_plan(result, &tr, svg, err);
        else
            st = plot_sphere_plan(result, &tr, svg, err);
    } else {
        st = plot_time_series(result, &tr, svg, err);
    }
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
    const char *model = string_at(root, "model");
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
    const char *model = string_at(first, "model");
    int differing = 0;
    for (int j = 0; j < n; ++j) {
        const cJSON *in = run_values(results[j], 0), *v;
        const char *m = string_at(in, "model");
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
    const char *model = string_at(root, "model"), *scheme = string_at(settings, "scheme");
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
        st = finish(&s, svg, err);
    }
    for (int i = 0; i < n; ++i) {
        drift_release(&c[i].d);
        free(c[i].cv.owned);
        if (c[i].have_tr) sp_traj_release(&c[i].tr);
    }
    free(c), free(label), free(drift_name);
    return st;
}
