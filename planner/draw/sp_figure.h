/* The parts every picture of a result shares, for plot.c and the families' figures
 * (sp_family.h): the SVG writer's frame of a result. Internal to planner/. */
#ifndef SP_FIGURE_H
#define SP_FIGURE_H

#include <cjson/cJSON.h>

#include "planner/draw/svg.h"
#include "problems/sp_problem.h"

/* The string member `key` of obj (NULL when it is missing or no string). */
const char *sp_figure_string(const cJSON *obj, const char *key);
/* n numbers from an array of numbers, or (n = 9) from an array of three rows of three,
 * into out; 0 when the node is not that. */
int sp_figure_numbers(const cJSON *node, int n, double *out);
/* Starts the document with its title and a subtitle saying how the result came out
 * (status, cost, iterations, residual) and what it ran with (its settings). */
void sp_figure_begin(sp_svg *s, double width, double height, const char *title, const cJSON *root);
/* Closes the document and hands its text to *svg; SP_ERR_NOMEM, with err filled, when
 * memory ran out while drawing. */
sp_status sp_figure_finish(sp_svg *s, char **svg, sp_input_error *err);

#endif
