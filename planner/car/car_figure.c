/* The picture of a car's plan (the car family's figure, sp_family.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/car/car_figure.h"
#include "planner/draw/sp_figure.h"

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
    sp_figure_begin(&s, c.left + c.width + 240, c.top + c.height + 70, title, root);
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
    return sp_figure_finish(&s, svg, err);
}

sp_status sp_car_figure(const cJSON *result, const sp_traj *tr, char **svg, sp_input_error *err)
{
    return strcmp(sp_figure_string(result, "task"), "plan") == 0 ? plot_car_plan(result, tr, svg, err) : SP_OK;
}
