/* The expression engine (problems/custom/sp_expr.h) on its own: refusals that name the
 * first thing out of place and its position, precedence and associativity, every
 * function's value against libm, every function's derivative against central differences,
 * the simplification of derivatives to constants, the sharing of common subexpressions
 * (derivatives stay small, and a set of expressions runs what its members share once),
 * and several threads evaluating their own copies at once. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "problems/custom/sp_expr.h"

static const char *const xyz_names[] = {"x", "y", "z"};
static const sp_expr_symbols xyz = {3, xyz_names, NULL, 0};

static sp_expr *parse(const char *text)
{
    sp_expr *e = NULL;
    char why[256] = "";
    cr_assert_eq(sp_expr_parse(text, &xyz, &e, why, sizeof why), SP_OK, "'%s' %s", text, why);
    return e;
}

/* The value of text at (x, y, z). */
static double value_at(const char *text, double x, double y, double z)
{
    sp_expr *e = parse(text);
    const double v = sp_expr_eval(e, (const double[]){x, y, z});
    sp_expr_free(e);
    return v;
}

/* ---- refusals */

typedef struct refusal {
    const char *text, *message;
} refusal;

Test(expr, refusals_name_the_first_thing_out_of_place_and_its_position)
{
    static const refusal cases[] = {
        {"x + zz", "names the unknown symbol 'zz' at position 5"},
        {"x*(y + 1", "has an unmatched '(' at position 3"},
        {"x + y)", "has an unmatched ')' at position 6"},
        {"x y", "has 'y' at position 3 right after a value"},
        {"2 3", "has a number at position 3 right after a value"},
        {"2 (y)", "has '(' at position 3 right after a value"},
        {"x (y)", "calls the unknown function 'x' at position 1"},
        {"x**2", "has '**' at position 2"},
        {"x^y^z", "has a second '^' at position 4"},
        {"2^-x^2", "has a second '^' at position 5"},
        {"+x", "has '+' at position 1 where a value is expected"},
        {"x*/y", "has '/' at position 3 where a value is expected"},
        {"(x+)", "has ')' at position 4 where a value is expected"},
        {"sqr(x)", "calls the unknown function 'sqr' at position 1"},
        {"x + sin", "has the function 'sin' at position 5 without its argument in parentheses"},
        {"x -", "ends where a value is expected (at position 4)"},
        {"x $ y", "has the character '$' at position 3"},
        {"x\n+ y", "has the control character 0x0a at position 2"},
        {"0x10", "has 'x10' at position 2 right after a value"},
        {"1e", "has 'e' at position 2 right after a value"},
        {"   ", "is empty"},
        {"x + 1 + zz + ww", "names the unknown symbol 'zz' at position 9"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sp_expr *e = (sp_expr *)1;
        char why[256] = "";
        cr_expect_eq(sp_expr_parse(cases[k].text, &xyz, &e, why, sizeof why), SP_ERR_INVALID, "'%s' taken",
                     cases[k].text);
        cr_expect_null(e);
        cr_expect(strstr(why, cases[k].message) != NULL, "'%s': got \"%s\", expected \"%s\"", cases[k].text, why,
                  cases[k].message);
    }
}

Test(expr, the_size_limits_are_refused_with_their_position)
{
    char text[4 * SP_EXPR_MAX_TOKENS + 16] = "x";
    for (int k = 0; k < SP_EXPR_MAX_TOKENS / 2; ++k) strcat(text, "+x");
    sp_expr *e;
    char why[256];
    cr_expect_eq(sp_expr_parse(text, &xyz, &e, why, sizeof why), SP_ERR_INVALID);
    cr_expect(strstr(why, "is longer than 300 numbers, names and operators (at position 301)") != NULL, "%s", why);
    char deep[2 * SP_EXPR_MAX_DEPTH + 8] = "";
    for (int k = 0; k <= SP_EXPR_MAX_DEPTH; ++k) strcat(deep, "(");
    strcat(deep, "x");
    cr_expect_eq(sp_expr_parse(deep, &xyz, &e, why, sizeof why), SP_ERR_INVALID);
    cr_expect(strstr(why, "nests parentheses deeper than 40 (at position 41)") != NULL, "%s", why);
}

Test(expr, names_of_the_language_are_no_symbols)
{
    char why[256];
    cr_expect(sp_expr_valid_symbol("m1", why, sizeof why));
    cr_expect(sp_expr_valid_symbol("_a", why, sizeof why));
    cr_expect_not(sp_expr_valid_symbol("sin", why, sizeof why));
    cr_expect_not(sp_expr_valid_symbol("nandelta", why, sizeof why));
    cr_expect_not(sp_expr_valid_symbol("pi", why, sizeof why));
    cr_expect_not(sp_expr_valid_symbol("e", why, sizeof why));
    cr_expect(strstr(why, "is a function or constant") != NULL, "%s", why);
    cr_expect_not(sp_expr_valid_symbol("2x", why, sizeof why));
    cr_expect(strstr(why, "is not a name") != NULL, "%s", why);
}

/* ---- values */

typedef struct valued {
    const char *text;
    double value;
} valued;

Test(expr, precedence_and_associativity)
{
    static const valued cases[] = {
        {"1 + 2*3", 7.0},          {"(1 + 2)*3", 9.0},     {"2*3^2", 18.0},      {"-2^2", -4.0},
        {"2^-1", 0.5},             {"(-2)^2", 4.0},        {"8/2/2", 2.0},       {"10 - 4 - 3", 3.0},
        {"2^(3^2)", 512.0},        {"(2^3)^2", 64.0},      {"2*-3", -6.0},       {"- - 3", 3.0},
        {"x - y - z", -4.0},       {"x/y/z", 1.0 / 6.0},   {"-x^2", -1.0},       {"x*y^z + 1", 9.0},
        {"1e-3", 1e-3},            {"2.5", 2.5},           {".5", 0.5},          {"1E3 + 2.5e+1", 1025.0},
        {"pi", 3.14159265358979323846}, {"e", 2.71828182845904523536}, {"2*pi*x", 2.0 * 3.14159265358979323846},
        {"sin(x)^2 + cos(x)^2", 1.0}, {"x^0.5", 1.0},     {"y^3", 8.0},         {"y^-2", 0.25},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double v = value_at(cases[k].text, 1.0, 2.0, 3.0);
        cr_expect_leq(fabs(v - cases[k].value), 1e-15 * fmax(1.0, fabs(cases[k].value)), "'%s' = %.17g, not %.17g",
                      cases[k].text, v, cases[k].value);
    }
}

/* The reference value of a function from libm: f(x), 1/f(x) for the cofunctions, or
 * f(1/x) for their inverses (acot x = atan(1/x), …). */
typedef enum { PLAIN, ONE_OVER, OF_ONE_OVER } reciprocal_kind;

typedef struct function_case {
    const char *name;
    double (*libm)(double);
    reciprocal_kind reciprocal;
    double points[3];
} function_case;

static double reference_value(const function_case *c, double x)
{
    switch (c->reciprocal) {
    case ONE_OVER: return 1.0 / c->libm(x);
    case OF_ONE_OVER: return c->libm(1.0 / x);
    default: return c->libm(x);
    }
}

static double step_(double x) { return x < 0.0 ? 0.0 : 1.0; }
static double delta_(double x) { return x == 0.0 ? INFINITY : 0.0; }
static double nandelta_(double x) { return x == 0.0 ? NAN : 0.0; }

/* Every function of the language, at points inside its domain (away from 0 for the
 * functions whose derivative is not defined there). */
static const function_case functions[] = {
    {"exp", exp, PLAIN, {-1.3, 0.2, 2.1}}, {"log", log, PLAIN, {0.3, 1.0, 7.5}},
    {"sqrt", sqrt, PLAIN, {0.2, 1.0, 9.3}}, {"sin", sin, PLAIN, {-2.0, 0.4, 3.0}},
    {"cos", cos, PLAIN, {-2.0, 0.4, 3.0}}, {"tan", tan, PLAIN, {-1.2, 0.4, 1.1}},
    {"cot", tan, ONE_OVER, {-1.2, 0.4, 1.1}}, {"sec", cos, ONE_OVER, {-1.2, 0.4, 1.1}},
    {"csc", sin, ONE_OVER, {-1.2, 0.4, 1.1}}, {"asin", asin, PLAIN, {-0.7, 0.1, 0.8}},
    {"acos", acos, PLAIN, {-0.7, 0.1, 0.8}}, {"atan", atan, PLAIN, {-3.0, 0.1, 2.0}},
    {"acot", atan, OF_ONE_OVER, {-3.0, 0.1, 2.0}}, {"asec", acos, OF_ONE_OVER, {-3.0, 1.2, 2.0}},
    {"acsc", asin, OF_ONE_OVER, {-3.0, 1.2, 2.0}}, {"sinh", sinh, PLAIN, {-2.0, 0.3, 1.5}},
    {"cosh", cosh, PLAIN, {-2.0, 0.3, 1.5}}, {"tanh", tanh, PLAIN, {-2.0, 0.3, 1.5}},
    {"coth", tanh, ONE_OVER, {-2.0, 0.3, 1.5}}, {"sech", cosh, ONE_OVER, {-2.0, 0.3, 1.5}},
    {"csch", sinh, ONE_OVER, {-2.0, 0.3, 1.5}}, {"asinh", asinh, PLAIN, {-2.0, 0.3, 1.5}},
    {"acosh", acosh, PLAIN, {1.1, 2.0, 5.0}}, {"atanh", atanh, PLAIN, {-0.8, 0.1, 0.6}},
    {"acoth", atanh, OF_ONE_OVER, {-3.0, 1.3, 2.0}}, {"asech", acosh, OF_ONE_OVER, {0.1, 0.5, 0.9}},
    {"acsch", asinh, OF_ONE_OVER, {-2.0, 0.3, 1.5}}, {"abs", fabs, PLAIN, {-2.0, 0.3, 1.5}},
    {"step", step_, PLAIN, {-2.0, 0.3, 1.5}}, {"delta", delta_, PLAIN, {-2.0, 0.3, 1.5}},
    {"nandelta", nandelta_, PLAIN, {-2.0, 0.3, 1.5}}, {"erf", erf, PLAIN, {-2.0, 0.3, 1.5}},
};
#define N_FUNCTIONS (sizeof functions / sizeof functions[0])

Test(expr, every_function_has_the_value_of_libm)
{
    cr_expect_eq(N_FUNCTIONS, 32);
    for (size_t k = 0; k < N_FUNCTIONS; ++k) {
        char text[64];
        snprintf(text, sizeof text, "%s(x)", functions[k].name);
        for (int i = 0; i < 3; ++i) {
            const double x = functions[k].points[i], want = reference_value(&functions[k], x);
            const double got = value_at(text, x, 0, 0);
            cr_expect_leq(fabs(got - want), 1e-15 * fmax(1.0, fabs(want)), "%s(%g) = %.17g, libm %.17g",
                          functions[k].name, x, got, want);
        }
    }
    /* at 0: step's jump, delta's and nandelta's spikes; and abs takes a sign */
    cr_expect_eq(value_at("step(x)", 0, 0, 0), 1.0);
    cr_expect(isinf(value_at("delta(x)", 0, 0, 0)) && value_at("delta(x)", 0, 0, 0) > 0);
    cr_expect(isnan(value_at("nandelta(x)", 0, 0, 0)));
    cr_expect_eq(value_at("abs(x - y)", 1, 3, 0), 2.0);
    /* constant arguments are folded to the same values */
    cr_expect_eq(value_at("sin(1.5) + erf(0.5)", 0, 0, 0), sin(1.5) + erf(0.5));
}

/* ---- derivatives */

/* ∂(text)/∂(symbol k) at v against central differences; the relative error. */
static double derivative_error(const char *text, int k, const double *v)
{
    sp_expr *e = parse(text), *d = sp_expr_derivative(e, &xyz, k);
    cr_assert_not_null(d);
    const double h = 1e-5 * fmax(1.0, fabs(v[k]));
    double at[3] = {v[0], v[1], v[2]};
    at[k] = v[k] + h;
    const double up = sp_expr_eval(e, at);
    at[k] = v[k] - h;
    const double down = sp_expr_eval(e, at);
    const double fd = (up - down) / (2.0 * h), exact = sp_expr_eval(d, v);
    sp_expr_free(e);
    sp_expr_free(d);
    return fabs(exact - fd) / fmax(1.0, fabs(fd));
}

Test(expr, every_function_derivative_matches_central_differences)
{
    for (size_t k = 0; k < N_FUNCTIONS; ++k) {
        char text[64];
        snprintf(text, sizeof text, "%s(x)", functions[k].name);
        for (int i = 0; i < 3; ++i) {
            const double v[3] = {functions[k].points[i], 0, 0};
            const double err = derivative_error(text, 0, v);
            cr_expect_leq(err, 1e-7, "d/dx %s at %g: relative error %.1e", text, v[0], err);
        }
        /* and through the chain rule, with another symbol around */
        snprintf(text, sizeof text, "y*%s(0.5*x + 0.1*y)", functions[k].name);
        const double v[3] = {2.0 * functions[k].points[1] - 0.2, 1.0, 0}; /* (the argument at the point) */
        for (int s = 0; s < 2; ++s) {
            const double err = derivative_error(text, s, v);
            cr_expect_leq(err, 1e-7, "d/d%s %s: relative error %.1e", xyz_names[s], text, err);
        }
    }
}

Test(expr, operator_derivatives_match_central_differences)
{
    static const char *const texts[] = {"x*y - z/x", "x^y", "y^x", "x^3 - 2*x^-2", "(x + y)/(x - z)",
                                        "-x*y^2*z", "exp(x*y)/sqrt(z + x^2)", "x^(y^0.5) + (x/y)^(z/3)"};
    const double v[3] = {1.3, 0.7, 2.2};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; ++k) {
        for (int s = 0; s < 3; ++s) {
            const double err = derivative_error(texts[k], s, v);
            cr_expect_leq(err, 1e-7, "d/d%s %s: relative error %.1e", xyz_names[s], texts[k], err);
        }
    }
}

