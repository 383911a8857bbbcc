/* make bench, part keyframes: planning through many random SO(3) orientation keyframes.
 *
 * Schedules come from kf_random_schedule (tests/keyframe_reference.h): n keyframes at
 * t = 1 … n, each 0.7 rad from the previous one, 20 steps per interval. Two settings:
 *   (a) σ = 0.05 with the schedule's prescribed ξ0, solved by multiple shooting (the
 *       default), single shooting (L-BFGS over the initial momenta, 2000 evaluations at
 *       most) and the direct form (L-BFGS over the node velocities, 20000 evaluations or
 *       DIRECT_MAXTIME seconds at most, finished by Newton);
 *   (b) σ = 0 (exact interpolation) with free end velocities, multiple shooting only.
 * Every row gives the status, the time (plan allocation and solve, best of a few
 * repeats when one solve is short), Newton iterations or NLopt evaluations, the cost, the
 * worst keyframe miss, the cost against the independent reference (the best of its
 * L-BFGS runs from three starts; in setting (b) it reports the running cost at σ = 1e-4,
 * which is set against our running cost), against scipy's RotationSpline through the same
 * keyframes (setting (b) only), and the time in units of one forward sweep of the same
 * grid (single-shooting object, zero momenta, best of several repeats).
 *
 * A last row solves 1000 keyframes on 10⁶ steps in a child process and reports its time
 * and the child's peak resident set. The references run first, one child process per
 * schedule side by side, each abandoned after REFERENCE_LIMIT seconds of CPU time (and
 * all of them after REFERENCE_WALL seconds of wall time, should the machine be busy); no
 * solve is timed while they run. Prints; asserts nothing. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "planner/cubic/sp_plan.h"
#include "tests/keyframe_reference.h"
#include "bench/bench.h"

#define SCHEDULE_NUMBER 20240601UL /* which random schedule (the same for every size) */
#define STEP_ANGLE 0.7
#define STEPS_PER_UNIT 20
#define SIGMA_SOFT 0.05
#define REFERENCE_LIMIT 60.0 /* CPU seconds a reference solve may take before it is abandoned */
#define REFERENCE_WALL 150.0 /* and the wall-clock seconds all of them together may take */
#define DIRECT_MAXTIME 30.0  /* s: NLopt's time limit for the direct form, a guard on the runtime */
#define REPEAT_BELOW 0.25    /* solves shorter than this (s) are repeated … */
#define REPEAT_BUDGET 1.0    /* … while the repeats together stay under this (s) */
#define REPEAT_MAX 9
#define SPLINE_SCRIPT "tests/rotation_spline_cost.py"

/* A child process with a pipe back to the parent: fds[0] stays open in the parent and
 * fds[1] in the child. −1 when the pipe or the fork fails (nothing is left open). */
static pid_t fork_with_pipe(int fds[2])
{
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) close(fds[0]);
    return pid;
}

static const int sizes[] = {10, 50, 200};
#define N_SIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* ------------------------------------------------------------ problems and solves -- */

/* The schedule as problem text, with the method, an optimizer block (L-BFGS; maxeval > 0,
 * and a time limit when maxtime > 0) and record_every (> 0) added. malloc'd; NULL when out
 * of memory. */
static char *problem_text(const kf_schedule *s, const char *method, int maxeval, double maxtime, int record_every)
{
    char *base = kf_schedule_json(s);
    if (!base) return NULL;
    cJSON *doc = cJSON_Parse(base);
    free(base);
    if (!doc) return NULL;
    if (method) cJSON_AddStringToObject(doc, "method", method);
    if (maxeval > 0) {
        cJSON *opt = cJSON_AddObjectToObject(doc, "optimizer");
        cJSON_AddStringToObject(opt, "algorithm", "LD_LBFGS");
        cJSON_AddNumberToObject(opt, "maxeval", maxeval);
        if (maxtime > 0) cJSON_AddNumberToObject(opt, "maxtime", maxtime);
    }
    if (record_every > 0) cJSON_AddNumberToObject(doc, "record_every", record_every);
    return bench_json_text(doc);
}

