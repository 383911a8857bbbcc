/* Studies: one problem run over a grid of settings, each case to its own result file,
 * with a summary of them all. This is the part of `symplan study` that needs no
 * processes: reading and expanding the study file, validating every case, running one
 * case into its file, recognising a complete result left by an earlier run, and the
 * summary tables (study_file.c, study_store.c, study_summary.c). The run
 * (sp_study_run.h) runs the cases in worker processes or MPI ranks and reports progress.
 *
 * A study file:
 *
 *     { "name": "convergence",                      (optional; default: the file's name)
 *       "base": "sphere_interpolation.json",        (a path relative to the study file,
 *                                                     or the problem itself as an object)
 *       "vary": { "steps": [50, 100, 200], "scheme": ["hohp_euler", "hohp_sv"] } }
 *
 * or, instead of "vary", "cases": [ {"steps": 50}, {"steps": 100, "scheme": "hohp_euler"} ]
 * (explicit overrides, one object per case). "description" is allowed and ignored.
 *
 * Keys are field paths into the problem: names joined by dots, array elements by [i]
 * ("optimizer.algorithm", "targets[1].t", "params.L"). An override replaces the value
 * at its path (any JSON value); missing objects on the way are created; an index may
 * name an existing element or, for the last step of a path, the element just past the
 * end (appending).
 *
 * "vary" expands to the cartesian product of its lists as nested loops in the order the
 * keys are written, the first key outermost: {"a": [1, 2], "b": [x, y, z]} gives cases
 * 0…5 = (1,x) (1,y) (1,z) (2,x) (2,y) (2,z). Case i's result is DIR/case-%04d.json. */
#ifndef SP_STUDY_H
#define SP_STUDY_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_limits.h"
#include "problems/sp_problem.h"

/* What is wrong with a study: in the study file itself (case_index −1; input.path is a
 * JSON path in the study file) or in one case (input.path is the override or the
 * problem field at fault, as the problem reader names it). */
typedef struct sp_study_error {
    long case_index;
    sp_input_error input;
} sp_study_error;

typedef struct sp_study sp_study;

/* Whether a parsed document is meant as a study rather than a problem: an object with
 * any of the members only a study has ("base", "vary", "cases"). Every front end (the
 * command line, the text API) tells the two apart by this one rule. */
int sp_study_document_is_study(const cJSON *doc);
/* The same rule on a text, which costs the names of its top level only: *is_study set, or the text's error when it is not
 * strict JSON (SP_ERR_INVALID) or cannot be read for want of memory (SP_ERR_NOMEM). */
sp_status sp_study_text_is_study(const char *text, size_t length, int *is_study, sp_input_error *err);

/* Reads a study, expands it and validates every case with the problem reader. On
 * failure returns SP_ERR_INVALID (SP_ERR_IO when the study or base file cannot be read,
 * SP_ERR_NOMEM) with *err filled and *out NULL. `base_dir` resolves a relative "base"
 * path (NULL: the working directory); sp_study_read_file uses the study file's folder. */
sp_status sp_study_parse(const char *text, size_t length, const char *base_dir, sp_study **out, sp_study_error *err);
sp_status sp_study_read_file(const char *path, sp_study **out, sp_study_error *err);
/* The same under resource limits (NULL: the defaults of sp_limits.h, which the plain
 * functions apply): at most limits->cases cases, each problem within the limits, which
 * the study keeps for sp_study_run_case. */
sp_status sp_study_parse_limited(const char *text, size_t length, const char *base_dir, const sp_limits *limits,
                                 sp_study **out, sp_study_error *err);
sp_status sp_study_read_file_limited(const char *path, const sp_limits *limits, sp_study **out, sp_study_error *err);
/* sp_study_read_file_limited on the text of the file at `path`, already read (once, by
 * a caller that looked at it first): "base" relative to the file's folder, the study
 * named after the file unless it has a "name". */
sp_status sp_study_parse_file_text(const char *path, const char *text, size_t length, const sp_limits *limits,
                                   sp_study **out, sp_study_error *err);
void sp_study_free(sp_study *s);

/* The study's name (owned by the study) and its number of cases. */
const char *sp_study_name(const sp_study *s);
size_t sp_study_case_count(const sp_study *s);
/* The varied field paths, in the order of their first appearance (array of strings). */
const cJSON *sp_study_parameters(const sp_study *s);

/* Case i's overrides as a new object {path: value} (NULL when out of memory). */
cJSON *sp_study_case_values(const sp_study *s, size_t i);
/* Case i's problem: the base with case i's overrides applied, as a new tree. NULL with
 * *err filled when an override cannot be applied (or memory runs out). */
