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

const problem_family *problem_family_of_model(const char *model)
{
    sp_model_info m;
    for (size_t i = 0; model && sp_model_info_at(i, &m); ++i)
        if (strcmp(m.name, model) == 0)
            for (size_t f = 0; problem_family_at(f); ++f)
                if (problem_family_at(f)->name == m.family) return problem_family_at(f);
    return NULL;
}
