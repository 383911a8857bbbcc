/* symplan import FORMAT FILE -o OUT.json: a problem file from another format; for now
 * TPCAP's parking cases (problems/car/sp_car_tpcap.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"
#include "problems/car/sp_car_tpcap.h"
#include "problems/sp_result_file.h"

typedef struct import_args {
    const char *operands[2];
    int count;
    const char *out;
} import_args;

static const sp_cmd_option import_options[] = {
    {.name = "-o",
     .value = "OUT.json",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(import_args, out),
     .meaning = "write the problem file to OUT.json",
     .fallback = "standard output"},
    {.name = NULL}};

static int cmd_import(int argc, char **argv);

const sp_command sp_command_import = {
    .name = "import",
    .summary = "a problem file from another format: tpcap FILE.csv (a TPCAP parking case)",
    .description = "Writes a problem file from a file of another format. The one format for now is `tpcap`: a "
                   "parking case of the TPCAP benchmark (a CSV file) becomes a car plan.",
    SP_CMD_OPERAND(import_args, operands, "FORMAT FILE", "the format (tpcap) and the file in it"),
    .operand_max = 2,
    .operand_count_offset = offsetof(import_args, count),
    .options = import_options,
    .run = cmd_import};

static int cmd_import(int argc, char **argv)
{
    import_args a = {0};
    int rc = sp_cmd_parse(&sp_command_import, argc, argv, &a);
    if (rc >= 0) return rc;
    if (a.count != 2 || strcmp(a.operands[0], "tpcap") != 0) {
        fprintf(stderr, "symplan import: give the format and the file: symplan import tpcap CaseN.csv -o caseN.json\n");
        return 2;
    }
    const char *input = a.operands[1], *out = a.out;
    rc = sp_cmd_check_output(out, input);
    if (rc) return rc;
    FILE *f = fopen(input, "rb");
    if (!f) {
        sp_cmd_error(input, "", "cannot read the file");
        return 2;
    }
    size_t cap = 1 << 16, length = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + length, 1, cap - length, f)) > 0;) {
        length += got;
        if (length == cap && length < ((size_t)64 << 20)) {
            char *t = realloc(text, 2 * cap);
            if (!t) free(text);
            text = t, cap *= 2;
        }
    }
    fclose(f);
    if (!text) return 1;
    const char *base = strrchr(input, '/');
    char name[128];
    snprintf(name, sizeof name, "%s", base ? base + 1 : input);
    char *dot = strrchr(name, '.');
    if (dot) *dot = '\0';
    cJSON *doc;
    sp_input_error err;
    sp_status st = sp_car_tpcap_problem(text, length, name, &doc, &err);
    free(text);
    if (st != SP_OK) {
        sp_cmd_error(input, err.path, err.message);
        return 2;
    }
    size_t n = 0;
    char *json = sp_json_print(doc, 1, &n);
    cJSON_Delete(doc);
    if (!json) return 1;
    rc = sp_cmd_write_text(out, json, n);
    free(json);
    return rc;
}
