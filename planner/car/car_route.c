/* The route: hybrid A* (D. Dolgov, S. Thrun, M. Montemerlo & J. Diebel, "Path planning
 * for autonomous vehicles in unknown semi-structured environments", IJRR 29 (2010)
 * 485–501). Nodes are continuous poses, one kept per cell of (x, y, heading, gear); a
 * node's children are short arcs at a few steering angles, forwards and backwards. The
 * cost is travel plus penalties for steering changes and gear changes; the heuristic is
 * the larger of the Reeds–Shepp length without obstacles and the length of the shortest
 * grid path of the rear-axle midpoint around the obstacles (both never far from the
 * truth, so the search goes straight for the goal). Every so often, and at every node
 * near the goal, the shortest collision-free Reeds–Shepp path to the goal is tried: the
 * route ends exactly at the goal through it. A root too confined for the search's arcs
 * (a tight slot) first gets the way out car_escape.c finds. */
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"
#include "planner/sp_clock.h"
#include "problems/car/sp_car_geometry.h"

#define HEADINGS 72
#define STEERS 7
/* the escape search's node budget (a slot holds some ten thousand of its cells; the
 * search's processor time budget binds first) */
#define ESCAPE_NODES 200000

/* The search's own costs: a gear change (at least 1 m of travel), a change of steering
 * (per radian), reverse travel (per metre, against forward), and the weight of the
 * heuristic (weighted A*: routes within 1.5 times the cheapest, found much sooner). */
#define STEER_COST 0.5
#define REVERSE_FACTOR 1.2
#define WEIGHT 1.5
/* A search that runs dry within this many nodes of its root is near a root its arcs
 * barely leave, and tries the ways out below; one that ran dry farther out has searched
 * the region its arcs reach, and a way out of its root would lead back into it (scenes
 * 500051 and 800064: 13000 and 27000 nodes, then 1.3 and 0.9 s of ways out that led
 * nowhere, the search from the goal left waiting). */
#define NEAR_ROOT 1000
/* The search from the start runs ALONE nodes by itself, then takes turns of TURN nodes
 * with the search from the goal (car_route_search) */
#define ALONE 8000
#define TURN 500

typedef struct node {
    double q[3];
    double g;
    long parent;
    float delta, length;
    signed char gear;
} node;

typedef struct heap_item {
    double f;
    long node;
} heap_item;

typedef struct search {
    const car_world *w;
    const sp_car_problem *c;
    double res, x0, y0, margin, step, radius;
    int nx, ny;
    /* the holonomic heuristic: grid of the rear-axle midpoint */
    double hres;
    int hx, hy;
    float *hol;
    /* per cell of (x, y, heading, gear): best cost seen (closed: negative) */
    float *best;
    node *nodes;
    long n_nodes, cap_nodes;
    heap_item *heap;
    long n_heap, cap_heap;
    long n_seeds; /* nodes 0 … n_seeds − 1: the root and its escape chains, never closed */
    /* the search's run (search_begin, search_run): its goal, arc length, price of a gear
     * change, root, the ways out tried, and whether it is over */
    const double *goal;
    double len, gear_cost;
    double escape_deadline; /* of the ways out of its root (car_cpu_seconds) */
    long root;
    int escapes, over;
} search;

static void heap_push(search *s, double f, long id)
{
    if (s->n_heap == s->cap_heap) {
        long cap = s->cap_heap ? 2 * s->cap_heap : 4096;
        heap_item *h = realloc(s->heap, (size_t)cap * sizeof *h);
        if (!h) return; /* the node is lost: the search goes on without it */
        s->heap = h, s->cap_heap = cap;
    }
    long i = s->n_heap++;
    while (i > 0 && s->heap[(i - 1) / 2].f > f) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = (heap_item){f, id};
}

static heap_item heap_pop(search *s)
{
    heap_item top = s->heap[0], last = s->heap[--s->n_heap];
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= s->n_heap) break;
        if (c + 1 < s->n_heap && s->heap[c + 1].f < s->heap[c].f) ++c;
        if (s->heap[c].f >= last.f) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->n_heap > 0) s->heap[i] = last;
    return top;
}

