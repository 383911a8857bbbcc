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
    for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i)
        for (size_t j = 0; model && families[i]->model_at(j); ++j)
            if (strcmp(families[i]->model_at(j), model) == 0) return families[i];
    return NULL;
}
