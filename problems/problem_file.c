/* The problem-file reader: what every file shares (task, model), then the reader of the
 * model's family (problem_family.h); the limits are checked once the whole file is read.
 * Every reader starts from sp_problem_defaults and overrides what the file names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/custom/sp_custom_model.h"
#include "problems/json_input.h"
#include "problems/problem_family.h"
#include "problems/problem_readers.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_limits.h"
#include "problems/sp_problem.h"
#include "problems/sp_result_file.h"

const char *sp_task_name(size_t task)
{
    static const char *const tasks[] = {[SP_TASK_PLAN] = "plan", [SP_TASK_SIMULATE] = "simulate"};
    return task < sizeof tasks / sizeof tasks[0] ? tasks[task] : NULL;
}

/* Every model of every family, in the order of the list. */
static const char *model_name_at(size_t i)
{
    sp_model_info m;
    return sp_model_info_at(i, &m) ? m.name : NULL;
}

static int read_problem(const json_input *root, sp_problem *p)
{
    const char *s;
    if (json_require_object(root) != 1) return -1;
    if (json_name(root, "task", 1, sp_task_name, "task", &s) != 1) return -1;
    p->task = strcmp(s, "plan") == 0 ? SP_TASK_PLAN : SP_TASK_SIMULATE;
    if (json_name(root, "model", 1, model_name_at, "model", &s) != 1) return -1;
    snprintf(p->model, sizeof p->model, "%s", s);
    if (json_string(root, "description", 0, &s) < 0) return -1;
    const problem_family *f = problem_family_of_model(p->model);
    if (p->task == SP_TASK_PLAN && !(f->tasks & SP_TASK_FLAG(SP_TASK_PLAN)))
        return json_fail(root, "task", "%s has simulate tasks only (got plan)", p->model);
    return f->read(root, p);
}

sp_status sp_problem_from_document(const cJSON *doc, const sp_limits *limits, sp_problem *out, sp_input_error *err)
{
    const sp_limits def = sp_limits_default();
    if (!limits) limits = &def;
    sp_problem_defaults(out);
    memset(err, 0, sizeof *err);
    json_input root = {.node = doc, .err = err};
    /* the one array a problem allocates by its length: refused before it is read */
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(doc, "targets");
    int st = 1;
    if (sp_json_is_array(targets) && sp_json_array_size(targets) > limits->targets)
        st = json_fail(&root, "targets", "%d targets exceed the limit %ld (raise it with --max-targets)",
                       sp_json_array_size(targets), limits->targets);
    if (st == 1) st = read_problem(&root, out);
    out->step_budget = limits->steps;
    out->memory_budget = limits->memory;
    if (st == 1 && sp_problem_check_limits(out, limits, err) != SP_OK) st = -1;
    if (st != 1) {
        sp_problem_free(out);
        /* the readers say "out of memory" when an allocation of theirs fails: the file
         * may well be good */
        return strcmp(err->message, "out of memory") == 0 ? SP_ERR_NOMEM : SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status sp_problem_parse_document(const char *text, size_t length, const sp_limits *limits, cJSON **doc,
                                    sp_input_error *err)
{
    const sp_limits def = sp_limits_default();
    if (!limits) limits = &def;
    return sp_json_parse_packed(text, length, sp_json_pack_problem, limits->memory, doc, err);
}

sp_status sp_problem_parse_input(const char *text, size_t length, const sp_limits *limits, sp_problem *out,
                                 cJSON **input, sp_input_error *err)
{
    if (input) *input = NULL;
    sp_problem_defaults(out);
    cJSON *doc;
    sp_status st = sp_problem_parse_document(text, length, limits, &doc, err);
    if (st == SP_OK) st = sp_problem_from_document(doc, limits, out, err);
    if (st == SP_OK && input)
        *input = doc;
    else
        cJSON_Delete(doc);
    return st;
}

sp_status sp_problem_parse_limited(const char *text, size_t length, const sp_limits *limits, sp_problem *out,
                                   sp_input_error *err)
{
    return sp_problem_parse_input(text, length, limits, out, NULL, err);
}

sp_status sp_problem_read_file_limited(const char *path, const sp_limits *limits, sp_problem *out, sp_input_error *err)
{
    sp_problem_defaults(out);
    char *text;
    size_t length;
    sp_status st = sp_text_read_file(path, SP_PROBLEM_FILE_MAX_BYTES, &text, &length, err);
    if (st == SP_OK) st = sp_problem_parse_limited(text, length, limits, out, err);
    free(text);
    return st;
}

sp_status sp_problem_parse(const char *text, size_t length, sp_problem *out, sp_input_error *err)
{
    return sp_problem_parse_limited(text, length, NULL, out, err);
}

sp_status sp_problem_read_file(const char *path, sp_problem *out, sp_input_error *err)
{
    return sp_problem_read_file_limited(path, NULL, out, err);
}

void sp_problem_free(sp_problem *p)
{
    if (!p) return;
    free(p->cubic.targets);
    p->cubic.targets = NULL;
    free(p->plan.sample_times);
    p->plan.sample_times = NULL;
    p->plan.n_sample_times = 0;
    p->cubic.n_targets = 0;
    sp_car_problem_free(&p->car);
    sp_custom_free(p->custom);
    p->custom = NULL;
}
