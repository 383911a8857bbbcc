#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problems/sp_json_packed.h"
#include "problems/sp_limits.h"
#include "problems/sp_result_file.h"

/* The message of an error number, in a caller's buffer: strerror's may be shared between
 * threads. */
static const char *error_text(int code, char *buf, size_t size)
{
    if (strerror_r(code, buf, size) != 0) snprintf(buf, size, "error %d", code);
    return buf;
}

static void say(char *why, size_t size, const char *what, const char *path)
{
    char errbuf[128];
    snprintf(why, size, "%s %s: %s", what, path, error_text(errno, errbuf, sizeof errbuf));
}

/* The folder part of path ("." for none), for pathconf and opendir. */
static void folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else
        snprintf(dir, size, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

/* The template of the temporary file a process `pid` writes `path` through:
 * NAME.tmp-PID.XXXXXX beside it, NAME cut short so that the whole fits the folder's
 * limit on a name: an output may have any name the file system takes. The pid lets a
 * later run tell the leftovers of a killed writer from a running one's file. */
static void temp_template(const char *path, long pid, char *out, size_t size)
{
    char dir[4096], suffix[48];
    folder_of(path, dir, sizeof dir);
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max <= 0) name_max = 255;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const int suffix_len = snprintf(suffix, sizeof suffix, ".tmp-%ld.XXXXXX", pid);
    size_t keep = strlen(base);
    if ((long)keep + suffix_len > name_max) keep = (size_t)(name_max - suffix_len);
    snprintf(out, size, "%.*s%.*s%s", (int)(base - path), path, (int)keep, base, suffix);
}

/* Removes what writers of `path` killed before they could finish (kill -9, a crash)
 * left beside it: regular files of ours named as temp_template names them for a pid
 * whose process is gone. A running writer's temporary is left alone. */
void sp_output_remove_stale(const char *path)
{
    if (!path || !path[0] || strcmp(path, "-") == 0) return;
    char dir[4096];
    folder_of(path, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return;
    const struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        const size_t len = strlen(name);
        if (len < 14 || name[len - 7] != '.') continue; /* ".tmp-" digit "." XXXXXX */
        const char *digits = name + len - 7;
        while (digits > name && digits[-1] >= '0' && digits[-1] <= '9') --digits;
        if (digits == name + len - 7 || digits - name < 5 || memcmp(digits - 5, ".tmp-", 5) != 0) continue;
        const long pid = strtol(digits, NULL, 10);
        char expected[4096], victim[8192];
        temp_template(path, pid, expected, sizeof expected);
        const char *slash = strrchr(expected, '/'), *base = slash ? slash + 1 : expected;
        if (pid <= 0 || strlen(base) != len || memcmp(base, name, len - 6) != 0) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        snprintf(victim, sizeof victim, "%s/%s", dir, name);
        struct stat st;
        if (lstat(victim, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) unlink(victim);
    }
    closedir(d);
}

sp_status sp_output_open(sp_output *out, const char *path, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (!path || strcmp(path, "-") == 0) return SP_OK;
    if (!path[0]) {
        snprintf(why, why_size, "the output path is empty");
        return SP_ERR_IO;
    }
    if (strlen(path) + 40 >= sizeof out->path) {
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
    /* A device, a FIFO or a socket (/dev/null, /dev/stdout, a named pipe) is written in
     * place: a rename would replace it with a regular file. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(out->path, sizeof out->path, "%s", path);
        out->file = fopen(path, "w");
        if (!out->file) {
            say(why, why_size, "cannot write", path);
            return SP_ERR_IO;
        }
        out->direct = 1;
        return SP_OK;
    }
    snprintf(out->path, sizeof out->path, "%s", path);
    temp_template(path, (long)getpid(), out->tmp_path, sizeof out->tmp_path);
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

sp_status sp_output_refuse_input(const char *out_path, const char *in_path, char *why, size_t why_size)
{
    if (!out_path || !in_path || strcmp(out_path, "-") == 0) return SP_OK;
    struct stat out_st, in_st;
    int same;
    if (stat(out_path, &out_st) == 0)
        /* only a regular file is replaced; a device or a pipe is written in place after
         * the input was read whole */
        same = S_ISREG(out_st.st_mode) && stat(in_path, &in_st) == 0 && out_st.st_dev == in_st.st_dev &&
               out_st.st_ino == in_st.st_ino;
    else
        same = strcmp(out_path, in_path) == 0;
    if (!same) return SP_OK;
    snprintf(why, why_size, "is the input file %s too: writing there would replace it (name another output)", in_path);
    return SP_ERR_INVALID;
}

void sp_output_abandon(sp_output *out)
{
    if (!out->file) return;
    fclose(out->file);
    if (!out->direct) unlink(out->tmp_path);
    out->file = NULL;
}

sp_status sp_output_commit_text(sp_output *out, const char *text, size_t length, char *why, size_t why_size)
{
    FILE *f = out->file ? out->file : stdout;
    int ok = fwrite(text, 1, length, f) == length && fflush(f) == 0;
    if (!out->file) {
        char errbuf[128];
        if (!ok) snprintf(why, why_size, "cannot write to standard output: %s", error_text(errno, errbuf, sizeof errbuf));
        return ok ? SP_OK : SP_ERR_IO;
    }
    if (out->direct) { /* a device or a pipe: nothing to sync or rename */
        ok = (fclose(f) == 0) && ok;
        out->file = NULL;
        if (ok) return SP_OK;
        say(why, why_size, "cannot write", out->path);
        return SP_ERR_IO;
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
    size_t length;
    char *text = sp_json_print(root, 1, &length);
    if (!text) {
        snprintf(why, why_size, "out of memory while printing the result");
        sp_output_abandon(out);
        return SP_ERR_NOMEM;
    }
    text[length] = '\n'; /* replaces the terminating NUL: the document ends in a newline */
    sp_status st = sp_output_commit_text(out, text, length + 1, why, why_size);
    free(text);
    return st;
}

/* ------------------------------------------------------------ printing -- */

int sp_format_double(double x, char *out, size_t size)
{
    if (!isfinite(x)) return snprintf(out, size, "null");
    /* the fewest significant digits (at most 17, which always suffice) that read back as
     * the same bits; strtod rounds correctly, so the first match is the shortest */
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(buf, sizeof buf, "%.*g", digits, x);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &x, sizeof x) == 0 || digits == 17) break;
    }
    return snprintf(out, size, "%s", buf);
}