cJSON *sp_study_case_problem(const sp_study *s, size_t i, sp_study_error *err);
/* "case-0003.json" */
void sp_study_case_file(size_t i, char *name, size_t size);

/* Sets the value at a field path (syntax above) in the tree `root`, which must be an
 * object; `value` is copied. Returns 0, or −1 with a message in why and the tree as it
 * was. */
int sp_json_set_path(cJSON *root, const char *path, const cJSON *value, char *why, size_t why_size);

/* Runs case i and writes its result to DIR/case-NNNN.json (temporary file, then
 * rename). The file is the result of `symplan solve` on the case's problem without its
 * wall-clock numbers (sp_result_detach_wall_clock), plus a "case" block:
 * {"index": i, "values": {...}, "problem": {the case's full problem}}. So a case file is
 * the same bytes whatever the run that wrote it. When `figures` is not NULL it receives
 * the result's sp_study_result_figures (NULL when out of memory). On failure returns the
 * status with a message in why; nothing is left in DIR. */
sp_status sp_study_run_case(const sp_study *s, size_t i, const char *dir, cJSON **figures, char *why, size_t why_size);

/* The same, for a run whose summary must stay true to the case files while workers add
 * them (sp_study_lock): the finished file is staged beside its place (NAME.tmp-…) and
 * then, under DIR's lock, DIR/summary.json and DIR/summary.csv are removed and the file
 * renamed into place, so that a summary present in DIR never lists more or fewer
 * results than there are case files; the caller writes the summary under the lock.
 * `still_wanted` (NULL: always) is asked under the lock just before the rename: when it
 * returns 0 (a worker whose parent has gone) the file is dropped and the status is
 * SP_ERR_INTERRUPTED. */
sp_status sp_study_run_case_locked(const sp_study *s, size_t i, const char *dir, int (*still_wanted)(void *ctx),
                                   void *ctx, cJSON **figures, char *why, size_t why_size);

/* DIR's lock, which sp_study_run_case_locked holds while it adds a case file: whoever
 * writes the summary holds it too, so that no case file appears between reading what
 * DIR holds and renaming the summary into place. Blocks until it is free; returns what
 * sp_study_unlock takes (−1 when the file system cannot lock: then nothing is locked). */
int sp_study_lock(const char *dir);
void sp_study_unlock(int lock);

/* Case i's result in DIR when it is complete and was computed for the case as it is
 * now (same index and the same problem, field for field); NULL otherwise, and NULL for a
 * file larger than the study's read cap (64 MiB unless set below). */
cJSON *sp_study_load_case(const sp_study *s, size_t i, const char *dir);
/* Sets the largest case file sp_study_load_case reads back (bytes > 0; else the default
 * 64 MiB). A study whose results exceed it still resumes without recomputing them: their
 * completion is in the log below. */
void sp_study_set_read_cap(sp_study *s, long bytes);

/* Removes the temporary files (NAME.tmp-… of case files and summaries) that a killed
 * run left in DIR. Returns how many. */
int sp_study_remove_temporaries(const char *dir);

/* The summary of a study: one row per case, in case order.
 *
 * summary.json: {"study": name, "cases": N, "done": d, "failed": f,
 *                "parameters": [paths], "rows": [row…]}
 * row: {"case": i, "file": "case-0003.json", "input_hash": "<FNV-1a of the problem>",
 *       "values": {path: value…}, "status": "converged" | "ok" | … | "pending" | "failed",
 *       "error": "…" (failed only), "wall_seconds": s (null when not known),
 *       then every number of the result: its top-level numbers under their names
 *       ("cost", "iterations", "gradient_norm", "residual"…), the members of
 *       "diagnostics" under theirs ("momentum_map_drift"…) and the numbers of its other
 *       objects as "object.name" ("terminal_residual.norm", "timing.forward_sweeps")}.
 * summary.csv: a header row, then one line per case: case, file, one column per
 * parameter, status, wall_seconds, then the union of the numbers' names in order of
 * first appearance (a name equal to a parameter's is left out of the CSV). */
typedef struct sp_study_summary sp_study_summary;

sp_study_summary *sp_study_summary_new(const sp_study *s); /* every row pending */
void sp_study_summary_free(sp_study_summary *sum);
/* What a summary row takes from a result, as a new flat object: "status" and every
 * number named as described above (NULL when out of memory). Small enough to pass
 * between processes where the whole result is not. */
