#!/usr/bin/python3
"""Writes schema/problem.schema.json, schema/study.schema.json and schema/result.schema.json
(JSON Schema draft 2020-12) from the tables below, which follow the problem reader
(problems/*) and the guides of docs/, and docs/reference.md, the problem-file reference, from the
same tables (schema/reference.py). `generate.py --check` only compares (tests/test_schema.c).

The schemas say what a file may hold: the members of every model and task, their types,
sizes, enumerated names and declared bounds, and the defaults the reader applies. A
member read as optional may be null, which the reader takes as "absent" (the default);
a member whose mere presence the reader checks (p0 against v0, R against q, gains) may
not. What no schema can say is listed in tests/schema_check.py."""
import json
import os
import sys

sys.dont_write_bytecode = True  # (no schema/__pycache__ in the source tree)
import reference  # noqa: E402

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://symplan.invalid/schema/"
MAX_STEPS = 1000000000  # PROBLEM_MAX_STEPS (problems/problem_readers.h)

# ------------------------------------------------------------------ helpers --


def nullable(s):
    """An optional member: null stands for the default."""
    s = dict(s)
    if "enum" in s:
        s["enum"] = s["enum"] + [None]
    elif "const" in s:
        s["enum"] = [s.pop("const"), None]
    elif "type" in s:
        t = s["type"] if isinstance(s["type"], list) else [s["type"]]
        s["type"] = t + ["null"]
    elif "anyOf" in s:
        s["anyOf"] = s["anyOf"] + [{"type": "null"}]
    elif "$ref" in s:
        s = {"anyOf": [{"$ref": s.pop("$ref")}, {"type": "null"}], **s}
    return s


def d(s, description, default=None, has_default=False):
    s = dict(s)
    s["description"] = description
    if default is not None or has_default:
        s["default"] = default
    return s


def number(**bounds):
    return {"type": "number", **bounds}


def positive():
    return {"type": "number", "exclusiveMinimum": 0}


def integer(lo, hi):
    return {"type": "integer", "minimum": lo, "maximum": hi}


def vec(n):
    return {"type": "array", "items": {"type": "number"}, "minItems": n, "maxItems": n}


def ref(name):
    return {"$ref": "#/$defs/" + name}


def names(*xs):
    return {"type": "string", "enum": list(xs)}


def forbid(*keys):
    return [{"not": {"required": [k]}} for k in keys]


def given(key, s):
    """key is present and not null and matches s."""
    return {"required": [key], "properties": {key: {"not": {"type": "null"}, **s}}}


def either(*keys):
    """At least one of the keys present and not null."""
    return {"anyOf": [given(k, {}) for k in keys]}


# ------------------------------------------------------------- the problem --

GROUPS_RN = ["R%d" % n for n in range(1, 7)]
HOHP_SCHEMES = ["hohp_euler", "hohp_sv", "hohp_euler_adjoint"]
RETRACTIONS = ["cayley", "exp"]
# NLopt's names as this NLopt knows them (`symplan list`), less the ones it was built without
NLOPT = """GN_DIRECT GN_DIRECT_L GN_DIRECT_L_RAND GN_DIRECT_NOSCAL GN_DIRECT_L_NOSCAL GN_DIRECT_L_RAND_NOSCAL
GN_ORIG_DIRECT GN_ORIG_DIRECT_L LD_LBFGS LN_PRAXIS LD_VAR1 LD_VAR2 LD_TNEWTON LD_TNEWTON_RESTART
LD_TNEWTON_PRECOND LD_TNEWTON_PRECOND_RESTART GN_CRS2_LM GN_MLSL GD_MLSL GN_MLSL_LDS GD_MLSL_LDS LD_MMA
LN_COBYLA LN_NEWUOA LN_NEWUOA_BOUND LN_NELDERMEAD LN_SBPLX LN_AUGLAG LD_AUGLAG LN_AUGLAG_EQ LD_AUGLAG_EQ
LN_BOBYQA GN_ISRES AUGLAG AUGLAG_EQ G_MLSL G_MLSL_LDS LD_SLSQP LD_CCSAQ GN_ESCH""".split()

HOL_CONSTRAINED = ["se_a", "se_b", "se_ab", "rattle", "shake", "rattle_tj4", "rattle_suzuki5", "rattle_tj6", "rattle_kl8",
                   "rattle_kl10", "lobatto3", "lobatto4", "lobatto5"]
HOL_FEEDBACK = ["feedback_euler", "feedback_rk4", "feedback_dop853"]
HOL_LIE = ["lie_rattle", "lie_rattle_suzuki5", "lie_rattle_kl8"]
HOL_SPLITTING = ["lie_trotter", "strang"]
HOL_EXPLICIT = HOL_FEEDBACK + HOL_SPLITTING

# model: (family, tasks, n, m, parameters [(name, size, lower, lower_open, default)], potentials)
P = lambda name, default, size=1, lower=None, open_=True: (name, size, lower, open_, default)
MODELS = {
    "cubic_spline": ("cubic_spline", ["plan", "simulate"], None, None, [], None),
    "heisenberg": ("vakonomic", ["plan", "simulate"], 3, 1, [], ["none"]),
    "parking": ("vakonomic", ["plan", "simulate"], 4, 2,
                [P("L", 0.3, lower=0), P("alpha", 1.0, lower=0), P("beta", 1.0, lower=0)], ["none", "cos_bowl"]),
    "spherical_pendulum": ("holonomic", ["simulate"], 3, 1,
                           [P("m", 1.0, lower=0), P("g", 1.0), P("l", 1.0, lower=0)], ["gravity"]),
    "planar_pendulum": ("holonomic", ["simulate"], 2, 1,
                        [P("m", 1.0, lower=0), P("g", 1.0), P("l", 1.0, lower=0)], ["gravity"]),
    "heavy_top": ("holonomic", ["simulate"], 9, 6,
                  [P("J", [2.0, 3.0, 4.0], 3, lower=0), P("mgl", 1.0), P("chi", [0.3, 0.2, 1.0], 3)], ["gravity"]),
    "s3_contact": ("holonomic", ["simulate"], 4, 2, [P("c1", 0.5), P("c4", 0.1)], ["tilted", "hopf_invariant"]),
    "knife_edge": ("nonholonomic", ["simulate"], 3, 1,
                   [P("m", 1.0, lower=0), P("J", 1.0, lower=0), P("g_sin_alpha", 1.0)], None),
    "rolling_disk": ("nonholonomic", ["simulate"], 4, 2,
                     [P("R", 1.0, lower=0), P("m", 1.0, lower=0), P("I_flip", 1.0, lower=0),
                      P("I_roll", 1.0, lower=0)], None),
    "contact_oscillator": ("nonholonomic", ["simulate"], 3, 1, [P("eps", 0.5, lower=0, open_=False)], None),
    "chaplygin_sleigh": ("nonholonomic", ["simulate"], 3, 1,
                         [P("m", 1.0, lower=0), P("a", 0.5), P("I", 0.3, lower=0)], None),
    "sleigh_se2": ("nonholonomic_lie", ["simulate"], 3, 1,
                   [P("m", 1.0, lower=0), P("a", 0.5), P("I", 0.3, lower=0), P("slope", 0.0)], None),
    "suslov": ("nonholonomic_lie", ["simulate"], 3, 1,
               [P("J", [1.0, 2.0, 3.5], 3, lower=0), P("e", [0.3, 0.5, 0.8], 3)], None),
    "car": ("car", ["plan"], None, None, [], None),
}
HOL_SCHEMES = {
    "spherical_pendulum": HOL_CONSTRAINED + HOL_FEEDBACK + HOL_SPLITTING,
    "planar_pendulum": HOL_CONSTRAINED + HOL_FEEDBACK,
    "heavy_top": HOL_CONSTRAINED + HOL_LIE,
    "s3_contact": ["prop7"],
}


