"""plot() draws on matplotlib's Agg backend (conftest.py)."""
import io

import matplotlib.pyplot as plt
import pytest

import symplan
from test_study import small_study


def test_plot_a_result(data):
    fig = symplan.plot(symplan.solve(data / "heisenberg.json"))
    assert len(fig.axes) == 2
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["x", "y", "z"] and len(lines[0].get_xdata()) == 101
    bars = [label.get_text() for label in fig.axes[1].get_yticklabels()]
    assert "energy_error" in bars and "hamiltonian" not in bars  # errors and drifts, not values
    png = io.BytesIO()
    fig.savefig(png, format="png")
    assert png.getvalue().startswith(b"\x89PNG")
    plt.close(fig)


def test_plot_on_given_axes(data):
    fig, ax = plt.subplots()
    assert symplan.plot(symplan.solve(data / "sphere_interpolation.json"), ax=ax) is fig
    assert len(ax.get_lines()) == 9 and len(fig.axes) == 1
    plt.close(fig)


def test_plot_quaternions_in_the_result_order(data, load):
    """A plan written as quaternions draws its four components, each under its name in the
    result's quaternion_order: the same lines for [x, y, z, w] as for [w, x, y, z]."""
    wxyz = symplan.solve(data / "keyframes_so3.json")
    problem = load(data / "keyframes_so3.json")
    problem["quaternion_order"] = "xyzw"
    for target in problem["targets"]:
        target["q"] = target["q"][1:] + target["q"][:1]
    xyzw = symplan.solve(problem)
    lines = {}
    for name, result in (("wxyz", wxyz), ("xyzw", xyzw)):
        fig, ax = plt.subplots()
        symplan.plot(result, ax=ax)
        lines[name] = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
        assert [line.get_label() for line in ax.get_lines()] == ["q_" + c for c in name]
        plt.close(fig)
    for label in ("q_w", "q_x", "q_y", "q_z"):
        assert (lines["wxyz"][label] == lines["xyzw"][label]).all(), label
    assert (lines["wxyz"]["q_w"] == wxyz["trajectory"]["quaternion"][:, 0]).all()
    xyzw["quaternion_order"] = "zyxw"
    with pytest.raises(ValueError, match="quaternion_order"):
        symplan.plot(xyzw)


@pytest.mark.parametrize("name, field, labels", [
    ("suslov", "g", ["R11", "R12", "R13", "R21", "R22", "R23", "R31", "R32", "R33"]),  # no q: g, mu
    ("sleigh_se2", "q", ["x", "y", "theta"]),
    ("s3_contact", "q", ["q1", "q2", "q3", "q4"]),
    ("keyframes_pose", "q", ["q[%d]" % i for i in range(9)]),
    ("keyframes_camera", "quaternion", ["q_x", "q_y", "q_z", "q_w"]),  # its quaternion_order
    ("parking_straight", "q", ["x", "y", "theta", "phi"]),
])
def test_every_kind_of_result(name, field, labels, data):
    """Every family's result draws its configuration as `symplan plot` chooses it: q,
    the plan's quaternions, or the first field of rows of a model without q."""
    result = symplan.solve(data / (name + ".json"))
    fig = symplan.plot(result)
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == labels
    rows = result["trajectory"][field]
    assert (lines[-1].get_ydata() == rows[:, -1]).all() and fig.axes[0].get_ylabel() == field
    plt.close(fig)


def test_plot_what_the_package_returns(data, load):
    """A plan's Curve (its result), rattle's Trajectory (against the step), a study's
    results; a failed case (None) and a result without a trajectory are errors that say so."""
    with symplan.plan(data / "keyframes_sphere.json") as curve:
        fig = symplan.plot(curve)
        assert len(fig.axes[0].get_lines()) == 9
        plt.close(fig)
    t = symplan.rattle(mass=[1, 1, 1], potential_grad=lambda q: [0, 0, 1],
                       constraints=lambda q: [0.5 * (q @ q - 1)], constraint_jacobian=lambda q: q.reshape(1, 3),
                       q0=[0, 1, 0], p0=[1, 0, 1], h=1e-2, steps=20, potential=lambda q: q[2])
    fig = symplan.plot(t)
    assert fig.axes[0].get_xlabel() == "step" and len(fig.axes[0].get_lines()[0].get_xdata()) == 21
    bars = [label.get_text() for label in fig.axes[1].get_yticklabels()]
    assert bars == ["constraint_residual", "hidden_constraint_residual", "energy_error"]
    plt.close(fig)
    run = symplan.study(small_study(data))
    for result in run.results:
        plt.close(symplan.plot(result))
    with pytest.raises(TypeError, match="failed case"):
        symplan.plot(None)
    with pytest.raises(ValueError, match="no trajectory"):
        symplan.plot({"status": "newton_failed"})