static int parse(const char *text, sp_problem *pb)
{
    sp_input_error e;
    if (sp_problem_parse(text, strlen(text), pb, &e) != SP_OK) {
        fprintf(stderr, "keyframes bench: problem rejected at '%s': %s\n", e.path, e.message);
        return -1;
    }
    return 0;
}

typedef struct solve_row {
    int ok;
    char status[32];
    double seconds, cost, running_cost, miss, residual;
    int iterations, evaluations; /* Newton iterations; NLopt evaluations (direct, single shooting) */
} solve_row;

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Reads the figures of a result tree into *row (not the time). */
static void read_result(const cJSON *res, int single_shooting, solve_row *row)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "status");
    snprintf(row->status, sizeof row->status, "%s", cJSON_IsString(st) ? st->valuestring : "?");
    row->cost = number(res, "cost");
    row->running_cost = number(res, "running_cost");
    row->residual = number(res, single_shooting ? "gradient_norm" : "optimality_residual");
    const double it = number(res, "iterations"), ev = number(res, "evaluations");
    row->iterations = single_shooting ? 0 : (isfinite(it) ? (int)it : -1);
    row->evaluations = single_shooting ? (isfinite(it) ? (int)it : -1) : (isfinite(ev) ? (int)ev : 0);
    row->miss = NAN;
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(res, "targets");
    if (cJSON_IsArray(targets)) {
        row->miss = 0.0;
        for (const cJSON *t = targets->child; t; t = t->next) row->miss = fmax(row->miss, number(t, "distance"));
    }
    row->ok = 1;
}

/* Solves the problem text: plan allocation and solve timed, repeated while short. */
static solve_row solve(const char *text)
{
    solve_row row = {0};
    snprintf(row.status, sizeof row.status, "not run");
    sp_problem pb;
    if (!text || parse(text, &pb)) return row;
    double best = INFINITY, spent = 0.0;
    for (int r = 0; r < REPEAT_MAX; ++r) {
        const double t0 = bench_clock();
        sp_plan_result res;
        sp_plan *plan = bench_plan_solved(&pb, &res);
        if (!plan) break;
        const double dt = bench_clock() - t0;
        best = fmin(best, dt);
        spent += dt;
        const int last = dt > REPEAT_BELOW || spent + dt > REPEAT_BUDGET || r == REPEAT_MAX - 1;
        if (last) {
            cJSON *json = sp_plan_result_json(plan, &res);
            if (json) read_result(json, pb.plan.method == SP_METHOD_SINGLE_SHOOTING, &row);
            cJSON_Delete(json);
        }
        sp_plan_free(plan);
        if (last) break;
    }
    row.seconds = best;
    sp_problem_free(&pb);
    return row;
}

/* ------------------------------------------------------------ one forward sweep -- */

typedef struct sweep_ctx {
    sp_shooting *sh;
    double x[2 * SP_LIE_MAX_DIM], J;
} sweep_ctx;

static void one_sweep(void *p)
{
    sweep_ctx *c = p;
    sp_shooting_cost(c->sh, c->x, &c->J);
}

/* Seconds of one forward sweep (zero momenta) of the problem's grid; NaN on failure. */
static double sweep_seconds(const char *text)
{
    sp_problem pb;
    if (!text || parse(text, &pb)) return NAN;
    pb.plan.method = SP_METHOD_SINGLE_SHOOTING;
    sweep_ctx c = {0};
    c.sh = sp_shooting_alloc(&pb);
    double t = NAN;
    if (c.sh) {
        t = bench_best_time(one_sweep, &c, 15, 0.01);
        sp_shooting_free(c.sh);
    }
    sp_problem_free(&pb);
    return t;
}

/* ------------------------------------------------------------ the reference, in a child -- */

typedef struct reference_report {
    int ok;
    double cost[KF_STARTS], best, seconds;
    int best_start, evaluations;
} reference_report;

