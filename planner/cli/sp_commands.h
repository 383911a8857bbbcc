/* The subcommands of the symplan command, each described once by an sp_command: its
 * operand, its options as a table and what it does. The same table drives the parser
 * (sp_cmd_parse), the help (sp_cmd_print_help, `symplan help COMMAND`, `COMMAND --help`),
 * the overview and the manual page (sp_cmd_print_man, `symplan help --man`), so that what
 * a command accepts, what its help says and what its manual says cannot differ.
 * solve, check and list live in planner/cli/cmd_solve.c, the others in cmd_<name>.c, help and
 * version in cmd_help.c, the manual's sections of no command in cmd_man.c (linked into the
 * command, not the library). A command's run
 * function takes the arguments after its name, talks to the terminal itself and returns
 * the process exit code: 0 done, 1 internal failure, 2 bad input. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "planner/study/sp_study.h"
#include "problems/sp_limits.h"

/* What an option stores at its offset in the command's argument struct. */
typedef enum sp_cmd_kind {
    SP_OPT_FLAG,  /* int, set to 1 */
    SP_OPT_TEXT,  /* const char *, the value as given */
    SP_OPT_COUNT, /* long, a positive whole number ("1e7" too), at most `max` when set */
    SP_OPT_SIZE,  /* double, bytes, or with a suffix K, M, G or T in binary units: 512M */
    SP_OPT_SECONDS /* double, a positive number of seconds (0.5, 3600) */
} sp_cmd_kind;

typedef struct sp_cmd_option {
    const char *name;  /* "-o", "--summary"; NULL ends a table */
    const char *value; /* what it takes, as help names it ("OUT.json"); NULL for a flag */
    sp_cmd_kind kind;
    size_t offset;        /* where it goes in the argument struct (offsetof) */
    long max;             /* SP_OPT_COUNT: the largest value (0: no bound of its own) */
    int required;         /* the command cannot run without it */
    const char *meaning;  /* one line of help, the first sentence of the manual's entry */
    const char *fallback; /* what holds without it, as help says it (NULL: nothing to say) */
    const char *detail;   /* the rest of the manual's entry (NULL: none); see sp_cmd_print_man */
} sp_cmd_option;

typedef struct sp_command {
    const char *name;    /* "solve" */
    const char *summary; /* what it does, one line of the overview */
    const char *description; /* the manual's section on it, before the options (NULL: the
                                summary); see sp_cmd_print_man */
    const char *operand; /* its one positional argument ("FILE.json"); NULL: none */
    const char *operand_meaning;
    int operand_optional;
    size_t operand_offset;        /* const char * in the argument struct (const char *[operand_max]
                                     when operand_max > 1) */
    int operand_max;              /* > 1: up to this many operands, their count (int) at
                                     operand_count_offset; 0 or 1: just one */
    size_t operand_count_offset;
    const sp_cmd_option *options; /* NULL: none */
    int limits;                   /* takes the resource-limit options (LIMITS) */
    size_t limits_offset;         /* sp_limits in the argument struct, set by the caller */
    int (*run)(int argc, char **argv);
} sp_command;

/* The members of an sp_command for its operand NAME (what it is: MEANING), stored at
 * FIELD of the argument struct TYPE, and for the resource limits, stored at TYPE's
 * member `limits`: every table names them alike. */
#define SP_CMD_OPERAND(TYPE, FIELD, NAME, MEANING) \
    .operand = (NAME), .operand_meaning = (MEANING), .operand_offset = offsetof(TYPE, FIELD)
#define SP_CMD_LIMITS(TYPE) .limits = 1, .limits_offset = offsetof(TYPE, limits)

extern const sp_command sp_command_solve, sp_command_check, sp_command_list, sp_command_study, sp_command_plot,
    sp_command_export, sp_command_import, sp_command_help, sp_command_version;

/* The command of that name (NULL: none), and the i-th in the overview's order (NULL past
 * the last) (cmd_help.c). */
