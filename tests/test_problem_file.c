/* The problem-file reader (problems/problem_file.c): every example in data/ is read,
 * defaults apply where a field is left out, and every kind of malformed document is
 * refused with the exact JSON path of the first problem and a message that says what
 * is wrong (docs/reference.md and docs/command.md). The malformed documents
 * are one or two edits of a few valid base documents, so each case shows only what it
 * breaks. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lie/sp_linalg.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "problems/vakonomic/sp_vak_models.h"
#include "tests/support.h"

/* Valid base documents: a plan through sphere targets, a plan through rotations, and a
 * simulation. Targets are at 0.25, 0.5 and 1 so that targets[2] is the last one. */
#define PLAN_SPHERE                                                                                                    \
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3\", \"space\": \"sphere\","                     \
    " \"y0\": [1, 0, 0], \"T\": 1, \"steps\": 100, \"scheme\": \"hohp_sv\", \"retraction\": \"cayley\","               \
    " \"xi0\": [0, 0, 1], \"sigma\": 0.1,"                                                                             \
    " \"targets\": [{\"t\": 0.25, \"y\": [1, 1, 0]}, {\"t\": 0.5, \"y\": [0, 1, 0]},"                                  \
    "               {\"t\": 1, \"y\": [0, 1, 1]}],"                                                                    \
    " \"optimizer\": {\"algorithm\": \"LD_LBFGS\", \"xtol_rel\": 1e-12, \"maxeval\": 500}}"

#define PLAN_GROUP                                                                                                     \
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"group\","                                          \
    " \"g0\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"xi0\": [0, 0, 1], \"T\": 1, \"steps\": 50,"                         \
    " \"sigma\": 0.1,"                                                                                                 \
    " \"targets\": [{\"t\": 0.5, \"R\": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]},"                                          \
    "               {\"t\": 1, \"R\": [[1, 0, 0], [0, 0, -1], [0, 1, 0]]}]}"

/* A sphere plan in the round metric: exact interpolation, free ends, the grid chosen. */
#define PLAN_ROUND                                                                                                     \
    "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"space\": \"sphere\", \"metric\": \"round\","              \
    " \"y0\": [1, 0, 0], \"T\": 1, \"xi0\": \"free\", \"sigma\": 0,"                                               \
    " \"targets\": [{\"t\": 0.5, \"y\": [0, 1, 0]}, {\"t\": 1, \"y\": [0, 1, 1]}]}"

#define SIMULATE                                                                                                       \
    "{\"task\": \"simulate\", \"model\": \"cubic_spline\", \"g0\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],"                 \
    " \"xi0\": [1, -0.5, 0.8], \"p0\": [0.3, 0.6, -0.4], \"nu0\": [0.5, -0.4, 0.3],"                                   \
    " \"T\": 2, \"steps\": 200}"

/* Vakonomic bases: a Heisenberg and a parking simulation,
 * parking from a velocity and multiplier (driving straight at heading 0.7, speed 1, so
 * G(q0) v0 = 0), and the parking plan. */
#define HEIS_SIMULATE                                                                                                  \
    "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0], \"p0\": [0.1, 0.3, 1],"                    \
    " \"scheme\": \"gauss\", \"stages\": 2, \"h\": 0.1, \"steps\": 10, \"symplecticity_defect\": true}"

#define PARK_SIMULATE                                                                                                  \
    "{\"task\": \"simulate\", \"model\": \"parking\","                                                                 \
    " \"params\": {\"L\": 0.3, \"alpha\": 1, \"beta\": 1, \"potential\": \"cos_bowl\"},"                               \
    " \"q0\": [0.3, 0, 0, 3.141592653589793], \"p0\": [0, 0, 1.09, 1], \"scheme\": \"gauss\", \"stages\": 3,"          \
    " \"T\": 1, \"steps\": 20}"

#define PARK_V0                                                                                                        \
    "{\"task\": \"simulate\", \"model\": \"parking\", \"q0\": [0.1, -0.2, 0.7, 0.7],"                                  \
    " \"v0\": [0.7648421872844885, 0.644217687237691, 0, 0], \"lambda0\": [0, 0], \"h\": 0.1, \"steps\": 10}"

#define PARK_PLAN                                                                                                      \
    "{\"task\": \"plan\", \"model\": \"parking\", \"params\": {\"L\": 0.3}, \"q0\": [0, 0, 0, 0],"                     \
    " \"q1\": [0, 0.5, 0, 0], \"T\": 1, \"steps\": 50, \"tolerance\": 1e-10, \"starts\": 8,"                           \
    " \"optimizer\": {\"algorithm\": \"LD_LBFGS\"}}"

/* Holonomic bases: the spherical pendulum with RATTLE and
 * with feedback + DOP853, the planar pendulum with feedback + RK4, the heavy top on SO(3),
 * and S³ with the Hopf-invariant potential. */
#define PEND_SIMULATE                                                                                                  \
    "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"params\": {\"m\": 1, \"g\": 1, \"l\": 1},"          \
    " \"scheme\": \"rattle\", \"q0\": [0, 1, 0], \"p0\": [1, 0, 1], \"h\": 0.001, \"steps\": 100}"

#define PEND_FEEDBACK                                                                                                  \
    "{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"scheme\": \"feedback_dop853\","                     \
    " \"gains\": {\"k1\": 50, \"k2\": 50, \"k3\": 50, \"k4\": 50}, \"rtol\": 1e-8, \"atol\": 1e-10,"                   \
    " \"q0\": [0, 1, 0], \"p0\": [1, 0, 1], \"h\": 0.01, \"steps\": 10}"

#define PLANAR_FEEDBACK                                                                                                \
    "{\"task\": \"simulate\", \"model\": \"planar_pendulum\", \"scheme\": \"feedback_rk4\", \"gains\": {\"k1\": 50},"  \
    " \"q0\": [0.8414709848078965, -0.5403023058681398], \"p0\": [0, 0], \"h\": 0.01, \"steps\": 10}"

#define TOP_SIMULATE                                                                                                   \
    "{\"task\": \"simulate\", \"model\": \"heavy_top\", \"params\": {\"J\": [2, 3, 4], \"mgl\": 1,"                    \
    " \"chi\": [0.3, 0.2, 1]}, \"scheme\": \"lie_rattle\", \"retraction\": \"cayley\","                                \
    " \"R0\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"omega0\": [0.4, -0.7, 1.1], \"h\": 0.05, \"steps\": 10}"

#define S3_SIMULATE                                                                                                    \
    "{\"task\": \"simulate\", \"model\": \"s3_contact\", \"params\": {\"c1\": 0.5, \"potential\": "                    \
    "\"hopf_invariant\"},"                                                                                             \
    " \"q0\": [1, 0, 0, 0], \"p0\": [0, 0.3, 0.8, 0], \"h\": 0.1, \"steps\": 10}"

/* Nonholonomic bases: the contact oscillator, the rolling disk from
 * a velocity, and the Lie-group models, the sleigh on SE(2) and the Suslov body. */
#define NH_CONTACT                                                                                                     \
    "{\"task\": \"simulate\", \"model\": \"contact_oscillator\", \"params\": {\"eps\": 0.5},"                          \
    " \"q0\": [1.18133634311129, 1, 0.5], \"p0\": [-0.3, 0, 0.3], \"scheme\": \"lobatto\", \"stages\": 3,"             \
    " \"lambda1\": \"carry\", \"h\": 0.1, \"steps\": 10}"

#define NH_DISK_V0                                                                                                     \
    "{\"task\": \"simulate\", \"model\": \"rolling_disk\", \"q0\": [0, 0, 0, 0], \"v0\": [1, 0, 2, 1],"                \
    " \"h\": 0.05, \"steps\": 10}"

#define NH_SE2                                                                                                         \
    "{\"task\": \"simulate\", \"model\": \"sleigh_se2\", \"params\": {\"m\": 1, \"a\": 0.5, \"I\": 0.3},"              \
    " \"g0\": [0, 0, 0], \"xi0\": [1, 1, 0], \"retraction\": \"cayley\", \"h\": 0.1, \"steps\": 10}"

#define NH_SUSLOV                                                                                                      \
    "{\"task\": \"simulate\", \"model\": \"suslov\", \"params\": {\"J\": [1, 2, 3.5], \"e\": [0.3, 0.5, 0.8]},"        \
    " \"g0\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"xi0\": [0.8, 0, -0.3], \"T\": 1, \"steps\": 10}"

/* One edit: the member at `path` ("optimizer.xtol_rel", "targets[2].t") replaced by,
 * or when absent added as, the raw JSON text `value`; value NULL removes it. The text
 * is copied verbatim, so it can be what cJSON would never print: 1e999, NaN, or
 * `1, "T": 2`, which turns the member into a duplicate key. */
typedef struct edit {
    const char *path;
    const char *value;
} edit;

typedef struct step {
    char key[64]; /* "" for an array index */
    int index;
} step;

/* Splits "targets[2].R[1]" into targets, 2, R, 1. */
static int split_path(const char *path, step *steps, int max)
{
    int n = 0;
    while (*path) {
        cr_assert_lt(n, max, "path %s too deep", path);
        step *s = &steps[n++];
        if (*path == '[') {
            char *end;
            s->key[0] = '\0';
            s->index = (int)strtol(path + 1, &end, 10);
            cr_assert_eq(*end, ']', "bad index in %s", path);
            path = end + 1;
        } else {
            size_t len = strcspn(path, ".[");
            cr_assert_lt(len, sizeof s->key);
            memcpy(s->key, path, len);
            s->key[len] = '\0';
            path += len;
        }
        if (*path == '.') ++path;
    }
    return n;
}

static void apply_edit(cJSON *doc, const edit *e)
{
    step steps[8];
    int n = split_path(e->path, steps, 8);
    cJSON *parent = doc;
    for (int i = 0; i < n - 1; ++i) {
        parent = steps[i].key[0] ? cJSON_GetObjectItemCaseSensitive(parent, steps[i].key)
                                 : cJSON_GetArrayItem(parent, steps[i].index);
        cr_assert_not_null(parent, "edit path %s does not exist in the base document", e->path);
    }
    const step *last = &steps[n - 1];
    if (!e->value) {
        cJSON *gone = last->key[0] ? cJSON_DetachItemFromObjectCaseSensitive(parent, last->key)
                                   : cJSON_DetachItemFromArray(parent, last->index);
        cr_assert_not_null(gone, "cannot remove %s: not in the base document", e->path);
        cJSON_Delete(gone);
        return;
    }
    cJSON *raw = cJSON_CreateRaw(e->value);
    cr_assert_not_null(raw);
    cr_assert(last->key[0], "edits replace object members only (%s)", e->path);
    if (cJSON_GetObjectItemCaseSensitive(parent, last->key))
        cr_assert(cJSON_ReplaceItemInObjectCaseSensitive(parent, last->key, raw));
    else
        cr_assert(cJSON_AddItemToObject(parent, last->key, raw));
}

/* The base document with the edits applied (free with cJSON_free). With no edits the
 * base is returned as written: that is how unparseable documents are given. */
static char *edited(const char *base, const edit *edits, int n_edits)
{
    if (n_edits == 0 || !edits[0].path) {
        char *copy = cJSON_malloc(strlen(base) + 1);
        cr_assert_not_null(copy);
        return strcpy(copy, base);
    }
    cJSON *doc = cJSON_Parse(base);
    cr_assert_not_null(doc, "base document does not parse");
    for (int i = 0; i < n_edits && edits[i].path; ++i) apply_edit(doc, &edits[i]);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    cr_assert_not_null(text);
    return text;
}

static sp_status parse_text(const char *text, sp_problem *pb, sp_input_error *err)
{
    return sp_problem_parse(text, strlen(text), pb, err);
}

/* Parses a document that must be valid; the caller frees pb. */
static void parse_valid(const char *text, sp_problem *pb)
{
    sp_input_error err;
    sp_status st = parse_text(text, pb, &err);
    cr_assert_eq(st, SP_OK, "valid document refused: %s: %s\n%.300s", err.path, err.message, text);
}

/* ---------------------------------------------------------------- valid files -- */

