/* `symplan plot` and `symplan export` end to end (issue 4, items 6-8): results solved
 * from the files in data/ are drawn and exported by the command run as a child process.
 * Every picture must be well-formed, self-contained SVG (checked by a small XML checker
 * below: balanced and properly nested tags, quoted attributes, valid entities, one root
 * <svg> with a viewBox, finite numbers) and hold what its kind of result should show;
 * every CSV must give back the JSON trajectory bitwise; bad input exits 2 with one line
 * naming the file and leaves an existing output untouched. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support.h"

/* ------------------------------------------------------------ harness -- */

/* A scratch directory per test and process, so that parallel jobs never share one. */
static void scratch_dir(char *dir, const char *test) { sp_test_scratch_dir(dir, "plot", test); }

/* Runs a command that must succeed silently. */
static void run_ok(const char *dir, const char *const *args)
{
    run_result r;
    run(dir, args, &r);
    cr_assert_eq(r.status, 0, "symplan %s %s: exit %d: %s", args[0], args[1], r.status, r.err);
    cr_expect_str_empty(r.err, "symplan %s %s wrote to stderr", args[0], args[1]);
    run_free(&r);
}

/* Solves data/<file> into dir/<file> and returns the parsed result. */
static cJSON *solve(const char *dir, const char *file, char *result_path)
{
    char in[PATH_SIZE];
    join(in, SP_TEST_DATA, file);
    join(result_path, dir, file);
    run_ok(dir, (const char *[]){"solve", in, "-o", result_path, NULL});
    return read_json(result_path);
}

/* Plots a result into dir/fig.svg and returns the picture's text. */
static char *plot(const char *dir, const char *result_path)
{
    char svg[PATH_SIZE];
    join(svg, dir, "fig.svg");
    run_ok(dir, (const char *[]){"plot", result_path, "-o", svg, NULL});
    return slurp(svg);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) ++n;
    return n;
}

/* -------------------------------------------------------- SVG checker -- */

/* Numbers in an attribute value, separated by spaces or commas, possibly inside the
 * path letters of "d" or the functions of "transform": each must parse and be finite. */
static const char *check_numbers(const char *name, const char *value, size_t length)
{
    static char why[256];
    char buf[1 << 16];
    if (length >= sizeof buf) return "attribute value too long";
    memcpy(buf, value, length);
    buf[length] = '\0';
    if (strcmp(name, "transform") == 0) {
        for (char *p = buf; *p; ++p)
            if (isalpha((unsigned char)*p) || *p == '(' || *p == ')') *p = ' ';
    } else if (strcmp(name, "d") == 0) {
        for (char *p = buf; *p; ++p)
            if (strchr("MLHVZmlhvz", *p)) *p = ' ';
    }
    for (char *p = buf; *p;) {
        while (*p == ' ' || *p == ',') ++p;
        if (!*p) break;
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || (*end && *end != ' ' && *end != ',')) {
            snprintf(why, sizeof why, "attribute %s=\"%.60s\" is not a list of finite numbers", name, buf);
            return why;
        }
        p = end;
    }
    return NULL;
}

static int is_numeric_attribute(const char *name)
{
    static const char *const names[] = {
        "x",     "y",      "x1",     "y1",      "x2",           "y2",        "cx", "cy",        "r",
        "width", "height", "points", "viewBox", "stroke-width", "font-size", "d",  "transform", "stroke-opacity",
        NULL};
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* Text between tags: '&' only as a known entity, no '<'. */
static const char *check_entities(const char *p, const char *end)
{
    for (; p < end; ++p) {
        if (*p == '<') return "'<' in text or attribute";
        if (*p != '&') continue;
        static const char *const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", NULL};
        int ok = 0;
        for (int i = 0; entities[i]; ++i) ok |= strncmp(p, entities[i], strlen(entities[i])) == 0;
        if (p[1] == '#') {
            const char *q = p + 2;
            while (isxdigit((unsigned char)*q) || *q == 'x') ++q;
            ok = *q == ';' && q > p + 2;
        }
        if (!ok) return "'&' that is not an entity";
    }
    return NULL;
}

/* NULL when text is a well-formed, self-contained SVG document; else what is wrong. */
static const char *svg_problem(const char *text)
{
    static char why[512];
    enum { DEPTH = 64 };
    char stack[DEPTH][32];
    int depth = 0, roots = 0, viewbox = 0;
    if (strstr(text, "href") || strstr(text, "url(") || strstr(text, "<script") || strstr(text, "<image"))
        return "external reference, script or image";
    const char *p = text;
    if (strncmp(p, "<?xml", 5) == 0) {
        p = strstr(p, "?>");
        if (!p) return "unterminated XML declaration";
        p += 2;
    }
    while (*p) {
        const char *lt = strchr(p, '<');
        const char *text_end = lt ? lt : p + strlen(p);
        if (depth == 0) {
            for (const char *q = p; q < text_end; ++q)
                if (!isspace((unsigned char)*q)) return "text outside the root element";
        } else {
            const char *bad = check_entities(p, text_end);
            if (bad) return bad;
        }
        if (!lt) break;
        p = lt + 1;
        if (strncmp(p, "!--", 3) == 0) {
            p = strstr(p, "-->");
            if (!p) return "unterminated comment";
            p += 3;
            continue;
        }
        int closing = *p == '/';
        if (closing) ++p;
        const char *name = p;
        while (isalnum((unsigned char)*p) || *p == '-' || *p == ':' || *p == '_') ++p;
        size_t nlen = (size_t)(p - name);
        if (nlen == 0 || nlen >= 32) return "bad tag name";
        if (closing) {
            while (isspace((unsigned char)*p)) ++p;
            if (*p != '>') return "junk in a closing tag";
            ++p;
            if (depth == 0) return "closing tag without an open one";
            --depth;
            if (strlen(stack[depth]) != nlen || strncmp(stack[depth], name, nlen) != 0) {
                snprintf(why, sizeof why, "</%.*s> closes <%.31s>", (int)(nlen & 31), name, stack[depth]);
                return why;
            }
            continue;
        }
        if (depth == 0) {
            if (++roots > 1) return "more than one root element";
            if (nlen != 3 || strncmp(name, "svg", 3) != 0) return "the root element is not <svg>";
        }
        /* attributes */
        char seen[32][32];
        int n_seen = 0;
        for (;;) {
            int space = 0;
            while (isspace((unsigned char)*p)) ++p, space = 1;
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
            if (!space) return "attributes not separated by white space";
            const char *an = p;
            while (isalnum((unsigned char)*p) || *p == '-' || *p == ':' || *p == '_') ++p;
            size_t alen = (size_t)(p - an);
            if (alen == 0 || alen >= 32 || *p != '=') {
                snprintf(why, sizeof why, "bad attribute in <%.*s> near \"%.20s\"", (int)nlen, name, an);
                return why;
            }
            char aname[32];
            memcpy(aname, an, alen);
            aname[alen] = '\0';
            for (int i = 0; i < n_seen; ++i)
                if (strcmp(seen[i], aname) == 0) return "duplicate attribute";
            if (n_seen < 32) strcpy(seen[n_seen++], aname);
            ++p;
            char quote = *p;
            if (quote != '"' && quote != '\'') {
                snprintf(why, sizeof why, "attribute %s is not quoted", aname);
                return why;
            }
            const char *value = ++p, *close = strchr(p, quote);
            if (!close) return "unterminated attribute value";
            const char *bad = check_entities(value, close);
            if (bad) return bad;
            if (is_numeric_attribute(aname) && (bad = check_numbers(aname, value, (size_t)(close - value)))) return bad;
            if (depth == 0 && strcmp(aname, "viewBox") == 0) {
                double a, b, c, d;
                viewbox = sscanf(value, "%lf %lf %lf %lf", &a, &b, &c, &d) == 4 && c > 0 && d > 0;
            }
            p = close + 1;
        }
        if (*p == '/') {
            p += 2;
            if (depth == 0) return "empty root element";
            continue;
        }
        ++p;
        if (depth == DEPTH) return "nested too deeply";
        memcpy(stack[depth], name, nlen);
        stack[depth][nlen] = '\0';
        ++depth;
    }
    if (depth != 0) {
        snprintf(why, sizeof why, "<%s> is never closed", stack[depth - 1]);
        return why;
    }
    if (roots != 1) return "no root element";
    if (!viewbox) return "the root <svg> has no valid viewBox";
    return NULL;
}

static void expect_well_formed(const char *svg, const char *what)
{
    const char *problem = svg_problem(svg);
    cr_assert_null(problem, "%s: not well-formed SVG: %s", what, problem);
    cr_expect(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\"") != NULL, "%s: no SVG namespace", what);
    cr_expect_eq(count(svg, "class=\"title\""), 1, "%s: no title", what);
    cr_expect_geq(count(svg, "class=\"axis-label\""), 2, "%s: no axis labels", what);
    cr_expect_geq(count(svg, "class=\"tick-label\""), 4, "%s: no tick labels", what);
    cr_expect_geq(count(svg, "class=\"legend-entry\""), 1, "%s: no legend", what);
}

/* Solves the data file `file` into result (its tree in *res, to cJSON_Delete) and plots it:
 * the picture, asserted well-formed (named `what`), to free. */
static char *solve_and_plot(const char *dir, const char *file, char *result, cJSON **res, const char *what)
{
    *res = solve(dir, file, result);
    char *svg = plot(dir, result);
    expect_well_formed(svg, what);
    return svg;
}

/* The close of a picture test: the picture and the document freed, the scratch folder removed. */
static void close_picture_test(const char *dir, char *svg, cJSON *doc)
{
    free(svg);
    cJSON_Delete(doc);
    remove_tree(dir);
}

/* The opening of a test of a solved example: the scratch folder dir for `test`, then
 * solve_and_plot. */
static char *scratch_solve_plot(char *dir, const char *test, const char *file, char *result, cJSON **res,
                                const char *what)
{
    scratch_dir(dir, test);
    return solve_and_plot(dir, file, result, res, what);
}

/* A data series named `name` (its <title>) is drawn. */
static int has_series(const char *svg, const char *name)
{
    char needle[256];
    snprintf(needle, sizeof needle, "<g class=\"series\"><title>%s</title>", name);
    return strstr(svg, needle) != NULL;
}

static int has_legend(const char *svg, const char *label)
{
    char needle[256];
    snprintf(needle, sizeof needle, "class=\"legend-label\">%s</text>", label);
    return strstr(svg, needle) != NULL;
}

/* A line and a legend entry for every name. */
static void expect_lines_with_legend(const char *svg, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        cr_expect(has_series(svg, names[i]), "no line for %s", names[i]);
        cr_expect(has_legend(svg, names[i]), "no legend entry for %s", names[i]);
    }
}

/* A decade tick label 1e-10 … 1e-19 on a log axis. */
static int has_round_off_ticks(const char *svg)
{
    for (int k = 10; k <= 19; ++k) {
        char needle[64];
        snprintf(needle, sizeof needle, "class=\"tick-label\" text-anchor=\"end\">1e-%d</text>", k);
        if (strstr(svg, needle)) return 1;
    }
    return 0;
}

