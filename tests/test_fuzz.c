/* The fuzz harness without libFuzzer (issue 7): every input in tests/fuzz/regress/ (what
 * the fuzzer once found, fixed since), tests/fuzz/corpus/ (hand-made seeds) and data/
 * goes through LLVMFuzzerTestOneInput of tests/fuzz/fuzz_problem.c, compiled into this
 * binary, and must neither crash nor break one of its properties (it aborts when one
 * does; under `make asan` the sanitizers watch too). With SP_TEST_FUZZ_TRACE set, the name
 * of each input goes to stderr before it runs, to find the one that crashed. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds every regular file of dir (not recursing) to the harness; returns how many. */
static int replay(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    int n = 0;
    const int trace = getenv("SP_TEST_FUZZ_TRACE") != NULL;
    const struct dirent *de;
    while ((de = readdir(d))) {
        char path[PATH_SIZE];
        join(path, dir, de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "cannot read %s", path);
        uint8_t *data = malloc((size_t)st.st_size + 1);
        cr_assert_not_null(data);
        size_t size = fread(data, 1, (size_t)st.st_size, f);
        fclose(f);
        if (trace) fprintf(stderr, "fuzz replay: %s\n", path);
        /* a copy of exactly `size` bytes, as libFuzzer hands them over: no NUL after it */
        uint8_t *exact = malloc(size ? size : 1);
        cr_assert_not_null(exact);
        memcpy(exact, data, size);
        free(data);
        LLVMFuzzerTestOneInput(exact, size);
        free(exact);
        ++n;
    }
    closedir(d);
    return n;
}

Test(fuzz, the_regression_corpus_replays_cleanly, .timeout = 300)
{
    char dir[PATH_SIZE];
    join(dir, SP_TEST_FUZZ, "regress");
    int n = replay(dir);
    cr_log_info("%d regression inputs", n);
}

Test(fuzz, the_seed_corpus_replays_cleanly, .timeout = 300)
{
    char dir[PATH_SIZE];
    join(dir, SP_TEST_FUZZ, "corpus");
    cr_expect_gt(replay(dir), 0, "no seeds in %s", dir);
}

Test(fuzz, the_data_files_replay_cleanly, .timeout = 300)
{
    char dir[PATH_SIZE];
    cr_expect_gt(replay(SP_TEST_DATA), 0);
    join(dir, SP_TEST_DATA, "studies");
    replay(dir);
}
