/* Random parking scenes (car_scenes.h). A scene is drawn in a frame of its own, the lane
 * along +x with the row of parked cars below it (y < 0) and the goal's slot about x = 0,
 * then turned and moved as a whole. Every range the drawing uses is in `R` below, with
 * the reason for it; the rest is arithmetic. */
#include "tests/car_scenes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "problems/car/sp_car_geometry.h"

#define PI 3.14159265358979323846

typedef struct range {
    double lo, hi;
} range;

/* What real streets and lots look like (metres and radians). */
static const struct {
    range car_length, car_width; /* the neighbours: small hatchbacks to large saloons */
    double park_angle;           /* a parked car sits a few degrees off its line */
    range kerb_offset;           /* a parallel-parked car's side from the kerb */
    double missing_neighbour;    /* the chance that a slot's neighbour is absent */
    range row_gap;               /* between parallel-parked cars further along the row */
    range parallel_play, parallel_play_moderate; /* slot length less the car's: 0.8 m is a
                                                    tight manoeuvre for a driver, 3 m an easy one */
    range kerb_gap;              /* the goal footprint's side from the kerb */
    range parallel_lane;         /* a street's lane beside the parked row, to the far side */
    range bay_play, bay_play_moderate; /* bay width less the car's: marked bays are
                                          2.3–2.5 m (width + 0.35 … 0.6), wide ones 3 m */
    range bay_depth;             /* bay length less the car's */
    range back_gap;              /* the deep end of a parked car from the wall or kerb */
    range bay_lane;              /* the aisle of a lot with perpendicular bays */
    range angled_lane;           /* one-way aisles of angled bays are narrower */
    range far_side_offset;       /* cars on the far side from the aisle's edge */
    double half_extent;          /* the scene runs this far along the lane each way of the slot */
    double start_reach;          /* the start's distance along the lane from the slot, at most */
    double start_yaw;            /* the start's heading off the lane's direction, at most */
    double lane_margin;          /* the start footprint's side from the lane's edges, at least */
    double reverse_job;          /* the chance that the car leaves the slot instead */
    double facing_out;           /* the chance of a goal reversed into a bay */
    double other_vehicle;        /* the chance of a vehicle other than TPCAP's */
    range wheelbase, front_overhang, rear_overhang, width, max_steering; /* city cars to large
                                 saloons; steering locks of 31° to 43° */
    double clearance;            /* the planner's default */
    double start_goal_margin;    /* start and goal footprints keep clearance + this */
    double far, very_far;        /* the chance of a scene up to 1e6 m out, and of one 4e9 m out (as TPCAP's 13–15) */
    range clutter_count;         /* posts, bins, kerb corners, planters */
    double corridor;             /* free width kept beside the row for driving past: car width + this */
} R = {
    .car_length = {3.8, 5.3},
    .car_width = {1.7, 2.0},
    .park_angle = 3.0 * PI / 180.0,
    .kerb_offset = {0.1, 0.35},
    .missing_neighbour = 0.15,
    .row_gap = {0.6, 2.5},
    .parallel_play = {0.8, 3.0},
    .parallel_play_moderate = {1.5, 3.0},
    .kerb_gap = {0.15, 0.5},
    .parallel_lane = {3.5, 7.0},
    .bay_play = {0.35, 1.2},
    .bay_play_moderate = {0.6, 1.2},
    .bay_depth = {0.3, 1.0},
    .back_gap = {0.25, 0.6},
    .bay_lane = {5.0, 8.0},
    .angled_lane = {4.5, 7.0},
    .far_side_offset = {0.0, 0.3},
    .half_extent = 20.0,
    .start_reach = 12.0,
    .start_yaw = 8.0 * PI / 180.0,
    .lane_margin = 0.35,
    .reverse_job = 0.2,
    .facing_out = 0.4,
    .other_vehicle = 0.25,
    .wheelbase = {2.4, 3.1},
    .front_overhang = {0.7, 1.05},
    .rear_overhang = {0.6, 1.1},
    .width = {1.65, 2.0},
    .max_steering = {0.55, 0.75},
    .clearance = 0.05,
    .start_goal_margin = 0.1,
    .far = 0.2,
    .very_far = 0.06,
    .clutter_count = {2, 5},
    .corridor = 1.6,
};

