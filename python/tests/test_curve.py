"""symplan.plan and its Curve: derivatives against finite differences, keyframes passed
through, the energy against scipy's RotationSpline, the kinds of curve, the errors."""
import json

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.spatial.transform import Rotation, RotationSpline

import symplan


def without_steps(problem):
    """The problem with the grid left to the planner (order-8 scheme, accuracy 1e-6)."""
    problem = dict(problem)
    problem.pop("steps", None)
    return problem


@pytest.fixture(scope="module")
def exact():
    """The natural interpolating curve through data/keyframes_exact.json's 12 orientations."""
    from conftest import DATA
    problem = without_steps(json.loads((DATA / "keyframes_exact.json").read_text()))
    with symplan.plan(problem) as curve:
        yield problem, curve


def inside_steps(curve, fractions=(0.25, 0.5, 0.75)):
    """Times inside the steps of the grid (the result's trajectory), where the curve is smooth."""
    t = curve.result["trajectory"]["t"]
    return np.array([a + f * (b - a) for a, b in zip(t[:-1], t[1:]) for f in fractions])


def richardson(f, t, h):
    """The derivative of f at the times t from central differences with h and h/2,
    extrapolated (error O(h⁴))."""
    d = [(f(t + s) - f(t - s)) / (2 * s) for s in (h, h / 2)]
    return (4 * d[1] - d[0]) / 3


def body_rate(q, q_dot):
    """ω = 2 vec(q̄ ⊗ q̇) of quaternions [w, x, y, z] and their derivatives (rows)."""
    w, v = q[:, :1], q[:, 1:]
    wd, vd = q_dot[:, :1], q_dot[:, 1:]
    return 2 * (w * vd - wd * v - np.cross(v, vd))


def angle(R, S):
    """Rotation angles between the matrices R[i] and S[i]."""
    X = np.einsum("nki,nkj->nij", R, S)
    s = 0.5 * np.linalg.norm(np.stack([X[:, 2, 1] - X[:, 1, 2], X[:, 0, 2] - X[:, 2, 0], X[:, 1, 0] - X[:, 0, 1]], 1), axis=1)
    return np.arctan2(s, 0.5 * (np.trace(X, axis1=1, axis2=2) - 1))


def test_rates_are_the_derivatives_of_the_curve(exact):
    _, curve = exact
    t = inside_steps(curve)
    # quaternions: one call per shifted set keeps each set continuous; the shifts are small
    # enough that no sign differs between them (checked)
    q = lambda s: curve(s)
    assert np.all(np.einsum("ij,ij->i", q(t + 1e-3), q(t - 1e-3)) > 0)
    omega = body_rate(q(t), richardson(q, t, 1e-3))
    # the curve is accurate to the plan's accuracy (1e-6 rad by default), and so are its rates
    accuracy = curve.result["resolution"]["accuracy"] if "resolution" in curve.result else 1e-8
    assert np.abs(omega - curve(t, 1)).max() < accuracy
    # ω̇ against the differences of ω
    assert np.abs(richardson(lambda s: curve(s, 1), t, 1e-3) - curve(t, 2)).max() < 10 * accuracy


def test_keyframes_are_passed_through(exact):
    problem, curve = exact
    assert problem["sigma"] == 0
    targets = Rotation.from_quat([np.roll(k["q"], -1) for k in problem["targets"]]).as_matrix()  # scipy: xyzw
    R = curve(curve.times, as_matrix=True)
    assert np.array_equal(curve.times, [0.0] + [k["t"] for k in problem["targets"]]) and curve.T == problem["T"]
    assert angle(R[1:], targets).max() < 1e-9
    assert angle(R[:1], np.eye(3)[None]).max() < 1e-15  # the start, g0 (the identity here)