def params_schema(model):
    _, _, _, _, params, potentials = MODELS[model]
    props = {}
    for name, size, lower, open_, default in params:
        bound = {} if lower is None else {("exclusiveMinimum" if open_ else "minimum"): lower}
        if size == 1:
            s = number(**bound)
        else:
            s = vec(size)
            s["items"] = number(**bound)
        props[name] = nullable(d(s, "parameter %s of %s%s" % (
            name, model, "" if not bound else " (%s %g)" % ("above" if open_ else "at least", lower)), default))
    if potentials:
        props["potential"] = nullable(d(names(*potentials), "the potential: " + ", ".join(potentials),
                                        potentials[0]))
    s = {"type": "object", "additionalProperties": False, "properties": props}
    if model == "suslov":  # problems/nonholonomic/nh_problem.c: e must not be the zero vector
        props["e"]["not"] = {"type": "array", "items": {"const": 0}}
    if model == "s3_contact":  # problems/holonomic/hol_models.c s3_check
        s["if"] = given("potential", {"const": "hopf_invariant"})
        s["then"] = {"properties": {"c4": {"type": "null"}}}
    return nullable(d(s, "the model's parameters; absent ones take their defaults", {}))


def common(model, task):
    return {
        "task": d({"const": task}, "what to do: plan (an optimal path) or simulate (an initial value problem)"),
        "model": d({"const": model}, "the model (`symplan list`)"),
        "description": nullable(d({"type": "string"}, "free text, kept with the file")),
    }


STEPS = d(integer(1, MAX_STEPS), "number of steps (the resource limit --max-steps, 10^7 by default, applies too)")
T = nullable(d(positive(), "horizon T (give T or h; both must agree with T = h * steps)"))
H = nullable(d(positive(), "step h (give h or T; both must agree with T = h * steps)"))
RECORD_EVERY = nullable(d(integer(1, MAX_STEPS),
                          "trajectory rows every k steps (and the last); the diagnostics still cover every step", 1))
SOLVER_TOL = nullable(d(number(exclusiveMinimum=0, exclusiveMaximum=1e-2),
                        "tolerance of the implicit solve (Newton), below 1e-2", 1e-15))
HORIZON = either("T", "h")
ERROR_TOLERANCE = nullable(d(number(minimum=1e-13),
                             "simulate, fixed-step schemes: the global error at T (max-abs over q and p) asked for "
                             "instead of steps; the planner picks one step h = T/N for the whole run by Richardson "
                             "extrapolation over trial runs of N and 2N steps (give T, not steps or h)"))
# The length of a simulation: steps with T or h, or error_tolerance with T alone
# (read_steps and read_horizon, problems/problem_readers.c).
RUN_LENGTH = {"allOf": [{"if": given("error_tolerance", {}),
                         "then": {"allOf": [given("T", {})] + forbid("steps", "h")},
                         "else": {"required": ["steps"], **HORIZON}}]}


def optimizer_schema():
    props = {
        "algorithm": nullable(d(names(*NLOPT), "NLopt algorithm (`symplan list`), derivative-free ones too",
                                "LD_LBFGS")),
        "local_algorithm": nullable(d(names(*NLOPT), "the local algorithm of MLSL and AUGLAG", "LD_LBFGS")),
        "xtol_rel": nullable(d(number(minimum=0), "NLopt's relative tolerance on x", 1e-12)),
        "xtol_abs": nullable(d(number(minimum=0), "NLopt's absolute tolerance on x")),
        "ftol_rel": nullable(d(number(minimum=0), "NLopt's relative tolerance on the cost", 1e-15)),
        "ftol_abs": nullable(d(number(minimum=0), "NLopt's absolute tolerance on the cost")),
        "stopval": nullable(d(number(), "stop once the cost is below this value")),
        "maxeval": nullable(d(integer(1, 100000000), "evaluation limit, kept exactly (the resource limit "
                                                     "--max-evaluations, 10^6 by default, applies too)", 1000)),
        "maxtime": nullable(d(positive(), "time limit in seconds")),
        "bound": nullable(d(positive(), "box |x_j| <= bound for global algorithms (G*, MLSL)", 100)),
        "gradient": nullable(d(names("adjoint", "central_difference"),
                               "adjoint, or central_difference for comparison", "adjoint")),
        "gtol": nullable(d(positive(), "single shooting: converged requires |grad J| <= gtol max(1, |J|)", 1e-6)),
    }
    return nullable(d({"type": "object", "additionalProperties": False, "properties": props},
                      "the NLopt optimiser; null or absent: the defaults"))


def target_schema(kind, n=3):
    t = d(number(exclusiveMinimum=0), "time of the keyframe, in (0, T], later than the one before")
    if kind == "sphere":
        props, req, extra = {"y": d(vec(3), "a direction (any non-zero vector, normalised)")}, ["y"], {}
    elif kind == "point":
        props, req, extra = {"x": d(vec(n), "a point of R%d" % n)}, ["x"], {}
    else:
        props = {"R": d(ref("rotation"), "the orientation as a 3 x 3 rotation matrix (or a quaternion)"),
                 "q": d(ref("quaternion"), "the orientation as a unit quaternion [w, x, y, z] (or [x, y, z, w]: "
                                           "quaternion_order)")}
        req, extra = [], {"oneOf": [{"required": ["R"]}, {"required": ["q"]}]}
        if kind == "pose":
            props["x"] = d(vec(3), "the position")
            req = ["x"]
    return {"type": "object", "additionalProperties": False, "required": ["t"] + req,
            "properties": {"t": t, **props}, **extra}


SPHERE_METRIC = names("rotation", "round")
SE3_METRIC = {"type": "object", "additionalProperties": False, "properties": {
    "rotation": d(positive(), "a, the weight of |omega|^2 (and of the orientations' misses)", 1),
    "translation": d(positive(), "b, the weight of |v|^2 (and of the positions' misses); within 1e-12 to 1e12 "
                                 "times rotation", 1)}}


