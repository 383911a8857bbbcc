/* `build/fuzz/seeds DIR`: writes the malformed documents of the test suites into DIR as
 * seeds of the fuzzer's corpus (make fuzz), next to data/ and tests/fuzz/corpus/. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/seeds.h"

void sp_seed_write(const char *dir, const char *suite, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%s.json", dir, suite, name);
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "seeds: cannot write %s\n", path);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: seeds DIR\n", stderr);
        return 2;
    }
    sp_seeds_problem_file(argv[1]);
    sp_seeds_cli(argv[1]);
    return 0;
}
