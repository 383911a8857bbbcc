/* symplan plot RESULT.json…|DIR [-o FIG.svg] [--x FIELD] [--y FIGURE] [--error]: the
 * picture of a result, or of the study in DIR (its summary.json, which may also be named
 * directly), as a self-contained SVG (standard output without -o); several results are
 * overlaid in one comparison. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "planner/cli/sp_commands.h"
#include "planner/plot/sp_plot.h"

#define PLOT_MAX_RESULTS 32

typedef struct plot_args {
    const char *input[PLOT_MAX_RESULTS], *out;
    int n_inputs;
    sp_study_plot_options opt;
} plot_args;

static const sp_cmd_option plot_options[] = {
    {.name = "-o",
     .value = "FIG.svg",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(plot_args, out),
     .meaning = "write the SVG to FIG.svg ('-': standard output)",
     .fallback = "standard output"},
    {.name = "--x",
     .value = "FIELD",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(plot_args, opt.x),
     .meaning = "study: the varied field along x (numbers, or categories such as scheme)",
     .fallback = "the first numeric varied field, else the first one"},
    {.name = "--y",
     .value = "FIGURE",
     .kind = SP_OPT_TEXT,
     .offset = offsetof(plot_args, opt.y),
     .meaning = "study: the figure along y, any number of the summary rows; one result: an expression of the "
                "columns 'symplan export' writes, drawn against t (\"sqrt(q_x^2 + q_y^2)\")",
     .fallback = "cost, else energy_error",
     .detail = "Of one result, a name that is no column is refused with the list of the columns."},
    {.name = "--error",
     .offset = offsetof(plot_args, opt.error),
     .meaning = "study: draw the difference to the next finer case instead",
     .fallback = "off",
     .detail = "It falls with the order of the method."},
    {.name = NULL}};

static int cmd_plot(int argc, char **argv);

const sp_command sp_command_plot = {
    .name = "plot",
    .summary = "draw a result, or a study from its folder's summary.json, as a self-contained SVG",
    .description = "Draws a result, or a study from its folder's `summary.json` (which may also be named directly), as "
                   "one self-contained SVG picture. What a result's picture shows depends on its model and task; "
                   "several results are overlaid.",
    SP_CMD_OPERAND(plot_args, input, "RESULT.json...|DIR",
                   "a result of solve (several: overlaid for comparison), a study's folder, or its summary.json"),
    .operand_max = PLOT_MAX_RESULTS,
    .operand_count_offset = offsetof(plot_args, n_inputs),
    .options = plot_options,
    .run = cmd_plot};

/* The file name without its folders. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Several results overlaid in one picture. */
static int plot_several(const plot_args *a)
{
    if (a->opt.x || a->opt.y || a->opt.error) {
        sp_cmd_error(a->input[0], a->opt.x ? "--x" : a->opt.y ? "--y" : "--error", "applies to a study only");
        return 2;
    }
    cJSON *doc[PLOT_MAX_RESULTS] = {0};
    const char *names[PLOT_MAX_RESULTS];
    int rc = 0, n = a->n_inputs;
    for (int i = 0; i < n && !rc; ++i) rc = sp_cmd_check_output(a->out, a->input[i]);
    for (int i = 0; i < n && !rc; ++i) {
        struct stat st;
        if (stat(a->input[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            sp_cmd_error(a->input[i], NULL, "a study's folder cannot be compared: name results");
            rc = 2;
            break;
        }
        rc = sp_cmd_read_json(a->input[i], &doc[i]);
        if (!rc && sp_plot_is_study_summary(doc[i])) {
            sp_cmd_error(a->input[i], NULL, "a study summary cannot be compared: name results");
            rc = 2;
        }
        names[i] = base_name(a->input[i]);
    }
    char *svg = NULL;
    if (!rc) {
        sp_input_error err;
        int failed = 0;
        sp_status status = sp_plot_compare((const cJSON *const *)doc, names, n, &svg, &failed, &err);
        if (status != SP_OK) {
            sp_cmd_error(a->input[failed], err.path, err.message);
            rc = status == SP_ERR_NOMEM ? 1 : 2;
        }
    }
    for (int i = 0; i < n; ++i) cJSON_Delete(doc[i]);
    if (!rc) rc = sp_cmd_write_text(a->out, svg, strlen(svg));
    free(svg);
    return rc;
}

static int cmd_plot(int argc, char **argv)
{
    plot_args a = {0};
    int rc = sp_cmd_parse(&sp_command_plot, argc, argv, &a);
    if (rc >= 0) return rc;
    const char *input = a.input[0], *out_path = a.out;
    const sp_study_plot_options opt = a.opt;
    if (a.n_inputs > 1) return plot_several(&a);

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
    rc = sp_cmd_check_output(out_path, file);
    if (rc) return rc;
    cJSON *doc;
    rc = sp_cmd_read_json(file, &doc);
    if (rc) return rc;
    study = study || sp_plot_is_study_summary(doc);
    if (!study && (opt.x || opt.error)) {
        sp_cmd_error(input, opt.x ? "--x" : "--error", "applies to a study only");
        cJSON_Delete(doc);
        return 2;
    }
    char *svg = NULL;
    sp_input_error err;
    sp_status status = study    ? sp_plot_study(doc, &opt, &svg, &err)
                       : opt.y ? sp_plot_expression(doc, opt.y, &svg, &err)
                               : sp_plot_result(doc, &svg, &err);
    cJSON_Delete(doc);
    if (status != SP_OK) {
        sp_cmd_error(file, err.path, err.message);
        return status == SP_ERR_NOMEM ? 1 : 2;
    }
    rc = sp_cmd_write_text(out_path, svg, strlen(svg));
    free(svg);
    return rc;
}