def test_quaternions_follow_the_curve(exact):
    _, curve = exact
    t = np.linspace(0, curve.T, 2000)
    q = curve(t)
    assert q.shape == (2000, 4) and q[0, 0] >= 0
    assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-14)
    assert np.all(np.einsum("ij,ij->i", q[1:], q[:-1]) > 0.9)  # no jump between neighbours
    # the same rotations as the matrices
    R = curve(t, as_matrix=True)
    assert np.abs(Rotation.from_quat(np.roll(q, -1, axis=1)).as_matrix() - R).max() < 1e-14
    # scalar in, single row out, like scipy
    assert curve(3.5).shape == (4,) and curve(3.5, 1).shape == (3,) and curve(3.5, as_matrix=True).shape == (3, 3)
    assert np.array_equal(curve(3.5, 1), curve([3.5], 1)[0])
    assert curve([], 2).shape == (0, 3)


def test_quaternion_order(exact):
    problem, curve = exact
    # the same plan with its quaternions written scalar last (the reader takes the file's
    # quaternions in that order too)
    xyzw = dict(problem, quaternion_order="xyzw",
                targets=[dict(k, q=list(np.roll(k["q"], -1))) for k in problem["targets"]])
    try:
        symplan.check(xyzw)
        reader_takes_it = True
    except symplan.SymplanError:
        reader_takes_it = False
    t = np.linspace(0, curve.T, 50)
    wxyz = curve(t)
    if reader_takes_it:
        with symplan.plan(xyzw) as other:
            assert other.quaternion_order == "xyzw"
            assert np.abs(other(t) - np.roll(wxyz, -1, axis=1)).max() < 1e-12
    curve.quaternion_order = "xyzw"
    try:
        assert np.array_equal(curve(t), np.roll(wxyz, -1, axis=1))
    finally:
        curve.quaternion_order = "wxyz"


def random_walk(rng, count, step=0.7):
    """count + 1 orientations (the first the start) a step of `step` rad apart about random axes."""
    axes = rng.normal(size=(count, 3))
    axes *= step / np.linalg.norm(axes, axis=1)[:, None]
    R = [Rotation.from_rotvec(rng.normal(size=3))]
    for a in axes:
        R.append(R[-1] * Rotation.from_rotvec(a))
    return Rotation.concatenate(R)


def energy(rate, edges, points=10):
    """½∫|ω̇|² by Gauss–Legendre quadrature on each interval between the edges."""
    x, w = np.polynomial.legendre.leggauss(points)
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        t = 0.5 * (b - a) * x + 0.5 * (a + b)
        total += 0.5 * (b - a) * np.dot(w, 0.5 * np.sum(rate(t) ** 2, axis=1))
    return total


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lower_energy_than_rotation_spline(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(12, 31))
    R = random_walk(rng, count)
    q = np.roll(R.as_quat(), 1, axis=1)  # scipy's xyzw to wxyz
    problem = {"task": "plan", "model": "cubic_spline", "group": "SO3", "space": "group", "T": float(count),
               "xi0": "free", "sigma": 0, "g0": list(q[0]),
               "targets": [{"t": float(i), "q": list(q[i])} for i in range(1, count + 1)]}
    with symplan.plan(problem) as curve:
        assert curve.result["status"] == "converged"
        times = np.arange(count + 1.0)
        assert np.array_equal(curve.times, times)
        # ours passes through the same keyframes, and its energy is the plan's cost
        assert angle(curve(times, as_matrix=True), R.as_matrix()).max() < 1e-9
        ours = energy(lambda t: curve(t, 2), curve.result["trajectory"]["t"])
        assert abs(ours - curve.result["cost"]) < 1e-6 * ours
    spline = RotationSpline(times, R)
    theirs = energy(lambda t: spline(t, 2), times, points=20)
    assert np.abs(spline(times).as_matrix() - R.as_matrix()).max() < 1e-12
    print("seed %d, %d keyframes: ½∫|ω̇|² = %.6g here, %.6g with RotationSpline (%.2f %% more)"
          % (seed, count, ours, theirs, 100 * (theirs / ours - 1)))
    assert ours < theirs


