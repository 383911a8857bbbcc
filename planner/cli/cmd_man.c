/* The manual page of the symplan command, from the tables that drive its parser and help
 * (sp_commands.h): what a command takes and what its help says is what the manual says.
 * Here only the sections that belong to no command: the description of the whole, the
 * exit status, the environment, the files, the examples. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_version.h"
#include "planner/cli/sp_commands.h"

static const char description[] =
    ".SH DESCRIPTION\n"
    ".B symplan\n"
    "reads a problem file (JSON: a model, a task, a scheme and their settings), runs its task\n"
    "\\(em a plan, which optimises a trajectory through targets, or a simulation, which\n"
    "integrates the equations of motion with a structure-preserving scheme \\(em and writes the\n"
    "result as JSON.\n"
    "A study runs one problem over a grid of settings, each case into its own result file,\n"
    "with a summary of them all;\n"
    ".B plot\n"
    "and\n"
    ".B export\n"
    "turn results into pictures and tables.\n"
    ".PP\n"
    "Every command prints its usage with every option it takes and that option's default with\n"
    ".B symplan help\n"
    ".I COMMAND\n"
    "or\n"
    ".B symplan\n"
    ".I COMMAND\n"
    ".BR \\-\\-help .\n"
    "Options may come before or after the operand; a long option's value may also follow an\n"
    "equals sign\n"
    ".RB ( \\-\\-max\\-steps=1e8 ),\n"
    "and\n"
    ".B \\-\\-\n"
    "ends the options.\n"
    "Output files are written to a temporary file and renamed into place, so that they are\n"
    "never left half-written.\n"
    "Progress goes to standard error when it is a terminal, or with\n"
    ".BR \\-v ;\n"
    "otherwise standard error stays quiet except for errors, each of which is one line naming\n"
    "the file, the JSON path and what is wrong:\n"
    ".PP\n"
    ".RS\n"
    ".EX\n"
    "data/x.json: targets[2].t: must be within (0, T=1]\n"
    ".EE\n"
    ".RE\n"
    ".PP\n"
    "A wrong argument is named the same way, with where to read more:\n"
    ".PP\n"
    ".RS\n"
    ".EX\n"
    "symplan solve: unknown option \\(aq\\-\\-bogus\\(aq (see symplan help solve)\n"
    ".EE\n"
    ".RE\n";

static const char limits_intro[] =
    "`solve`, `check` and `study` refuse, with exit status 2 and the option that raises the limit, a problem that "
    "asks for more than these (a study applies them to every case before anything runs). These are the *LIMITS* "
    "of the synopsis. A long option also takes its value after an equals sign (`--max-steps=1e8`).";

static const char closing[] =
    ".SH EXIT STATUS\n"
    ".TP\n"
    ".B 0\n"
    "Done: a result that converged or ran to its end\n"
    ".RB ( converged ,\n"
    ".BR ok ),\n"
    "a file that is valid, a help or version printed.\n"
    ".TP\n"
    ".B 1\n"
    "Out of memory, or a result could not be written (full disk, I/O error); for\n"
    ".BR study ,\n"
    "a case has no result (its summary row says why).\n"
    ".TP\n"
    ".B 2\n"
    "Bad input: a bad file, case, command, option or option value, a resource limit exceeded,\n"
    "or an unusable output path.\n"
    "Nothing is written, and an existing output is left as it was.\n"
    ".TP\n"
    ".B 3\n"
    ".BR solve :\n"
    "the result is written but did not reach its goal\n"
    ".RB ( stalled ,\n"
    ".BR maxeval_reached ,\n"
    ".BR maxtime_reached ,\n"
    ".BR target_not_reached ).\n"
    ".BR study :\n"
    "stopped by\n"
    ".BR \\-\\-max\\-seconds ;\n"
    "the summary of the cases done is written.\n"
    ".TP\n"
    ".B 4\n"
    ".BR solve :\n"
    "the computation broke down and the result is written up to the failure\n"
    ".RB ( newton_failed ,\n"
    ".BR singular_matrix ,\n"
    ".BR non_finite ,\n"
    ".BR optimizer_failed ,\n"
    "\\&...).\n"
    ".TP\n"
    ".BR 130 \", \" 143\n"
    ".BR solve :\n"
    "interrupted by SIGINT or SIGTERM (128 + the signal); the partial result is written with\n"
    "status\n"
    ".BR interrupted .\n"
    "A second signal ends the process at once.\n"
    ".B study\n"
    "stopped by SIGINT, SIGTERM or SIGHUP writes the summary of the cases done and then dies\n"
    "of the signal, which a shell shows as 128 + the signal too.\n"
    ".PP\n"
    "Whenever the status is not 0 exactly one line is printed on standard error.\n"
    ".SH ENVIRONMENT\n"
    ".TP\n"
    ".B SYMPLAN_THREADS\n"
    "The number of threads a keyframe plan runs its sweeps on (every segment of a sweep is\n"
    "independent) and a car's smoothing shares its larger evaluations among; by default the\n"
    "processors online, at most 8;\n"
    ".B 1\n"
    "turns threads off. Results are the same to the last bit for any number.\n"
    ".SH FILES\n"
    ".TP\n"
    ".IR DIR /case\\- NNNN .json\n"
    "The result of case\n"
    ".I NNNN\n"
    "of a study: what\n"
    ".B solve\n"
    "writes for the case's problem, with a\n"
    ".B case\n"
    "block, and without wall-clock times.\n"
    ".TP\n"
    ".IR DIR /summary.json \", \" DIR /summary.csv\n"
    "One row per case of a study: its values, status, wall time and every number of its result.\n"
    ".SH EXAMPLES\n"
    "Check a problem, solve it with a summary and draw the result:\n"
    ".PP\n"
    ".RS\n"
    ".EX\n"
    "symplan check data/sphere_interpolation.json\n"
    "symplan solve data/sphere_interpolation.json \\-o a.json \\-\\-summary\n"
    "symplan plot a.json \\-o a.svg\n"
    "symplan export a.json \\-\\-csv a.csv\n"
    ".EE\n"
    ".RE\n"
    ".PP\n"
    "Check a study and every case of it, run it on four workers, and draw its convergence:\n"
    ".PP\n"
    ".RS\n"
    ".EX\n"
    "symplan check data/studies/convergence.json\n"
    "symplan study data/studies/convergence.json \\-o conv \\-j 4 \\-v\n"
    "symplan plot conv \\-\\-error \\-o convergence.svg\n"
    ".EE\n"
    ".RE\n"
    ".PP\n"
    "Allow a longer simulation than the default limits:\n"
    ".PP\n"
    ".RS\n"
    ".EX\n"
    "symplan solve long.json \\-o long.json.out \\-\\-max\\-steps 1e8 \\-\\-max\\-memory 32G\n"
    ".EE\n"
    ".RE\n"
    ".SH SEE ALSO\n"
    ".BR mpirun (1),\n"
    ".BR srun (1);\n"
    "README.md and docs/ of the symplan sources, which describe the problem files (docs/reference.md),\n"
    "the models, the results and the studies in full.\n";

/* Text for roff: "-" as "\-", a backslash as "\e", a line that would start with a
 * control character behind "\&"; with `markup`, `bold` and *italic*. `n` characters. */
