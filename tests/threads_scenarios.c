/* The scenarios and the check of threads_scenarios.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/sp_solve.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"
#include "tests/threads_scenarios.h"

/* Bundled problems cut down to a few milliseconds each (steps, targets) so that every
 * family can run several times over under ThreadSanitizer. The three NLopt searches that
 * draw random numbers come first, so that threads 0, 1 and 2 run them side by side: were
 * NLopt's generator shared between threads, each would draw numbers meant for another
 * and end elsewhere than its reference. */
/* heisenberg.json made an endpoint plan: a plan finds p0 and takes T instead of h */
#define HEISENBERG_PLAN                                                                                                \
    "\"task\": \"plan\", \"p0\": null, \"h\": null, \"symplecticity_defect\": null, \"T\": 1, \"steps\": 20,"          \
    " \"q1\": [0.2, -0.1, 0.05]"
/* parallel_parking.json with a target its first start reaches, on a shorter grid */
#define PARKING_PLAN "\"steps\": 20, \"q1\": [0.4, 0.2, 0.5, 0.5]"
const threads_scenario threads_scenarios[] = {
    /* cubic-spline plan: controlled random search over the initial momenta */
    {"sphere_interpolation.json",
     "{\"steps\": 50, \"method\": \"single_shooting\","
     " \"optimizer\": {\"algorithm\": \"GN_CRS2_LM\", \"maxeval\": 300, \"bound\": 10}}",
     0, "maxeval_reached"},
    /* vakonomic endpoint plans: an evolution strategy (ISRES), random-start MLSL with L-BFGS */
    {"heisenberg.json",
     "{" HEISENBERG_PLAN ", \"optimizer\": {\"algorithm\": \"GN_ISRES\", \"maxeval\": 300, \"bound\": 5}}", 0,
     "converged"},
    {"parallel_parking.json",
     "{" PARKING_PLAN ", \"optimizer\": {\"algorithm\": \"GD_MLSL\", \"maxeval\": 200, \"bound\": 2}}", 0, "converged"},
    /* cubic-spline plans by multiple shooting: on the sphere, a rest-to-rest attitude slew */
    {"sphere_interpolation.json", NULL, 0, "converged"},
    {"keyframes_so3.json", "{\"T\": 6, \"steps\": 120}", 6, "converged"},
    /* without steps: the order-8 scheme on a grid it chooses, the condensed exact solver and
     * samples of the curve */
    {"keyframes_camera.json", NULL, 0, "converged"},
    {"keyframes_exact.json", "{\"steps\": null, \"scheme\": null, \"output\": {\"sample_rate\": 30}}", 0,
     "converged"},
    /* cubic-spline simulation */
    {"sphere_simulate.json", NULL, 0, "ok"},
    /* vakonomic simulations, and endpoint plans by L-BFGS */
    {"heisenberg.json", NULL, 0, "ok"},
    {"parking_fig3.json", NULL, 0, "ok"},
    {"heisenberg.json", "{" HEISENBERG_PLAN "}", 0, "converged"},
    {"parallel_parking.json", "{" PARKING_PLAN "}", 0, "converged"},
    /* holonomic: RATTLE, RATTLE triple jump, adaptive DOP853 with feedback, Strang and
     * Lie–Trotter splittings, RATTLE on SO(3) for the heavy top, the contact step on S³ */
    {"spherical_pendulum.json", "{\"steps\": 2000}", 0, "ok"},
    {"planar_pendulum.json", "{\"steps\": 1000}", 0, "ok"},
    {"planar_pendulum_dop853.json", "{\"steps\": 100}", 0, "ok"},
    {"spherical_pendulum_strang.json", "{\"steps\": 2000}", 0, "ok"},
    {"spherical_pendulum_lie_trotter.json", "{\"steps\": 2000}", 0, "ok"},
    {"heavy_top_lie.json", "{\"steps\": 400}", 0, "ok"},
    {"s3_contact.json", "{\"steps\": 500}", 0, "ok"},
    /* nonholonomic in coordinates: knife edge, rolling disk, the sleigh */
    {"knife_edge.json", NULL, 0, "ok"},
    {"rolling_disk.json", NULL, 0, "ok"},
    {"chaplygin_sleigh.json", "{\"steps\": 300}", 0, "ok"},
    /* nonholonomic on Lie groups: the sleigh on SE(2), the Suslov problem on SO(3) */
    {"sleigh_se2.json", "{\"steps\": 300}", 0, "ok"},
    {"suslov.json", "{\"steps\": 300}", 0, "ok"},
    /* the car in a parallel slot (its evaluations are too small to be shared among
     * threads of its own: tests/car_threads.c shares them whatever their size) */
    {"car/parallel_slot.json", NULL, 0, "converged"},
    /* expression models: every thread parses, differentiates and evaluates its own */
    {"custom/double_pendulum.json", "{\"steps\": 300}", 0, "ok"},
    {"custom/torus_bead.json", "{\"steps\": 300}", 0, "ok"},
};
const size_t threads_scenario_count = sizeof threads_scenarios / sizeof threads_scenarios[0];