/* The checker itself rejects what it should. */
Test(plot, svg_checker_rejects_broken_documents)
{
    const char *good = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">"
                       "<g class=\"a\"><title>x &amp; y</title><line x1=\"0\" y1=\"1.5\"/></g></svg>\n";
    cr_expect_null(svg_problem(good), "%s", svg_problem(good));
    static const char *const bad[] = {
        "<svg viewBox=\"0 0 1 1\"><g></svg>",
        "<svg viewBox=\"0 0 1 1\"><g></h></svg>",
        "<svg viewBox=\"0 0 1 1\"><line x1=0/></svg>",
        "<svg viewBox=\"0 0 1 1\"><line x1=\"nan\"/></svg>",
        "<svg viewBox=\"0 0 1 1\"><polyline points=\"1,2 inf,3\"/></svg>",
        "<svg viewBox=\"0 0 1 1\"><text>a & b</text></svg>",
        "<svg><g/></svg>",
        "<svg viewBox=\"0 0 1 1\"></svg><svg viewBox=\"0 0 1 1\"></svg>",
        "<g viewBox=\"0 0 1 1\"></g>",
        "<svg viewBox=\"0 0 1 1\"><image href=\"x.png\"/></svg>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        cr_expect_not_null(svg_problem(bad[i]), "accepted: %s", bad[i]);
}

/* ------------------------------------------------------------ pictures -- */

/* The sphere plan: one target marker, one reached point and one miss segment per target,
 * the path split into near and far side, the kicks. */
Test(plot, sphere_plan_shows_path_targets_reached_points_and_kicks)
{
    char dir[PATH_SIZE], result[PATH_SIZE];
    cJSON *res;
    char *svg = scratch_solve_plot(dir, "sphere", "sphere_interpolation.json", result, &res, "sphere plan");
    int targets = cJSON_GetArraySize(cJSON_GetObjectItem(res, "targets"));
    int kicks = cJSON_GetArraySize(cJSON_GetObjectItem(res, "kicks"));
    cr_assert_eq(targets, 4);
    cr_expect_eq(count(svg, "class=\"target\""), targets);
    cr_expect_eq(count(svg, "class=\"reached\""), targets);
    cr_expect_eq(count(svg, "class=\"miss\""), targets);
    cr_expect_eq(count(svg, "class=\"kick\""), kicks);
    cr_expect_eq(count(svg, "class=\"sphere\""), 1);
    cr_expect_eq(count(svg, "class=\"start\""), 1);
    cr_expect(strstr(svg, "<g class=\"series path\"><title>path y(t)</title>") != NULL);
    cr_expect_geq(count(svg, "class=\"graticule\""), 1);
    static const char *const legend[] = {"path y(t), near side", "path y(t), far side", "start y(0)",
                                         "target (hollow: far side)", "reached point"};
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; ++i)
        cr_expect(has_legend(svg, legend[i]), "no legend entry '%s'", legend[i]);
    cr_expect(strstr(svg, "Momentum kicks") != NULL);
    cr_expect(strstr(svg, "status converged") != NULL, "the subtitle gives the status");
    close_picture_test(dir, svg, res);
}

/* Orientations: frames along the path, and per target the target frame and the reached one. */
Test(plot, orientation_plan_shows_frames_and_target_frames)
{
    char dir[PATH_SIZE], result[PATH_SIZE];
    cJSON *res;
    char *svg = scratch_solve_plot(dir, "so3", "so3_orientations.json", result, &res, "orientation plan");
    int targets = cJSON_GetArraySize(cJSON_GetObjectItem(res, "targets"));
    cr_assert_gt(targets, 0);
    cr_expect_eq(count(svg, "<g class=\"target\">"), targets);
    cr_expect_eq(count(svg, "<g class=\"reached\">"), targets);
    cr_expect_eq(count(svg, "<g class=\"frame\">"), 11);
    cr_expect_eq(count(svg, "<g class=\"kick\">"), cJSON_GetArraySize(cJSON_GetObjectItem(res, "kicks")));
    /* each frame is a triad: three axes in red, green and blue */
    const char *frame = strstr(svg, "<g class=\"frame\">");
    cr_assert_not_null(frame);
    const char *end = strstr(frame, "</g>");
    cr_assert_not_null(end);
    int lines = 0;
    for (const char *q = strstr(frame, "<line"); q && q < end; q = strstr(q + 1, "<line")) ++lines;
    cr_expect_eq(lines, 3);
    static const char *const legend[] = {"body x-axis", "body y-axis", "body z-axis", "target frame"};
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; ++i)
        cr_expect(has_legend(svg, legend[i]), "no legend entry '%s'", legend[i]);
    close_picture_test(dir, svg, res);
}

/* A result whose numbers are anything JSON holds (rotations of entries ±1.79e308, whose
 * projections overflow) still gives a picture of finite coordinates. */
Test(plot, huge_numbers_in_a_result_give_finite_coordinates)
{
    char dir[PATH_SIZE], result[PATH_SIZE];
    scratch_dir(dir, "huge");
    cJSON *res = solve(dir, "so3_orientations.json", result);
    cJSON *q = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "trajectory"), "q");
    cr_assert(cJSON_IsArray(q));
    static const double row[9] = {1.79e308, 1.79e308, 1.79e308, -1.79e308, 1.79e308, 1.79e308, 1.79e308, 1.79e308,
                                  -1.79e308};
    for (int k = 0; k < cJSON_GetArraySize(q); ++k) cJSON_ReplaceItemInArray(q, k, cJSON_CreateDoubleArray(row, 9));
    write_json(result, res);
    char *svg = plot(dir, result);
    expect_well_formed(svg, "orientation plan of huge numbers");
    cr_expect_eq(count(svg, "inf\""), 0, "an attribute is infinite");
    close_picture_test(dir, svg, res);
}

/* A cubic simulation: the nine entries of g(t) against time, and the drift of the
 * momentum map, the right-action momentum, |ν| and the energy on a log axis reaching
 * down to round-off. */
Test(plot, cubic_simulation_shows_components_and_invariant_drift)
{
    char dir[PATH_SIZE], result[PATH_SIZE];
    cJSON *res;
    char *svg = scratch_solve_plot(dir, "cubic-sim", "sphere_simulate.json", result, &res, "cubic simulation");
    /* the orientation as its rotation angle and axis, not the nine matrix entries */
    static const char *const config[] = {"rotation angle (rad)", "axis x", "axis y", "axis z"};
    expect_lines_with_legend(svg, config, sizeof config / sizeof config[0]);
    cr_expect(!has_series(svg, "q_11"), "matrix entries drawn");
    static const char *const drift[] = {"momentum map Ad*(g⁻¹)ν", "right momentum −ad*(ξ)p − ν", "Casimir |ν|"};
    for (size_t i = 0; i < sizeof drift / sizeof drift[0]; ++i)
        cr_expect(has_series(svg, drift[i]), "no drift line for %s", drift[i]);
    cr_expect(strstr(svg, "Drift of the invariants") != NULL);
    cr_expect(has_round_off_ticks(svg), "the drift axis does not reach round-off (1e-1x ticks)");
    cr_expect_eq(count(svg, "class=\"floor-note\""), 1);
    close_picture_test(dir, svg, res);
}

/* Vakonomic simulations: components named by the model's coordinates, Ĥ and every first
 * integral the model declares for its potential, the path in the plane. */
Test(plot, vakonomic_simulations_show_coordinates_energy_and_integrals)
{
    static const struct {
        const char *file, *coordinates[4], *integrals[3];
    } cases[] = {
        {"heisenberg.json", {"x", "y", "z", NULL}, {"p_z drift", "L_z drift", NULL}},
        {"parking_fig3.json", {"x", "y", "theta", "phi"}, {"rotation_momentum drift", "p_x drift", "p_y drift"}},
        {"parking_fig3_bowl.json", {"x", "y", "theta", "phi"}, {"rotation_momentum drift", NULL, NULL}},
    };
    char dir[PATH_SIZE], result[PATH_SIZE];
    scratch_dir(dir, "vak-sim");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cJSON *res;
        char *svg = solve_and_plot(dir, cases[c].file, result, &res, cases[c].file);
        for (int i = 0; i < 4 && cases[c].coordinates[i]; ++i)
            cr_expect(has_series(svg, cases[c].coordinates[i]), "%s: no line for %s", cases[c].file,
                      cases[c].coordinates[i]);
        cr_expect(has_series(svg, "energy |Ĥ − Ĥ0|"), "%s: no energy line", cases[c].file);
        cr_expect(has_series(svg, "constraint |G(q) q̇|"), "%s: no constraint line", cases[c].file);
        int integrals = 0;
        for (int i = 0; i < 3 && cases[c].integrals[i]; ++i, ++integrals)
            cr_expect(has_series(svg, cases[c].integrals[i]), "%s: no line for %s", cases[c].file,
                      cases[c].integrals[i]);
        cr_expect_eq(count(svg, " drift</title>"), integrals, "%s: one line per first integral", cases[c].file);
        cr_expect(has_round_off_ticks(svg), "%s: the drift axis does not reach round-off", cases[c].file);
        cr_expect(has_series(svg, "path"), "%s: no path in the plane", cases[c].file);
        cr_expect_eq(count(svg, "class=\"target\""), 0, "%s: a simulation has no target", cases[c].file);
        free(svg);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* Holonomic simulations: the pendulum's drift panel holds the four quantities of the
 * figures of Chang, Perlmutter & Vankerschaver (2022), |q|² − l², q·p, |H − H0| and L3,
 * on a log axis; the heavy top (no monitors) shows the constraint and the hidden
 * constraint, and its vertical momentum. */
Test(plot, holonomic_simulations_show_the_feedback_paper_figures_quantities)
{
    static const struct {
        const char *file, *lines[4];
    } cases[] = {
        {"spherical_pendulum_feedback_euler.json", {"|q|² − l²", "q·p", "energy |H − H0|", "L3 drift"}},
        {"spherical_pendulum_strang.json", {"|q|² − l²", "q·p", "energy |H − H0|", "L3 drift"}},
        {"heavy_top.json",
         {"constraint |g(q)|", "hidden constraint |G(q) M⁻¹p|", "energy |H − H0|", "vertical_momentum drift"}},
        {"s3_contact_hopf.json", {"|q|² − l²", "q·p", "energy |H − H0|", "lambda drift"}},
    };
    char dir[PATH_SIZE], result[PATH_SIZE];
    scratch_dir(dir, "hol-sim");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        cJSON *res;
        char *svg = solve_and_plot(dir, cases[c].file, result, &res, cases[c].file);
        for (int i = 0; i < 4; ++i)
            cr_expect(has_series(svg, cases[c].lines[i]), "%s: no drift line for %s", cases[c].file, cases[c].lines[i]);
        cr_expect(strstr(svg, "Drift of the invariants") != NULL, "%s", cases[c].file);
        if (c > 0) /* the feedback integrator's drifts stay near 1e-5 */
            cr_expect(has_round_off_ticks(svg), "%s: the drift axis does not reach round-off", cases[c].file);
        free(svg);
        cJSON_Delete(res);
    }
    remove_tree(dir);
}

/* The parallel-parking plan: the configuration and drift panels, and the target in the plane. */
Test(plot, vakonomic_plan_shows_the_target_in_the_plane)
{
    char dir[PATH_SIZE], result[PATH_SIZE];
    cJSON *res;
    char *svg = scratch_solve_plot(dir, "vak-plan", "parallel_parking.json", result, &res, "parking plan");
    cr_expect_eq(count(svg, "class=\"target\""), 1);
    cr_expect(has_legend(svg, "target"));
    static const char *const names[] = {"x", "y", "theta", "phi", "path", "energy |Ĥ − Ĥ0|"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        cr_expect(has_series(svg, names[i]), "no line for %s", names[i]);
    close_picture_test(dir, svg, res);
}

/* A car's plan is drawn as its scene: every obstacle filled, the footprint every 0.5 m of
 * travel (a path of L metres has about 2L of them), the path by gear, one cusp marker per
 * gear change, the start and goal footprints, all in the picture. */
Test(plot, a_car_plan_is_its_scene)
{
    char dir[PATH_SIZE], r[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "car");
    char in[PATH_SIZE];
    join(in, SP_TEST_DATA, "car/parallel_slot.json");
    join(r, dir, "slot.json");
    /* converged (0), or stalled (3) where a slow machine or valgrind spends the smoothing's
     * time budget: either way the result has its rows to draw */
    run_result solved;
    run(dir, (const char *[]){"solve", in, "-o", r, NULL}, &solved);
    cr_assert(solved.status == 0 || solved.status == 3, "solve: exit %d: %s", solved.status, solved.err);
    run_free(&solved);
    cJSON *res = read_json(r);
    join(svg_path, dir, "scene.svg");
    run_ok(dir, (const char *[]){"plot", r, "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "car plan");
    const int obstacles = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "input"), "obstacles"));
    cr_expect_eq(count(svg, "class=\"obstacle\""), obstacles, "one filled polygon per obstacle");
    const double length = cJSON_GetObjectItem(res, "length")->valuedouble;
    const int prints = count(svg, "class=\"footprint\"");
    cr_expect(prints >= (int)(2.0 * length) - 1 && prints <= (int)(2.0 * length) + 3, "%d footprints along %.2f m",
              prints, length);
    cr_expect_eq(count(svg, "class=\"cusp\""), cJSON_GetObjectItem(res, "gear_changes")->valueint);
    cr_expect_eq(count(svg, "class=\"start\""), 1);
    cr_expect_eq(count(svg, "class=\"goal\""), 1);
    cr_expect(has_legend(svg, "path, forward") && has_legend(svg, "obstacle"));
    close_picture_test(dir, svg, res);
}

/* --y EXPR on one result: the expression of the columns `symplan export` writes, drawn
 * against t (one series named by the expression); a name that is no column is refused
 * (exit 2) with the list of the columns, and nothing is written. */