def test_sphere_curve(data, load):
    problem = without_steps(load(data / "keyframes_sphere.json"))
    with symplan.plan(problem) as curve:
        assert curve.kind == "sphere"
        t = inside_steps(curve)
        y, v, a = (curve(t, k) for k in range(3))
        assert np.allclose(np.linalg.norm(y, axis=1), 1, atol=1e-13)
        assert np.abs(np.einsum("ij,ij->i", y, v)).max() < 1e-12  # ẏ tangent
        assert np.abs(richardson(curve, t, 1e-3) - v).max() < 1e-8
        assert np.abs(richardson(lambda s: curve(s, 1), t, 1e-3) - a).max() < 1e-7
        # y at the keyframes: the result's "reached" points (the curve holds the knot, the
        # result the end of the segment into it: the same point to round-off)
        reached = np.array([k["reached"] for k in curve.result["targets"]])
        assert np.abs(curve(curve.times[1:]) - reached).max() < 1e-12
        with pytest.raises(ValueError, match="as_matrix is for the orientations"):
            curve(1.0, as_matrix=True)


def test_points_are_the_natural_cubic_spline():
    """On R³ with σ = 0 and both ends free the plan is the natural cubic spline."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(6, 3))
    t = np.array([0, 0.7, 1.5, 2.0, 3.1, 4.0])
    problem = {"task": "plan", "model": "cubic_spline", "group": "R3", "space": "group", "T": 4.0, "xi0": "free",
               "sigma": 0, "g0": list(x[0]), "targets": [{"t": t[i], "x": list(x[i])} for i in range(1, 6)]}
    with symplan.plan(problem) as curve:
        assert curve.kind == "point"
        spline = CubicSpline(t, x, bc_type="natural")
        s = np.linspace(0, 4, 301)
        for k in range(3):
            assert np.abs(curve(s, k) - spline(s, k)).max() < 1e-9 * max(1, np.abs(spline(s, k)).max()), k


def read_pose_curve(curve):
    """A pose curve read inside its steps: the times, q, x and the derivatives (w, v),
    (wd, a), after checking its kind, the shapes and that v and the body rate w are the
    derivatives of the position and orientation read."""
    assert curve.kind == "pose"
    t = inside_steps(curve)
    q, x = curve(t)
    (w, v), (wd, a) = curve(t, 1), curve(t, 2)
    assert q.shape == (len(t), 4) and x.shape == v.shape == a.shape == (len(t), 3)
    assert np.abs(richardson(lambda s: curve(s).position, t, 1e-3) - v).max() < 1e-8
    omega = body_rate(q, richardson(lambda s: curve(s).orientation, t, 1e-3))
    assert np.abs(omega - w).max() < 1e-8
    return t, q, x, w, v, wd, a


def test_pose_curve(data, load):
    problem = without_steps(load(data / "keyframes_pose.json"))
    with symplan.plan(problem) as curve:
        t, q, x, w, v, wd, a = read_pose_curve(curve)
        assert w.shape == wd.shape == (len(t), 3)
        assert curve(t, as_matrix=True).orientation.shape == (len(t), 3, 3)
        # at the grid's nodes: the result's rows, ξ = (ω, v) stacked
        tr = curve.result["trajectory"]
        R, x = curve(tr["t"], as_matrix=True)
        assert np.array_equal(R.reshape(-1, 9), tr["q"]) and np.array_equal(x, tr["x"])
        assert np.array_equal(np.hstack(curve(tr["t"], 1)), tr["xi"])
        single = curve(1.25)
        assert isinstance(single, symplan.Pose) and single.orientation.shape == (4,) and single.position.shape == (3,)


def test_se3_curve_reads_as_a_pose(data, load):
    """An SE(3) plan's curve: orientation and position with fixed-frame velocity and
    acceleration, each the derivative of the one before."""
    problem = without_steps(load(data / "keyframes_se3.json"))
    with symplan.plan(problem) as curve:
        t, q, x, w, v, wd, a = read_pose_curve(curve)
        assert np.abs(richardson(lambda s: curve(s, 1).position, t, 1e-3) - a).max() < 1e-7
        assert np.abs(richardson(lambda s: curve(s, 1).orientation, t, 1e-3) - wd).max() < 1e-7
        # the keyframes are passed through
        for target in problem["targets"]:
            R, xk = curve(target["t"], as_matrix=True)
            assert np.abs(xk - target["x"]).max() < 1e-9


def test_weighted_se3_curve_is_the_scaled_unit_curve_read_back(data, load):
    """An SE(3) plan in the metric a|ω|² + b|v|² is the unit plan through the keyframes'
    positions times s = √(b/a), read back: positions, velocities and accelerations over s,
    the cost a times; its curve passes through the file's own positions."""
    a, b = 2.0, 0.3
    s = (b / a) ** 0.5
    problem = without_steps(load(data / "keyframes_se3.json"))
    weighted = dict(problem, metric={"rotation": a, "translation": b})
    scaled = dict(problem, x0=[s * c for c in problem["x0"]],
                  targets=[dict(k, x=[s * c for c in k["x"]]) for k in problem["targets"]])
    with symplan.plan(weighted) as cw, symplan.plan(scaled) as cu:
        assert cw.result["status"] == cu.result["status"] == "converged"
        assert cw.result["cost"] == pytest.approx(a * cu.result["cost"], rel=1e-9)
        t = np.linspace(0.0, problem["T"], 41)
        (qw, xw), (qu, xu) = cw(t), cu(t)
        assert np.abs(qw - qu).max() < 1e-9 and np.abs(xw - xu / s).max() < 1e-9
        for order in (1, 2):
            (ww, vw), (wu, vu) = cw(t, order), cu(t, order)
            assert np.abs(ww - wu).max() < 1e-8 and np.abs(vw - vu / s).max() < 1e-8
        for target in problem["targets"]:
            assert np.abs(cw(target["t"]).position - target["x"]).max() < 1e-9