static int is_json_file(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Every example shipped in data/ must be runnable as is, so it must at least read. */
Test(problem_file, every_data_file_reads)
{
    DIR *dir = opendir(SP_TEST_DATA);
    cr_assert_not_null(dir, "cannot open %s", SP_TEST_DATA);
    int files = 0;
    const struct dirent *de;
    while ((de = readdir(dir))) {
        if (!is_json_file(de->d_name)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, de->d_name);
        sp_problem pb;
        sp_input_error err;
        sp_status st = sp_problem_read_file(path, &pb, &err);
        cr_expect_eq(st, SP_OK, "%s: %s: %s", de->d_name, err.path, err.message);
        if (st == SP_OK) sp_problem_free(&pb);
        ++files;
    }
    closedir(dir);
    cr_expect_geq(files, 3, "expected at least the three example files, found %d", files);
}

static void read_data(const char *name, sp_problem *pb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", SP_TEST_DATA, name);
    sp_input_error err;
    sp_status st = sp_problem_read_file(path, pb, &err);
    cr_assert_eq(st, SP_OK, "%s: %s: %s", name, err.path, err.message);
}

Test(problem_file, sphere_interpolation_says_what_it_says)
{
    sp_problem pb;
    read_data("sphere_interpolation.json", &pb);
    cr_expect_eq(pb.task, SP_TASK_PLAN);
    cr_expect_str_eq(pb.model, "cubic_spline");
    cr_expect_eq(pb.cubic.space, SP_SPACE_SPHERE);
    cr_expect_eq(pb.steps, 100);
    cr_expect_eq(pb.T, 1.0);
    cr_expect_eq(pb.cubic.sigma, 0.1);
    cr_expect_eq(pb.xi0[2], 1.0);
    cr_expect_eq(pb.cubic.y0[0], 1.0);
    cr_assert_eq(pb.cubic.n_targets, 4);
    for (size_t i = 0; i < 4; ++i) {
        cr_expect_eq(pb.cubic.targets[i].t, 0.25 * (double)(i + 1));
        cr_expect_float_eq(sp_vec_norm(3, pb.cubic.targets[i].y), 1.0, 1e-15);
    }
    cr_expect_float_eq(pb.cubic.targets[1].y[0], 0.6933752452815364, 1e-15);
    /* no optimiser named: the default method and its settings */
    cr_expect_eq(pb.plan.method, SP_METHOD_MULTIPLE_SHOOTING);
    cr_expect_eq(pb.plan.tolerance, 1e-10);
    cr_expect_eq(pb.plan.xi0_free, 0);
    cr_expect_eq(pb.plan.has_xiT, 0);
    sp_problem_free(&pb);
}

/* Sphere plans minimise the rotation's cost unless the file asks for the round metric;
 * the round one takes exact or weighted keyframes, free or prescribed ends, a tail after
 * the last keyframe and a step count. */
Test(problem_file, sphere_metric_defaults_to_rotation_and_reads_round)
{
    sp_problem pb;
    read_data("sphere_interpolation.json", &pb);
    cr_expect_eq(pb.cubic.metric, SP_SPHERE_ROTATION);
    sp_problem_free(&pb);
    parse_valid(PLAN_ROUND, &pb);
    cr_expect_eq(pb.cubic.metric, SP_SPHERE_ROUND);
    cr_expect_eq(pb.steps, 0);
    cr_expect_eq(pb.plan.xi0_free, 1);
    sp_problem_free(&pb);
    static const edit rest[] = {{"xi0", "[0, 0, 0]"}, {"xiT", "[0, 0, 0]"}};
    char *text = edited(PLAN_ROUND, rest, 2);
    parse_valid(text, &pb);
    cr_expect_eq(pb.cubic.metric, SP_SPHERE_ROUND);
    cr_expect_eq(pb.plan.has_xiT, 1);
    sp_problem_free(&pb);
    cJSON_free(text);
    /* weighted keyframes, a tail after the last one and a step count */
    static const edit more[] = {{"sigma", "0.1"}, {"T", "2"}, {"steps", "40"}};
    text = edited(PLAN_ROUND, more, 3);
    parse_valid(text, &pb);
    cr_expect_eq(pb.cubic.metric, SP_SPHERE_ROUND);
    cr_expect_eq(pb.steps, 40);
    cr_expect_eq(pb.cubic.sigma, 0.1);
    sp_problem_free(&pb);
    cJSON_free(text);
    static const edit named[] = {{"metric", "\"rotation\""}};
    text = edited(PLAN_SPHERE, named, 1);
    parse_valid(text, &pb);
    cr_expect_eq(pb.cubic.metric, SP_SPHERE_ROTATION);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* The rotation targets must be genuine rotations as written, to round-off, not only
 * after the reader has rounded them onto SO(3). */
Test(problem_file, so3_orientations_are_written_as_rotations)
{
    FILE *f = fopen(SP_TEST_DATA "/so3_orientations.json", "rb");
    cr_assert_not_null(f);
    char text[16384];
    size_t length = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    cr_assert_lt(length, sizeof text - 1);
    text[length] = '\0';
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc);
    int count = 0;
    const cJSON *target;
    cJSON_ArrayForEach(target, cJSON_GetObjectItem(doc, "targets"))
    {
        double R[9], Rt[9], RtR[9], I[9];
        sp_mat_identity(3, I);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                R[3 * r + c] =
                    cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(target, "R"), r), c)->valuedouble;
        sp_mat_transpose(3, R, Rt);
        sp_mat_mul(3, 3, 3, Rt, R, RtR);
        cr_expect_lt(sp_mat_dist(9, RtR, I), 2e-15, "targets[%d].R is not orthogonal to round-off", count);
        ++count;
    }
    cr_expect_geq(count, 3);
    cJSON_Delete(doc);
}

/* The slew: a plan on the group from the identity through distinct attitudes at
 * increasing times, ending at T. */
Test(problem_file, so3_orientations_is_a_slew)
{
    sp_problem pb;
    read_data("so3_orientations.json", &pb);
    cr_expect_eq(pb.task, SP_TASK_PLAN);
    cr_expect_eq(pb.cubic.space, SP_SPACE_GROUP);
    cr_expect_str_eq(pb.scheme->name, "hohp_sv");
    cr_expect_str_eq(pb.retraction->name, "cayley");
    cr_expect_str_eq(pb.optimizer.algorithm, "LD_LBFGS");
    cr_expect_eq(pb.T, 1.0);
    cr_expect_eq(pb.steps, 100);
    cr_expect_eq(pb.cubic.sigma, 0.1);
    double I[9];
    sp_mat_identity(3, I);
    cr_expect_lt(sp_mat_dist(9, pb.g0, I), 1e-15, "g0 must be the identity");
    cr_assert(pb.cubic.n_targets >= 3 && pb.cubic.n_targets <= 4);
    double previous = 0.0;
    for (size_t i = 0; i < pb.cubic.n_targets; ++i) {
        const double *R = pb.cubic.targets[i].R;
        double Rt[9], RtR[9];
        sp_mat_transpose(3, R, Rt);
        sp_mat_mul(3, 3, 3, Rt, R, RtR);
        cr_expect_lt(sp_mat_dist(9, RtR, I), 1e-14, "targets[%zu].R is not orthogonal", i);
        cr_expect_gt(pb.cubic.targets[i].t, previous);
        const double *before = i ? pb.cubic.targets[i - 1].R : pb.g0;
        cr_expect_gt(sp_mat_dist(9, R, before), 0.1, "targets[%zu].R must differ from the attitude before", i);
        previous = pb.cubic.targets[i].t;
    }
    cr_expect_eq(previous, pb.T, "the last attitude is the end of the slew");
    sp_problem_free(&pb);
}

Test(problem_file, sphere_simulate_is_the_reference_ivp)
{
    sp_problem pb;
    read_data("sphere_simulate.json", &pb);
    cr_expect_eq(pb.task, SP_TASK_SIMULATE);
    cr_expect_eq(pb.T, 2.0);
    cr_expect_eq(pb.steps, 200);
    static const double xi0[3] = {1, -0.5, 0.8}, p0[3] = {0.3, 0.6, -0.4}, nu0[3] = {0.5, -0.4, 0.3};
    for (int j = 0; j < 3; ++j) {
        cr_expect_eq(pb.xi0[j], xi0[j]);
        cr_expect_eq(pb.p0[j], p0[j]);
        cr_expect_eq(pb.nu0[j], nu0[j]);
    }
    cr_expect_eq(pb.cubic.n_targets, 0);
    sp_problem_free(&pb);
}

/* The vakonomic examples say what their descriptions say. */
Test(problem_file, heisenberg_is_the_described_example)
{
    sp_problem pb;
    read_data("heisenberg.json", &pb);
    cr_expect_eq(pb.task, SP_TASK_SIMULATE);
    cr_expect_eq(pb.kind, SP_KIND_VAKONOMIC);
    cr_expect_str_eq(pb.model, "heisenberg");
    cr_expect_eq(pb.vak.type, &sp_vak_heisenberg);
    static const double p0[3] = {0.1, 0.3, 1};
    for (int i = 0; i < 3; ++i) {
        cr_expect_eq(pb.vak.q0[i], 0.0);
        cr_expect_eq(pb.vak.p0[i], p0[i]);
    }
    cr_expect_eq(pb.vak.stages, 2);
    cr_expect_eq(pb.steps, 100);
    cr_expect_float_eq(pb.T, 10.0, 1e-14, "T = h * steps");
    cr_expect_eq(pb.vak.symplecticity_defect, 1);
    cr_expect_eq(pb.vak.params.potential, 0);
    sp_problem_free(&pb);
}

static void expect_parking(const sp_problem *pb, const double *q0, const double *p0, int stages, const char *potential)
{
    cr_expect_eq(pb->kind, SP_KIND_VAKONOMIC);
    cr_expect_eq(pb->vak.type, &sp_vak_parking);
    cr_expect_eq(pb->vak.params.value[0], 0.3, "L");
    cr_expect_eq(pb->vak.params.value[1], 1.0, "alpha");
    cr_expect_eq(pb->vak.params.value[2], 1.0, "beta");
    cr_expect_str_eq(sp_vak_parking.potential_names[pb->vak.params.potential], potential);
    cr_expect_eq(pb->vak.stages, stages);
    for (int i = 0; i < 4; ++i) {
        cr_expect_eq(pb->vak.q0[i], q0[i], "q0[%d]", i);
        if (p0) cr_expect_float_eq(pb->vak.p0[i], p0[i], 1e-15, "p0[%d]", i);
    }
}

Test(problem_file, parking_examples_are_the_described_examples)
{
    sp_problem pb;
    /* the relative equilibrium: p = (0, 0, a(α + L²), aβ) with a = 1 */
    read_data("parking_circle.json", &pb);
    expect_parking(&pb, (const double[]){0.3, 0, 0, SP_PI / 2}, (const double[]){0, 0, 1.09, 1}, 3, "none");
    sp_problem_free(&pb);
    read_data("parking_fig3.json", &pb);
    expect_parking(&pb, (const double[]){0.3, 0, 0, SP_PI}, (const double[]){0, 0, 1.09, 1}, 2, "none");
    cr_expect_eq(pb.vak.symplecticity_defect, 1);
    sp_problem_free(&pb);
    read_data("parking_fig3_bowl.json", &pb);
    expect_parking(&pb, (const double[]){0.3, 0, 0, SP_PI}, (const double[]){0, 0, 1.09, 1}, 3, "cos_bowl");
    cr_expect_eq(pb.steps, 1000);
    sp_problem_free(&pb);
    /* straight line at speed 1.3 and heading 0.7 from v0 and λ0 = 0: p0 = M v0 */
    read_data("parking_straight.json", &pb);
    expect_parking(&pb, (const double[]){0.1, -0.2, 0.7, 0.7}, (const double[]){1.3 * cos(0.7), 1.3 * sin(0.7), 0, 0},
                   2, "none");
    sp_problem_free(&pb);
}

Test(problem_file, parallel_parking_is_a_cold_plan)
{
    sp_problem pb;
    read_data("parallel_parking.json", &pb);
    cr_expect_eq(pb.task, SP_TASK_PLAN);
    expect_parking(&pb, (const double[]){0, 0, 0, 0}, NULL, 2, "none");
    static const double q1[4] = {0, 0.5, 0, 0};
    for (int i = 0; i < 4; ++i) cr_expect_eq(pb.vak.q1[i], q1[i]);
    cr_expect_eq(pb.T, 1.0);
    cr_expect_eq(pb.steps, 50);
    cr_expect_eq(pb.vak.tolerance, 1e-10);
    cr_expect_eq(pb.vak.starts, 32);
    cr_expect_eq(pb.has_initial_momenta, 0);
    cr_expect_str_eq(pb.optimizer.algorithm, "LD_LBFGS");
    sp_problem_free(&pb);
}

/* ------------------------------------------------------------------ defaults -- */

Test(problem_file, plan_defaults_apply)
{
    static const edit drop[] = {
        {"group", NULL}, {"space", NULL}, {"scheme", NULL}, {"retraction", NULL}, {"optimizer", NULL}};
    char *text = edited(PLAN_SPHERE, drop, 5);
    cr_assert_null(strstr(text, "scheme"), "the edit must really remove the fields");
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_str_eq(pb.scheme->name, "hohp_sv");
    cr_expect_str_eq(pb.retraction->name, "cayley");
    cr_expect_eq(pb.solver, SP_HOHP_NEWTON);
    cr_expect_str_eq(pb.optimizer.algorithm, "LD_LBFGS");
    cr_expect_str_eq(pb.optimizer.local_algorithm, "LD_LBFGS");
    cr_expect_gt(pb.optimizer.xtol_rel, 0.0, "some stopping criterion must be set by default");
    cr_expect_geq(pb.optimizer.maxeval, 1);
    cr_expect_str_eq(pb.cubic.group->name, "SO3");
    cr_expect_eq(pb.cubic.space, SP_SPACE_SPHERE);
    cr_expect_eq(pb.has_initial_momenta, 0);
    double I[9];
    sp_mat_identity(3, I);
    cr_expect_eq(sp_mat_dist(9, pb.g0, I), 0.0, "g0 defaults to the identity");
    sp_problem_free(&pb);
    cJSON_free(text);
}