def cubic(task):
    plan = task == "plan"
    props = common("cubic_spline", task)
    props.update({
        "group": nullable(d(names("SO3", *GROUPS_RN, *(["SO3xR3", "SE3"] if plan else [])),
                            "the Lie group: SO3 or R1...R6" +
                            (", or poses: SE3 (screw-coupled, least trivialised acceleration in the "
                             "left-invariant metric a |omega|^2 + b |v|^2: metric) or SO3xR3 (orientation and "
                             "position planned apart)" if plan else "") +
                            "; SE2" + ("" if plan else " and SE3") + " (no bi-invariant metric) are refused", "SO3")),
        "scheme": nullable(d(names(*HOHP_SCHEMES, "hohp_rkmk8"),
                             "HOHP integrator (hohp_rkmk8: the continuous equations at order 8; plans only)",
                             "hohp_sv; hohp_rkmk8 for plans without steps")),
        "retraction": nullable(d(names(*RETRACTIONS), "retraction of the group", "cayley")),
        "solver": nullable(d(names("newton", "fixed_point"), "implicit step", "newton")),
        "solver_tol": SOLVER_TOL,
        "steps": STEPS,
        "g0": nullable(d({"anyOf": [ref("rotation"), {"type": "array", "items": {"type": "number"},
                                                       "minItems": 1, "maxItems": 6}]},
                         "start configuration: a rotation (matrix or quaternion) on SO3, a point of Rn")),
        "record_every": RECORD_EVERY,
        "T": d(positive(), "horizon") if plan else T,
    })
    all_of = []
    if not plan:
        props.update({
            "xi0": d({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 6},
                     "initial body velocity"),
            "p0": d({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 6}, "initial p"),
            "nu0": d({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 6}, "initial nu"),
            "h": H,
            "scheme": nullable(d(names(*HOHP_SCHEMES), "HOHP integrator", "hohp_sv")),
        })
        required = ["task", "model", "steps", "xi0", "p0", "nu0"]
        all_of.append(HORIZON)
        for g in ["SO3"] + GROUPS_RN:
            n = 3 if g == "SO3" else int(g[1:])
            cond = given("group", {"const": g}) if g != "SO3" else \
                {"anyOf": [{"not": {"required": ["group"]}}, {"properties": {"group": {"enum": ["SO3", None]}}}]}
            then = {"properties": {k: vec(n) for k in ("xi0", "p0", "nu0")}}
            if g != "SO3":
                then["properties"]["g0"] = nullable(vec(n))
            else:
                then["properties"]["g0"] = nullable(ref("rotation"))
            all_of.append({"if": cond, "then": then})
    else:
        props.update({
            "space": nullable(d(names("sphere", "group"),
                                "sphere: targets {t, y} and the curve g y0; group: targets on the group itself",
                                "sphere on SO3, else group")),
            "y0": d(vec(3), "start point on the sphere (any non-zero vector)"),
            "metric": nullable(d({"anyOf": [SPHERE_METRIC, SE3_METRIC]},
                                 "sphere plans: rotation (1/2 int |d xi/dt|^2 of the rotation g carrying y0, spin "
                                 "about the point included) or round (1/2 int |D/dt y'|^2, the Riemannian cubic of "
                                 "the unit sphere: exact or weighted keyframes, the last one at T or before it, the "
                                 "grid chosen or steps, xiT only [0, 0, 0]); SE3 plans: the weights {rotation: a, "
                                 "translation: b} of the "
                                 "left-invariant metric a |omega|^2 + b |v|^2, which weigh the keyframes' misses "
                                 "alike, (a |R - R_i|^2 + b |x - x_i|^2)/(2 sigma^2)",
                                 "rotation; SE3: 1 and 1")),
            "x0": nullable(d(vec(3), "start position of a pose plan (SE3 or SO3xR3)", [0, 0, 0])),
            "xi0": d({"anyOf": [{"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 6},
                                {"const": "free"}]},
                     "initial body velocity (omega, then v for poses), or \"free\": the velocity that "
                     "minimises the cost"),
            "xiT": nullable(d({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 6},
                              "final body velocity, prescribed; without it the end is natural")),
            "sigma": d(number(minimum=0), "target weight sigma; 0: exact interpolation"),
            "targets": d({"type": "array", "minItems": 1, "items": {"type": "object"}},
                         "keyframes at increasing times in (0, T] (the resource limit --max-targets, 10^4 by "
                         "default, applies too)"),
            "method": nullable(d(names("multiple_shooting", "direct", "single_shooting"),
                                 "multiple_shooting (Newton on the whole optimality system), direct (NLopt on the "
                                 "velocity sequence, then Newton), single_shooting (NLopt on the initial momenta)",
                                 "multiple_shooting; direct when the file has an optimizer block")),
            "tolerance": nullable(d(positive(), "scaled optimality residual that counts as converged", 1e-10)),
            "max_iterations": nullable(d(integer(1, 1000000), "Newton iterations per start", 100)),
            "block_steps": nullable(d(integer(1, MAX_STEPS), "longest shooting block", 64)),
            "output": nullable(d({"type": "object", "additionalProperties": False, "properties": {
                "orientation": nullable(d(names("matrix", "quaternion"), "orientations in the result", "matrix")),
                "sample_times": nullable(d({"type": "array", "items": number(minimum=0)},
                                           "read the curve at these times in [0, T] (result: samples)")),
                "sample_rate": nullable(d(positive(), "read the curve at this many times per unit time from 0, "
                                                      "T included (result: samples; at most 10^7 samples)"))},
                "not": {"required": ["sample_times", "sample_rate"]}},
                "what the result writes")),
            "accuracy": nullable(d(number(minimum=1e-13), "plans without steps: largest distance (rad, or length "
                                               "on R^n) between the returned curve and the continuous optimum",
                                   1e-6)),
            "quaternion_order": nullable(d(names("wxyz", "xyzw"),
                                           "plans of orientations (space group on SO3, SE3 or SO3xR3): every quaternion "
                                           "of the file (g0, the targets) and of the result is [w, x, y, z] (wxyz) or "
                                           "[x, y, z, w] (xyzw)", "wxyz")),
            "normalize": nullable(d({"type": "boolean"},
                                    "plans of orientations: take any non-zero quaternion of the file as its direction "
                                    "(without it a quaternion must have a norm within 1e-2 of 1, which two typed "
                                    "decimals keep)", False)),
            "orthonormalize": nullable(d({"type": "boolean"},
                                         "plans of orientations: take any matrix of positive determinant as the nearest "
                                         "rotation, its polar factor (without it a matrix must satisfy |R^T R - I| <= "
                                         "1e-4, which five printed digits keep)", False)),
            "initial_momenta": nullable(d({"type": "array", "items": {"type": "number"}, "minItems": 2,
                                           "maxItems": 12}, "single shooting: starting guess (nu0, p0)")),
            "optimizer": ref("optimizer"),
        })
        required = ["task", "model", "T", "sigma", "targets", "xi0"]
        so3 = {"anyOf": [{"not": {"required": ["group"]}}, {"properties": {"group": {"enum": ["SO3", None]}}}]}
        sphere = {"anyOf": [{"not": {"required": ["space"]}}, {"properties": {"space": {"enum": ["sphere", None]}}}]}
        dim_props = lambda n, g0: {"xi0": {"anyOf": [vec(n), {"const": "free"}]}, "xiT": nullable(vec(n)),
                                   "g0": g0, "initial_momenta": nullable(vec(2 * n))}
        # SO3: sphere targets (the default) or rotations
        all_of.append({"if": so3, "then": {
            "properties": dim_props(3, nullable(ref("rotation"))), "allOf": forbid("x0") + [{
                "if": sphere,
                "then": {"required": ["y0"], "properties": {"targets": {"items": target_schema("sphere")},
                                                            "metric": nullable(SPHERE_METRIC)},
                         "allOf": forbid("quaternion_order", "normalize", "orthonormalize")},
                "else": {"allOf": forbid("y0", "metric"),
                         "properties": {"targets": {"items": target_schema("rotation")}}}}]}})
        for g in GROUPS_RN:
            n = int(g[1:])
            all_of.append({"if": given("group", {"const": g}), "then": {
                "properties": {**dim_props(n, nullable(vec(n))), "space": nullable({"const": "group"}),
                               "targets": {"items": target_schema("point", n)}},
                "allOf": forbid("x0", "y0", "quaternion_order", "normalize", "orthonormalize", "metric")}})
        all_of.append({"if": given("group", {"enum": ["SO3xR3", "SE3"]}), "then": {
            "properties": {**dim_props(6, nullable(ref("rotation"))), "space": nullable({"const": "group"}),
                           "targets": {"items": target_schema("pose")}},
            "allOf": forbid("y0")}})
        all_of.append({"if": given("group", {"const": "SO3xR3"}), "then": {"allOf": forbid("metric")}})
        # (cubic_problem_file.c read_se3_metric; single shooting takes the unit metric only)
        all_of.append({"if": given("group", {"const": "SE3"}), "then": {
            "properties": {"metric": nullable(SE3_METRIC)},
            "if": given("method", {"const": "single_shooting"}),
            "then": {"properties": {"metric": {"properties": {"rotation": {"const": 1},
                                                               "translation": {"const": 1}}}}}}})
        # the round metric: its own order-8 scheme, multiple shooting, rest or a natural end at T
        # (cubic_problem_file.c read_sphere_metric)
        all_of.append({"if": given("metric", {"const": "round"}), "then": {
            "properties": {"xiT": nullable({"type": "array", "items": {"const": 0}}),
                           "method": nullable({"const": "multiple_shooting"}),
                           "scheme": nullable({"const": "hohp_rkmk8"})}}})
        # the methods (problems/cubic/cubic_problem_file.c read_plan_settings)
        single = given("method", {"const": "single_shooting"})
        direct = {"anyOf": [given("method", {"const": "direct"}),
                            {"allOf": [{"required": ["optimizer"]},
                                       {"anyOf": [{"not": {"required": ["method"]}},
                                                  {"properties": {"method": {"type": "null"}}}]}]}]}
        all_of.append({"if": single, "then": {
            "required": ["steps"],
            "properties": {"sigma": {"exclusiveMinimum": 0}, "xi0": {"not": {"const": "free"}},
                           "group": {"not": {"const": "SO3xR3"}}},
            "allOf": forbid("xiT", "tolerance", "max_iterations", "block_steps")},
            "else": {"allOf": forbid("initial_momenta")}})
        all_of.append({"if": given("steps", {}), "then": {"allOf": forbid("accuracy")}})
        all_of.append({"if": direct, "then": {"required": ["steps"], "properties": {"sigma": {"exclusiveMinimum": 0}}}})
    s = {"type": "object", "additionalProperties": False, "required": required, "properties": props}
    if all_of:
        s["allOf"] = all_of
    return s


def vakonomic(model, task):
    _, _, n, m, _, _ = MODELS[model]
    props = common(model, task)
    props.update({
        "params": params_schema(model),
        "q0": d(vec(n), "initial configuration"),
        "scheme": nullable(d(names("gauss"), "Gauss-Legendre Runge-Kutta", "gauss")),
        "stages": nullable(d(integer(1, 6), "stages s (order 2s)", 2)),
        "steps": STEPS,
        "solver": GAUSS_STAGE_SOLVER,
        "solver_tol": SOLVER_TOL,
        "record_every": RECORD_EVERY,
    })
    if task == "simulate":
        props.update({
            "p0": d(vec(n), "initial momentum (or v0 and lambda0)"),
            "v0": d(vec(n), "initial velocity, with lambda0: p = M v - G^T lambda; must satisfy the constraints"),
            "lambda0": d(vec(m), "initial multiplier, with v0"),
            "h": H, "T": T, "error_tolerance": ERROR_TOLERANCE,
            "symplecticity_defect": nullable(d({"type": "boolean"}, "report the symplecticity defect of one step",
                                               False)),
        })
        extra = {"allOf": [RUN_LENGTH, {"oneOf": [
            {"required": ["p0"], "allOf": forbid("v0", "lambda0")},
            {"required": ["v0", "lambda0"], "allOf": forbid("p0")}]}]}
        required = ["task", "model", "q0"]
    else:
        props.update({
            "q1": d(vec(n), "the configuration to reach at T"),
            "T": d(positive(), "horizon"),
            "initial_momenta": nullable(d(vec(n), "starting guess of p0")),
            "optimizer": ref("optimizer"),
            "tolerance": nullable(d(positive(), "distance to q1 that counts as reached", 1e-10)),
            "starts": nullable(d(integer(1, 10000), "starts of the endpoint search (starts x optimizer.maxeval "
                                                    "within --max-evaluations)", 32)),
        })
        extra = {}
        required = ["task", "model", "q0", "q1", "T", "steps"]
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props, **extra}