static void roff_span(FILE *f, const char *s, size_t n, int markup, int *line_start)
{
    int bold = 0, italic = 0;
    for (size_t i = 0; i < n; ++i) {
        const char c = s[i];
        if (*line_start && (c == '.' || c == '\'')) fputs("\\&", f);
        *line_start = c == '\n';
        if (markup && c == '`') {
            fputs((bold = !bold) ? "\\fB" : "\\fR", f);
        } else if (markup && c == '*') {
            fputs((italic = !italic) ? "\\fI" : "\\fR", f);
        } else if (c == '-') {
            fputs("\\-", f);
        } else if (c == '\\') {
            fputs("\\e", f);
        } else {
            fputc(c, f);
        }
    }
}

static void roff_text(FILE *f, const char *s, int markup)
{
    int line_start = 1;
    roff_span(f, s, strlen(s), markup, &line_start);
}

/* A table's text: paragraphs apart by a blank line, example lines indented by four
 * spaces set as typed. */
static void roff_paragraphs(FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        const char *end = strstr(p, "\n\n");
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        int line_start = 1;
        if (strncmp(p, "    ", 4) == 0) {
            fputs(".RS\n.EX\n", f);
            for (const char *line = p; line < p + n;) {
                const char *eol = memchr(line, '\n', (size_t)(p + n - line));
                const char *stop = eol ? eol : p + n;
                line_start = 1;
                roff_span(f, line + 4, (size_t)(stop - line - 4), 0, &line_start);
                fputc('\n', f);
                line = stop + 1;
            }
            fputs(".EE\n.RE\n", f);
        } else {
            roff_span(f, p, n, 1, &line_start);
            fputc('\n', f);
        }
        if (!end) break;
        p = end + 2;
        if (*p) fputs(".PP\n", f);
    }
}

