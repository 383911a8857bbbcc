/* Entry points for foreign callers (Python's ctypes, other languages' FFIs): documents in
 * and out as JSON text, so that a caller needs none of the library's struct layouts
 * and no cJSON of its own. Problems, studies and results are the files of README.md
 * ("Problem files", "Studies", "Results"); the result text is printed by
 * sp_json_print, so every number reads back bitwise equal to the one computed.
 *
 * Each function returns one of the codes below, which are those of the command's exit
 * status for the same failure. On SP_TEXT_BAD_INPUT and SP_TEXT_INTERNAL `error`
 * receives one line (truncated to error_size, always NUL-terminated when error_size > 0):
 * "path: message" with the JSON path at fault, as `symplan check` prints it after the
 * file's name ("targets[2].t: must be increasing"); for a case of a study
 * "cases[3]: steps: …". Limits are the defaults of sp_limits.h.
 *
 * `stop` (may be NULL) is a flag the caller owns and may set from another thread or a
 * signal handler: a solve ends at its next check with status "interrupted" and what it
 * computed so far (sp_progress.h), a study after its current case. On Linux
 * sig_atomic_t is an int. */
#ifndef SP_TEXT_API_H
#define SP_TEXT_API_H

#include <signal.h>
#include <stddef.h>

enum {
    SP_TEXT_OK = 0,          /* done (a solve's result may still say it did not converge) */
    SP_TEXT_INTERNAL = 1,    /* out of memory, or a study's file could not be written */
    SP_TEXT_BAD_INPUT = 2,   /* malformed or invalid document, a limit exceeded */
    SP_TEXT_INTERRUPTED = 3  /* a study stopped through `stop` (its summary is written) */
};

/* Reads the problem (`length` bytes of JSON text, NUL-terminated or not), runs it with
 * sp_solve_json and returns its result in *result_json: compact JSON, malloc'd and
 * NUL-terminated, to be released with sp_free_text (NULL on failure). A result whose
 * status is not "converged"/"ok" (stalled, newton_failed, interrupted, …) is still
 * SP_TEXT_OK: the caller reads its "status" and "message". */
int sp_solve_text(const char *problem_json, size_t length, const volatile sig_atomic_t *stop, char **result_json,
                  char *error, size_t error_size);

/* Validates a problem or a study without running it: a document whose top level has a
 * "base" member is a study (sp_study.h), read with every case expanded and validated;
 * anything else is a problem. `base_dir` resolves a study's relative "base" path (NULL:
 * the working directory); it is ignored for a problem. */
int sp_check_text(const char *json, size_t length, const char *base_dir, char *error, size_t error_size);

/* Runs a study into the existing folder out_dir as `symplan study STUDY -o DIR -j 1`
 * does: each case to DIR/case-NNNN.json, a case already complete there kept (so the
 * same call resumes a stopped study), then DIR/summary.json and summary.csv. A case
 * that fails is a "failed" row of the summary, not an error of the call. */
int sp_study_text(const char *study_json, size_t length, const char *base_dir, const char *out_dir,
                  const volatile sig_atomic_t *stop, char *error, size_t error_size);

/* Releases a text returned by these functions (NULL is allowed). */
void sp_free_text(char *text);

#endif
