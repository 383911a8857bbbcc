"""The holonomic steppers of integrators/sp_holonomic.h on a model given by Python
callables: RATTLE, SHAKE, the symplectic Euler pair and RATTLE's compositions."""
from __future__ import annotations

import ctypes
import functools
from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Union

import numpy as np

from ._lib import SymplanError, lib

_vec = ctypes.POINTER(ctypes.c_double)
# int (*potential)(const double *q, double *V, double *grad, double *hess, void *params)
_POTENTIAL = ctypes.CFUNCTYPE(ctypes.c_int, _vec, _vec, _vec, _vec, ctypes.c_void_p)
# int (*constraints)(const double *q, double *g, double *G, double *d2g, void *params)
_CONSTRAINTS = ctypes.CFUNCTYPE(ctypes.c_int, _vec, _vec, _vec, _vec, ctypes.c_void_p)


class _Model(ctypes.Structure):
    """sp_holonomic_model, field for field (a public, installed struct)."""
    _fields_ = [("n", ctypes.c_int), ("m", ctypes.c_int), ("mass", _vec),
                ("potential", _POTENTIAL), ("constraints", _CONSTRAINTS), ("params", ctypes.c_void_p),
                ("mass_matrix", _vec)]


class _NewtonOptions(ctypes.Structure):
    """sp_newton_options (integrators/sp_newton.h)."""
    _fields_ = [("tol", ctypes.c_double), ("max_iter", ctypes.c_int)]


# SP_HOL_MAX_N and SP_HOL_MAX_M of sp_holonomic.h
_MAX_N, _MAX_M = 16, 8

# a vector or matrix: a numpy array or what np.asarray reads as one
ArrayLike = Union[np.ndarray, Sequence[Any], float]


@functools.lru_cache(maxsize=None)
def _stepper_lib():
    """The library with the prototypes of the holonomic stepper."""
    so = lib()
    c_void_p, c_int = ctypes.c_void_p, ctypes.c_int
    for name, restype, argtypes in [
            ("sp_holonomic_method_by_name", c_void_p, [ctypes.c_char_p]),
            ("sp_holonomic_alloc", c_void_p, [ctypes.POINTER(_Model), c_void_p]),
            ("sp_holonomic_free", None, [c_void_p]),
            ("sp_holonomic_set_options", None, [c_void_p, ctypes.POINTER(_NewtonOptions)]),
            ("sp_holonomic_step", c_int, [c_void_p, ctypes.c_double, _vec, _vec]),
            ("sp_holonomic_residuals", c_int, [c_void_p, _vec, _vec, _vec, _vec]),
            ("sp_holonomic_energy", c_int, [c_void_p, _vec, _vec, _vec])]:
        fn = getattr(so, name)
        fn.restype, fn.argtypes = restype, argtypes
    return so


class Trajectory(NamedTuple):
    """Rows 0…steps: q and p (steps+1 x n), the constraint residual max|g(q)| and the
    hidden one max|G(q)M⁻¹p| (steps+1), and the energy H = ½pᵀM⁻¹p + V(q) when the
    potential V was given (else None)."""
    q: np.ndarray
    p: np.ndarray
    residual: np.ndarray
    hidden_residual: np.ndarray
    energy: Optional[np.ndarray]


def _wrap(fn: Any, kind: str, n: int, first: Callable[[np.ndarray], ArrayLike],
          second: Callable[[np.ndarray], ArrayLike], sizes: Any, raised: List[BaseException]) -> Any:
    """A C callback over a Python function: q in, the outputs the stepper asks for (a
    NULL one is not wanted) written in place. A Python exception is kept in `raised` and
    reported to the stepper as a failure (non-zero), which ends the step with
    model_failed; rattle() then raises it. first(q) fills the first output (V or g),
    second(q) the second (∇V or G), of `sizes` numbers (checked: C arrays have no bounds);
    the stepper never asks for the third (∇²V or ∂²g)."""
    def callback(q, out1, out2, out3, params):
        try:
            x = np.ctypeslib.as_array(q, (n,)).copy()
            if out3:
                raise SymplanError("%s: second derivatives are not provided" % kind)
            for out, f, size in ((out1, first, sizes[0]), (out2, second, sizes[1])):
                if out:
                    value = np.ascontiguousarray(f(x), dtype=float).ravel()
                    if value.size != size:
                        raise SymplanError("%s: a callable returned %d numbers, not %d" % (kind, value.size, size))
                    ctypes.memmove(out, value.ctypes.data, value.nbytes)
            return 0
        except BaseException as e:  # noqa: B902 -- must not cross into C
            raised.append(e)
            return 1
    return fn(callback)