Test(plot, a_derived_quantity_of_a_result)
{
    char dir[PATH_SIZE], r[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "derived");
    cJSON *res = solve(dir, "spherical_pendulum.json", r);
    join(svg_path, dir, "radius.svg");
    run_ok(dir, (const char *[]){"plot", r, "--y", "sqrt(q_x^2 + q_y^2 + q_z^2)", "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "derived quantity");
    cr_expect(has_series(svg, "sqrt(q_x^2 + q_y^2 + q_z^2)"), "no series named by the expression");
    free(svg);
    remove(svg_path);
    run_result rr;
    run(dir, (const char *[]){"plot", r, "--y", "q_w + 1", "-o", svg_path, NULL}, &rr);
    cr_expect_eq(rr.status, 2, "an unknown column: exit %d", rr.status);
    cr_expect(strstr(rr.err, "unknown symbol 'q_w'") && strstr(rr.err, "t, q_x, q_y, q_z, p_x, p_y, p_z"),
              "the message does not name the columns: %s", rr.err);
    cr_expect(access(svg_path, F_OK) != 0, "a picture was written");
    run_free(&rr);
    cJSON_Delete(res);
    remove_tree(dir);
}

/* Results of one problem run with a few fields changed are told apart by those fields
 * ("steps = 40"), whatever their files are called; study cases by their varied values. */
Test(plot, overlays_are_labelled_by_what_differs)
{
    char dir[PATH_SIZE], in[PATH_SIZE], problem[PATH_SIZE], out[2][PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "compare-labels");
    join(in, SP_TEST_DATA, "heisenberg.json");
    for (int k = 0; k < 2; ++k) {
        cJSON *doc = read_json(in);
        cJSON_ReplaceItemInObjectCaseSensitive(doc, "steps", cJSON_CreateNumber(k ? 40 : 20));
        char name[32];
        snprintf(name, sizeof name, "run-%d.json", k);
        join(problem, dir, "problem.json");
        write_json(problem, doc);
        cJSON_Delete(doc);
        join(out[k], dir, name);
        run_ok(dir, (const char *[]){"solve", problem, "-o", out[k], NULL});
    }
    join(svg_path, dir, "cmp.svg");
    run_ok(dir, (const char *[]){"plot", out[0], out[1], "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "two runs of one problem");
    cr_expect(has_legend(svg, "steps = 20") && has_legend(svg, "steps = 40"), "not labelled by the steps");
    cr_expect(!has_legend(svg, "run-0.json"), "labelled by the file name");
    free(svg);
    /* study cases: their varied values */
    char study[PATH_SIZE], folder[PATH_SIZE], c0[PATH_SIZE], c1[PATH_SIZE];
    join(study, SP_TEST_DATA, "studies/convergence.json");
    join(folder, dir, "study");
    run_ok(dir, (const char *[]){"study", study, "-o", folder, "-j", "1", NULL});
    join(c0, folder, "case-0000.json");
    join(c1, folder, "case-0001.json");
    cJSON *r0 = read_json(c0), *r1 = read_json(c1);
    const cJSON *v0 = cJSON_GetObjectItem(cJSON_GetObjectItem(r0, "case"), "values");
    const cJSON *v1 = cJSON_GetObjectItem(cJSON_GetObjectItem(r1, "case"), "values");
    cr_assert(cJSON_IsObject(v0) && cJSON_IsObject(v1));
    run_ok(dir, (const char *[]){"plot", c0, c1, "-o", svg_path, NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "two study cases");
    /* every value that differs between the two cases appears as "name = value" */
    int said = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, v0)
    {
        const cJSON *w = cJSON_GetObjectItem(v1, v->string);
        if (!w || cJSON_Compare(v, w, 1)) continue;
        char label[96];
        if (cJSON_IsNumber(v))
            snprintf(label, sizeof label, "%s = %g", v->string, v->valuedouble);
        else
            snprintf(label, sizeof label, "%s = %s", v->string, cJSON_GetStringValue(v));
        cr_expect(strstr(svg, label) != NULL, "no '%s' in the legend", label);
        ++said;
    }
    cr_expect_gt(said, 0, "the two cases differ in nothing");
    cr_expect(!has_legend(svg, "case-0000.json"), "labelled by the file name");
    free(svg);
    cJSON_Delete(r0), cJSON_Delete(r1);
    remove_tree(dir);
}

/* The tick labels of a picture as boxes (12 px sans-serif, at most 0.6 em a character,
 * anchored as the SVG says) do not overlap: a study whose values crowd together (steps 100,
 * 101, 102, 103 and 200) keeps a tick for each and labels only those with room. */
Test(plot, tick_labels_never_overlap)
{
    char dir[PATH_SIZE], study[PATH_SIZE], folder[PATH_SIZE], svg_path[PATH_SIZE], base[PATH_SIZE];
    scratch_dir(dir, "tick-labels");
    join(base, SP_TEST_DATA, "heisenberg.json");
    join(study, dir, "crowded.json");
    char text[PATH_SIZE + 200];
    snprintf(text, sizeof text, "{\"base\": \"%s\", \"vary\": {\"steps\": [100, 101, 102, 103, 200]}}", base);
    write_text(study, text);
    join(folder, dir, "out");
    run_ok(dir, (const char *[]){"study", study, "-o", folder, "-j", "1", NULL});
    join(svg_path, dir, "study.svg");
    run_ok(dir, (const char *[]){"plot", folder, "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "crowded study");
    cr_expect_geq(count(svg, "<line class=\"tick\""), 5, "a tick for every value");
    /* every pair of labels: boxes apart */
    enum { MAX_LABELS = 256 };
    double x0[MAX_LABELS], x1[MAX_LABELS], y0[MAX_LABELS], y1[MAX_LABELS];
    int n = 0;
    for (const char *p = svg; (p = strstr(p, "class=\"tick-label\"")) && n < MAX_LABELS; ++p) {
        const char *open = p;
        while (open > svg && strncmp(open, "<text", 5) != 0) --open;
        double x, y;
        cr_assert_eq(sscanf(open, "<text x=\"%lf\" y=\"%lf\"", &x, &y), 2, "%.80s", open);
        const char *body = strchr(p, '>') + 1, *end = strstr(body, "</text>");
        const double w = 0.6 * 12.0 * (double)(end - body);
        const int middle = strstr(p, "text-anchor=\"middle\"") && strstr(p, "text-anchor=\"middle\"") < body;
        x0[n] = middle ? x - w / 2 : x - w, x1[n] = middle ? x + w / 2 : x;
        y0[n] = y - 12.0, y1[n] = y;
        ++n;
    }
    cr_expect_geq(n, 4, "too few labels to tell anything");
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const int apart = x1[i] <= x0[j] || x1[j] <= x0[i] || y1[i] <= y0[j] || y1[j] <= y0[i];
            cr_expect(apart, "labels %d [%.1f, %.1f]x[%.1f, %.1f] and %d [%.1f, %.1f]x[%.1f, %.1f] overlap", i, x0[i],
                      x1[i], y0[i], y1[i], j, x0[j], x1[j], y0[j], y1[j]);
        }
    free(svg);
    remove_tree(dir);
}

/* ------------------------------------------- plans with many keyframes -- */

/* Plan results like `symplan solve` writes them, made up here: 30 keyframes, one per
 * unit of time, on a path known in closed form. */
enum { KEYFRAMES = 30, ROWS = 601 };

/* Several results overlaid: one panel per diagnostic (a series drawn only for the results
 * whose family computes it), one line per result named by its file in the legend; file
 * names that repeat give model + scheme; one result is today's picture. */
Test(plot, several_results_are_overlaid_in_one_comparison)
{
    char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE], c[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "compare");
    cJSON *ra = solve(dir, "planar_pendulum.json", a);
    cJSON *rb = solve(dir, "planar_pendulum_dop853.json", b);
    cJSON *rc = solve(dir, "free_rigid_body.json", c);
    join(svg_path, dir, "cmp.svg");
    run_ok(dir, (const char *[]){"plot", a, b, c, "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "comparison");
    cr_expect(strstr(svg, "Comparison of 3 results") != NULL);
    static const char *const names[] = {"planar_pendulum.json", "planar_pendulum_dop853.json", "free_rigid_body.json"};
    for (int i = 0; i < 3; ++i) cr_expect(has_legend(svg, names[i]), "no legend entry for %s", names[i]);
    /* the configuration: the first components of each (two of the pendulums; angle and two axis
     * components of the body's orientation) */
    cr_expect(has_series(svg, "planar_pendulum.json: x"));
    cr_expect(has_series(svg, "planar_pendulum_dop853.json: y"));
    cr_expect(has_series(svg, "free_rigid_body.json: rotation angle (rad)"));
    cr_expect(has_series(svg, "free_rigid_body.json: axis y"));
    cr_expect(!has_series(svg, "free_rigid_body.json: axis z"), "more than three components of a rotation");
    cr_expect(!has_series(svg, "free_rigid_body.json: q_11"), "matrix entries of a rotation");
    /* a diagnostic of the pendulums only, one of the body only, one of all three */
    cr_expect(has_series(svg, "planar_pendulum.json: q·p"));
    cr_expect(has_series(svg, "planar_pendulum_dop853.json: q·p"));
    cr_expect(!has_series(svg, "free_rigid_body.json: q·p"));
    cr_expect(has_series(svg, "free_rigid_body.json: constraint |g(q)|"));
    for (int i = 0; i < 3; ++i) {
        char name[128];
        snprintf(name, sizeof name, "%s: energy |H − H0|", names[i]);
        cr_expect(has_series(svg, name), "no energy line for %s", names[i]);
    }
    /* one panel per diagnostic, with its own legend of the results that have it */
    cr_expect_eq(count(svg, ">energy |H − H0|</text>"), 1, "not one panel for the energy");
    cr_expect_eq(count(svg, ">q·p</text>"), 1, "not one panel for q·p");
    cr_expect_eq(count(svg, ">planar_pendulum.json</text>"), 1 + 3, "pendulum legend entries: config + 3 panels");
    cr_expect_eq(count(svg, ">free_rigid_body.json</text>"), 1 + 6, "body legend entries: config + 6 panels");
    /* lines: 2 + 2 + 3 components, 3 + 3 + 6 drift series */
    cr_expect_eq(count(svg, "<g class=\"series\">"), 7 + 12);
    free(svg);

    /* the same file name twice: model + scheme */
    char sub[PATH_SIZE], b2[PATH_SIZE];
    join(sub, dir, "other");
    cr_assert_eq(mkdir(sub, 0755), 0);
    join(b2, sub, "planar_pendulum.json");
    write_json(b2, rb);
    run_ok(dir, (const char *[]){"plot", a, b2, "-o", svg_path, NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "comparison of two files of one name");
    cr_expect(has_legend(svg, "1: planar_pendulum rattle_tj4, 10000 steps"));
    cr_expect(strstr(svg, ">2: planar_pendulum ") != NULL, "no model + scheme for the second");
    free(svg);

    /* one result: exactly today's picture */
    char one[PATH_SIZE];
    join(one, dir, "one.svg");
    run_ok(dir, (const char *[]){"plot", a, "-o", one, NULL});
    char *single = plot(dir, a);
    svg = slurp(one);
    cr_expect_str_eq(svg, single);
    free(svg), free(single);

    /* a study or a bad result among them is refused, naming it */
    char bad[PATH_SIZE];
    join(bad, dir, "bad.json");
    write_text(bad, "[{\"values\": {\"steps\": 1}, \"cost\": 1}]");
    run_result r;
    run(dir, (const char *[]){"plot", a, bad, "-o", svg_path, NULL}, &r);
    cr_expect_eq(r.status, 2);
    cr_expect_eq(strncmp(r.err, bad, strlen(bad)), 0, "'%s' does not name %s", r.err, bad);
    run_free(&r);
    run(dir, (const char *[]){"plot", a, b, "--x", "steps", "-o", svg_path, NULL}, &r);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    cJSON_Delete(ra), cJSON_Delete(rb), cJSON_Delete(rc);
    remove_tree(dir);
}

static cJSON *plan_skeleton(void)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "task", "plan");
    cJSON_AddStringToObject(doc, "model", "cubic_spline");
    cJSON_AddStringToObject(doc, "status", "converged");
    cJSON_AddNumberToObject(doc, "cost", 1.5);
    cJSON *settings = cJSON_AddObjectToObject(doc, "settings");
    cJSON_AddStringToObject(settings, "scheme", "hohp_sv");
    cJSON_AddNumberToObject(settings, "steps", ROWS - 1);
    cJSON *kicks = cJSON_AddArrayToObject(doc, "kicks");
    for (int i = 1; i <= KEYFRAMES; ++i) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "t", i);
        cJSON_AddItemToObject(k, "kick", cJSON_CreateDoubleArray((const double[3]){sin(i), 0.5, 0.02 * i}, 3));
        cJSON_AddItemToArray(kicks, k);
    }
    return doc;
}

static void unit(double *v)
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; ++i) v[i] /= n;
}

/* A point of a spiral on the sphere round c = (−1, −1, −0.5)/|…|, from 20° to 70° away
 * from c: all of it fits on the hemisphere facing c, but not on one turned 35° away. */
static void spiral(double t, double T, double *y)
{
    double c[3] = {-1, -1, -0.5}, e1[3], e2[3];
    unit(c);
    e1[0] = c[1], e1[1] = -c[0], e1[2] = 0; /* c × z */
    unit(e1);
    e2[0] = c[1] * e1[2] - c[2] * e1[1], e2[1] = c[2] * e1[0] - c[0] * e1[2], e2[2] = c[0] * e1[1] - c[1] * e1[0];
    const double pi = 3.14159265358979323846, theta = (20 + 50 * t / T) * pi / 180, phi = 2 * pi * t / 15;
    for (int i = 0; i < 3; ++i) y[i] = cos(theta) * c[i] + sin(theta) * (cos(phi) * e1[i] + sin(phi) * e2[i]);
}

static cJSON *sphere_plan_30(void)
{
    cJSON *doc = plan_skeleton(), *targets = cJSON_AddArrayToObject(doc, "targets");
    cJSON *tr = cJSON_AddObjectToObject(doc, "trajectory"), *t = cJSON_AddArrayToObject(tr, "t"),
          *y = cJSON_AddArrayToObject(tr, "y");
    const double T = KEYFRAMES;
    for (int k = 0; k < ROWS; ++k) {
        double tk = T * k / (ROWS - 1), p[3];
        spiral(tk, T, p);
        cJSON_AddItemToArray(t, cJSON_CreateNumber(tk));
        cJSON_AddItemToArray(y, cJSON_CreateDoubleArray(p, 3));
    }
    for (int i = 1; i <= KEYFRAMES; ++i) {
        double reached[3], target[3];
        spiral(i, T, reached);
        for (int j = 0; j < 3; ++j) target[j] = reached[j] + 0.01 * (j == 0 ? sin(i) : j == 1 ? cos(2 * i) : 0.3);
        unit(target);
        double d = 0;
        for (int j = 0; j < 3; ++j) d += (target[j] - reached[j]) * (target[j] - reached[j]);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", i);
        cJSON_AddNumberToObject(o, "step", 20 * i);
        cJSON_AddItemToObject(o, "target", cJSON_CreateDoubleArray(target, 3));
        cJSON_AddItemToObject(o, "reached", cJSON_CreateDoubleArray(reached, 3));
        cJSON_AddNumberToObject(o, "distance", sqrt(d));
        cJSON_AddItemToArray(targets, o);
    }
    return doc;
}

/* The rotation by `angle` about the unit axis a (Rodrigues), row-major. */
static void rotation(const double *a, double angle, double *R)
{
    const double c = cos(angle), s = sin(angle), v = 1 - c;
    R[0] = c + a[0] * a[0] * v, R[1] = a[0] * a[1] * v - a[2] * s, R[2] = a[0] * a[2] * v + a[1] * s;
    R[3] = a[1] * a[0] * v + a[2] * s, R[4] = c + a[1] * a[1] * v, R[5] = a[1] * a[2] * v - a[0] * s;
    R[6] = a[2] * a[0] * v - a[1] * s, R[7] = a[2] * a[1] * v + a[0] * s, R[8] = c + a[2] * a[2] * v;
}

/* [w, x, y, z] of the rotation by `angle` about the unit axis a */
static void quaternion(const double *a, double angle, double *q)
{
    q[0] = cos(angle / 2);
    for (int i = 0; i < 3; ++i) q[i + 1] = sin(angle / 2) * a[i];
}

static cJSON *matrix_json(const double *R)
{
    cJSON *m = cJSON_CreateArray();
    for (int i = 0; i < 3; ++i) cJSON_AddItemToArray(m, cJSON_CreateDoubleArray(R + 3 * i, 3));
    return m;
}

/* The slow rotation R(t) = exp(0.2 t â) about the tilted axis â ∝ (1, 2, 3), with
 * ξ = 0.2 â; keyframe i reached exactly where i is a multiple of 7, else missed by
 * 10^(i mod 4 − 13) rad about z (misses spanning four decades and exact zeros, as after
 * exact interpolation). Orientations as matrices, or as quaternions [w, x, y, z] with
 * the trajectory's "quaternion" rows in place of "q". */
static cJSON *orientation_plan_30(int quaternions)
{
    const double rate = 0.2, z[3] = {0, 0, 1};
    double axis[3] = {1, 2, 3};
    unit(axis);
    cJSON *doc = plan_skeleton(), *targets = cJSON_AddArrayToObject(doc, "targets");
    cJSON *tr = cJSON_AddObjectToObject(doc, "trajectory"), *t = cJSON_AddArrayToObject(tr, "t"),
          *g = cJSON_AddArrayToObject(tr, quaternions ? "quaternion" : "q"), *xi = cJSON_AddArrayToObject(tr, "xi");
    const double xi_row[3] = {rate * axis[0], rate * axis[1], rate * axis[2]};
    for (int k = 0; k < ROWS; ++k) {
        double tk = (double)KEYFRAMES * k / (ROWS - 1), R[9], q[4];
        cJSON_AddItemToArray(t, cJSON_CreateNumber(tk));
        if (quaternions) {
            quaternion(axis, rate * tk, q);
            cJSON_AddItemToArray(g, cJSON_CreateDoubleArray(q, 4));
        } else {
            rotation(axis, rate * tk, R);
            cJSON_AddItemToArray(g, cJSON_CreateDoubleArray(R, 9));
        }
        cJSON_AddItemToArray(xi, cJSON_CreateDoubleArray(xi_row, 3));
    }
    for (int i = 1; i <= KEYFRAMES; ++i) {
        const double miss = i % 7 == 0 ? 0.0 : pow(10.0, i % 4 - 13);
        double R[9], E[9], P[9], q[4], qe[4], qp[4];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", i);
        cJSON_AddNumberToObject(o, "step", 20 * i);
        if (quaternions) { /* the target: the reached one times the miss about z */
            quaternion(axis, rate * i, q);
            quaternion(z, miss, qe);
            qp[0] = q[0] * qe[0] - q[3] * qe[3], qp[1] = q[1] * qe[0] + q[2] * qe[3];
            qp[2] = q[2] * qe[0] - q[1] * qe[3], qp[3] = q[3] * qe[0] + q[0] * qe[3];
            cJSON_AddItemToObject(o, "target", cJSON_CreateDoubleArray(qp, 4));
            cJSON_AddItemToObject(o, "reached", cJSON_CreateDoubleArray(q, 4));
        } else {
            rotation(axis, rate * i, R);
            rotation(z, miss, E);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b)
                    P[3 * a + b] = R[3 * a] * E[b] + R[3 * a + 1] * E[3 + b] + R[3 * a + 2] * E[6 + b];
            cJSON_AddItemToObject(o, "target", matrix_json(P));
            cJSON_AddItemToObject(o, "reached", matrix_json(R));
        }
        cJSON_AddNumberToObject(o, "distance", miss);
        cJSON_AddItemToArray(targets, o);
    }
    return doc;
}