def test_errors(exact, data):
    problem, curve = exact
    for bad in (-1e-12, np.nextafter(curve.T, 2 * curve.T), np.nan):
        with pytest.raises(ValueError, match=r"outside the curve's interval \[0, T=12.0\]"):
            curve([1.0, bad])
    with pytest.raises(ValueError, match="order must be 0, 1 or 2"):
        curve(1.0, 3)
    with pytest.raises(ValueError, match="as_matrix"):
        curve(1.0, 1, as_matrix=True)
    with pytest.raises(ValueError, match="1-D"):
        curve(np.zeros((2, 2)))
    # not a plan of cubic splines, a problem the reader refuses, a method without a curve
    with pytest.raises(symplan.SymplanError, match="only cubic_spline plans have a curve"):
        symplan.plan(data / "heisenberg.json")
    with pytest.raises(symplan.SymplanError, match="^sigma: must not be negative") as e:
        symplan.plan(dict(problem, sigma=-1))
    assert e.value.code == 2
    with pytest.raises(symplan.SymplanError, match="single_shooting keeps no curve"):
        symplan.plan(dict(problem, sigma=0.1, xi0=[0, 0, 0], steps=120, method="single_shooting",
                          optimizer={"maxeval": 3}))
    # a closed curve cannot be read; closing twice is allowed
    with symplan.plan(problem) as other:
        pass
    other.close()
    with pytest.raises(ValueError, match="closed"):
        other(1.0)


def test_a_plan_that_did_not_converge_gives_its_best_curve_with_a_warning(exact):
    problem, _ = exact
    with pytest.warns(RuntimeWarning, match="status is 'maxeval_reached'"):
        curve = symplan.plan(dict(problem, max_iterations=1))
    with curve:
        assert curve.result["status"] == "maxeval_reached" and curve(1.0).shape == (4,)