/* Writes all of buf to fd; 0 on success. */
static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Reads n bytes from fd, waiting at most until `deadline` (bench_clock seconds).
 * 1: read; 0: the deadline passed; -1: the writer went away or an error. */
static int read_until(int fd, void *buf, size_t n, double deadline)
{
    char *p = buf;
    while (n) {
        const double left = deadline - bench_clock();
        if (left <= 0) return 0;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int k = poll(&pfd, 1, (int)ceil(left * 1e3));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) return 0;
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r, n -= (size_t)r;
    }
    return 1;
}

/* kf_reference_solve in a child process, limited to REFERENCE_LIMIT seconds of CPU time
 * (RLIMIT_CPU), so that the references of all schedules can run side by side before
 * anything is timed. */
typedef struct reference_job {
    pid_t pid;
    int fd;
    int outcome; /* 1: done, *rep filled; 0: past the CPU limit; 2: past the wall-clock limit; -1: failed */
    reference_report rep;
} reference_job;

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return NAN;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static void reference_start(const kf_schedule *s, reference_job *job)
{
    memset(job, 0, sizeof *job);
    job->pid = -1;
    job->fd = -1;
    job->outcome = -1;
    if (!s->t) return; /* the schedule could not be built */
    int fds[2];
    pid_t pid = fork_with_pipe(fds);
    if (pid < 0) return;
    if (pid == 0) {
        const struct rlimit no_core = {0, 0};
        const struct rlimit cpu = {(rlim_t)REFERENCE_LIMIT, (rlim_t)REFERENCE_LIMIT + 5};
        setrlimit(RLIMIT_CORE, &no_core);
        setrlimit(RLIMIT_CPU, &cpu); /* SIGXCPU ends the child past the limit */
        reference_report rep = {0};
        kf_reference ref;
        if (kf_reference_solve(s, &ref) == 0) {
            rep.ok = 1;
            memcpy(rep.cost, ref.cost, sizeof rep.cost);
            rep.best = ref.best;
            rep.best_start = ref.best_start;
            rep.evaluations = ref.evaluations;
            kf_reference_free(&ref);
        }
        rep.seconds = cpu_seconds();
        _exit(write_all(fds[1], &rep, sizeof rep) == 0 ? 0 : 1);
    }
    close(fds[1]);
    job->pid = pid;
    job->fd = fds[0];
}

/* Collects a job, waiting until `deadline` (bench_clock seconds) at most. */
static void reference_finish(reference_job *job, double deadline)
{
    if (job->pid < 0) return;
    const int got = read_until(job->fd, &job->rep, sizeof job->rep, deadline);
    close(job->fd);
    if (got == 0) kill(job->pid, SIGKILL);
    int status = 0;
    waitpid(job->pid, &status, 0);
    if (got == 1)
        job->outcome = job->rep.ok ? 1 : -1;
    else if (got == 0)
        job->outcome = 2;
    else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
        job->outcome = 0;
    else
        job->outcome = -1;
}

/* ------------------------------------------------------------ scipy's RotationSpline -- */

/* The script's input: one schedule's rotations. */
static void write_rotations(FILE *f, const void *ctx)
{
    kf_schedule_write_rotations(f, ctx);
    fprintf(f, "\n");
}

/* ½∫|ω̇|² of RotationSpline through the start g0 at t = 0 and the keyframes (rotation
 * schedules); NaN when python3, scipy or the script is not available. */
static double rotation_spline_cost(const kf_schedule *s)
{
    double value;
    return s->R && bench_python_numbers(SPLINE_SCRIPT, write_rotations, s, &value, 1) == 1 ? value : NAN;
}

/* ------------------------------------------------------------ printing -- */

static void print_header(void)
{
    printf("%5s  %-18s %-18s %10s  %-14s %14s %10s %11s %11s %9s\n", "keys", "method", "status", "time [ms]",
           "iterations", "cost", "miss [rad]", "vs ref", "vs RotSpl", "x sweep");
}

