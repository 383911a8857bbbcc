/* Options and help of the subcommands, from their tables (sp_commands.h): the parser,
 * the help text and the resource-limit options that solve, check and study share. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/cli/sp_commands.h"

/* The resource limits (problems/sp_limits.h), offsets into sp_limits. Their defaults in
 * the help come from sp_limits_default(), so that the help cannot drift from them. */
static const sp_cmd_option limit_options[] = {
    {.name = "--max-steps",
     .value = "N",
     .kind = SP_OPT_COUNT,
     .offset = offsetof(sp_limits, steps),
     .meaning = "the most integration steps of one run"},
    {.name = "--max-evaluations",
     .value = "N",
     .kind = SP_OPT_COUNT,
     .offset = offsetof(sp_limits, evaluations),
     .meaning = "the most optimiser evaluations (optimizer.maxeval, starts x maxeval)"},
    {.name = "--max-targets",
     .value = "N",
     .kind = SP_OPT_COUNT,
     .offset = offsetof(sp_limits, targets),
     .meaning = "the most targets of a plan"},
    {.name = "--max-cases",
     .value = "N",
     .kind = SP_OPT_COUNT,
     .offset = offsetof(sp_limits, cases),
     .meaning = "the most cases of a study"},
    {.name = "--max-memory",
     .value = "SIZE",
     .kind = SP_OPT_SIZE,
     .offset = offsetof(sp_limits, memory),
     .meaning = "the most memory of one run, in bytes or with K, M, G, T (512M, 8G)",
     .detail = "Estimated from the problem before anything is allocated: its trajectory, the optimiser's own "
               "memory and the result."},
    {.name = NULL}};

/* Only printed: the parser knows -h and --help itself, as every command takes them. */
static const sp_cmd_option help_option = {.name = "-h, --help", .meaning = "print this help and exit"};

const sp_cmd_option *sp_cmd_limit_options(void) { return limit_options; }
const sp_cmd_option *sp_cmd_help_option(void) { return &help_option; }

/* --------------------------------------------------------------- errors -- */

/* "symplan CMD: [path: ]message (see symplan help CMD)": returns the exit code, 2. */
static int argument_error(const sp_command *cmd, const char *path, const char *message)
{
    char where[64], line[512];
    snprintf(where, sizeof where, "symplan %s", cmd->name);
    snprintf(line, sizeof line, "%s (see symplan help %s)", message, cmd->name);
    sp_cmd_error(where, path, line);
    return 2;
}

int sp_cmd_usage_error(const sp_command *cmd, const char *message) { return argument_error(cmd, NULL, message); }

/* -------------------------------------------------------------- parsing -- */

/* A positive count ("1000000", "1e7"), or with `units` a size with K, M, G or T. */
static int parse_amount(const char *text, int units, double *out)
{
    char *end;
    double x = strtod(text, &end);
    if (end == text || !isfinite(x)) return -1;
    if (units && *end) {
        static const char suffixes[] = "KMGT";
        const char *at = strchr(suffixes, toupper((unsigned char)*end));
        if (!at) return -1;
        x *= pow(1024.0, (double)(at - suffixes + 1));
        ++end;
        if (*end == 'i' || *end == 'I') ++end;
        if (*end == 'B' || *end == 'b') ++end;
    }
    if (*end || !(x >= 1.0) || (!units && (x != floor(x) || x > 1e15))) return -1;
    *out = x;
    return 0;
}

/* The option `arg` names in `table`: its name alone, or a long option taking a value
 * as --name=value (*inline_value then points past the '='). */
static const sp_cmd_option *match(const sp_cmd_option *table, const char *arg, const char **inline_value)
{
    for (const sp_cmd_option *o = table; o && o->name; ++o) {
        size_t n = strlen(o->name);
        if (strncmp(arg, o->name, n) != 0) continue;
        if (arg[n] == '\0') return o;
        if (arg[n] == '=' && o->value && o->name[1] == '-') {
            *inline_value = arg + n + 1;
            return o;
        }
    }
    return NULL;
}

/* Stores a value as its option's kind says; returns -1, or 2 after the error line. */
static int store(const sp_command *cmd, const sp_cmd_option *o, const char *value, char *field)
{
    double x = 0.0;
    if (o->kind == SP_OPT_TEXT) {
        *(const char **)(void *)field = value;
        return -1;
    }
    if (o->kind == SP_OPT_SECONDS) {
        char *end;
        x = strtod(value, &end);
        if (end != value && !*end && isfinite(x) && x > 0.0) {
            *(double *)(void *)field = x;
            return -1;
        }
        char message[256];
        snprintf(message, sizeof message, "needs a positive number of seconds, not '%.64s'", value);
        return argument_error(cmd, o->name, message);
    }
    int ok = parse_amount(value, o->kind == SP_OPT_SIZE, &x) == 0 && (!o->max || x <= (double)o->max);
    if (ok && o->kind == SP_OPT_SIZE) *(double *)(void *)field = x;
    if (ok && o->kind == SP_OPT_COUNT) *(long *)(void *)field = (long)x;
    if (ok) return -1;
    char message[256];
    if (o->kind == SP_OPT_SIZE)
        snprintf(message, sizeof message, "needs a size in bytes, or with K, M, G or T (like 512M or 8G), not '%.64s'",
                 value);
    else if (o->max)
        snprintf(message, sizeof message, "needs a whole number from 1 to %ld, not '%.64s'", o->max, value);
    else
        snprintf(message, sizeof message, "needs a positive whole number, not '%.64s'", value);
    return argument_error(cmd, o->name, message);
}

