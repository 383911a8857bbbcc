"""rattle() with a model in Python: the spherical pendulum of data/spherical_pendulum.json
(m = g = l = 1, V = q_z, g(q) = ½(|q|² − 1)) against the built-in model's run."""
import numpy as np
import pytest

import symplan

STEPS = 2000


def pendulum(method="rattle", **kw):
    return symplan.rattle(
        mass=[1.0, 1.0, 1.0],
        potential_grad=lambda q: [0.0, 0.0, 1.0],
        constraints=lambda q: [0.5 * (q @ q - 1.0)],
        constraint_jacobian=lambda q: q.reshape(1, 3),
        q0=[0.0, 1.0, 0.0], p0=[1.0, 0.0, 1.0], h=1e-3, steps=STEPS, method=method,
        potential=lambda q: q[2], **kw)


@pytest.mark.parametrize("scheme", ["rattle", "rattle_tj4", "lobatto4"])
def test_the_builtin_pendulum(scheme, data, load):
    problem = load(data / "spherical_pendulum.json")
    problem.update(scheme=scheme, steps=STEPS, record_every=1, symplecticity_defect=False)
    builtin = symplan.solve(problem)
    run = pendulum(scheme)
    assert run.q.shape == (STEPS + 1, 3)
    assert np.abs(run.q - builtin["trajectory"]["q"]).max() <= 1e-12
    assert np.abs(run.p - builtin["trajectory"]["p"]).max() <= 1e-12
    assert run.residual.max() == pytest.approx(builtin["diagnostics"]["constraint_residual"], abs=1e-15)
    assert run.hidden_residual.max() <= 1e-14
    assert np.abs(run.energy - run.energy[0]).max() == pytest.approx(builtin["diagnostics"]["energy_error"],
                                                                     rel=1e-6)


def test_failures_raise():
    def broken(q):
        raise ZeroDivisionError("in the model")

    with pytest.raises(ZeroDivisionError, match="in the model"):
        symplan.rattle([1.0] * 3, broken, lambda q: [0.5 * (q @ q - 1.0)], lambda q: q.reshape(1, 3),
                       [0.0, 1.0, 0.0], [1.0, 0.0, 1.0], 1e-3, 5)
    with pytest.raises(symplan.SymplanError, match="returned 2 numbers, not 3"):
        symplan.rattle([1.0] * 3, lambda q: [0.0, 1.0], lambda q: [0.5 * (q @ q - 1.0)], lambda q: q.reshape(1, 3),
                       [0.0, 1.0, 0.0], [1.0, 0.0, 1.0], 1e-3, 5)
    with pytest.raises(symplan.SymplanError, match="unknown holonomic method 'verlet'"):
        pendulum("verlet")
    with pytest.raises(symplan.SymplanError, match="^newton_failed: .* at step 1$"):
        pendulum(max_iter=1)
    # what the C side cannot hold is refused by name, not wrapped or called out of memory
    with pytest.raises(symplan.SymplanError, match="positive, finite masses"):
        symplan.rattle([np.inf] * 3, lambda q: np.zeros(3), lambda q: [0.5 * (q @ q - 1.0)],
                       lambda q: q.reshape(1, 3), [0.0, 1.0, 0.0], [1.0, 0.0, 1.0], 1e-3, 5)
    with pytest.raises(symplan.SymplanError, match="max_iter: must be an integer"):
        pendulum(max_iter=2**40)


def test_a_full_mass_matrix_in_skew_coordinates():
    """The pendulum in coordinates y = A⁻¹q (M_y = AᵀA): A y_k is the built-in q_k."""
    A = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0.2, 0.0, 1.0]])
    run = symplan.rattle(
        mass=A.T @ A,
        potential_grad=lambda y: A[2],
        constraints=lambda y: [0.5 * ((A @ y) @ (A @ y) - 1.0)],
        constraint_jacobian=lambda y: (A.T @ (A @ y)).reshape(1, 3),
        q0=np.linalg.solve(A, [0.0, 1.0, 0.0]), p0=A.T @ [1.0, 0.0, 1.0], h=1e-3, steps=STEPS,
        potential=lambda y: (A @ y)[2])
    plain = pendulum()
    assert np.abs(run.q @ A.T - plain.q).max() <= 1e-12
    assert run.hidden_residual.max() <= 1e-14
    with pytest.raises(symplan.SymplanError, match="positive definite"):
        symplan.rattle(np.array([[1.0, 2.0], [2.0, 1.0]]), None, lambda q: [q[0]], lambda q: np.array([[1.0, 0.0]]),
                       [0.0, 1.0], [0.0, 1.0], 1e-3, 5)