static long new_node(search *s, const node *n)
{
    if (s->n_nodes == s->cap_nodes) {
        long cap = s->cap_nodes ? 2 * s->cap_nodes : 4096;
        node *p = realloc(s->nodes, (size_t)cap * sizeof *p);
        if (!p) return -1;
        s->nodes = p, s->cap_nodes = cap;
    }
    s->nodes[s->n_nodes] = *n;
    return s->n_nodes++;
}

static long cell_of(const search *s, const double q[3], int gear)
{
    const int ix = (int)floor((q[0] - s->x0) / s->res), iy = (int)floor((q[1] - s->y0) / s->res);
    if (ix < 0 || iy < 0 || ix >= s->nx || iy >= s->ny) return -1;
    double a = fmod(q[2], 2.0 * SP_PI);
    if (a < 0) a += 2.0 * SP_PI;
    int it = (int)floor(a / (2.0 * SP_PI) * HEADINGS + 0.5) % HEADINGS;
    return (((long)iy * s->nx + ix) * HEADINGS + it) * 2 + (gear > 0);
}

/* Shortest 8-connected grid path of the rear-axle midpoint to the goal, over the cells
 * where it can be: there it is at least min(width/2, rear overhang) + clearance from
 * every obstacle (that disc lies inside the footprint); the cell's half diagonal is taken
 * off, so no cell a pose could use is closed. */
static sp_status holonomic(search *s, const double goal[3])
{
    const sp_car_vehicle *v = &s->c->vehicle;
    const car_world *w = s->w;
    s->hres = 0.25;
    s->hx = (int)ceil((w->bounds[2] - w->bounds[0]) / s->hres) + 1;
    s->hy = (int)ceil((w->bounds[3] - w->bounds[1]) / s->hres) + 1;
    const long n = (long)s->hx * s->hy;
    s->hol = malloc((size_t)n * sizeof *s->hol);
    unsigned char *blocked = calloc((size_t)n, 1);
    long *heap = malloc((size_t)n * 8 * sizeof *heap);
    if (!s->hol || !blocked || !heap) {
        free(blocked);
        free(heap);
        return SP_ERR_NOMEM;
    }
    const double r = fmin(0.5 * v->width, v->rear_overhang) + w->clearance - 0.75 * s->hres;
    for (size_t i = 0; i < w->n; ++i) {
        const double *b = w->box + 4 * i, *poly = w->xy + 2 * w->first[i];
        const size_t m = w->first[i + 1] - w->first[i];
        int i0 = (int)floor((b[0] - r - w->bounds[0]) / s->hres), i1 = (int)ceil((b[2] + r - w->bounds[0]) / s->hres);
        int j0 = (int)floor((b[1] - r - w->bounds[1]) / s->hres), j1 = (int)ceil((b[3] + r - w->bounds[1]) / s->hres);
        for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < s->hy; ++j)
            for (int k = i0 < 0 ? 0 : i0; k <= i1 && k < s->hx; ++k) {
                const double p[2] = {w->bounds[0] + k * s->hres, w->bounds[1] + j * s->hres};
                int in = sp_car_point_in_polygon(p, poly, m);
                for (size_t e = 0; !in && e < m; ++e) {
                    double cl[2];
                    in = sp_car_segment_distance(p, poly + 2 * e, poly + 2 * ((e + 1) % m), cl) < r;
                }
                if (in) blocked[(long)j * s->hx + k] = 1;
            }
    }
    for (long i = 0; i < n; ++i) s->hol[i] = FLT_MAX;
    /* Dijkstra with a binary heap of (cost, cell) packed in the cell's slot order */
    double *cost = malloc((size_t)n * sizeof *cost);
    if (!cost) {
        free(blocked);
        free(heap);
        return SP_ERR_NOMEM;
    }
    long nh = 0;
    int gx = (int)floor((goal[0] - w->bounds[0]) / s->hres + 0.5), gy = (int)floor((goal[1] - w->bounds[1]) / s->hres + 0.5);
    if (gx >= 0 && gy >= 0 && gx < s->hx && gy < s->hy) {
        const long g = (long)gy * s->hx + gx;
        s->hol[g] = 0.0f;
        cost[g] = 0.0;
        heap[nh++] = g;
        blocked[g] = 0;
    }
    static const int di[8] = {1, -1, 0, 0, 1, 1, -1, -1}, dj[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    while (nh > 0) {
        /* pop the cheapest */
        long top = heap[0], last = heap[--nh], i = 0;
        for (;;) {
            long ch = 2 * i + 1;
            if (ch >= nh) break;
            if (ch + 1 < nh && cost[heap[ch + 1]] < cost[heap[ch]]) ++ch;
            if (cost[heap[ch]] >= cost[last]) break;
            heap[i] = heap[ch];
            i = ch;
        }
        if (nh > 0) heap[i] = last;
        if (blocked[top] == 2) continue;
        blocked[top] = 2; /* done */
        const int tx = (int)(top % s->hx), ty = (int)(top / s->hx);
        for (int d = 0; d < 8; ++d) {
            const int ux = tx + di[d], uy = ty + dj[d];
            if (ux < 0 || uy < 0 || ux >= s->hx || uy >= s->hy) continue;
            const long u = (long)uy * s->hx + ux;
            if (blocked[u]) continue;
            const double c = cost[top] + s->hres * (d < 4 ? 1.0 : 1.4142135623730951);
            if (s->hol[u] != FLT_MAX && cost[u] <= c) continue;
            cost[u] = c;
            s->hol[u] = (float)c;
            if (nh >= n * 8) continue;
            long k = nh++;
            while (k > 0 && cost[heap[(k - 1) / 2]] > c) {
                heap[k] = heap[(k - 1) / 2];
                k = (k - 1) / 2;
            }
            heap[k] = u;
        }
    }
    free(cost);
    free(blocked);
    free(heap);
    return SP_OK;
}

