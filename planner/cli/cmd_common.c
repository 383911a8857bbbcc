/* What the subcommands share when they talk to the terminal (sp_commands.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"
#include "problems/sp_json_packed.h"
#include "problems/sp_result_file.h"

/* Writes s with its control characters escaped: a file name or a string quoted from a
 * file must not break the one-line error. */
static void put_escaped(const char *s)
{
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n')
            fputs("\\n", stderr);
        else if (c == '\t')
            fputs("\\t", stderr);
        else if (c < 0x20 || c == 0x7f)
            fprintf(stderr, "\\x%02x", c);
        else
            fputc(c, stderr);
    }
}

void sp_cmd_error(const char *where, const char *path, const char *message)
{
    put_escaped(where);
    fputs(": ", stderr);
    if (path && path[0]) {
        put_escaped(path);
        fputs(": ", stderr);
    }
    put_escaped(message);
    fputc('\n', stderr);
}

/* Largest result or summary read back. */
#define RESULT_FILE_MAX_BYTES (1L << 30)

int sp_cmd_read_json(const char *file, cJSON **doc)
{
    sp_input_error err;
    char *text;
    size_t length;
    /* long arrays of a result (its trajectory, samples and targets) come packed */
    sp_status st = sp_text_read_file(file, RESULT_FILE_MAX_BYTES, &text, &length, &err);
    if (st == SP_OK) st = sp_json_parse_packed(text, length, sp_json_pack_result, 0.0, doc, &err);
    free(text);
    if (st == SP_OK) return 0;
    sp_cmd_error(file, err.path, err.message);
    return st == SP_ERR_NOMEM ? 1 : 2;
}

int sp_cmd_check_output(const char *out_path, const char *in_path)
{
    char why[512];
    if (out_path && !out_path[0]) {
        sp_cmd_error("symplan", NULL, "the output path is empty");
        return 2;
    }
    if (sp_output_refuse_input(out_path, in_path, why, sizeof why) == SP_OK) return 0;
    sp_cmd_error(out_path, NULL, why);
    return 2;
}

int sp_cmd_write_text(const char *out_path, const char *text, size_t length)
{
    char why[512];
    sp_output out;
    sp_output_remove_stale(out_path);
    if (sp_output_open(&out, out_path, why, sizeof why) != SP_OK) {
        sp_cmd_error(out_path, NULL, why);
        return 2;
    }
    if (sp_output_commit_text(&out, text, length, why, sizeof why) != SP_OK) {
        sp_cmd_error(out_path ? out_path : "symplan", NULL, why);
        return 1;
    }
    return 0;
}