/* problem files are small; this bounds a runaway read */
#define DATA_MAX_BYTES (1L << 20)

static void say(char *why, size_t size, const threads_scenario *s, const char *what, const char *detail)
{
    snprintf(why, size, "%s%s%s: %s%s%s", s->file, s->edits ? " with " : "", s->edits ? s->edits : "", what,
             detail ? ": " : "", detail ? detail : "");
}

/* The file's document with the scenario's edits made: a member of the edits replaces or
 * joins the file's, null removes it (a simulation's p0 and h, to make it a plan). */
static cJSON *edited_document(const char *path, const threads_scenario *s, sp_input_error *err)
{
    cJSON *doc, *edits;
    if (sp_json_read_document(path, DATA_MAX_BYTES, &doc, err) != SP_OK) return NULL;
    if (sp_json_parse_document(s->edits, strlen(s->edits), &edits, err) != SP_OK) {
        cJSON_Delete(doc);
        return NULL;
    }
    for (cJSON *e = edits->child; e; e = e->next) {
        cJSON *copy = cJSON_IsNull(e) ? NULL : cJSON_Duplicate(e, 1);
        if (!copy)
            cJSON_DeleteItemFromObjectCaseSensitive(doc, e->string);
        else if (cJSON_GetObjectItemCaseSensitive(doc, e->string))
            cJSON_ReplaceItemInObjectCaseSensitive(doc, e->string, copy);
        else
            cJSON_AddItemToObject(doc, e->string, copy);
    }
    cJSON_Delete(edits);
    cJSON *targets = cJSON_GetObjectItemCaseSensitive(doc, "targets");
    while (s->targets > 0 && cJSON_GetArraySize(targets) > s->targets) cJSON_DeleteItemFromArray(targets, s->targets);
    return doc;
}

/* Reads the scenario's problem: straight from its file, or from the text of the edited
 * document (printed with every number exact, so only the edits differ from the file). */
static sp_status read_problem(const char *data_dir, const threads_scenario *s, sp_problem *pb, sp_input_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir, s->file);
    memset(err, 0, sizeof *err);
    if (!s->edits) return sp_problem_read_file(path, pb, err);
    cJSON *doc = edited_document(path, s, err);
    if (!doc) return SP_ERR_INVALID;
    size_t length;
    char *text = sp_json_print(doc, 0, &length);
    cJSON_Delete(doc);
    if (!text) return SP_ERR_NOMEM;
    sp_status st = sp_problem_parse(text, length, pb, err);
    free(text);
    return st;
}

/* The scenario's result without its wall-clock members (NULL with the reason in why). */
static cJSON *solve(const char *data_dir, const threads_scenario *s, char *why, size_t why_size)
{
    sp_problem pb;
    sp_input_error err;
    if (read_problem(data_dir, s, &pb, &err) != SP_OK) {
        say(why, why_size, s, err.path, err.message);
        return NULL;
    }
    cJSON *result = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    if (!result) {
        say(why, why_size, s, "no result", "out of memory");
        return NULL;
    }
    cJSON_Delete(sp_result_detach_wall_clock(result));
    return result;
}

static char *print(const cJSON *result)
{
    size_t length;
    return sp_json_print(result, 1, &length);
}

/* ------------------------------------------------------------ references -- */

static char *reference(const char *data_dir, const threads_scenario *s, char *why, size_t why_size)
{
    cJSON *result = solve(data_dir, s, why, why_size);
    if (!result) return NULL;
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "status"));
    char *text = NULL;
    if (!status || strcmp(status, s->status) != 0) {
        char line[512];
        sp_result_explain(result, line, sizeof line);
        say(why, why_size, s, status ? status : "no status", line);
    } else if (!(text = print(result))) {
        say(why, why_size, s, "cannot print the result", NULL);
    }
    cJSON_Delete(result);
    return text;
}

static void references_free(char **refs)
{
    for (size_t i = 0; refs && refs[i]; ++i) free(refs[i]);
    free(refs);
}

/* The references, in the order of the table (NULL with the reason in why). */
static char **references(const char *data_dir, char *why, size_t why_size)
{
    char **refs = calloc(threads_scenario_count + 1, sizeof *refs);
    for (size_t i = 0; refs && i < threads_scenario_count; ++i)
        if (!(refs[i] = reference(data_dir, &threads_scenarios[i], why, why_size))) {
            references_free(refs);
            return NULL;
        }
    return refs;
}

/* ------------------------------------------------------------ the threads -- */

