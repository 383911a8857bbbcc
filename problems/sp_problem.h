/* Problem files: what a JSON problem says, read and validated in full before anything
 * runs. A malformed or inconsistent file yields an sp_input_error naming the JSON path
 * and what is wrong; nothing else is reported for it. */
#ifndef SP_PROBLEM_H
#define SP_PROBLEM_H

#include <stddef.h>

#include "integrators/sp_hohp.h"
#include "lie/sp_lie.h"
#include "problems/car/sp_car.h"
#include "problems/holonomic/sp_hol_models.h"
#include "problems/nonholonomic/sp_nh_problem.h"
#include "problems/vakonomic/sp_vak_models.h"

typedef struct sp_input_error {
    char path[160];    /* JSON path, e.g. "targets[2].t"; "" for the whole file */
    char message[320]; /* what is wrong (room for the list of every model name) */
} sp_input_error;

typedef enum { SP_TASK_PLAN, SP_TASK_SIMULATE } sp_task;
typedef enum {
    SP_KIND_CUBIC,
    SP_KIND_VAKONOMIC,
    SP_KIND_HOLONOMIC,
    SP_KIND_NONHOLONOMIC,    /* Lobatto IIIA–IIIB on vector spaces (sp_nh_problem.h) */
    SP_KIND_NONHOLONOMIC_LIE, /* its RKMK version on Lie groups */
    SP_KIND_CAR               /* a car among obstacles (sp_car.h): plans only */
} sp_model_kind;
typedef enum { SP_SPACE_SPHERE, SP_SPACE_GROUP } sp_target_space;
/* What a sphere plan minimises ("metric" in the file). SP_SPHERE_ROTATION, the default:
 * ½∫|ξ̇|² of the rotation g that carries y0 (y = g·y0; Burnett, Holm & Meier 2011), which
 * also pays for spinning about the point. SP_SPHERE_ROUND: ½∫|∇ₜẏ|², the Riemannian cubic
 * of the unit sphere itself (Noakes, Heinzinger & Paden 1989). */
typedef enum { SP_SPHERE_ROTATION, SP_SPHERE_ROUND } sp_sphere_metric;

typedef struct sp_cubic_target {
    double t;
    int quaternion; /* the file gave the orientation as a quaternion "q" */
    double x[3];    /* poses (SO3xR3, SE3): the position */
    double y[3];    /* sphere targets */
    double R[SP_LIE_MAX_ELEM]; /* group targets, row-major: a rotation, a point of Rⁿ, or
                                  the 4 x 4 matrix of an SE(3) pose */
} sp_cubic_target;

/* The left-invariant metric a|ω|² + b|v|² of an SE(3) plan (ξ = (ω, v) the body twist):
 * a = rotation, b = translation, both positive; 0 reads as 1 (the unit metric). */
typedef struct sp_se3_metric {
    double rotation, translation;
} sp_se3_metric;

/* A Riemannian cubic on a group, with the targets it should pass near:
 * E_i(g) = |g·y0 − y_i|²/(2σ²) on the sphere, or
 * |g − R_i|²_F/(2σ²) for targets on the group (rotations, points, SE(3) poses). An SE(3)
 * plan in a weighted metric weighs its targets alike, (a|R − R_i|²_F + b|x − x_i|²)/(2σ²),
 * and is solved as a unit-metric plan (planner/cubic/sp_se3_metric.h): the functions below
 * are those of the unit metric. */
typedef struct sp_cubic_spline {
    const sp_group *group;
    sp_target_space space;
    sp_sphere_metric metric; /* sphere plans */
    sp_se3_metric se3_metric; /* SE(3) plans */
    double y0[3];
    double sigma;
    size_t n_targets;
    sp_cubic_target *targets; /* increasing times in (0, T] */
} sp_cubic_spline;

/* E_i(g), its body gradient ∇E_i(g) (d/dε E_i(g exp(εΣ)) = ⟨∇E_i, Σ⟩) and Kᵢᵀv, the
 * transposed Jacobian of that gradient under g → g exp(δ). */
double sp_cubic_target_cost(const sp_cubic_spline *c, size_t i, const double *g);
void sp_cubic_target_gradient(const sp_cubic_spline *c, size_t i, const double *g, double *grad);
void sp_cubic_target_jacobian_T(const sp_cubic_spline *c, size_t i, const double *g, const double *v, double *out);
/* Number of grid segments the targets cut [0, T] into: one per target, plus a last
 * one unless the final target sits at T (to within 1e-9·T, so that a time such as
 * 59·(T/59) that rounds just below T still counts as T). */
