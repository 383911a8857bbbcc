/* A car among obstacles: the vehicle (kinematic bicycle about the rear-axle midpoint),
 * the scene (start and goal poses, polygonal obstacles, clearance, bounds) and the
 * settings of its plan. A problem of model "car" holds one; the obstacles' vertices are
 * owned (sp_car_problem_free). Coordinates are the file's, less `origin` (the start
 * position), so that scenes far from the origin keep their digits. */
#ifndef SP_CAR_H
#define SP_CAR_H

#include <stddef.h>

typedef struct sp_car_vehicle {
    double wheelbase, front_overhang, rear_overhang, width;
    double max_steering;      /* rad, < π/2 */
    double max_steering_rate; /* rad/s; 0: no bound */
} sp_car_vehicle;

typedef struct sp_car_scene {
    double start[3], goal[3]; /* (x, y, θ) of the rear-axle midpoint, less origin */
    double origin[2];         /* the file's start position, subtracted from every point */
    size_t n_obstacles;
    size_t *first;    /* n_obstacles + 1 offsets into vertices: polygon i is first[i] … first[i+1]−1 */
    double *vertices; /* (x, y) pairs, less origin */
    double clearance; /* least distance between footprint and obstacles, m */
    double bounds[4]; /* xmin, ymin, xmax, ymax (less origin): the footprint stays inside */
    int has_bounds;   /* given in the file; otherwise the box around everything, widened */
} sp_car_scene;

/* The route search (hybrid A*) and the smoothing stage. */
typedef struct sp_car_settings {
    double travel_weight;   /* w_v in the energy ∫ (w_v v² + w_s δ̇²) dt */
    double steering_weight; /* w_s */
    double gear_change_cost;
    double speed;           /* nominal speed timing the path: T = route length / speed */
    long max_nodes;         /* route search budget: expanded nodes */
    double max_seconds;     /* and wall time (the smoothing's too) */
    long max_evaluations;   /* smoothing budget: energy evaluations over all its solves */
    long max_unknowns;      /* larger transcriptions are not smoothed (a work budget) */
    double tolerance;       /* scaled optimality residual that counts as converged */
    int smooth;             /* 0: return the route itself (status stalled) */
} sp_car_settings;

typedef struct sp_car_problem {
    sp_car_vehicle vehicle;
    sp_car_scene scene;
    sp_car_settings settings;
} sp_car_problem;

/* The settings a file leaves out, into *s. */
void sp_car_settings_defaults(sp_car_settings *s);
/* Frees what the problem owns (its scene's arrays), not the struct itself. */
void sp_car_problem_free(sp_car_problem *c);

#endif
