/* The store of a study's results: one file per case, staged and put in place under the
 * folder's lock, read back when complete, and the log that records each case as it ends
 * so that a study stopped anywhere resumes where it was (sp_study.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h> /* flock */
#include <sys/stat.h>
#include <unistd.h>

#include "planner/sp_clock.h"
#include "planner/sp_solve.h"
#include "planner/study/sp_study.h"
#include "planner/study/study_internal.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* The case block of a result file: index, values and the full problem. */
static cJSON *case_block(const sp_study *s, size_t i, cJSON *problem)
{
    cJSON *block = cJSON_CreateObject();
    if (!block) return NULL;
    cJSON_AddNumberToObject(block, "index", (double)i);
    cJSON_AddItemToObject(block, "values", sp_study_case_values(s, i));
    cJSON_AddItemToObject(block, "problem", problem);
    return block;
}


/* How a finished case file is put in place by sp_study_run_case_locked. */
typedef struct publisher {
    int (*still_wanted)(void *ctx);
    void *ctx;
} publisher;

int sp_study_lock(const char *dir)
{
    int fd = open(dir && dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

void sp_study_unlock(int lock)
{
    if (lock >= 0) close(lock); /* the lock goes with the last descriptor of its opening */
}

/* Renames the complete file `staged` to `path` under DIR's lock, the summaries removed
 * first: a summary is either absent or written after the rename, by someone holding the
 * lock. On failure the staged file is removed. */
static sp_status publish(const publisher *pub, const char *staged, const char *path, const char *dir, char *why,
                         size_t why_size)
{
    char summary[4096];
    int lock = sp_study_lock(dir);
    sp_status st = SP_OK;
    if (pub->still_wanted && !pub->still_wanted(pub->ctx)) {
        snprintf(why, why_size, "the study stopped before %s was put in place", path);
        st = SP_ERR_INTERRUPTED;
    } else {
        sp_study_join(summary, sizeof summary, dir, "summary.json");
        unlink(summary);
        sp_study_join(summary, sizeof summary, dir, "summary.csv");
        unlink(summary);
        if (rename(staged, path) != 0) {
            snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
            st = SP_ERR_IO;
        }
    }
    sp_study_unlock(lock);
    if (st != SP_OK) unlink(staged);
    return st;
}

/* Runs case i into its file: straight through its output when `pub` is NULL, else
 * staged and published. */
static sp_status run_case(const sp_study *s, size_t i, const char *dir, const publisher *pub, cJSON **figures,
                          char *why, size_t why_size)
{
    if (figures) *figures = NULL;
    sp_study_error err;
    cJSON *problem = sp_study_case_problem(s, i, &err);
    if (!problem) {
        snprintf(why, why_size, "%s%s%s", err.input.path, err.input.path[0] ? ": " : "", err.input.message);
        return SP_ERR_INVALID;
    }
    char *text = sp_json_print(problem, 0, NULL);
    sp_problem pb;
    sp_status st = text ? sp_problem_parse_limited(text, strlen(text), &s->limits, &pb, &err.input) : SP_ERR_NOMEM;
    free(text);
    if (st != SP_OK) {
        cJSON_Delete(problem);
        snprintf(why, why_size, "%s%s%s", err.input.path, err.input.path[0] ? ": " : "",
                 st == SP_ERR_NOMEM ? "out of memory" : err.input.message);
        return st;
    }
    char name[64], path[4096], staged[4096 + 64];
    sp_study_case_file(i, name, sizeof name);
    sp_study_join(path, sizeof path, dir, name);
    /* one process stages one case at a time: its pid makes the name unique */
    snprintf(staged, sizeof staged, "%s.tmp-staged-%ld", path, (long)getpid());
    sp_output out;
    st = sp_output_open(&out, pub ? staged : path, why, why_size);
    if (st != SP_OK) {
        cJSON_Delete(problem);
        sp_problem_free(&pb);
        return st;
    }
    cJSON *result = sp_solve_json(&pb, NULL);
    sp_problem_free(&pb);
    cJSON *wall = result ? sp_result_detach_wall_clock(result) : NULL;
    cJSON *block = wall ? case_block(s, i, problem) : NULL;
    if (!block) {
        cJSON_Delete(problem);
        cJSON_Delete(result);
        cJSON_Delete(wall);
        sp_output_abandon(&out);
        snprintf(why, why_size, "out of memory");
        return SP_ERR_NOMEM;
    }
    cJSON_Delete(wall);
    cJSON_AddItemToObject(result, "case", block);
    st = sp_output_commit(&out, result, why, why_size);
    if (st == SP_OK && pub) st = publish(pub, staged, path, dir, why, why_size);
    if (st == SP_OK && figures) *figures = sp_study_result_figures(result);
    cJSON_Delete(result);
    return st;
}

sp_status sp_study_run_case(const sp_study *s, size_t i, const char *dir, cJSON **figures, char *why, size_t why_size)
{
    return run_case(s, i, dir, NULL, figures, why, why_size);
}

sp_status sp_study_run_case_locked(const sp_study *s, size_t i, const char *dir, int (*still_wanted)(void *ctx),
                                   void *ctx, cJSON **figures, char *why, size_t why_size)
{
    const publisher pub = {.still_wanted = still_wanted, .ctx = ctx};
    return run_case(s, i, dir, &pub, figures, why, why_size);
}

cJSON *sp_study_load_case(const sp_study *s, size_t i, const char *dir)
{
    char name[64], path[4096];
    sp_study_case_file(i, name, sizeof name);
    sp_study_join(path, sizeof path, dir, name);
    if (access(path, F_OK) != 0) return NULL;
    cJSON *doc = NULL;
    sp_input_error in;
    if (sp_json_read_document(path, s->read_cap, &doc, &in) != SP_OK) return NULL;
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(doc, "case");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(block, "index");
    int ok = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "status")) && cJSON_IsNumber(index) &&
             index->valuedouble == (double)i;
    if (ok) {
        /* the same problem, compared as text: numbers print the same only when equal */
        sp_study_error err;
        cJSON *problem = sp_study_case_problem(s, i, &err);
        char *want = problem ? sp_json_print(problem, 0, NULL) : NULL;
        char *have = sp_json_print(cJSON_GetObjectItemCaseSensitive(block, "problem"), 0, NULL);
        ok = want && have && strcmp(want, have) == 0;
        free(want);
        free(have);
        cJSON_Delete(problem);
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

int sp_study_remove_temporaries(const char *dir)
{
    DIR *d = opendir(dir && dir[0] ? dir : ".");
    if (!d) return 0;
    int removed = 0;
    const struct dirent *de;
    char path[4096];
    while ((de = readdir(d))) {
        const char *n = de->d_name;
        if ((strncmp(n, "case-", 5) == 0 || strncmp(n, "summary.", 8) == 0) && strstr(n, ".tmp-")) {
            sp_study_join(path, sizeof path, dir, n);
            removed += unlink(path) == 0;
        }
    }
    closedir(d);
    return removed;
}
/* ------------------------------------------------------------- the log -- */

struct sp_study_log {
    const sp_study *study;
    char *dir;
    int fd;
    cJSON **last;     /* per case, its latest intact record (NULL: none) */
    size_t *at;       /* and where in the file it starts */
    size_t run_start; /* the size of the log when this run opened it */
    int unsynced;     /* records written since the last sync */
    double synced_at;
};

/* How long a record may wait for its sync. Every record is on its way to the disk the
 * moment it is written (a kill loses none); only a crash of the machine can lose the
 * unsynced ones, and then their cases are read back from their files on resume. A sync
 * per record would cost trivial cases more than the cases themselves. */
#define LOG_SYNC_SECONDS 1.0

/* A record's line: its compact JSON, a space, the FNV-1a of that JSON, a newline. */
#define LOG_CHECK_CHARS 16

/* The record in line[0…n) (without its newline), or NULL when it is torn or damaged. */
static cJSON *parse_record(const char *line, size_t n, size_t n_cases)
{
    if (n < LOG_CHECK_CHARS + 2 || line[n - LOG_CHECK_CHARS - 1] != ' ') return NULL;
    const size_t json = n - LOG_CHECK_CHARS - 1;
    char check[LOG_CHECK_CHARS + 1];
    sp_study_fnv1a_hex(line, json, check, sizeof check);
    if (memcmp(check, line + json + 1, LOG_CHECK_CHARS) != 0) return NULL;
    cJSON *rec = cJSON_ParseWithLength(line, json);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(rec, "case");
    if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble >= (double)n_cases ||
        c->valuedouble != (double)(size_t)c->valuedouble) {
        cJSON_Delete(rec);
        return NULL;
    }
    return rec;
}

/* Reads the whole log; keeps each case's latest intact record and cuts the file after
 * the last one, so that what a kill left half-written is dropped and the next record
 * starts on a line of its own. */
static sp_status read_log(sp_study_log *log, const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (fstat(log->fd, &st) != 0) goto io;
    size_t size = (size_t)st.st_size, got = 0;
    char *text = malloc(size + 1);
    if (!text) {
        snprintf(why, why_size, "out of memory while reading %s", path);
        return SP_ERR_NOMEM;
    }
    while (got < size) {
        ssize_t n = pread(log->fd, text + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    size_t kept = 0;
    for (size_t at = 0; at < got;) {
        const char *end = memchr(text + at, '\n', got - at);
        if (!end) break;
        size_t n = (size_t)(end - (text + at));
        cJSON *rec = parse_record(text + at, n, log->study->n_cases);
        at += n + 1;
        if (!rec) continue;
        size_t i = (size_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "case"));
        cJSON_Delete(log->last[i]);
        log->last[i] = rec;
        log->at[i] = at - n - 1;
        kept = at;
    }
    free(text);
    if (kept < size && ftruncate(log->fd, (off_t)kept) != 0) goto io;
    return SP_OK;
io:
    snprintf(why, why_size, "cannot read %s: %s", path, strerror(errno));
    return SP_ERR_IO;
}

sp_status sp_study_log_open(const sp_study *s, const char *dir, sp_study_log **out, char *why, size_t why_size)
{
    *out = NULL;
    char path[4096];
    sp_study_join(path, sizeof path, dir, SP_STUDY_LOG_FILE);
    sp_study_log *log = calloc(1, sizeof *log);
    if (log) {
        log->study = s;
        log->fd = -1;
        log->dir = strdup(dir && dir[0] ? dir : ".");
        log->last = calloc(s->n_cases ? s->n_cases : 1, sizeof *log->last);
        log->at = calloc(s->n_cases ? s->n_cases : 1, sizeof *log->at);
    }
    if (!log || !log->dir || !log->last || !log->at) {
        sp_study_log_close(log);
        snprintf(why, why_size, "out of memory");
        return SP_ERR_NOMEM;
    }
    log->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log->fd < 0) {
        snprintf(why, why_size, "cannot open %s: %s", path, strerror(errno));
        sp_study_log_close(log);
        return SP_ERR_IO;
    }
    /* A record lock (not flock): it belongs to this process alone, so that workers forked
     * from it do not hold it after it dies, and it goes when the process ends, however. */
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(log->fd, F_SETLK, &whole) != 0 && (errno == EACCES || errno == EAGAIN)) {
        snprintf(why, why_size, "another study is running in this folder (it holds the lock on %s)", path);
        sp_study_log_close(log);
        return SP_ERR_INVALID;
    }
    sp_status st = read_log(log, path, why, why_size);
    if (st != SP_OK) {
        sp_study_log_close(log);
        return st;
    }
    log->synced_at = sp_clock_seconds();
    struct stat st_log;
    log->run_start = fstat(log->fd, &st_log) == 0 ? (size_t)st_log.st_size : 0;
    *out = log;
    return SP_OK;
}

