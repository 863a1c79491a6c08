"""Second derivatives of code that writes into arrays it made (``passes/functional.py``).

The first derivative's code writes ``a[i] = v`` in place and puts the slot back in its
backward code; differentiating it again refused the write as possibly shared (a view
read before it, the array pushed on a stack in a loop). Code compiled to be
differentiated again now makes each write a new array (``_sg.with_item``), so stencils
filled by slices in loops, recurrences written into a vector, fancy and 2-D writes and
views written into have exact second derivatives, by every route to them: ``sg.grad``
of a gradient, ``sg.hessian``, ``sg.hvp`` (forward over reverse) and nested tapes.
Each is checked against central differences of the (checked) first derivative.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped_hvp

RNG = np.random.default_rng(3)
X = RNG.uniform(-1.0, 1.0, 6)


def stencil_fresh_array(u0, alpha):
    """A Laplacian made anew each step and filled by a slice (a heat equation)."""
    u = u0.copy()
    for _ in range(4):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + alpha * lap
    return np.sum(u ** 3)


def stencil_in_place(u0):
    """The same update written into ``u`` itself, its views read first."""
    u = u0 * 1.0
    for _ in range(3):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(np.sin(u) * u)


def one_update_in_place(u0):
    u = u0 * 1.0
    u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 3)


def recurrence(x):
    y = x * 1.0
    for i in range(1, len(y)):
        y[i] = y[i] * y[i - 1] + 0.5
    return np.sum(y ** 2)


def matrix_writes(x):
    M = np.outer(x[:3], x[3:])
    M[np.diag_indices(3)] = np.sin(x[:3])
    M[0] += x[3:]
    M[:, 1] *= x[:3]
    return np.sum(M @ M)


def repeated_fancy_index(x):
    a = np.zeros(5)
    a[[0, 0, 2]] = x[:3]  # the last write to slot 0 wins
    a[3:] = x[4:] ** 2
    return np.sum(a ** 2 * np.arange(1.0, 6.0))


def through_a_view(x):
    acc = np.zeros(len(x))
    for k in range(len(x)):
        row = acc[k:k + 1]
        row[0] = x[k] ** 2 + acc[k - 1]
    return np.sum(acc ** 2)


def _filled(x, scale):
    out = np.empty((2, len(x)))
    out[0] = x * scale
    out[1, :] = x ** 2
    return out, scale * 2.0


def helper_returning_a_tuple(x, scale):
    out, s = _filled(x, scale)
    out[:, 0] *= s
    return np.sum(np.exp(out))


CASES = [
    (stencil_fresh_array, (X, 0.2)),
    (stencil_fresh_array, (X, np.float64(0.2))),
    (stencil_in_place, (X,)),
    (one_update_in_place, (X,)),
    (recurrence, (X * 0.8,)),
    (matrix_writes, (X,)),
    (repeated_fancy_index, (X,)),
    (through_a_view, (X,)),
    (helper_returning_a_tuple, (X, 0.7)),
]
IDS = [f"{f.__name__}-{type(args[-1]).__name__}" for f, args in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_second_order_against_central_differences(f, args):
    check_grads(f, args, order=2)


def _fd_hessian(f, x, eps=1e-6):
    g = sg.grad(f)
    return np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", [stencil_in_place, recurrence, matrix_writes, through_a_view],
                         ids=lambda f: f.__name__)
def test_hessian_hvp_and_nested_tapes(f):
    x = X * 0.8 if f is recurrence else X
    v = RNG.standard_normal(len(x))
    expected = _fd_hessian(f, x)
    np.testing.assert_allclose(sg.hessian(f)(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sg.hvp(f)(x, v), expected @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(taped_hvp(f, x, v), expected @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sg.function(taped_hvp)(f, x, v), expected @ v, rtol=1e-5,
                               atol=1e-6)


def test_a_nested_tapes_block_writing_into_its_own_array():
    """The inner block itself fills an array (``compile_region``'s code, read again by
    the outer block's compiler)."""
    x, v = X[:4], RNG.standard_normal(4)

    def nested(x, v):
        with sg.GradientTape() as outer:
            outer.watch(x)
            with sg.GradientTape() as inner:
                inner.watch(x)
                y = np.zeros(4)
                y[1:] = x[1:] * x[:-1]
                y[0] = np.sin(x[0])
                loss = np.sum(y ** 2)
            g = inner.gradient(loss, x)
            gv = np.sum(g * v)
        return outer.gradient(gv, x)

    def f(x):
        y = np.concatenate([[np.sin(x[0])], x[1:] * x[:-1]])
        return np.sum(y ** 2)
    np.testing.assert_allclose(nested(x, v), _fd_hessian(f, x) @ v, rtol=1e-5, atol=1e-6)


def test_third_order_through_a_write():
    check_grads(one_update_in_place, (X[:4],), order=3)


def test_the_first_derivative_still_writes_in_place():
    """Only code compiled to be differentiated again pays a copy per write."""
    first = sg.adjoint_source(stencil_fresh_array, wrt=1)
    assert "lap[1:-1] = " in first and "with_item" not in first


def test_a_float_stored_into_an_integer_array_has_no_gradient_at_any_order():
    """The store truncates: piecewise constant (``_sg.place`` marks the index so, and
    the rule gives zeros without keeping the integer array)."""
    def f(x):
        k = np.zeros(3, dtype=int)
        k[0] = x[0] * 4.0
        flags = np.zeros(2, dtype=bool)
        flags[1] = x[1]
        return np.sum(x * k) + np.sum(x ** 3) + np.sum(flags * x[:2])
    x = np.array([0.6, -0.2, 0.4])
    np.testing.assert_allclose(sg.grad(f)(x), [2.0 + 3 * 0.36, 3 * 0.04 + 1.0, 3 * 0.16])
    np.testing.assert_allclose(sg.hessian(f)(x), np.diag(6 * x), atol=1e-12)
    check_grads(f, (x,), order=2)


def test_a_write_into_an_argument_is_still_written_and_put_back():
    """A write into the caller's array is not made a new array: the first derivative's
    code writes it and puts it back, and so does the code differentiated again."""
    def f(x):
        x[0] = x[1] * x[2]
        return np.sum(x ** 3)
    x = np.array([0.3, -0.7, 1.1])
    h = sg.hessian(f)(x)
    np.testing.assert_array_equal(x, [0.3, -0.7, 1.1])
    g = sg.grad(f)
    eps = 1e-6
    fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)