Test(expr, derivatives_are_simplified_to_constants)
{
    sp_expr *e = parse("x*y");
    sp_expr *d = sp_expr_derivative(e, &xyz, 2);
    cr_expect(sp_expr_is_zero(d), "d(x*y)/dz is not the constant 0");
    cr_expect_not(sp_expr_reads(d, 0) || sp_expr_reads(d, 1) || sp_expr_reads(d, 2));
    sp_expr_free(d);
    d = sp_expr_derivative(e, &xyz, 0); /* y: a lone symbol */
    cr_expect(sp_expr_reads(d, 1) && !sp_expr_reads(d, 0));
    cr_expect_eq(sp_expr_tape_length(d), 0);
    cr_expect_eq(sp_expr_eval(d, (const double[]){5, 7, 9}), 7.0);
    sp_expr_free(d);
    sp_expr_free(e);

    e = parse("3*x");
    d = sp_expr_derivative(e, &xyz, 0);
    cr_expect_not(sp_expr_is_zero(d));
    cr_expect_eq(sp_expr_tape_length(d), 0, "d(3x)/dx runs %d instructions", sp_expr_tape_length(d));
    cr_expect_not(sp_expr_reads(d, 0));
    cr_expect_eq(sp_expr_eval(d, (const double[]){NAN, NAN, NAN}), 3.0);
    sp_expr_free(d);
    sp_expr_free(e);

    /* the Hessian of a quadratic is constant: ∂²/∂x² ½(x² + y²) = 1, ∂²/∂x∂y = 0 */
    e = parse("0.5*(x^2 + y^2 - z^2)");
    sp_expr *dx = sp_expr_derivative(e, &xyz, 0);
    cr_expect_eq(sp_expr_tape_length(dx), 0, "d/dx is x itself");
    sp_expr *dxx = sp_expr_derivative(dx, &xyz, 0), *dxy = sp_expr_derivative(dx, &xyz, 1);
    cr_expect_eq(sp_expr_tape_length(dxx), 0);
    cr_expect_eq(sp_expr_eval(dxx, (const double[]){NAN, NAN, NAN}), 1.0);
    cr_expect(sp_expr_is_zero(dxy));
    sp_expr_free(dxx);
    sp_expr_free(dxy);
    sp_expr_free(dx);
    sp_expr_free(e);

    sp_expr *c = sp_expr_constant(0.0);
    cr_expect(sp_expr_is_zero(c));
    sp_expr *dc = sp_expr_derivative(c, &xyz, 0);
    cr_expect(sp_expr_is_zero(dc));
    sp_expr_free(dc);
    sp_expr_free(c);
    c = sp_expr_constant(2.5);
    cr_expect_not(sp_expr_is_zero(c));
    cr_expect_eq(sp_expr_eval(c, NULL), 2.5);
    sp_expr_free(c);
}