static void format_iterations(const solve_row *r, char *buf, size_t size)
{
    if (!r->ok)
        snprintf(buf, size, "-");
    else if (r->iterations > 0 && r->evaluations > 0)
        snprintf(buf, size, "%d ev + %d nt", r->evaluations, r->iterations);
    else if (r->evaluations > 0)
        snprintf(buf, size, "%d ev", r->evaluations);
    else
        snprintf(buf, size, "%d nt", r->iterations);
}

static void format_relative(double ours, double theirs, char *buf, size_t size)
{
    if (isfinite(ours) && isfinite(theirs) && theirs > 0)
        snprintf(buf, size, "%+.2e", ours / theirs - 1.0);
    else
        snprintf(buf, size, "n/a");
}

/* ref_note: printed in place of the reference column when the reference was not run. */
static void print_row(int n, const char *method, const solve_row *r, double ours_vs_ref, double ref,
                      const char *ref_note, double ours_vs_spline, double spline, int with_spline, double sweep)
{
    char it[32], vs_ref[32], vs_spline[32];
    format_iterations(r, it, sizeof it);
    if (ref_note)
        snprintf(vs_ref, sizeof vs_ref, "-");
    else
        format_relative(ours_vs_ref, ref, vs_ref, sizeof vs_ref);
    if (with_spline)
        format_relative(ours_vs_spline, spline, vs_spline, sizeof vs_spline);
    else
        snprintf(vs_spline, sizeof vs_spline, "-");
    printf("%5d  %-18s %-18s %10.1f  %-14s %14.8g %10.2e %11s %11s %9.1f\n", n, method, r->status, 1e3 * r->seconds, it,
           r->cost, r->miss, vs_ref, vs_spline, r->seconds / sweep);
}

static const char *start_name(int k)
{
    return k == KF_START_ZERO ? "zero" : k == KF_START_GEODESIC ? "geodesic" : "spline";
}

/* One line about the reference solve of a schedule. */
static void report_reference(const reference_job *job)
{
    const reference_report *ref = &job->rep;
    if (job->outcome == 1)
        printf("       reference: best %.10g from the %s start (zero %.6g, geodesic %.6g, spline %.6g), "
               "%d evaluations, %.1f s CPU\n",
               ref->best, start_name(ref->best_start), ref->cost[KF_START_ZERO], ref->cost[KF_START_GEODESIC],
               ref->cost[KF_START_SPLINE], ref->evaluations, ref->seconds);
    else if (job->outcome == 0)
        printf("       reference: skipped (reference too slow: > %.0f s)\n", REFERENCE_LIMIT);
    else if (job->outcome == 2)
        printf("       reference: skipped (reference too slow: unfinished after %.0f s of wall time, machine busy)\n",
               REFERENCE_WALL);
    else
        printf("       reference: failed\n");
}

/* ------------------------------------------------------------ the 10⁶-step row -- */

typedef struct big_report {
    int ok;
    char status[32];
    double seconds, cost, miss, sweep;
    int iterations;
    long peak_kb, start_kb;
} big_report;

/* The resident set now, in KiB (Linux /proc); -1 when unknown. */
static long resident_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long size, resident;
    const int got = fscanf(f, "%ld %ld", &size, &resident);
    fclose(f);
    return got == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

static void big_child(int n, int per_unit, big_report *rep)
{
    rep->start_kb = resident_kb();
    kf_schedule s;
    kf_random_schedule(SCHEDULE_NUMBER, 0, n, STEP_ANGLE, per_unit, SIGMA_SOFT, &s);
    if (!s.t) return;
    char *text = problem_text(&s, NULL, 0, 0.0, per_unit);
    kf_schedule_free(&s);
    sp_problem pb;
    if (!text || parse(text, &pb)) {
        free(text);
        return;
    }
    const double t0 = bench_clock();
    sp_plan_result res;
    sp_plan *plan = bench_plan_solved(&pb, &res);
    if (plan) {
        rep->seconds = bench_clock() - t0;
        cJSON *json = sp_plan_result_json(plan, &res);
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) rep->peak_kb = ru.ru_maxrss;
        if (json) {
            solve_row row = {0};
            read_result(json, 0, &row);
            snprintf(rep->status, sizeof rep->status, "%s", row.status);
            rep->cost = row.cost;
            rep->miss = row.miss;
            rep->iterations = row.iterations;
            rep->ok = 1;
        }
        cJSON_Delete(json);
        sp_plan_free(plan);
    }
    sp_problem_free(&pb);
    rep->sweep = sweep_seconds(text); /* after the peak was read */
    free(text);
}