int sp_study_log_sync(sp_study_log *log, int now)
{
    if (!log->unsynced || (!now && sp_clock_seconds() - log->synced_at < LOG_SYNC_SECONDS)) return 0;
    if (fdatasync(log->fd) != 0) return -1;
    log->unsynced = 0;
    log->synced_at = sp_clock_seconds();
    return 0;
}

void sp_study_log_close(sp_study_log *log)
{
    if (!log) return;
    if (log->fd >= 0) {
        sp_study_log_sync(log, 1);
        close(log->fd);
    }
    for (size_t i = 0; log->last && i < log->study->n_cases; ++i) cJSON_Delete(log->last[i]);
    free(log->last);
    free(log->at);
    free(log->dir);
    free(log);
}

/* Appends one line whole: a single write, continued only if the system cut it short. */
static int append_line(int fd, const char *line, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, line, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        line += w, n -= (size_t)w;
    }
    return 0;
}

sp_status sp_study_log_record(sp_study_log *log, sp_study_summary *sum, size_t i, const cJSON *figures,
                              const char *failure, double wall_seconds, char *why, size_t why_size)
{
    sp_status st = !sum      ? SP_OK
                   : figures ? sp_study_summary_set_figures(sum, i, figures, wall_seconds)
                             : sp_study_summary_set_failed(sum, i, failure, wall_seconds);
    if (st != SP_OK) {
        snprintf(why, why_size, "cannot record case %zu: %s", i, sp_status_message(st));
        return st;
    }
    char hash[32];
    sp_study_input_hash(log->study, i, hash, sizeof hash);
    cJSON *rec = cJSON_CreateObject();
    if (rec) {
        cJSON_AddNumberToObject(rec, "case", (double)i);
        cJSON_AddStringToObject(rec, "input_hash", hash);
        cJSON_AddItemToObject(rec, "wall_seconds",
                              isfinite(wall_seconds) ? cJSON_CreateNumber(wall_seconds) : cJSON_CreateNull());
        if (figures) {
            /* the size the file had when it was put in place, which a resumed run checks
             * instead of reading the file back */
            char name[64], path[4096];
            struct stat fs;
            sp_study_case_file(i, name, sizeof name);
            sp_study_join(path, sizeof path, log->dir, name);
            cJSON_AddNumberToObject(rec, "bytes", stat(path, &fs) == 0 ? (double)fs.st_size : -1.0);
            cJSON_AddItemReferenceToObject(rec, "figures", (cJSON *)figures);
        } else {
            cJSON_AddStringToObject(rec, "error", failure ? failure : "failed");
        }
    }
    size_t n = 0;
    char *json = rec ? sp_json_print(rec, 0, &n) : NULL;
    cJSON_Delete(rec);
    char *line = json ? realloc(json, n + LOG_CHECK_CHARS + 3) : NULL;
    if (!line) {
        free(json);
        snprintf(why, why_size, "out of memory while recording case %zu", i);
        return SP_ERR_NOMEM;
    }
    line[n] = ' ';
    sp_study_fnv1a_hex(line, n, line + n + 1, LOG_CHECK_CHARS + 1);
    line[n + 1 + LOG_CHECK_CHARS] = '\n';
    int ok = append_line(log->fd, line, n + LOG_CHECK_CHARS + 2) == 0;
    free(line);
    log->unsynced += ok;
    ok = ok && sp_study_log_sync(log, 0) == 0;
    if (!ok) {
        snprintf(why, why_size, "cannot append to %s/%s: %s", log->dir, SP_STUDY_LOG_FILE, strerror(errno));
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* Whether case i's latest record says its file was put in place for the case as it is
 * now, and the file is there with the size it had then. */
static const cJSON *finished_figures(const sp_study_log *log, const sp_study_summary *sum, size_t i)
{
    const cJSON *rec = log->last[i];
    const cJSON *figures = cJSON_GetObjectItemCaseSensitive(rec, "figures");
    const char *h1 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "input_hash"));
    const char *h2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sum->row[i], "input_hash"));
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(rec, "bytes");
    if (!cJSON_IsObject(figures) || !h1 || !h2 || strcmp(h1, h2) != 0 || !cJSON_IsNumber(bytes)) return NULL;
    char name[64], path[4096];
    struct stat fs;
    sp_study_case_file(i, name, sizeof name);
    sp_study_join(path, sizeof path, log->dir, name);
    return stat(path, &fs) == 0 && (double)fs.st_size == bytes->valuedouble ? figures : NULL;
}

