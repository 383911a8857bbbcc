/* The list of commands, and the two that describe the command itself: `symplan help
 * [COMMAND]` (also `symplan --help`, `-h`) and `symplan version` (also `--version`). */
#include <nlopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lie/sp_version.h"
#include "planner/cli/sp_commands.h"

/* In the overview's order. */
static const sp_command *const commands[] = {&sp_command_solve, &sp_command_check,  &sp_command_list,
                                             &sp_command_study, &sp_command_plot,   &sp_command_export, &sp_command_import,
                                             &sp_command_help,  &sp_command_version};

const sp_command *sp_command_at(size_t i) { return i < sizeof commands / sizeof commands[0] ? commands[i] : NULL; }

const sp_command *sp_command_named(const char *name)
{
    for (size_t i = 0; sp_command_at(i); ++i)
        if (strcmp(sp_command_at(i)->name, name) == 0) return sp_command_at(i);
    return NULL;
}

void sp_cmd_print_overview(FILE *f)
{
    fputs("usage: symplan COMMAND [ARGUMENTS]\n\ncommands:\n", f);
    for (size_t i = 0; sp_command_at(i); ++i) {
        fputs("  symplan ", f);
        sp_cmd_print_synopsis(sp_command_at(i), f);
        fprintf(f, "\n      %s\n", sp_command_at(i)->summary);
    }
    fputs("\nLIMITS: the resource limits (--max-steps N and others) that refuse a problem asking for\n"
          "too much. 'symplan help COMMAND' or 'symplan COMMAND --help' lists every option of a command\n"
          "with its default; 'symplan --version' prints the version; 'man symplan' has it all.\n",
          f);
}

/* ----------------------------------------------------------------- help -- */

typedef struct help_args {
    const char *command;
    int man;
} help_args;

static int cmd_help(int argc, char **argv);

static const sp_cmd_option help_options[] = {
    {.name = "--man",
     .offset = offsetof(help_args, man),
     .meaning = "print the whole manual page instead, as roff for man(1)",
     .fallback = "off",
     .detail = "`make install` installs it as symplan(1); `man -l` reads it from a file."},
    {.name = NULL}};

const sp_command sp_command_help = {
    .name = "help",
    .summary = "print this overview, or a command's usage with every option it takes",
    .description = "Prints the overview of the commands, or the usage of *COMMAND* with every option it takes, one a "
                   "line with its meaning and default, on standard output. `symplan --help` and `symplan -h` are the "
                   "overview; `-h` and `--help` after any command print that command's help.",
    SP_CMD_OPERAND(help_args, command, "COMMAND", "the command to describe"),
    .operand_optional = 1,
    .options = help_options,
    .run = cmd_help};

static int cmd_help(int argc, char **argv)
{
    help_args a = {0};
    int rc = sp_cmd_parse(&sp_command_help, argc, argv, &a);
    if (rc >= 0) return rc;
    if (a.man) {
        if (a.command) return sp_cmd_usage_error(&sp_command_help, "--man prints the whole manual: give no COMMAND");
        sp_cmd_print_man(stdout, sp_command_at);
        return 0;
    }
    if (!a.command) {
        sp_cmd_print_overview(stdout);
        return 0;
    }
    const sp_command *cmd = sp_command_named(a.command);
    if (!cmd) {
        char message[128];
        snprintf(message, sizeof message, "unknown command '%.64s'", a.command);
        return sp_cmd_usage_error(&sp_command_help, message);
    }
    sp_cmd_print_help(cmd, stdout);
    return 0;
}

/* -------------------------------------------------------------- version -- */

static int cmd_version(int argc, char **argv);

const sp_command sp_command_version = {
    .name = "version",
    .summary = "print the version of symplan and of the NLopt library it runs with",
    .description = "Prints the version of symplan (\"symplan " SP_VERSION_STRING "\") and of the NLopt library it runs with, which may "
                   "differ from the one it was built against. `symplan --version` does the same.",
    .run = cmd_version};

/* The versions of the libraries linked in at run time, which may differ from those the
 * command was built against. */
static int cmd_version(int argc, char **argv)
{
    int rc = sp_cmd_parse(&sp_command_version, argc, argv, NULL);
    if (rc >= 0) return rc;
    int major, minor, bugfix;
    nlopt_version(&major, &minor, &bugfix);
    printf("symplan %s\nNLopt %d.%d.%d\n", sp_version(), major, minor, bugfix);
    return 0;
}
