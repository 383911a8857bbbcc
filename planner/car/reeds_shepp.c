/* Reeds–Shepp paths (J. A. Reeds & L. A. Shepp, "Optimal paths for a car that goes both
 * forwards and backwards", Pacific J. Math. 145 (1990) 367–393): the shortest path of
 * bounded curvature between two poses, driving both ways, is one of 48 words of arcs (L,
 * R) and straights (S). Each family is solved in closed form for the base word, and the
 * others follow by the symmetries of the paper: time flip (x, y, φ) → (−x, y, −φ), which
 * reverses every gear; reflection (x, −y, −φ), which swaps L and R; and driving the
 * word backwards. Every candidate is integrated and kept only if it ends at the goal, so
 * that a slip in a formula can cost a path but never yield a wrong one. */
#include <math.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"

#define RS_EPS 1e-10
#define RS_MAX 64

static double mod2pi(double x)
{
    double v = fmod(x, 2.0 * SP_PI);
    if (v < -SP_PI) v += 2.0 * SP_PI;
    else if (v > SP_PI) v -= 2.0 * SP_PI;
    return v;
}

static void polar(double x, double y, double *r, double *theta)
{
    *r = hypot(x, y);
    *theta = atan2(y, x);
}

typedef struct rs_list {
    car_rs_path p[RS_MAX];
    int n;
} rs_list;

static void add(rs_list *l, const char *type, double a, double b, double c, double d, double e)
{
    if (l->n >= RS_MAX) return;
    car_rs_path *p = &l->p[l->n++];
    const double len[5] = {a, b, c, d, e};
    p->n = (int)strlen(type);
    p->total = 0.0;
    for (int i = 0; i < p->n; ++i) {
        p->type[i] = type[i];
        p->len[i] = len[i];
        p->total += fabs(len[i]);
    }
}

static int LpSpLp(double x, double y, double phi, double *t, double *u, double *v)
{
    polar(x - sin(phi), y - 1.0 + cos(phi), u, t);
    if (*t < -RS_EPS) return 0;
    *v = mod2pi(phi - *t);
    return *v >= -RS_EPS;
}

static int LpSpRp(double x, double y, double phi, double *t, double *u, double *v)
{
    double t1, u1;
    polar(x + sin(phi), y - 1.0 - cos(phi), &u1, &t1);
    u1 *= u1;
    if (u1 < 4.0) return 0;
    *u = sqrt(u1 - 4.0);
    *t = mod2pi(t1 + atan2(2.0, *u));
    *v = mod2pi(*t - phi);
    return *t >= -RS_EPS && *v >= -RS_EPS;
}

static int LpRmL(double x, double y, double phi, double *t, double *u, double *v)
{
    double u1, theta;
    polar(x - sin(phi), y - 1.0 + cos(phi), &u1, &theta);
    if (u1 > 4.0) return 0;
    *u = -2.0 * asin(0.25 * u1);
    *t = mod2pi(theta + 0.5 * *u + SP_PI);
    *v = mod2pi(phi - *t + *u);
    return *t >= -RS_EPS && *u <= RS_EPS;
}

static void tau_omega(double u, double v, double xi, double eta, double phi, double *tau, double *omega)
{
    const double delta = mod2pi(u - v), A = sin(u) - sin(delta), B = cos(u) - cos(delta) - 1.0;
    const double t1 = atan2(eta * A - xi * B, xi * A + eta * B), t2 = 2.0 * (cos(delta) - cos(v) - cos(u)) + 3.0;
    *tau = t2 < 0 ? mod2pi(t1 + SP_PI) : mod2pi(t1);
    *omega = mod2pi(*tau - u + v - phi);
}

static int LpRupLumRm(double x, double y, double phi, double *t, double *u, double *v)
{
    const double xi = x + sin(phi), eta = y - 1.0 - cos(phi), rho = 0.25 * (2.0 + hypot(xi, eta));
    if (rho > 1.0) return 0;
    *u = acos(rho);
    tau_omega(*u, -*u, xi, eta, phi, t, v);
    return *t >= -RS_EPS && *v <= RS_EPS;
}

static int LpRumLumRp(double x, double y, double phi, double *t, double *u, double *v)
{
    const double xi = x + sin(phi), eta = y - 1.0 - cos(phi), rho = (20.0 - xi * xi - eta * eta) / 16.0;
    if (rho < 0.0 || rho > 1.0) return 0;
    *u = -acos(rho);
    if (*u < -0.5 * SP_PI) return 0;
    tau_omega(*u, *u, xi, eta, phi, t, v);
    return *t >= -RS_EPS && *v >= -RS_EPS;
}

static int LpRmSmLm(double x, double y, double phi, double *t, double *u, double *v)
{
    double rho, theta;
    polar(x - sin(phi), y - 1.0 + cos(phi), &rho, &theta);
    if (rho < 2.0) return 0;
    const double r = sqrt(rho * rho - 4.0);
    *u = 2.0 - r;
    *t = mod2pi(theta + atan2(r, -2.0));
    *v = mod2pi(phi - 0.5 * SP_PI - *t);
    return *t >= -RS_EPS && *u <= RS_EPS && *v <= RS_EPS;
}

static int LpRmSmRm(double x, double y, double phi, double *t, double *u, double *v)
{
    double rho, theta;
    const double xi = x + sin(phi), eta = y - 1.0 - cos(phi);
    polar(-eta, xi, &rho, &theta);
    if (rho < 2.0) return 0;
    *t = theta;
    *u = 2.0 - rho;
    *v = mod2pi(*t + 0.5 * SP_PI - phi);
    return *t >= -RS_EPS && *u <= RS_EPS && *v <= RS_EPS;
}