def scheme_in(schemes):
    return given("scheme", {"enum": schemes})


def holonomic(model):
    _, _, n, _, _, _ = MODELS[model]
    schemes = HOL_SCHEMES[model]
    default = "prop7" if model == "s3_contact" else "rattle"
    props = common(model, "simulate")
    gains = {k: nullable(d(number(minimum=0), "feedback gain %s (absent: 0)" % k, 0)) for k in ("k1", "k2", "k3")}
    gains["k4"] = nullable(d(number(minimum=0), "feedback gain k4 on L3 (absent: 0)", 0)) \
        if model == "spherical_pendulum" else d({"type": "null"}, "k4 is for the spherical pendulum's L3 only")
    props.update({
        "params": params_schema(model),
        "scheme": nullable(d(names(*schemes), "the integrator (`symplan list`)", default)),
        "retraction": nullable(d(names(*RETRACTIONS), "lie_rattle only: the retraction", "cayley")),
        "solver_tol": d(SOLVER_TOL, "implicit schemes only: tolerance of the Newton solve, below 1e-2", 1e-15),
        "gains": d({"type": "object", "additionalProperties": False, "properties": gains},
                   "feedback schemes only (required there): {k1, k2, k3, k4}; {} is the Dirac field without "
                   "feedback"),
        "rtol": nullable(d(positive(), "feedback_dop853 only: relative error tolerance", 1e-6)),
        "atol": nullable(d(positive(), "feedback_dop853 only: absolute error tolerance", 1e-9)),
        "h": H, "T": T, "steps": STEPS, "error_tolerance": ERROR_TOLERANCE, "record_every": RECORD_EVERY,
        "symplecticity_defect": nullable(d({"type": "boolean"}, "report the symplecticity defect of one step "
                                                                "(not for shake, a two-step method)", False)),
    })
    required = ["task", "model"]
    if model == "heavy_top":
        props["R0"] = d(ref("rotation"), "initial attitude (a rotation, rounded onto SO(3))")
        props["omega0"] = d(vec(3), "initial body angular velocity")
        required += ["R0", "omega0"]
    else:
        props["q0"] = d(vec(n), "initial position, on the constraint to 1e-9 (relative)")
        props["p0"] = d(vec(n), "initial momentum, tangent to the constraint to 1e-9 (relative)")
        props["project"] = nullable(d({"type": "boolean"}, "project an initial state off T*Q onto it", False))
        required += ["q0", "p0"]
    rules = [RUN_LENGTH,
             {"if": scheme_in(HOL_FEEDBACK), "then": {"required": ["gains"]}, "else": {"allOf": forbid("gains")}},
             {"if": scheme_in(["feedback_dop853"]), "then": {"allOf": forbid("error_tolerance")},
              "else": {"allOf": forbid("rtol", "atol")}},
             {"if": scheme_in(HOL_LIE), "else": {"allOf": forbid("retraction")}},
             {"if": scheme_in(HOL_EXPLICIT), "then": {"allOf": forbid("solver_tol")}},
             {"if": scheme_in(["shake"]), "then": {"properties": {"symplecticity_defect": {"not": {"const": True}}}}}]
    rules = [r for r in rules if "if" not in r or set(r["if"]["properties"]["scheme"]["enum"]) & set(schemes)
             or "else" in r]
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props,
            "allOf": rules}