static double hol_at(const search *s, const double q[3])
{
    int ix = (int)floor((q[0] - s->w->bounds[0]) / s->hres + 0.5), iy = (int)floor((q[1] - s->w->bounds[1]) / s->hres + 0.5);
    if (ix < 0 || iy < 0 || ix >= s->hx || iy >= s->hy) return HUGE_VAL;
    float h = s->hol[(long)iy * s->hx + ix];
    return h == FLT_MAX ? HUGE_VAL : h;
}

/* Whether the footprint keeps its clearance (and margin) along an arc from q; the end
 * pose in end. No point of the footprint moves faster than nu = √(1 + κ² reach²) per
 * metre of travel, and the distance to the obstacles is 1-Lipschitz in the points, so a
 * pose at distance clearance + margin + nu·ρ keeps the clearance for ρ of travel either
 * side: poses s->step apart that pass with nu·step/2 to spare cover the arc; where one
 * does not, its neighbourhood is checked at the spacing that margin alone covers. */
static int arc_free(const search *s, const double q[3], double kappa, double travel, double end[3])
{
    const sp_car_vehicle *v = &s->c->vehicle;
    const double reach = hypot(fmax(v->wheelbase + v->front_overhang, v->rear_overhang), 0.5 * v->width);
    const double nu = sqrt(1.0 + kappa * kappa * reach * reach), total = fabs(travel), sign = travel < 0 ? -1.0 : 1.0;
    const double need = s->w->clearance + s->margin, fine = 2.0 * s->margin / nu;
    const int n = (int)ceil(total / s->step);
    double r[3] = {q[0], q[1], q[2]};
    for (int j = 1; j <= n; ++j) {
        const double u = total * j / n, half = 0.5 * total / n;
        car_arc(q, kappa, sign * u, r);
        if (car_world_clear(s->w, r, need + nu * half)) continue;
        if (!car_world_clear(s->w, r, need)) return 0;
        const int m = (int)ceil(2.0 * half / fine);
        for (int i = 0; i <= m; ++i) {
            double p[3];
            car_arc(q, kappa, sign * fmin(total, u - half + 2.0 * half * i / m), p);
            if (!car_world_clear(s->w, p, need)) return 0;
        }
    }
    end[0] = r[0], end[1] = r[1], end[2] = r[2];
    return 1;
}

static int rs_free(const search *s, const double from[3], const car_rs_path *p)
{
    double q[3] = {from[0], from[1], from[2]};
    for (int k = 0; k < p->n; ++k) {
        const double kappa = p->type[k] == 'L' ? 1.0 / s->radius : p->type[k] == 'R' ? -1.0 / s->radius : 0.0;
        if (!arc_free(s, q, kappa, p->len[k] * s->radius, q)) return 0;
    }
    return 1;
}