/* "Meaning, capitalised." then the detail, then "Default: …." or "Required.". */
static void man_option(FILE *f, const sp_cmd_option *o, const sp_limits *limits)
{
    fputs(".TP\n", f);
    if (o->value) {
        fputs(".BI ", f);
        roff_text(f, o->name, 0);
        fprintf(f, " \" %s\"\n", o->value);
    } else {
        fputs(".B ", f);
        roff_text(f, o->name, 0);
        fputc('\n', f);
    }
    char first[2] = {(char)toupper((unsigned char)o->meaning[0]), '\0'};
    fputs(first, f);
    roff_text(f, o->meaning + 1, 0);
    fputs(".\n", f);
    if (o->detail) roff_paragraphs(f, o->detail);
    char fallback[64];
    sp_cmd_option_default(o, limits, fallback, sizeof fallback);
    if (fallback[0]) {
        fputs("Default: ", f);
        roff_text(f, fallback, 0);
        fputs(".\n", f);
    }
    if (o->required) fputs("Required.\n", f);
}

static void man_synopsis(FILE *f, const sp_command *cmd)
{
    fprintf(f, ".SY symplan\n.B %s\n", cmd->name);
    if (cmd->operand) fprintf(f, cmd->operand_optional ? ".RI [ \"%s\" ]\n" : ".I \"%s\"\n", cmd->operand);
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o) {
        if (!o->required) {
            fputs(".OP ", f);
            roff_text(f, o->name, 0);
            fprintf(f, "%s%s\n", o->value ? " " : "", o->value ? o->value : "");
            continue;
        }
        fputs(".B ", f);
        roff_text(f, o->name, 0);
        fputc('\n', f);
        if (o->value) fprintf(f, ".I %s\n", o->value);
    }
    if (cmd->limits) fputs(".RI [ LIMITS ]\n", f);
    fputs(".YS\n", f);
}

/* The subsection of a command: its synopsis as the title, what it does, then its
 * operand's meaning and its options (help's -h, --help under help itself). */
static void man_command(FILE *f, const sp_command *cmd)
{
    fprintf(f, ".SS \"symplan %s", cmd->name);
    if (cmd->operand) fprintf(f, cmd->operand_optional ? " [\\fI%s\\fP]" : " \\fI%s\\fP", cmd->operand);
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o)
        if (o->required) {
            fputc(' ', f);
            roff_text(f, o->name, 0);
            fprintf(f, " \\fI%s\\fP", o->value);
        }
    int optional = 0;
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o) optional |= !o->required;
    if (optional) fputs(" [\\fIoptions\\fP]", f);
    if (cmd->limits) fputs(" [\\fILIMITS\\fP]", f);
    fputs("\"\n", f);
    if (cmd->description) {
        roff_paragraphs(f, cmd->description);
    } else {
        char first[2] = {(char)toupper((unsigned char)cmd->summary[0]), '\0'};
        fputs(first, f);
        roff_text(f, cmd->summary + 1, 0);
        fputs(".\n", f);
    }
    if (cmd->operand) {
        fprintf(f, ".TP\n.I \"%s\"\n", cmd->operand);
        char first[2] = {(char)toupper((unsigned char)cmd->operand_meaning[0]), '\0'};
        fputs(first, f);
        roff_text(f, cmd->operand_meaning + 1, 0);
        fputs(".\n", f);
    }
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o) man_option(f, o, NULL);
    if (strcmp(cmd->name, "help") == 0) man_option(f, sp_cmd_help_option(), NULL);
}

void sp_cmd_print_man(FILE *f, const sp_command *(*command_at)(size_t i))
{
    fputs(".\\\" The manual page of the symplan command, written by `symplan help --man` from the tables\n"
          ".\\\" of planner/cli/ that its parser and help read: edit those, not this file.\n",
          f);
    fprintf(f, ".TH SYMPLAN 1 \"\" \"symplan %s\" \"User Commands\"\n", sp_version());
    fputs(".SH NAME\nsymplan \\- trajectory planning and structure-preserving integration on Lie groups\n"
          ".SH SYNOPSIS\n",
          f);
    for (size_t i = 0; command_at(i); ++i) man_synopsis(f, command_at(i));
    fputs(".SY symplan\n.RB [ \\-h | \\-\\-help | \\-\\-version ]\n.YS\n", f);
    fputs(description, f);
    fputs(".SH COMMANDS\n", f);
    for (size_t i = 0; command_at(i); ++i) man_command(f, command_at(i));
    fputs(".SS \"Resource limits\"\n", f);
    roff_paragraphs(f, limits_intro);
    const sp_limits defaults = sp_limits_default();
    for (const sp_cmd_option *o = sp_cmd_limit_options(); o->name; ++o) man_option(f, o, &defaults);
    fputs(closing, f);
}
