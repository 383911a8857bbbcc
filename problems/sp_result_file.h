/* Result files: JSON trees (and the text made from them: CSV, SVG) written so that
 * nothing is ever lost. An output goes to a temporary file beside its destination and
 * is renamed into place only when complete, so an existing file is either replaced
 * whole or left untouched. Numbers are printed so that they read back bitwise equal; a
 * non-finite number is refused. JSON documents (problems, results, summaries) are read
 * back through one reader that reports where a malformed file breaks. */
#ifndef SP_RESULT_FILE_H
#define SP_RESULT_FILE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "lie/sp_status.h"
#include "problems/sp_problem.h"

/* An output being written: opened before the work starts (so an unusable path is
 * reported before anything runs) and committed or abandoned at the end. */
typedef struct sp_output {
    char path[4096];
    char tmp_path[4096];
    FILE *file; /* NULL for standard output */
    int direct; /* path is a device, FIFO or socket, written in place */
} sp_output;

/* Removes the temporaries that writers of `path` killed before they finished left beside
 * it (NAME.tmp-PID.XXXXXX of a pid that no longer runs). It reads the whole folder: a
 * command writing one output calls it once; a study, whose folder holds its cases, clears
 * its own temporaries once at its start instead. */
void sp_output_remove_stale(const char *path);

/* Opens a temporary file beside `path` (path NULL or "-": standard output; "" is
 * refused), NAME.tmp-PID.XXXXXX with NAME cut short where the folder's limit on a name
 * requires. A path that
 * names a device, a FIFO or a socket (/dev/null, a named pipe) is opened and written in
 * place instead: renaming onto it would replace it with a regular file. On failure
 * returns SP_ERR_IO with a message in `why`. */
sp_status sp_output_open(sp_output *out, const char *path, char *why, size_t why_size);
/* Refuses (SP_ERR_INVALID, a message in `why`) an output that is the input file: the
 * same regular file (device and inode) when the output exists, the same path when it
 * does not. For a command to call before it does any work. */
sp_status sp_output_refuse_input(const char *out_path, const char *in_path, char *why, size_t why_size);
/* Prints the tree, flushes, syncs and renames into place; on any failure removes the
 * temporary file and leaves the destination as it was. */
sp_status sp_output_commit(sp_output *out, const cJSON *root, char *why, size_t why_size);
/* The same for `length` bytes of text (a CSV table, an SVG picture). */
sp_status sp_output_commit_text(sp_output *out, const char *text, size_t length, char *why, size_t why_size);
/* Removes the temporary file; the destination is untouched. */
void sp_output_abandon(sp_output *out);

/* Builders that return the new node (NULL on allocation failure, which cJSON then
 * propagates harmlessly). Non-finite values are written as null and counted in
 * sp_json_count_nonfinite so the caller can refuse them. */
cJSON *sp_json_vector(int n, const double *x);
cJSON *sp_json_add_vector(cJSON *parent, const char *name, int n, const double *x);
/* rows x cols numbers read with `stride` doubles between rows */
cJSON *sp_json_add_rows(cJSON *parent, const char *name, int rows, int cols, const double *x, int stride);
/* Number of non-finite numbers in the tree (they must never reach a file). */
int sp_json_count_nonfinite(const cJSON *node);
/* Turns every non-finite number of the tree into null and returns how many there were;
 * `first` receives the JSON path of the first ("diagnostics.energy_error",
 * "trajectory.q[3][0]"). */
int sp_json_nullify_nonfinite(cJSON *root, char *first, size_t first_size);

/* The text of a tree, laid out as cJSON_Print (formatted) or cJSON_PrintUnformatted
 * lay it out, but with every number printed so that it reads back bitwise equal: the
 * shortest of %.15g, %.16g and %.17g that strtod turns back into the same double (cJSON's
 * own printer accepts 15 digits within a relative DBL_EPSILON, so 0.1 + 0.2 comes back
 * as 0.3, and stops at 2 GiB). Non-finite numbers print as null. Returns a malloc'd
 * NUL-terminated string and its length (NULL when out of memory or for an invalid node). */
char *sp_json_print(const cJSON *root, int formatted, size_t *length);
/* One number so, into out (at least 32 bytes); returns the length. */
int sp_format_double(double x, char *out, size_t size);

/* One JSON document from text: NULL-terminated or not, nothing but white space after
 * the value, and strict (problems/json_strict.h): valid UTF-8, no NUL byte, no raw
 * control character in a string, numbers in JSON's grammar, nesting at most 1000 deep.
 * On failure *doc is NULL and err says "malformed JSON at line L, column C: what";
 * SP_ERR_NOMEM (not SP_ERR_INVALID) when the text is good but its tree cannot be
 * allocated. */
sp_status sp_json_parse_document(const char *text, size_t length, cJSON **doc, sp_input_error *err);
/* The same, refusing (SP_ERR_INVALID, naming --max-memory) before building the tree a
 * text whose tree with the text itself would take more than max_memory bytes (0: no
 * limit). The size is counted from the text: a node and allocator overhead per value
 * (80 bytes on LP64), each string's bytes and 32 more; at most about 40 times the text
 * (a file of "[0,0,0,...]"), around 5 times for typical problem files. */
sp_status sp_json_parse_within(const char *text, size_t length, double max_memory, cJSON **doc, sp_input_error *err);
/* The whole of a file (a pipe, process substitution or /dev/stdin too: it is read to
 * its end, once) into a malloc'd NUL-terminated *text of *length bytes, at most
 * max_bytes ("cannot read: …" when it cannot be opened, SP_ERR_NOMEM when out of
 * memory). */
sp_status sp_text_read_file(const char *path, long max_bytes, char **text, size_t *length, sp_input_error *err);
/* A JSON document from a file of at most max_bytes bytes. The caller deletes *doc. */
sp_status sp_json_read_document(const char *path, long max_bytes, cJSON **doc, sp_input_error *err);

#endif