static int add_piece(car_route *r, double delta, int gear, double length)
{
    if (length <= 1e-12) return 1;
    if (r->n > 0 && r->pieces[r->n - 1].gear == gear && r->pieces[r->n - 1].delta == delta) {
        r->pieces[r->n - 1].length += length;
        return 1;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        car_piece *p = realloc(r->pieces, cap * sizeof *p);
        if (!p) return 0;
        r->pieces = p, r->cap = cap;
    }
    r->pieces[r->n++] = (car_piece){.delta = delta, .length = length, .gear = gear};
    return 1;
}

/* The route from the start through node `last` and then the Reeds–Shepp path. */
static sp_status build_route(const search *s, long last, const car_rs_path *rs, car_route *r)
{
    long count = 0;
    for (long i = last; s->nodes[i].parent >= 0; i = s->nodes[i].parent) ++count;
    long *chain = malloc((size_t)(count + 1) * sizeof *chain);
    if (!chain) return SP_ERR_NOMEM;
    long k = count;
    for (long i = last; s->nodes[i].parent >= 0; i = s->nodes[i].parent) chain[--k] = i;
    int ok = 1;
    for (long j = 0; j < count && ok; ++j) {
        const node *n = &s->nodes[chain[j]];
        ok = add_piece(r, n->delta, n->gear, n->length);
    }
    free(chain);
    const double dmax = s->c->vehicle.max_steering;
    for (int j = 0; j < rs->n && ok; ++j)
        ok = add_piece(r, rs->type[j] == 'L' ? dmax : rs->type[j] == 'R' ? -dmax : 0.0, rs->len[j] > 0 ? 1 : -1,
                       fabs(rs->len[j]) * s->radius);
    return ok ? SP_OK : SP_ERR_NOMEM;
}

/* Whether fewer than 4 of the search's 14 arcs of length len are free at q: then the
 * search's own moves cannot leave q, and car_escape's finer ones are tried. */
static int confined_len(const search *s, const double q[3], double len)
{
    const sp_car_vehicle *v = &s->c->vehicle;
    int free_arcs = 0;
    double end[3];
    for (int gear = -1; gear <= 1; gear += 2)
        for (int k = 0; k < STEERS; ++k) {
            const float delta = (float)(v->max_steering * (2.0 * k / (STEERS - 1) - 1.0));
            free_arcs += arc_free(s, q, tan((double)delta) / v->wheelbase, gear * (double)(float)len, end);
        }
    return free_arcs < 4;
}

typedef struct escape_ctx {
    const search *s;
    double len;
} escape_ctx;

static int escaped(void *ctx, const double q[3])
{
    const escape_ctx *e = ctx;
    return !confined_len(e->s, q, e->len);
}

/* When the root is confined (or, with `force`, when the search's own arcs ran dry near
 * it), the way out car_escape finds, to a pose where arcs of length `reach` are free,
 * joins the open set as the root's descendants (never closed, so that the cells of the
 * slot do not hide them). */
static sp_status escape_seeds(search *s, car_route *r, long root, double reach, double deadline, int force)
{
    const sp_car_vehicle *v = &s->c->vehicle;
    s->n_seeds = s->n_nodes;
    if (!force && !confined_len(s, s->nodes[root].q, s->len)) return SP_OK;
    escape_ctx ctx = {s, reach};
    car_route way;
    if (car_escape(s->w, s->nodes[root].q, ESCAPE_NODES, deadline, escaped, &ctx, &way) != SP_OK) return SP_ERR_NOMEM;
    r->escape_nodes += way.expanded;
    long parent = root;
    for (size_t i = 0; i < way.n; ++i) {
        const node *p = &s->nodes[parent];
        const car_piece *m = &way.pieces[i];
        node child = {.parent = parent, .delta = (float)m->delta, .length = (float)m->length, .gear = (signed char)m->gear};
        car_arc(p->q, tan((double)child.delta) / v->wheelbase, m->gear * (double)child.length, child.q);
        child.g = p->g + m->length * (m->gear < 0 ? REVERSE_FACTOR : 1.0) +
                  s->gear_cost * (p->gear != 0 && p->gear != m->gear);
        if (p->parent >= 0) child.g += STEER_COST * fabs((double)child.delta - (double)p->delta);
        const long id = new_node(s, &child);
        if (id < 0) {
            car_route_free(&way);
            return SP_ERR_NOMEM;
        }
        const double h = fmax(hol_at(s, child.q), car_reeds_shepp_length(child.q, s->goal, s->radius));
        if (isfinite(h)) heap_push(s, child.g + WEIGHT * h, id);
        parent = id;
    }
    car_route_free(&way);
    s->n_seeds = s->n_nodes;
    return SP_OK;
}

