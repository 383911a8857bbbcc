"""plot() draws on matplotlib's Agg backend (conftest.py)."""
import io

import matplotlib.pyplot as plt
import pytest

import symplan


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
