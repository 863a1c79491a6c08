"""A tape watches by identity, and a block's code is compiled for which of its inputs are
one array: it was reused when they were not (``kern_grad(X, Z)`` then ``kern_grad(X,
X)``: the second argument's dependence dropped; ``tape.watch(src)`` with ``src is b``
then ``src is a``: None). The pattern is part of the key now (``tape._aliases``).

A Python number watched by name and also held by a container the block hands to a helper
(``box = [lam]``, ``f(box)``): the helper's read was a constant (None); now refused, and
the remedy it names (``tape.watch(hp["lam"])``) is differentiated through the helper."""
import numpy as np
import pytest

import srcgrad as sg


def _rbf_sum(X1, X2):
    d = X1[:, None, :] - X2[None, :, :]
    return np.sum(np.exp(-np.sum(d ** 2, -1)))


def kern_grad(X1, X2):
    with sg.GradientTape() as tape:
        tape.watch(X1)
        k = _rbf_sum(X1, X2)
    return tape.gradient(k, X1)


@sg.function
def kern_grad_compiled(X1, X2):
    with sg.GradientTape() as tape:
        tape.watch(X1)
        k = _rbf_sum(X1, X2)
    return tape.gradient(k, X1)


def _fd(f, X, eps=1e-6):
    g = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[i] = eps
        g[i] = (f(X + d) - f(X - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("form", [kern_grad, kern_grad_compiled])
def test_same_array_twice_after_two_arrays(form):
    X = np.array([[0.1, 0.4], [0.5, -0.2], [0.3, 0.3]])
    Z = np.array([[0.0, 0.1], [0.2, 0.2]])
    np.testing.assert_allclose(form(X, Z), _fd(lambda v: _rbf_sum(v, Z), X), rtol=1e-6)
    np.testing.assert_allclose(form(X, X), _fd(lambda v: _rbf_sum(v, v), X), rtol=1e-6)
    np.testing.assert_allclose(form(X, Z), _fd(lambda v: _rbf_sum(v, Z), X), rtol=1e-6)


def grad_wrt(a, b, src):
    with sg.GradientTape() as tape:
        tape.watch(src)
        y = np.sum(a * b ** 2)
    return tape.gradient(y, src)


def test_watched_argument_is_another_between_calls():
    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(grad_wrt(a, b, b), 2 * a * b)
    np.testing.assert_allclose(grad_wrt(a, b, a), b ** 2)


def test_item_of_a_dict_is_the_other_argument():
    def step(x, params):
        with sg.GradientTape() as tape:
            tape.watch(params["w"])
            y = np.sum(params["w"] * x)
        return tape.gradient(y, params["w"])

    w, x = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    np.testing.assert_allclose(step(x, {"w": w}), x)
    np.testing.assert_allclose(step(w, {"w": w}), 2 * w)


W = np.array([0.5, -0.8])


def _scaled(b):
    return b[0] * np.sum(W ** 2)


def test_number_held_by_a_container_handed_on_refused():
    lam = 0.45
    box = [lam]
    with pytest.raises(sg.CompileError, match="very Python number"):
        with sg.GradientTape() as tape:
            tape.watch(lam)
            y = _scaled(box)
        tape.gradient(y, lam)


def _ridge(hp):
    X = np.array([[1.0, 0.3], [0.2, 1.5], [0.7, -0.4]])
    yv = np.array([1.0, 0.0, 2.0])
    wr = np.linalg.solve(X.T @ X + hp["lam"] * np.eye(2), X.T @ yv)
    return np.sum(wr ** 2)


def test_number_watched_where_held_read_by_a_helper():
    box = [0.45]
    with sg.GradientTape() as tape:
        tape.watch(box[0])
        y = _scaled(box)
    np.testing.assert_allclose(tape.gradient(y, box[0]), np.sum(W ** 2))
    hp = {"lam": 0.3}
    with sg.GradientTape() as tape:
        tape.watch(hp["lam"])
        v = _ridge(hp)
    eps = 1e-6
    fd = (_ridge({"lam": 0.3 + eps}) - _ridge({"lam": 0.3 - eps})) / (2 * eps)
    np.testing.assert_allclose(tape.gradient(v, hp["lam"]), fd, rtol=1e-6)


def _refused(x):
    v = np.ones(3)
    u = x * 0.5
    w = u
    u[1:] = u[:2] * v[0]  # (a write into an array another name holds: refused)
    return np.sum(w * x)


def _fine(x):
    return np.sum(np.sin(x))


def test_a_refusal_is_not_kept_for_another_function():
    """A block refused for one function its code calls (a closure's variable) was refused
    again for every later function called there: the refusal is kept for the same
    functions only."""
    x0 = np.array([0.37, -0.52, 0.81])
    for f in (_refused, _fine):
        def taped():
            x = x0.copy()
            with sg.GradientTape() as t:
                t.watch(x)
                y = f(x)
            return t.gradient(y, x)
        if f is _refused:
            with pytest.raises(sg.CompileError):
                taped()
        else:
            np.testing.assert_allclose(taped(), np.cos(x0))