static void release(search *s)
{
    free(s->hol);
    free(s->best);
    free(s->nodes);
    free(s->heap);
}

/* Begins one search from start to goal with cells of size res (*s its state, r its
 * figures): the root, and where it is confined its way out, found (as any later way out
 * of the root) within the processor time escape_deadline. SP_ERR_NOMEM or SP_OK (s to
 * release either way). */
static sp_status search_begin(search *s, const car_world *w, const sp_car_problem *c, const double *start,
                              const double *goal, double res, double escape_deadline, car_route *r)
{
    const sp_car_vehicle *v = &c->vehicle;
    memset(r, 0, sizeof *r);
    *s = (search){.w = w, .c = c, .margin = 0.02, .step = 0.1, .radius = v->wheelbase / tan(v->max_steering),
                  .goal = goal, .res = res, .x0 = w->bounds[0], .y0 = w->bounds[1]};
    s->nx = (int)ceil((w->bounds[2] - w->bounds[0]) / s->res) + 1;
    s->ny = (int)ceil((w->bounds[3] - w->bounds[1]) / s->res) + 1;
    while ((double)s->nx * s->ny * HEADINGS * 2 > 3e7) { /* very large scenes: coarser cells */
        s->res *= 1.5;
        s->nx = (int)ceil((w->bounds[2] - w->bounds[0]) / s->res) + 1;
        s->ny = (int)ceil((w->bounds[3] - w->bounds[1]) / s->res) + 1;
    }
    const long cells = (long)s->nx * s->ny * HEADINGS * 2;
    s->best = malloc((size_t)cells * sizeof *s->best);
    if (!s->best || holonomic(s, goal) != SP_OK) return SP_ERR_NOMEM;
    for (long i = 0; i < cells; ++i) s->best[i] = FLT_MAX;
    if (!isfinite(hol_at(s, start))) {
        snprintf(r->message, sizeof r->message,
                 "route: no way for the car between the obstacles from start to goal (the rear axle cannot get there)");
        s->over = 1;
        return SP_OK;
    }
    s->len = 1.5 * s->res * 1.4142135623730951; /* an arc leaves its cell */
    s->gear_cost = fmax(c->settings.gear_change_cost, 1.0);
    const node root = {.q = {start[0], start[1], start[2]}, .g = 0.0, .parent = -1, .gear = 0};
    s->root = new_node(s, &root);
    if (s->root < 0) return SP_ERR_NOMEM;
    heap_push(s, 0.0, s->root);
    s->escape_deadline = escape_deadline;
    if (escape_seeds(s, r, s->root, 2.0 * s->len, escape_deadline, 0) != SP_OK) return SP_ERR_NOMEM;
    s->escapes = r->escape_nodes > 0;
    return SP_OK;
}

/* Expands s's nodes until r->expanded reaches `until`, the route is found (r->found), or
 * the search is over (s->over, with r->message): its open set ran dry, it expanded
 * max_nodes, or the processor time (car_cpu_seconds) passed deadline. SP_ERR_NOMEM,
 * SP_ERR_INTERRUPTED or SP_OK. */
