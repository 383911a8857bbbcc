/* Helpers of the command-line suites (support.h). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support.h"
#include "problems/sp_result_file.h"

extern char **environ;

/* valgrind's exit status for the errors it found (make valgrind) */
#define VALGRIND_ERROR_EXIT 99

void sp_test_scratch_dir(char *dir, const char *suite, const char *test)
{
    if (mkdir(SP_TEST_TMP, 0755) != 0) cr_assert_eq(errno, EEXIST, "cannot create %s", SP_TEST_TMP);
    int n = snprintf(dir, PATH_SIZE, "%s/%s-%s-%ld", SP_TEST_TMP, suite, test, (long)getpid());
    cr_assert(n > 0 && n < PATH_SIZE);
    if (mkdir(dir, 0755) != 0) cr_assert_eq(errno, EEXIST, "cannot create %s", dir);
}

void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    const struct dirent *de;
    char path[PATH_SIZE];
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

void join(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, PATH_SIZE, "%s/%s", dir, name);
    cr_assert(n > 0 && n < PATH_SIZE, "path %s/%s too long", dir, name);
}

char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    size_t size = 0, cap = 1 << 16;
    char *text = malloc(cap + 1);
    cr_assert_not_null(text);
    size_t got;
    while ((got = fread(text + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap) {
            cap *= 2;
            text = realloc(text, cap + 1);
            cr_assert_not_null(text);
        }
    }
    fclose(f);
    text[size] = '\0';
    return text;
}

void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fputs(text, f) >= 0, 1);
    cr_assert_eq(fclose(f), 0);
}

void write_json(const char *path, const cJSON *doc)
{
    char *text = sp_json_print(doc, 1, NULL); /* numbers exactly (cJSON_Print rounds some) */
    cr_assert_not_null(text);
    write_text(path, text);
    free(text);
}

cJSON *read_json(const char *path)
{
    char *text = slurp(path);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "%s is not JSON", path);
    free(text);
    return doc;
}

/* The log valgrind writes for the run with this pid. */
static void valgrind_log(char *out, const char *dir, long pid) { snprintf(out, PATH_SIZE, "%s/valgrind-%ld.log", dir, pid); }

pid_t start(const char *dir, const char *program, const char *const *args, int group)
{
    char out_path[PATH_SIZE], err_path[PATH_SIZE], log_option[PATH_SIZE + 32];
    join(out_path, dir, "captured-stdout");
    join(err_path, dir, "captured-stderr");
    const char *argv[48];
    int argc = 0;
    const int valgrind = !program && getenv("SP_TEST_VALGRIND") && getenv("SP_TEST_VALGRIND")[0];
    if (valgrind) {
        snprintf(log_option, sizeof log_option, "--log-file=%s/valgrind-%%p.log", dir);
        static const char *const vg[] = {"valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                                         "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite"};
        for (size_t k = 0; k < sizeof vg / sizeof vg[0]; ++k) argv[argc++] = vg[k];
        argv[argc++] = log_option;
    }
    argv[argc++] = program ? program : SP_TEST_BIN;
    for (int k = 0; args[k]; ++k) {
        cr_assert_lt(argc, 47);
        argv[argc++] = args[k];
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&io, STDERR_FILENO, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (group) {
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    }
    pid_t pid;
    int rc = program || valgrind ? posix_spawnp(&pid, argv[0], &io, &attr, (char *const *)argv, environ)
                                 : posix_spawn(&pid, argv[0], &io, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&io);
    posix_spawnattr_destroy(&attr);
    cr_assert_eq(rc, 0, "cannot run %s: %s", argv[0], strerror(rc));
    return pid;
}

void finish(const char *dir, pid_t pid, run_result *r)
{
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    char out_path[PATH_SIZE], err_path[PATH_SIZE], log[PATH_SIZE];
    join(out_path, dir, "captured-stdout");
    join(err_path, dir, "captured-stderr");
    r->out = slurp(out_path);
    r->err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    cr_assert(WIFEXITED(ws), "the command died by signal %d; stderr: %s", WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, r->err);
    r->status = WEXITSTATUS(ws);
    valgrind_log(log, dir, (long)pid);
    if (access(log, F_OK) == 0) {
        /* workers of a study write logs of their own: every one must be clean */
        DIR *d = opendir(dir);
        const struct dirent *de;
        while (d && (de = readdir(d))) {
            if (strncmp(de->d_name, "valgrind-", 9) != 0) continue;
            char path[PATH_SIZE];
            join(path, dir, de->d_name);
            char *report = slurp(path);
            cr_assert(r->status != VALGRIND_ERROR_EXIT && report[0] == '\0', "valgrind (exit %d) in %s:\n%.6000s",
                      r->status, de->d_name, report);
            free(report);
            unlink(path);
        }
        if (d) closedir(d);
    }
}

void run(const char *dir, const char *const *args, run_result *r) { finish(dir, start(dir, NULL, args, 0), r); }

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

const cJSON *result_member(const cJSON *obj, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert_not_null(x, "no member '%s' in the result", key);
    return x;
}

double number_at(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    cr_assert(cJSON_IsNumber(v), "no number '%s' in the result", key);
    return v->valuedouble;
}

const char *string_at(const cJSON *obj, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
    cr_assert_not_null(s, "no string '%s' in the result", key);
    return s;
}

int is_one_line(const char *text)
{
    const char *nl = strchr(text, '\n');
    return nl && nl[1] == '\0' && nl != text;
}

int starts_with(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

int count_named(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    const struct dirent *de;
    while ((de = readdir(d))) n += strstr(de->d_name, part) != NULL;
    closedir(d);
    return n;
}

int count_temporaries(const char *dir) { return count_named(dir, ".tmp-"); }
