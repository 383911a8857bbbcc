/* How the symplan command describes itself (docs/command.md; docs/symplan.1):
 * `symplan help`, `help COMMAND` and `COMMAND --help` list every option a command's
 * parser takes, with its meaning and default, on stdout with exit 0; a wrong argument
 * (an unknown option, a missing value or operand, a stray operand) is one line naming
 * it, exit 2; `--version` names the library and NLopt; the man page is what
 * `symplan help --man` writes from the same tables (docs/symplan.1 is that page), lists
 * every option the help lists with the help's own meaning and default, and renders
 * without warnings; `check` validates a study case by case. */
#include <criterion/criterion.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lie/sp_version.h"
#include "tests/support.h"

#define MAN_PAGE SP_TEST_DATA "/../docs/symplan.1"

static const char *const commands[] = {"solve",  "check",  "list", "study",  "plot",
                                       "export", "import", "help", "version"};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void scratch_dir(char *dir, const char *test) { sp_test_scratch_dir(dir, "help", test); }

/* The options a help text lists: the first word of each line "  -x …" (both names of
 * "-h, --help"), as "NAME\n" entries; `limits` gets those of the LIMITS part, when not
 * NULL (else they go to `own` too). */
static void help_options(const char *help, char *own, char *limits, size_t size)
{
    own[0] = '\0';
    if (limits) limits[0] = '\0';
    char *into = own;
    for (const char *line = help; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        if (starts_with(line, "LIMITS") && limits) into = limits;
        if (!starts_with(line, "  -")) continue;
        const char *p = line + 2;
        for (;;) {
            size_t n = strcspn(p, " ,\n");
            cr_assert_lt(strlen(into) + n + 2, size);
            strncat(into, p, n);
            strcat(into, "\n");
            if (strncmp(p + n, ", -", 3) != 0) break;
            p += n + 2;
        }
    }
}

static void run_ok(const char *dir, const char *const *args, run_result *r)
{
    run(dir, args, r);
    cr_expect_eq(r->status, 0, "symplan %s %s: exit %d (%s)", args[0], args[1] ? args[1] : "", r->status, r->err);
    cr_expect_str_empty(r->err, "symplan %s: stderr", args[0]);
}

/* Exit 2, nothing on stdout and exactly `line` on stderr. */
static void expect_refused(const char *dir, const char *const *args, const char *line)
{
    run_result r;
    run(dir, args, &r);
    cr_expect_eq(r.status, 2, "symplan %s: exit %d", args[0], r.status);
    cr_expect_str_empty(r.out, "symplan %s: stdout", args[0]);
    cr_expect_str_eq(r.err, line, "symplan %s", args[0]);
    run_free(&r);
}

/* ------------------------------------------------------------------- help -- */

Test(help, the_overview_names_every_command)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "overview");
    run_result first;
    run_ok(dir, (const char *[]){"help", NULL}, &first);
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        char name[64];
        snprintf(name, sizeof name, "symplan %s", commands[i]);
        cr_expect(strstr(first.out, name) != NULL, "the overview does not name %s:\n%s", commands[i], first.out);
    }
    static const char *const same[] = {"--help", "-h"};
    for (size_t k = 0; k < 2; ++k) {
        run_result r;
        run_ok(dir, (const char *[]){same[k], NULL}, &r);
        cr_expect_str_eq(r.out, first.out, "symplan %s is not the overview", same[k]);
        run_free(&r);
    }
    /* without a command it goes to stderr, as the answer to a mistake */
    run_result r;
    run(dir, (const char *[]){NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, first.out);
    run_free(&r);
    run_free(&first);
    remove_tree(dir);
}

/* `help COMMAND`, `COMMAND --help` and `COMMAND -h` print the same usage on stdout. */
Test(help, every_command_has_its_help_three_ways)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "three-ways");
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        run_result help, long_form, short_form;
        run_ok(dir, (const char *[]){"help", commands[i], NULL}, &help);
        run_ok(dir, (const char *[]){commands[i], "--help", NULL}, &long_form);
        run_ok(dir, (const char *[]){commands[i], "-h", NULL}, &short_form);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: symplan %s", commands[i]);
        cr_expect(starts_with(help.out, usage), "%s: '%s'", commands[i], help.out);
        cr_expect(strstr(help.out, "--help") != NULL, "%s: -h, --help not listed", commands[i]);
        cr_expect_str_eq(long_form.out, help.out, "%s --help", commands[i]);
        cr_expect_str_eq(short_form.out, help.out, "%s -h", commands[i]);
        run_free(&help);
        run_free(&long_form);
        run_free(&short_form);
    }
    remove_tree(dir);
}

