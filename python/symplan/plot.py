"""A first look at a result with matplotlib: the configuration against time and how far
the run drifted from what it should keep (the result's diagnostics)."""
import numpy as np


def _labels(trajectory, columns):
    names = trajectory.get("coordinates")
    if isinstance(names, list) and len(names) == columns:
        return [str(x) for x in names]
    return ["q[%d]" % i for i in range(columns)]


# The orders a result's quaternions may be written in ("quaternion_order"; absent: wxyz).
_QUATERNION_ORDERS = ("wxyz", "xyzw")


def _configuration(result):
    """(rows, labels) of the configuration: trajectory.q, or the rows of "quaternion" of a
    plan that asked for them, labelled q_w, q_x, q_y, q_z in the result's order (its
    "quaternion_order", as `symplan export` names them)."""
    trajectory = result.get("trajectory") or {}
    if "q" in trajectory:
        q = np.asarray(trajectory["q"], dtype=float)
        q = q.reshape(len(q), -1)
        return q, _labels(trajectory, q.shape[1])
    if "quaternion" in trajectory:
        order = result.get("quaternion_order", "wxyz")
        if order not in _QUATERNION_ORDERS:
            raise ValueError("quaternion_order: must be \"wxyz\" or \"xyzw\" (got %r)" % (order,))
        q = np.asarray(trajectory["quaternion"], dtype=float).reshape(-1, 4)
        return q, ["q_" + axis for axis in order]
    raise ValueError("the result has no trajectory.q (or trajectory.quaternion) to plot")


def plot(result, ax=None):
    """Draws the result's trajectory q (or its quaternions, each component under its name
    in the result's quaternion_order) against t and returns the figure. Without `ax` a
    new figure has a second panel: the result's diagnostics that measure an error
    (momentum map drift, constraint residuals, energy error, …) as bars on a log scale,
    the invariants' worst drift over the run. matplotlib is imported here, so the rest of the package
    does not need it; choose its backend before (matplotlib.use("Agg") for files)."""
    import matplotlib.pyplot as plt

    trajectory = result.get("trajectory") or {}
    q, labels = _configuration(result)
    t = np.asarray(trajectory["t"], dtype=float) if "t" in trajectory else np.arange(len(q))
    if ax is None:
        fig, (ax, drift_ax) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    else:
        fig, drift_ax = ax.figure, None
    for column, label in zip(q.T, labels):
        ax.plot(t, column, label=label)
    ax.set_xlabel("t")
    ax.set_ylabel("q")
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


def _diagnostics(ax, diagnostics):
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
