"""Calls that may hand back their argument itself, or a view of it, then written
through (hunt 5 A1): ``a = CALL(x); a[0] = 2.0; return np.sum(x * 3.0)`` gave the
gradient as if ``x`` were unchanged ([3, 3, 3], not [0, 3, 3]), in every form.

Now the result may share the argument's array, as a view's does: such a write is
refused, naming the line (srcgrad does not guess), and the same calls without a write
still differentiate. Calls that copy (``np.array(x)``, ``x.astype(float)``) still let
the code write into their result.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.5, 1.5, -0.7])
M = np.array([[0.5, 1.5], [-0.7, 2.0]])


def astype_no_copy(x):
    a = x.astype(np.float64, copy=False)
    a[0] = 2.0
    return np.sum(x * 3.0)


def array_copy_none(x):
    a = np.array(x, copy=None)
    a += 1.0
    return np.sum(x * x)


def einsum_diagonal(m):
    d = np.einsum("ii->i", m)
    d[0] = 2.0
    return np.sum(m * 3.0)


def matrix_power_one(m):
    p = np.linalg.matrix_power(m, 1)
    p[0, 0] = 2.0
    return np.sum(m * 3.0)


def float64_of_an_array(x):
    a = np.float64(x)
    a[0] = 2.0
    return np.sum(x * 3.0)


def stop_gradient_written(x):
    a = sg.stop_gradient(x)
    a[0] = 2.0
    return np.sum(x * 3.0)


def nested_identity(x):
    def ident(v):
        return v
    a = ident(x)
    a[0] = 2.0
    return np.sum(x * 3.0)


def nested_lambda_slice(x):
    first = lambda v: v[0:2]  # noqa: E731
    a = first(x)
    a[1] += 5.0 * x[2]
    return np.sum(x * 3.0)


def require_and_contiguous(x):
    a = np.ascontiguousarray(np.require(x))
    a[0] = 2.0
    return np.sum(x * 3.0)


def builtin_max_of_one(x):
    a = max([x])
    a[0] = 2.0
    return np.sum(x * 3.0)


WRITES = [(einsum_diagonal, M), (stop_gradient_written, X),
          (nested_identity, X), (nested_lambda_slice, X), (builtin_max_of_one, X),
          (require_and_contiguous, X)]
# The result a view of the argument, made by a call whose view of it the compiler can
# make again: the write is one into the argument (passes/normalize/views.py).
WRITTEN_THROUGH = [(astype_no_copy, X), (matrix_power_one, M), (float64_of_an_array, X)]


@pytest.mark.parametrize("f, x", WRITES, ids=[f.__name__ for f, _ in WRITES])
def test_a_write_through_the_result_is_refused(f, x):
    with pytest.raises(sg.CompileError, match="shared|share"):
        sg.grad(f)(x.copy())


@pytest.mark.parametrize("f, x", WRITTEN_THROUGH, ids=[f.__name__ for f, _ in WRITTEN_THROUGH])
def test_a_write_through_the_result_is_one_into_the_argument(f, x):
    # (It was refused: the write into the result changes the argument the value reads.)
    check_grads(f, (x.copy(),), order=1)
    value, g = sg.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy()))
    assert g.flat[0] == 0.0  # (overwritten before the value reads it)


def test_an_update_through_the_result_is_one_of_the_argument():
    # (``a += 1.0``: a write of all of the view, ``a[...] = a + 1.0``, into ``x``; the value
    # then reads ``x + 1``. Refused before, as an update of an array ``x`` may share.)
    check_grads(array_copy_none, (X.copy(),), order=1)
    value, g = sg.value_and_grad(array_copy_none)(X.copy())
    assert np.isclose(value, array_copy_none(X.copy()))
    np.testing.assert_allclose(g, 2.0 * (X + 1.0))


def read_only_uses(x, m):
    a = x.astype(np.float64, copy=False) + np.asarray(x) * x
    t = np.einsum("ij->ji", m)
    b = max(x[0], x[1]) * np.float64(x[2])
    return np.sum(a ** 2) + np.sum(t * m) + b + np.sum(np.linalg.matrix_power(m, 1) ** 2)


def copies_written(x):
    a = np.array(x)
    a[0] = 2.0
    b = x.astype(np.float64)
    b[1] = 0.0
    c = np.asarray(x, copy=True)  # (asarray is a view otherwise: copy=True makes it new)
    c[2] = x[0] * 3.0
    d = x.reshape(3, copy=True)
    d[0] = 1.0
    return np.sum(a * x) + np.sum(b * x) + np.sum(c * c * x) + np.sum(d * x)


def test_the_calls_without_a_write_and_copies_written_into():
    check_grads(read_only_uses, (X, M), order=2)
    check_grads(copies_written, (X,), order=2)