/* The option at argv[*i] and its value (moving *i past a separate one); -1, or 2 after
 * the error line. */
static int take_option(const sp_command *cmd, int argc, char **argv, int *i, char *args)
{
    const char *arg = argv[*i], *value = NULL;
    size_t offset = 0;
    const sp_cmd_option *o = match(cmd->options, arg, &value);
    if (!o && cmd->limits) {
        o = match(limit_options, arg, &value);
        offset = cmd->limits_offset;
    }
    char message[256];
    if (!o) {
        snprintf(message, sizeof message, "unknown option '%.200s'", arg);
        return sp_cmd_usage_error(cmd, message);
    }
    char *field = args + offset + o->offset;
    if (!o->value) {
        *(int *)(void *)field = 1;
        return -1;
    }
    if (!value && *i + 1 < argc) value = argv[++*i];
    if (!value) {
        snprintf(message, sizeof message, "option '%s' needs %s", o->name, o->value);
        return sp_cmd_usage_error(cmd, message);
    }
    return store(cmd, o, value, field);
}

/* After the arguments: the operand and every required option are there. */
static int check_complete(const sp_command *cmd, const char *operand, const char *args)
{
    char message[128];
    if (cmd->operand && !cmd->operand_optional && !operand) {
        snprintf(message, sizeof message, "missing %s", cmd->operand);
        return sp_cmd_usage_error(cmd, message);
    }
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o) {
        if (!o->required || *(const char *const *)(const void *)(args + o->offset)) continue;
        snprintf(message, sizeof message, "missing %s %s", o->name, o->value);
        return sp_cmd_usage_error(cmd, message);
    }
    return -1;
}

int sp_cmd_parse(const sp_command *cmd, int argc, char **argv, void *args)
{
    char *base = args;
    const char *operand = NULL;
    int n_operands = 0, max_operands = cmd->operand_max > 1 ? cmd->operand_max : 1;
    int options_end = 0; /* after "--" every argument is an operand, even "-x" */
    for (int i = 0; i < argc; ++i) {
        const char *arg = argv[i];
        if (!options_end && strcmp(arg, "--") == 0) {
            options_end = 1;
        } else if (options_end || arg[0] != '-' || arg[1] == '\0') { /* "-" is a name */
            if (!cmd->operand || n_operands >= max_operands) {
                char message[256];
                snprintf(message, sizeof message, "unexpected argument '%.200s'", arg);
                return sp_cmd_usage_error(cmd, message);
            }
            if (!operand) operand = arg;
            if (max_operands > 1) ((const char **)(void *)(base + cmd->operand_offset))[n_operands] = arg;
            ++n_operands;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            sp_cmd_print_help(cmd, stdout);
            return 0;
        } else {
            int rc = take_option(cmd, argc, argv, &i, base);
            if (rc >= 0) return rc;
        }
    }
    if (cmd->operand && max_operands > 1)
        *(int *)(void *)(base + cmd->operand_count_offset) = n_operands;
    else if (cmd->operand)
        *(const char **)(void *)(base + cmd->operand_offset) = operand;
    return check_complete(cmd, operand, base);
}

/* ----------------------------------------------------------------- help -- */

void sp_cmd_print_synopsis(const sp_command *cmd, FILE *f)
{
    fputs(cmd->name, f);
    if (cmd->operand) fprintf(f, cmd->operand_optional ? " [%s]" : " %s", cmd->operand);
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o)
        fprintf(f, "%s%s%s%s%s", o->required ? " " : " [", o->name, o->value ? " " : "", o->value ? o->value : "",
                o->required ? "" : "]");
    if (cmd->limits) fputs(" [LIMITS]", f);
}

void sp_cmd_option_default(const sp_cmd_option *o, const sp_limits *limits, char *text, size_t size)
{
    text[0] = '\0';
    if (o->fallback)
        snprintf(text, size, "%s", o->fallback);
    else if (limits && o->kind == SP_OPT_COUNT)
        snprintf(text, size, "%ld", *(const long *)(const void *)((const char *)limits + o->offset));
    else if (limits && o->kind == SP_OPT_SIZE)
        sp_format_bytes(*(const double *)(const void *)((const char *)limits + o->offset), text, size);
}

/* "  -o OUT.json        meaning (default: …)"; the default of a limit from `limits`. */
static void print_option(FILE *f, const sp_cmd_option *o, const sp_limits *limits)
{
    char label[64], fallback[64];
    snprintf(label, sizeof label, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    sp_cmd_option_default(o, limits, fallback, sizeof fallback);
    fprintf(f, "  %-22s %s%s%s%s%s\n", label, o->meaning, fallback[0] ? " (default: " : "", fallback,
            fallback[0] ? ")" : "", o->required ? " (required)" : "");
}

void sp_cmd_print_help(const sp_command *cmd, FILE *f)
{
    fputs("usage: symplan ", f);
    sp_cmd_print_synopsis(cmd, f);
    fprintf(f, "\n%s\n\n", cmd->summary);
    if (cmd->operand) fprintf(f, "  %-22s %s\n", cmd->operand, cmd->operand_meaning);
    for (const sp_cmd_option *o = cmd->options; o && o->name; ++o) print_option(f, o, NULL);
    print_option(f, &help_option, NULL);
    if (!cmd->limits) return;
    fputs("LIMITS (a problem asking for more is refused):\n", f);
    const sp_limits defaults = sp_limits_default();
    for (const sp_cmd_option *o = limit_options; o->name; ++o) print_option(f, o, &defaults);
    fputs("  (a long option also takes its value after '=', as in --max-steps=N)\n", f);
}