/* What the help of each command must list: what its parser takes (the table of docs/command.md). */
static const struct {
    const char *command, *options;
} accepted[] = {
    {"solve", "-o --summary -v --max-steps --max-evaluations --max-targets --max-cases --max-memory"},
    {"check", "--max-steps --max-evaluations --max-targets --max-cases --max-memory"},
    {"study", "-o -j --max-seconds -v --max-steps --max-evaluations --max-targets --max-cases --max-memory"},
    {"plot", "-o --x --y --error"},
    {"export", "--csv"},
};

/* Every option is on a line of its own with its meaning and default (a required one says
 * so instead), and the parser takes each option the help lists: given before --help, it
 * is consumed and the help follows, where an unknown one would be refused. */
Test(help, help_lists_every_option_the_parser_takes_with_its_default)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "options");
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; ++i) {
        run_result r;
        run_ok(dir, (const char *[]){"help", accepted[i].command, NULL}, &r);
        char listed[2048];
        help_options(r.out, listed, NULL, sizeof listed);
        char expected[256];
        snprintf(expected, sizeof expected, "%s", accepted[i].options);
        for (char *name = strtok(expected, " "); name; name = strtok(NULL, " ")) {
            char entry[64];
            snprintf(entry, sizeof entry, "\n%s\n", name);
            char wrapped[2100];
            snprintf(wrapped, sizeof wrapped, "\n%s", listed);
            cr_expect(strstr(wrapped, entry) != NULL, "help %s does not list %s:\n%s", accepted[i].command, name,
                      r.out);
        }
        for (const char *line = r.out; (line = strstr(line, "\n  -")); ++line) {
            const char *end = strchr(line + 1, '\n');
            int n = end ? (int)(end - line - 1) : (int)strlen(line + 1);
            char text[512];
            snprintf(text, sizeof text, "%.*s", n, line + 1);
            if (strstr(text, "--help")) continue;
            cr_expect(strstr(text, "(default: ") || strstr(text, "(required)"), "help %s: no default in '%s'",
                      accepted[i].command, text);
        }
        for (char *name = strtok(listed, "\n"); name; name = strtok(NULL, "\n")) {
            if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) continue;
            run_result taken;
            const int flag = strcmp(name, "--summary") == 0 || strcmp(name, "-v") == 0 || strcmp(name, "--error") == 0;
            const char *const with_value[] = {accepted[i].command, name, "1", "--help", NULL};
            const char *const alone[] = {accepted[i].command, name, "--help", NULL};
            run(dir, flag ? alone : with_value, &taken);
            cr_expect_eq(taken.status, 0, "%s does not take %s: %s", accepted[i].command, name, taken.err);
            run_free(&taken);
        }
        run_free(&r);
    }
    remove_tree(dir);
}

/* ----------------------------------------------------------- wrong arguments -- */

Test(help, an_unknown_option_is_named)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "unknown");
    expect_refused(dir, (const char *[]){"solve", "x.json", "--bogus", NULL},
                   "symplan solve: unknown option '--bogus' (see symplan help solve)\n");
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        char line[160];
        snprintf(line, sizeof line, "symplan %s: unknown option '-q' (see symplan help %s)\n", commands[i],
                 commands[i]);
        expect_refused(dir, (const char *[]){commands[i], "-q", NULL}, line);
    }
    /* a flag given a value is not the flag */
    expect_refused(dir, (const char *[]){"solve", "x.json", "--summary=yes", NULL},
                   "symplan solve: unknown option '--summary=yes' (see symplan help solve)\n");
    remove_tree(dir);
}

Test(help, a_missing_value_is_named)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "missing-value");
    expect_refused(dir, (const char *[]){"solve", "x.json", "-o", NULL},
                   "symplan solve: option '-o' needs OUT.json (see symplan help solve)\n");
    expect_refused(dir, (const char *[]){"check", "x.json", "--max-steps", NULL},
                   "symplan check: option '--max-steps' needs N (see symplan help check)\n");
    expect_refused(dir, (const char *[]){"study", "x.json", "-o", NULL},
                   "symplan study: option '-o' needs DIR (see symplan help study)\n");
    expect_refused(dir, (const char *[]){"plot", "r.json", "--y", NULL},
                   "symplan plot: option '--y' needs FIGURE (see symplan help plot)\n");
    expect_refused(dir, (const char *[]){"export", "r.json", "--csv", NULL},
                   "symplan export: option '--csv' needs FILE (see symplan help export)\n");
    /* a bad value is named with its option */
    expect_refused(dir, (const char *[]){"study", "x.json", "-o", "d", "-j", "0", NULL},
                   "symplan study: -j: needs a whole number from 1 to 4096, not '0' (see symplan help study)\n");
    expect_refused(dir, (const char *[]){"solve", "x.json", "--max-steps=many", NULL},
                   "symplan solve: --max-steps: needs a positive whole number, not 'many' (see symplan help solve)\n");
    remove_tree(dir);
}