/* Plots a made-up result written to dir/<name>. */
static char *plot_doc(const char *dir, const char *name, const cJSON *doc)
{
    char path[PATH_SIZE];
    join(path, dir, name);
    write_json(path, doc);
    return plot(dir, path);
}

/* plot_doc, the picture asserted well-formed (named `what`). */
static char *plot_checked(const char *dir, const char *name, const cJSON *doc, const char *what)
{
    char *svg = plot_doc(dir, name, doc);
    expect_well_formed(svg, what);
    return svg;
}

/* The opening of a picture test: the scratch folder dir for `test`, and doc plotted there
 * as plot_checked does. */
static char *scratch_plot(char *dir, const char *test, const char *name, const cJSON *doc, const char *what)
{
    scratch_dir(dir, test);
    return plot_checked(dir, name, doc, what);
}

/* The value of attribute `name` in the tag starting at `tag` (which ends at the first
 * '>'), or NULL; copied into out. */
static const char *attribute(const char *tag, const char *name, char *out, size_t size)
{
    const char *end = strchr(tag, '>');
    char needle[64];
    snprintf(needle, sizeof needle, " %s=\"", name);
    const char *p = strstr(tag, needle);
    if (!p || !end || p > end) return NULL;
    p += strlen(needle);
    const char *q = strchr(p, '"');
    if (!q || (size_t)(q - p) >= size) return NULL;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return out;
}

/* The region of the element with id="`id`": from its tag to the end of the document. */
static const char *element_by_id(const char *svg, const char *id)
{
    char needle[64];
    snprintf(needle, sizeof needle, "id=\"%s\"", id);
    const char *p = strstr(svg, needle);
    return p;
}

typedef struct label_box {
    double x0, y0, x1, y1;
    char text[64];
} label_box;

/* The boxes of every <text class="target-label">: 0.6 em per character (about the width
 * of a digit in the usual sans-serif fonts; entities and UTF-8 sequences count as one),
 * 0.75 em above the baseline to 0.2 em below; returns how many (at most max). */
static int target_labels(const char *svg, label_box *out, int max)
{
    int n = 0;
    for (const char *p = strstr(svg, "<text "); p && n < max; p = strstr(p + 1, "<text ")) {
        char value[64], anchor[64] = "start";
        const char *cls = attribute(p, "class", value, sizeof value);
        if (!cls || strcmp(cls, "target-label") != 0) continue;
        double x = atof(attribute(p, "x", value, sizeof value) ? value : "nan");
        double y = atof(attribute(p, "y", value, sizeof value) ? value : "nan");
        double font = attribute(p, "font-size", value, sizeof value) ? atof(value) : 12.0;
        attribute(p, "text-anchor", anchor, sizeof anchor);
        const char *body = strchr(p, '>') + 1, *close = strstr(body, "</text>");
        cr_assert_not_null(close);
        int chars = 0;
        for (const char *c = body; c < close; ++c) {
            if (*c == '&') c = strchr(c, ';');
            if ((*c & 0xc0) != 0x80) ++chars;
        }
        label_box *b = &out[n++];
        snprintf(b->text, sizeof b->text, "%.*s", (int)(close - body), body);
        const double w = 0.6 * font * chars;
        b->x0 = strcmp(anchor, "middle") == 0 ? x - w / 2 : strcmp(anchor, "end") == 0 ? x - w : x;
        b->x1 = b->x0 + w;
        b->y0 = y - 0.75 * font, b->y1 = y + 0.2 * font;
        cr_assert(isfinite(b->x0) && isfinite(b->y0), "a label without its position: %.80s", p);
    }
    return n;
}

static void expect_labels_apart(const char *svg, int at_least, const char *what)
{
    label_box b[4 * KEYFRAMES];
    int n = target_labels(svg, b, 4 * KEYFRAMES);
    cr_expect_geq(n, at_least, "%s: only %d keyframe labels", what, n);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            cr_expect(!(b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 && b[j].y0 < b[i].y1),
                      "%s: labels '%s' at (%.1f, %.1f) and '%s' at (%.1f, %.1f) overlap", what, b[i].text, b[i].x0,
                      b[i].y1, b[j].text, b[j].x0, b[j].y1);
}

/* 30 keyframes on the sphere: the camera faces the path (none of it, and no target, on
 * the far side, although it reaches 70° from its centre), the markers are smaller,
 * about every third keyframe is labelled and no two labels overlap; the misses get a
 * panel of their own. */
