/* The pictures of a cubic-spline plan (the cubic family's figure, sp_family.h):
 *
 *  - on the sphere: an orthographic view of S² centred on the path y(t) (far side dashed
 *    and dimmed), targets, reached points and the miss between them, labelled without
 *    overlaps (only some of them when there are many), and panels of the momentum kicks
 *    |Δν| and of the misses against t;
 *  - of orientations (rotation matrices or quaternions): body frames (RGB triads) along
 *    the path at sampled times, the target and reached frames at the target times (as
 *    many as fit side by side), the kicks, and two time plots: the miss angle at each
 *    keyframe and the angular speed |ω| = |ξ|.
 *
 * A simulation of a cubic takes the common picture (planner/plot/plot.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "lie/sp_quaternion.h"
#include "planner/cubic/plan_figure.h"
#include "planner/cubic/sp_plan.h"
#include "problems/sp_json_packed.h"

/* ---- the sphere plan */

/* How a camera along `d` sees points of the sphere: how many fall on the far side, and
 * how round their cloud looks on screen (the square root of the ratio of the small to
 * the large principal spread of the projected points: 0 for a line, 1 for a disc). */
static void view_score(const double *d, const double *pts, int count, int *far, double *roundness)
{
    view3 v;
    plan_figure_view_from(d, &v);
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
        plan_figure_view_from((const double[3]){1.0, 0.8, 0.6}, v);
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
        plan_figure_view_from((const double[3]){1.0, 0.8, 0.6}, v);
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
    plan_figure_view_from(d, v);
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
    sp_status st = plan_figure_read_targets(root, tr, 3, &tg, &n, err);
    if (st != SP_OK) return st;
    box_set markers, labels;
    int ok_markers = plan_figure_box_set_init(&markers, 2 * n + 1), ok_labels = plan_figure_box_set_init(&labels, n);
    if (!ok_markers || !ok_labels) {
        free(markers.b), free(labels.b), free(tg);
        return sp_input_fail(err, "targets", "out of memory");
    }

    view3 v;
    sphere_view(y->data, tr->rows, tg, n, &v);

    sp_svg s;
    sp_figure_begin(&s, 1180, 610, "Riemannian cubic on the sphere S²", root);
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
        plan_figure_sphere_curve(&s, &c, &v, SAMPLES, circle, 3, lat == 0 ? "stroke=\"#999\"" : "stroke=\"#c8c8c8\"", NULL);
    }
    for (int lon = 0; lon < 180; lon += 30) {
        for (int j = 0; j < SAMPLES; ++j) {
            double a = 2 * SP_PI * j / (SAMPLES - 1), l = lon * SP_PI / 180;
            circle[3 * j] = cos(a) * cos(l), circle[3 * j + 1] = cos(a) * sin(l), circle[3 * j + 2] = sin(a);
        }
        plan_figure_sphere_curve(&s, &c, &v, SAMPLES, circle, 3, "stroke=\"#c8c8c8\"", NULL);
    }
    sp_svg_add(&s, "</g>\n");
    plan_figure_world_axes(&s, &v, c.left + 40, c.top + c.height - 40, 24);

    /* the path, thinned to about 3000 points (the last one kept) */
    size_t stride = (size_t)tr->rows > 3000 ? ((size_t)tr->rows + 2999) / 3000 : 1;
    sp_svg_add(&s, "<g class=\"series path\"><title>path y(t)</title>\n");
    plan_figure_sphere_curve(&s, &c, &v, ((size_t)tr->rows - 1) / stride + 1, y->data, 3 * stride, PATH_FRONT, PATH_BACK);
    if (((size_t)tr->rows - 1) % stride)
        plan_figure_sphere_curve(&s, &c, &v, 2, y->data + 3 * (((size_t)tr->rows - 1) / stride * stride),
                     3 * ((size_t)tr->rows - 1 - ((size_t)tr->rows - 1) / stride * stride), PATH_FRONT, PATH_BACK);
    sp_svg_add(&s, "</g>\n");
    double x, yy;
    plan_figure_to_screen(&c, &v, y->data, &x, &yy);
    sp_svg_add(&s,
               "<rect class=\"start\" x=\"%.2f\" y=\"%.2f\" width=\"8\" height=\"8\" fill=\"#2ca02c\"><title>start "
               "y(0)</title></rect>\n",
               x - 4, yy - 4);
    plan_figure_box_take(&markers, (box){x - 4, yy - 4, x + 4, yy + 4});

    /* targets, reached points and the miss between them; markers shrink past 10 keyframes */
    const double scale = n > 10 ? fmax(0.55, sqrt(10.0 / n)) : 1.0, mr = 5.5 * scale, cross = 4.0 * scale,
                 stroke = fmax(1.2, 2.0 * scale);
    for (int i = 0; i < n; ++i) {
        double tx, ty, rx, ry;
        plan_figure_to_screen(&c, &v, tg[i].target, &tx, &ty);
        plan_figure_to_screen(&c, &v, tg[i].reached, &rx, &ry);
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
        plan_figure_box_take(&markers, (box){tx - half, ty - half, tx + half, ty + half});
        plan_figure_box_take(&markers, (box){rx - cross, ry - cross, rx + cross, ry + cross});
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
        plan_figure_to_screen(&c, &v, tg[i].target, &tx, &ty);
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
                const box b = plan_figure_text_box(lx, ly, anchor, font, label);
                if (!plan_figure_box_inside(&b, &c) || !plan_figure_box_clear_of(&labels, &b) || (pass == 0 && !plan_figure_box_clear_of(&markers, &b)))
                    continue;
                char attrs[128];
                snprintf(attrs, sizeof attrs, "class=\"target-label\" font-size=\"%g\" fill=\"#a0522d\"%s", font,
                         plan_figure_anchor_attr[anchor]);
                sp_svg_text(&s, lx, ly, attrs, label);
                plan_figure_box_take(&labels, b);
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
    st = plan_figure_kicks_panel(&s, root, T, 820, 90, 320, 170, err);
    if (st == SP_OK) {
        sp_chart m = {.left = 820, .top = 360, .width = 320, .height = 170};
        st = plan_figure_miss_panel(&s, tg, n, T, m, "miss-distance", "miss |y − target|", err);
    }
    free(tg), free(markers.b), free(labels.b);
    if (st != SP_OK) {
        sp_svg_release(&s);
        return st;
    }
    return sp_figure_finish(&s, svg, err);
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
    sp_status st = plan_figure_read_targets(root, tr, 9, &tg, &n, err);
    box_set labels = {0};
    if (st == SP_OK && !plan_figure_box_set_init(&labels, 2 * n)) {
        free(tg);
        st = sp_input_fail(err, "targets", "out of memory");
    }
    if (st != SP_OK) {
        free(owned);
        return st;
    }
    view3 v;
    plan_figure_view_from((const double[3]){1.0, 0.75, 0.55}, &v);
    const double T = tr->t[tr->rows - 1];

    sp_svg s;
    sp_figure_begin(&s, 1180, 970, "Riemannian cubic of orientations on SO(3)", root);
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
            const box b = plan_figure_text_box(x, ly, ANCHOR_MIDDLE, font, label);
            if (!plan_figure_box_clear_of(&labels, &b)) continue;
            sp_svg_text(&s, x, ly, "class=\"target-label\" text-anchor=\"middle\" font-size=\"11\"", label);
            plan_figure_box_take(&labels, b);
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
    plan_figure_world_axes(&s, &v, l.x + 40, l.y + 18 * l.count + 65, 24);

    st = plan_figure_kicks_panel(&s, root, T, 90, 500, 840, 150, err);
    if (st == SP_OK) {
        sp_chart m = {.left = 90, .top = 750, .width = 360, .height = 160, .title = "Miss angle at the keyframes"};
        st = plan_figure_miss_panel(&s, tg, n, T, m, "miss-angle", "miss angle (rad)", err);
    }
    if (st == SP_OK) {
        sp_chart w = {.left = 570, .top = 750, .width = 360, .height = 160};
        st = plan_figure_speed_panel(&s, tr, R, T, w, err);
    }
    free(tg), free(labels.b), free(owned);
    if (st != SP_OK) {
        sp_svg_release(&s);
        return st;
    }
    return sp_figure_finish(&s, svg, err);
}

sp_status sp_cubic_figure(const cJSON *result, const sp_traj *tr, char **svg, sp_input_error *err)
{
    const char *task = sp_figure_string(result, "task");
    if (strcmp(task, "plan") != 0) return SP_OK;
    /* orientations when the first target is a matrix or a quaternion, or, without a
     * readable one, when the trajectory has no points y(t) of the sphere */
    sp_json_items items;
    sp_json_items_begin(&items, cJSON_GetObjectItem(result, "targets"));
    const cJSON *first = cJSON_GetObjectItem(sp_json_items_next(&items), "target");
    int orientation = cJSON_IsArray(first) ? cJSON_IsArray(first->child) || cJSON_GetArraySize(first) == 4
                                           : !sp_traj_get(tr, "y");
    sp_json_items_end(&items);
    return orientation ? plot_orientation_plan(result, tr, svg, err) : plot_sphere_plan(result, tr, svg, err);
}