size_t sp_cubic_segments(const sp_cubic_spline *c, double T);

/* The grid of a plan of N steps over [0, T], shared by every formulation: step sizes
 * h[N], node times t[N+1], the grid index of every target (target_step[n_targets]) and
 * the target at every node (target_at[N+1], −1 where there is none). Targets at
 * multiples of T/N give a uniform grid; otherwise each segment between targets gets its
 * own even step, steps shared in proportion to its length, and the grid passes exactly
 * through every target time. */
typedef struct sp_plan_grid {
    double *h, *t;
    int *target_step, *target_at;
} sp_plan_grid;
/* SP_ERR_NOMEM leaves nothing to free. */
sp_status sp_plan_grid_init(sp_plan_grid *g, const sp_cubic_spline *c, double T, int N);
/* The grid with segment_steps[i] even steps in segment i (sp_cubic_segments of them,
 * each at least 1), as the automatic resolution of a plan chooses them. */
sp_status sp_plan_grid_init_segments(sp_plan_grid *g, const sp_cubic_spline *c, double T, const int *segment_steps);
/* The steps of a plan, the sum of segment_steps over the sp_cubic_segments (N when
 * segment_steps is NULL), and its grid (sp_plan_grid_init_segments, else sp_plan_grid_init). */
int sp_plan_grid_steps(const sp_cubic_spline *c, double T, int N, const int *segment_steps);
sp_status sp_plan_grid_init_steps(sp_plan_grid *g, const sp_cubic_spline *c, double T, int N, const int *segment_steps);
void sp_plan_grid_free(sp_plan_grid *g);

/* The reached point of target i: g·y0 on the sphere, g itself on the group; and its
 * distance to the target: chordal on S², the rotation angle on SO(3), |x − xᵢ| on Rⁿ,
 * and on SE(3) √(θ² + |x − xᵢ|²) of the rotation angle θ and the positions. */
double sp_cubic_target_distance(const sp_cubic_spline *c, size_t i, const double *g);
/* The angle of the rotation Raᵀ Rb (π where its logarithm is not defined). */
double sp_rotation_angle_between(const double *Ra, const double *Rb);

#define SP_NAME_MAX 48

typedef struct sp_optimizer_settings {
    char algorithm[SP_NAME_MAX];       /* NLopt name, default "LD_LBFGS" */
    char local_algorithm[SP_NAME_MAX]; /* for AUGLAG/MLSL-type algorithms, default "LD_LBFGS" */
    double xtol_rel, xtol_abs, ftol_rel, ftol_abs, stopval, maxtime; /* 0 (or -inf) = unset */
    int maxeval;
    double gtol;             /* "converged" needs |∇J| ≤ gtol·max(1, |J|) at the returned point */
    double bound;            /* box |x_j| ≤ bound handed to algorithms that need one */
    int central_differences; /* gradient by central differences instead of the adjoint */
} sp_optimizer_settings;

/* A problem of a vakonomic model: simulate from (q0, p0), or plan p0 so that the
 * discrete geodesic from q0 reaches q1 at T. */
typedef struct sp_vak_problem {
    const sp_vak_model_type *type;
    sp_param_values params;
    int stages; /* Gauss–Legendre stages, 1…6 */
    double q0[SP_VAK_MAX_N], p0[SP_VAK_MAX_N], q1[SP_VAK_MAX_N];
    int symplecticity_defect; /* report the symplecticity defect (sp_symplecticity.h) */
    double tolerance;         /* plan: endpoint residual asked for */
    int starts;               /* plan: starting points tried at most */
} sp_vak_problem;

/* A simulation of a holonomic model (sp_hol_models.h): the scheme and its settings and
 * the initial state on T*Q. */
typedef struct sp_hol_problem {
    const sp_hol_model_type *type;
    sp_param_values params;
    const sp_hol_scheme *scheme;
    const sp_retraction *retraction; /* lie_rattle */
    sp_feedback_gains gains;         /* feedback_*: k1…k4 (the scales come from the model) */
    double rtol, atol;               /* feedback_dop853 */
    /* the initial state: q0, p0 on T*Q (for the heavy top its matrix form (R0, R0 ω̂0 J_d)) */
    double q0[SP_HOL_MAX_N], p0[SP_HOL_MAX_N];
    double R0[9], omega0[3];           /* heavy top */
    int projected;                     /* "project": true moved the state onto T*Q */
    double projection_q, projection_p; /* by these distances (max-abs) */
    int symplecticity_defect;          /* report the symplecticity defect (sp_symplecticity.h) */
} sp_hol_problem;