/* The derivative of a product of 30 factors, and its second derivative, stay a few
 * instructions per factor: shared subexpressions are not repeated (a tree would hold
 * 30 products of 29 factors in the first derivative, about 900 instructions). */
Test(expr, derivatives_share_their_common_subexpressions)
{
    enum { N = 30 };
    char names[N][8];
    const char *name_list[N];
    char text[N * 16] = "";
    for (int i = 0; i < N; ++i) {
        snprintf(names[i], sizeof names[i], "x%d", i + 1);
        name_list[i] = names[i];
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i ? "*" : "", names[i]);
    }
    const sp_expr_symbols s = {N, name_list, NULL, 0};
    sp_expr *e;
    char why[256];
    cr_assert_eq(sp_expr_parse(text, &s, &e, why, sizeof why), SP_OK, "%s", why);
    double v[N];
    for (int i = 0; i < N; ++i) v[i] = 1.0 + 0.01 * i;
    sp_expr *d = sp_expr_derivative(e, &s, 0), *d2 = sp_expr_derivative(d, &s, 1);
    cr_assert(d && d2);
    const int n_e = sp_expr_tape_length(e), n_d = sp_expr_tape_length(d), n_d2 = sp_expr_tape_length(d2);
    cr_log_info("product of %d factors: %d instructions, its derivative %d, the second %d\n", N, n_e, n_d, n_d2);
    cr_expect_leq(n_e, 2 * N);
    cr_expect_leq(n_d, 3 * N);
    cr_expect_leq(n_d2, 3 * N);
    double want = 1.0, want2 = 1.0;
    for (int i = 1; i < N; ++i) want *= v[i];
    for (int i = 2; i < N; ++i) want2 *= v[i];
    cr_expect_leq(fabs(sp_expr_eval(d, v) - want), 1e-14 * want);
    cr_expect_leq(fabs(sp_expr_eval(d2, v) - want2), 1e-14 * want2);
    sp_expr_free(d2);
    sp_expr_free(d);
    sp_expr_free(e);

    /* sin(sin(…(x)…)) 30 deep: its derivative is a product along the chain, linear too */
    char nested[16 * N] = "";
    for (int i = 0; i < N; ++i) strcat(nested, "sin(");
    strcat(nested, "x");
    for (int i = 0; i < N; ++i) strcat(nested, ")");
    e = parse(nested);
    d = sp_expr_derivative(e, &xyz, 0);
    d2 = sp_expr_derivative(d, &xyz, 0);
    cr_assert(d && d2);
    cr_log_info("sin nested %d deep: %d, %d, %d instructions\n", N, sp_expr_tape_length(e), sp_expr_tape_length(d),
                sp_expr_tape_length(d2));
    cr_expect_leq(sp_expr_tape_length(d), 4 * N);
    cr_expect_leq(sp_expr_tape_length(d2), 12 * N);
    const double at[3] = {0.3, 0, 0};
    cr_expect_leq(derivative_error(nested, 0, at), 1e-7);
    sp_expr_free(d2);
    sp_expr_free(d);
    sp_expr_free(e);
}

