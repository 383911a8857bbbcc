"""plot() draws on matplotlib's Agg backend (conftest.py)."""
import io

import matplotlib.pyplot as plt

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