/* How a cubic-spline plan is solved: Newton's method on the block-banded optimality
 * system of multiple shooting (the default); NLopt on the direct form over the node
 * velocities, finished by that Newton iteration; or NLopt over the initial momenta alone. */
typedef enum { SP_METHOD_MULTIPLE_SHOOTING, SP_METHOD_DIRECT, SP_METHOD_SINGLE_SHOOTING } sp_plan_method;

/* End conditions and output settings of a cubic-spline plan. */
typedef struct sp_plan_settings {
    sp_plan_method method;
    int xi0_free; /* "xi0": "free": the initial velocity minimises the cost (p_0 = 0) */
    int has_xiT;  /* "xiT" prescribes the final body velocity */
    double xiT[SP_LIE_MAX_DIM];
    double tolerance;      /* scaled optimality residual that counts as converged */
    int max_iterations;    /* Newton iterations per start */
    int block_steps;       /* largest number of steps in one shooting block */
    int quaternion_output; /* "output": {"orientation": "quaternion"} */
    int rotation_format;   /* how the file writes rotations: SP_ROTATION_* flags of problems/problem_readers.h
                              ("quaternion_order", "normalize", "orthonormalize") */
    int quaternion_xyzw;   /* "quaternion_order": "xyzw": every quaternion of the file and of the result is
                              [x, y, z, w]; 0 ("wxyz", the default): [w, x, y, z] */
    int pose;              /* group SO3xR3: keyframes are poses (R, x), planned as an SO(3) plan and an R³
                              plan with ξ = (ω, v) side by side (the product metric separates them) */
    double x0[3];          /* pose plans: the start position */
    /* plans without "steps": the largest distance (rad on SO(3) and S², length on Rⁿ)
     * asked for between the returned curve and the continuous optimum (0: 1e-6) */
    double accuracy;
    /* "output": the curve read at these times (owned), or at sample_rate per unit time */
    int has_sample_times;
    size_t n_sample_times;
    double *sample_times;
    double sample_rate;
} sp_plan_settings;

/* Most steps the automatic resolution gives one segment between keyframes. */
#define SP_PLAN_MAX_SEGMENT_STEPS 4096

/* Most samples one result takes. */
#define SP_PLAN_MAX_SAMPLES 10000000

/* How the implicit steps of the vakonomic and nonholonomic (vector-space) models solve
 * their stage equations, "solver" in their files: full Newton from a plain start at every
 * step (newton), or from the last step's stages extrapolated, by simplified Newton with a
 * kept factorisation (simplified_newton: sp_newton_options.warm_start). The Gauss steps of
 * the vakonomic models also take the fixed-point iteration of their stage equations,
 * handing a step that does not contract to simplified Newton (fixed_point), or the fixed
 * point while it pays and simplified Newton otherwise (auto): sp_index1_solver. */
typedef enum { SP_STAGE_NEWTON, SP_STAGE_SIMPLIFIED_NEWTON, SP_STAGE_FIXED_POINT, SP_STAGE_AUTO } sp_stage_solver;
/* "newton", "simplified_newton", "fixed_point", "auto" in the order above; NULL past the
 * end. */
const char *sp_stage_solver_at(size_t i);

typedef struct sp_problem {
    sp_task task;
    sp_model_kind kind;
    char model[SP_NAME_MAX];
    const sp_hohp_scheme *scheme;
    const sp_retraction *retraction;
    sp_hohp_solver solver;
    sp_stage_solver stage_solver; /* vakonomic and nonholonomic models */
    double solver_tol;
    double T;  /* horizon */
    int steps; /* number of steps over [0, T]; 0 when error_tolerance chooses it */
    /* simulate: the global error at T asked for instead of a step count (0: steps given);
     * the planner picks the fixed step (planner/sp_step_selection.h) */
    double error_tolerance;
    /* trajectory rows every this many steps and the last (plans: and at every keyframe) */
    int record_every;
    /* most steps a run may attempt, an adaptive method's rejected ones included: the
     * resource limit of sp_limits.h (<= 0: no bound) */
    long step_budget;
    /* most bytes a run's trajectory and result may take (sp_limits.h; <= 0: no bound):
     * checked when the file is read, and again for the step count error_tolerance picks */
    double memory_budget;
    sp_cubic_spline cubic;

    /* initial state: g0 (identity unless given), ξ0; for simulate also ν0, p0 */
    double g0[SP_LIE_MAX_ELEM];
    double xi0[SP_LIE_MAX_DIM], nu0[SP_LIE_MAX_DIM], p0[SP_LIE_MAX_DIM];

    /* plan only */
    int has_initial_momenta;
    double initial_momenta[2 * SP_LIE_MAX_DIM]; /* (ν0, p0); p0 for vakonomic models */
    sp_optimizer_settings optimizer;
    sp_plan_settings plan; /* cubic-spline plans */

    sp_vak_problem vak; /* kind SP_KIND_VAKONOMIC; T, steps, solver_tol and optimizer above apply */
    sp_hol_problem hol; /* kind SP_KIND_HOLONOMIC; T, steps and solver_tol above apply */
    sp_nh_problem nh;   /* kinds SP_KIND_NONHOLONOMIC(_LIE); T, steps and solver_tol above apply */
    sp_car_problem car; /* kind SP_KIND_CAR (its obstacles owned; freed by sp_problem_free) */
    /* "model": "custom": the expression model (owned; freed by sp_problem_free), whose
     * family tables hol.type, nh.type or vak.type point to. NULL for built-in models. */
    struct sp_custom_model *custom;
} sp_problem;

