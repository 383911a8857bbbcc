#include <stddef.h>

#include "planner/cubic/sp_plan.h"
#include "problems/sp_result_file.h"

/* Adds one row per state of the `cols` doubles found at `offset` in each state. */
static void add_state_rows(cJSON *parent, const char *name, const sp_hohp_state *states, int count, size_t offset,
                           int cols)
{
    cJSON *rows = cJSON_AddArrayToObject(parent, name);
    for (int k = 0; rows && k < count; ++k) {
        const double *v = (const double *)((const char *)&states[k] + offset);
        cJSON_AddItemToArray(rows, sp_json_vector(cols, v));
    }
}

cJSON *sp_trajectory_json(const sp_group *G, const sp_hohp_state *states, const double *t, int count, const double *y0)
{
    cJSON *tr = cJSON_CreateObject();
    sp_json_add_vector(tr, "t", count, t);
    add_state_rows(tr, "q", states, count, offsetof(sp_hohp_state, g), G->elem_size);
    add_state_rows(tr, "xi", states, count, offsetof(sp_hohp_state, xi), G->dim);
    add_state_rows(tr, "nu", states, count, offsetof(sp_hohp_state, nu), G->dim);
    add_state_rows(tr, "p", states, count, offsetof(sp_hohp_state, p), G->dim);
    if (y0) {
        cJSON *ys = cJSON_AddArrayToObject(tr, "y");
        for (int k = 0; ys && k < count; ++k) {
            double y[SP_LIE_MAX_DIM];
            G->act(G, states[k].g, y0, y);
            cJSON_AddItemToArray(ys, sp_json_vector(G->act_dim, y));
        }
    }
    return tr;
}