/* A growing text buffer; `failed` once an allocation failed. */
typedef struct json_text {
    char *data;
    size_t length, capacity;
    int failed;
} json_text;

static void put(json_text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->length + n + 1 > t->capacity) {
        size_t cap = t->capacity ? t->capacity : 4096;
        while (cap < t->length + n + 1) cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->capacity = cap;
    }
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = '\0';
}

static void puts_text(json_text *t, const char *s) { put(t, s, strlen(s)); }

static void put_tabs(json_text *t, size_t depth)
{
    for (size_t i = 0; i < depth; ++i) put(t, "\t", 1);
}

/* A JSON string with cJSON's escapes: \" \\ \b \f \n \r \t, \u00XX for other control bytes. */
static void put_string(json_text *t, const char *s)
{
    put(t, "\"", 1);
    const char *run = s;
    for (; s && *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c > 31 && c != '"' && c != '\\') continue;
        put(t, run, (size_t)(s - run));
        char esc[8];
        switch (c) {
        case '"':
            puts_text(t, "\\\"");
            break;
        case '\\':
            puts_text(t, "\\\\");
            break;
        case '\b':
            puts_text(t, "\\b");
            break;
        case '\f':
            puts_text(t, "\\f");
            break;
        case '\n':
            puts_text(t, "\\n");
            break;
        case '\r':
            puts_text(t, "\\r");
            break;
        case '\t':
            puts_text(t, "\\t");
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            puts_text(t, esc);
        }
        run = s + 1;
    }
    if (s) put(t, run, (size_t)(s - run));
    put(t, "\"", 1);
}

static void put_value(json_text *t, const cJSON *v, int formatted, size_t depth);

/* An array, packed or not: a packed one is written as the tree of its text would be. */
static void put_array(json_text *t, const cJSON *v, int formatted, size_t depth)
{
    put(t, "[", 1);
    sp_json_items it;
    sp_json_items_begin(&it, v);
    for (const cJSON *c = sp_json_items_next(&it), *next; c && !t->failed; c = next) {
        put_value(t, c, formatted, depth + 1); /* cJSON indents objects in arrays one deeper */
        next = sp_json_items_next(&it);
        if (next) puts_text(t, formatted ? ", " : ",");
    }
    if (it.out_of_memory) t->failed = 1;
    sp_json_items_end(&it);
    put(t, "]", 1);
}