STAGE_SOLVER = nullable(d(names("newton", "simplified_newton"),
                          "the stage equations: full Newton from a plain start every step, or from the last "
                          "step's stages extrapolated by simplified Newton with a kept factorization", "newton"))
GAUSS_STAGE_SOLVER = nullable(d(names("newton", "simplified_newton", "fixed_point", "auto"),
                                "the stage equations: full Newton from a plain start every step; from the last "
                                "step's stage derivatives extrapolated, by simplified Newton with a kept "
                                "factorization, by fixed-point iteration (simplified Newton where it does not "
                                "contract), or by the fixed point while it pays (auto)", "newton"))


def nonholonomic(model):
    family, _, n, _, _, _ = MODELS[model]
    lie = family == "nonholonomic_lie"
    props = common(model, "simulate")
    props.update({
        "params": params_schema(model),
        "scheme": nullable(d(names("lobatto"), "Lobatto IIIA-IIIB", "lobatto")),
        "stages": nullable(d(integer(2, 4 if lie else 6), "stages s (order 2s - 2)", 3)),
        "lambda1": nullable(d(names("carry", "recompute"), "the first stage multiplier",
                              "recompute" if lie else "carry")),
        "solver_tol": SOLVER_TOL,
        "h": H, "T": T, "steps": STEPS, "error_tolerance": ERROR_TOLERANCE, "record_every": RECORD_EVERY,
    })
    if lie:
        g0 = ref("rotation") if model == "suslov" else {"anyOf": [vec(3), ref("matrix3")]}
        props.update({
            "g0": nullable(d(g0, "initial element: a rotation (matrix or quaternion)" if model == "suslov" else
                             "initial element of SE(2): [x, y, theta] or a 3 x 3 matrix", "identity")),
            "mu0": d(vec(3), "initial body momentum (or xi0)"),
            "xi0": d(vec(3), "initial body velocity (or mu0)"),
            "retraction": nullable(d(names(*RETRACTIONS), "the retraction", "cayley")),
        })
        one = {"oneOf": [{"required": ["mu0"]}, {"required": ["xi0"]}]}
    else:
        props.update({
            "q0": d(vec(n), "initial configuration"),
            "solver": STAGE_SOLVER,
            "p0": d(vec(n), "initial momentum (or v0), satisfying the constraint to 1e-9"),
            "v0": d(vec(n), "initial velocity (or p0): p0 = M(q0) v0"),
        })
        one = {"oneOf": [{"required": ["p0"]}, {"required": ["v0"]}]}
    required = ["task", "model"] + ([] if lie else ["q0"])
    return {"type": "object", "additionalProperties": False, "required": required, "properties": props,
            "allOf": [RUN_LENGTH, one]}


CUSTOM_KINDS = {"holonomic": ["simulate"], "nonholonomic": ["simulate"], "vakonomic": ["plan", "simulate"]}


def custom(kind, task):
    """An expression model (problems/custom/custom_problem_file.c): the family's fields with
    vectors of the model's size, and the model itself written as expressions."""
    base = {"holonomic": lambda: holonomic("spherical_pendulum"),
            "nonholonomic": lambda: nonholonomic("knife_edge"),
            "vakonomic": lambda: vakonomic("heisenberg", task)}[kind]()
    props = base["properties"]
    vector = {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 12}
    for key in ("q0", "p0", "v0", "q1", "initial_momenta", "lambda0"):
        if key in props:
            props[key] = dict(props[key], **{k: v for k, v in vector.items() if k != "type"})
    expr = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "number"}],
            "description": "an expression over the coordinates and parameters (a string), or a number"}
    name = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}
    rows = {"type": "array", "minItems": 1, "maxItems": 6, "items": {"type": "array", "items": expr}}
    props.update({
        "model": d({"const": "custom"}, "a model written in the file"),
        "kind": d({"const": kind}, "the kind of model: holonomic, nonholonomic or vakonomic"),
        "coordinates": d({"type": "array", "minItems": 2, "maxItems": 12, "items": name},
                         "the names of the configuration coordinates; their momenta are p_<name>"),
        "params": d({"type": "object", "propertyNames": name, "additionalProperties": {"type": "number"}},
                    "named parameters (numbers) the expressions may use"),
        "mass": d({"type": "array", "items": expr} if kind != "nonholonomic" else
                  {"type": "array", "items": {"anyOf": [expr, {"type": "array", "items": expr}]}},
                  "the mass matrix: its diagonal (n entries), or for nonholonomic models n rows of n, which may "
                  "depend on q; absent: the identity"),
        "potential": d(expr, "the potential V(q); absent: 0"),
        "constraints": d({"type": "array", "minItems": 1, "maxItems": 6, "items": expr} if kind == "holonomic"
                         else rows, "holonomic: the constraint functions g(q) = 0; nonholonomic and vakonomic: "
                                    "the rows of the velocity constraints (n entries each)"),
        "integrals": d({"type": "object", "propertyNames": name, "additionalProperties": expr},
                       "declared first integrals: expressions in q, p_<q> and the parameters, reported as "
                       "<name>_drift"),
    })
    if kind == "holonomic":
        props["scheme"] = nullable(d(names(*HOL_CONSTRAINED), "the integrator (`symplan list`)", "rattle"))
        for key in ("gains", "rtol", "atol", "retraction"):
            props.pop(key, None)
        base["allOf"] = [r for r in base.get("allOf", []) if "if" not in r or set(r["if"]["properties"]["scheme"]
                                                                                 ["enum"]) <= set(HOL_CONSTRAINED)]
        base["allOf"] = [RUN_LENGTH, {"if": scheme_in(["shake"]), "then": {
            "properties": {"symplecticity_defect": {"not": {"const": True}}}}}]
    base["required"] = sorted(set(base["required"]) | {"kind", "coordinates", "constraints", "q0"})
    return base