static void big_row(int n, int per_unit)
{
    int fds[2];
    pid_t pid = fork_with_pipe(fds);
    if (pid < 0) return;
    if (pid == 0) {
        big_report rep = {0};
        snprintf(rep.status, sizeof rep.status, "failed");
        big_child(n, per_unit, &rep);
        _exit(write_all(fds[1], &rep, sizeof rep) == 0 ? 0 : 1);
    }
    close(fds[1]);
    big_report rep = {0};
    const int got = read_until(fds[0], &rep, sizeof rep, bench_clock() + 3600.0);
    close(fds[0]);
    if (got == 0) kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    printf("\n%d keyframes, %d steps (sigma %g, prescribed xi0, multiple shooting, a row every %d steps), "
           "in a child process:\n",
           n, n * per_unit, SIGMA_SOFT, per_unit);
    if (got != 1 || !rep.ok) {
        printf("  failed (%s)\n", got == 0 ? "no answer within an hour" : "the child reported nothing");
        return;
    }
    printf("  %-18s %10s  %-10s %14s %10s %9s %12s %12s\n", "status", "time [s]", "iterations", "cost", "miss [rad]",
           "x sweep", "peak RSS", "RSS at start");
    printf("  %-18s %10.2f  %-10d %14.8g %10.2e %9.1f %8.1f MiB %8.1f MiB\n", rep.status, rep.seconds, rep.iterations,
           rep.cost, rep.miss, rep.seconds / rep.sweep, rep.peak_kb / 1024.0, rep.start_kb / 1024.0);
}

/* ------------------------------------------------------------ the part -- */

