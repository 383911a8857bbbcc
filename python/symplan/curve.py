"""plan: a cubic-spline plan solved, and its curve read at any time like scipy's
RotationSpline (planner/api/sp_text_api.h, sp_plan_curve_text and sp_plan_curve_sample).

    curve = symplan.plan("data/keyframes_so3.json")
    omega = curve(np.linspace(0, curve.T, 200), 1)         # (200, 3)

Between the grid's nodes the curve is one step of the plan's own scheme from the node
before t (planner/cubic/sp_curve.h): it passes through every node of the result's
trajectory, and g, ω and ω̇ are continuous."""
from __future__ import annotations

import ctypes
import json
import threading
import warnings
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from ._api import Document, Result, _document, _named, arrays
from ._lib import TEXT_BAD_INPUT, TEXT_OK, SymplanError, call_text, lib

# sp_plan_curve_kind's values, in order
_KINDS = ("rotation", "sphere", "point", "pose")


class Pose(NamedTuple):
    """What a pose curve (group SO3xR3 or SE3) returns: the orientation part (quaternions,
    matrices, ω or ω̇ as for an orientation curve) and the position part (x, ẋ or ẍ, in the
    fixed frame). Unpacks as a pair: `R, x = curve(t)`."""
    orientation: np.ndarray
    position: np.ndarray