def car():
    """The car among obstacles (problems/car/car_problem_file.c). vehicle, obstacles,
    search and smoothing may not be null (the reader looks at the member itself); the rest may."""
    props = common("car", "plan")
    size = lambda what: d(positive(), what + ", m")
    props.update({
        "vehicle": d({"type": "object", "additionalProperties": False,
                      "required": ["wheelbase", "front_overhang", "rear_overhang", "width", "max_steering"],
                      "properties": {
                          "wheelbase": size("rear axle to front axle"),
                          "front_overhang": size("front axle to the front of the body"),
                          "rear_overhang": size("rear of the body to the rear axle"),
                          "width": size("width of the body"),
                          "max_steering": d(number(exclusiveMinimum=0, exclusiveMaximum=1.5707963267948966),
                                            "largest steering angle |delta|, rad, below pi/2"),
                          "max_steering_rate": nullable(d(positive(), "largest steering rate |delta'|, rad/s, kept "
                                                                      "by the smoothing; absent: no bound"))}},
                     "the car: a kinematic bicycle about the rear-axle midpoint, its footprint the rectangle from "
                     "-rear_overhang to wheelbase + front_overhang along the heading, +-width/2 across"),
        "start": d(vec(3), "the starting pose [x, y, theta] of the rear-axle midpoint (its footprint inside the "
                           "bounds and at least the clearance from every obstacle)"),
        "goal": d(vec(3), "the pose [x, y, theta] to reach, as for start"),
        "obstacles": d({"type": "array", "items": {"type": "array", "minItems": 3, "items": vec(2)}},
                       "polygons [[x, y], ...], convex or not, at least 3 vertices each", []),
        "clearance": nullable(d(number(minimum=0), "least distance kept between footprint and obstacles (and the "
                                                   "bounds), m", 0.05)),
        "bounds": nullable(d(vec(4), "[xmin, ymin, xmax, ymax] the footprint stays in (xmin < xmax, ymin < ymax); "
                                     "absent: the box around everything, widened by two turning radii and a car "
                                     "length")),
        "travel_weight": nullable(d(positive(), "w_v in the energy integral of (w_v v^2 + w_s delta'^2) dt", 1.0)),
        "steering_weight": nullable(d(positive(), "w_s in the energy", 1.0)),
        "gear_change_cost": nullable(d(number(minimum=0), "added to the energy per gear change", 0.0)),
        "speed": nullable(d(positive(), "nominal speed timing the path: T = route length / speed (plus the route's steering changes at max_steering_rate when given), m/s", 1.0)),
        "tolerance": nullable(d(positive(), "the smoothing's KKT residual that counts as converged", 1e-6)),
        "smooth": nullable(d({"type": "boolean"}, "false: return the route itself (stalled)", True)),
        "search": d({"type": "object", "additionalProperties": False, "properties": {
            "max_nodes": nullable(d(integer(1, 100000000), "nodes the route search may expand", 300000)),
            "max_seconds": nullable(d(positive(), "processor seconds the route search may take; the smoothing "
                                                  "gets what the route left of this + 1.5, less 0.05 for the result (2 to this)", 8.0))}},
                    "the budget of the route search (hybrid A*)"),
        "smoothing": d({"type": "object", "additionalProperties": False, "properties": {
            "max_evaluations": nullable(d(integer(1, 100000000), "evaluations of the energy over all the smoothing's "
                                                                  "solves", 20000)),
            "max_unknowns": nullable(d(integer(1, 100000000), "larger transcriptions are not smoothed (the route "
                                                               "stands)", 5000))}},
                       "the work budget of the smoothing"),
    })
    return {"type": "object", "additionalProperties": False, "required": ["task", "model", "vehicle", "start", "goal"],
            "properties": props}


def problem_schema():
    defs = {
        "matrix3": {"description": "a 3 x 3 matrix as three rows", "type": "array", "minItems": 3, "maxItems": 3,
                    "items": vec(3)},
        "quaternion": {"description": "a non-zero quaternion [w, x, y, z], or [x, y, z, w] in a plan with "
                                      "\"quaternion_order\": \"xyzw\" (normalised; q and -q are one orientation)",
                       **vec(4)},
        "rotation": {"description": "a rotation: a 3 x 3 matrix with |R^T R - I| <= 1e-6 and det R > 0 (rounded "
                                    "onto SO(3)), or a quaternion (see quaternion)",
                     "anyOf": [ref("matrix3"), ref("quaternion")]},
        "optimizer": optimizer_schema(),
    }
    branches = []
    for model, (family, tasks, _, _, _, _) in MODELS.items():
        for task in tasks:
            key = "%s_%s" % (model, task)
            if family == "cubic_spline":
                defs[key] = cubic(task)
            elif family == "vakonomic":
                defs[key] = vakonomic(model, task)
            elif family == "holonomic":
                defs[key] = holonomic(model)
            elif family == "car":
                defs[key] = car()
            else:
                defs[key] = nonholonomic(model)
            defs[key]["description"] = "%s %s (%s)" % (model, task, family.replace("_lie", " on a Lie group"))
            branches.append({"if": {"required": ["model", "task"], "properties": {
                "model": {"const": model}, "task": {"const": task}}}, "then": ref(key)})
    for kind, tasks in CUSTOM_KINDS.items():
        for task in tasks:
            key = "custom_%s_%s" % (kind, task)
            defs[key] = custom(kind, task)
            defs[key]["description"] = "custom %s %s (an expression model)" % (kind, task)
            branches.append({"if": {"required": ["model", "kind", "task"], "properties": {
                "model": {"const": "custom"}, "kind": {"const": kind}, "task": {"const": task}}},
                "then": ref(key)})
    branches.append({"if": {"required": ["model"], "properties": {"model": {"const": "custom"}}},
                     "then": {"required": ["kind"], "properties": {"kind": names(*CUSTOM_KINDS)},
                              "if": {"required": ["task"], "properties": {"task": {"const": "plan"}}},
                              "then": {"properties": {"kind": {"const": "vakonomic"}}}}})
    simulate_only = [m for m, v in MODELS.items() if v[1] == ["simulate"]]
    branches.append({"if": {"required": ["model"], "properties": {"model": {"enum": simulate_only}}},
                     "then": {"properties": {"task": {"const": "simulate"}}}})
    plan_only = [m for m, v in MODELS.items() if v[1] == ["plan"]]
    branches.append({"if": {"required": ["model"], "properties": {"model": {"enum": plan_only}}},
                     "then": {"properties": {"task": {"const": "plan"}}}})
    return {
        "$schema": DRAFT,
        "$id": BASE + "problem.schema.json",
        "title": "symplan problem file",
        "description": "A problem for `symplan solve` and `symplan check`: every file has task and model; the "
                       "other members depend on both. Unknown members are refused, as the reader refuses them.",
        "type": "object",
        "required": ["task", "model"],
        "properties": {
            "task": d(names("plan", "simulate"), "what to do: plan (an optimal path) or simulate (an initial "
                                                 "value problem)"),
            "model": d(names(*MODELS, "custom"), "the model (`symplan list`)"),
        },
        "allOf": branches,
        "$defs": defs,
    }