Test(plot, sphere_plan_with_30_keyframes_stays_readable)
{
    char dir[PATH_SIZE];
    cJSON *doc = sphere_plan_30();
    char *svg = scratch_plot(dir, "sphere30", "sphere30.json", doc, "30-keyframe sphere plan");
    cr_expect_eq(count(svg, "class=\"target\""), KEYFRAMES);
    cr_expect_eq(count(svg, "class=\"reached\""), KEYFRAMES);
    cr_expect_eq(count(svg, "class=\"miss\""), KEYFRAMES);
    cr_expect_eq(count(svg, "class=\"kick\""), KEYFRAMES);
    const char *path = strstr(svg, "<g class=\"series path\">"), *path_end = path ? strstr(path, "</g>") : NULL;
    cr_assert(path && path_end);
    int far = 0;
    for (const char *p = strstr(path, "stroke-opacity"); p && p < path_end; p = strstr(p + 1, "stroke-opacity")) ++far;
    cr_expect_eq(far, 0, "part of the path is drawn on the far side");
    cr_expect_eq(count(svg, "fill=\"white\" stroke=\"#ff7f0e\""), 0, "a target is on the far side");
    char r[32];
    const char *marker = strstr(svg, "<circle class=\"target\"");
    cr_assert_not_null(marker);
    cr_assert_not_null(attribute(marker, "r", r, sizeof r));
    cr_expect_lt(atof(r), 5.5, "markers keep their size for 30 keyframes (r = %s)", r);
    expect_labels_apart(svg, 8, "sphere");
    label_box b[4 * KEYFRAMES];
    cr_expect_leq(target_labels(svg, b, 4 * KEYFRAMES), 12, "more labels than fit");
    const char *miss = element_by_id(svg, "miss-distance");
    cr_assert_not_null(miss, "no panel of the misses");
    cr_expect_eq(count(miss, "class=\"miss-point\""), KEYFRAMES);
    close_picture_test(dir, svg, doc);
}

/* The points of the first polyline after `from`. */
static int polyline_points(const char *from, double *x, double *y, int max)
{
    const char *p = strstr(from, "<polyline");
    cr_assert_not_null(p);
    p = strstr(p, "points=\"");
    cr_assert_not_null(p);
    p += 8;
    int n = 0;
    while (*p != '"' && n < max) {
        char *end;
        x[n] = strtod(p, &end);
        cr_assert_eq(*end, ',');
        y[n] = strtod(end + 1, &end);
        ++n;
        p = end;
        while (*p == ' ') ++p;
    }
    return n;
}

/* 30 keyframes of orientations: the target frames thinned out, labels apart, and two
 * time plots: the miss angle per keyframe on a log axis (the misses span four decades,
 * the exact zeros on a floor that a note names) and |ω| = |ξ| along the trajectory,
 * here constant. */
Test(plot, orientation_plan_with_30_keyframes_has_time_plots)
{
    char dir[PATH_SIZE];
    cJSON *doc = orientation_plan_30(0);
    char *svg = scratch_plot(dir, "so3-30", "so3_30.json", doc, "30-keyframe orientation plan");
    int targets = count(svg, "<g class=\"target\">");
    cr_expect(targets >= 8 && targets < KEYFRAMES, "%d of %d target frames drawn", targets, KEYFRAMES);
    cr_expect_eq(count(svg, "<g class=\"reached\">"), targets);
    cr_expect_eq(count(svg, "<g class=\"frame\">"), 11);
    cr_expect_eq(count(svg, "<g class=\"kick\">"), KEYFRAMES);
    expect_labels_apart(svg, 8, "orientations");

    cr_expect_eq(count(svg, "id=\"miss-angle\""), 1);
    cr_expect_eq(count(svg, "id=\"angular-speed\""), 1);
    const char *miss = element_by_id(svg, "miss-angle"), *speed = element_by_id(svg, "angular-speed");
    cr_assert(miss && speed);
    cr_assert(miss < speed, "the panels are drawn in the order miss angle, angular speed");
    const size_t miss_len = (size_t)(speed - miss);
    char *miss_panel = strndup(miss, miss_len);
    cr_assert_not_null(miss_panel);
    cr_expect_eq(count(miss_panel, "class=\"miss-point\""), KEYFRAMES);
    cr_expect(strstr(miss_panel, "log scale") != NULL, "the misses span decades: a log axis");
    cr_expect(strstr(miss_panel, ">1e-12</text>") != NULL, "no decade ticks on the miss axis");
    cr_expect_eq(count(miss_panel, "class=\"floor-note\""), 1, "the exact zeros are not explained");
    free(miss_panel);
    cr_expect(has_series(speed, "|ω|"), "no |ω| line");
    double x[ROWS], y[ROWS];
    int n = polyline_points(strstr(speed, "<title>|ω|</title>"), x, y, ROWS);
    cr_expect_eq(n, ROWS);
    for (int k = 1; k < n; ++k) {
        cr_expect_gt(x[k], x[k - 1], "time runs to the right");
        cr_expect_lt(fabs(y[k] - y[0]), 0.02, "|ξ| is constant: row %d drawn at %g, row 0 at %g", k, y[k], y[0]);
    }
    close_picture_test(dir, svg, doc);
}

/* A quaternion written [w, x, y, z] rewritten in place as [x, y, z, w]. */
static void move_w_last(cJSON *q)
{
    cr_assert_eq(cJSON_GetArraySize(q), 4);
    cJSON_AddItemToArray(q, cJSON_DetachItemFromArray(q, 0));
}

/* A result's quaternions (trajectory rows, targets and reached points) rewritten from
 * [w, x, y, z] to [x, y, z, w], and the result says so. */
static cJSON *quaternions_xyzw(const cJSON *doc)
{
    cJSON *out = cJSON_Duplicate(doc, 1), *row, *tg;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(cJSON_GetObjectItem(out, "trajectory"), "quaternion")) move_w_last(row);
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(out, "targets"))
    {
        move_w_last(cJSON_GetObjectItem(tg, "target"));
        move_w_last(cJSON_GetObjectItem(tg, "reached"));
    }
    cJSON_AddStringToObject(out, "quaternion_order", "xyzw");
    return out;
}

/* Orientations given as quaternions (targets and trajectory rows [w, x, y, z]) draw the
 * same picture as the same plan with matrices, up to the last printed digit; written
 * [x, y, z, w] under "quaternion_order": "xyzw", exactly the same picture; without "xi"
 * the angular speed comes from neighbouring rotations. */
Test(plot, orientation_plan_from_quaternions_matches_matrices)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "so3-quat");
    cJSON *with_matrices = orientation_plan_30(0), *with_quaternions = orientation_plan_30(1);
    char *a = plot_doc(dir, "matrices.json", with_matrices), *b = plot_doc(dir, "quaternions.json", with_quaternions);
    expect_well_formed(b, "quaternion plan");
    const char *p = a, *q = b;
    int numbers = 0;
    while (*p && *q) {
        if (isdigit((unsigned char)*p) && isdigit((unsigned char)*q)) {
            char *ep, *eq;
            double u = strtod(p, &ep), v = strtod(q, &eq);
            cr_assert_leq(fabs(u - v), 0.0100001 + 1e-9 * fabs(u), "%g against %g near '%.60s'", u, v, p);
            p = ep, q = eq, ++numbers;
            continue;
        }
        cr_assert_eq(*p, *q, "the pictures differ at '%.60s' against '%.60s'", p, q);
        ++p, ++q;
    }
    cr_expect(*p == '\0' && *q == '\0', "one picture is longer");
    cr_expect_gt(numbers, 1000);
    cJSON *xyzw = quaternions_xyzw(with_quaternions);
    char *d = plot_doc(dir, "xyzw.json", xyzw);
    cr_expect_str_eq(d, b, "the picture of the plan in xyzw differs from the one in wxyz");
    free(d);
    cJSON_Delete(xyzw);

    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(with_quaternions, "trajectory"), "xi");
    char *c = plot_checked(dir, "no-xi.json", with_quaternions, "quaternion plan without xi");
    const char *speed = element_by_id(c, "angular-speed");
    cr_assert_not_null(speed);
    cr_expect(strstr(speed, "from the rotations") != NULL);
    double x[ROWS], y[ROWS], ya[ROWS];
    int n = polyline_points(strstr(speed, "<title>|ω|</title>"), x, y, ROWS);
    cr_expect_eq(n, ROWS - 1, "one speed per step");
    polyline_points(strstr(element_by_id(a, "angular-speed"), "<title>|ω|</title>"), x, ya, ROWS);
    for (int k = 0; k < n; ++k)
        cr_expect_lt(fabs(y[k] - ya[0]), 0.05, "step %d: speed drawn at %g, |ξ| at %g", k, y[k], ya[0]);
    free(a), free(b), free(c);
    cJSON_Delete(with_matrices);
    cJSON_Delete(with_quaternions);
    remove_tree(dir);
}

/* A synthetic result of an unknown model (no drift): rows of q, or of "quaternion", for
 * a rotation by 0.5 t about the axis (0.6, 0, 0.8). */
static cJSON *orientation_result(int quaternions)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "task", "simulate");
    cJSON_AddStringToObject(doc, "model", "spinning_thing");
    cJSON_AddStringToObject(doc, "status", "ok");
    cJSON *tr = cJSON_AddObjectToObject(doc, "trajectory");
    cJSON *t = cJSON_AddArrayToObject(tr, "t"), *q = cJSON_AddArrayToObject(tr, quaternions ? "quaternion" : "q");
    const double axis[3] = {0.6, 0.0, 0.8};
    for (int k = 0; k <= 40; ++k) {
        double time = 0.05 * k, R[9], quat[4];
        cJSON_AddItemToArray(t, cJSON_CreateNumber(time));
        rotation(axis, 0.5 * time, R);
        quaternion(axis, 0.5 * time, quat);
        cJSON_AddItemToArray(q, cJSON_CreateDoubleArray(quaternions ? quat : R, quaternions ? 4 : 9));
    }
    return doc;
}

/* Orientations against time: the rotation angle and the axis (not nine matrix entries),
 * or the four quaternion components. */
Test(plot, orientation_trajectories_are_drawn_as_angle_and_axis)
{
    char dir[PATH_SIZE];
    cJSON *doc = orientation_result(0);
    char *svg = scratch_plot(dir, "angle-axis", "rotation.json", doc, "rotation trajectory");
    static const char *const names[] = {"rotation angle (rad)", "axis x", "axis y", "axis z"};
    expect_lines_with_legend(svg, names, 4);
    cr_expect(!has_series(svg, "q_11") && !has_legend(svg, "q_11"), "matrix entries drawn");
    cr_expect_eq(count(svg, "<g class=\"series\">"), 4);
    cr_expect(strstr(svg, "rotation angle and axis") != NULL);
    /* the angle line rises from 0 to 1; the axis lines are flat, at 0.6, 0 and 0.8 */
    double x[64], y[64];
    const char *angle = strstr(svg, "<title>rotation angle (rad)</title>");
    cr_assert_not_null(angle);
    int n = polyline_points(angle, x, y, 64);
    cr_assert_eq(n, 41);
    cr_expect(y[40] < y[0] - 10, "the angle does not rise");
    for (int i = 1; i <= 3; ++i) {
        const char *line = strstr(svg, i == 1   ? "<title>axis x</title>"
                                       : i == 2 ? "<title>axis y</title>"
                                                : "<title>axis z</title>");
        cr_assert_not_null(line);
        cr_assert_eq(polyline_points(line, x, y, 64), 41);
        cr_expect(fabs(y[0] - y[40]) < 0.5 && fabs(y[1] - y[20]) < 0.5, "axis %d is not flat", i);
    }
    free(svg);
    cJSON_Delete(doc);

    doc = orientation_result(1);
    svg = plot_checked(dir, "quaternion.json", doc, "quaternion trajectory");
    static const char *const parts[] = {"quaternion w", "quaternion x", "quaternion y", "quaternion z"};
    for (int i = 0; i < 4; ++i) cr_expect(has_series(svg, parts[i]) && has_legend(svg, parts[i]), "%s", parts[i]);
    cr_expect_eq(count(svg, "<g class=\"series\">"), 4);
    /* written [x, y, z, w]: each component drawn where it was, under its own name */
    cJSON *xyzw = quaternions_xyzw(doc);
    char *moved = plot_checked(dir, "quaternion-xyzw.json", xyzw, "quaternion trajectory in xyzw");
    for (int i = 0; i < 4; ++i) {
        char title[64];
        snprintf(title, sizeof title, "<title>%s</title>", parts[i]);
        const char *was = strstr(svg, title), *is = strstr(moved, title);
        cr_assert(was && is, "no line for %s", parts[i]);
        double xa[64], ya[64], xb[64], yb[64];
        int na = polyline_points(was, xa, ya, 64), nb = polyline_points(is, xb, yb, 64);
        cr_expect_eq(na, 41);
        cr_expect_eq(na, nb);
        for (int k = 0; k < na && k < nb; ++k)
            cr_expect(xa[k] == xb[k] && ya[k] == yb[k], "%s: point %d moved", parts[i], k);
    }
    free(moved);
    cJSON_Delete(xyzw);
    close_picture_test(dir, svg, doc);
}