static int LpRmSLmRp(double x, double y, double phi, double *t, double *u, double *v)
{
    double rho, theta;
    const double xi = x + sin(phi), eta = y - 1.0 - cos(phi);
    polar(xi, eta, &rho, &theta);
    if (rho < 2.0) return 0;
    *u = 4.0 - sqrt(rho * rho - 4.0);
    if (*u > RS_EPS) return 0;
    *t = mod2pi(atan2((4.0 - *u) * xi - 2.0 * eta, -2.0 * xi + (*u - 4.0) * eta));
    *v = mod2pi(*t - phi);
    return *t >= -RS_EPS && *v >= -RS_EPS;
}

typedef int (*word_fn)(double, double, double, double *, double *, double *);

/* A base word and its time flip, reflection, and both: the word read with L and R
 * swapped is `mirror`. */
static void four(rs_list *l, word_fn f, const char *word, const char *mirror, double x, double y, double phi,
                 int layout)
{
    double t, u, v;
    const double h = 0.5 * SP_PI;
    for (int k = 0; k < 4; ++k) {
        const double sx = (k & 1) ? -1.0 : 1.0, sy = (k & 2) ? -1.0 : 1.0, g = sx;
        if (!f(sx * x, sy * y, sx * sy * phi, &t, &u, &v)) continue;
        const char *w = (k & 2) ? mirror : word;
        switch (layout) {
        case 0: add(l, w, g * t, g * u, g * v, 0, 0); break;            /* C?C?C, CSC */
        case 1: add(l, w, g * v, g * u, g * t, 0, 0); break;            /* backwards CCC */
        case 2: add(l, w, g * t, g * u, -g * u, g * v, 0); break;       /* CCu Cu-C */
        case 3: add(l, w, g * t, g * u, g * u, g * v, 0); break;        /* C Cu Cu C */
        case 4: add(l, w, g * t, -g * h, g * u, g * v, 0); break;       /* C C(π/2) S C */
        case 5: add(l, w, g * v, g * u, -g * h, g * t, 0); break;       /* backwards: C S C(π/2) C */
        case 6: add(l, w, g * t, -g * h, g * u, -g * h, g * v); break;  /* C C(π/2) S C(π/2) C */
        }
    }
}

static void all_words(rs_list *l, double x, double y, double phi)
{
    const double xb = x * cos(phi) + y * sin(phi), yb = x * sin(phi) - y * cos(phi);
    four(l, LpSpLp, "LSL", "RSR", x, y, phi, 0);
    four(l, LpSpRp, "LSR", "RSL", x, y, phi, 0);
    four(l, LpRmL, "LRL", "RLR", x, y, phi, 0);
    four(l, LpRmL, "LRL", "RLR", xb, yb, phi, 1);
    four(l, LpRupLumRm, "LRLR", "RLRL", x, y, phi, 2);
    four(l, LpRumLumRp, "LRLR", "RLRL", x, y, phi, 3);
    four(l, LpRmSmLm, "LRSL", "RLSR", x, y, phi, 4);
    four(l, LpRmSmRm, "LRSR", "RLSL", x, y, phi, 4);
    four(l, LpRmSmLm, "LSRL", "RSLR", xb, yb, phi, 5);
    four(l, LpRmSmRm, "RSRL", "LSLR", xb, yb, phi, 5);
    four(l, LpRmSLmRp, "LRSLR", "RLSRL", x, y, phi, 6);
}

/* The goal in the start's frame, in radii. */
static void local_goal(const double from[3], const double to[3], double radius, double g[3])
{
    const double dx = to[0] - from[0], dy = to[1] - from[1], c = cos(from[2]), s = sin(from[2]);
    g[0] = (c * dx + s * dy) / radius, g[1] = (-s * dx + c * dy) / radius, g[2] = mod2pi(to[2] - from[2]);
}

double car_reeds_shepp_length(const double from[3], const double to[3], double radius)
{
    double g[3], best = HUGE_VAL;
    local_goal(from, to, radius, g);
    rs_list l = {.n = 0};
    all_words(&l, g[0], g[1], g[2]);
    for (int i = 0; i < l.n; ++i) best = fmin(best, l.p[i].total);
    return best * radius;
}

int car_reeds_shepp(const double from[3], const double to[3], double radius, car_rs_path *out, int max_out)
{
    double g[3];
    local_goal(from, to, radius, g);
    const double x = g[0], y = g[1], phi = g[2];
    rs_list l = {.n = 0};
    all_words(&l, x, y, phi);
    int kept = 0;
    for (int i = 0; i < l.n; ++i) {
        car_rs_path *p = &l.p[i];
        double q[3] = {0, 0, 0};
        for (int k = 0; k < p->n; ++k) {
            const double kappa = p->type[k] == 'L' ? 1.0 : p->type[k] == 'R' ? -1.0 : 0.0;
            car_arc(q, kappa, p->len[k], q);
        }
        if (hypot(q[0] - x, q[1] - y) > 1e-8 * (1.0 + hypot(x, y)) || fabs(mod2pi(q[2] - phi)) > 1e-8) continue;
        /* insertion by length, shortest first */
        int at = kept < max_out ? kept : max_out - 1;
        if (kept == max_out && p->total >= out[at].total) continue;
        while (at > 0 && out[at - 1].total > p->total) {
            out[at] = out[at - 1];
            --at;
        }
        out[at] = *p;
        if (kept < max_out) ++kept;
    }
    return kept;
}
