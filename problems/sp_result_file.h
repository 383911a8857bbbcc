/* Result files: JSON trees written so that nothing is ever lost. A result goes to a
 * temporary file beside its destination and is renamed into place only when complete,
 * so an existing file is either replaced whole or left untouched. Numbers are printed
 * so that they read back bitwise equal; a non-finite number is refused. */
#ifndef SP_RESULT_FILE_H
#define SP_RESULT_FILE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "../lie/sp_status.h"

/* An output being written: opened before the work starts (so an unusable path is
 * reported before anything runs) and committed or abandoned at the end. */
typedef struct sp_output {
    char path[4096];
    char tmp_path[4096];
    FILE *file; /* NULL for standard output */
} sp_output;

/* Opens a temporary file beside `path` (path NULL or "-": standard output). On failure
 * returns SP_ERR_IO with a message in `why`. */
sp_status sp_output_open(sp_output *out, const char *path, char *why, size_t why_size);
/* Prints the tree, flushes, syncs and renames into place; on any failure removes the
 * temporary file and leaves the destination as it was. */
sp_status sp_output_commit(sp_output *out, const cJSON *root, char *why, size_t why_size);
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

#endif
