/* The list of model families whose problem files are read (problem_family.h): one line each. */
#include <string.h>

#include "problems/problem_family.h"

static const problem_family *const families[] = {
    &cubic_problem_family,
    &vakonomic_problem_family,
    &holonomic_problem_family,
    &nonholonomic_problem_family,
    &car_problem_family,
    &custom_problem_family,
};

const problem_family *problem_family_at(size_t i)
{
    return i < sizeof families / sizeof families[0] ? families[i] : NULL;
}

int sp_model_info_at(size_t i, sp_model_info *out)
{
    for (size_t f = 0; problem_family_at(f); ++f) {
        const problem_family *fam = problem_family_at(f);
        for (size_t j = 0;; ++j, --i) {
            *out = (sp_model_info){.family = fam->name, .kinds = fam->kinds, .tasks = fam->tasks};
            if (!fam->model(j, out)) break;
            if (i == 0) return 1;
        }
    }
    return 0;
}

/* The family whose `model` names `model`. */
const problem_family *problem_family_of_model(const char *model)
{
    sp_model_info m;
    for (size_t f = 0; model && problem_family_at(f); ++f)
        for (size_t j = 0; problem_family_at(f)->model(j, &m); ++j)
            if (strcmp(m.name, model) == 0) return problem_family_at(f);
    return NULL;
}