static const sp_car_vehicle tpcap_vehicle = {2.8, 0.96, 0.929, 1.942, 0.75, 0.0};

/* splitmix64 (Steele, Lea & Flood, Fast splittable pseudorandom number generators, 2014):
 * one 64-bit word of state, the same numbers on every platform. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform01(rng *r) { return (double)(mix(r->s += 0x9E3779B97F4A7C15ull) >> 11) * 0x1p-53; }

static double draw(rng *r, range a) { return a.lo + (a.hi - a.lo) * uniform01(r); }
static int chance(rng *r, double p) { return uniform01(r) < p; }
static double sym(rng *r, double a) { return a * (2.0 * uniform01(r) - 1.0); }

#define MAX_POLYGONS 128
#define MAX_VERTICES 8

typedef struct scene {
    sp_car_vehicle v;
    double start[3], goal[3];
    int n, nv[MAX_POLYGONS];
    double xy[MAX_POLYGONS][2 * MAX_VERTICES];
    double row_top, lane_top; /* the parked row's edge on the lane, the lane's far edge */
    double slot_x;            /* the slot's middle along the lane */
} scene;

static double car_length(const sp_car_vehicle *v) { return v->rear_overhang + v->wheelbase + v->front_overhang; }

static void add_polygon(scene *sc, const double *xy, int nv)
{
    if (sc->n >= MAX_POLYGONS) return;
    memcpy(sc->xy[sc->n], xy, 2 * (size_t)nv * sizeof *xy);
    sc->nv[sc->n++] = nv;
}

/* The rectangle len × wid about (cx, cy), its length along angle a. */
static void rectangle(double cx, double cy, double len, double wid, double a, double out[8])
{
    const double c = cos(a), s = sin(a), u[4] = {-1, 1, 1, -1}, w[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; ++k) {
        out[2 * k] = cx + 0.5 * len * u[k] * c - 0.5 * wid * w[k] * s;
        out[2 * k + 1] = cy + 0.5 * len * u[k] * s + 0.5 * wid * w[k] * c;
    }
}

static void add_box(scene *sc, double x0, double y0, double x1, double y1)
{
    const double b[8] = {x0, y0, x1, y0, x1, y1, x0, y1};
    add_polygon(sc, b, 4);
}

/* The y extent of polygon i. */
static void y_extent(const scene *sc, int i, double *lo, double *hi)
{
    *lo = HUGE_VAL, *hi = -HUGE_VAL;
    for (int k = 0; k < sc->nv[i]; ++k) *lo = fmin(*lo, sc->xy[i][2 * k + 1]), *hi = fmax(*hi, sc->xy[i][2 * k + 1]);
}

/* The rear-axle pose whose footprint has its centre at (cx, cy), heading a. */
static void pose_at_centre(const sp_car_vehicle *v, double cx, double cy, double a, double pose[3])
{
    const double back = 0.5 * car_length(v) - v->rear_overhang;
    pose[0] = cx - back * cos(a), pose[1] = cy - back * sin(a), pose[2] = a;
}

/* The least distance from the footprint at pose to the polygons from `from` on. */
static double clear_of(const scene *sc, const double pose[3], int from)
{
    double d = HUGE_VAL;
    for (int i = from; i < sc->n; ++i)
        d = fmin(d, sp_car_polygon_distance(&sc->v, pose, sc->xy[i], (size_t)sc->nv[i], NULL, NULL));
    return d;
}

/* A row of parked cars along the lane, its side on the lane at y = edge (dir = +1: the
 * row lies above the edge, −1 below), from x0 to x1, with gaps between cars. */
static void parallel_row(rng *r, scene *sc, double edge, int dir, double x0, double x1)
{
    for (double x = x0 + draw(r, R.row_gap); x < x1;) {
        const double len = draw(r, R.car_length), wid = draw(r, R.car_width), a = sym(r, R.park_angle);
        const double hx = 0.5 * len * cos(a) + 0.5 * wid * fabs(sin(a)), hy = 0.5 * len * fabs(sin(a)) + 0.5 * wid * cos(a);
        if (x + 2 * hx > x1) break;
        if (!chance(r, R.missing_neighbour)) {
            double car[8];
            rectangle(x + hx, edge + dir * (draw(r, R.far_side_offset) + hy), len, wid, a, car);
            add_polygon(sc, car, 4);
        }
        x += 2 * hx + draw(r, R.row_gap);
    }
}