Test(help, a_missing_or_stray_operand_is_named)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "operands");
    expect_refused(dir, (const char *[]){"solve", "-v", NULL},
                   "symplan solve: missing FILE.json (see symplan help solve)\n");
    expect_refused(dir, (const char *[]){"check", NULL}, "symplan check: missing FILE.json (see symplan help check)\n");
    expect_refused(dir, (const char *[]){"study", "x.json", NULL},
                   "symplan study: missing -o DIR (see symplan help study)\n");
    expect_refused(dir, (const char *[]){"plot", NULL},
                   "symplan plot: missing RESULT.json...|DIR (see symplan help plot)\n");
    expect_refused(dir, (const char *[]){"export", "r.json", NULL},
                   "symplan export: missing --csv FILE (see symplan help export)\n");
    expect_refused(dir, (const char *[]){"solve", "a.json", "b.json", NULL},
                   "symplan solve: unexpected argument 'b.json' (see symplan help solve)\n");
    expect_refused(dir, (const char *[]){"check", "a.json", "b.json", NULL},
                   "symplan check: unexpected argument 'b.json' (see symplan help check)\n");
    expect_refused(dir, (const char *[]){"list", "a.json", NULL},
                   "symplan list: unexpected argument 'a.json' (see symplan help list)\n");
    expect_refused(dir, (const char *[]){"study", "a.json", "b.json", "-o", "d", NULL},
                   "symplan study: unexpected argument 'b.json' (see symplan help study)\n");
    /* plot takes several results (a comparison): the first one that cannot be read is named */
    expect_refused(dir, (const char *[]){"plot", "a.json", "b.json", NULL},
                   "a.json: cannot read: No such file or directory\n");
    expect_refused(dir, (const char *[]){"export", "a.json", "b.json", "--csv", "c", NULL},
                   "symplan export: unexpected argument 'b.json' (see symplan help export)\n");
    /* after "--" an argument is an operand, whatever it looks like */
    expect_refused(dir, (const char *[]){"check", "--", "--bogus", NULL},
                   "--bogus: cannot read: No such file or directory\n");
    expect_refused(dir, (const char *[]){"version", "now", NULL},
                   "symplan version: unexpected argument 'now' (see symplan help version)\n");
    expect_refused(dir, (const char *[]){"help", "optimise", NULL},
                   "symplan help: unknown command 'optimise' (see symplan help help)\n");
    expect_refused(dir, (const char *[]){"optimise", NULL}, "symplan: unknown command 'optimise' (see symplan help)\n");
    remove_tree(dir);
}

/* ---------------------------------------------------------------- version -- */

Test(help, version_names_symplan_and_nlopt)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "version");
    int major, minor, bugfix;
    nlopt_version(&major, &minor, &bugfix);
    char expected[128];
    snprintf(expected, sizeof expected, "symplan %s\nNLopt %d.%d.%d\n", sp_version(), major, minor, bugfix);
    cr_expect_str_eq(sp_version(), SP_VERSION_STRING);
    static const char *const ways[] = {"--version", "version"};
    for (size_t k = 0; k < 2; ++k) {
        run_result r;
        run_ok(dir, (const char *[]){ways[k], NULL}, &r);
        cr_expect_str_eq(r.out, expected, "symplan %s", ways[k]);
        run_free(&r);
    }
    remove_tree(dir);
}

/* --------------------------------------------------------------- man page -- */

/* The man page as plain words: roff's "\-" is "-", font changes (\fB, \fI, \fR, \fP)
 * are dropped. */