/* The rolling disk of data/rolling_disk.json, which goes round one circle (radius R/2,
 * period π), over `steps` steps of h = 0.05, solved and drawn into dir; returns the
 * picture and the result. */
static char *long_disk(const char *dir, int steps, cJSON **result)
{
    char in[PATH_SIZE], problem[PATH_SIZE], result_path[PATH_SIZE];
    join(in, SP_TEST_DATA, "rolling_disk.json");
    cJSON *doc = read_json(in);
    cJSON_DeleteItemFromObject(doc, "h");
    cJSON_ReplaceItemInObject(doc, "steps", cJSON_CreateNumber(steps));
    cJSON_AddNumberToObject(doc, "T", 0.05 * steps);
    join(problem, dir, "disk.json");
    write_json(problem, doc);
    cJSON_Delete(doc);
    join(result_path, dir, "disk.result.json");
    run_ok(dir, (const char *[]){"solve", problem, "-o", result_path, NULL});
    *result = read_json(result_path);
    return plot(dir, result_path);
}

/* The element of the path in the plane, from its series title to the end of its group. */
static const char *plane_path(const char *svg, size_t *length)
{
    const char *panel = strstr(svg, ">Path in the plane<");
    cr_assert_not_null(panel, "no path in the plane");
    const char *path = strstr(panel, "<title>path</title>"), *end = path ? strstr(path, "</g>") : NULL;
    cr_assert(path && end, "the path in the plane has no series");
    *length = (size_t)(end - path);
    return path;
}

/* Over a long horizon the path in the plane is drawn at the chart's resolution: a run ten
 * times longer round the same circle draws no more, every drawn segment lies on the
 * circle (no chords across it, as thinning by rows drew), and the path reaches the least
 * and greatest x and y of the run. The picture's frame and the panel's rule (equal
 * scales, the larger range and 12 % around it) give the data's place in pixels. */
Test(plot, a_long_path_in_the_plane_stays_small_and_on_its_curve, .timeout = 300)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "long-plane");
    cJSON *short_result, *long_result;
    char *short_svg = long_disk(dir, 10000, &short_result);
    char *svg = long_disk(dir, 100000, &long_result);
    size_t short_length, length;
    plane_path(short_svg, &short_length);
    const char *path = plane_path(svg, &length);
    cr_expect_lt((double)length, 1.5 * (double)short_length + 2000,
                 "the path of 100000 steps takes %zu bytes, that of 10000 steps %zu", length, short_length);
    cr_expect_lt(strlen(svg), (size_t)400000, "the picture of 100000 steps is %zu bytes", strlen(svg));

    /* the data: q = (x, y, …) rows, their ranges and the circle they go round */
    const cJSON *q = cJSON_GetObjectItem(cJSON_GetObjectItem(long_result, "trajectory"), "q");
    const int rows = cJSON_GetArraySize(q);
    cr_assert_eq(rows, 100001);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (const cJSON *row = q->child; row; row = row->next)
        for (int k = 0; k < 2; ++k) {
            const double v = cJSON_GetArrayItem(row, k)->valuedouble;
            lo[k] = fmin(lo[k], v), hi[k] = fmax(hi[k], v);
        }
    const double span = fmax(hi[0] - lo[0], hi[1] - lo[1]) * 1.12, mid[2] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2};
    const char *frame = NULL;
    for (const char *f = strstr(svg, "<rect class=\"frame\""); f && f < path; f = strstr(f + 1, "<rect class=\"frame\""))
        frame = f;
    cr_assert_not_null(frame);
    double left, top, width, height;
    cr_assert_eq(sscanf(frame, "<rect class=\"frame\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &left, &top,
                        &width, &height),
                 4);
    const double scale = width / span, cx = left + width / 2, cy = top + height / 2, radius = (hi[0] - lo[0]) / 2;
    cr_assert_gt(radius, 0.4, "the disk does not go round its circle (x from %g to %g)", lo[0], hi[0]);

    /* the drawn points, subpath by subpath ("M" starts one) */
    double seen_lo[2] = {INFINITY, INFINITY}, seen_hi[2] = {-INFINITY, -INFINITY}, worst = 0.0, px = 0.0, py = 0.0;
    int points = 0, segments = 0;
    for (const char *d = strstr(path, " d=\""); d && d < path + length; d = strstr(d + 1, " d=\"")) {
        const char *p = d + 4;
        int fresh = 1;
        while (*p && *p != '"') {
            if (*p == 'M') fresh = 1, ++p;
            double x, y;
            int used;
            cr_assert_eq(sscanf(p, "%lf,%lf%n", &x, &y, &used), 2, "unreadable path data at '%.20s'", p);
            p += used;
            while (*p == ' ') ++p;
            ++points;
            seen_lo[0] = fmin(seen_lo[0], x), seen_hi[0] = fmax(seen_hi[0], x);
            seen_lo[1] = fmin(seen_lo[1], y), seen_hi[1] = fmax(seen_hi[1], y);
            if (!fresh) { /* the segment's middle against the circle, whose centre is the panel's */
                worst = fmax(worst, fabs(hypot((px + x) / 2 - cx, (py + y) / 2 - cy) - scale * radius));
                ++segments;
            }
            fresh = 0, px = x, py = y;
        }
    }
    cr_expect_gt(segments, 100, "only %d segments drawn", segments);
    cr_expect_lt(points, 3000, "%d points drawn for one circle", points);
    cr_expect_lt(worst, 1.0, "a drawn segment leaves the circle by %.1f px", worst);
    /* the extremes: x on the left and right of the panel's centre, y above and below */
    const double want_lo_x = cx + scale * (lo[0] - mid[0]), want_hi_x = cx + scale * (hi[0] - mid[0]);
    const double want_top = cy - scale * (hi[1] - mid[1]), want_bottom = cy - scale * (lo[1] - mid[1]);
    cr_expect_lt(fabs(seen_lo[0] - want_lo_x), 0.01, "least x drawn at %.2f px, the run's at %.2f", seen_lo[0], want_lo_x);
    cr_expect_lt(fabs(seen_hi[0] - want_hi_x), 0.01, "greatest x drawn at %.2f px, the run's at %.2f", seen_hi[0],
                 want_hi_x);
    cr_expect_lt(fabs(seen_lo[1] - want_top), 0.01, "greatest y drawn at %.2f px, the run's at %.2f", seen_lo[1], want_top);
    cr_expect_lt(fabs(seen_hi[1] - want_bottom), 0.01, "least y drawn at %.2f px, the run's at %.2f", seen_hi[1],
                 want_bottom);
    free(short_svg);
    free(svg);
    cJSON_Delete(short_result);
    cJSON_Delete(long_result);
    remove_tree(dir);
}

/* Every example in data/ (whatever its model) solves to a result that plots and exports. */
Test(plot, every_data_file_plots_and_exports)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "all");
    DIR *data = opendir(SP_TEST_DATA);
    cr_assert_not_null(data);
    const struct dirent *de;
    int files = 0;
    while ((de = readdir(data))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0) continue;
        char in[PATH_SIZE], result[PATH_SIZE], svg[PATH_SIZE], csv[PATH_SIZE];
        join(in, SP_TEST_DATA, de->d_name);
        join(result, dir, "result.json");
        join(svg, dir, "fig.svg");
        join(csv, dir, "table.csv");
        run_result r;
        run(dir, (const char *[]){"solve", in, "-o", result, NULL}, &r);
        int solved = r.status == 0;
        run_free(&r);
        if (!solved) continue; /* not a problem file (a study, say) */
        run_ok(dir, (const char *[]){"plot", result, "-o", svg, NULL});
        char *text = slurp(svg);
        const char *problem = svg_problem(text);
        cr_expect_null(problem, "%s: %s", de->d_name, problem);
        free(text);
        run_ok(dir, (const char *[]){"export", result, "--csv", csv, NULL});
        ++files;
    }
    closedir(data);
    cr_expect_geq(files, 9);
    cr_expect_eq(count_temporaries(dir), 0);
    remove_tree(dir);
}

/* --------------------------------------------------------------- study -- */

/* A summary shaped like DIR/summary.json of `symplan study` (planner/study/sp_study.h): rows
 * with the varied values, status, cost and diagnostics. Errors fall like N^-1 for
 * hohp_euler and N^-2 for hohp_sv. */
static cJSON *synthetic_summary(int as_array)
{
    cJSON *rows = cJSON_CreateArray();
    static const int steps[] = {50, 100, 200, 400};
    static const char *const schemes[] = {"hohp_euler", "hohp_sv"};
    int k = 0;
    for (int s = 0; s < 2; ++s)
        for (int i = 0; i < 4; ++i, ++k) {
            cJSON *row = cJSON_CreateObject();
            cJSON_AddNumberToObject(row, "case", k);
            char file[32];
            snprintf(file, sizeof file, "case-%04d.json", k);
            cJSON_AddStringToObject(row, "file", file);
            cJSON *values = cJSON_AddObjectToObject(row, "values");
            cJSON_AddNumberToObject(values, "steps", steps[i]);
            cJSON_AddStringToObject(values, "scheme", schemes[s]);
            cJSON_AddStringToObject(row, "status", "converged");
            cJSON_AddNumberToObject(row, "wall_seconds", 0.01 * (k + 1));
            cJSON_AddNumberToObject(row, "cost", 2.0 + 3.0 * pow(steps[i], -(s + 1.0)));
            cJSON_AddNumberToObject(row, "iterations", 25);
            cJSON_AddNumberToObject(row, "energy_error", 0.5 * pow(steps[i], -2.0 * (s + 1)));
            cJSON_AddNumberToObject(row, "momentum_map_drift", i == 0 ? 0.0 : 1e-15 * (i + 1));
            cJSON_AddItemToArray(rows, row);
        }
    /* a failed case has no figures and is left out of the picture */
    cJSON *failed = cJSON_CreateObject();
    cJSON_AddNumberToObject(failed, "case", k);
    cJSON *values = cJSON_AddObjectToObject(failed, "values");
    cJSON_AddNumberToObject(values, "steps", 800);
    cJSON_AddStringToObject(values, "scheme", "hohp_sv");
    cJSON_AddStringToObject(failed, "status", "failed");
    cJSON_AddStringToObject(failed, "error", "newton_failed");
    cJSON_AddItemToArray(rows, failed);
    if (as_array) return rows;
    cJSON *summary = cJSON_CreateObject();
    cJSON_AddStringToObject(summary, "study", "convergence");
    cJSON_AddNumberToObject(summary, "cases", 9);
    cJSON *params = cJSON_AddArrayToObject(summary, "parameters");
    cJSON_AddItemToArray(params, cJSON_CreateString("steps"));
    cJSON_AddItemToArray(params, cJSON_CreateString("scheme"));
    cJSON_AddItemToObject(summary, "rows", rows);
    return summary;
}

/* The legend label of a series that starts with `prefix`, as text after it. */
static const char *legend_after(const char *svg, const char *prefix)
{
    char needle[256];
    snprintf(needle, sizeof needle, "class=\"legend-label\">%s", prefix);
    const char *p = strstr(svg, needle);
    return p ? p + strlen(needle) : NULL;
}