/* The far side of the lane, from y = lane_top up: a wall, or a row of parked cars. */
static void far_side(rng *r, scene *sc)
{
    const double X = R.half_extent + sc->slot_x;
    if (chance(r, 0.4))
        add_box(sc, sc->slot_x - R.half_extent, sc->lane_top, X, sc->lane_top + 0.3);
    else
        parallel_row(r, sc, sc->lane_top, +1, sc->slot_x - R.half_extent, X);
}

/* Parallel: the goal's footprint spans x 0 … car length, y −width … 0, the kerb below. */
static double parallel_scene(rng *r, scene *sc, int moderate)
{
    const sp_car_vehicle *v = &sc->v;
    const double Lc = car_length(v), W = v->width, play = draw(r, moderate ? R.parallel_play_moderate : R.parallel_play);
    const double kerb = -W - draw(r, R.kerb_gap), behind = play * draw(r, (range){0.3, 0.7});
    sc->slot_x = 0.5 * Lc;
    const double X0 = sc->slot_x - R.half_extent, X1 = sc->slot_x + R.half_extent;
    sc->goal[0] = v->rear_overhang, sc->goal[1] = -0.5 * W, sc->goal[2] = 0.0;
    add_box(sc, X0, kerb - 0.3, X1, kerb);
    /* the neighbours, each ending where the slot does, then the rest of the row */
    double lo = X0, hi = X1;
    for (int side = -1; side <= 1; side += 2) {
        double x = side < 0 ? -behind : Lc + play - behind;
        for (;;) {
            const double len = draw(r, R.car_length), wid = draw(r, R.car_width), a = sym(r, R.park_angle);
            const double hx = 0.5 * len * cos(a) + 0.5 * wid * fabs(sin(a)), hy = 0.5 * len * fabs(sin(a)) + 0.5 * wid * cos(a);
            if (side < 0 ? x - 2 * hx < X0 : x + 2 * hx > X1) break;
            if (!chance(r, R.missing_neighbour)) {
                double car[8];
                rectangle(x + side * hx, kerb + draw(r, R.kerb_offset) + hy, len, wid, a, car);
                add_polygon(sc, car, 4);
                if (side < 0) lo = fmax(lo, x);
                else hi = fmin(hi, x);
            }
            x += side * (2 * hx + draw(r, R.row_gap));
        }
    }
    sc->row_top = 0.0;
    for (int i = 1; i < sc->n; ++i) {
        double a, b;
        y_extent(sc, i, &a, &b);
        sc->row_top = fmax(sc->row_top, b);
    }
    sc->lane_top = sc->row_top + draw(r, R.parallel_lane);
    far_side(r, sc);
    return hi - lo - Lc;
}

/* A bay: the row of bays below y = 0, their long sides along direction −a from the lane
 * (a = 90° perpendicular), each `width` wide across, bays `pitch` apart along the lane;
 * the goal in bay 0 facing in (heading −a) or out; the wall or kerb at the back. Returns
 * the play across. */
