/* What the command-line suites (test_cli.c, test_plot.c, test_study.c, test_failures.c)
 * share: scratch directories, reading and writing files, and running the symplan command
 * as a child process with its stdout and stderr captured in files.
 *
 * With SP_TEST_VALGRIND set in the environment (`make valgrind`), every run of the
 * command goes through valgrind's memcheck (--leak-check=full, definite leaks count as
 * errors, the log in a file of the scratch directory); a run it finds errors in fails its
 * test with valgrind's report. */
#ifndef SP_TEST_SUPPORT_H
#define SP_TEST_SUPPORT_H

#include <cjson/cJSON.h>
#include <sys/types.h>

#define PATH_SIZE 4096

/* SP_TEST_TMP/<suite>-<test>-<pid>, created (a scratch directory per test and process, so
 * that parallel jobs never share one). */
void sp_test_scratch_dir(char *dir, const char *suite, const char *test);
/* Removes a scratch directory tree of plain files and folders. */
void remove_tree(const char *dir);
/* dir/name into out (PATH_SIZE bytes). */
void join(char *out, const char *dir, const char *name);

char *slurp(const char *path); /* the whole file, NUL-terminated; free it */
void write_text(const char *path, const char *text);
void write_json(const char *path, const cJSON *doc); /* numbers printed exactly */
cJSON *read_json(const char *path); /* asserts that the file is JSON */

typedef struct run_result {
    int status; /* exit status */
    char *out, *err;
} run_result;

/* Starts `program` (the symplan command when NULL, else found on PATH) with args
 * (NULL-terminated, without argv[0]), stdout and stderr to files in dir; in a process
 * group of its own when `group`. */
pid_t start(const char *dir, const char *program, const char *const *args, int group);
/* Waits for it and reads what it wrote; asserts that it exited (not killed by a signal). */
void finish(const char *dir, pid_t pid, run_result *r);
/* start + finish of the symplan command. */
void run(const char *dir, const char *const *args, run_result *r);
void run_free(run_result *r);

/* Members of a result object, asserted to be there: any member, a number, a string. */
const cJSON *result_member(const cJSON *obj, const char *key);
double number_at(const cJSON *obj, const char *key);
const char *string_at(const cJSON *obj, const char *key);

/* The parameters of a table-driven test (criterion/parameterized.h): the indices 0 to
 * count − 1 of its table, which stays in static storage. */
#define SP_TABLE_PARAMETERS(suite, test, count)                                                                        \
    ParameterizedTestParameters(suite, test)                                                                           \
    {                                                                                                                  \
        static size_t index[count];                                                                                    \
        for (size_t i = 0; i < (count); ++i) index[i] = i;                                                             \
        return cr_make_param_array(size_t, index, (count));                                                            \
    }

/* Exactly one line: text ends in its only newline. */
int is_one_line(const char *text);
int starts_with(const char *text, const char *prefix);
/* Entries of dir whose name contains `part`; abandoned temporaries (NAME.tmp-XXXXXX). */
int count_named(const char *dir, const char *part);
int count_temporaries(const char *dir);

#endif
