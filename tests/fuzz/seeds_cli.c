/* Seeds for the fuzzer (make fuzz): the malformed documents of tests/test_cli.c, built by
 * its own replacement function. Compiled with its test file included; its Criterion
 * tests never run. */
#include "tests/test_cli.c"

#include "tests/fuzz/seeds.h"

void sp_seeds_cli(const char *dir)
{
    for (size_t i = 0; i < sizeof cli_cases / sizeof cli_cases[0]; ++i) {
        char name[32];
        snprintf(name, sizeof name, "case%02zu", i);
        sp_seed_write(dir, "cli", name, replaced(&cli_cases[i]));
    }
}