static double bay_scene(rng *r, scene *sc, double a, int moderate, int *facing_out)
{
    const sp_car_vehicle *v = &sc->v;
    const double Lc = car_length(v), W = v->width, play = draw(r, moderate ? R.bay_play_moderate : R.bay_play);
    const double width = W + play, pitch = width / sin(a), depth = Lc + draw(r, R.bay_depth);
    const double ux = cos(a), uy = -sin(a); /* into the bay */
    sc->slot_x = 0.0;
    /* the car's lane-side corner at y = −g: its centre that far down the bay's axis */
    const double reach_y = 0.5 * Lc * sin(a) + 0.5 * W * cos(a), g = draw(r, R.far_side_offset);
    const double t = (reach_y + g) / sin(a);
    *facing_out = chance(r, R.facing_out);
    pose_at_centre(v, t * ux, t * uy, *facing_out ? PI - a : -a, sc->goal);
    /* the back: the deeper of the bay's depth and the goal footprint's lowest corner,
     * with a gap */
    double corners[8], low = HUGE_VAL;
    sp_car_footprint(v, sc->goal, corners);
    for (int k = 0; k < 4; ++k) low = fmin(low, corners[2 * k + 1]);
    const double back = fmin(-depth * sin(a), low - draw(r, R.back_gap));
    add_box(sc, -R.half_extent, back - 0.3, R.half_extent, back);
    /* the neighbours, in their own bays, kept inside them and off the back */
    const int K = (int)((R.half_extent - 0.5 * width) / pitch);
    sc->row_top = 0.0;
    for (int k = -K; k <= K; ++k) {
        if (k == 0 || chance(r, R.missing_neighbour)) continue;
        const double wid = fmin(draw(r, R.car_width), width - 0.15), len = draw(r, R.car_length);
        double tilt = sym(r, R.park_angle);
        if (0.5 * len * fabs(sin(tilt)) + 0.5 * wid * cos(tilt) > 0.5 * width - 0.03) tilt = 0.0;
        const double side = sym(r, 0.3 * (0.5 * width - 0.5 * wid));
        const double ry = 0.5 * len * sin(a) + 0.5 * wid * cos(a);
        double tt = (ry + draw(r, R.far_side_offset)) / sin(a);
        /* a long car would reach the back: it stops short of it instead, jutting into the lane */
        const double deep = -(tt * sin(a) + ry);
        if (deep < back + 0.15) tt -= (back + 0.15 - deep) / sin(a);
        double car[8];
        rectangle(k * pitch + tt * ux + side * sin(a), tt * uy + side * cos(a), len, wid, -a + tilt, car);
        add_polygon(sc, car, 4);
        double lo, hi;
        y_extent(sc, sc->n - 1, &lo, &hi);
        sc->row_top = fmax(sc->row_top, hi);
    }
    sc->lane_top = sc->row_top + draw(r, a > 80.0 * PI / 180.0 ? R.bay_lane : R.angled_lane);
    far_side(r, sc);
    return play;
}

/* Clutter: n posts, bins, kerb corners and planters in the lane, each kept in the band
 * beyond the corridor beside the row, away from the slot's mouth and clear of start and
 * goal (an obstacle that would not be is drawn again, or left out). */
static int add_clutter(rng *r, scene *sc)
{
    const double Lc = car_length(&sc->v), lo = sc->row_top + sc->v.width + R.corridor, hi = sc->lane_top;
    if (hi - lo < 0.3) return 0;
    double mouth[2];
    sp_car_footprint_centre(&sc->v, sc->goal, mouth);
    const int n = (int)draw(r, (range){R.clutter_count.lo, R.clutter_count.hi + 0.999});
    int placed = 0;
    for (int i = 0; i < n; ++i)
        for (int attempt = 0; attempt < 10; ++attempt) {
            const double cx = sc->slot_x + sym(r, R.half_extent - 2.0);
            if (fabs(cx - mouth[0]) < Lc + 2.0) continue;
            double p[2 * MAX_VERTICES];
            int nv = 4;
            const int type = (int)(4 * uniform01(r));
            const double turn = sym(r, PI);
            double size;
            if (type == 0) { /* a post */
                size = draw(r, (range){0.15, 0.4});
                rectangle(0, 0, size, size, turn, p);
            } else if (type == 1) { /* a bin or a box */
                const double a = draw(r, (range){0.5, 1.2}), b = draw(r, (range){0.5, 0.8});
                size = fmax(a, b);
                rectangle(0, 0, a, b, turn, p);
            } else if (type == 2) { /* a kerb corner: an L, not convex */
                const double a = draw(r, (range){0.8, 2.0}), b = draw(r, (range){0.8, 2.0}), t = draw(r, (range){0.15, 0.3});
                const double L[12] = {0, 0, a, 0, a, t, t, t, t, b, 0, b};
                nv = 6;
                size = fmax(a, b);
                for (int k = 0; k < nv; ++k) {
                    const double x = L[2 * k] - 0.5 * a, y = L[2 * k + 1] - 0.5 * b;
                    p[2 * k] = x * cos(turn) - y * sin(turn), p[2 * k + 1] = x * sin(turn) + y * cos(turn);
                }
            } else { /* a planter: a star of 5 to 7 points, not convex */
                nv = 5 + (int)(3 * uniform01(r));
                const double rad = draw(r, (range){0.4, 1.0});
                size = 2 * rad;
                for (int k = 0; k < nv; ++k) {
                    const double ang = turn + 2 * PI * (k + sym(r, 0.3)) / nv, rr = rad * (k % 2 ? 0.55 : 1.0);
                    p[2 * k] = rr * cos(ang), p[2 * k + 1] = rr * sin(ang);
                }
            }
            double ylo = HUGE_VAL, yhi = -HUGE_VAL;
            for (int k = 0; k < nv; ++k) ylo = fmin(ylo, p[2 * k + 1]), yhi = fmax(yhi, p[2 * k + 1]);
            /* in the band: its lowest point above lo, its highest at most a little past the lane */
            const double cmin = lo - ylo, cmax = hi + 0.5 * size - yhi;
            if (cmax < cmin) continue;
            const double cy = draw(r, (range){cmin, cmax});
            for (int k = 0; k < nv; ++k) p[2 * k] += cx, p[2 * k + 1] += cy;
            add_polygon(sc, p, nv);
            const double need = R.clearance + R.start_goal_margin;
            if (clear_of(sc, sc->start, sc->n - 1) < need || clear_of(sc, sc->goal, sc->n - 1) < need) {
                --sc->n;
                continue;
            }
            ++placed;
            break;
        }
    return placed;
}

