/* symplan plot RESULT.json|DIR [-o FIG.svg] [--x FIELD] [--y FIGURE] [--error]: the
 * picture of a result, or of the study in DIR (its summary.json, which may also be named
 * directly), as a self-contained SVG (standard output without -o). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "planner/cli/sp_commands.h"
#include "planner/plot/sp_plot.h"

static int usage(void)
{
    fputs("usage: symplan plot RESULT.json|DIR -o FIG.svg [--x FIELD] [--y FIGURE] [--error]\n", stderr);
    return 2;
}

int sp_cmd_plot(int argc, char **argv)
{
    const char *input = NULL, *out_path = NULL;
    sp_study_plot_options opt = {0};
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--x") == 0 && i + 1 < argc)
            opt.x = argv[++i];
        else if (strcmp(argv[i], "--y") == 0 && i + 1 < argc)
            opt.y = argv[++i];
        else if (strcmp(argv[i], "--error") == 0)
            opt.error = 1;
        else if (!input && argv[i][0] != '-')
            input = argv[i];
        else
            return usage();
    }
    if (!input) return usage();

    /* a study: its directory, or its summary.json named directly */
    struct stat st;
    int study = stat(input, &st) == 0 && S_ISDIR(st.st_mode);
    char summary_path[4096];
    const char *file = input;
    if (study) {
        int n = snprintf(summary_path, sizeof summary_path, "%s/summary.json", input);
        if (n < 0 || (size_t)n >= sizeof summary_path) {
            sp_cmd_error(input, NULL, "path too long");
            return 2;
        }
        file = summary_path;
    }
    cJSON *doc;
    int rc = sp_cmd_read_json(file, &doc);
    if (rc) return rc;
    study = study || sp_plot_is_study_summary(doc);
    if (!study && (opt.x || opt.y || opt.error)) {
        sp_cmd_error(input, opt.x ? "--x" : opt.y ? "--y" : "--error", "applies to a study only");
        cJSON_Delete(doc);
        return 2;
    }
    char *svg = NULL;
    sp_input_error err;
    sp_status status = study ? sp_plot_study(doc, &opt, &svg, &err) : sp_plot_result(doc, &svg, &err);
    cJSON_Delete(doc);
    if (status != SP_OK) {
        sp_cmd_error(file, err.path, err.message);
        return status == SP_ERR_NOMEM ? 1 : 2;
    }
    rc = sp_cmd_write_text(out_path, svg, strlen(svg));
    free(svg);
    return rc;
}
