/* The trajectory a multiple-shooting solve reports (sp_multiple_shooting.h): its
 * recorded rows, kicks and keyframe steps, and every node of the grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cubic/multiple_shooting_internal.h"

static int recorded(const sp_ms *ms, int k, int record_every)
{
    return k % record_every == 0 || k == ms->N || ms->grid.target_at[k] >= 0;
}

/* What the pieces of a report share: per block its first row and the block whose start
 * state sets the momentum map it is compared with (the last one starting after a kick). */
typedef struct report_job {
    sp_ms *ms;
    int record_every;
    const int *first_row, *map_block;
    double *drift; /* per block */
    sp_ms_report *out;
} report_job;

static sp_status report_piece(void *ctx, int begin, int end, int worker)
{
    const report_job *job = ctx;
    sp_ms *ms = job->ms;
    const sp_group *G = ms->G;
    const int n = ms->n;
    for (int j = begin; j < end; ++j) {
        double M0[SP_LIE_MAX_DIM], Mk[SP_LIE_MAX_DIM], drift = 0.0;
        sp_hohp_momentum_map(G, &ms->S[job->map_block[j]], M0);
        sp_hohp_state z = ms->S[j];
        int row = job->first_row[j];
        const int k_end = j + 1 < ms->M ? ms->kb[j + 1] - 1 : ms->N; /* the next block records its first node */
        for (int k = ms->kb[j]; k <= k_end; ++k) {
            if (k > ms->kb[j]) {
                double c;
                sp_status st = sp_ms_step(ms, worker, ms->grid.h[k - 1], &z, &c, NULL);
                if (st != SP_OK) return st;
            }
            sp_hohp_momentum_map(G, &z, Mk);
            drift = fmax(drift, sp_vec_dist(n, Mk, M0) / fmax(sp_vec_norm(n, M0), 1e-300));
            if (recorded(ms, k, job->record_every)) {
                job->out->states[row] = z;
                job->out->t[row++] = ms->grid.t[k];
            }
        }
        job->drift[j] = drift;
    }
    return SP_OK;
}

sp_status sp_ms_report_build(sp_ms *ms, int record_every, sp_ms_report *out)
{
    const sp_group *G = ms->G;
    const int n = ms->n, N = ms->N, M = ms->M;
    const size_t m = ms->cubic.n_targets;
    memset(out, 0, sizeof *out);
    if (record_every < 1) record_every = 1;
    /* rows: every record_every-th node, every keyframe and the last node */
    int count = 0;
    for (int k = 0; k <= N; ++k) count += recorded(ms, k, record_every);
    out->states = malloc((size_t)count * sizeof *out->states);
    out->t = malloc((size_t)count * sizeof *out->t);
    out->target_g = calloc(m ? m * (size_t)G->elem_size : 1, sizeof *out->target_g);
    out->kicks = calloc(m ? m * (size_t)n : 1, sizeof *out->kicks);
    out->target_step = malloc((m ? m : 1) * sizeof *out->target_step);
    int *first_row = malloc((size_t)M * sizeof *first_row), *map_block = malloc((size_t)M * sizeof *map_block);
    double *drift = malloc((size_t)M * sizeof *drift);
    sp_status st = SP_OK;
    if (!out->states || !out->t || !out->target_g || !out->kicks || !out->target_step || !first_row || !map_block ||
        !drift)
        st = SP_ERR_NOMEM;
    if (st == SP_OK) {
        memcpy(out->target_step, ms->grid.target_step, m * sizeof *out->target_step);
        /* each block from its own start state (the solved states agree at the joins); the
         * momentum map restarts after every kick */
        for (int j = 0, row = 0, k = 0; j < M; ++j) {
            first_row[j] = row;
            map_block[j] = j == 0 || ms->grid.target_at[ms->kb[j]] >= 0 ? j : map_block[j - 1];
            for (const int k_end = j + 1 < M ? ms->kb[j + 1] - 1 : N; k <= k_end; ++k)
                row += recorded(ms, k, record_every);
        }
        report_job job = {.ms = ms, .record_every = record_every, .first_row = first_row, .map_block = map_block,
                          .drift = drift, .out = out};
        st = sp_parallel_run(ms->workers, M, ms->block_cost, report_piece, &job);
    }
    if (st == SP_OK)
        for (int j = 0; j < M; ++j) out->momentum_map_drift = fmax(out->momentum_map_drift, drift[j]);
    free(first_row), free(map_block), free(drift);
    if (st != SP_OK) {
        sp_ms_report_free(out);
        return st;
    }
    for (int j = 0; j < M; ++j) {
        int i = ms->grid.target_at[ms->kb[j + 1]];
        if (i >= 0) {
            double kappa[SP_LIE_MAX_DIM];
            if (ms->exact)
                sp_ms_multiplier_kick(ms, ms->lam, (size_t)i, kappa);
            else
                sp_ms_kick(ms, (size_t)i, ms->E[j].g, kappa, NULL);
            sp_vec_copy(n, kappa, out->kicks + (size_t)i * n);
            sp_vec_copy(G->elem_size, ms->E[j].g, out->target_g + (size_t)i * G->elem_size);
        }
    }
    out->count = count;
    sp_vec_copy(n, ms->S[0].nu, out->initial_momenta);
    sp_vec_copy(n, ms->S[0].p, out->initial_momenta + n);
    sp_vec_copy(n, ms->S[0].xi, out->initial_velocity);
    const sp_hohp_state *e = &ms->E[ms->M - 1];
    sp_vec_copy(n, e->xi, out->final_velocity);
    double kappa[SP_LIE_MAX_DIM] = {0};
    int i_end = ms->grid.target_at[N];
    if (i_end >= 0) {
        if (ms->exact)
            sp_ms_multiplier_kick(ms, ms->lam, (size_t)i_end, kappa);
        else
            sp_ms_kick(ms, (size_t)i_end, e->g, kappa, NULL);
    }
    for (int q = 0; q < n; ++q) out->terminal[q] = e->nu[q] + kappa[q], out->terminal[n + q] = e->p[q];
    return SP_OK;
}

sp_status sp_ms_nodes(sp_ms *ms, sp_hohp_state *nodes)
{
    sweep_job job = {.ms = ms, .S = ms->S, .nodes = nodes};
    sp_status st = sp_parallel_run(ms->workers, ms->M, ms->block_cost, sp_ms_sweep_piece, &job);
    if (st != SP_OK) return st;
    /* the end, after its kick */
    sp_hohp_state e = ms->E[ms->M - 1];
    const int i = ms->grid.target_at[ms->N];
    if (i >= 0) {
        double kappa[SP_LIE_MAX_DIM];
        if (ms->exact)
            sp_ms_multiplier_kick(ms, ms->lam, (size_t)i, kappa);
        else
            sp_ms_kick(ms, (size_t)i, e.g, kappa, NULL);
        for (int q = 0; q < ms->n; ++q) e.nu[q] += kappa[q];
    }
    nodes[ms->N] = e;
    return SP_OK;
}

const sp_plan_grid *sp_ms_grid(const sp_ms *ms, int *steps)
{
    *steps = ms->N;
    return &ms->grid;
}

void sp_ms_report_free(sp_ms_report *r)
{
    if (!r) return;
    free(r->states), free(r->t), free(r->target_g), free(r->kicks), free(r->target_step);
    memset(r, 0, sizeof *r);
}