static char *man_text(void)
{
    char *roff = slurp(MAN_PAGE);
    char *text = malloc(strlen(roff) + 1), *o = text;
    for (const char *p = roff; *p; ++p) {
        if (p[0] == '\\' && p[1] == '-') {
            *o++ = '-';
            ++p;
        } else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    free(roff);
    return text;
}

/* The text of the subsection whose title starts with `title` (up to the next .SS or .SH). */
static char *man_section(const char *text, const char *title)
{
    char heading[128];
    snprintf(heading, sizeof heading, "\n.SS \"%s", title);
    const char *at = strstr(text, heading);
    cr_assert_not_null(at, "the man page has no section '%s'", title);
    const char *end = at + strlen(heading);
    while ((end = strchr(end + 1, '\n')) && !starts_with(end, "\n.SS") && !starts_with(end, "\n.SH")) continue;
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char *part = malloc(n + 1);
    memcpy(part, at, n);
    part[n] = '\0';
    return part;
}

/* `name` as a word of its own: not part of a longer option or word. */
static int has_option(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = text; (at = strstr(at, name)); ++at) {
        const char before = at == text ? ' ' : at[-1], after = at[n];
        if (!strchr("-_", before) && !(before >= 'a' && before <= 'z') && !strchr("-_", after) &&
            !(after >= 'a' && after <= 'z'))
            return 1;
    }
    return 0;
}

/* Every option a command's help lists is in that command's section of the man page, the
 * resource limits in "Resource limits" and -h, --help in the section on help; the page
 * is of the version the command prints. */
Test(help, the_man_page_lists_every_option_the_help_lists)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "man");
    char *text = man_text();
    char *limits_part = man_section(text, "Resource limits");
    char *help_part = man_section(text, "symplan help");
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        run_result r;
        run_ok(dir, (const char *[]){"help", commands[i], NULL}, &r);
        char own[2048], limits[2048], title[64];
        help_options(r.out, own, limits, sizeof own);
        snprintf(title, sizeof title, "symplan %s", commands[i]);
        char *part = man_section(text, title);
        for (char *name = strtok(own, "\n"); name; name = strtok(NULL, "\n")) {
            const int common = strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0;
            cr_expect(has_option(common ? help_part : part, name), "man page, %s: %s is not described", title, name);
        }
        for (char *name = strtok(limits, "\n"); name; name = strtok(NULL, "\n"))
            cr_expect(has_option(limits_part, name), "man page, Resource limits: %s is not described", name);
        free(part);
        run_free(&r);
    }
    char th[128];
    snprintf(th, sizeof th, "\"symplan %s\"", sp_version());
    const char *th_line = strstr(text, "\n.TH ");
    cr_assert_not_null(th_line);
    cr_expect(strstr(th_line, th) && strstr(th_line, th) < strchr(th_line + 1, '\n'),
              "the man page's .TH does not name %s", th);
    free(help_part);
    free(limits_part);
    free(text);
    remove_tree(dir);
}

/* The page in the sources is the one the command writes (`make man` refreshes it), and
 * `help --man` takes no command. */
Test(help, the_man_page_is_the_one_the_command_writes)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "man-written");
    run_result r;
    run_ok(dir, (const char *[]){"help", "--man", NULL}, &r);
    char *page = slurp(MAN_PAGE);
    cr_expect(starts_with(r.out, ".\\\" The manual page"), "help --man: '%.80s'", r.out);
    cr_expect_str_eq(page, r.out, "docs/symplan.1 is not what 'symplan help --man' writes (make man refreshes it)");
    free(page);
    run_free(&r);
    expect_refused(dir, (const char *[]){"help", "--man", "solve", NULL},
                   "symplan help: --man prints the whole manual: give no COMMAND (see symplan help help)\n");
    remove_tree(dir);
}

/* The help's text as the man page has it in words: "-" for "\-", quotes and the rest as
 * they are (the man page capitalises the first letter). */
static int man_says(const char *part, const char *words)
{
    if (!words[0]) return 1;
    return strstr(part, words + 1) != NULL;
}

/* What each option means, and its default, is said the same way in the help and in the
 * command's section of the man page: one source. */
Test(help, the_man_page_says_what_the_help_says)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "man-words");
    char *text = man_text();
    for (size_t i = 0; i < N_COMMANDS; ++i) {
        run_result r;
        run_ok(dir, (const char *[]){"help", commands[i], NULL}, &r);
        char title[64];
        snprintf(title, sizeof title, "symplan %s", commands[i]);
        char *part = man_section(text, title), *limits = man_section(text, "Resource limits");
        int in_limits = 0;
        for (const char *line = r.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
            if (starts_with(line, "LIMITS")) in_limits = 1;
            if (!starts_with(line, "  -") || starts_with(line, "  -h, --help")) continue;
            /* "  -o OUT.json            meaning (default: x)" */
            char entry[512];
            snprintf(entry, sizeof entry, "%.*s", (int)strcspn(line, "\n"), line);
            char *meaning = entry + 2 + strcspn(entry + 2, " ");
            while (*meaning == ' ' && meaning[1] != ' ') meaning += strcspn(meaning + 1, " ") + 1; /* the value */
            meaning += strspn(meaning, " ");
            char *fallback = strstr(meaning, " (default: ");
            if (fallback) {
                *fallback = '\0';
                fallback += strlen(" (default: ");
                fallback[strlen(fallback) - 1] = '\0';
            }
            char *required = strstr(meaning, " (required)");
            if (required) *required = '\0';
            const char *where = in_limits ? limits : part;
            cr_expect(man_says(where, meaning), "man page, %s: the help's '%s' is not said", title, meaning);
            if (fallback) {
                char said[256];
                snprintf(said, sizeof said, "Default: %s.", fallback);
                cr_expect(strstr(where, said) != NULL, "man page, %s: not '%s'", title, said);
            }
        }
        free(part);
        free(limits);
        run_free(&r);
    }
    free(text);
    remove_tree(dir);
}