static sp_status search_run(search *s, long until, long max_nodes, double deadline, const sp_progress *progress,
                            car_route *r)
{
    const sp_car_vehicle *v = &s->c->vehicle;
    car_rs_path rs[6];
    sp_status out = SP_OK;
    while (!s->over && !r->found && r->expanded < until) {
        if (s->n_heap == 0) {
            /* When the open set runs dry near the root (its few free arcs, or the end of
             * the way out, lead only where the search's arcs are not free or their cells
             * are closed), a way out to where arcs twice as long are free, then four and
             * eight times, is tried. */
            if (s->escapes == 3 || r->expanded >= NEAR_ROOT) {
                snprintf(r->message, sizeof r->message,
                         "route: no route: the search reached every pose it could (%ld nodes) without finding the goal",
                         r->expanded);
                s->over = 1;
                break;
            }
            ++s->escapes;
            if (escape_seeds(s, r, s->root, (2 << s->escapes) * s->len, fmin(deadline, s->escape_deadline), 1) !=
                SP_OK) {
                out = SP_ERR_NOMEM;
                break;
            }
            continue; /* the way out may have added nothing */
        }
        if ((r->expanded & 63) == 0) {
            if (sp_progress_stopped(progress)) {
                out = SP_ERR_INTERRUPTED;
                break;
            }
            if (car_cpu_seconds() > deadline) {
                snprintf(r->message, sizeof r->message, "route: the search used its time budget of %g s (%ld nodes)",
                         s->c->settings.max_seconds, r->expanded);
                s->over = 1;
                break;
            }
        }
        if (r->expanded >= max_nodes) {
            snprintf(r->message, sizeof r->message, "route: the search used its budget of %ld nodes",
                     s->c->settings.max_nodes);
            s->over = 1;
            break;
        }
        const heap_item top = heap_pop(s);
        const node cur = s->nodes[top.node];
        const long cell = cell_of(s, cur.q, cur.gear);
        if (cell >= 0 && top.node >= s->n_seeds) {
            if (s->best[cell] < 0) continue; /* closed */
            s->best[cell] = -1.0f;
        }
        ++r->expanded;
        /* the analytic expansion: near the goal at every node, farther away now and then */
        if (hol_at(s, cur.q) < 6.0 || r->expanded % 10 == 1) {
            const int k = car_reeds_shepp(cur.q, s->goal, s->radius, rs, 3);
            for (int j = 0; j < k; ++j)
                if (rs_free(s, cur.q, &rs[j])) {
                    out = build_route(s, top.node, &rs[j], r);
                    r->found = out == SP_OK;
                    break;
                }
            if (r->found || out != SP_OK) break;
        }
        for (int gi = 0; gi < 2; ++gi) {
            const int gear = gi ? -1 : 1;
            for (int k = 0; k < STEERS; ++k) {
                const double delta = v->max_steering * (2.0 * k / (STEERS - 1) - 1.0);
                node child = {
                    .parent = top.node, .delta = (float)delta, .length = (float)s->len, .gear = (signed char)gear};
                /* the stored delta is what the route drives: the float's own value */
                if (!arc_free(s, cur.q, tan((double)child.delta) / v->wheelbase, gear * (double)child.length, child.q))
                    continue;
                ++r->generated;
                const long cc = cell_of(s, child.q, gear);
                if (cc < 0 || s->best[cc] < 0) continue;
                double g = cur.g + s->len * (gear < 0 ? REVERSE_FACTOR : 1.0);
                if (cur.parent >= 0) g += STEER_COST * fabs(delta - cur.delta);
                if (cur.gear != 0 && cur.gear != gear) g += s->gear_cost;
                if (g >= s->best[cc]) continue;
                const double h = fmax(hol_at(s, child.q), car_reeds_shepp_length(child.q, s->goal, s->radius));
                if (!isfinite(h)) continue;
                s->best[cc] = (float)g;
                child.g = g;
                if (new_node(s, &child) < 0) {
                    out = SP_ERR_NOMEM;
                    goto done;
                }
                heap_push(s, g + WEIGHT * h, s->n_nodes - 1);
            }
        }
    }
done:
    return out;
}

/* The route as the search from the goal found it, driven the other way: reversed in order
 * and in gear. */
static void reverse_route(car_route *r)
{
    for (size_t i = 0, j = r->n ? r->n - 1 : 0; i < j; ++i, --j) {
        const car_piece t = r->pieces[i];
        r->pieces[i] = r->pieces[j];
        r->pieces[j] = t;
    }
    for (size_t i = 0; i < r->n; ++i) r->pieces[i].gear = -r->pieces[i].gear;
}