def _quaternions(R: np.ndarray, order: str) -> np.ndarray:
    """Unit quaternions of the rotation matrices R (n, 3, 3), each of the sign nearer the
    one before (the first with w ≥ 0), columns in `order` ("wxyz" or "xyzw")."""
    n = R.shape[0]
    q = np.empty((n, 4))
    tr = R[:, 0, 0] + R[:, 1, 1] + R[:, 2, 2]
    d = np.stack([R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]], axis=1)
    # the largest of 4w², 4x², 4y², 4z² decides the branch (Shepperd): no cancellation
    branch = np.argmax(np.column_stack([tr, d]), axis=1)
    for b in range(4):
        m = branch == b
        if not m.any():
            continue
        r = R[m]
        if b == 0:
            s = 2.0 * np.sqrt(1.0 + tr[m])
            q[m] = np.column_stack([0.25 * s, (r[:, 2, 1] - r[:, 1, 2]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s,
                                    (r[:, 1, 0] - r[:, 0, 1]) / s])
        elif b == 1:
            s = 2.0 * np.sqrt(1.0 + r[:, 0, 0] - r[:, 1, 1] - r[:, 2, 2])
            q[m] = np.column_stack([(r[:, 2, 1] - r[:, 1, 2]) / s, 0.25 * s, (r[:, 0, 1] + r[:, 1, 0]) / s,
                                    (r[:, 0, 2] + r[:, 2, 0]) / s])
        elif b == 2:
            s = 2.0 * np.sqrt(1.0 + r[:, 1, 1] - r[:, 0, 0] - r[:, 2, 2])
            q[m] = np.column_stack([(r[:, 0, 2] - r[:, 2, 0]) / s, (r[:, 0, 1] + r[:, 1, 0]) / s, 0.25 * s,
                                    (r[:, 1, 2] + r[:, 2, 1]) / s])
        else:
            s = 2.0 * np.sqrt(1.0 + r[:, 2, 2] - r[:, 0, 0] - r[:, 1, 1])
            q[m] = np.column_stack([(r[:, 1, 0] - r[:, 0, 1]) / s, (r[:, 0, 2] + r[:, 2, 0]) / s,
                                    (r[:, 1, 2] + r[:, 2, 1]) / s, 0.25 * s])
    q /= np.linalg.norm(q, axis=1)[:, None]
    if n:
        # sign i = sign 0 · Π sign(q_k · q_{k−1}): each sample nearer the one before
        turn = np.where(np.einsum("ij,ij->i", q[1:], q[:-1]) < 0.0, -1.0, 1.0)
        sign = np.concatenate([[-1.0 if q[0, 0] < 0.0 else 1.0], turn])
        q *= np.cumprod(sign)[:, None]
    return q if order == "wxyz" else q[:, [1, 2, 3, 0]]


class Curve:
    """A solved cubic-spline plan read at any time in [0, T], like scipy's RotationSpline:

        curve(times, order=0, as_matrix=False)

    times: a number or a 1-D array in [0, T] (ValueError outside, or for NaN); a number
    gives single rows, as scipy does. order 0, 1, 2 gives, by the plan's kind:
      "rotation" (SO3 keyframes): quaternions (n, 4), or matrices (n, 3, 3) with
                 as_matrix=True; ω = (RᵀṘ)^∨ the body angular velocity (n, 3); ω̇ (n, 3).
                 Quaternions are in the problem's "quaternion_order" ("wxyz" unless it
                 says "xyzw"), the first with w ≥ 0 and each of the sign nearer the one
                 before, so that a sequence of samples follows the curve without jumps;
      "sphere"   (S² keyframes): y, ẏ, ÿ (n, 3);
      "point"    (Rⁿ keyframes): x, ẋ, ẍ (n, dim);
      "pose"     (SO3xR3 or SE3 keyframes): a Pose (orientation, position) of the two
                 above (on SE3, ẋ and ẍ in the fixed frame as well).

    Attributes: T (the horizon), times (the keyframe times: 0, where the curve starts
    from g0, and each target's t), kind, result (the result dict, as symplan.solve
    returns it). The curve holds memory of the library's: close() releases it (also at
    the end of a `with` block, or when the object is collected); a closed curve cannot
    be read. One curve may be read from several threads (the reads take turns)."""

    def __init__(self, handle: int, result: Result):
        so = lib()
        self._handle = handle
        self._lock = threading.Lock()
        self.kind = _KINDS[so.sp_plan_curve_kind(handle)]
        self._dim = so.sp_plan_curve_dim(handle)
        self._elem_size = so.sp_plan_curve_elem_size(handle)
        self.T = so.sp_plan_curve_end(handle)
        self.result = result
        problem = result.get("input", {})
        self.times = np.array([0.0] + [float(t["t"]) for t in problem.get("targets", [])])
        self.quaternion_order = problem.get("quaternion_order", "wxyz")
        if self.quaternion_order not in ("wxyz", "xyzw"):
            raise ValueError("quaternion_order must be \"wxyz\" or \"xyzw\" (got %r)" % (self.quaternion_order,))
        y0 = (ctypes.c_double * 3)()
        self._y0 = np.array(y0[:]) if so.sp_plan_curve_y0(handle, y0) else None

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "status %s" % self.result.get("status")
        return "<symplan.Curve %s on [0, %g], %d keyframes, %s>" % (self.kind, self.T, len(self.times), state)

    def close(self) -> None:
        """Releases the library's curve (again: nothing)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            lib().sp_plan_curve_free(handle)

    def __enter__(self) -> "Curve":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit the library may be gone already
            pass

    def _sample(self, t: np.ndarray, order: int) -> Tuple[np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
        """g, ω and ω̇ at the times t (1-D, checked), as (n, elem_size) and (n, dim) arrays
        (ω̇ only for order 2, ω only for order ≥ 1 or a sphere)."""
        n = len(t)
        g = np.empty((n, self._elem_size))
        w = np.empty((n, self._dim)) if order >= 1 else None
        a = np.empty((n, self._dim)) if order == 2 else None
        address = lambda x: None if x is None else x.ctypes.data
        with self._lock:
            if self._handle is None:
                raise ValueError("the curve is closed")
            rc = lib().sp_plan_curve_sample(self._handle, n, t.ctypes.data, g.ctypes.data, address(w), address(a))
        if rc == TEXT_BAD_INPUT:  # checked above: only a time the check let through
            raise ValueError("a time is outside the curve's interval [0, %.17g]" % self.T)
        if rc != TEXT_OK:
            raise SymplanError("a step of the curve failed (the scheme's implicit solve)", rc)
        return g, w, a

    def __call__(self, times: Union[float, Sequence[float], np.ndarray], order: int = 0,
                 as_matrix: bool = False) -> Union[np.ndarray, Pose]:
        """The curve at `times` (a number or a 1-D array in [0, T]), order 0, 1 or 2: see
        the class's description for what each kind gives. Raises ValueError for a time
        outside [0, T] or NaN, an order other than 0, 1, 2, and a closed curve."""
        if order not in (0, 1, 2):
            raise ValueError("order must be 0, 1 or 2 (got %r)" % (order,))
        if as_matrix and (order != 0 or self.kind not in ("rotation", "pose")):
            raise ValueError("as_matrix is for the orientations of order 0 (this is a %s curve, order %d)"
                             % (self.kind, order))
        t = np.asarray(times, dtype=float)
        single = t.ndim == 0
        if t.ndim > 1:
            raise ValueError("times must be a number or a 1-D array (got shape %s)" % (t.shape,))
        t = np.ascontiguousarray(np.atleast_1d(t))
        outside = ~((t >= 0.0) & (t <= self.T))
        if outside.any():
            raise ValueError("time %r is outside the curve's interval [0, T=%r]" % (float(t[outside][0]), self.T))
        g, w, a = self._sample(t, order)
        if self.kind == "rotation":
            parts = [self._orientation(g, w, a, order, as_matrix)]
        elif self.kind == "pose":  # g = (R, x), ω = (ω, ẋ), ω̇ = (ω̇, ẍ)
            parts = [self._orientation(g, w, a, order, as_matrix), (g, w, a)[order][:, -3:]]
        elif self.kind == "sphere":
            parts = [self._sphere(g, w, a, order)]
        else:
            parts = [(g, w, a)[order]]
        if single:
            parts = [p[0] for p in parts]
        return Pose(*parts) if self.kind == "pose" else parts[0]

    def _orientation(self, g: np.ndarray, w: Optional[np.ndarray], a: Optional[np.ndarray], order: int,
                     as_matrix: bool) -> np.ndarray:
        """The rotations (quaternions or matrices), ω or ω̇: the first 9 of g, 3 of ω, ω̇."""
        if order == 0:
            R = g[:, :9].reshape(-1, 3, 3)
            return R if as_matrix else _quaternions(R, self.quaternion_order)
        return (w, a)[order - 1][:, :3]

    def _sphere(self, g: np.ndarray, w: Optional[np.ndarray], a: Optional[np.ndarray], order: int) -> np.ndarray:
        """y = R y0, ẏ = R (ω × y0), ÿ = R (ω × (ω × y0) + ω̇ × y0)."""
        R, y0 = g.reshape(-1, 3, 3), self._y0
        if order == 0:
            v = np.broadcast_to(y0, (len(g), 3))
        elif order == 1:
            v = np.cross(w, y0)
        else:
            v = np.cross(w, np.cross(w, y0)) + np.cross(a, y0)
        return np.einsum("nij,nj->ni", R, v)


def plan(problem: Document) -> Curve:
    """Solves a cubic-spline plan (a dict, or the path of a problem file) and returns its
    curve, a Curve: curve(times, order) reads it like scipy's RotationSpline, and
    curve.result is the result dict that symplan.solve would return. A plan that did not
    converge still gives the best curve found, with a RuntimeWarning naming its status.
    Raises SymplanError for a problem the reader refuses, a problem that is not a
    cubic_spline plan, and a solve that left no curve (method single_shooting, or a
    failure: the message gives the result's status and message)."""
    data, _, where = _document(problem)
    try:
        doc = json.loads(data)
    except ValueError:
        doc = None  # malformed: the library says where
    if isinstance(doc, dict) and (doc.get("task"), doc.get("model")) != ("plan", "cubic_spline"):
        raise SymplanError("%sonly cubic_spline plans have a curve (this is a %s of %s); use symplan.solve"
                           % (where + ": " if where else "", doc.get("task"), doc.get("model")))
    out, handle = ctypes.c_void_p(), ctypes.c_void_p()

    def run():
        try:
            call_text(lambda stop, error, size: lib().sp_plan_curve_text(
                data, len(data), stop, ctypes.byref(out), ctypes.byref(handle), error, size))
            return json.loads(ctypes.string_at(out.value))
        except BaseException:  # Ctrl-C comes after the library returned: its curve is freed
            lib().sp_plan_curve_free(handle)
            raise
        finally:
            lib().sp_free_text(out)

    result = arrays(_named(run, where))
    if not handle.value:
        why = "the method single_shooting keeps no curve" if result.get("method") == "single_shooting" else \
            "the solve left no solution (status %s%s)" % (result.get("status"),
                                                         ": " + result["message"] if "message" in result else "")
        raise SymplanError("%sno curve: %s" % (where + ": " if where else "", why))
    curve = Curve(handle.value, result)
    if result.get("status") != "converged":
        warnings.warn("the plan's status is %r: the curve is the best one found" % result.get("status"),
                      RuntimeWarning, stacklevel=2)
    return curve
