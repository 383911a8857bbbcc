/* Leaving a confined pose (sp_car_plan.h): a best-first search over moves of one
 * steering value each, driven as far as the clearance allows or half as far. In a slot
 * little longer than the car the search's arcs of fixed length do not fit at all; moves
 * whose length is the room itself do, and every pair of them turns the car a little out
 * of the slot. A move may follow one of the same gear at another steering: two such
 * moves make an S-bend, which shifts the car sideways, away from a kerb its rear
 * overhang would swing into, without a gear change. The order counts what a driver
 * counts: gear changes, then moves, against the rotation gained. Poses are kept one per
 * cell, which bounds the search by the slot's size: cells of 2 cm and 0.5° first, which
 * find most ways out in a few thousand poses, then, when those cells hide the way (the
 * search runs dry) or their share of the budget runs out, cells of 1 cm and 0.25°. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "planner/car/sp_car_plan.h"

#define STEP 0.02     /* travel between the checked poses of a move */
#define ROOM 0.6      /* the longest move looked at */
#define MARGIN 0.005  /* beyond the clearance: the sampled dip between checks is below 3 mm */
#define STEERS 5
/* the order's prices, in metres of rotation progress (wheelbase × radians): a gear change
 * is worth 4° of turn, a move 0.06° (among equals, the fewer moves) */
#define GEAR_COST 0.2
#define MOVE_COST 0.001

typedef struct enode {
    double q[3];
    long parent;
    float delta, length;
    signed char gear;
    int gears, moves; /* gear changes and moves from the root */
} enode;

/* A hash set of cells (open addressing; the key is never 0). */
typedef struct cellset {
    unsigned long long *key;
    size_t cap;
} cellset;

static int cell_insert(cellset *h, const double q[3], double cell, double heading_cell)
{
    const long long ix = (long long)floor(q[0] / cell), iy = (long long)floor(q[1] / cell),
                    it = (long long)floor(remainder(q[2], 2.0 * SP_PI) / heading_cell);
    const unsigned long long k = ((unsigned long long)(ix & 0xfffff) << 40 | (unsigned long long)(iy & 0xfffff) << 20 |
                                  (unsigned long long)(it & 0xfffff)) + 1;
    size_t i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 20) & (h->cap - 1);
    while (h->key[i]) {
        if (h->key[i] == k) return 0;
        i = (i + 1) & (h->cap - 1);
    }
    h->key[i] = k;
    return 1;
}

/* The travel (a multiple of STEP, at most ROOM) along the arc from q over which the
 * footprint keeps the clearance and MARGIN at every STEP. No point of the footprint
 * moves faster than nu = √(1 + κ² reach²) per metre of travel and the distance is
 * 1-Lipschitz in the points, so a pose with distance d keeps clearance + MARGIN for
 * (d − clearance − MARGIN)/nu of travel: the checks skip that far. */
static double room(const car_world *w, const double q[3], double kappa, int gear)
{
    const sp_car_vehicle *v = w->vehicle;
    const double need = w->clearance + MARGIN;
    const double reach = hypot(fmax(v->wheelbase + v->front_overhang, v->rear_overhang), 0.5 * v->width);
    const double nu = sqrt(1.0 + kappa * kappa * reach * reach), cutoff = need + nu * (ROOM + STEP);
    int j = 1, sure = 0; /* the steps up to `sure` are known clear */
    for (; j * STEP <= ROOM + 1e-12; ++j) {
        if (j <= sure) continue;
        double r[3];
        car_arc(q, kappa, gear * j * STEP, r);
        const double d = car_world_distance(w, r, cutoff, NULL);
        if (d < need) break;
        sure = j + (int)floor((d - need) / (nu * STEP));
    }
    return (j - 1) * STEP;
}

/* The rooms of the 2 × STEERS moves from q (gear −1 first). */
static void rooms(const car_world *w, const double q[3], float room_of[2 * STEERS])
{
    const sp_car_vehicle *v = w->vehicle;
    for (int gi = 0; gi < 2; ++gi)
        for (int k = 0; k < STEERS; ++k) {
            const float delta = (float)(v->max_steering * (2.0 * k / (STEERS - 1) - 1.0));
            const double r = room(w, q, tan((double)delta) / v->wheelbase, gi ? 1 : -1);
            room_of[gi * STEERS + k] = (float)r;
        }
}

/* How far q has turned from `from`, times the wheelbase (a length): leaving a slot
 * little longer than the car is turning out of it a little at each move. The room of
 * the moves is no guide, as it shrinks while the car turns until the nose has passed
 * the obstacle ahead; nor is the displacement, which the slot bounds. */
static double progress(const sp_car_vehicle *v, const double from[3], const double q[3])
{
    return v->wheelbase * fabs(remainder(q[2] - from[2], 2.0 * SP_PI));
}

typedef struct eitem {
    double f;
    long node;
} eitem;

