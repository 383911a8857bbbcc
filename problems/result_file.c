#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_result_file.h"

static void say(char *why, size_t size, const char *what, const char *path)
{
    snprintf(why, size, "%s %s: %s", what, path, strerror(errno));
}

sp_status sp_output_open(sp_output *out, const char *path, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) return SP_OK;
    if (strlen(path) + 16 >= sizeof out->path) {
        snprintf(why, why_size, "output path too long");
        return SP_ERR_IO;
    }
    /* rename() would refuse a directory only after the whole run: say so now. */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        say(why, why_size, "cannot write", path);
        return SP_ERR_IO;
    }
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->tmp_path, sizeof out->tmp_path, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(out->tmp_path);
    if (fd < 0) {
        say(why, why_size, "cannot write", path);
        return SP_ERR_IO;
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; results are ordinary files */
    out->file = fdopen(fd, "w");
    if (!out->file) {
        say(why, why_size, "cannot write", path);
        close(fd);
        unlink(out->tmp_path);
        return SP_ERR_IO;
    }
    return SP_OK;
}

void sp_output_abandon(sp_output *out)
{
    if (!out->file) return;
    fclose(out->file);
    unlink(out->tmp_path);
    out->file = NULL;
}

sp_status sp_output_commit_text(sp_output *out, const char *text, size_t length, char *why, size_t why_size)
{
    FILE *f = out->file ? out->file : stdout;
    int ok = fwrite(text, 1, length, f) == length && fflush(f) == 0;
    if (!out->file) {
        if (!ok) snprintf(why, why_size, "cannot write to standard output: %s", strerror(errno));
        return ok ? SP_OK : SP_ERR_IO;
    }
    ok = ok && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    out->file = NULL;
    if (ok && rename(out->tmp_path, out->path) == 0) return SP_OK;
    say(why, why_size, "cannot write", out->path);
    unlink(out->tmp_path);
    return SP_ERR_IO;
}

sp_status sp_output_commit(sp_output *out, const cJSON *root, char *why, size_t why_size)
{
    if (sp_json_count_nonfinite(root) > 0) {
        snprintf(why, why_size, "refusing to write a non-finite number");
        sp_output_abandon(out);
        return SP_ERR_NONFINITE;
    }
    char *text = cJSON_Print(root);
    if (!text) {
        snprintf(why, why_size, "out of memory while printing the result");
        sp_output_abandon(out);
        return SP_ERR_NOMEM;
    }
    size_t length = strlen(text);
    text[length] = '\n'; /* replaces the terminating NUL: the document ends in a newline */
    sp_status st = sp_output_commit_text(out, text, length + 1, why, why_size);
    free(text);
    return st;
}

cJSON *sp_json_vector(int n, const double *x)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; ++i) cJSON_AddItemToArray(arr, cJSON_CreateNumber(x[i]));
    return arr;
}

cJSON *sp_json_add_vector(cJSON *parent, const char *name, int n, const double *x)
{
    cJSON *arr = sp_json_vector(n, x);
    cJSON_AddItemToObject(parent, name, arr);
    return arr;
}

cJSON *sp_json_add_rows(cJSON *parent, const char *name, int rows, int cols, const double *x, int stride)
{
    cJSON *arr = cJSON_AddArrayToObject(parent, name);
    for (int r = 0; arr && r < rows; ++r) cJSON_AddItemToArray(arr, sp_json_vector(cols, x + (size_t)r * stride));
    return arr;
}

int sp_json_count_nonfinite(const cJSON *node)
{
    int count = 0;
    for (; node; node = node->next) {
        if (cJSON_IsNumber(node) && !isfinite(node->valuedouble)) ++count;
        count += sp_json_count_nonfinite(node->child);
    }
    return count;
}

/* 1-based line and column of byte offset `at` in text. */
static void locate(const char *text, size_t at, int *line, int *column)
{
    *line = 1, *column = 1;
    for (size_t i = 0; i < at && text[i]; ++i) {
        if (text[i] == '\n')
            ++*line, *column = 1;
        else
            ++*column;
    }
}

sp_status sp_json_parse_document(const char *text, size_t length, cJSON **doc, sp_input_error *err)
{
    memset(err, 0, sizeof *err);
    const char *end = NULL;
    *doc = cJSON_ParseWithLengthOpts(text, length, &end, 0);
    if (!*doc) {
        int line, column;
        locate(text, end ? (size_t)(end - text) : 0, &line, &column);
        snprintf(err->message, sizeof err->message, "malformed JSON at line %d, column %d", line, column);
        return SP_ERR_INVALID;
    }
    /* cJSON stops after the first value; anything but white space after it (a second
     * document, a stray brace, a NUL byte) means the file is not one JSON document. */
    size_t rest = end ? (size_t)(end - text) : length;
    while (rest < length && strchr(" \t\r\n", text[rest]) && text[rest] != '\0') ++rest;
    if (rest < length) {
        int line, column;
        locate(text, rest, &line, &column);
        snprintf(err->message, sizeof err->message, "malformed JSON at line %d, column %d: content after the document",
                 line, column);
        cJSON_Delete(*doc);
        *doc = NULL;
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status sp_json_read_document(const char *path, long max_bytes, cJSON **doc, sp_input_error *err)
{
    *doc = NULL;
    memset(err, 0, sizeof *err);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err->message, sizeof err->message, "cannot read: %s", strerror(errno));
        return SP_ERR_IO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err->message, sizeof err->message, "cannot read: %s", strerror(EISDIR));
        return SP_ERR_IO;
    }
    char *text = NULL;
    size_t length = 0, capacity = 0;
    for (;;) {
        if (length + 4096 > capacity) {
            if (capacity >= (size_t)max_bytes) {
                free(text);
                fclose(f);
                snprintf(err->message, sizeof err->message, "file larger than %ld bytes", max_bytes);
                return SP_ERR_INVALID;
            }
            capacity = capacity ? 2 * capacity : 65536;
            char *grown = realloc(text, capacity + 1);
            if (!grown) {
                free(text);
                fclose(f);
                snprintf(err->message, sizeof err->message, "out of memory");
                return SP_ERR_NOMEM;
            }
            text = grown;
        }
        size_t got = fread(text + length, 1, capacity - length, f);
        length += got;
        if (got == 0) break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        snprintf(err->message, sizeof err->message, "cannot read: I/O error");
        return SP_ERR_IO;
    }
    text[length] = '\0';
    sp_status status = sp_json_parse_document(text, length, doc, err);
    free(text);
    return status;
}