/* Whether `program` is an executable on PATH. */
static int on_path(const char *program)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        char candidate[PATH_SIZE];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, path, program);
        if (access(candidate, X_OK) == 0) return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

Test(help, the_man_page_renders_without_warnings)
{
    if (!on_path("man")) cr_skip_test("man is not installed");
    char dir[PATH_SIZE];
    scratch_dir(dir, "man-render");
    run_result r;
    finish(dir, start(dir, "man", (const char *[]){"--warnings", "-l", MAN_PAGE, NULL}, 0), &r);
    cr_expect_eq(r.status, 0, "man exited %d: %s", r.status, r.err);
    cr_expect_str_empty(r.err, "man -l %s warns", MAN_PAGE);
    cr_expect(strstr(r.out, "EXIT STATUS") != NULL, "nothing rendered:\n%.400s", r.out);
    run_free(&r);
    remove_tree(dir);
}

/* ---------------------------------------------------------- check a study -- */

Test(help, check_validates_a_study_and_its_cases)
{
    char dir[PATH_SIZE], path[PATH_SIZE], expected[PATH_SIZE + 128];
    scratch_dir(dir, "check-study");
    static const struct {
        const char *file;
        int cases;
    } studies[] = {{"convergence.json", 10}, {"pendulum_comparison.json", 4}};
    for (size_t k = 0; k < 2; ++k) {
        snprintf(path, sizeof path, "%s/studies/%s", SP_TEST_DATA, studies[k].file);
        run_result r;
        run_ok(dir, (const char *[]){"check", path, NULL}, &r);
        snprintf(expected, sizeof expected, "%s: ok (%d cases)\n", path, studies[k].cases);
        cr_expect_str_eq(r.out, expected);
        run_free(&r);
    }
    /* the limits apply to every case, as `study` and `solve` apply them */
    snprintf(path, sizeof path, "%s/studies/convergence.json", SP_TEST_DATA);
    snprintf(expected, sizeof expected, "%s: cases[3]: steps: 400 exceeds the limit 300 (raise it with --max-steps)\n",
             path);
    expect_refused(dir, (const char *[]){"check", path, "--max-steps", "300", NULL}, expected);
    snprintf(expected, sizeof expected, "%s: vary: more than 9 cases, the limit (raise it with --max-cases)\n", path);
    expect_refused(dir, (const char *[]){"check", path, "--max-cases=9", NULL}, expected);
    cr_expect_eq(count_named(dir, "."), 2, "check wrote something"); /* . and .. */
    remove_tree(dir);
}

Test(help, check_names_the_bad_case_of_a_study)
{
    char dir[PATH_SIZE], file[PATH_SIZE], text[PATH_SIZE + 256], expected[PATH_SIZE + 128];
    scratch_dir(dir, "bad-study");
    join(file, dir, "study.json");
    snprintf(text, sizeof text,
             "{\"base\": \"%s/sphere_interpolation.json\", \"cases\": [{\"steps\": 20}, {\"steps\": 30},"
             " {\"scheme\": \"hohp_rk4\"}, {\"steps\": 40}]}",
             SP_TEST_DATA);
    write_text(file, text);
    snprintf(expected, sizeof expected, "%s: cases[2]: scheme: ", file);
    run_result r;
    run(dir, (const char *[]){"check", file, NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect_str_empty(r.out);
    cr_expect(is_one_line(r.err), "not one line: %s", r.err);
    cr_expect(starts_with(r.err, expected), "'%s' does not start with '%s'", r.err, expected);
    run_free(&r);
    /* a study without its base is a study still, and says what it lacks */
    write_text(file, "{\"vary\": {\"steps\": [10, 20]}}");
    snprintf(expected, sizeof expected, "%s: base: missing required field\n", file);
    expect_refused(dir, (const char *[]){"check", file, NULL}, expected);
    remove_tree(dir);
}