/* Holds the threads until every one has been created, so that they start solving at once. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int open;
} gate;

static void gate_wait(gate *g)
{
    pthread_mutex_lock(&g->lock);
    while (!g->open) pthread_cond_wait(&g->opened, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = 1;
    pthread_cond_broadcast(&g->opened);
    pthread_mutex_unlock(&g->lock);
}

typedef struct worker {
    const char *data_dir, *out_dir;
    char *const *refs;
    int index, threads, rounds;
    gate *start;
    int mismatches;
    char why[1024 + 64]; /* the first mismatch: its thread and round, then what solve_and_compare says */
} worker;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
        text[fread(text, 1, (size_t)size, f)] = '\0';
    }
    fclose(f);
    return text;
}

/* The result as the command writes it, through a temporary file renamed into place, and
 * read back without the newline the file ends with. */
static char *written(const worker *w, size_t i, const cJSON *result, char *why, size_t why_size)
{
    char path[4096], problem[256] = "";
    const char *base = strrchr(threads_scenarios[i].file, '/'); /* data/custom/x.json: the name alone */
    snprintf(path, sizeof path, "%s/thread%d-%zu-%s", w->out_dir, w->index, i,
             base ? base + 1 : threads_scenarios[i].file);
    sp_output out;
    if (sp_output_open(&out, path, problem, sizeof problem) != SP_OK ||
        sp_output_commit(&out, result, problem, sizeof problem) != SP_OK) {
        say(why, why_size, &threads_scenarios[i], "cannot write the result", problem);
        return NULL;
    }
    char *text = read_text(path);
    remove(path);
    if (!text) say(why, why_size, &threads_scenarios[i], "cannot read back the file written", NULL);
    size_t n = text ? strlen(text) : 0;
    if (n > 0 && text[n - 1] == '\n') text[n - 1] = '\0';
    return text;
}

/* Where two texts part, as "byte k: …" with a little of each. */
static void difference(const char *got, const char *want, char *out, size_t size)
{
    size_t k = 0;
    while (got[k] && got[k] == want[k]) ++k;
    size_t from = k > 40 ? k - 40 : 0;
    snprintf(out, size, "byte %zu: got …%.80s… want …%.80s…", k, got + from, want + from);
}

/* One solve of scenario i in round `round`, counted in w when it does not print its
 * reference (the first such told in w->why). */
static void solve_and_compare(worker *w, size_t i, int round)
{
    const threads_scenario *s = &threads_scenarios[i];
    char why[1024] = "", detail[512];
    cJSON *result = solve(w->data_dir, s, why, sizeof why);
    char *text = !result ? NULL : round == w->rounds - 1 ? written(w, i, result, why, sizeof why) : print(result);
    cJSON_Delete(result);
    int bad = !text || strcmp(text, w->refs[i]) != 0;
    if (text && bad) {
        difference(text, w->refs[i], detail, sizeof detail);
        say(why, sizeof why, s, "differs from the sequential result", detail);
    }
    if (bad && w->mismatches++ == 0)
        snprintf(w->why, sizeof w->why, "thread %d, round %d: %s", w->index, round + 1, why);
    free(text);
}

static void *work(void *arg)
{
    worker *w = arg;
    gate_wait(w->start);
    for (int round = 0; round < w->rounds; ++round)
        for (size_t i = (size_t)w->index; i < threads_scenario_count; i += (size_t)w->threads)
            solve_and_compare(w, i, round);
    return NULL;
}

/* The threads' part of threads_check. */
static int run_threads(const char *data_dir, const char *out_dir, char *const *refs, int threads, int rounds, char *why,
                       size_t why_size)
{
    worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    gate start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 0, mismatches = 0;
    for (; workers && ids && started < threads; ++started) {
        workers[started] = (worker){.data_dir = data_dir,
                                    .out_dir = out_dir,
                                    .refs = refs,
                                    .index = started,
                                    .threads = threads,
                                    .rounds = rounds,
                                    .start = &start};
        if (pthread_create(&ids[started], NULL, work, &workers[started]) != 0) break;
    }
    gate_open(&start);
    for (int t = 0; t < started; ++t) {
        pthread_join(ids[t], NULL);
        if (workers[t].mismatches && mismatches == 0) snprintf(why, why_size, "%s", workers[t].why);
        mismatches += workers[t].mismatches;
    }
    if (started < threads) {
        snprintf(why, why_size, "could start only %d threads of %d", started, threads);
        ++mismatches;
    }
    pthread_cond_destroy(&start.opened);
    pthread_mutex_destroy(&start.lock);
    free(workers), free(ids);
    return mismatches;
}

int threads_check(const char *data_dir, const char *out_dir, int threads, int rounds, char *why, size_t why_size)
{
    char first[1024] = "";
    char **refs = references(data_dir, first, sizeof first);
    if (!refs) {
        snprintf(why, why_size, "sequential run: %s", first);
        return 1;
    }
    int failures = run_threads(data_dir, out_dir, refs, threads, rounds, why, why_size);
    references_free(refs);
    return failures;
}