def rattle(mass: ArrayLike, potential_grad: Optional[Callable[[np.ndarray], ArrayLike]],
           constraints: Callable[[np.ndarray], ArrayLike], constraint_jacobian: Callable[[np.ndarray], ArrayLike],
           q0: ArrayLike, p0: ArrayLike, h: float, steps: int, method: str = "rattle",
           potential: Optional[Callable[[np.ndarray], float]] = None, tol: float = 1e-15,
           max_iter: int = 50) -> Trajectory:
    """Steps the constrained system H = ½pᵀM⁻¹p + V(q), g(q) = 0 with a holonomic method
    of integrators/sp_holonomic.h ("rattle", "shake", "se_a", "se_b", "se_ab",
    "rattle_tj4", "rattle_suzuki5", "rattle_tj6", "rattle_kl8", "rattle_kl10", "lobatto3",
    "lobatto4", "lobatto5"), `steps` steps
    of size h from (q0, p0).

    mass: the diagonal of M (n numbers), or a full constant symmetric positive definite M
    (n x n); potential_grad(q) -> ∇V (n; None: V = 0);
    constraints(q) -> g (m); constraint_jacobian(q) -> G = Dg (m x n); potential(q) -> V,
    only for the energy. (q0, p0) should lie on T*Q: g(q0) = 0 and G(q0)M⁻¹p0 = 0.
    tol and max_iter are the Newton options (the problem files' default: 1e-15, 50).
    Returns a Trajectory; raises SymplanError when a step fails (with the step) and a
    callable's own exception as it was raised."""
    so = _stepper_lib()
    mass = np.ascontiguousarray(mass, dtype=float)
    full = mass.ndim == 2
    n = mass.shape[0] if full else mass.size
    if full and (mass.shape != (n, n) or not np.allclose(mass, mass.T, rtol=0, atol=0)
                 or np.any(np.linalg.eigvalsh(mass) <= 0)):
        raise SymplanError("mass: a full mass matrix must be square, symmetric and positive definite")
    diagonal = np.ascontiguousarray(np.diag(mass) if full else mass)
    q = np.array(q0, dtype=float)
    p = np.array(p0, dtype=float)
    m = np.asarray(constraints(q), dtype=float).size
    if q.size != n or p.size != n:
        raise SymplanError("q0 and p0 must have %d entries, as mass has" % n)
    if not (0 < n <= _MAX_N and 0 < m <= _MAX_M and np.all(diagonal > 0) and np.all(np.isfinite(mass))):
        raise SymplanError("the stepper takes 1 to %d coordinates, 1 to %d constraints and positive, finite masses"
                           % (_MAX_N, _MAX_M))
    # the C side takes an int and a double: refuse what they cannot hold instead of wrapping
    if not (isinstance(max_iter, (int, np.integer)) and 1 <= max_iter <= 2**31 - 1):
        raise SymplanError("max_iter: must be an integer from 1 to %d" % (2**31 - 1))
    if not (np.isfinite(tol) and tol > 0):
        raise SymplanError("tol: must be a positive number")
    if not (isinstance(steps, (int, np.integer)) and 0 <= steps <= 2**31 - 1) or not (np.isfinite(h) and h > 0):
        raise SymplanError("steps and h: a number of steps from 0 and a positive step")
    raised = []
    grad = potential_grad if potential_grad is not None else (lambda x: np.zeros(n))
    value = potential if potential is not None else (lambda x: 0.0)
    # the callbacks are kept in locals for as long as the stepper may call them
    pot = _wrap(_POTENTIAL, "potential", n, value, grad, (1, n), raised)
    con = _wrap(_CONSTRAINTS, "constraints", n, constraints, constraint_jacobian, (m, m * n), raised)
    model = _Model(n, m, diagonal.ctypes.data_as(_vec), pot, con, None, mass.ctypes.data_as(_vec) if full else None)
    found = so.sp_holonomic_method_by_name(method.encode())
    if not found:
        raise SymplanError("method: unknown holonomic method '%s'" % method)
    stepper = so.sp_holonomic_alloc(ctypes.byref(model), found)
    if not stepper:
        raise SymplanError("out of memory", 1)
    try:
        so.sp_holonomic_set_options(stepper, ctypes.byref(_NewtonOptions(tol, max_iter)))
        qs, ps = np.empty((steps + 1, n)), np.empty((steps + 1, n))
        res, hid = np.empty(steps + 1), np.empty(steps + 1)
        energy = np.empty(steps + 1) if potential is not None else None
        a, b, e = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        qp, pp = q.ctypes.data_as(_vec), p.ctypes.data_as(_vec)

        def check(status, k):
            """A callable's exception as raised, else the stepper's failure in the words of
            a result's message ("newton_failed: the implicit solve did not converge at step 3")."""
            if raised:
                raise raised[0]
            if status != 0:
                raise SymplanError("%s: %s at step %d" % (so.sp_status_name(status).decode(),
                                                         so.sp_status_message(status).decode(), k),
                                   so.sp_status_name(status).decode())

        for k in range(steps + 1):
            if k > 0:
                check(so.sp_holonomic_step(stepper, h, qp, pp), k)
            check(so.sp_holonomic_residuals(stepper, qp, pp, ctypes.byref(a), ctypes.byref(b)), k)
            qs[k], ps[k], res[k], hid[k] = q, p, a.value, b.value
            if energy is not None:
                check(so.sp_holonomic_energy(stepper, qp, pp, ctypes.byref(e)), k)
                energy[k] = e.value
        return Trajectory(qs, ps, res, hid, energy)
    finally:
        so.sp_holonomic_free(stepper)
