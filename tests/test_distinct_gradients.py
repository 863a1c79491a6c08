"""Two inputs' gradients are never one array.

In ``z = x + y`` both adjoints are ``dz``: returned as they were, ``gx`` and
``gy`` were the same NumPy array, so an in-place update of one (gradient
clipping, ``g *= lr`` in an optimizer) silently changed the other. Found
while fuzzing ``sg.grad`` inside differentiated code (issue 12). Checked for
``sg.grad``, ``value_and_grad``, the tape's ``gradient`` and ``jacobian``, and
through a second derivative (``_sg.distinct`` has a rule: identity).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.3, -0.2, 0.5])
Y = np.array([1.0, 0.4, -0.3])


def summed(x, y):
    z = x + y
    return np.sum(z * z)


def independent(grads):
    a, b = grads
    assert not np.may_share_memory(a, b)
    before = b.copy()
    a *= 0.5
    np.testing.assert_array_equal(b, before)


def test_grad():
    gx, gy = sg.grad(summed, wrt=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, 2 * (X + Y))
    independent((gx, gy))


def test_value_and_grad():
    value, grads = sg.value_and_grad(summed, wrt=(0, 1))(X, Y)
    assert value == pytest.approx(summed(X, Y))
    independent(grads)


def test_tape_gradient_and_jacobian():
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(X)
        tape.watch(Y)
        z = X + Y
        w = np.sum(z * z)
    independent(tape.gradient(w, [X, Y]))
    independent(tape.jacobian(z, [X, Y]))


def test_tape_in_function():
    @sg.function
    def taped(x, y):
        with sg.GradientTape() as tape:
            tape.watch(x)
            tape.watch(y)
            w = np.sum((x + y) ** 2)
        return tape.gradient(w, [x, y])

    independent(taped(X, Y))


def cubic(x, y):
    z = x + y
    return np.sum(z * z * x)


def through_an_inner_gradient(x, y):
    gx, gy = sg.grad(cubic, wrt=(0, 1))(x, y)
    return np.sum(gx * gy) + np.sum(gy)


def test_second_order_through_the_gradient_pair():
    check_grads(through_an_inner_gradient, (X, Y), order=1)


# -- A gradient computed inside differentiated code is the user's to write into,
# -- as outside it (fuzz seed 31004, program 905: the adjoint of np.sum is a
# -- read-only view, and writing into it raised "assignment destination is read-only").

def total(d, g):
    return np.sum(d) + np.sum(g * 0.0)


def swaps_inside_a_gradient(x):
    h = sg.grad(total)(x, x)
    h[0], h[1] = h[1], h[0] * x[1]
    q, p = sg.value_and_grad(total, wrt=(0, 1))(x, x)
    return np.sum(h * x) + np.sum(p[0] * x * x[0] * x[2]) + q


def test_writing_into_an_inner_gradient():
    check_grads(swaps_inside_a_gradient, (X,), order=2)
    x0, x1, x2 = X
    expected = [2 + 2 * x0 * x2 + x1 * x2 + x2 ** 2, 2 * x1 + 1 + x0 * x2,
                2 + x0 ** 2 + x0 * x1 + 2 * x0 * x2]
    np.testing.assert_allclose(sg.grad(swaps_inside_a_gradient)(X), expected, rtol=1e-12)
    value, g = sg.value_and_grad(swaps_inside_a_gradient)(X)
    assert value == pytest.approx(swaps_inside_a_gradient(X))
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(taped(swaps_inside_a_gradient, X), expected, rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(swaps_inside_a_gradient, X), expected,
                               rtol=1e-12)


# Beside a Python number's gradient (a NumPy scalar, which takes ``runtime.distinct``'s
# quick path with the arrays): writing into one gradient leaves the others as they were.
def shared_adjoint(x, y, b):
    return np.sum(x + y) * b  # (d/dx and d/dy are one array)


def split_views(x, y, b):
    z = np.concatenate([x, y])  # (d/dx and d/dy are views of one array)
    return np.sum(z * z) + b * b


def with_helper(x, y, b):
    def parts(u, v):
        return u + v, b
    s, c = parts(x, y)
    return np.sum(s) * c


@pytest.mark.parametrize("f", [shared_adjoint, split_views, with_helper])
@pytest.mark.parametrize("b", [0.5, np.float64(0.5)])
def test_beside_a_number_writing_one_gradient_leaves_the_others(f, b):
    x, y = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 4.0])
    gx, gy, gb = sg.grad(f, wrt=(0, 1, 2))(x, y, b)
    eps = 1e-6
    for got, i in ((gx, 0), (gy, 1)):
        args = [x, y, b]
        fd = np.zeros(3)
        for k in range(3):
            up = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            dn = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            up[i][k] += eps
            dn[i][k] -= eps
            fd[k] = (f(*up) - f(*dn)) / (2 * eps)
        np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)
    fdb = (f(x, y, b + eps) - f(x, y, b - eps)) / (2 * eps)
    np.testing.assert_allclose(gb, fdb, rtol=1e-6)
    assert np.ndim(gb) == 0 and not isinstance(gb, np.ndarray)
    before = gy.copy()
    gx[...] = 99.0
    np.testing.assert_array_equal(gy, before)


def test_gradients_in_a_dict_of_parameters_are_distinct():
    def loss(p):
        return np.sum(p["w"] + p["v"]) * p["s"]

    p = {"w": np.ones(3), "v": np.arange(3.0), "s": 2.0}
    g = sg.grad(loss)(p)
    np.testing.assert_array_equal(g["w"], np.full(3, 2.0))
    g["w"][0] = -7.0
    np.testing.assert_array_equal(g["v"], np.full(3, 2.0))
    assert float(g["s"]) == pytest.approx(np.sum(p["w"] + p["v"]))
