/* The symplan command: the only place that talks to the terminal. It finds the
 * subcommand by its name and runs it (sp_commands.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "planner/cli/sp_commands.h"

/* `symplan --help` and `symplan --version` are the commands help and version. */
static const char *command_name(const char *arg)
{
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return "help";
    if (strcmp(arg, "--version") == 0) return "version";
    return arg;
}

int main(int argc, char **argv)
{
    /* past a file size limit (ulimit -f) writes fail with EFBIG and are reported like a
     * full disk, instead of the process being killed with a half-written temporary */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        sp_cmd_print_overview(stderr);
        return 2; /* bad input */
    }
    const sp_command *cmd = sp_command_named(command_name(argv[1]));
    if (cmd) return cmd->run(argc - 2, argv + 2);
    char message[128];
    snprintf(message, sizeof message, "unknown command '%.64s' (see symplan help)", argv[1]);
    sp_cmd_error("symplan", NULL, message);
    return 2; /* bad input */
}
