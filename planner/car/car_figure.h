/* The car family's picture of a result (the figure hook of its family table). Internal. */
#ifndef SP_CAR_FIGURE_H
#define SP_CAR_FIGURE_H

#include <cjson/cJSON.h>

#include "planner/result_view.h"
#include "problems/sp_problem.h"

/* A plan's scene from above: obstacles, the path by gear, footprints every 0.5 m and the
 * cusps, into *svg (the caller frees it); SP_OK with *svg NULL for any other task. */
sp_status sp_car_figure(const cJSON *result, const sp_traj *tr, char **svg, sp_input_error *err);

#endif