/* The start in the lane: anywhere along it within reach of the slot, either way, a little
 * askew, its footprint off both edges of the lane. */
static void lane_pose(rng *r, const scene *sc, double pose[3])
{
    const double W = sc->v.width, ylo = sc->row_top + 0.5 * W + R.lane_margin + 0.3,
                 yhi = sc->lane_top - 0.5 * W - R.lane_margin;
    const double a = (chance(r, 0.5) ? 0.0 : PI) + sym(r, R.start_yaw);
    const double cy = yhi > ylo ? draw(r, (range){ylo, yhi}) : 0.5 * (ylo + yhi);
    pose_at_centre(&sc->v, sc->slot_x + sym(r, R.start_reach), cy, a, pose);
}

static void random_vehicle(rng *r, sp_car_vehicle *v)
{
    *v = (sp_car_vehicle){draw(r, R.wheelbase), draw(r, R.front_overhang), draw(r, R.rear_overhang), draw(r, R.width),
                          draw(r, R.max_steering), 0.0};
}

const char *car_scene_kind_name(car_scene_kind kind)
{
    static const char *const names[] = {"parallel", "perpendicular", "angled", "clutter"};
    return kind < CAR_SCENE_KINDS ? names[kind] : "?";
}

static cJSON *point(double x, double y)
{
    const double p[2] = {x, y};
    return cJSON_CreateDoubleArray(p, 2);
}

/* The scene turned by phi about the origin and moved by (ox, oy), as a problem document;
 * the bounds are the box around it all, widened by a metre. */