/* ---- threads */

#define THREADS 4
#define ROUNDS 20000
static const char *const thread_text = "m*g*(z - l*cos(x)) + 0.5*k*(x^2 + y^2)*exp(-x*y/10)";

typedef struct thread_job {
    double result; /* the sum of the expression and its gradient over the rounds */
    int ok;
} thread_job;

static double run_rounds(void)
{
    static const char *const names[] = {"x", "y", "z", "m", "g", "l", "k"};
    const sp_expr_symbols s = {7, names, NULL, 0};
    sp_expr *e, *d[3];
    char why[256];
    if (sp_expr_parse(thread_text, &s, &e, why, sizeof why) != SP_OK) return NAN;
    for (int k = 0; k < 3; ++k) d[k] = sp_expr_derivative(e, &s, k);
    double v[7] = {0, 0, 0, 1.5, 9.81, 0.7, 3.0}, sum = 0.0;
    for (int r = 0; r < ROUNDS; ++r) {
        v[0] = 0.001 * r, v[1] = 1.0 - 0.0005 * r, v[2] = 0.3;
        sum += sp_expr_eval(e, v);
        for (int k = 0; k < 3; ++k) sum += d[k] ? sp_expr_eval(d[k], v) : NAN;
    }
    for (int k = 0; k < 3; ++k) sp_expr_free(d[k]);
    sp_expr_free(e);
    return sum;
}