/* Cost against steps: log–log, one line per scheme with its observed slope. */
Test(plot, study_convergence_picture_is_log_log_with_one_line_per_scheme)
{
    char dir[PATH_SIZE], study[PATH_SIZE], summary[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "study");
    join(study, dir, "study");
    cr_assert_eq(mkdir(study, 0755), 0);
    join(summary, study, "summary.json");
    cJSON *doc = synthetic_summary(0);
    write_json(summary, doc);
    cJSON_Delete(doc);
    join(svg_path, dir, "study.svg");

    /* the default figure: the cost itself */
    run_ok(dir, (const char *[]){"plot", study, "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "study");
    cr_expect(strstr(svg, "cost against steps") != NULL, "the title names the figure and the parameter");
    cr_expect(strstr(svg, "log–log axes") != NULL);
    cr_expect(has_series(svg, "scheme=hohp_euler") && has_series(svg, "scheme=hohp_sv"));
    cr_expect_eq(count(svg, "class=\"point\""), 8, "the failed case is left out");
    cr_expect(strstr(svg, "1 failed") != NULL);
    cr_expect(strstr(svg, "(slope") == NULL, "a cost has no order to show");
    free(svg);

    /* --error: successive differences, drawn at the coarser case; the finest drops out */
    run_ok(dir, (const char *[]){"plot", study, "-o", svg_path, "--error", NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "study --error");
    cr_expect_eq(count(svg, "class=\"point\""), 6);
    cr_expect(strstr(svg, "|Δcost| to the next finer case") != NULL);
    const char *slope = legend_after(svg, "scheme=hohp_sv (slope ");
    cr_assert_not_null(slope);
    cr_expect_float_eq(strtod(slope, NULL), -2.0, 1e-2, "differences of 2 + 3/N² fall like N^-2");
    free(svg);

    /* the energy error: slopes −2 and −4, log ticks on both axes */
    run_ok(dir, (const char *[]){"plot", study, "-o", svg_path, "--y", "energy_error", "--x", "steps", NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "study energy_error");
    const char *euler = legend_after(svg, "scheme=hohp_euler"), *sv = legend_after(svg, "scheme=hohp_sv");
    cr_assert(euler && sv, "no legend entry per scheme");
    cr_expect_eq(strncmp(euler, " (slope -2.00)", 14), 0, "%.20s", euler);
    cr_expect_eq(strncmp(sv, " (slope -4.00)", 14), 0, "%.20s", sv);
    for (int n = 50; n <= 400; n *= 2) {
        char tick[64];
        snprintf(tick, sizeof tick, "text-anchor=\"middle\">%d</text>", n);
        cr_expect(strstr(svg, tick) != NULL, "no tick at steps = %d", n);
    }
    cr_expect(has_round_off_ticks(svg) || strstr(svg, ">1e-"), "no decade ticks on the log error axis");
    free(svg);

    /* the summary file named directly is drawn the same way */
    run_ok(dir, (const char *[]){"plot", summary, "-o", svg_path, NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "summary.json named directly");
    cr_expect(strstr(svg, "cost against steps") != NULL);
    free(svg);

    /* a plain array of records works too; a drift with exact zeros is floored */
    doc = synthetic_summary(1);
    write_json(summary, doc);
    cJSON_Delete(doc);
    run_ok(dir, (const char *[]){"plot", study, "-o", svg_path, "--y", "momentum_map_drift", NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "study as an array");
    cr_expect_eq(count(svg, "class=\"point\""), 8);
    free(svg);
    remove_tree(dir);
}

/* A study run by `symplan study` (steps x scheme on the sphere example) draws as a
 * convergence picture: with --error (successive differences of the cost) each scheme's
 * line falls with its order. */
Test(plot, study_directory_from_symplan_study_draws_a_convergence_picture)
{
    char dir[PATH_SIZE], study_file[PATH_SIZE], out[PATH_SIZE], svg_path[PATH_SIZE], base[PATH_SIZE];
    scratch_dir(dir, "real-study");
    join(study_file, dir, "study.json");
    join(out, dir, "out");
    join(svg_path, dir, "conv.svg");
    join(base, SP_TEST_DATA, "sphere_interpolation.json");
    cJSON *study = cJSON_CreateObject();
    cJSON_AddStringToObject(study, "name", "convergence");
    cJSON_AddStringToObject(study, "base", base);
    cJSON *vary = cJSON_AddObjectToObject(study, "vary");
    cJSON_AddItemToObject(vary, "steps", cJSON_CreateIntArray((const int[]){25, 50, 100, 200}, 4));
    cJSON_AddItemToObject(vary, "scheme", cJSON_CreateStringArray((const char *const[]){"hohp_euler", "hohp_sv"}, 2));
    write_json(study_file, study);
    cJSON_Delete(study);
    run_ok(dir, (const char *[]){"study", study_file, "-o", out, "-j", "2", NULL});

    run_ok(dir, (const char *[]){"plot", out, "-o", svg_path, "--error", NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "study --error");
    cr_expect(strstr(svg, "|Δcost| to the next finer case against steps") != NULL);
    cr_expect(strstr(svg, "log–log axes") != NULL);
    cr_expect_eq(count(svg, "class=\"point\""), 6, "the finest case of each line has no finer one");
    const char *euler = legend_after(svg, "scheme=hohp_euler (slope "),
               *sv = legend_after(svg, "scheme=hohp_sv (slope ");
    cr_assert(euler && sv, "no slope in the legend");
    double p_euler = strtod(euler, NULL), p_sv = strtod(sv, NULL);
    cr_expect(p_sv < -1.8 && p_sv > -2.3, "hohp_sv: slope %g, order 2 expected", p_sv);
    cr_expect(p_euler < -0.8 && p_euler > -1.3, "hohp_euler: slope %g, order 1 expected", p_euler);
    free(svg);

    /* every case file is a result that plots too */
    char case_file[PATH_SIZE];
    join(case_file, out, "case-0000.json");
    run_ok(dir, (const char *[]){"plot", case_file, "-o", svg_path, NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "case-0000.json");
    free(svg);
    remove_tree(dir);
}

/* Along a parameter that is not a step count or size, x is linear. */
Test(plot, study_along_another_parameter_has_linear_x)
{
    char dir[PATH_SIZE], summary[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "study-linear");
    join(summary, dir, "summary.json");
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 2; ++j) {
            cJSON *row = cJSON_CreateObject();
            cJSON *values = cJSON_AddObjectToObject(row, "values");
            cJSON_AddNumberToObject(values, "sigma", 0.05 * (i + 1));
            cJSON_AddStringToObject(values, "optimizer.algorithm", j ? "LD_MMA" : "LD_LBFGS");
            cJSON_AddStringToObject(row, "status", "converged");
            cJSON_AddNumberToObject(row, "cost", 1.0 + i + 0.1 * j);
            cJSON_AddItemToArray(rows, row);
        }
    write_json(summary, rows);
    cJSON_Delete(rows);
    join(svg_path, dir, "fig.svg");
    run_ok(dir, (const char *[]){"plot", dir, "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "linear study");
    cr_expect(strstr(svg, "linear axes") != NULL);
    cr_expect(strstr(svg, "cost against sigma") != NULL);
    cr_expect(has_series(svg, "optimizer.algorithm=LD_LBFGS") && has_series(svg, "optimizer.algorithm=LD_MMA"));
    free(svg);
    remove_tree(dir);
}

/* A categorical parameter along x (--x scheme, or the only varied one): the schemes at
 * evenly spaced positions named by their values, one line per value of the other
 * varied parameter (steps). */
Test(plot, study_along_a_categorical_parameter_places_the_categories_evenly)
{
    char dir[PATH_SIZE], summary[PATH_SIZE], svg_path[PATH_SIZE];
    scratch_dir(dir, "study-categorical");
    join(summary, dir, "summary.json");
    cJSON *doc = synthetic_summary(0);
    write_json(summary, doc);
    cJSON_Delete(doc);
    join(svg_path, dir, "fig.svg");
    run_ok(dir, (const char *[]){"plot", dir, "--x", "scheme", "--y", "energy_error", "-o", svg_path, NULL});
    char *svg = slurp(svg_path);
    expect_well_formed(svg, "categorical study");
    cr_expect(strstr(svg, "energy_error against scheme") != NULL);
    cr_expect(strstr(svg, "scheme (categories)") != NULL);
    cr_expect(strstr(svg, "categories along x, log y") != NULL);
    /* the category names as the x tick labels, and no numeric x ticks */
    cr_expect_eq(count(svg, "class=\"tick-label\" text-anchor=\"middle\">hohp_euler</text>"), 1);
    cr_expect_eq(count(svg, "class=\"tick-label\" text-anchor=\"middle\">hohp_sv</text>"), 1);
    cr_expect_eq(count(svg, "class=\"tick-label\" text-anchor=\"middle\">"), 2);
    /* one line per step count (the failed case at 800 has no figure), two points each */
    static const char *const lines[] = {"steps=50", "steps=100", "steps=200", "steps=400"};
    expect_lines_with_legend(svg, lines, 4);
    cr_expect_eq(count(svg, "<g class=\"series\">"), 4);
    cr_expect_eq(count(svg, "<circle class=\"point\""), 8);
    cr_expect(strstr(svg, "scheme = hohp_sv, energy_error") != NULL, "points do not name their category");
    /* evenly spaced: the two categories' tick positions are half the width from each end */
    double xs[2];
    int k = 0;
    for (const char *p = strstr(svg, "class=\"tick-label\" text-anchor=\"middle\">"); p && k < 2;
         p = strstr(p + 1, "class=\"tick-label\" text-anchor=\"middle\">")) {
        const char *tag = p;
        while (tag > svg && strncmp(tag, "<text", 5) != 0) --tag;
        cr_assert(sscanf(tag, "<text x=\"%lf\"", &xs[k]) == 1);
        ++k;
    }
    cr_assert_eq(k, 2);
    cr_expect(fabs((xs[1] - xs[0]) - 300.0) < 1.0, "categories %g and %g not half the width apart", xs[0], xs[1]);
    free(svg);

    /* --error needs numbers along x */
    run_result r;
    run(dir, (const char *[]){"plot", dir, "--x", "scheme", "--error", "-o", svg_path, NULL}, &r);
    cr_expect_eq(r.status, 2);
    run_free(&r);

    /* a study varying only a string: drawn as categories by default */
    write_text(summary,
               "[{\"values\": {\"scheme\": \"a\"}, \"cost\": 1}, {\"values\": {\"scheme\": \"b\"}, \"cost\": 2},"
               " {\"values\": {\"scheme\": \"c\"}, \"cost\": 1.5}]");
    run_ok(dir, (const char *[]){"plot", dir, "-o", svg_path, NULL});
    svg = slurp(svg_path);
    expect_well_formed(svg, "study of one categorical parameter");
    cr_expect(strstr(svg, "cost against scheme") != NULL);
    for (int i = 0; i < 3; ++i) {
        char needle[96];
        snprintf(needle, sizeof needle, "class=\"tick-label\" text-anchor=\"middle\">%c</text>", 'a' + i);
        cr_expect_eq(count(svg, needle), 1, "no tick label %c", 'a' + i);
    }
    cr_expect(has_series(svg, "all cases"));
    free(svg);
    remove_tree(dir);
}

/* ----------------------------------------------------------------- CSV -- */

/* Splits one CSV line (no quoted fields expected here) into at most max fields. */
static int split(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        p = strchr(p, ',');
        if (!p) break;
        *p++ = '\0';
    }
    return n;
}

/* The CSV of the result at `result` (the tree res, from the problem `file`), parsed
 * back, equals its JSON trajectory bit for bit, column by column in the trajectory's
 * order, under the expected header. */
static void expect_csv_of(const char *dir, const char *file, const char *result, const cJSON *res, const char *header)
{
    char csv[PATH_SIZE];
    join(csv, dir, "table.csv");
    run_ok(dir, (const char *[]){"export", result, "--csv", csv, NULL});
    char *text = slurp(csv);
    const cJSON *tr = cJSON_GetObjectItem(res, "trajectory");
    const int rows = cJSON_GetArraySize(cJSON_GetObjectItem(tr, "t"));
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    cr_assert_not_null(line);
    cr_expect_str_eq(line, header, "%s: header", file);
    enum { MAX = 128 };
    char *fields[MAX];
    int ncols = split(line, fields, MAX);
    for (int k = 0; k < rows; ++k) {
        line = strtok_r(NULL, "\n", &save);
        cr_assert_not_null(line, "%s: row %d missing", file, k);
        int n = split(line, fields, MAX);
        cr_assert_eq(n, ncols, "%s: row %d has %d fields", file, k, n);
        int col = 0;
        const cJSON *member;
        cJSON_ArrayForEach(member, tr)
        {
            if (strcmp(member->string, "coordinates") == 0) continue;
            const cJSON *row = cJSON_GetArrayItem(member, k);
            const cJSON *x = cJSON_IsNumber(row) ? row : row->child;
            for (; x; x = cJSON_IsNumber(row) ? NULL : x->next) {
                cr_assert_lt(col, n);
                char *end;
                double v = strtod(fields[col], &end);
                cr_assert_eq(*end, '\0', "%s: row %d column %d: '%s'", file, k, col, fields[col]);
                uint64_t a, b;
                memcpy(&a, &v, sizeof a);
                memcpy(&b, &x->valuedouble, sizeof b);
                cr_assert_eq(a, b, "%s: row %d column %d: %.17g read back as %.17g", file, k, col, x->valuedouble, v);
                ++col;
            }
        }
        cr_assert_eq(col, n, "%s: row %d: %d columns in the JSON, %d in the CSV", file, k, col, n);
    }
    cr_expect_null(strtok_r(NULL, "\n", &save), "%s: rows after the trajectory", file);
    free(text);
}

/* The same for data/<file> solved. */
static void expect_round_trip(const char *dir, const char *file, const char *header)
{
    char result[PATH_SIZE];
    cJSON *res = solve(dir, file, result);
    expect_csv_of(dir, file, result, res, header);
    cJSON_Delete(res);
}

/* The same for the problem doc written to dir/<name>.problem.json and solved into
 * dir/<name>; the result's tree (the caller deletes it). */
static cJSON *expect_round_trip_of(const char *dir, const char *name, const cJSON *doc, const char *header)
{
    char problem[PATH_SIZE], result[PATH_SIZE], file[PATH_SIZE];
    snprintf(file, sizeof file, "%s.problem.json", name);
    join(problem, dir, file);
    join(result, dir, name);
    write_json(problem, doc);
    run_ok(dir, (const char *[]){"solve", problem, "-o", result, NULL});
    cJSON *res = read_json(result);
    expect_csv_of(dir, name, result, res, header);
    return res;
}

Test(plot, csv_round_trips_bitwise)
{
    char dir[PATH_SIZE];
    scratch_dir(dir, "csv");
    expect_round_trip(dir, "sphere_interpolation.json",
                      "t,q_11,q_12,q_13,q_21,q_22,q_23,q_31,q_32,q_33,omega_x,omega_y,omega_z,nu_1,nu_2,nu_3,p_1,p_2,"
                      "p_3,y_1,y_2,y_3");
    expect_round_trip(dir, "sphere_simulate.json",
                      "t,q_11,q_12,q_13,q_21,q_22,q_23,q_31,q_32,q_33,omega_x,omega_y,omega_z,nu_1,nu_2,nu_3,p_1,p_2,"
                      "p_3");
    expect_round_trip(dir, "keyframes_pose.json",
                      "t,q_11,q_12,q_13,q_21,q_22,q_23,q_31,q_32,q_33,omega_x,omega_y,omega_z,v_x,v_y,v_z,nu_1,nu_2,"
                      "nu_3,nu_4,nu_5,nu_6,p_1,p_2,p_3,p_4,p_5,p_6,x_1,x_2,x_3");
    expect_round_trip(dir, "heisenberg.json", "t,q_x,q_y,q_z,p_x,p_y,p_z,lambda_1");
    expect_round_trip(dir, "parking_fig3.json", "t,q_x,q_y,q_theta,q_phi,p_x,p_y,p_theta,p_phi,lambda_1,lambda_2");
    cr_expect_eq(count_temporaries(dir), 0);
    remove_tree(dir);
}

/* data/keyframes_so3.json (quaternions written [w, x, y, z]) and its twin in [x, y, z, w]:
 * the quaternion columns are named q_w, q_x, q_y, q_z in the result's order and hold the
 * same numbers permuted; the angular velocity is named by axis. A plan on R3 keeps xi_i. */
Test(plot, csv_names_quaternion_columns_in_the_result_order)
{
    char dir[PATH_SIZE], in[PATH_SIZE];
    scratch_dir(dir, "csv-quaternion");
    join(in, SP_TEST_DATA, "keyframes_so3.json");
    cJSON *wxyz = read_json(in), *xyzw = cJSON_Duplicate(wxyz, 1);
    cJSON_AddStringToObject(xyzw, "quaternion_order", "xyzw");
    const cJSON *tg;
    cJSON_ArrayForEach(tg, cJSON_GetObjectItem(xyzw, "targets"))
    {
        cJSON *q = cJSON_GetObjectItem(tg, "q");
        cJSON_AddItemToArray(q, cJSON_DetachItemFromArray(q, 0)); /* w to the end */
    }
    static const char *const head = "t,omega_x,omega_y,omega_z,nu_1,nu_2,nu_3,p_1,p_2,p_3,";
    char header[256];
    snprintf(header, sizeof header, "%sq_w,q_x,q_y,q_z", head);
    cJSON *a = expect_round_trip_of(dir, "wxyz.json", wxyz, header);
    snprintf(header, sizeof header, "%sq_x,q_y,q_z,q_w", head);
    cJSON *b = expect_round_trip_of(dir, "xyzw.json", xyzw, header);
    const cJSON *ra = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "trajectory"), "quaternion"),
                *rb = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "trajectory"), "quaternion");
    cr_assert_gt(cJSON_GetArraySize(ra), 100);
    cr_assert_eq(cJSON_GetArraySize(ra), cJSON_GetArraySize(rb));
    for (const cJSON *x = ra->child, *y = rb->child; x && y; x = x->next, y = y->next)
        for (int i = 0; i < 4; ++i)
            cr_assert_eq(cJSON_GetArrayItem(x, i)->valuedouble, cJSON_GetArrayItem(y, (i + 3) % 4)->valuedouble,
                         "component %d", i);
    cJSON_Delete(a), cJSON_Delete(b), cJSON_Delete(wxyz), cJSON_Delete(xyzw);

    cJSON *r3 = cJSON_Parse("{\"task\": \"plan\", \"model\": \"cubic_spline\", \"group\": \"R3\", \"T\": 1,"
                            " \"steps\": 20, \"xi0\": [0, 0, 0], \"sigma\": 0.1,"
                            " \"targets\": [{\"t\": 0.5, \"x\": [1, 0, 0]}, {\"t\": 1, \"x\": [0, 1, 0]}]}");
    cr_assert_not_null(r3);
    cJSON_Delete(expect_round_trip_of(dir, "r3.json", r3, "t,q_1,q_2,q_3,xi_1,xi_2,xi_3,nu_1,nu_2,nu_3,p_1,p_2,p_3"));
    cJSON_Delete(r3);
    cr_expect_eq(count_temporaries(dir), 0);
    remove_tree(dir);
}

/* ----------------------------------------------------------- bad input -- */

/* Runs a command that must fail with exit 2, one line on stderr starting with `where`,
 * and leave `keep` (an existing output) byte for byte as it was. */
static void expect_refused(const char *dir, const char *const *args, const char *where, const char *keep)
{
    char *before = keep ? slurp(keep) : NULL;
    run_result r;
    run(dir, args, &r);
    cr_expect_eq(r.status, 2, "symplan %s %s: exit %d (%s)", args[0], args[1], r.status, r.err);
    const char *nl = strchr(r.err, '\n');
    cr_expect(nl && nl[1] == '\0' && nl != r.err, "not one line on stderr: '%s'", r.err);
    if (where) cr_expect_eq(strncmp(r.err, where, strlen(where)), 0, "'%s' does not start with '%s'", r.err, where);
    cr_expect_str_empty(r.out);
    if (keep) {
        char *after = slurp(keep);
        cr_expect_str_eq(after, before, "%s was changed", keep);
        free(after);
    }
    free(before);
    run_free(&r);
    cr_expect_eq(count_temporaries(dir), 0, "a temporary file was left behind");
}

Test(plot, bad_input_exits_2_and_leaves_outputs_alone)
{
    char dir[PATH_SIZE], result[PATH_SIZE], svg[PATH_SIZE], csv[PATH_SIZE], path[PATH_SIZE];
    scratch_dir(dir, "bad");
    cJSON *res = solve(dir, "heisenberg.json", result);
    join(svg, dir, "keep.svg");
    join(csv, dir, "keep.csv");
    write_text(svg, "an existing picture\n");
    write_text(csv, "an existing table\n");

    /* unreadable, malformed, not a result */
    join(path, dir, "missing.json");
    expect_refused(dir, (const char *[]){"plot", path, "-o", svg, NULL}, path, svg);
    expect_refused(dir, (const char *[]){"export", path, "--csv", csv, NULL}, path, csv);
    join(path, dir, "malformed.json");
    write_text(path, "{\"task\": \"simulate\", \"trajectory\": {\n");
    expect_refused(dir, (const char *[]){"plot", path, "-o", svg, NULL}, path, svg);
    expect_refused(dir, (const char *[]){"export", path, "--csv", csv, NULL}, path, csv);
    char problem[PATH_SIZE];
    join(problem, SP_TEST_DATA, "heisenberg.json");
    expect_refused(dir, (const char *[]){"plot", problem, "-o", svg, NULL}, problem, svg);
    expect_refused(dir, (const char *[]){"export", problem, "--csv", csv, NULL}, problem, csv);
    join(path, dir, "array.json");
    write_text(path, "[1, 2, 3]\n");
    expect_refused(dir, (const char *[]){"plot", path, "-o", svg, NULL}, path, svg);

    /* a result without its trajectory, with a ragged or non-numeric one, with a wrong width, with
     * quaternions in an unknown order */
    static const char *const breakages[] = {"no-trajectory", "ragged",     "string",          "short",
                                            "wide",          "bad-params", "quaternion-order"};
    for (size_t b = 0; b < sizeof breakages / sizeof breakages[0]; ++b) {
        cJSON *doc = cJSON_Duplicate(res, 1);
        cJSON *tr = cJSON_GetObjectItem(doc, "trajectory"), *q = cJSON_GetObjectItem(tr, "q");
        if (b == 0) cJSON_DeleteItemFromObject(doc, "trajectory");
        if (b == 1) cJSON_DeleteItemFromArray(cJSON_GetArrayItem(q, 3), 0);
        if (b == 2) cJSON_ReplaceItemInArray(cJSON_GetArrayItem(q, 5), 1, cJSON_CreateString("x"));
        if (b == 3) cJSON_DeleteItemFromArray(cJSON_GetObjectItem(tr, "p"), 7);
        if (b == 4)
            for (const cJSON *row = q->child; row; row = row->next)
                cJSON_AddItemToArray((cJSON *)row, cJSON_CreateNumber(1));
        if (b == 5)
            cJSON_ReplaceItemInObject(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "settings"), "params"), "potential",
                                      cJSON_CreateString("volcano"));
        if (b == 6) cJSON_AddStringToObject(doc, "quaternion_order", "zyxw");
        char name[64];
        snprintf(name, sizeof name, "%s.json", breakages[b]);
        join(path, dir, name);
        write_json(path, doc);
        cJSON_Delete(doc);
        char where[PATH_SIZE + 64];
        snprintf(where, sizeof where, b == 6 ? "%s: quaternion_order: must be \"wxyz\" or \"xyzw\"" : "%s", path);
        expect_refused(dir, (const char *[]){"plot", path, "-o", svg, NULL}, where, svg);
        if (b < 4 || b == 6) expect_refused(dir, (const char *[]){"export", path, "--csv", csv, NULL}, where, csv);
    }

    /* bad options */
    expect_refused(dir, (const char *[]){"plot", NULL}, NULL, NULL);
    expect_refused(dir, (const char *[]){"plot", result, "-o", svg, "--frobnicate", NULL}, NULL, svg);
    expect_refused(dir, (const char *[]){"plot", result, "-o", svg, "--y", "cost", NULL}, result, svg);
    expect_refused(dir, (const char *[]){"plot", result, "-o", svg, "--error", NULL}, result, svg);
    expect_refused(dir, (const char *[]){"export", result, NULL}, NULL, csv);
    expect_refused(dir, (const char *[]){"export", result, "--csv", NULL}, NULL, csv);
    expect_refused(dir, (const char *[]){"export", result, "--csv", dir, NULL}, dir, NULL);
    expect_refused(dir, (const char *[]){"plot", result, "-o", dir, NULL}, dir, NULL);

    /* a study directory without a summary, a summary without the figure or the field along x */
    char study[PATH_SIZE];
    join(study, dir, "study");
    cr_assert_eq(mkdir(study, 0755), 0);
    join(path, study, "summary.json");
    expect_refused(dir, (const char *[]){"plot", study, "-o", svg, NULL}, path, svg);
    write_text(path, "[{\"values\": {\"steps\": 1}, \"cost\": 1}, {\"values\": {\"steps\": 2}, \"cost\": 2}]");
    expect_refused(dir, (const char *[]){"plot", study, "-o", svg, "--y", "nothing", NULL}, path, svg);
    expect_refused(dir, (const char *[]){"plot", study, "-o", svg, "--x", "cost_of_living", NULL}, path, svg);
    write_text(path, "{\"rows\": 3}");
    expect_refused(dir, (const char *[]){"plot", study, "-o", svg, NULL}, path, svg);

    cJSON_Delete(res);
    remove_tree(dir);
}