static cJSON *document(const scene *sc, const car_scene_info *info, unsigned long seed, double phi, double ox, double oy)
{
    const double c = cos(phi), s = sin(phi);
    double b[4] = {HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    cJSON *doc = cJSON_CreateObject();
    char desc[200];
    snprintf(desc, sizeof desc, "a generated %s scene (seed %lu)", car_scene_kind_name(info->kind), seed);
    cJSON_AddStringToObject(doc, "task", "plan");
    cJSON_AddStringToObject(doc, "model", "car");
    cJSON_AddStringToObject(doc, "description", desc);
    cJSON *veh = cJSON_AddObjectToObject(doc, "vehicle");
    cJSON_AddNumberToObject(veh, "wheelbase", sc->v.wheelbase);
    cJSON_AddNumberToObject(veh, "front_overhang", sc->v.front_overhang);
    cJSON_AddNumberToObject(veh, "rear_overhang", sc->v.rear_overhang);
    cJSON_AddNumberToObject(veh, "width", sc->v.width);
    cJSON_AddNumberToObject(veh, "max_steering", sc->v.max_steering);
    const double *poses[2] = {sc->start, sc->goal};
    const char *names[2] = {"start", "goal"};
    for (int p = 0; p < 2; ++p) {
        const double *q = poses[p], th = remainder(q[2] + phi, 2 * PI);
        const double pose[3] = {ox + c * q[0] - s * q[1], oy + s * q[0] + c * q[1], th};
        cJSON_AddItemToObject(doc, names[p], cJSON_CreateDoubleArray(pose, 3));
        double corners[8];
        sp_car_footprint(&sc->v, q, corners);
        for (int k = 0; k < 4; ++k) {
            const double x = c * corners[2 * k] - s * corners[2 * k + 1], y = s * corners[2 * k] + c * corners[2 * k + 1];
            b[0] = fmin(b[0], x), b[1] = fmin(b[1], y), b[2] = fmax(b[2], x), b[3] = fmax(b[3], y);
        }
    }
    cJSON *obs = cJSON_AddArrayToObject(doc, "obstacles");
    for (int i = 0; i < sc->n; ++i) {
        cJSON *poly = cJSON_CreateArray();
        for (int k = 0; k < sc->nv[i]; ++k) {
            const double x = c * sc->xy[i][2 * k] - s * sc->xy[i][2 * k + 1], y = s * sc->xy[i][2 * k] + c * sc->xy[i][2 * k + 1];
            b[0] = fmin(b[0], x), b[1] = fmin(b[1], y), b[2] = fmax(b[2], x), b[3] = fmax(b[3], y);
            cJSON_AddItemToArray(poly, point(ox + x, oy + y));
        }
        cJSON_AddItemToArray(obs, poly);
    }
    cJSON_AddNumberToObject(doc, "clearance", R.clearance);
    const double bounds[4] = {ox + b[0] - 1.0, oy + b[1] - 1.0, ox + b[2] + 1.0, oy + b[3] + 1.0};
    cJSON_AddItemToObject(doc, "bounds", cJSON_CreateDoubleArray(bounds, 4));
    return doc;
}

cJSON *car_scene_draw(unsigned long seed, car_scene_kind kind, int moderate, car_scene_info *info)
{
    /* the state mixed from the seed and the kind: neighbouring seeds start far apart, and
     * the kinds of one seed draw apart too */
    rng r = {mix(((uint64_t)seed << 3 | (uint64_t)kind) ^ 0x5CE4E5ull)};
    car_scene_info own;
    if (!info) info = &own;
    *info = (car_scene_info){.kind = kind < CAR_SCENE_KINDS ? kind : (car_scene_kind)(4 * uniform01(&r))};
    scene sc;
    for (info->draws = 1;; ++info->draws) {
        memset(&sc, 0, sizeof sc);
        info->other_vehicle = chance(&r, R.other_vehicle);
        if (info->other_vehicle) random_vehicle(&r, &sc.v);
        else sc.v = tpcap_vehicle;
        info->slot = info->kind == CAR_SCENE_CLUTTER ? (car_scene_kind)(3 * uniform01(&r)) : info->kind;
        info->facing_out = 0;
        if (info->slot == CAR_SCENE_PARALLEL) {
            info->angle = 0.0;
            info->play = parallel_scene(&r, &sc, moderate);
        } else {
            static const double angles[3] = {45.0, 60.0, 75.0};
            info->angle = info->slot == CAR_SCENE_PERPENDICULAR ? 90.0 : angles[(int)(3 * uniform01(&r))];
            info->play = bay_scene(&r, &sc, info->angle * PI / 180.0, moderate, &info->facing_out);
        }
        lane_pose(&r, &sc, sc.start);
        const double need = R.clearance + R.start_goal_margin;
        if (clear_of(&sc, sc.start, 0) >= need && clear_of(&sc, sc.goal, 0) >= need) break;
    }
    info->clutter = info->kind == CAR_SCENE_CLUTTER ? add_clutter(&r, &sc) : 0;
    info->reverse_job = chance(&r, R.reverse_job);
    if (info->reverse_job) {
        double t[3];
        memcpy(t, sc.start, sizeof t), memcpy(sc.start, sc.goal, sizeof t), memcpy(sc.goal, t, sizeof t);
    }
    const double phi = sym(&r, PI), u = uniform01(&r), dir = sym(&r, PI);
    double dist = draw(&r, (range){0.0, 100.0});
    if (u < R.very_far) dist = 4e9 + draw(&r, (range){0.0, 1e5});
    else if (u < R.very_far + R.far) dist = draw(&r, (range){1e3, 1e6});
    info->distance = dist;
    return document(&sc, info, seed, phi, dist * cos(dir), dist * sin(dir));
}