/* The layout of cJSON_Print (formatted) and cJSON_PrintUnformatted, with exact numbers. */
static void put_value(json_text *t, const cJSON *v, int formatted, size_t depth)
{
    char number[40];
    switch (v->type & 0xFF) {
    case cJSON_NULL:
        puts_text(t, "null");
        return;
    case cJSON_False:
        puts_text(t, "false");
        return;
    case cJSON_True:
        puts_text(t, "true");
        return;
    case cJSON_Number:
        sp_format_double(v->valuedouble, number, sizeof number);
        puts_text(t, number);
        return;
    case cJSON_Raw:
        if (sp_json_is_packed(v))
            put_array(t, v, formatted, depth);
        else if (v->valuestring)
            puts_text(t, v->valuestring);
        else
            t->failed = 1; /* as cJSON: a raw node without text cannot be printed */
        return;
    case cJSON_String:
        put_string(t, v->valuestring);
        return;
    case cJSON_Array:
        put_array(t, v, formatted, depth);
        return;
    case cJSON_Object:
        put(t, "{", 1);
        if (formatted) put(t, "\n", 1);
        for (const cJSON *c = v->child; c; c = c->next) {
            if (formatted) put_tabs(t, depth + 1);
            put_string(t, c->string);
            puts_text(t, formatted ? ":\t" : ":");
            put_value(t, c, formatted, depth + 1);
            if (c->next) put(t, ",", 1);
            if (formatted) put(t, "\n", 1);
        }
        if (formatted) put_tabs(t, depth);
        put(t, "}", 1);
        return;
    default:
        t->failed = 1; /* not a valid node */
    }
}

char *sp_json_print(const cJSON *root, int formatted, size_t *length)
{
    json_text t = {0};
    if (!root) return NULL;
    put_value(&t, root, formatted, 0);
    if (t.failed || !t.data) {
        free(t.data);
        return NULL;
    }
    if (length) *length = t.length;
    return t.data;
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

/* The members and elements under `node` (whose own path is `path`, `len` bytes). */
static int nullify(cJSON *node, char *path, size_t len, size_t size, char *first, size_t first_size)
{
    int count = 0, index = 0;
    for (cJSON *c = node->child; c; c = c->next, ++index) {
        size_t n = len;
        if (c->string)
            n += (size_t)snprintf(path + len, size - len, "%s%s", len ? "." : "", c->string);
        else
            n += (size_t)snprintf(path + len, size - len, "[%d]", index);
        if (n >= size) n = size - 1;
        if (cJSON_IsNumber(c) && !isfinite(c->valuedouble)) {
            if (count == 0 && first[0] == '\0') snprintf(first, first_size, "%s", path);
            c->type = cJSON_NULL;
            c->valuedouble = 0.0;
            c->valueint = 0;
            ++count;
        }
        int below = nullify(c, path, n, size, first, first_size);
        if (below && count == 0 && first[0] == '\0') snprintf(first, first_size, "%s", path);
        count += below;
        path[len] = '\0';
    }
    return count;
}

int sp_json_nullify_nonfinite(cJSON *root, char *first, size_t first_size)
{
    char path[512] = "";
    if (first_size) first[0] = '\0';
    if (!root) return 0;
    if (cJSON_IsNumber(root) && !isfinite(root->valuedouble)) {
        root->type = cJSON_NULL;
        return 1;
    }
    return nullify(root, path, 0, sizeof path, first, first_size);
}

sp_status sp_json_parse_within(const char *text, size_t length, double max_memory, cJSON **doc, sp_input_error *err)
{
    return sp_json_parse_packed(text, length, NULL, max_memory, doc, err);
}

sp_status sp_json_parse_document(const char *text, size_t length, cJSON **doc, sp_input_error *err)
{
    return sp_json_parse_within(text, length, 0.0, doc, err);
}

sp_status sp_text_read_file(const char *path, long max_bytes, char **text_out, size_t *length_out, sp_input_error *err)
{
    *text_out = NULL;
    *length_out = 0;
    memset(err, 0, sizeof *err);
    FILE *f = fopen(path, "rb");
    if (!f) {
        char errbuf[128];
        snprintf(err->message, sizeof err->message, "cannot read: %s", error_text(errno, errbuf, sizeof errbuf));
        return SP_ERR_IO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        char errbuf[128];
        snprintf(err->message, sizeof err->message, "cannot read: %s", error_text(EISDIR, errbuf, sizeof errbuf));
        return SP_ERR_IO;
    }
    /* read to the end rather than by the size fstat gives: pipes, process substitution
     * and /dev/stdin have none */
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
                snprintf(err->message, sizeof err->message, "out of memory while reading the file");
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
    *text_out = text;
    *length_out = length;
    return SP_OK;
}

sp_status sp_json_read_document(const char *path, long max_bytes, cJSON **doc, sp_input_error *err)
{
    *doc = NULL;
    char *text;
    size_t length;
    sp_status status = sp_text_read_file(path, max_bytes, &text, &length, err);
    if (status == SP_OK) status = sp_json_parse_document(text, length, doc, err);
    free(text);
    return status;
}
