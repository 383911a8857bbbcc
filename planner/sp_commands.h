/* Subcommands of the symplan command beyond solve/check/list, each in its own file
 * (planner/cmd_<name>.c, linked into the command, not the library). They take the
 * arguments after the subcommand's name, talk to the terminal themselves and return the
 * process exit code: 0 done, 1 internal failure, 2 bad input. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include <cjson/cJSON.h>
#include <stddef.h>

int sp_cmd_study(int argc, char **argv);
int sp_cmd_plot(int argc, char **argv);
int sp_cmd_export(int argc, char **argv);

/* The one line on stderr for a failure, "where: path: message" (no path part when path
 * is NULL or empty), control characters escaped so the line stays one line
 * (planner/cmd_common.c). */
void sp_cmd_error(const char *where, const char *path, const char *message);

/* Reads a JSON document (a result, a summary) into *doc; on failure prints the error
 * line and returns the exit code (2), else 0. */
int sp_cmd_read_json(const char *file, cJSON **doc);
/* Writes text to out_path (NULL or "-": standard output) through a temporary file and a
 * rename; returns 0, 2 for an unusable path, 1 when writing fails, after printing the
 * error line. */
int sp_cmd_write_text(const char *out_path, const char *text, size_t length);

#endif