# --------------------------------------------------------------- the study --

def study_schema():
    path = {"type": "string", "minLength": 1,
            "description": "a field path of the problem: members by dots, array elements by [i] "
                           "(steps, optimizer.algorithm, targets[1].t, params.L)"}
    return {
        "$schema": DRAFT,
        "$id": BASE + "study.schema.json",
        "title": "symplan study file",
        "description": "A study for `symplan study`: one problem over a grid of settings (vary) or a list of "
                       "cases. Every case is read by the problem reader before anything runs.",
        "type": "object",
        "additionalProperties": False,
        "required": ["base"],
        "properties": {
            "name": nullable(d({"type": "string", "minLength": 1, "maxLength": 127},
                               "the study's name", "the file's name without its folder and .json")),
            "description": d({"type": "string"}, "free text"),
            "base": d({"anyOf": [{"type": "string", "minLength": 1}, {"type": "object"}]},
                      "a problem file (a path relative to the study file) or a problem object written inline "
                      "(it need not be complete: the cases complete it)"),
            "vary": d({"type": "object", "minProperties": 1, "propertyNames": path,
                       "additionalProperties": {"type": "array", "minItems": 1}},
                      "field paths mapped to lists of values; the cases are their cartesian product, the first "
                      "key outermost (at most --max-cases, 10^5 by default)"),
            "cases": d({"type": "array", "minItems": 1,
                        "items": {"type": "object", "propertyNames": path,
                                  "description": "an override: field paths mapped to any JSON value"}},
                       "a list of override objects, one per case (at most --max-cases, 10^5 by default)"),
        },
        "oneOf": [{"required": ["vary"]}, {"required": ["cases"]}],
    }


# -------------------------------------------------------------- the result --

STATUSES = ["converged", "ok", "stopval_reached", "stalled", "maxeval_reached", "maxtime_reached",
            "target_not_reached", "interrupted", "newton_failed", "singular_matrix", "non_finite", "domain_error",
            "model_failed", "step_size_underflow", "too_many_steps", "out_of_memory", "invalid_argument",
            "io_error", "optimizer_failed"]