sp_status car_route_search(const car_world *w, const sp_car_problem *c, const sp_progress *progress,
                           car_route *r)
{
    const double t0 = sp_clock_seconds(), c0 = car_cpu_seconds(), budget = c->settings.max_seconds;
    const double deadline = c0 + budget;
    const long nodes = c->settings.max_nodes;
    /* First from the start with cells of 0.3 m, which finds most routes within ALONE
     * nodes (of 960 random scenes it found 932, the median in 111 nodes, nine in ten
     * within 2849, all within 29481; TPCAP's cases 3 and 15 take 6374 and 4694);
     * then, where it has not, also from the goal outwards with cells and arcs half as
     * large, the two searches taking turns of TURN nodes each until one finds a route:
     * leaving a tight slot is the hard part, and it is easier searched from inside it.
     * When the search from the start has not found a route by then, the one from the goal
     * most often finds it within a few thousand nodes (of the 28 scenes above where the
     * search from the start had not found it in 2.7 s, 14 in under 0.2 s), and where the
     * search from the start does find it late, the turns cost it at most twice its time
     * (TPCAP case 19: 15676 nodes). The search from the start stops at a twelfth of the
     * nodes (25000 by default): taking turns to the end, or up to 50000 nodes, it kept
     * scene 200008's search from the goal, which alone finds the route in 3.2 s, from
     * finding it within 8 s when other processes shared the processor (TPCAP case 9's
     * search from the start takes 34444 nodes: the search from the goal finds it first
     * either way, a route 2.3 m longer with the same gear change). A goal that the second
     * search's arcs cannot leave (a slot little longer than the car) is seldom reached from
     * the start (of the 960 scenes one such goal, not reached in 8832 nodes; TPCAP case 7;
     * but TPCAP case 8's is, in 1854 nodes, with one gear change where the search from the
     * goal's route has three): there the search from the start stops at ALONE, and the
     * search from the goal has the rest. The turns are counted in nodes, not time, so that
     * the route found is the same on any processor within the budget. A start
     * that needs a way out has it found within half the budget (its coarse cells within a
     * quarter: scene 200000's takes 3400 poses, 1.1 s alone and over 1.3 s when another
     * process shares the processor's caches). */
    search first, second;
    car_route back;
    memset(&back, 0, sizeof back);
    const search probe = {.w = w, .c = c, .margin = 0.02, .step = 0.1};
    const int tight = confined_len(&probe, c->scene.goal, 1.5 * 0.15 * 1.4142135623730951);
    sp_status st = search_begin(&first, w, c, c->scene.start, c->scene.goal, 0.3, c0 + 0.5 * budget, r);
    const long first_nodes = nodes / 12;
    if (st == SP_OK) st = search_run(&first, ALONE, first_nodes, deadline, progress, r);
    int began = 0;
    if (st == SP_OK && !r->found && !strstr(r->message, "no way")) {
        began = 1;
        if (tight) first.over = 1;
        st = search_begin(&second, w, c, c->scene.goal, c->scene.start, 0.15, deadline, &back);
        while (st == SP_OK && !r->found && !back.found && !(first.over && second.over)) {
            if (!second.over)
                st = search_run(&second, back.expanded + TURN, nodes - r->expanded, deadline, progress, &back);
            const long first_left = nodes - back.expanded < first_nodes ? nodes - back.expanded : first_nodes;
            if (st == SP_OK && !back.found && !first.over)
                st = search_run(&first, r->expanded + TURN, first_left, deadline, progress, r);
        }
        release(&second);
    }
    release(&first);
    if (began) {
        /* the totals of both searches, and the route or message of the one that decided */
        back.expanded += r->expanded, back.generated += r->generated, back.escape_nodes += r->escape_nodes;
        if (r->found) {
            r->expanded = back.expanded, r->generated = back.generated, r->escape_nodes = back.escape_nodes;
            car_route_free(&back);
        } else {
            car_route_free(r);
            *r = back;
            reverse_route(r);
        }
    }
    r->seconds = sp_clock_seconds() - t0;
    r->cpu_seconds = car_cpu_seconds() - c0;
    return st;
}

void car_route_free(car_route *r)
{
    free(r->pieces);
    r->pieces = NULL;
    r->n = r->cap = 0;
}

double car_route_duration(const car_route *r, const sp_car_problem *c)
{
    double length = 0.0, turned = 0.0;
    for (size_t i = 0; i < r->n; ++i) {
        length += r->pieces[i].length;
        if (i > 0) turned += fabs(r->pieces[i].delta - r->pieces[i - 1].delta);
    }
    const double rate = c->vehicle.max_steering_rate;
    return length / c->settings.speed + (rate > 0.0 ? turned / rate : 0.0);
}
