/* Seeds for the fuzzer (make fuzz): the malformed documents of tests/test_problem_file.c,
 * built by that file's own edit functions so that cases added there become seeds without
 * a change here. Compiled with its test file included; its Criterion tests never run. */
#include "tests/test_problem_file.c"

#include "tests/fuzz/seeds.h"

void sp_seeds_problem_file(const char *dir)
{
    for (size_t i = 0; i < N_BAD_CASES; ++i) {
        const bad_case *c = &bad_cases[i];
        char *text = edited(c->base, c->edits, 2);
        sp_seed_write(dir, "problem_file", c->name, text);
        cJSON_free(text);
    }
}