def result_schema():
    real = {"type": ["number", "null"]}
    count = {"type": "integer", "minimum": 0}
    numbers = {"type": "array", "items": ref("real")}
    column = {"description": "one value per row, or one row of numbers per row",
              "type": "array", "items": {"anyOf": [ref("real"), ref("numbers")]}}
    work = {"type": "object", "additionalProperties": False, "properties": {
        "attempted_steps": d(count, "every step tried, an adaptive method's rejected ones included"),
        "optimizer_evaluations": d(count, "plans: evaluations of the cost by the optimiser"),
        "starts": d(count, "endpoint plans: starts of the search"),
        "sweeps": d(count, "plans: sweeps of the step map over the horizon"),
        "derivative_sweeps": d(count, "keyframe plans: sweeps that carried derivatives"),
        "factorizations": d(count, "keyframe plans, vakonomic and nonholonomic models in coordinates: "
                                   "Jacobian factorizations"),
        "newton_iterations": d(count, "implicit schemes and keyframe plans: Newton iterations of the run"),
        "mean_iterations": d(real, "implicit schemes: Newton iterations per step"),
        "max_iterations": d(count, "implicit schemes: most Newton iterations of a step"),
        "solver": d({"type": "string"}, "the implicit solver"),
        "rhs_evaluations": d(count, "explicit schemes: right-hand side evaluations"),
        "rejected_steps": d(count, "explicit schemes: steps an adaptive method rejected"),
        "exact_flows": d(count, "splittings: exact flows taken")}}
    timing = {"type": "object", "additionalProperties": False, "properties": {
        "solve_seconds": d(real, "the whole solve, not reading or writing files; the parts below add up to it"),
        "start_seconds": d(real, "plans: the initial curves; simulations: binding the model, allocating the rows, "
                                 "the initial state (of every trial run too)"),
        "plain_sweep_seconds": d(real, "plans: sweeps of the step alone; simulations: the stepping, Newton's "
                                       "solves inside implicit steps and the rows kept along the way included "
                                       "(of every trial run too)"),
        "derivative_sweep_seconds": d(real, "plans: sweeps carrying tangents or adjoints; simulations: 0"),
        "linear_algebra_seconds": d(real, "keyframe plans: Newton's banded systems formed, factored and solved; "
                                          "simulations: 0 (their small systems are inside the stepping)"),
        "optimizer_seconds": d(real, "NLopt's own work between its evaluations; simulations: 0"),
        "output_seconds": d(real, "plans: the curve (an endpoint plan: the reported run) built from the solution; simulations: the result built from "
                                  "the rows, with the family's diagnostics and settings"),
        "other_seconds": d(real, "what none of the parts holds (checks, bookkeeping): solve_seconds less their "
                                 "sum"),
        "plain_sweeps": d(count, "plain sweeps; simulations: runs (trial runs included)"),
        "derivative_sweeps": d(count, "sweeps carrying derivatives")}, "patternProperties": {
        "_seconds$": d(real, "wall time (left out of a study's case files)"),
        "_sweeps$": d(count, "sweeps of the step map")}}
    trajectory = {"type": "object", "required": ["t"], "properties": {
        "t": d(numbers, "the times of the rows"),
        "coordinates": d({"type": "array", "items": {"type": "string"}}, "the names of the model's coordinates")},
        "additionalProperties": column}
    settings = {"type": "object", "properties": {
        "scheme": d({"type": "string"}, "the scheme that ran"),
        "params": d({"type": "object", "additionalProperties": {"anyOf": [ref("real"), ref("numbers"),
                                                                           {"type": "string"}]}},
                    "every parameter of the model, and the potential's name"),
        "gains": d({"type": "object", "additionalProperties": ref("real")}, "the feedback gains")},
        "additionalProperties": True}
    props = {
        "task": d(names("plan", "simulate"), "the task of the problem"),
        "model": d(names(*MODELS, "custom"), "the model of the problem"),
        "status": d(names(*STATUSES), "how the run ended: converged, ok, stopval_reached (exit 0); stalled, "
                                      "maxeval_reached, maxtime_reached, target_not_reached (exit 3); interrupted "
                                      "(exit 130, 143); what failed (exit 4)"),
        "message": d({"type": "string"}, "what the status means, when it is not a success"),
        "steps": d(count, "steps taken"),
        "failed_at_step": d(count, "the step where the run failed"),
        "interrupted_at_step": d(count, "the step where the run was stopped on request"),
        "non_finite_values": d(count, "how many numbers were not finite (written as null)"),
        "non_finite_at": d({"type": "string"}, "the path of the first of them"),
        "method": d({"type": "string"}, "the plan's method"),
        "optimizer_result": d({"type": "string"}, "NLopt's own result"),
        "cost": d(real, "the cost J"), "running_cost": d(real, "its running part"),
        "target_cost": d(real, "its keyframe part"),
        "optimality_residual": d(real, "scaled residual of the optimality conditions"),
        "tolerance": d(real, "the residual that counts as converged"),
        "iterations": d(count, "Newton iterations; NLopt evaluations for single shooting"),
        "factorizations": d(count, "Jacobian factorizations"), "sweeps": d(count, "sweeps of the step map"),
        "starts": d({"anyOf": [count, {"type": "array", "items": {"type": "object"}}]},
                    "each start's status, cost, iterations and sigma stages; endpoint plans: how many starts"),
        "initial_velocity": d(numbers, "xi(0)"), "final_velocity": d(numbers, "xi(T)"),
        "initial_momenta": d(numbers, "(nu0, p0), or an endpoint plan's p0"),
        "terminal_residual": d({"type": "object", "properties": {"norm": ref("real")},
                                "additionalProperties": ref("numbers")}, "nu_N+, p_N and their norm"),
        "quaternion_order": d(names("wxyz", "xyzw"), "the order of the result's quaternions (trajectory rows "
                                                     "\"quaternion\", targets and reached points): [w, x, y, z] or "
                                                     "[x, y, z, w]; absent: wxyz"),
        "targets": d({"type": "array", "items": {"type": "object"}}, "per keyframe: time, step, target, reached "
                                                                     "point and distance"),
        "kicks": d({"type": "array", "items": {"type": "object"}}, "the momentum kick at each keyframe"),
        "trajectory": d(trajectory, "rows at t of the state (every record_every steps and the last)"),
        "work": d(work, "what the run spent (a plan: its whole search)"),
        "timing": d(timing, "wall times and sweep counts"),
        "diagnostics": d({"type": "object", "additionalProperties": ref("real")},
                         "errors and drifts, each a number (null when not finite): energy_error, "
                         "constraint_residual, one <integral>_drift per first integral, ..."),
        "settings": d(settings, "the settings the run used, defaults included"),
        "initial_projection": d({"type": "object"}, "how far \"project\": true moved the initial state"),
        "step_selection": d({"type": "object", "additionalProperties": False, "required": ["tolerance", "order",
                                                                                             "reached", "trial_runs"],
                             "properties": {
                                 "tolerance": d(real, "the error_tolerance asked for"),
                                 "order": d(count, "the order p of the scheme"),
                                 "steps": d(count, "the steps chosen (absent when the search found none)"),
                                 "h": d(real, "the step chosen, T/steps, one for the whole run"),
                                 "estimated_error": d(real, "the estimated global error at T of the run shown"),
                                 "reached": d({"type": "boolean"}, "whether an estimate met the tolerance"),
                                 "trial_runs": d({"type": "array", "items": {
                                     "type": "object", "additionalProperties": False, "properties": {
                                         "steps": count, "status": names(*STATUSES),
                                         "estimated_error": d(real, "the finer run of a pair: its estimated error"),
                                         "integrate_seconds": d(real, "the run's stepping")}}},
                                     "the unrecorded runs of the search, in order, in pairs of N and 2N steps")}},
                            "error_tolerance runs: the step chosen, its estimated error and the trial runs (their "
                            "effort is in work)"),
        "resolution": d({"type": "object", "additionalProperties": False, "properties": {
            "accuracy": d(real, "the accuracy asked for"),
            "error_estimate": d(real, "distance between the curve on the grid before the last doubling and the "
                                      "returned one (absent when the finer grid did not converge); round-metric "
                                      "plans with steps: the distance from the returned curve to the one on twice "
                                      "the steps, times 1 + 2^-4"),
            "steps": d(count, "steps of the returned grid"), "rounds": d(count, "grid doublings"),
            "reached": d({"type": "boolean"}, "whether the estimate is within the accuracy")}},
            "plans without steps: the grid chosen and its estimated error; round-metric sphere plans with steps: the "
            "grid given and its estimated error"),
        "samples": d({"type": "object", "required": ["t"], "properties": {"t": numbers},
                      "additionalProperties": {"type": "array"}},
                     "the curve at the times asked for: q or R, omega, omega_dot (orientations); y or x, velocity, "
                     "acceleration (points); both for poses"),
        "extremes": d({"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False, "properties": {"max": real, "t": real}}},
            "the largest |omega| and |omega_dot| (|velocity| and |acceleration| on R^n) and their times"),
        "case": d({"type": "object", "required": ["index", "problem"], "properties": {
            "index": count, "values": {"type": "object"},
            "problem": {"type": "object", "description": "the case's full problem (problem.schema.json)"}}},
            "a study's case: its index, varied values and full problem"),
    }
    return {
        "$schema": DRAFT,
        "$id": BASE + "result.schema.json",
        "title": "symplan result file",
        "description": "What `symplan solve` writes (and a study's case files). The head, trajectory, work and "
                       "timing are common to every family; the other members vary with the family and are "
                       "typed where known.",
        "type": "object",
        "required": ["task", "model", "status"],
        "properties": props,
        "additionalProperties": True,
        "dependentRequired": {"failed_at_step": ["message"], "interrupted_at_step": ["message"]},
        "$defs": {"real": d(real, "a number; null where it was not finite"),
                  "numbers": d(numbers, "an array of numbers (null where not finite)")},
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = {"problem.schema.json": problem_schema(), "study.schema.json": study_schema(),
           "result.schema.json": result_schema()}
    texts = {name: json.dumps(schema, indent=2, ensure_ascii=False) + "\n" for name, schema in out.items()}
    keyframes = [("sphere plans (`SO3`, `space` `sphere`)", target_schema("sphere")),
                 ("orientations (`SO3`, `space` `group`)", target_schema("rotation")),
                 ("points of Rⁿ (`R1`…`R6`; `x` has n numbers)", target_schema("point", 3)),
                 ("poses (`SE3`, `SO3xR3`)", target_schema("pose"))]
    texts[os.path.join("..", "docs", "reference.md")] = reference.markdown(out["problem.schema.json"],
                                                                          out["study.schema.json"], keyframes)
    stale = []
    for name, text in texts.items():
        path = os.path.join(here, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            stale.append(os.path.normpath(os.path.join("schema", name)))
            if "--check" not in sys.argv:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    if "--check" in sys.argv and stale:
        print("schema/generate.py: stale: " + ", ".join(stale) + " (run /usr/bin/python3 schema/generate.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