cJSON *sp_study_result_figures(const cJSON *result);
/* Case i finished with `result` (not kept) after wall_seconds (NaN: unknown). */
sp_status sp_study_summary_set_result(sp_study_summary *sum, size_t i, const cJSON *result, double wall_seconds);
/* The same from the result's figures (not kept). */
sp_status sp_study_summary_set_figures(sp_study_summary *sum, size_t i, const cJSON *figures, double wall_seconds);
/* Case i failed without a result. */
sp_status sp_study_summary_set_failed(sp_study_summary *sum, size_t i, const char *why, double wall_seconds);
/* Takes the wall time of every done row that has none (a case file the log does not
 * list) from a row of the summary.json already in DIR with the same case and input hash. */
void sp_study_summary_reuse_wall_times(sp_study_summary *sum, const char *dir);
size_t sp_study_summary_done(const sp_study_summary *sum);   /* with a result */
size_t sp_study_summary_failed(const sp_study_summary *sum); /* failed */
/* Writes DIR/summary.json and DIR/summary.csv, each atomically. */
sp_status sp_study_summary_write(const sp_study_summary *sum, const char *dir, char *why, size_t why_size);

/* The log of finished cases, DIR/cases.log: what a run knows of its cases, kept at a
 * constant cost per case (the summary, whose every rewrite costs all its rows, is built
 * from it at the start and at the end of a run). One line per finished case, appended
 * as the case is recorded and never rewritten:
 *
 *     {"case": i, "input_hash": h, "wall_seconds": s, "bytes": b, "figures": {...}} CHECK
 *     {"case": i, "input_hash": h, "wall_seconds": s, "error": "why"} CHECK
 *
 * where h is the summary's input hash of the case's problem, b the size of the case file
 * when it was put in place, figures what sp_study_result_figures took from the result,
 * and CHECK the 16 hex digits of the FNV-1a of the JSON before it. A line that does not
 * end in a newline or whose CHECK does not match (a write cut short by a kill or a
 * crash) is ignored; the latest intact line of a case counts. */
#define SP_STUDY_LOG_FILE "cases.log"
typedef struct sp_study_log sp_study_log;

/* Opens DIR/cases.log (created if missing) for a run of study s and takes DIR's study
 * lock, a lock of this process on the log that lasts until sp_study_log_close or the
 * process's end: SP_ERR_INVALID with why saying so when another process holds it (one
 * study at a time per folder). It is a record lock (fcntl), which forked workers do not
 * inherit: so it goes with the process, however it ends, but it does not keep a second
 * log of the same folder out of this same process, and closing either releases it.
 * Reads the records and cuts off a torn last one. Other failures: SP_ERR_IO,
 * SP_ERR_NOMEM. */
sp_status sp_study_log_open(const sp_study *s, const char *dir, sp_study_log **out, char *why, size_t why_size);
void sp_study_log_close(sp_study_log *log); /* releases the lock; NULL is a no-op */

/* Puts in the summary (every row pending) the cases the log says are finished — latest
 * record with figures, the same input hash, and the case file there with the size
 * recorded — without reading their files, however large. A case file the log does not
 * vouch for is read back (sp_study_load_case) and recorded when complete, with the wall
 * time of DIR's summary.json (sp_study_summary_reuse_wall_times). The cases left to
 * compute go to todo (room for every case), in order; returns their count. */
size_t sp_study_log_resume(sp_study_log *log, sp_study_summary *sum, size_t *todo);

/* Builds the summary (every row pending) from the log as it is now: the finished cases
 * as sp_study_log_resume takes them, and the cases that failed since the log was opened
 * (an older failure stays pending: it is tried again). No file is read. */
sp_status sp_study_log_summary(sp_study_log *log, sp_study_summary *sum, char *why, size_t why_size);

/* Records case i as finished: with its result's figures (file in DIR already), or
 * failed for `failure` (figures NULL); in the summary's row (unless sum is NULL) and as
 * one record appended to the log, written at once and synced with the others of its second
 * (sp_study_log_sync). On failure returns the status with a message in why. */
sp_status sp_study_log_record(sp_study_log *log, sp_study_summary *sum, size_t i, const cJSON *figures,
                              const char *failure, double wall_seconds, char *why, size_t why_size);
/* Syncs the records not yet on the disk: `now`, or when the last sync is a second old
 * (a run calls it as it waits, so that no record waits much longer). Records written are
 * safe from a kill at once; a crash of the machine loses at most those of the last
 * second, whose files a resumed run then reads back. Returns 0, or −1 (errno set). */
int sp_study_log_sync(sp_study_log *log, int now);

#endif