Test(problem_file, simulate_defaults_apply_and_h_gives_T)
{
    static const edit with_h[] = {{"T", NULL}, {"h", "0.01"}};
    char *text = edited(SIMULATE, with_h, 2);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_str_eq(pb.scheme->name, "hohp_sv");
    cr_expect_str_eq(pb.retraction->name, "cayley");
    cr_expect_eq(pb.solver, SP_HOHP_NEWTON);
    cr_expect_float_eq(pb.T, 2.0, 1e-15, "T = h * steps");
    sp_problem_free(&pb);
    cJSON_free(text);
}

Test(problem_file, explicit_settings_override_defaults)
{
    static const edit set[] = {{"scheme", "\"hohp_euler\""},
                               {"retraction", "\"exp\""},
                               {"solver", "\"fixed_point\""},
                               {"optimizer", "{\"algorithm\": \"LN_BOBYQA\", \"maxeval\": 7, \"ftol_abs\": 0}"},
                               {"initial_momenta", "[1, 2, 3, 4, 5, 6]"},
                               {"method", "\"single_shooting\""}};
    char *text = edited(PLAN_SPHERE, set, 6);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_str_eq(pb.scheme->name, "hohp_euler");
    cr_expect_str_eq(pb.retraction->name, "exp");
    cr_expect_eq(pb.solver, SP_HOHP_FIXED_POINT);
    cr_expect_str_eq(pb.optimizer.algorithm, "LN_BOBYQA");
    cr_expect_eq(pb.optimizer.maxeval, 7);
    cr_expect_eq(pb.has_initial_momenta, 1);
    for (int j = 0; j < 6; ++j) cr_expect_eq(pb.initial_momenta[j], j + 1.0);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* Directions need not be unit vectors in the file; the reader normalises them. */
Test(problem_file, directions_are_normalised)
{
    static const edit set[] = {{"y0", "[0, 0, 2]"}, {"targets", "[{\"t\": 1, \"y\": [3, 4, 0]}]"}};
    char *text = edited(PLAN_SPHERE, set, 2);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_eq(pb.cubic.y0[2], 1.0);
    cr_expect_float_eq(pb.cubic.targets[0].y[0], 0.6, 1e-16);
    cr_expect_float_eq(pb.cubic.targets[0].y[1], 0.8, 1e-16);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* |RᵀR − I| of a 3 x 3 matrix. */
static double orthogonality_defect(const double *R)
{
    double Rt[9], RtR[9], I[9];
    sp_mat_identity(3, I);
    sp_mat_transpose(3, R, Rt);
    sp_mat_mul(3, 3, 3, Rt, R, RtR);
    return sp_mat_dist(9, RtR, I);
}

/* A rotation typed with 9 digits is accepted and rounded onto SO(3), without moving
 * it by more than its typing error. */
Test(problem_file, typed_rotations_are_rounded_onto_so3)
{
    static const edit set[] = {
        {"targets", "[{\"t\": 1, \"R\": [[0.707106781, -0.707106781, 0], [0.707106781, 0.707106781, 0], [0, 0, 1]]}]"}};
    char *text = edited(PLAN_GROUP, set, 1);
    sp_problem pb;
    parse_valid(text, &pb);
    const double *R = pb.cubic.targets[0].R;
    cr_expect_lt(orthogonality_defect(R), 1e-15);
    cr_expect_float_eq(R[0], 0.707106781, 1e-9);
    cr_expect_float_eq(R[3], 0.707106781, 1e-9);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* A rotation printed with 6 and with 5 significant digits (what a spreadsheet or %g gives)
 * is taken and rounded onto SO(3); a shear of 1e-3 is not a rotation. */
Test(problem_file, rotations_printed_with_few_digits_are_taken)
{
    static const char *const typed[] = {
        "[{\"t\": 1, \"R\": [[0.936293, -0.289629, 0.198669], [0.312992, 0.944702, -0.0978434], "
        "[-0.159345, 0.153792, 0.97517]]}]",
        "[{\"t\": 1, \"R\": [[0.93629, -0.28963, 0.19867], [0.31299, 0.9447, -0.097843], "
        "[-0.15934, 0.15379, 0.97517]]}]"};
    for (int k = 0; k < 2; ++k) {
        const edit set[] = {{"targets", typed[k]}};
        char *text = edited(PLAN_GROUP, set, 1);
        sp_problem pb;
        parse_valid(text, &pb);
        const double *R = pb.cubic.targets[0].R;
        cr_expect_lt(orthogonality_defect(R), 1e-14, "%d digits", 6 - k);
        cr_expect_float_eq(R[0], 0.93629, 2e-5);
        sp_problem_free(&pb);
        cJSON_free(text);
    }
    static const edit sheared[] = {{"targets", "[{\"t\": 1, \"R\": [[1, 0.001, 0], [0, 1, 0], [0, 0, 1]]}]"}};
    char *text = edited(PLAN_GROUP, sheared, 1);
    sp_problem pb;
    sp_input_error e;
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_ERR_INVALID);
    cr_expect(strstr(e.message, "must be a rotation matrix") != NULL, "%s", e.message);
    cJSON_free(text);
}

/* A quaternion whose norm is more than 1e-2 from 1 is refused (a typo, or another
 * convention; two typed decimals stay within it) unless the file says "normalize": true; a matrix that is no rotation to 1e-4
 * is refused unless "orthonormalize": true, which takes its polar factor (the nearest
 * rotation) when its determinant is positive; both messages name the field that lets it
 * through, and a reflection stays refused. */
Test(problem_file, normalize_and_orthonormalize_are_asked_for)
{
    static const edit far_q[] = {{"targets", "[{\"t\": 1, \"q\": [2, 0, 0, 0]}]"}};
    char *text = edited(PLAN_GROUP, far_q, 1);
    sp_problem pb;
    sp_input_error e;
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_ERR_INVALID);
    cr_expect_str_eq(e.path, "targets[0].q");
    cr_expect(strstr(e.message, "its norm is 2, more than 0.01 from 1") && strstr(e.message, "\"normalize\": true"),
              "%s", e.message);
    cJSON_free(text);
    static const edit near_q[] = {{"targets", "[{\"t\": 1, \"q\": [0.26, 0, 0, 0.97]}]"}};
    text = edited(PLAN_GROUP, near_q, 1);
    parse_valid(text, &pb); /* two decimals, norm 1.004: normalised */
    sp_problem_free(&pb);
    cJSON_free(text);
    static const edit normalized[] = {{"targets", "[{\"t\": 1, \"q\": [0, 0, 0, 3]}]"}, {"normalize", "true"}};
    text = edited(PLAN_GROUP, normalized, 2);
    parse_valid(text, &pb);
    cr_expect_float_eq(pb.cubic.targets[0].R[0], -1.0, 1e-15, "q = [0, 0, 0, 3] is the half turn about z");
    cr_expect_float_eq(pb.cubic.targets[0].R[8], 1.0, 1e-15);
    sp_problem_free(&pb);
    cJSON_free(text);
    /* a matrix off by a percent: refused, then taken as the nearest rotation */
    static const edit skewed[] = {{"targets", "[{\"t\": 1, \"R\": [[1, 0, 0], [0, 0.99, -0.1], [0, 0.1, 1]]}]"}};
    text = edited(PLAN_GROUP, skewed, 1);
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_ERR_INVALID);
    cr_expect(strstr(e.message, "\"orthonormalize\": true takes it as the nearest rotation") != NULL, "%s", e.message);
    cJSON_free(text);
    static const edit projected[] = {{"targets", "[{\"t\": 1, \"R\": [[1, 0, 0], [0, 0.99, -0.1], [0, 0.1, 1]]}]"},
                                     {"orthonormalize", "true"}};
    text = edited(PLAN_GROUP, projected, 2);
    parse_valid(text, &pb);
    const double *R = pb.cubic.targets[0].R;
    cr_expect_lt(orthogonality_defect(R), 1e-14);
    /* the polar factor of [[0.99, −0.1], [0.1, 1]] is the rotation by atan2(0.2, 1.99) */
    const double angle = atan2(0.2, 1.99);
    cr_expect_float_eq(R[4], cos(angle), 1e-14);
    cr_expect_float_eq(R[7], sin(angle), 1e-14);
    sp_problem_free(&pb);
    cJSON_free(text);
    static const edit reflected[] = {{"targets", "[{\"t\": 1, \"R\": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}]"},
                                     {"orthonormalize", "true"}};
    text = edited(PLAN_GROUP, reflected, 2);
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_ERR_INVALID, "a reflection passed");
    cJSON_free(text);
    static const edit on_sphere[] = {{"normalize", "true"}};
    text = edited(PLAN_SPHERE, on_sphere, 1);
    cr_expect_eq(sp_problem_parse(text, strlen(text), &pb, &e), SP_ERR_INVALID);
    cr_expect_str_eq(e.path, "normalize");
    cJSON_free(text);
}

/* "quaternion_order": "xyzw" reads every quaternion of the file, g0 and the targets' "q"
 * and "R", as [x, y, z, w]: the same rotations as the twin file in [w, x, y, z], and
 * other rotations than the same numbers read as [w, x, y, z]. */
Test(problem_file, quaternion_order_xyzw_reads_the_same_rotations)
{
    static const edit wxyz[] = {
        {"g0", "[0.8, 0.2, -0.4, 0.4]"},
        {"targets", "[{\"t\": 0.5, \"q\": [0.1, 0.7, 0.1, -0.7]}, {\"t\": 1, \"R\": [0, 0.6, 0, 0.8]}]"}};
    static const edit xyzw[] = {
        {"g0", "[0.2, -0.4, 0.4, 0.8]"},
        {"targets", "[{\"t\": 0.5, \"q\": [0.7, 0.1, -0.7, 0.1]}, {\"t\": 1, \"R\": [0.6, 0, 0.8, 0]}]"},
        {"quaternion_order", "\"xyzw\""}};
    char *a = edited(PLAN_GROUP, wxyz, 2), *b = edited(PLAN_GROUP, xyzw, 3), *c = edited(PLAN_GROUP, xyzw, 2);
    sp_problem pa, pb, pc;
    parse_valid(a, &pa);
    parse_valid(b, &pb);
    parse_valid(c, &pc);
    cr_expect_eq(pa.plan.quaternion_xyzw, 0);
    cr_expect_eq(pb.plan.quaternion_xyzw, 1);
    cr_expect_eq(memcmp(pa.g0, pb.g0, 9 * sizeof(double)), 0, "g0 differs");
    for (int i = 0; i < 2; ++i)
        cr_expect_eq(memcmp(pa.cubic.targets[i].R, pb.cubic.targets[i].R, sizeof pa.cubic.targets[i].R), 0,
                     "targets[%d] differs", i);
    /* the rotation by the angle 2 acos(0.1) about (0.7, 0.1, −0.7)/|…|: R = (w² − |v|²) I + 2 v vᵀ + 2 w v̂ */
    const double w = 0.1, v[3] = {0.7, 0.1, -0.7}, *R = pb.cubic.targets[0].R;
    const double hat[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0};
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) {
            const double expect = (r == k) * (w * w - 0.99) + 2 * v[r] * v[k] + 2 * w * hat[3 * r + k];
            cr_expect_leq(fabs(R[3 * r + k] - expect), 1e-15, "R[%d][%d] = %.17g, expected %.17g", r, k,
                          R[3 * r + k], expect);
        }
    /* without the field the same numbers are [w, x, y, z]: another rotation */
    cr_expect_gt(sp_mat_dist(9, pc.cubic.targets[0].R, pb.cubic.targets[0].R), 0.5);
    sp_problem_free(&pa), sp_problem_free(&pb), sp_problem_free(&pc);
    cJSON_free(a), cJSON_free(b), cJSON_free(c);
}

