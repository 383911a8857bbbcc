/* TPCAP cases (B. Li et al., Trajectory Planning Competition for Automated Parking) as
 * problem files of model car. */
#ifndef SP_CAR_TPCAP_H
#define SP_CAR_TPCAP_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_problem.h"

/* The problem document of a TPCAP case, from the text of its CSV file: one vector V,
 * V[1..3] the start (x, y, θ), V[4..6] the goal, V[7] the obstacle count n, V[7+i] the
 * vertex count of obstacle i, then the vertices (x, y) in turn. Coordinates are written
 * relative to the start position (the description gives it), so that the cases far from
 * the origin keep their digits. SP_ERR_INVALID with err filled for a malformed file. */
sp_status sp_car_tpcap_problem(const char *text, size_t length, const char *name, cJSON **out, sp_input_error *err);

#endif
