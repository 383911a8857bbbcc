/* The pieces of the cubic plan's pictures (planner/cubic/figures.c): 3-d views of the unit
 * sphere, the result's targets, labels that keep clear of each other, and the panels
 * against time (kicks, misses, angular speed). Internal to planner/cubic. */
#ifndef SP_PLAN_FIGURE_H
#define SP_PLAN_FIGURE_H

#include <cjson/cJSON.h>

#include "planner/draw/sp_figure.h"
#include "planner/result_view.h"

/* An orthographic camera looking at the origin from direction `depth`, z up on screen
 * (y when looking along z). */
typedef struct view3 {
    double right[3], up[3], depth[3];
} view3;

/* A keyframe of a plan: its time, what it asked and what the plan reached (a point: 3
 * numbers; a rotation: 9), and the distance between them. */
typedef struct plan_target {
    double t, target[9], reached[9], distance;
} plan_target;

/* A label's room on screen, and the anchors of text with their SVG attributes. */
typedef struct box {
    double x0, y0, x1, y1;
} box;
enum { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END };
extern const char *const plan_figure_anchor_attr[3];

/* Boxes already taken on screen (markers, or labels placed before). */
typedef struct box_set {
    box *b;
    int count, capacity;
} box_set;

/* The camera looking from `direction` (any length; along (1, 1, 1) when zero). */
void plan_figure_view_from(const double *direction, view3 *v);
/* Screen position of a point of the unit sphere in a chart spanning [-r, r]². */
void plan_figure_to_screen(const sp_chart *c, const view3 *v, const double *P, double *x, double *y);
/* A curve on the unit sphere (n points, 3 doubles apart by `stride` rows), near side in
 * front_style, far side in back_style (not drawn when NULL); the curve is cut where it
 * crosses the rim, at the crossing point. */
void plan_figure_sphere_curve(sp_svg *s, const sp_chart *c, const view3 *v, size_t n, const double *pts, size_t stride,
                              const char *front_style, const char *back_style);
/* Small arrows of the world axes x, y, z as the camera sees them. */
void plan_figure_world_axes(sp_svg *s, const view3 *v, double cx, double cy, double len);
/* The result's "targets" with width 3 (points) or 9 (rotations: a matrix or a quaternion
 * in the result's order tr->quaternion_xyzw under "target", or a quaternion under "q");
 * *out is the caller's to free. */
sp_status plan_figure_read_targets(const cJSON *root, const sp_traj *tr, int width, plan_target **out, int *count,
                                   sp_input_error *err);
/* The room text takes at (x, y) with an anchor, estimated from its length. */
box plan_figure_text_box(double x, double y, int anchor, double font, const char *text);
/* A set of room for `capacity` boxes (0 when out of memory; the caller frees set->b);
 * taking one more than that is ignored. */
int plan_figure_box_set_init(box_set *set, int capacity);
void plan_figure_box_take(box_set *set, box a);
/* Whether a box overlaps none of the set, and whether it lies inside the chart's area. */
int plan_figure_box_clear_of(const box_set *set, const box *a);
int plan_figure_box_inside(const box *a, const sp_chart *c);
/* The kicks panel: |Δν| at each target time as a stem. */
sp_status plan_figure_kicks_panel(sp_svg *s, const cJSON *root, double T, double left, double top, double width,
                                  double height, sp_input_error *err);
/* The miss at each keyframe against its time, as <g id="`id`" class="time-plot">: a dot
 * per keyframe on a thin line, on a log axis when the positive misses span two decades
 * or more (exact zeros, as after exact interpolation, then sit a decade below the
 * smallest positive miss, which a note says); `what` names the miss on the y axis. */
sp_status plan_figure_miss_panel(sp_svg *s, const plan_target *tg, int n, double T, sp_chart c, const char *id,
                                 const char *what, sp_input_error *err);
/* The angular speed |ω| against time, as <g id="angular-speed" class="time-plot">: |ξ| of
 * the trajectory's "xi" (the body angular velocity; the spatial one has the same length),
 * or, without it, the rotation angle between neighbouring rows of R over their time step. */
sp_status plan_figure_speed_panel(sp_svg *s, const sp_traj *tr, const double *R, double T, sp_chart c,
                                  sp_input_error *err);

#endif
