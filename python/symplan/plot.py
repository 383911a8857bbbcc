"""A first look at a result with matplotlib: the configuration against time and how far
the run drifted from what it should keep (the result's diagnostics)."""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Tuple

import numpy as np

from .curve import Curve
from .integrators import Trajectory


def _labels(trajectory: Mapping[str, Any], name: str, columns: int) -> List[str]:
    """The model's "coordinates" when they name the columns, else name[0], name[1], …"""
    names = trajectory.get("coordinates")
    if isinstance(names, list) and len(names) == columns:
        return [str(x) for x in names]
    return ["%s[%d]" % (name, i) for i in range(columns)]


# The orders a result's quaternions may be written in ("quaternion_order"; absent: wxyz).
_QUATERNION_ORDERS = ("wxyz", "xyzw")


def _rows(value: Any, count: Optional[int]) -> Optional[np.ndarray]:
    """value as rows (n, columns) of numbers when it is one row per time, else None."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if a.ndim == 0 or a.size == 0 or (count is not None and len(a) != count):
        return None
    return a.reshape(len(a), -1)


def _configuration(result: Mapping[str, Any]) -> Tuple[np.ndarray, List[str], str]:
    """(rows, labels, axis label) of the configuration, chosen as `symplan plot` chooses
    it: trajectory.q; or the rows of "quaternion" of a plan that asked for them, labelled
    q_w, q_x, q_y, q_z in the result's order (its "quaternion_order", as `symplan export`
    names them); or, for a model without q (suslov: g and mu), its first state field."""
    trajectory = result.get("trajectory")
    if not isinstance(trajectory, Mapping):
        raise ValueError("the result has no trajectory to plot (status %s)" % result.get("status", "?"))
    count = len(trajectory["t"]) if "t" in trajectory else None
    if "q" in trajectory:
        q = _rows(trajectory["q"], count)
        if q is None:
            raise ValueError("trajectory.q: not one row of numbers per time")
        return q, _labels(trajectory, "q", q.shape[1]), "q"
    if "quaternion" in trajectory:
        order = result.get("quaternion_order", "wxyz")
        if order not in _QUATERNION_ORDERS:
            raise ValueError("quaternion_order: must be \"wxyz\" or \"xyzw\" (got %r)" % (order,))
        q = np.asarray(trajectory["quaternion"], dtype=float).reshape(-1, 4)
        return q, ["q_" + axis for axis in order], "quaternion"
    for name, value in trajectory.items():
        if name in ("t", "coordinates"):
            continue
        rows = _rows(value, count)
        if rows is not None:
            return rows, _labels(trajectory, name, rows.shape[1]), name
    raise ValueError("the result has no trajectory.q (or trajectory.quaternion, or another field of rows) to plot")


def _as_result(result: Any) -> Mapping[str, Any]:
    """A result dict from what the package returns: a dict (solve, a study's results), a
    Curve (its result) or rattle's Trajectory (as a result of rows per step, with its
    residuals and energy drift as diagnostics)."""
    if isinstance(result, Curve):
        return result.result
    if isinstance(result, Trajectory):
        diagnostics = {"constraint_residual": float(np.max(result.residual)),
                       "hidden_constraint_residual": float(np.max(result.hidden_residual))}
        if result.energy is not None:
            diagnostics["energy_error"] = float(np.max(np.abs(result.energy - result.energy[0])))
        return {"model": "rattle", "task": "steps", "status": "",
                "trajectory": {"q": result.q}, "diagnostics": diagnostics}
    if isinstance(result, Mapping):
        return result
    if result is None:
        raise TypeError("plot: no result (None: a study's failed case; its summary row says why)")
    raise TypeError("plot: expected a result dict, a Curve or a Trajectory (got %s)" % type(result).__name__)


def plot(result: Any, ax: Optional[Any] = None) -> Any:
    """Draws a result's configuration against t and returns the matplotlib figure.

    result: what the package returns — a result dict (solve, plan(...).result, a study's
    results), a Curve (its result) or rattle's Trajectory (against the step number).
    The configuration is trajectory.q, or the plan's quaternions (each component under
    its name in the result's quaternion_order), or for a model without q (suslov) its
    first field of rows, as `symplan plot` draws it.
    ax: the axes to draw on; without, a new figure has a second panel: the result's
    diagnostics that measure an error (momentum map drift, constraint residuals, energy
    error, …) as bars on a log scale, the invariants' worst drift over the run.

    matplotlib is imported here, so the rest of the package does not need it; choose its
    backend before (matplotlib.use("Agg") for files). Raises ValueError for a result
    without a trajectory to draw, TypeError for something that is not a result."""
    import matplotlib.pyplot as plt

    result = _as_result(result)
    trajectory = result.get("trajectory") or {}
    q, labels, name = _configuration(result)
    steps = "t" not in trajectory
    t = np.arange(len(q)) if steps else np.asarray(trajectory["t"], dtype=float)
    if ax is None:
        fig, (ax, drift_ax) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    else:
        fig, drift_ax = ax.figure, None
    for column, label in zip(q.T, labels):
        ax.plot(t, column, label=label)
    ax.set_xlabel("step" if steps else "t")
    ax.set_ylabel(name)
    ax.set_title("%s %s: %s" % (result.get("model", "?"), result.get("task", ""), result.get("status", "")))
    if q.shape[1] <= 9:
        ax.legend(fontsize="small", ncol=3 if q.shape[1] > 3 else 1)
    if drift_ax is not None:
        _diagnostics(drift_ax, result.get("diagnostics") or {})
        fig.tight_layout()
    return fig


# The names of measures of error, by the suffixes planner/plot/plot_study.c knows them by
# (a diagnostic such as "hamiltonian" is a value, not a drift).
_ERROR_SUFFIXES = ("_error", "_drift", "_residual", "_defect", "_relative")


def _diagnostics(ax: Any, diagnostics: Mapping[str, Any]) -> None:
    """The diagnostics that measure an error as horizontal bars on a log scale (a zero
    drawn at 1e-17, below round-off, so that it shows rather than vanishing)."""
    names = [k for k, v in diagnostics.items()
             if k.endswith(_ERROR_SUFFIXES) and isinstance(v, (int, float)) and np.isfinite(v)]
    values = [max(abs(diagnostics[k]), 1e-17) for k in names]
    ax.set_title("errors and drifts (worst over the run)")
    if not names:
        ax.text(0.5, 0.5, "none in the result", ha="center", va="center", transform=ax.transAxes)
        return
    ax.barh(names, values)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize="small")