static void push(eitem *heap, long *n, double f, long id)
{
    long i = (*n)++;
    while (i > 0 && heap[(i - 1) / 2].f > f) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = (eitem){f, id};
}

static long pop(eitem *heap, long *n)
{
    const long top = heap[0].node;
    const eitem last = heap[--*n];
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && heap[c + 1].f < heap[c].f) ++c;
        if (heap[c].f >= last.f) break;
        heap[i] = heap[c];
        i = c;
    }
    if (*n > 0) heap[i] = last;
    return top;
}

/* One search with cells of `cell` metres and `heading_cell` radians; r->expanded and
 * r->generated count on. */
static sp_status escape_pass(const car_world *w, const double from[3], long max_nodes, double deadline, double cell,
                             double heading_cell, car_escape_out_fn out, void *ctx, car_route *r)
{
    const sp_car_vehicle *v = w->vehicle;
    cellset set = {.cap = 1};
    while (set.cap < 4 * (size_t)max_nodes) set.cap *= 2;
    set.key = calloc(set.cap, sizeof *set.key);
    enode *nodes = malloc((size_t)max_nodes * sizeof *nodes);
    eitem *heap = malloc((size_t)max_nodes * sizeof *heap);
    if (!set.key || !nodes || !heap) {
        free(set.key), free(nodes), free(heap);
        return SP_ERR_NOMEM;
    }
    long n = 1, last = -1, nh = 0;
    nodes[0] = (enode){.q = {from[0], from[1], from[2]}, .parent = -1};
    cell_insert(&set, from, cell, heading_cell);
    push(heap, &nh, 0.0, 0);
    while (nh > 0 && last < 0) {
        if ((r->expanded & 63) == 0 && car_cpu_seconds() > deadline) break;
        const long head = pop(heap, &nh);
        ++r->expanded;
        float room_of[2 * STEERS];
        rooms(w, nodes[head].q, room_of);
        for (int gi = 0; gi < 2 && last < 0; ++gi) {
            const int gear = gi ? 1 : -1;
            const int same = gear == nodes[head].gear;
            for (int k = 0; k < STEERS && last < 0; ++k) {
                const float delta = (float)(v->max_steering * (2.0 * k / (STEERS - 1) - 1.0));
                if (same && delta == nodes[head].delta) continue; /* it would only lengthen the last move */
                const double kappa = tan((double)delta) / v->wheelbase, most = room_of[gi * STEERS + k];
                for (int half = 0; half < 2 && last < 0; ++half) {
                    const double len = half ? STEP * floor(0.5 * most / STEP) : most;
                    if (len < STEP) break;
                    enode c = {.parent = head, .delta = delta, .length = (float)len, .gear = (signed char)gear,
                               .gears = nodes[head].gears + (!same && nodes[head].gear != 0),
                               .moves = nodes[head].moves + 1};
                    car_arc(nodes[head].q, kappa, gear * (double)c.length, c.q);
                    ++r->generated;
                    if (!cell_insert(&set, c.q, cell, heading_cell)) continue;
                    if (n == max_nodes) goto done;
                    nodes[n] = c;
                    if (out(ctx, c.q)) last = n;
                    push(heap, &nh, -progress(v, from, c.q) + GEAR_COST * c.gears + MOVE_COST * c.moves, n);
                    ++n;
                }
            }
        }
    }
done:
    if (last >= 0) {
        long count = 0;
        for (long i = last; i > 0; i = nodes[i].parent) ++count;
        r->pieces = malloc((size_t)count * sizeof *r->pieces);
        if (!r->pieces) {
            free(set.key), free(nodes), free(heap);
            return SP_ERR_NOMEM;
        }
        r->n = r->cap = (size_t)count;
        for (long i = last; i > 0; i = nodes[i].parent)
            r->pieces[--count] = (car_piece){.delta = nodes[i].delta, .length = nodes[i].length, .gear = nodes[i].gear};
        r->found = 1;
    }
    free(set.key), free(nodes), free(heap);
    return SP_OK;
}

sp_status car_escape(const car_world *w, const double from[3], long max_nodes, double deadline, car_escape_out_fn out,
                     void *ctx, car_route *r)
{
    memset(r, 0, sizeof *r);
    const double now = car_cpu_seconds();
    /* the coarse cells have half the time: with a third, the way out of the slot of scene
     * 200000 (3400 poses, 0.8 s of this machine's processor time, where the third was
     * 0.89 s) was lost on a processor 15 % slower, and the finer cells found none */
    sp_status st = escape_pass(w, from, max_nodes / 4, now + 0.5 * (deadline - now), 0.02, SP_PI / 360.0, out, ctx, r);
    if (st != SP_OK || r->found) return st;
    return escape_pass(w, from, max_nodes, deadline, 0.01, SP_PI / 720.0, out, ctx, r);
}