void bench_keyframes(void)
{
    const double t_part = bench_clock();
    printf("\nkeyframes: random SO(3) orientation keyframes (kf_random_schedule: one per unit time, %.1f rad apart, "
           "%d steps per interval, hohp_sv, cayley)\n",
           STEP_ANGLE, STEPS_PER_UNIT);
    printf("  time: plan allocation + solve, best of up to %d repeats while short; iterations: nt Newton, ev NLopt "
           "evaluations;\n",
           REPEAT_MAX);
    printf("  miss: largest keyframe distance; vs ref: cost / (best of the reference's zero, geodesic and spline "
           "starts) - 1;\n");
    printf("  vs RotSpl: running cost / (scipy RotationSpline's 1/2 int |dw/dt|^2) - 1; x sweep: time / one forward "
           "sweep of the grid\n");

    /* soft[q]: setting (a); exact[q]: setting (b), the same keyframes */
    kf_schedule soft[N_SIZES], exact[N_SIZES];
    for (int q = 0; q < N_SIZES; ++q) {
        kf_random_schedule(SCHEDULE_NUMBER, 0, sizes[q], STEP_ANGLE, STEPS_PER_UNIT, SIGMA_SOFT, &soft[q]);
        kf_random_schedule(SCHEDULE_NUMBER, 0, sizes[q], STEP_ANGLE, STEPS_PER_UNIT, 0.0, &exact[q]);
        exact[q].xi0_free = 1;
        exact[q].has_xiT = 0;
    }

    /* The references (and RotationSpline) first, side by side: nothing is timed meanwhile. */
    reference_job ref_soft[N_SIZES], ref_exact[N_SIZES];
    for (int q = 0; q < N_SIZES; ++q) {
        reference_start(&soft[q], &ref_soft[q]);
        reference_start(&exact[q], &ref_exact[q]);
    }
    double spline[N_SIZES];
    int spline_missing = 0;
    for (int q = 0; q < N_SIZES; ++q) {
        spline[q] = exact[q].t ? rotation_spline_cost(&exact[q]) : NAN;
        if (!isfinite(spline[q])) spline_missing = 1;
    }
    const double deadline = bench_clock() + REFERENCE_WALL;
    for (int q = 0; q < N_SIZES; ++q) {
        reference_finish(&ref_soft[q], deadline);
        reference_finish(&ref_exact[q], deadline);
    }
    printf("  (references: %.1f s of wall time, run side by side before the timed solves)\n", bench_clock() - t_part);

    double sweep[N_SIZES];
    printf("\n(a) sigma = %g, prescribed xi0; single_shooting: L-BFGS, maxeval 2000; direct: L-BFGS, maxeval 20000, "
           "maxtime %g s\n",
           SIGMA_SOFT, DIRECT_MAXTIME);
    print_header();
    for (int q = 0; q < N_SIZES; ++q) {
        const int n = sizes[q];
        sweep[q] = NAN;
        if (!soft[q].t) {
            printf("%5d  out of memory\n", n);
            continue;
        }
        char *ms = problem_text(&soft[q], NULL, 0, 0.0, 0);
        char *single = problem_text(&soft[q], "single_shooting", 2000, 0.0, 0);
        char *direct = problem_text(&soft[q], "direct", 20000, DIRECT_MAXTIME, 0);
        sweep[q] = sweep_seconds(single);
        const reference_job *ref = &ref_soft[q];
        const char *note = ref->outcome == 1 ? NULL : "-";
        solve_row r_ms = solve(ms), r_single = solve(single), r_direct = solve(direct);
        print_row(n, "multiple_shooting", &r_ms, r_ms.cost, ref->rep.best, note, NAN, NAN, 0, sweep[q]);
        print_row(n, "single_shooting", &r_single, r_single.cost, ref->rep.best, note, NAN, NAN, 0, sweep[q]);
        print_row(n, "direct", &r_direct, r_direct.cost, ref->rep.best, note, NAN, NAN, 0, sweep[q]);
        printf("       one forward sweep: %.1f us (%d steps)\n", 1e6 * sweep[q], soft[q].steps);
        report_reference(ref);
        free(ms);
        free(single);
        free(direct);
    }

    printf("\n(b) sigma = 0 (exact interpolation), free end velocities; the reference reports its running cost at "
           "sigma = %g\n",
           kf_exact_sigmas[KF_EXACT_STAGES - 1]);
    print_header();
    for (int q = 0; q < N_SIZES; ++q) {
        const int n = sizes[q];
        if (!exact[q].t) {
            printf("%5d  out of memory\n", n);
            continue;
        }
        char *ms = problem_text(&exact[q], NULL, 0, 0.0, 0);
        const reference_job *ref = &ref_exact[q];
        solve_row r = solve(ms);
        print_row(n, "multiple_shooting", &r, r.running_cost, ref->rep.best, ref->outcome == 1 ? NULL : "-",
                  r.running_cost, spline[q], 1, sweep[q]);
        printf("       running cost %.10g; RotationSpline ", r.running_cost);
        if (isfinite(spline[q]))
            printf("%.10g\n", spline[q]);
        else
            printf("n/a\n");
        report_reference(ref);
        free(ms);
    }
    if (spline_missing)
        printf("  (RotationSpline n/a: %s with scipy, or %s, is not available)\n", BENCH_PYTHON, SPLINE_SCRIPT);
    for (int q = 0; q < N_SIZES; ++q) {
        kf_schedule_free(&soft[q]);
        kf_schedule_free(&exact[q]);
    }

    big_row(1000, 1000);

    printf("\n  goals: <= 100 forward sweeps of the grid for a solve at 50 keyframes; solve time linear in the number "
           "of keyframes\n");
    printf("  (keyframes part: %.1f s)\n", bench_clock() - t_part);
}