const sp_command *sp_command_named(const char *name);
const sp_command *sp_command_at(size_t i);

/* Parses a command's arguments into `args`, its argument struct, as its table says:
 * options in any order around the operand, a value after its option or, for a long
 * one, as --name=value, "--" ending the options, -h or --help printing the command's
 * help on stdout. Returns -1 when the command is to run, else the exit code to end
 * with: 0 after the help, 2 after one line on stderr naming what is wrong ("symplan
 * solve: unknown option '--bogus' (see symplan help solve)"). */
int sp_cmd_parse(const sp_command *cmd, int argc, char **argv, void *args);
/* The one line of a bad argument, "symplan CMD: message (see symplan help CMD)";
 * returns 2 (for a check a command makes after parsing). */
int sp_cmd_usage_error(const sp_command *cmd, const char *message);

/* Every command with its synopsis and what it does, and where to read more. */
void sp_cmd_print_overview(FILE *f);
/* The usage line, then every operand and option with its meaning and default, one a line. */
void sp_cmd_print_help(const sp_command *cmd, FILE *f);
/* "solve FILE.json [-o OUT.json] [--summary] [-v] [LIMITS]" */
void sp_cmd_print_synopsis(const sp_command *cmd, FILE *f);

/* The resource-limit options (LIMITS) and the -h, --help every command takes, as the
 * help lists them; an option's default as the help says it ("" when it says none), a
 * limit's from `limits` (cmd_options.c). */
const sp_cmd_option *sp_cmd_limit_options(void);
const sp_cmd_option *sp_cmd_help_option(void);
void sp_cmd_option_default(const sp_cmd_option *o, const sp_limits *limits, char *text, size_t size);

/* The manual page, roff for man(1), from the same tables as the help: the synopsis, then
 * each command's description and options (meaning, detail, default), the limits, and the
 * sections that belong to no command (cmd_man.c; `symplan help --man`, which `make`
 * writes to build/symplan.1 and `make install` installs). In `description` and `detail`,
 * `text` is bold and *text* italic, a blank line starts a paragraph and lines indented by
 * four spaces are an example, set as typed. The commands, in the overview's order, come from
 * command_at (sp_command_at), so that the manual does not call back into the help. */
void sp_cmd_print_man(FILE *f, const sp_command *(*command_at)(size_t i));

/* The one line on stderr for a failure, "where: path: message" (no path part when path
 * is NULL or empty), control characters escaped so the line stays one line
 * (planner/cli/cmd_common.c). */
void sp_cmd_error(const char *where, const char *path, const char *message);

/* Reads a JSON document (a result, a summary) into *doc; on failure prints the error
 * line and returns the exit code (2; 1 when out of memory), else 0. */
int sp_cmd_read_json(const char *file, cJSON **doc);

/* Refuses, before any work, an output path that is empty or names the input file
 * (sp_output_refuse_input): prints the error line and returns 2, else 0. */
int sp_cmd_check_output(const char *out_path, const char *in_path);

/* Writes text to out_path (NULL or "-": standard output) through a temporary file and a
 * rename; returns 0, 2 for an unusable path, 1 when writing fails, after printing the
 * error line. */
int sp_cmd_write_text(const char *out_path, const char *text, size_t length);

/* Whether a text is a study rather than a problem: a JSON object with "base", "vary" or
 * "cases", members no problem has. 0 for a text that is not JSON, which the problem
 * reader then reports (cmd_study.c). */
int sp_cmd_is_study_text(const char *text, size_t length);
/* Reads a study (from `text`, the file's text already read, or from the file when text
 * is NULL) and validates every case it expands to under the limits, as `study` does
 * before it runs anything; on failure prints the one line naming the file, the case and
 * the JSON path (when `speak`) and returns 2 (1 when out of memory), else 0 with *study
 * to free. */
int sp_cmd_load_study(const char *file, const char *text, size_t length, const sp_limits *limits, int speak,
                      sp_study **study);

#endif
