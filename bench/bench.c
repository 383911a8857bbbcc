/* make bench: what the adjoint costs, and what it saves.
 *
 * On instance A (data/sphere_interpolation.json) at N = 1000 steps it measures, in the
 * same run: one forward sweep; one gradient (recorded forward sweep + adjoint sweep)
 * and their ratio, for every scheme and retraction; and the whole solve with adjoint
 * gradients against the same solve with central-difference gradients. It prints
 * ratios, not verdicts. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "planner/cubic/sp_plan.h"
#include "bench/bench.h"

#define BENCH_STEPS 1000
#define BENCH_FILE "data/sphere_interpolation.json"

typedef enum { SWEEP_FORWARD, SWEEP_GRADIENT } sweep_kind;

/* Seconds per sweep: the best of 7 batches, each long enough (~40 ms) to time. */
static double time_sweep(sp_shooting *s, sweep_kind kind, const double *x)
{
    double best = INFINITY, J, grad[12];
    int reps = 1;
    for (int batch = 0; batch < 7; ++batch) {
        double t0 = bench_clock();
        for (int r = 0; r < reps; ++r) {
            if (kind == SWEEP_FORWARD)
                sp_shooting_cost(s, x, &J);
            else
                sp_shooting_gradient(s, x, &J, grad);
        }
        double dt = (bench_clock() - t0) / reps;
        if (dt < best) best = dt;
        if (dt * reps < 0.04) reps *= 2, --batch; /* too short to time: retry larger */
    }
    return best;
}

static int load(sp_problem *pb)
{
    sp_input_error e;
    if (sp_problem_read_file(BENCH_FILE, pb, &e) != SP_OK) {
        fprintf(stderr, "%s: %s: %s\n", BENCH_FILE, e.path, e.message);
        return -1;
    }
    pb->steps = BENCH_STEPS;
    return 0;
}

typedef struct solve_figures {
    double seconds, cost;
    int evaluations;
    char status[32];
} solve_figures;

sp_plan *bench_plan_solved(const sp_problem *pb, sp_plan_result *res)
{
    sp_plan *plan = sp_plan_new(pb);
    if (plan) sp_plan_solve(plan, res);
    return plan;
}

int bench_python_numbers(const char *script, void (*write)(FILE *f, const void *ctx), const void *ctx, double *out,
                         int max)
{
    if (access(BENCH_PYTHON, X_OK) != 0 || access(script, R_OK) != 0) return -1;
    char path[] = "/tmp/symplan-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return -1;
    }
    write(f, ctx);
    int got = -1;
    if (fclose(f) == 0) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s %s < %s 2>/dev/null", BENCH_PYTHON, script, path);
        fflush(stdout);
        FILE *p = popen(cmd, "r");
        if (p) {
            got = 0;
            while (got < max && fscanf(p, "%lf", &out[got]) == 1) ++got;
            if (pclose(p) != 0) got = -1;
        }
    }
    unlink(path);
    return got;
}

static solve_figures time_solve(sp_problem *pb, int central_differences)
{
    pb->optimizer.central_differences = central_differences;
    solve_figures f = {0};
    double best = INFINITY;
    for (int r = 0; r < 3; ++r) {
        sp_plan *plan = sp_plan_new(pb);
        sp_plan_result res;
        double t0 = bench_clock();
        sp_plan_solve(plan, &res);
        double dt = bench_clock() - t0;
        if (dt < best) best = dt;
        f.cost = res.cost;
        f.evaluations = res.evaluations;
        snprintf(f.status, sizeof f.status, "%s", res.status);
        sp_plan_free(plan);
    }
    f.seconds = best;
    return f;
}

/* With arguments, only the named parts run: adjoint, index1, custom_vak, nonholonomic,
 * custom_nh, holonomic, holonomic_lobatto, custom_hol, keyframes, curve, warm_start,
 * study, parking, scenes, sphere (build/symplan-bench index1 custom_hol); numbers after
 * a part's name are its own (build/symplan-bench scenes 100 7). */
static int wanted(int argc, char **argv, const char *part)
{
    if (argc < 2) return 1;
    for (int i = 1; i < argc; ++i)
        if (!strcmp(argv[i], part)) return 1;
    return 0;
}

