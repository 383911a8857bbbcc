/* What the threads suite (tests/test_threads.c) and the standalone program of `make tsan`
 * (tests/tsan/threads_main.c) share: one small problem of every model family, and the
 * check that several threads solving them at once print exactly what one thread solving
 * them in turn prints. Everything goes through the library's public entry points
 * (sp_problem.h, sp_solve.h, sp_result_file.h), as a program embedding it would. */
#ifndef SP_TEST_THREADS_SCENARIOS_H
#define SP_TEST_THREADS_SCENARIOS_H

#include <stddef.h>

typedef struct threads_scenario {
    const char *file;   /* in the data folder */
    const char *edits;  /* a JSON object whose members replace or join the file's (null
                           removes one); NULL: the file as it is, read by sp_problem_read_file */
    int targets;        /* keep the first n targets (0: all of them) */
    const char *status; /* the status the problem ends with */
} threads_scenario;

extern const threads_scenario threads_scenarios[];
extern const size_t threads_scenario_count;

/* How many threads solve at once, and how many times each solves its share. */
#define THREADS_COUNT 8
#define THREADS_ROUNDS 3

/* Reads, solves and prints every scenario in turn on the calling thread, without the
 * wall-clock members: the references. Then starts `threads` threads together; thread t
 * solves scenarios t, t + threads, … in turn, `rounds` times over, and compares each
 * printed result with its reference; on the last round it writes the result into out_dir
 * (an existing folder, left as it was found) through sp_output_commit and compares the
 * file instead. Returns the number of failures — a sequential run that cannot be read,
 * fails or ends with another status than the table says, a result that differs from its
 * reference — with `why` saying what the first one was. */
int threads_check(const char *data_dir, const char *out_dir, int threads, int rounds, char *why, size_t why_size);

#endif
