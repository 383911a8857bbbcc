/* symplan export RESULT.json --csv FILE: the trajectory of a result as CSV. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"
#include "planner/plot/sp_plot.h"

typedef struct export_args {
    const char *input, *csv;
} export_args;

static const sp_cmd_option export_options[] = {
    {.name = "--csv",
     .value = "FILE",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(export_args, csv),
     .required = 1,
     .meaning = "write the trajectory as CSV to FILE ('-': standard output)"},
    {.name = NULL}};

static int cmd_export(int argc, char **argv);

const sp_command sp_command_export = {
    .name = "export",
    .summary = "write a result's trajectory as CSV, one row per time, numbers that read back bitwise",
    .description = "Writes a result's trajectory as CSV: a header, then one row per time and one column per "
                   "component, numbers with 17 significant digits so that they read back bitwise.",
    SP_CMD_OPERAND(export_args, input, "RESULT.json", "a result of solve"),
    .options = export_options,
    .run = cmd_export};

static int cmd_export(int argc, char **argv)
{
    export_args a = {0};
    int rc = sp_cmd_parse(&sp_command_export, argc, argv, &a);
    if (rc >= 0) return rc;
    const char *input = a.input, *csv_path = a.csv;
    rc = sp_cmd_check_output(csv_path, input);
    if (rc) return rc;
    cJSON *doc;
    rc = sp_cmd_read_json(input, &doc);
    if (rc) return rc;
    char *csv = NULL;
    size_t length = 0;
    sp_input_error err;
    sp_status status = sp_export_csv(doc, &csv, &length, &err);
    cJSON_Delete(doc);
    if (status != SP_OK) {
        sp_cmd_error(input, err.path, err.message);
        return status == SP_ERR_NOMEM ? 1 : 2;
    }
    rc = sp_cmd_write_text(csv_path, csv, length);
    free(csv);
    return rc;
}