/* The wall time of case i's latest record (NaN: none). */
static double record_wall(const sp_study_log *log, size_t i)
{
    const cJSON *wall = cJSON_GetObjectItemCaseSensitive(log->last[i], "wall_seconds");
    return cJSON_IsNumber(wall) ? wall->valuedouble : NAN;
}

static void forget_records(sp_study_log *log)
{
    for (size_t i = 0; i < log->study->n_cases; ++i) {
        cJSON_Delete(log->last[i]);
        log->last[i] = NULL;
    }
}

size_t sp_study_log_resume(sp_study_log *log, sp_study_summary *sum, size_t *todo)
{
    const size_t total = log->study->n_cases;
    size_t n = 0, n_read = 0;
    for (size_t i = 0; i < total; ++i) {
        const cJSON *figures = finished_figures(log, sum, i);
        if (figures) {
            sp_study_summary_set_figures(sum, i, figures, record_wall(log, i));
            continue;
        }
        /* a file the log does not vouch for (an older folder, a record lost with the
         * machine) is read back; its figures wait in its slot, its index at the end of
         * todo, until it is recorded below */
        cJSON *result = sp_study_load_case(log->study, i, log->dir);
        cJSON *found = result ? sp_study_result_figures(result) : NULL;
        cJSON_Delete(result);
        cJSON_Delete(log->last[i]);
        log->last[i] = found;
        if (found) {
            sp_study_summary_set_figures(sum, i, found, NAN);
            todo[total - ++n_read] = i;
        } else {
            todo[n++] = i;
        }
    }
    /* the wall times of files read back come from the summary of the run that made them,
     * and go into their records, so that each is read once (a record that cannot be
     * written only means reading the file again next time) */
    sp_study_summary_reuse_wall_times(sum, log->dir);
    for (size_t k = total - n_read; k < total; ++k) {
        const cJSON *wall = cJSON_GetObjectItemCaseSensitive(sum->row[todo[k]], "wall_seconds");
        char why[256];
        sp_study_log_record(log, NULL, todo[k], log->last[todo[k]], NULL,
                            cJSON_IsNumber(wall) ? wall->valuedouble : NAN, why, sizeof why);
    }
    forget_records(log);
    return n;
}

sp_status sp_study_log_summary(sp_study_log *log, sp_study_summary *sum, char *why, size_t why_size)
{
    char path[4096];
    sp_study_join(path, sizeof path, log->dir, SP_STUDY_LOG_FILE);
    sp_status st = read_log(log, path, why, why_size);
    for (size_t i = 0; st == SP_OK && i < log->study->n_cases; ++i) {
        const cJSON *figures = finished_figures(log, sum, i);
        const char *error = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log->last[i], "error"));
        const char *h1 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(log->last[i], "input_hash"));
        const char *h2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sum->row[i], "input_hash"));
        if (figures)
            st = sp_study_summary_set_figures(sum, i, figures, record_wall(log, i));
        else if (error && log->at[i] >= log->run_start && h1 && h2 && strcmp(h1, h2) == 0)
            st = sp_study_summary_set_failed(sum, i, error, record_wall(log, i)); /* failed in this run */
    }
    forget_records(log);
    if (st == SP_ERR_NOMEM) snprintf(why, why_size, "out of memory while building the summary");
    return st;
}