static void *thread_main(void *arg)
{
    thread_job *job = arg;
    job->result = run_rounds();
    job->ok = 1;
    return NULL;
}

Test(expr, threads_evaluate_their_own_copies_at_once)
{
    const double alone = run_rounds();
    cr_assert(isfinite(alone));
    pthread_t t[THREADS];
    thread_job jobs[THREADS] = {{0}};
    for (int i = 0; i < THREADS; ++i) cr_assert_eq(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; ++i) {
        cr_expect(jobs[i].ok);
        cr_expect_eq(jobs[i].result, alone, "thread %d: %.17g, alone %.17g", i, jobs[i].result, alone);
    }
}

/* A set evaluates its members to exactly their own values, and what they share (a
 * constraint row's cos(phi) and sin(phi), its derivatives' too) is one instruction of its
 * tape: the set's tape is shorter than its members' together, and no longer than the
 * distinct operations among them. */
Test(expr, a_set_runs_what_its_members_share_once)
{
    static const char *const texts[] = {"-2*cos(x)", "-2*sin(x)", "2*sin(x)", "-2*cos(x)*y", "sin(x)*cos(x) + z", "3"};
    enum { N = sizeof texts / sizeof texts[0] };
    sp_expr *e[N];
    int separate = 0;
    for (int i = 0; i < N; ++i) e[i] = parse(texts[i]), separate += sp_expr_tape_length(e[i]);
    sp_expr_set *set = sp_expr_set_new(e, N);
    cr_assert_not_null(set);
    const int together = sp_expr_set_tape_length(set);
    /* loads x, y, z; cos x, sin x; -2*cos, -2*sin, 2*sin, (-2*cos)*y, sin*cos, + z */
    cr_expect_leq(together, 11, "the set runs %d instructions", together);
    cr_expect_lt(together, separate, "the set runs %d instructions, its members %d", together, separate);
    const double points[3][3] = {{0.3, -1.2, 2.0}, {-2.5, 0.0, -0.0}, {1e-300, 7.0, 1e300}};
    for (int k = 0; k < 3; ++k) {
        double out[N];
        sp_expr_set_eval(set, points[k], out);
        for (int i = 0; i < N; ++i) {
            const double alone = sp_expr_eval(e[i], points[k]);
            cr_expect(memcmp(&alone, &out[i], sizeof alone) == 0, "%s at point %d: %.17g in the set, %.17g alone",
                      texts[i], k, out[i], alone);
        }
    }
    for (int i = 0; i < N; ++i) sp_expr_free(e[i]);
    /* the members were copied: the set runs without them */
    double out[N];
    sp_expr_set_eval(set, points[0], out);
    cr_expect_eq(out[N - 1], 3.0);
    sp_expr_set_free(set);
    sp_expr_set *empty = sp_expr_set_new(NULL, 0);
    cr_expect_not_null(empty);
    sp_expr_set_free(empty);
}