/* What every formulation of a cubic plan starts from: the problem's spline with the
 * smoothing sigma (*cubic), the plan's steps (*N, sp_plan_grid_steps) and its grid
 * (sp_plan_grid_init_steps). SP_ERR_NOMEM leaves nothing to free. */
sp_status sp_plan_setup(const sp_problem *pb, double sigma, const int *segment_steps, sp_cubic_spline *cubic, int *N,
                        sp_plan_grid *grid);

/* Largest problem file read (64 MiB). */
#define SP_PROBLEM_FILE_MAX_BYTES (64L << 20)

/* Reads and validates a problem file (read once, whole: a pipe works). On failure
 * returns SP_ERR_INVALID (bad content), SP_ERR_IO (unreadable) or SP_ERR_NOMEM (out of
 * memory) with *err filled; *out then needs no freeing. */
sp_status sp_problem_read_file(const char *path, sp_problem *out, sp_input_error *err);
sp_status sp_problem_parse(const char *text, size_t length, sp_problem *out, sp_input_error *err);
void sp_problem_free(sp_problem *p);

/* The defaults of a problem built by hand, which are also the ones the problem reader
 * starts from (a file overrides what it names): a cubic-spline plan on SO(3) with sphere
 * targets, g0 the identity, scheme hohp_sv, retraction cayley, the Newton solver with
 * solver_tol 1e-15 (full Newton for the stages of vakonomic and nonholonomic models),
 * record_every 1, step_budget the default limit (sp_limits.h); plan
 * settings multiple_shooting, tolerance 1e-10, 100 iterations, blocks of 64 steps; the
 * optimiser's defaults below; vakonomic 2 stages, tolerance 1e-10, 32 starts; holonomic
 * retraction cayley, rtol 1e-6, atol 1e-9 (sp_erk_control_default); nonholonomic 3 stages,
 * retraction cayley. What has no default is left zero: T, steps, the targets, a model's
 * type and parameters, the initial state. A caller that changes cubic.group sets g0 too
 * (G->identity(G, p->g0)). A zero-initialised sp_problem is not a usable problem. */
void sp_problem_defaults(sp_problem *p);
/* LD_LBFGS (locally LD_LBFGS too), xtol_rel 1e-12, ftol_rel 1e-15, gtol 1e-6, maxeval
 * 1000, bound 100, no stopval (-inf); the rest unset (0), gradients by the adjoint. */
void sp_optimizer_defaults(sp_optimizer_settings *o);

/* Sets of kinds and of tasks as flags: SP_KIND_FLAG(SP_KIND_HOLONOMIC) | …,
 * SP_TASK_FLAG(SP_TASK_PLAN) | SP_TASK_FLAG(SP_TASK_SIMULATE). */
#define SP_KIND_FLAG(kind) (1u << (kind))
#define SP_TASK_FLAG(task) (1u << (task))
/* A task's name in a file ("plan", "simulate"); NULL past the last task. */
const char *sp_task_name(size_t task);

/* Models known to the problem reader, family by family. */
typedef struct sp_model_info {
    const char *name, *family;
    unsigned kinds; /* of the problems its files make (SP_KIND_FLAG); 0 when the file names
                       the kind, as an expression model's does */
    unsigned tasks; /* what its files may ask (SP_TASK_FLAG) */
    const char *description;
    char notes[512]; /* what it runs with: schemes, stages, options */
} sp_model_info;
/* Fills *out with the i-th model; 0 past the end. */
int sp_model_info_at(size_t i, sp_model_info *out);

#endif
