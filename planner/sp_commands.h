/* Subcommands of the symplan command beyond solve/check/list, each in its own file
 * (planner/cmd_<name>.c, linked into the command, not the library). They take the
 * arguments after the subcommand's name, talk to the terminal themselves and return the
 * process exit code: 0 done, 1 internal failure, 2 bad input. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

int sp_cmd_study(int argc, char **argv);
int sp_cmd_plot(int argc, char **argv);
int sp_cmd_export(int argc, char **argv);

#endif
