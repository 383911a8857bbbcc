/* What the subcommands share when they talk to the terminal (sp_commands.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"
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
    if (sp_json_read_document(file, RESULT_FILE_MAX_BYTES, doc, &err) == SP_OK) return 0;
    sp_cmd_error(file, err.path, err.message);
    return 2;
}

int sp_cmd_write_text(const char *out_path, const char *text, size_t length)
{
    char why[512];
    sp_output out;
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

/* A positive count ("1000000", "1e7"), or with `units` a size with K, M, G or T. */
static int parse_amount(const char *text, int units, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || !isfinite(x)) return -1;
    if (units && *end) {
        static const char suffixes[] = "KMGT";
        const char *at = strchr(suffixes, toupper((unsigned char)*end));
        if (!at) return -1;
        x *= pow(1024.0, (double)(at - suffixes + 1));
        ++end;
        if (*end == 'i' || *end == 'I') ++end;
        if (*end == 'B' || *end == 'b') ++end;
    }
    if (*end || !(x >= 1.0) || (!units && (x != floor(x) || x > 1e15))) return -1;
    *out = x;
    return 0;
}

int sp_cmd_limit_option(int argc, char **argv, int *i, sp_limits *limits)
{
    static const struct {
        const char *name;
        int units;
    } options[] = {
        {"--max-steps", 0}, {"--max-evaluations", 0}, {"--max-targets", 0}, {"--max-cases", 0}, {"--max-memory", 1}};
    const char *arg = argv[*i];
    for (int k = 0; k < 5; ++k) {
        size_t n = strlen(options[k].name);
        if (strncmp(arg, options[k].name, n) != 0 || (arg[n] != '\0' && arg[n] != '=')) continue;
        const char *value = arg[n] == '=' ? arg + n + 1 : *i + 1 < argc ? argv[*i + 1] : NULL;
        double x;
        if (!value || parse_amount(value, options[k].units, &x) != 0) {
            sp_cmd_error("symplan", options[k].name,
                         options[k].units ? "needs a size in bytes, or with K, M, G or T (like 512M or 8G)"
                                          : "needs a positive whole number");
            return -1;
        }
        if (arg[n] != '=') ++*i;
        switch (k) {
        case 0:
            limits->steps = (long)x;
            break;
        case 1:
            limits->evaluations = (long)x;
            break;
        case 2:
            limits->targets = (long)x;
            break;
        case 3:
            limits->cases = (long)x;
            break;
        default:
            limits->memory = x;
        }
        return 1;
    }
    return 0;
}
