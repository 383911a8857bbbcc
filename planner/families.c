/* The list of model families (sp_family.h): one line each. */
#include <string.h>

#include "planner/car/sp_car_plan.h"
#include "planner/cubic/sp_plan.h"
#include "planner/holonomic/sp_hol_run.h"
#include "planner/nonholonomic/sp_nh_run.h"
#include "planner/sp_family.h"
#include "planner/sp_result.h"
#include "planner/vakonomic/sp_vak_run.h"

static const sp_family *const families[] = {
    &sp_cubic_family,
    &sp_vakonomic_family,
    &sp_holonomic_family,
    &sp_nonholonomic_family,
    &sp_car_family,
};

const sp_family *sp_family_at(size_t i) { return i < sizeof families / sizeof families[0] ? families[i] : NULL; }

/* The family serving any of `kinds` (a set of SP_KIND_FLAG). */
static const sp_family *family_of_kinds(unsigned kinds)
{
    for (size_t i = 0; sp_family_at(i); ++i)
        if (families[i]->kinds & kinds) return families[i];
    return NULL;
}

const sp_family *sp_family_of(sp_model_kind kind) { return family_of_kinds(SP_KIND_FLAG(kind)); }

const sp_family *sp_family_of_model(const char *model)
{
    sp_model_info m;
    for (size_t i = 0; model && sp_model_info_at(i, &m); ++i)
        if (strcmp(m.name, model) == 0) return family_of_kinds(m.kinds);
    return NULL;
}

const sp_family *sp_family_of_result(const cJSON *root)
{
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "model"));
    if (!sp_result_is_custom(model)) return sp_family_of_model(model);
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(root, "input");
    if (!input) input = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "case"), "problem");
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(input, "kind"));
    for (size_t f = 0; kind && sp_family_at(f); ++f)
        if (strcmp(families[f]->name, kind) == 0) return families[f];
    return NULL;
}