/* The k-th number after the part's name on the command line, or `otherwise`. */
static unsigned long part_number(int argc, char **argv, const char *part, int k, unsigned long otherwise)
{
    for (int i = 1; i < argc; ++i)
        if (!strcmp(argv[i], part)) {
            if (i + k >= argc) return otherwise;
            char *end;
            const unsigned long v = strtoul(argv[i + k], &end, 10);
            return *end == '\0' && end != argv[i + k] ? v : otherwise;
        }
    return otherwise;
}

static int bench_adjoint(void)
{
    sp_problem pb;
    if (load(&pb)) return 1;
    static const double x[6] = {3.2, -11.4, 9.8, -0.2, -3.2, 3.4}; /* near the optimum */

    printf("symplan bench: instance A (%s), N = %d steps\n\n", BENCH_FILE, BENCH_STEPS);
    printf("%-20s %-8s %14s %14s %10s\n", "scheme", "retract", "forward [us]", "gradient [us]", "ratio");
    for (size_t s = 0; sp_hohp_scheme_at(s); ++s)
        for (size_t r = 0; sp_retraction_at(r); ++r) {
            pb.scheme = sp_hohp_scheme_at(s);
            pb.retraction = sp_retraction_at(r);
            sp_shooting *sh = sp_shooting_alloc(&pb);
            double tf = time_sweep(sh, SWEEP_FORWARD, x), tg = time_sweep(sh, SWEEP_GRADIENT, x);
            printf("%-20s %-8s %14.1f %14.1f %10.2f\n", pb.scheme->name, pb.retraction->name, 1e6 * tf, 1e6 * tg,
                   tg / tf);
            sp_shooting_free(sh);
        }
    printf("(ratio = one forward+adjoint gradient over one forward sweep; goal <= 2, theory allows 3-4)\n\n");

    pb.scheme = sp_hohp_scheme_by_name("hohp_sv");
    pb.retraction = sp_retraction_cayley;
    solve_figures adj = time_solve(&pb, 0), fd = time_solve(&pb, 1);
    printf("whole solve (hohp_sv, cayley, %s from zero momenta):\n", pb.optimizer.algorithm);
    printf("  %-26s %10.2f ms  %4d evaluations  cost %.12f  %s\n", "adjoint gradient", 1e3 * adj.seconds,
           adj.evaluations, adj.cost, adj.status);
    printf("  %-26s %10.2f ms  %4d evaluations  cost %.12f  %s\n", "central differences", 1e3 * fd.seconds,
           fd.evaluations, fd.cost, fd.status);
    printf("  time ratio (central differences / adjoint): %.2f\n", fd.seconds / adj.seconds);
    sp_problem_free(&pb);
    return 0;
}

int main(int argc, char **argv)
{
    if (wanted(argc, argv, "adjoint") && bench_adjoint()) return 1;
    if (wanted(argc, argv, "index1")) bench_index1();
    if (wanted(argc, argv, "parking")) bench_parking();
    if (wanted(argc, argv, "scenes"))
        bench_scenes((int)part_number(argc, argv, "scenes", 1, 60), part_number(argc, argv, "scenes", 2, 1));
    if (wanted(argc, argv, "custom_vak")) bench_custom_vak();
    if (wanted(argc, argv, "nonholonomic")) bench_nonholonomic();
    if (wanted(argc, argv, "custom_nh")) bench_custom_nh();
    if (wanted(argc, argv, "holonomic")) bench_holonomic();
    if (wanted(argc, argv, "holonomic_lobatto")) bench_holonomic_lobatto();
    if (wanted(argc, argv, "custom_hol")) bench_custom_hol();
    if (wanted(argc, argv, "keyframes")) bench_keyframes();
    if (wanted(argc, argv, "curve")) bench_curve();
    if (wanted(argc, argv, "sphere")) bench_sphere();
    if (wanted(argc, argv, "warm_start")) bench_warm_start();
    if (wanted(argc, argv, "study")) {
        /* the command is built beside this program (build/symplan-bench, build/symplan) */
        char symplan[4096];
        const char *slash = strrchr(argv[0], '/');
        snprintf(symplan, sizeof symplan, "%.*ssymplan", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
        bench_study(symplan);
    }
    return 0;
}

char *bench_json_text(cJSON *doc)
{
    char *printed = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!printed) return NULL;
    char *text = malloc(strlen(printed) + 1);
    if (text) strcpy(text, printed);
    cJSON_free(printed);
    return text;
}
