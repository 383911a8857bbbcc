/* Random parking scenes as problem files of model car (the JSON of the files of data/car/), for
 * the tests (tests/test_car_scenes.c) and the bench (bench/scenes_bench.c): slots of the
 * kinds real streets and lots have, with neighbours, kerbs, walls and clutter drawn from
 * the ranges of car_scenes.c, so that the planner is tried on scenes no one tuned it for.
 * A scene is a function of its seed alone: the same seed gives the same file. */
#ifndef SP_TEST_CAR_SCENES_H
#define SP_TEST_CAR_SCENES_H

#include <cjson/cJSON.h>

typedef enum car_scene_kind {
    CAR_SCENE_PARALLEL,      /* along a kerb, between the cars of a row */
    CAR_SCENE_PERPENDICULAR, /* a bay in a row of cars, a wall or kerb behind */
    CAR_SCENE_ANGLED,        /* a bay at 45°, 60° or 75° to the lane */
    CAR_SCENE_CLUTTER,       /* a slot of one of the three, with posts, bins, kerb corners in the lane */
    CAR_SCENE_KINDS
} car_scene_kind;

typedef struct car_scene_info {
    car_scene_kind kind;
    car_scene_kind slot;  /* the slot's kind (a cluttered scene has one of the first three) */
    double play;          /* parallel: slot length less the car's; bays: slot width less the car's (m) */
    double angle;         /* the bay's angle to the lane (degrees; 0 along it, 90 perpendicular) */
    int facing_out;       /* the goal is reversed into the bay (nose towards the lane) */
    int reverse_job;      /* the start is in the slot, the goal in the lane */
    int clutter;          /* obstacles of clutter placed */
    int other_vehicle;    /* the vehicle is not TPCAP's */
    double distance;      /* of the scene from the origin (m) */
    int draws;            /* scenes drawn until one had its start and goal clear */
} car_scene_info;

const char *car_scene_kind_name(car_scene_kind kind);

/* The scene of `seed` and `kind` (CAR_SCENE_KINDS: the kind from the seed too) as a
 * problem document (cJSON_Delete it; NULL when out of memory), its figures in *info (may
 * be NULL). `moderate` narrows the slots to the easier half of their ranges (parallel
 * play 1.5–3 m, bay play 0.6–1.2 m). Start and goal footprints keep clearance + 0.1 m
 * from every obstacle. */
cJSON *car_scene_draw(unsigned long seed, car_scene_kind kind, int moderate, car_scene_info *info);

#endif
