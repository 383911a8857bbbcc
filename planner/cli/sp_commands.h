/* Subcommands of the symplan command beyond solve/check/list, each in its own file
 * (planner/cmd_<name>.c, linked into the command, not the library). They take the
 * arguments after the subcommand's name, talk to the terminal themselves and return the
 * process exit code: 0 done, 1 internal failure, 2 bad input. */
#ifndef SP_COMMANDS_H
#define SP_COMMANDS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "problems/sp_limits.h"

int sp_cmd_study(int argc, char **argv);
int sp_cmd_plot(int argc, char **argv);
int sp_cmd_export(int argc, char **argv);

/* The one line on stderr for a failure, "where: path: message" (no path part when path
 * is NULL or empty), control characters escaped so the line stays one line
 * (planner/cli/cmd_common.c). */
void sp_cmd_error(const char *where, const char *path, const char *message);

/* Reads a JSON document (a result, a summary) into *doc; on failure prints the error
 * line and returns the exit code (2), else 0. */
int sp_cmd_read_json(const char *file, cJSON **doc);
/* The resource-limit options of solve, check and study (sp_limits.h): --max-steps N,
 * --max-evaluations N, --max-targets N, --max-cases N and --max-memory SIZE (bytes, or
 * with a suffix K, M, G or T in binary units: 512M, 8G), each also as --max-steps=N.
 * When argv[*i] is one of them, sets the limit, moves *i past its value and returns 1; 0
 * when it is none of them; -1 after the error line for a bad value. */
int sp_cmd_limit_option(int argc, char **argv, int *i, sp_limits *limits);

/* Writes text to out_path (NULL or "-": standard output) through a temporary file and a
 * rename; returns 0, 2 for an unusable path, 1 when writing fails, after printing the
 * error line. */
int sp_cmd_write_text(const char *out_path, const char *text, size_t length);

#endif