/* Target times need not lie on the step grid, and the last one may come before T. */
Test(problem_file, off_grid_targets_before_T_are_valid)
{
    static const edit set[] = {{"targets", "[{\"t\": 0.3333, \"y\": [0, 1, 0]}, {\"t\": 0.9, \"y\": [0, 0, 1]}]"},
                               {"steps", "3"}};
    char *text = edited(PLAN_SPHERE, set, 2);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_eq(pb.cubic.n_targets, 2);
    cr_expect_eq(pb.cubic.targets[0].t, 0.3333);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* A vakonomic file needs only the model, q0 with p0, and the steps: scheme gauss with
 * 2 stages, the model's parameters, no potential, Newton to 1e-15, no defect. */
Test(problem_file, vakonomic_simulate_defaults_apply)
{
    static const edit drop[] = {{"params", NULL}, {"stages", NULL}, {"scheme", NULL}};
    char *text = edited(PARK_SIMULATE, drop, 3);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_eq(pb.kind, SP_KIND_VAKONOMIC);
    cr_expect_eq(pb.vak.stages, 2);
    cr_expect_eq(pb.vak.params.potential, 0);
    cr_expect_str_eq(sp_vak_parking.potential_names[pb.vak.params.potential], "none");
    for (size_t i = 0; i < sp_vak_parking.n_params; ++i)
        cr_expect_eq(pb.vak.params.value[i], sp_vak_parking.params[i].defaults[0], "%s", sp_vak_parking.params[i].name);
    cr_expect_eq(pb.vak.params.value[0], 0.3, "L defaults to 0.3");
    cr_expect_eq(pb.solver_tol, 1e-15);
    cr_expect_eq(pb.vak.symplecticity_defect, 0);
    cr_expect_eq(pb.T, 1.0);
    sp_problem_free(&pb);
    cJSON_free(text);

    /* parameters given in part keep the defaults of the others; h gives T */
    static const edit part[] = {{"params", "{\"alpha\": 2}"}, {"symplecticity_defect", "false"}};
    text = edited(PARK_V0, part, 2);
    parse_valid(text, &pb);
    cr_expect_eq(pb.vak.params.value[0], 0.3);
    cr_expect_eq(pb.vak.params.value[1], 2.0);
    cr_expect_eq(pb.vak.params.value[2], 1.0);
    cr_expect_float_eq(pb.T, 1.0, 1e-15, "T = h * steps");
    sp_problem_free(&pb);
    cJSON_free(text);
}

Test(problem_file, vakonomic_plan_defaults_apply)
{
    static const edit drop[] = {{"params", NULL}, {"tolerance", NULL}, {"starts", NULL}, {"optimizer", NULL}};
    char *text = edited(PARK_PLAN, drop, 4);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_eq(pb.task, SP_TASK_PLAN);
    cr_expect_eq(pb.vak.stages, 2);
    cr_expect_eq(pb.vak.params.potential, 0);
    cr_expect_eq(pb.vak.tolerance, 1e-10);
    cr_expect_eq(pb.vak.starts, 32);
    cr_expect_eq(pb.has_initial_momenta, 0);
    cr_expect_str_eq(pb.optimizer.algorithm, "LD_LBFGS");
    cr_expect_geq(pb.optimizer.maxeval, 1);
    sp_problem_free(&pb);
    cJSON_free(text);
}

Test(problem_file, vakonomic_explicit_settings_override_defaults)
{
    static const edit set[] = {{"params", "{\"L\": 0.5, \"alpha\": 2, \"beta\": 0.25, \"potential\": \"cos_bowl\"}"},
                               {"stages", "6"},
                               {"tolerance", "1e-12"},
                               {"starts", "3"},
                               {"initial_momenta", "[1, -2, 3, -4]"},
                               {"optimizer", "{\"algorithm\": \"LN_BOBYQA\", \"maxeval\": 77}"},
                               {"solver_tol", "1e-13"}};
    const int n_set = (int)(sizeof set / sizeof set[0]);
    char *text = edited(PARK_PLAN, set, n_set);
    sp_problem pb;
    parse_valid(text, &pb);
    cr_expect_eq(pb.vak.params.value[0], 0.5);
    cr_expect_eq(pb.vak.params.value[1], 2.0);
    cr_expect_eq(pb.vak.params.value[2], 0.25);
    cr_expect_str_eq(sp_vak_parking.potential_names[pb.vak.params.potential], "cos_bowl");
    cr_expect_eq(pb.vak.stages, 6);
    cr_expect_eq(pb.vak.tolerance, 1e-12);
    cr_expect_eq(pb.vak.starts, 3);
    cr_expect_eq(pb.has_initial_momenta, 1);
    for (int j = 0; j < 4; ++j) cr_expect_eq(pb.initial_momenta[j], (j % 2 ? -1.0 : 1.0) * (j + 1));
    cr_expect_str_eq(pb.optimizer.algorithm, "LN_BOBYQA");
    cr_expect_eq(pb.optimizer.maxeval, 77);
    cr_expect_eq(pb.solver_tol, 1e-13);
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* p0 = M v0 − G(q0)ᵀ λ0 (the momentum convention of sp_vakonomic.h), with α, β ≠ 1 and a
 * multiplier that is not zero. At heading θ = φ = 0.7, G has rows
 * g1 = (sin φ, −cos φ, 0, 0) and g2 = (sin θ, −cos θ, L, 0); v0 drives along the
 * heading and turns the steering (any φ' is allowed). */
Test(problem_file, vakonomic_velocity_and_multiplier_give_the_momentum)
{
    static const edit set[] = {{"params", "{\"L\": 0.4, \"alpha\": 2, \"beta\": 0.5}"},
                               {"v0", "[0.7648421872844885, 0.644217687237691, 0, 3]"},
                               {"lambda0", "[0.5, -1.25]"}};
    char *text = edited(PARK_V0, set, 3);
    sp_problem pb;
    parse_valid(text, &pb);
    const double v0[4] = {0.7648421872844885, 0.644217687237691, 0, 3}, lam[2] = {0.5, -1.25};
    const double M[4] = {1, 1, 2, 0.5}, s = sin(0.7), c = cos(0.7);
    const double G[2][4] = {{s, -c, 0, 0}, {s, -c, 0.4, 0}};
    for (int i = 0; i < 4; ++i) {
        double expected = M[i] * v0[i] - G[0][i] * lam[0] - G[1][i] * lam[1];
        cr_expect_float_eq(pb.vak.p0[i], expected, 1e-15, "p0[%d] = %.17g, expected %.17g", i, pb.vak.p0[i], expected);
    }
    sp_problem_free(&pb);
    cJSON_free(text);
}

/* The holonomic data files and the defaults. */
Test(problem_file, holonomic_files_say_what_they_say)
{
    sp_problem pb;
    read_data("spherical_pendulum.json", &pb);
    cr_expect_eq(pb.kind, SP_KIND_HOLONOMIC);
    cr_expect_eq(pb.hol.type, &sp_hol_spherical_pendulum);
    cr_expect_str_eq(pb.hol.scheme->name, "rattle");
    cr_expect_eq(pb.steps, 100000);
    cr_expect_float_eq(pb.T, 100.0, 1e-12);
    cr_expect_eq(pb.record_every, 100);
    cr_expect(pb.hol.symplecticity_defect);
    const double q0[3] = {0, 1, 0}, p0[3] = {1, 0, 1};
    for (int i = 0; i < 3; ++i)
        cr_expect(pb.hol.q0[i] == q0[i] && pb.hol.p0[i] == p0[i], "the feedback paper's state, %d", i);
    cr_expect_not(pb.hol.projected);
    read_data("spherical_pendulum_feedback_euler.json", &pb);
    cr_expect_str_eq(pb.hol.scheme->name, "feedback_euler");
    cr_expect(pb.hol.gains.k1 == 50 && pb.hol.gains.k2 == 50 && pb.hol.gains.k3 == 50 && pb.hol.gains.k4 == 50);
    read_data("heavy_top_lie.json", &pb);
    cr_expect_str_eq(pb.hol.scheme->name, "lie_rattle");
    cr_expect_eq(pb.hol.retraction, sp_retraction_cayley);
    /* the matrix state (R0, R0 ω̂0 J_d): P = Q̇ J_d with J_d = (2.5, 1.5, 0.5) */
    cr_expect_float_eq(pb.hol.p0[0], -1.5308219178082192, 1e-15, "golden heavy-top P0[0]");
    cr_expect_float_eq(pb.hol.p0[8], -0.13356164383561644, 1e-15, "golden heavy-top P0[8]");
    for (int i = 0; i < 9; ++i) cr_expect_eq(pb.hol.q0[i], pb.hol.R0[i]);
    read_data("s3_contact_hopf.json", &pb);
    cr_expect_str_eq(pb.hol.type->potential_names[pb.hol.params.potential], "hopf_invariant");
    cr_expect_str_eq(pb.hol.scheme->name, "prop7");
    /* defaults: m = g = l = 1, scheme rattle (prop7 on S³), cayley, one row per step */
    parse_valid("{\"task\": \"simulate\", \"model\": \"planar_pendulum\", \"q0\": [1, 0], \"p0\": [0, 1], \"h\": 0.1,"
                " \"steps\": 3}",
                &pb);
    cr_expect_str_eq(pb.hol.scheme->name, "rattle");
    cr_expect(pb.hol.params.value[0] == 1 && pb.hol.params.value[1] == 1 && pb.hol.params.value[2] == 1);
    cr_expect_eq(pb.record_every, 1);
    cr_expect_float_eq(pb.solver_tol, 1e-15, 0);
    parse_valid("{\"task\": \"simulate\", \"model\": \"heavy_top\", \"scheme\": \"lie_rattle\","
                " \"R0\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], \"omega0\": [0, 0, 1], \"T\": 1, \"steps\": 3}",
                &pb);
    cr_expect_eq(pb.hol.retraction, sp_retraction_cayley);
    cr_expect(pb.hol.params.value[0] == 2 && pb.hol.params.value[3] == 1, "J = (2, 3, 4), mgl = 1 by default");
    /* a state within 1e-9 of T*Q is rounded onto it without a note */
    parse_valid("{\"task\": \"simulate\", \"model\": \"spherical_pendulum\", \"q0\": [0, 1.0000000001, 0],"
                " \"p0\": [1, 1e-10, 1], \"h\": 0.1, \"steps\": 3}",
                &pb);
    cr_expect_eq(pb.hol.q0[1], 1.0);
    cr_expect_eq(pb.hol.p0[1], 0.0);
    cr_expect_not(pb.hol.projected);
}

/* ------------------------------------------------------------ malformed input -- */

typedef struct bad_case {
    const char *name;
    const char *base;
    edit edits[2];       /* none: the base is the whole document */
    const char *path;    /* expected err.path, exactly */
    const char *message; /* expected in err.message */
} bad_case;

static const bad_case bad_cases[] = {
    /* not JSON, or not one JSON object */
    {"truncated", "{\"task\": \"plan\", \"model\": ", {{0}}, "", "malformed JSON at line 1"},
    {"empty", "", {{0}}, "", "malformed JSON"},
    {"nan_literal", PLAN_SPHERE, {{"sigma", "NaN"}}, "", "malformed JSON"},
    {"trailing_garbage", PLAN_SPHERE " x", {{0}}, "", "content after the document"},
    {"two_documents", SIMULATE "\n" SIMULATE, {{0}}, "", "malformed JSON at line 2"},
    {"not_an_object", "[1, 2, 3]", {{0}}, "", "must be an object"},
    {"duplicate_key", PLAN_SPHERE, {{"T", "1, \"T\": 2"}}, "T", "duplicate field"},
    /* wrong types */
    {"task_not_string", PLAN_SPHERE, {{"task", "1"}}, "task", "must be a string"},
    {"steps_string", PLAN_SPHERE, {{"steps", "\"100\""}}, "steps", "must be a number"},
    {"T_bool", PLAN_SPHERE, {{"T", "true"}}, "T", "must be a number"},
    {"y0_string", PLAN_SPHERE, {{"y0", "\"up\""}}, "y0", "must be an array of 3 numbers"},
    {"xi0_element_string", PLAN_SPHERE, {{"xi0", "[0, \"0\", 1]"}}, "xi0[1]", "must be a number"},
    {"targets_object", PLAN_SPHERE, {{"targets", "{}"}}, "targets", "must be a non-empty array"},
    {"targets_empty", PLAN_SPHERE, {{"targets", "[]"}}, "targets", "must be a non-empty array"},
    {"target_array",
     PLAN_SPHERE,
     {{"targets", "[{\"t\": 0.5, \"y\": [0, 1, 0]}, [1, 0, 1, 0]]"}},
     "targets[1]",
     "must be an object"},
    {"description_number", PLAN_SPHERE, {{"description", "5"}}, "description", "must be a string"},
    {"optimizer_string", PLAN_SPHERE, {{"optimizer", "\"LD_LBFGS\""}}, "optimizer", "must be an object"},
    {"maxeval_string", PLAN_SPHERE, {{"optimizer.maxeval", "\"500\""}}, "optimizer.maxeval", "must be a number"},
    {"algorithm_number", PLAN_SPHERE, {{"optimizer.algorithm", "11"}}, "optimizer.algorithm", "must be a string"},
    {"xtol_rel_array", PLAN_SPHERE, {{"optimizer.xtol_rel", "[1e-8]"}}, "optimizer.xtol_rel", "must be a number"},
    /* unknown names */
    {"unknown_task", PLAN_SPHERE, {{"task", "\"optimise\""}}, "task", "unknown task 'optimise'"},
    {"unknown_model", PLAN_SPHERE, {{"model", "\"double_pendulum\""}}, "model", "unknown model 'double_pendulum'"},
    {"unknown_scheme", PLAN_SPHERE, {{"scheme", "\"rk4\""}}, "scheme", "unknown scheme 'rk4'"},
    {"unknown_retraction", SIMULATE, {{"retraction", "\"log\""}}, "retraction", "unknown retraction 'log'"},
    {"unknown_group", PLAN_SPHERE, {{"group", "\"SE7\""}}, "group", "unknown group 'SE7'"},
    {"unknown_solver", SIMULATE, {{"solver", "\"gauss_seidel\""}}, "solver", "unknown solver"},
    {"unknown_space", PLAN_SPHERE, {{"space", "\"torus\""}}, "space", "unknown space 'torus'"},
    {"unknown_algorithm",
     PLAN_SPHERE,
     {{"optimizer.algorithm", "\"LD_BFGS\""}},
     "optimizer.algorithm",
     "unknown NLopt algorithm 'LD_BFGS'"},
    {"unknown_local_algorithm",
     PLAN_SPHERE,
     {{"optimizer.local_algorithm", "\"LN_SIMPLEX\""}},
     "optimizer.local_algorithm",
     "unknown NLopt algorithm"},
    {"algorithm_case",
     PLAN_SPHERE,
     {{"optimizer.algorithm", "\"ld_lbfgs\""}},
     "optimizer.algorithm",
     "unknown NLopt algorithm"},
    /* unknown fields, at every level */
    {"unknown_field", PLAN_SPHERE, {{"stpes", "100"}}, "stpes", "unknown field"},
    {"unknown_target_field", PLAN_SPHERE, {{"targets[1].weight", "2"}}, "targets[1].weight", "unknown field"},
    {"unknown_optimizer_field", PLAN_SPHERE, {{"optimizer.tolerance", "1e-8"}}, "optimizer.tolerance", "unknown field"},
    {"rotation_on_sphere_target",
     PLAN_SPHERE,
     {{"targets[0].R", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"}},
     "targets[0].R",
     "unknown field"},
    /* missing fields */
    {"missing_task", PLAN_SPHERE, {{"task", NULL}}, "task", "missing required field"},
    {"missing_model", SIMULATE, {{"model", NULL}}, "model", "missing required field"},
    {"missing_steps_direct",
     PLAN_SPHERE,
     {{"steps", NULL}, {"method", "\"direct\""}},
     "steps",
     "needs a step count"},
    {"steps_and_accuracy", PLAN_SPHERE, {{"accuracy", "1e-8"}}, "accuracy", "give steps or accuracy, not both"},
    {"accuracy_below_roundoff", PLAN_SPHERE, {{"steps", NULL}, {"accuracy", "1e-15"}}, "accuracy",
     "must be at least 1e-13"},
    {"sample_time_outside", PLAN_SPHERE, {{"output", "{\"sample_times\": [0, 0.5, 1.5]}"}}, "output.sample_times[2]",
     "must be within [0, T=1]"},
    {"sample_time_negative", PLAN_SPHERE, {{"output", "{\"sample_times\": [-0.1]}"}}, "output.sample_times[0]",
     "must be within [0, T=1]"},
    {"sample_time_string", PLAN_SPHERE, {{"output", "{\"sample_times\": [0, \"0.5\"]}"}}, "output.sample_times[1]",
     "must be a finite number"},
    {"sample_times_object", PLAN_SPHERE, {{"output", "{\"sample_times\": {}}"}}, "output.sample_times",
     "must be an array"},
    {"sample_rate_negative", PLAN_SPHERE, {{"output", "{\"sample_rate\": -60}"}}, "output.sample_rate", "must be"},
    {"sample_rate_and_times", PLAN_SPHERE, {{"output", "{\"sample_rate\": 60, \"sample_times\": [0]}"}},
     "output.sample_rate", "not both"},
    {"sample_rate_huge", PLAN_SPHERE, {{"output", "{\"sample_rate\": 1e300}"}}, "output.sample_rate", "at most"},
    {"rkmk8_simulate", SIMULATE, {{"scheme", "\"hohp_rkmk8\""}}, "scheme", "integrates plans"},
    {"missing_xi0", PLAN_GROUP, {{"xi0", NULL}}, "xi0", "missing required field"},
    {"missing_T", PLAN_SPHERE, {{"T", NULL}}, "T", "missing required field"},
    {"missing_sigma", PLAN_SPHERE, {{"sigma", NULL}}, "sigma", "missing required field"},
    {"missing_y0", PLAN_SPHERE, {{"y0", NULL}}, "y0", "missing required field"},
    {"missing_targets", PLAN_GROUP, {{"targets", NULL}}, "targets", "missing required field"},
    {"missing_target_time", PLAN_SPHERE, {{"targets[1].t", NULL}}, "targets[1].t", "missing required field"},
    {"missing_target_point", PLAN_SPHERE, {{"targets[2].y", NULL}}, "targets[2].y", "missing required field"},
    {"missing_target_rotation", PLAN_GROUP, {{"targets[0].R", NULL}}, "targets[0].R", "missing required field"},
    {"missing_nu0", SIMULATE, {{"nu0", NULL}}, "nu0", "missing required field"},
    {"missing_p0", SIMULATE, {{"p0", NULL}}, "p0", "missing required field"},
    {"missing_T_and_h", SIMULATE, {{"T", NULL}}, "T", "give the horizon T or the step h"},
    /* NaN can only come as bad JSON (above); numbers too large for a double overflow */
    {"sigma_overflow", PLAN_SPHERE, {{"sigma", "1e999"}}, "sigma", "must be a finite number"},
    {"T_negative_overflow", PLAN_SPHERE, {{"T", "-1e999"}}, "T", "must be a finite number"},
    {"steps_overflow", PLAN_SPHERE, {{"steps", "1e999"}}, "steps", "must be a finite number"},
    {"xi0_overflow", SIMULATE, {{"xi0", "[1, 1e999, 0]"}}, "xi0[1]", "must be a finite number"},
    {"target_y_overflow",
     PLAN_SPHERE,
     {{"targets[2].y", "[0, 1e400, 1]"}},
     "targets[2].y[1]",
     "must be a finite number"},
    {"target_R_overflow",
     PLAN_GROUP,
     {{"targets[1].R", "[[1, 0, 0], [0, 1, 0], [0, 0, 1e999]]"}},
     "targets[1].R[2][2]",
     "must be a finite number"},
    {"xtol_overflow", PLAN_SPHERE, {{"optimizer.xtol_rel", "1e999"}}, "optimizer.xtol_rel", "must be a finite number"},
    {"h_times_steps_overflow", SIMULATE, {{"T", NULL}, {"h", "1e307"}}, "h", "overflows"},
    /* non-positive sizes */
    {"steps_zero", PLAN_SPHERE, {{"steps", "0"}}, "steps", "must be between 1 and"},
    {"steps_negative", SIMULATE, {{"steps", "-5"}}, "steps", "must be between 1 and"},
    {"steps_too_many", SIMULATE, {{"steps", "1e12"}}, "steps", "must be between 1 and"},
    {"T_zero", PLAN_SPHERE, {{"T", "0"}}, "T", "must be positive"},
    {"T_negative", SIMULATE, {{"T", "-2"}}, "T", "must be positive"},
    {"h_zero", SIMULATE, {{"T", NULL}, {"h", "0"}}, "h", "must be positive"},
    {"sigma_zero", PLAN_SPHERE, {{"sigma", "0"}}, "sigma", "needs the method multiple_shooting"},
    {"sigma_negative", PLAN_GROUP, {{"sigma", "-0.1"}}, "sigma", "must not be negative"},
    {"solver_tol_zero", SIMULATE, {{"solver_tol", "0"}}, "solver_tol", "must be positive"},
    {"solver_tol_large", SIMULATE, {{"solver_tol", "0.5"}}, "solver_tol", "must be below"},
    {"maxeval_zero", PLAN_SPHERE, {{"optimizer.maxeval", "0"}}, "optimizer.maxeval", "must be between 1 and"},
    {"maxtime_negative", PLAN_SPHERE, {{"optimizer.maxtime", "-1"}}, "optimizer.maxtime", "must be positive"},
    {"xtol_rel_negative", PLAN_SPHERE, {{"optimizer.xtol_rel", "-1e-8"}}, "optimizer.xtol_rel", "must not be negative"},
    {"ftol_abs_negative", PLAN_SPHERE, {{"optimizer.ftol_abs", "-1"}}, "optimizer.ftol_abs", "must not be negative"},
    /* non-integer counts */
    {"steps_fractional", PLAN_SPHERE, {{"steps", "100.5"}}, "steps", "must be an integer"},
    {"maxeval_fractional", PLAN_SPHERE, {{"optimizer.maxeval", "10.5"}}, "optimizer.maxeval", "must be an integer"},
    /* target times: within (0, T] and increasing */
    {"target_after_T", PLAN_SPHERE, {{"targets[2].t", "1.5"}}, "targets[2].t", "must be within (0, T=1]"},
    {"target_at_zero",
     PLAN_SPHERE,
     {{"targets[0].t", "0"}},
     "targets[0].t",
     "must be after 0: the curve starts at t = 0 from g0"},
    {"target_negative_time", PLAN_GROUP, {{"targets[0].t", "-0.5"}}, "targets[0].t", "must be within (0, T=1]"},
    {"target_time_repeated",
     PLAN_SPHERE,
     {{"targets[1].t", "0.25"}},
     "targets[1].t",
     "must be later than targets[0].t"},
    {"target_time_decreasing",
     PLAN_SPHERE,
     {{"targets[2].t", "0.4"}},
     "targets[2].t",
     "must be later than targets[1].t"},
    {"target_time_string", PLAN_SPHERE, {{"targets[0].t", "\"0.25\""}}, "targets[0].t", "must be a number"},
    /* vector and matrix shapes */
    {"y0_short", PLAN_SPHERE, {{"y0", "[1, 0]"}}, "y0", "must be an array of 3 numbers"},
    {"xi0_long", PLAN_SPHERE, {{"xi0", "[0, 0, 1, 0]"}}, "xi0", "must be an array of 3 numbers"},
    {"target_y_long", PLAN_SPHERE, {{"targets[0].y", "[1, 1, 0, 0]"}}, "targets[0].y", "must be an array of 3 numbers"},
    {"initial_momenta_short",
     PLAN_SPHERE,
     {{"initial_momenta", "[0, 0, 0, 0, 0]"}, {"method", "\"single_shooting\""}},
     "initial_momenta",
     "must be an array of 6 numbers"},
    {"p0_short", SIMULATE, {{"p0", "[0.3, 0.6]"}}, "p0", "must be an array of 3 numbers"},
    {"xi0_wrong_for_group", SIMULATE, {{"group", "\"R2\""}, {"g0", NULL}}, "xi0", "must be an array of 2 numbers"},
    {"R_two_rows", PLAN_GROUP, {{"targets[0].R", "[[1, 0, 0], [0, 1, 0]]"}}, "targets[0].R", "must be a 3 x 3 matrix"},
    {"R_long_row",
     PLAN_GROUP,
     {{"targets[1].R", "[[1, 0, 0], [0, 0, -1], [0, 1, 0, 0]]"}},
     "targets[1].R[2]",
     "must be a row of 3 numbers"},
    {"g0_flat", PLAN_GROUP, {{"g0", "[1, 0, 0, 0, 1, 0, 0, 0, 1]"}}, "g0", "must be a 3 x 3 matrix"},
    /* a zero vector where a direction is needed */
    {"y0_zero", PLAN_SPHERE, {{"y0", "[0, 0, 0]"}}, "y0", "must be a non-zero direction"},
    {"target_y_zero", PLAN_SPHERE, {{"targets[1].y", "[0, 0, 0]"}}, "targets[1].y", "must be a non-zero direction"},
    {"target_y_denormal",
     PLAN_SPHERE,
     {{"targets[0].y", "[1e-300, 0, 0]"}},
     "targets[0].y",
     "must be a non-zero direction"},
    /* matrices that are not rotations */
    {"R_scaled",
     PLAN_GROUP,
     {{"targets[0].R", "[[2, 0, 0], [0, 2, 0], [0, 0, 2]]"}},
     "targets[0].R",
     "must be a rotation matrix"},
    {"R_reflection",
     PLAN_GROUP,
     {{"targets[1].R", "[[1, 0, 0], [0, 1, 0], [0, 0, -1]]"}},
     "targets[1].R",
     "must be a rotation matrix"},
    {"R_sheared",
     PLAN_GROUP,
     {{"targets[1].R", "[[1, 0.01, 0], [0, 1, 0], [0, 0, 1]]"}},
     "targets[1].R",
     "must be a rotation matrix"},
    {"R_zero",
     PLAN_GROUP,
     {{"targets[0].R", "[[0, 0, 0], [0, 0, 0], [0, 0, 0]]"}},
     "targets[0].R",
     "must be a rotation matrix"},
    {"g0_not_rotation", PLAN_GROUP, {{"g0", "[[1, 0, 0], [0, 1, 0], [0, 0.5, 1]]"}}, "g0", "must be a rotation matrix"},
    {"simulate_g0_reflection",
     SIMULATE,
     {{"g0", "[[-1, 0, 0], [0, 1, 0], [0, 0, 1]]"}},
     "g0",
     "must be a rotation matrix"},
    /* fields of the other task */
    {"simulate_with_sigma", SIMULATE, {{"sigma", "0.1"}}, "sigma", "only plan tasks take this field"},
    {"simulate_with_targets",
     SIMULATE,
     {{"targets", "[{\"t\": 1, \"y\": [0, 1, 0]}]"}},
     "targets",
     "only plan tasks take this field"},
    {"simulate_with_optimizer",
     SIMULATE,
     {{"optimizer", "{\"algorithm\": \"LD_LBFGS\"}"}},
     "optimizer",
     "only plan tasks take this field"},
    {"simulate_with_y0", SIMULATE, {{"y0", "[1, 0, 0]"}}, "y0", "only plan tasks take this field"},
    {"simulate_with_initial_momenta",
     SIMULATE,
     {{"initial_momenta", "[0, 0, 0, 0, 0, 0]"}},
     "initial_momenta",
     "only plan tasks take this field"},
    {"plan_with_p0", PLAN_SPHERE, {{"p0", "[0, 0, 0]"}}, "p0", "plan tasks optimise the momenta"},
    {"plan_with_h", PLAN_SPHERE, {{"h", "0.01"}}, "h", "plan tasks take the horizon T"},
    /* keyframe plans: orientations, end conditions, methods, output */
    {"zero_quaternion", PLAN_GROUP, {{"targets[0].R", NULL}, {"targets[0].q", "[0, 0, 0, 0]"}}, "targets[0].q",
     "must be a non-zero quaternion"},
    {"orientation_twice", PLAN_GROUP, {{"targets[0].q", "[1, 0, 0, 0]"}}, "targets[0].q", "not both"},
    {"quaternion_short", PLAN_GROUP, {{"targets[1].R", NULL}, {"targets[1].q", "[1, 0, 0]"}}, "targets[1].q",
     "must be an array of 4 numbers"},
    {"xi0_misspelt_free", PLAN_GROUP, {{"xi0", "\"fre\""}}, "xi0", "or \"free\" (got \"fre\")"},
    {"xiT_wrong_length", PLAN_GROUP, {{"xiT", "[0, 0]"}}, "xiT", "must be an array of 3 numbers"},
    {"xiT_with_single_shooting", PLAN_GROUP, {{"xiT", "[0, 0, 0]"}, {"method", "\"single_shooting\""}}, "xiT",
     "needs the method multiple_shooting"},
    {"free_start_with_single_shooting", PLAN_GROUP, {{"xi0", "\"free\""}, {"method", "\"single_shooting\""}}, "xi0",
     "needs the method multiple_shooting"},
    {"exact_with_direct", PLAN_GROUP, {{"sigma", "0"}, {"method", "\"direct\""}}, "sigma",
     "needs the method multiple_shooting"},
    {"method_unknown", PLAN_GROUP, {{"method", "\"newton\""}}, "method", "unknown method 'newton'"},
    {"output_orientation_unknown", PLAN_GROUP, {{"output", "{\"orientation\": \"euler\"}"}}, "output.orientation",
     "unknown orientation 'euler'"},
    {"record_every_zero", PLAN_GROUP, {{"record_every", "0"}}, "record_every", "must be"},
    /* the order of quaternions: a known name, on plans of orientations only */
    {"quaternion_order_unknown", PLAN_GROUP, {{"quaternion_order", "\"zyxw\""}}, "quaternion_order",
     "unknown quaternion order 'zyxw' (known: wxyz, xyzw)"},
    {"quaternion_order_number", PLAN_GROUP, {{"quaternion_order", "1"}}, "quaternion_order", "must be a string"},
    {"quaternion_order_on_a_sphere_plan", PLAN_SPHERE, {{"quaternion_order", "\"xyzw\""}}, "quaternion_order",
     "only plans of orientations (space group on SO3, SE3 or SO3xR3) take this field"},
    {"quaternion_order_on_a_vector_group",
     PLAN_GROUP,
     {{"group", "\"R3\""}, {"g0", "[0, 0, 0], \"quaternion_order\": \"wxyz\""}},
     "quaternion_order",
     "only plans of orientations"},
    {"quaternion_order_on_a_simulation", SIMULATE, {{"quaternion_order", "\"xyzw\""}}, "quaternion_order",
     "only plan tasks take this field"},
    {"zero_quaternion_xyzw",
     PLAN_GROUP,
     {{"quaternion_order", "\"xyzw\""}, {"targets", "[{\"t\": 0.5, \"q\": [0, 0, 0, 0]}]"}},
     "targets[0].q",
     "must be a non-zero quaternion [x, y, z, w]"},
    {"pose_xi0_short", PLAN_GROUP, {{"group", "\"SO3xR3\""}}, "xi0", "must be an array of 6 numbers"},
    {"pose_keyframe_without_position", PLAN_GROUP, {{"group", "\"SO3xR3\""}, {"xi0", "[0, 0, 1, 0, 0, 0]"}},
     "targets[0].x", "missing required field"},
    {"position_on_a_rotation_plan", PLAN_GROUP, {{"x0", "[0, 0, 0]"}}, "x0", "only plans on SE3 or SO3xR3"},
    {"sphere_plan_on_vector_group", PLAN_SPHERE, {{"group", "\"R3\""}}, "space", "sphere targets need group SO3"},
    /* the metric of sphere plans, and what the round one cannot take */
    {"metric_unknown", PLAN_ROUND, {{"metric", "\"flat\""}}, "metric", "unknown metric 'flat'"},
    {"metric_number", PLAN_ROUND, {{"metric", "1"}}, "metric", "must be a string"},
    {"metric_on_a_rotation_plan", PLAN_GROUP, {{"metric", "\"round\""}}, "metric", "only sphere plans"},
    {"metric_on_a_simulation", SIMULATE, {{"metric", "\"round\""}}, "metric", "only plan tasks take this field"},
    {"round_with_a_scheme", PLAN_ROUND, {{"scheme", "\"hohp_sv\""}}, "scheme", "its own order-8 scheme"},
    {"round_moving_end", PLAN_ROUND, {{"xiT", "[0, 0, 1]"}}, "xiT", "only rest at T"},
    {"round_spin_at_the_end", PLAN_ROUND, {{"xiT", "[1, 0, 0]"}}, "xiT", "no spin about y0"},
    {"plan_on_se2", PLAN_GROUP, {{"group", "\"SE2\""}}, "group", "no bi-invariant metric"},
    {"simulate_on_se2", SIMULATE, {{"group", "\"SE2\""}}, "group", "no bi-invariant metric"},
    {"simulate_on_se3", SIMULATE, {{"group", "\"SE3\""}}, "group", "SE3 has no bi-invariant metric"},
    {"group_space_with_y0", PLAN_GROUP, {{"y0", "[1, 0, 0]"}}, "y0", "only sphere targets take y0"},
    /* consistency between fields */
    {"T_and_h_inconsistent", SIMULATE, {{"h", "0.02"}}, "h", "inconsistent with T/steps = 0.01"},
    {"steps_fewer_than_segments", PLAN_SPHERE, {{"steps", "2"}}, "steps", "must be at least 3"},
    {"steps_fewer_than_segments_to_T",
     PLAN_SPHERE,
     {{"targets[2].t", "0.9"}, {"steps", "3"}},
     "steps",
     "must be at least 4"},
    /* vakonomic models: parameters */
    {"vak_unknown_solver",
     HEIS_SIMULATE,
     {{"solver", "\"simplified\""}},
     "solver",
     "unknown solver 'simplified' (known: newton, simplified_newton, fixed_point, auto)"},
    {"vak_unknown_param", PARK_SIMULATE, {{"params.gamma", "1"}}, "params.gamma", "unknown field"},
    {"vak_heisenberg_has_no_params", HEIS_SIMULATE, {{"params", "{\"L\": 0.3}"}}, "params.L", "unknown field"},
    {"vak_params_array", PARK_SIMULATE, {{"params", "[0.3, 1, 1]"}}, "params", "must be an object"},
    {"vak_L_zero", PARK_SIMULATE, {{"params.L", "0"}}, "params.L", "must be positive"},
    {"vak_L_negative", PARK_PLAN, {{"params.L", "-0.3"}}, "params.L", "must be positive"},
    {"vak_alpha_zero", PARK_SIMULATE, {{"params.alpha", "0"}}, "params.alpha", "must be positive"},
    {"vak_alpha_negative", PARK_PLAN, {{"params", "{\"alpha\": -1}"}}, "params.alpha", "must be positive"},
    {"vak_beta_zero", PARK_SIMULATE, {{"params.beta", "0"}}, "params.beta", "must be positive"},
    {"vak_beta_negative", PARK_SIMULATE, {{"params.beta", "-2"}}, "params.beta", "must be positive"},
    {"vak_L_overflow", PARK_SIMULATE, {{"params.L", "1e999"}}, "params.L", "must be a finite number"},
    {"vak_L_string", PARK_SIMULATE, {{"params.L", "\"0.3\""}}, "params.L", "must be a number"},
    {"vak_unknown_potential",
     PARK_SIMULATE,
     {{"params.potential", "\"harmonic\""}},
     "params.potential",
     "unknown potential 'harmonic' for parking (known: none, cos_bowl)"},
    {"vak_potential_of_another_model",
     HEIS_SIMULATE,
     {{"params", "{\"potential\": \"cos_bowl\"}"}},
     "params.potential",
     "unknown potential 'cos_bowl' for heisenberg"},
    {"vak_potential_number", PARK_SIMULATE, {{"params.potential", "1"}}, "params.potential", "must be a string"},
    /* the initial state */
    {"vak_q0_short", PARK_SIMULATE, {{"q0", "[0.3, 0, 0]"}}, "q0", "must be an array of 4 numbers"},
    {"vak_q0_long", HEIS_SIMULATE, {{"q0", "[0, 0, 0, 0]"}}, "q0", "must be an array of 3 numbers"},
    {"vak_q0_overflow", PARK_PLAN, {{"q0", "[0, 1e999, 0, 0]"}}, "q0[1]", "must be a finite number"},
    {"vak_missing_q0", PARK_PLAN, {{"q0", NULL}}, "q0", "missing required field"},
    {"vak_p0_short", HEIS_SIMULATE, {{"p0", "[0.1, 0.3]"}}, "p0", "must be an array of 3 numbers"},
    {"vak_p0_and_v0",
     PARK_SIMULATE,
     {{"v0", "[0, 0, 0, 1]"}, {"lambda0", "[0, 0]"}},
     "v0",
     "give either p0, or v0 and lambda0, not both"},
    {"vak_p0_and_lambda0", PARK_SIMULATE, {{"lambda0", "[0, 0]"}}, "lambda0", "not both"},
    {"vak_neither_p0_nor_v0", PARK_SIMULATE, {{"p0", NULL}}, "p0", "give p0, or v0 and lambda0"},
    {"vak_v0_without_lambda0", PARK_V0, {{"lambda0", NULL}}, "lambda0", "missing required field"},
    {"vak_lambda0_short", PARK_V0, {{"lambda0", "[0]"}}, "lambda0", "must be an array of 2 numbers"},
    {"vak_v0_sideways", PARK_V0, {{"v0", "[1, 0, 0, 0]"}}, "v0", "violates the constraints at q0"},
    {"vak_v0_turns_the_car_on_the_spot",
     PARK_V0,
     {{"v0", "[0.7648421872844885, 0.644217687237691, 1, 0]"}},
     "v0",
     "violates the constraints at q0"},
    /* (the raw value adds lambda0 after v0) */
    {"vak_v0_vertical_heisenberg",
     HEIS_SIMULATE,
     {{"p0", NULL}, {"v0", "[0, 0, 1], \"lambda0\": [-1]"}},
     "v0",
     "violates the constraints at q0 (|G(q0) v0| = 1)"},
    /* the scheme */
    {"vak_stages_zero", PARK_SIMULATE, {{"stages", "0"}}, "stages", "must be between 1 and 6"},
    {"vak_stages_seven", PARK_PLAN, {{"stages", "7"}}, "stages", "must be between 1 and 6"},
    {"vak_stages_fractional", HEIS_SIMULATE, {{"stages", "2.5"}}, "stages", "must be an integer"},
    {"vak_scheme_lobatto",
     PARK_SIMULATE,
     {{"scheme", "\"lobatto\""}},
     "scheme",
     "unknown scheme 'lobatto' (known: gauss)"},
    {"vak_scheme_of_cubics", HEIS_SIMULATE, {{"scheme", "\"hohp_sv\""}}, "scheme", "unknown scheme 'hohp_sv'"},
    {"vak_cubic_field", PARK_SIMULATE, {{"retraction", "\"cayley\""}}, "retraction", "unknown field"},
    {"vak_solver_tol_large", HEIS_SIMULATE, {{"solver_tol", "0.1"}}, "solver_tol", "must be below"},
    {"vak_missing_steps", HEIS_SIMULATE, {{"steps", NULL}}, "steps", "missing required field"},
    {"vak_missing_T_and_h", HEIS_SIMULATE, {{"h", NULL}}, "h", "give the step h or the horizon T"},
    {"vak_T_and_h_inconsistent", HEIS_SIMULATE, {{"T", "2"}}, "h", "inconsistent with T/steps = 0.2"},
    {"vak_defect_number",
     HEIS_SIMULATE,
     {{"symplecticity_defect", "1"}},
     "symplecticity_defect",
     "must be true or false"},
    {"vak_defect_string",
     PARK_SIMULATE,
     {{"symplecticity_defect", "\"yes\""}},
     "symplecticity_defect",
     "must be true or false"},
    /* fields of the other task */
    {"vak_plan_with_p0", PARK_PLAN, {{"p0", "[0, 0, 0, 0]"}}, "p0", "plan tasks find the momenta"},
    {"vak_plan_with_v0", PARK_PLAN, {{"v0", "[1, 0, 0, 0]"}}, "v0", "plan tasks find the momenta"},
    {"vak_plan_with_h", PARK_PLAN, {{"h", "0.02"}}, "h", "plan tasks take the horizon T, not h"},
    {"vak_plan_with_defect",
     PARK_PLAN,
     {{"symplecticity_defect", "true"}},
     "symplecticity_defect",
     "only simulate tasks take this field"},
    {"vak_simulate_with_q1", PARK_SIMULATE, {{"q1", "[0, 0.5, 0, 0]"}}, "q1", "only plan tasks take this field"},
    {"vak_simulate_with_tolerance",
     HEIS_SIMULATE,
     {{"tolerance", "1e-10"}},
     "tolerance",
     "only plan tasks take this field"},
    {"vak_simulate_with_starts", PARK_V0, {{"starts", "4"}}, "starts", "only plan tasks take this field"},
    {"vak_simulate_with_optimizer",
     PARK_SIMULATE,
     {{"optimizer", "{\"algorithm\": \"LN_BOBYQA\"}"}},
     "optimizer",
     "only plan tasks take this field"},
    {"vak_simulate_with_initial_momenta",
     HEIS_SIMULATE,
     {{"initial_momenta", "[0, 0, 0]"}},
     "initial_momenta",
     "only plan tasks take this field"},
    /* what a plan needs */
    {"vak_plan_missing_q1", PARK_PLAN, {{"q1", NULL}}, "q1", "missing required field"},
    {"vak_plan_missing_T", PARK_PLAN, {{"T", NULL}}, "T", "missing required field"},
    {"vak_plan_T_zero", PARK_PLAN, {{"T", "0"}}, "T", "must be positive"},
    {"vak_q1_short", PARK_PLAN, {{"q1", "[0, 0.5]"}}, "q1", "must be an array of 4 numbers"},
    {"vak_q1_string", PARK_PLAN, {{"q1", "[0, \"0.5\", 0, 0]"}}, "q1[1]", "must be a number"},
    {"vak_tolerance_zero", PARK_PLAN, {{"tolerance", "0"}}, "tolerance", "must be positive"},
    {"vak_starts_zero", PARK_PLAN, {{"starts", "0"}}, "starts", "must be between 1 and 10000"},
    {"vak_starts_fractional", PARK_PLAN, {{"starts", "1.5"}}, "starts", "must be an integer"},
    {"vak_initial_momenta_short",
     PARK_PLAN,
     {{"initial_momenta", "[0, 0, 0]"}},
     "initial_momenta",
     "must be an array of 4 numbers"},
    {"vak_unknown_algorithm",
     PARK_PLAN,
     {{"optimizer.algorithm", "\"LD_BFGS\""}},
     "optimizer.algorithm",
     "unknown NLopt algorithm 'LD_BFGS'"},
    {"vak_plan_with_sigma", PARK_PLAN, {{"sigma", "0.1"}}, "sigma", "unknown field"},
    /* holonomic models: task, scheme and the model's schemes */
    {"hol_plan", PEND_SIMULATE, {{"task", "\"plan\""}}, "task", "spherical_pendulum has simulate tasks only"},
    {"hol_unknown_scheme", PEND_SIMULATE, {{"scheme", "\"verlet\""}}, "scheme", "unknown scheme 'verlet'"},
    {"hol_scheme_of_another_model",
     PEND_SIMULATE,
     {{"scheme", "\"prop7\""}},
     "scheme",
     "spherical_pendulum does not run with 'prop7' (its schemes: se_a"},
    {"hol_top_strang", TOP_SIMULATE, {{"scheme", "\"strang\""}}, "scheme", "heavy_top does not run with 'strang'"},
    {"hol_planar_strang",
     PLANAR_FEEDBACK,
     {{"scheme", "\"strang\""}, {"gains", NULL}},
     "scheme",
     "planar_pendulum does not run with 'strang'"},
    {"hol_cubic_scheme", S3_SIMULATE, {{"scheme", "\"hohp_sv\""}}, "scheme", "unknown scheme 'hohp_sv'"},
    {"hol_unknown_field", PEND_SIMULATE, {{"stages", "2"}}, "stages", "unknown field"},
    /* parameters */
    {"hol_m_zero", PEND_SIMULATE, {{"params.m", "0"}}, "params.m", "must be positive"},
    {"hol_l_negative", PEND_SIMULATE, {{"params.l", "-1"}}, "params.l", "must be positive"},
    {"hol_unknown_param", PEND_SIMULATE, {{"params.k", "1"}}, "params.k", "unknown field"},
    {"hol_g_string", PEND_SIMULATE, {{"params.g", "\"9.81\""}}, "params.g", "must be a number"},
    {"hol_J_triangle", TOP_SIMULATE, {{"params.J", "[1, 1, 3]"}}, "params.J", "triangle inequality"},
    {"hol_J_short", TOP_SIMULATE, {{"params.J", "[2, 3]"}}, "params.J", "must be an array of 3 numbers"},
    {"hol_J_negative", TOP_SIMULATE, {{"params.J", "[-2, 3, 4]"}}, "params.J", "must be positive"},
    {"hol_mgl_overflow", TOP_SIMULATE, {{"params.mgl", "1e999"}}, "params.mgl", "must be a finite number"},
    {"hol_c4_with_hopf", S3_SIMULATE, {{"params.c4", "0.1"}}, "params.c4", "hopf_invariant potential has no q4 term"},
    {"hol_unknown_potential",
     S3_SIMULATE,
     {{"params.potential", "\"quartic\""}},
     "params.potential",
     "unknown potential 'quartic' for s3_contact (known: tilted, hopf_invariant)"},
    /* the initial state */
    {"hol_q0_off_the_sphere", PEND_SIMULATE, {{"q0", "[0, 1.1, 0]"}}, "q0", "is off the constraint"},
    {"hol_p0_not_tangent", PEND_SIMULATE, {{"p0", "[1, 0.5, 1]"}}, "p0", "is not tangent to the constraint at q0"},
    {"hol_s3_p0_not_tangent", S3_SIMULATE, {{"p0", "[0.1, 0.3, 0.8, 0]"}}, "p0", "is not tangent"},
    {"hol_q0_origin", PEND_SIMULATE, {{"q0", "[0, 0, 0]"}, {"project", "true"}}, "q0", "must not be the origin"},
    {"hol_q0_short", PEND_SIMULATE, {{"q0", "[0, 1]"}}, "q0", "must be an array of 3 numbers"},
    {"hol_planar_q0_long", PLANAR_FEEDBACK, {{"q0", "[0, -1, 0]"}}, "q0", "must be an array of 2 numbers"},
    {"hol_missing_p0", PEND_SIMULATE, {{"p0", NULL}}, "p0", "missing required field"},
    {"hol_project_string", PEND_SIMULATE, {{"project", "\"yes\""}}, "project", "must be true or false"},
    {"hol_top_with_q0", TOP_SIMULATE, {{"q0", "[0, 1, 0]"}}, "q0", "heavy_top starts from R0 and omega0"},
    {"hol_top_project", TOP_SIMULATE, {{"project", "true"}}, "project", "heavy_top starts from R0 and omega0"},
    {"hol_pendulum_with_R0",
     PEND_SIMULATE,
     {{"R0", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"}},
     "R0",
     "only the heavy top starts from R0 and omega0"},
    {"hol_R0_scaled", TOP_SIMULATE, {{"R0", "[[2, 0, 0], [0, 2, 0], [0, 0, 2]]"}}, "R0", "must be a rotation matrix"},
    {"hol_missing_omega0", TOP_SIMULATE, {{"omega0", NULL}}, "omega0", "missing required field"},
    {"hol_missing_R0", TOP_SIMULATE, {{"R0", NULL}}, "R0", "missing required field"},
    /* fields of other schemes */
    {"hol_retraction_for_rattle",
     PEND_SIMULATE,
     {{"retraction", "\"cayley\""}},
     "retraction",
     "only lie_rattle takes a retraction"},
    {"hol_unknown_retraction", TOP_SIMULATE, {{"retraction", "\"log\""}}, "retraction", "unknown retraction 'log'"},
    {"hol_gains_for_rattle", PEND_SIMULATE, {{"gains", "{\"k1\": 50}"}}, "gains", "only feedback schemes take gains"},
    {"hol_feedback_without_gains", PEND_FEEDBACK, {{"gains", NULL}}, "gains", "feedback schemes need the gains"},
    {"hol_gains_array", PEND_FEEDBACK, {{"gains", "[50, 50, 50, 50]"}}, "gains", "must be an object"},
    {"hol_negative_gain", PEND_FEEDBACK, {{"gains.k2", "-1"}}, "gains.k2", "must not be negative"},
    {"hol_unknown_gain", PEND_FEEDBACK, {{"gains.k5", "1"}}, "gains.k5", "unknown field"},
    {"hol_k4_planar", PLANAR_FEEDBACK, {{"gains.k4", "50"}}, "gains.k4", "planar_pendulum declares no first integral"},
    {"hol_rtol_for_rk4", PLANAR_FEEDBACK, {{"rtol", "1e-6"}}, "rtol", "only feedback_dop853 takes error tolerances"},
    {"hol_atol_for_rattle", PEND_SIMULATE, {{"atol", "1e-6"}}, "atol", "only feedback_dop853 takes error tolerances"},
    {"hol_rtol_zero", PEND_FEEDBACK, {{"rtol", "0"}}, "rtol", "must be positive"},
    {"hol_solver_tol_explicit", PEND_FEEDBACK, {{"solver_tol", "1e-12"}}, "solver_tol", "is explicit"},
    {"hol_solver_tol_large", TOP_SIMULATE, {{"solver_tol", "0.1"}}, "solver_tol", "must be below"},
    /* steps, recording, defect */
    {"hol_missing_steps", PEND_SIMULATE, {{"steps", NULL}}, "steps", "missing required field"},
    {"hol_missing_h_and_T", S3_SIMULATE, {{"h", NULL}}, "h", "give the step h or the horizon T"},
    {"hol_T_and_h_inconsistent", PEND_SIMULATE, {{"T", "2"}}, "h", "inconsistent with T/steps = 0.02"},
    {"hol_record_every_zero", PEND_SIMULATE, {{"record_every", "0"}}, "record_every", "must be between 1 and"},
    {"hol_record_every_fractional", PEND_SIMULATE, {{"record_every", "2.5"}}, "record_every", "must be an integer"},
    {"hol_shake_defect",
     PEND_SIMULATE,
     {{"scheme", "\"shake\""}, {"symplecticity_defect", "true"}},
     "symplecticity_defect",
     "shake is a two-step method"},
    {"hol_defect_number",
     S3_SIMULATE,
     {{"symplecticity_defect", "1"}},
     "symplecticity_defect",
     "must be true or false"},
    /* nonholonomic models: task, scheme, stages, multiplier rule, parameters */
    {"nh_plan", NH_CONTACT, {{"task", "\"plan\""}}, "task", "contact_oscillator has simulate tasks only"},
    {"nh_unknown_scheme", NH_CONTACT, {{"scheme", "\"gauss\""}}, "scheme", "unknown scheme 'gauss' (known: lobatto)"},
    {"nh_stages_one", NH_CONTACT, {{"stages", "1"}}, "stages", "must be between 2 and 6"},
    {"nh_stages_seven", NH_CONTACT, {{"stages", "7"}}, "stages", "must be between 2 and 6"},
    {"nh_stages_five", NH_SE2, {{"stages", "5"}}, "stages", "must be between 2 and 4"},
    {"nh_stages_string", NH_SUSLOV, {{"stages", "\"3\""}}, "stages", "must be a number"},
    {"nh_unknown_lambda1",
     NH_CONTACT,
     {{"lambda1", "\"average\""}},
     "lambda1",
     "unknown lambda1 rule 'average' (known: carry, recompute)"},
    {"nh_lambda1_bool", NH_SE2, {{"lambda1", "true"}}, "lambda1", "must be a string"},
    {"nh_unknown_solver",
     NH_CONTACT,
     {{"solver", "\"fixed_point\""}},
     "solver",
     "unknown solver 'fixed_point' (known: newton, simplified_newton)"},
    {"nh_solver_on_a_group", NH_SE2, {{"solver", "\"newton\""}}, "solver", "sleigh_se2 solves its steps by full Newton"},
    {"nh_eps_negative", NH_CONTACT, {{"params.eps", "-1"}}, "params.eps", "must be non-negative"},
    {"nh_disk_R_zero", NH_DISK_V0, {{"params", "{\"R\": 0}"}}, "params.R", "must be positive"},
    {"nh_unknown_param", NH_CONTACT, {{"params.L", "1"}}, "params.L", "unknown field"},
    {"nh_se2_m_negative", NH_SE2, {{"params.m", "-1"}}, "params.m", "must be positive"},
    {"nh_suslov_e_zero", NH_SUSLOV, {{"params.e", "[0, 0, 0]"}}, "params.e", "must not be the zero vector"},
    {"nh_suslov_J_short", NH_SUSLOV, {{"params.J", "[1, 2]"}}, "params.J", "must be an array of 3 numbers"},
    {"nh_suslov_J_negative", NH_SUSLOV, {{"params.J", "[1, -2, 3]"}}, "params.J", "must be positive"},
    /* the initial state, on the constraint */
    {"nh_p0_off_the_constraint", NH_CONTACT, {{"p0", "[-0.3, 0, 0.4]"}}, "p0", "violates the constraint at q0"},
    {"nh_v0_off_the_constraint", NH_DISK_V0, {{"v0", "[1, 1, 2, 1]"}}, "v0", "violates the constraint at q0"},
    {"nh_p0_and_v0", NH_CONTACT, {{"v0", "[-0.3, 0, 0.3]"}}, "v0", "give either p0 or v0, not both"},
    {"nh_missing_p0", NH_CONTACT, {{"p0", NULL}}, "p0", "missing: give p0, or the velocity v0"},
    {"nh_q0_short", NH_CONTACT, {{"q0", "[1, 1]"}}, "q0", "must be an array of 3 numbers"},
    {"nh_v0_long", NH_DISK_V0, {{"v0", "[1, 0, 2, 1, 0]"}}, "v0", "must be an array of 4 numbers"},
    {"nh_retraction_in_coordinates",
     NH_CONTACT,
     {{"retraction", "\"cayley\""}},
     "retraction",
     "only the Lie-group models (sleigh_se2, suslov) take this field"},
    {"nh_xi0_in_coordinates", NH_DISK_V0, {{"xi0", "[1, 0, 0]"}}, "xi0", "only the Lie-group models"},
    {"nh_se2_with_q0", NH_SE2, {{"q0", "[0, 0, 0]"}}, "q0", "sleigh_se2 starts from g0 and mu0 or xi0"},
    {"nh_suslov_with_p0", NH_SUSLOV, {{"p0", "[0, 0, 0]"}}, "p0", "suslov starts from g0 and mu0 or xi0"},
    {"nh_se2_xi0_sideways", NH_SE2, {{"xi0", "[1, 1, 0.5]"}}, "xi0", "violates the constraint"},
    {"nh_suslov_xi0_off", NH_SUSLOV, {{"xi0", "[1, 0, 0]"}}, "xi0", "violates the constraint (|alpha(g0) xi0| = 0.3)"},
    {"nh_se2_mu0_and_xi0", NH_SE2, {{"mu0", "[0.55, 1, 0.5]"}}, "xi0", "give either mu0 or xi0, not both"},
    {"nh_se2_no_velocity", NH_SE2, {{"xi0", NULL}}, "mu0", "missing: give the body momentum mu0"},
    {"nh_se2_g0_not_se2", NH_SE2, {{"g0", "[[1, 0, 0], [0, 1, 0], [0, 1, 1]]"}}, "g0", "must be an SE(2) matrix"},
    {"nh_se2_g0_short", NH_SE2, {{"g0", "[0, 0]"}}, "g0", "must be [x, y, theta] or a 3 x 3 SE(2) matrix"},
    {"nh_se2_g0_row_short", NH_SE2, {{"g0", "[[1, 0, 0], [0, 1], [0, 0, 1]]"}}, "g0[1]", "must be a row of 3 numbers"},
    {"nh_suslov_g0_not_rotation",
     NH_SUSLOV,
     {{"g0", "[[2, 0, 0], [0, 2, 0], [0, 0, 2]]"}},
     "g0",
     "must be a rotation matrix"},
    {"nh_suslov_g0_vector", NH_SUSLOV, {{"g0", "[0, 0, 0]"}}, "g0[0]", "must be a row of 3 numbers"},
    {"nh_unknown_retraction", NH_SE2, {{"retraction", "\"log\""}}, "retraction", "unknown retraction 'log'"},
    /* steps and tolerances */
    {"nh_missing_steps", NH_SUSLOV, {{"steps", NULL}}, "steps", "missing required field"},
    {"nh_T_and_h_inconsistent", NH_CONTACT, {{"T", "2"}}, "h", "inconsistent with T/steps = 0.2"},
    {"nh_missing_h_and_T", NH_SE2, {{"h", NULL}}, "h", "give the step h or the horizon T"},
    {"nh_record_every_zero", NH_CONTACT, {{"record_every", "0"}}, "record_every", "must be between 1 and"},
    {"nh_solver_tol_large", NH_SE2, {{"solver_tol", "0.5"}}, "solver_tol", "must be below 1e-2"},
    {"nh_unknown_field", NH_CONTACT, {{"symplecticity_defect", "true"}}, "symplecticity_defect", "unknown field"},
};

#define N_BAD_CASES (sizeof bad_cases / sizeof bad_cases[0])

/* Criterion passes the index; the table itself stays in static storage. */
SP_TABLE_PARAMETERS(problem_file, malformed, N_BAD_CASES)

ParameterizedTest(size_t *i, problem_file, malformed)
{
    const bad_case *c = &bad_cases[*i];
    int n_edits = c->edits[1].path ? 2 : c->edits[0].path ? 1 : 0;
    char *text = edited(c->base, c->edits, n_edits);
    sp_problem pb;
    memset(&pb, 0x5a, sizeof pb); /* the reader must reset what it does not fill */
    sp_input_error err;
    sp_status st = parse_text(text, &pb, &err);
    cr_assert_eq(st, SP_ERR_INVALID, "%s: accepted (or wrong status %d):\n%s", c->name, (int)st, text);
    cr_expect_str_eq(err.path, c->path, "%s: error at '%s' (%s), expected at '%s'", c->name, err.path, err.message,
                     c->path);
    cr_expect(strstr(err.message, c->message) != NULL, "%s: message '%s' lacks '%s'", c->name, err.message, c->message);
    cr_expect_null(pb.cubic.targets, "%s: a refused problem must hold nothing to free", c->name);
    cr_expect_null(strchr(err.message, '\n'), "%s: the message must fit on one line", c->name);
    cJSON_free(text);
}

/* The table must keep covering every category the contract names. */
Test(problem_file, malformed_table_is_broad)
{
    cr_expect_geq(N_BAD_CASES, 35);
    static const char *const kinds[] = {"malformed JSON",
                                        "must be a string",
                                        "must be a number",
                                        "unknown task",
                                        "unknown model",
                                        "unknown scheme",
                                        "unknown retraction",
                                        "unknown group",
                                        "unknown NLopt algorithm",
                                        "unknown field",
                                        "missing required field",
                                        "must be a finite number",
                                        "must be positive",
                                        "must be between 1 and",
                                        "must be within (0, T=1]",
                                        "must be later than",
                                        "must be an array of 3 numbers",
                                        "must be a non-zero direction",
                                        "must be a rotation matrix",
                                        "only plan tasks take this field",
                                        "inconsistent",
                                        "must be at least",
                                        "must be an integer",
                                        "must not be negative",
                                        "duplicate field",
                                        "unknown potential",
                                        "not both",
                                        "violates the constraints",
                                        "must be true or false",
                                        "plan tasks find the momenta",
                                        "only simulate tasks take this field",
                                        "must be an object",
                                        "does not run with",
                                        "is off the constraint",
                                        "is not tangent",
                                        "triangle inequality"};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        int found = 0;
        for (size_t i = 0; i < N_BAD_CASES && !found; ++i) found = strstr(bad_cases[i].message, kinds[k]) != NULL;
        cr_expect(found, "no malformed case for '%s'", kinds[k]);
    }
}

/* The JSON position points at the line where the parser gave up. */
Test(problem_file, malformed_json_reports_line)
{
    static const char text[] = "{\n  \"task\": \"plan\",\n  \"T\": 1,,\n  \"steps\": 4\n}\n";
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(parse_text(text, &pb, &err), SP_ERR_INVALID);
    cr_expect_str_eq(err.path, "");
    cr_expect(strstr(err.message, "line 3") != NULL, "got '%s'", err.message);
}

/* The length given is the document: a NUL byte inside it is not an end of file. */
Test(problem_file, nul_byte_after_document_is_refused)
{
    static const char doc[] = SIMULATE;
    char text[sizeof doc + 8];
    memcpy(text, doc, sizeof doc); /* includes the NUL */
    memcpy(text + sizeof doc, "{\"x\":1}", 7);
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, sizeof doc + 7, &pb, &err), SP_ERR_INVALID);
    cr_expect(strstr(err.message, "content after the document") != NULL, "got '%s'", err.message);
    /* while the same bytes cut at the NUL are a valid document */
    cr_assert_eq(sp_problem_parse(text, sizeof doc - 1, &pb, &err), SP_OK, "%s", err.message);
    sp_problem_free(&pb);
}

/* Some NLopt builds keep the names of algorithms they left out (StoGO without C++);
 * naming one must be refused by the reader, not fail later inside the optimiser. */
Test(problem_file, algorithm_missing_from_nlopt_build_is_refused)
{
    const char *missing = NULL;
    for (int a = 0; a < NLOPT_NUM_ALGORITHMS && !missing; ++a)
        if (strstr(nlopt_algorithm_name((nlopt_algorithm)a), "NOT COMPILED"))
            missing = nlopt_algorithm_to_string((nlopt_algorithm)a);
    if (!missing) cr_skip_test("this NLopt has every algorithm compiled in");
    char value[64];
    snprintf(value, sizeof value, "\"%s\"", missing);
    const edit set[] = {{"optimizer.algorithm", value}};
    char *text = edited(PLAN_SPHERE, set, 1);
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(parse_text(text, &pb, &err), SP_ERR_INVALID, "%s accepted", missing);
    cr_expect_str_eq(err.path, "optimizer.algorithm");
    cr_expect(strstr(err.message, "not compiled") != NULL, "got '%s'", err.message);
    cJSON_free(text);
}

Test(problem_file, unreadable_file_is_an_io_error)
{
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_read_file(SP_TEST_DATA "/no_such_problem.json", &pb, &err), SP_ERR_IO);
    cr_expect_str_eq(err.path, "");
    cr_expect(strstr(err.message, "cannot read") != NULL, "got '%s'", err.message);
}

/* The reader takes a length, not a NUL: a NUL byte inside it is refused where it is,
 * never taken as the end of the text (cJSON would run "heisenberg"). */
Test(problem_file, a_nul_byte_inside_the_text_is_refused)
{
    static const char text[] = "{\"task\": \"simulate\", \"model\": \"heisenberg\0garbage\", \"q0\": [0, 0, 0],"
                               " \"p0\": [0.1, 0.3, 1], \"h\": 0.1, \"steps\": 10}";
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse(text, sizeof text - 1, &pb, &err), SP_ERR_INVALID);
    cr_expect_str_eq(err.path, "");
    cr_expect_str_eq(err.message, "malformed JSON at line 1, column 42: NUL byte in a string");
}

/* The tree a text needs is counted against the memory limit before it is built; the
 * document handed back for the result's input block is the text's. */
Test(problem_file, the_memory_limit_applies_to_reading_and_the_input_comes_back)
{
    static const char text[] = "{\"task\": \"simulate\", \"model\": \"heisenberg\", \"q0\": [0, 0, 0],"
                               " \"p0\": [0.1, 0.3, 1], \"h\": 0.1, \"steps\": 10}";
    sp_limits limits = sp_limits_default();
    limits.memory = 1000; /* bytes: less than 14 values take */
    sp_problem pb;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse_limited(text, sizeof text - 1, &limits, &pb, &err), SP_ERR_INVALID);
    cr_expect(strstr(err.message, "more than the memory limit") && strstr(err.message, "--max-memory"), "got '%s'",
              err.message);
    cJSON *input = NULL;
    cr_assert_eq(sp_problem_parse_input(text, sizeof text - 1, NULL, &pb, &input, &err), SP_OK, "%s", err.message);
    cJSON *expected = cJSON_Parse(text);
    cr_expect(cJSON_Compare(input, expected, 1), "the input is not the text's document");
    cJSON_Delete(expected);
    cJSON_Delete(input);
    sp_problem_free(&pb);
}

/* A long list of keyframes and sample times is read element after element (each found
 * from the last, not from the head of the array: 40 000 keyframes once took 44 s), and
 * every one lands where it belongs. */
Test(problem_file, long_keyframe_and_sample_lists_read_in_order)
{
    const int K = 60000;
    size_t size = (size_t)K * 96 + 4096, len = 0;
    char *doc = malloc(size);
    cr_assert_not_null(doc);
    len += (size_t)snprintf(doc + len, size - len,
                            "{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"SO3\", \"space\": \"group\", "
                            "\"T\": %d, \"sigma\": 0, \"xi0\": \"free\", \"g0\": [[1,0,0],[0,1,0],[0,0,1]], "
                            "\"output\": {\"sample_times\": [",
                            K);
    for (int i = 0; i < K; ++i) len += (size_t)snprintf(doc + len, size - len, "%s%d.5", i ? "," : "", i);
    len += (size_t)snprintf(doc + len, size - len, "]}, \"targets\": [");
    for (int i = 1; i <= K; ++i)
        len += (size_t)snprintf(doc + len, size - len, "%s{\"t\": %d, \"q\": [%.17g, %.17g, 0, 0]}", i > 1 ? "," : "",
                                i, cos(1e-4 * i), sin(1e-4 * i));
    snprintf(doc + len, size - len, "]}");
    sp_problem pb;
    sp_limits limits = sp_limits_default();
    limits.targets = K;
    limits.memory = 64.0 * 1024 * 1024 * 1024;
    sp_input_error err;
    cr_assert_eq(sp_problem_parse_limited(doc, strlen(doc), &limits, &pb, &err), SP_OK, "%s: %s", err.path,
                 err.message);
    cr_assert_eq(pb.cubic.n_targets, (size_t)K);
    cr_assert_eq(pb.plan.n_sample_times, (size_t)K);
    for (int i = 0; i < K; i += 997) {
        cr_assert_eq(pb.cubic.targets[i].t, i + 1.0);
        cr_assert_eq(pb.plan.sample_times[i], i + 0.5);
        /* the rotation of angle 2·1e-4·(i+1) about x: R[1][2] = −sin */
        cr_assert_float_eq(pb.cubic.targets[i].R[5], -sin(2e-4 * (i + 1)), 1e-12, "keyframe %d", i);
    }
    sp_problem_free(&pb);
    free(doc);
}
