/* symplan export RESULT.json --csv FILE: the trajectory of a result as CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"
#include "planner/plot/sp_plot.h"

static int usage(void)
{
    fputs("usage: symplan export RESULT.json --csv FILE\n", stderr);
    return 2;
}

int sp_cmd_export(int argc, char **argv)
{
    const char *input = NULL, *csv_path = NULL;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else if (!input && argv[i][0] != '-')
            input = argv[i];
        else
            return usage();
    }
    if (!input || !csv_path) return usage();
    cJSON *doc;
    int rc = sp_cmd_read_json(input, &doc);
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
