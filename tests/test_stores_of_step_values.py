"""A store of a value without a derivative into an array nothing has read yet:
``y[0] = np.floor(p[0])``. The store itself was counted as a read of ``y`` by the
gradient computation (it mentions ``p``), so it was refused while the same value
through a temporary (``z = np.floor(p[0]); y[0] = z``) was taken. A store after a
read whose derivative needs ``y``'s values stays refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form


def floor_into_a_buffer(p):
    y = np.zeros(3)
    y[0] = np.floor(p[0])
    y[1] = np.sin(p[1])
    return np.sum(y * y) + p[2] * y[0]


def rounded_in_a_loop(p):
    y = np.ones(3)
    for k in range(3):
        y[k] = np.round(p[k] * 2.0) / 2.0
    return np.sum(np.exp(p) * y)


@pytest.mark.parametrize("f", [floor_into_a_buffer, rounded_in_a_loop])
def test_every_form(f):
    assert_every_form(f, np.array([1.3, -0.4, 0.8]))


def store_after_a_read(p):
    y = np.ones(3)
    z = np.sum(np.sin(y * p))
    y[0] = np.floor(p[0])
    return z + np.sum(y)


def test_a_store_after_a_read_that_needs_the_values_is_refused():
    with pytest.raises(sg.CompileError, match="after the gradient computation has read"):
        sg.grad(store_after_a_read)(np.array([1.3, -0.4, 0.8]))


XK = np.array([0.0, 0.4, 1.1, 1.5, 2.3])


def spline_second_derivatives(y):
    """The natural cubic spline's tridiagonal system, assembled item by item."""
    n = len(XK)
    h = np.diff(XK)
    A = np.zeros((n, n))
    rhs = np.zeros(n)
    for i in range(1, n - 1):
        A[i, i - 1] = h[i - 1]
        A[i, i] = 2.0 * (h[i - 1] + h[i])
        A[i, i + 1] = h[i]
        rhs[i] = 3.0 * ((y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1])
    A[0, 0] = 1.0
    A[n - 1, n - 1] = 1.0
    c = np.linalg.solve(A, rhs)
    return np.sum(c ** 2)


def spline_in_the_knots(x):
    """The same with the knots differentiated: ``A`` holds copies of ``h``'s items,
    which the right-hand side reads again (``A[i] = h[i]`` made them share)."""
    h = np.diff(np.cumsum(np.exp(x)))
    A = np.zeros(len(h))
    total = 0.0
    for i in range(len(h)):
        A[i] = h[i]
        total = total + np.sin(x[i]) / h[i]
    return total + np.sum(A ** 2)


@pytest.mark.parametrize("f", [spline_second_derivatives, spline_in_the_knots])
def test_stores_of_items_of_another_array(f):
    assert_every_form(f, np.array([0.3, -0.5, 0.9, 0.2, -0.1]))
