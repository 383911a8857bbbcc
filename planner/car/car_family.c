/* The car family's table: a plan task only (sp_car_plan.h). */
#include "planner/car/sp_car_plan.h"
#include "planner/car/car_figure.h"
#include "planner/sp_family.h"

static int car_planar(const char *model)
{
    (void)model;
    return 1;
}

const sp_family sp_car_family = {
    .name = "car",
    .kinds = SP_KIND_FLAG(SP_KIND_CAR),
    .plan = sp_car_plan_json,
    .planar = car_planar,
    .figure = sp_car_figure,
};
