"""``s[()]`` and ``s[...]`` of a NumPy scalar (a reduction's np.float64 result).

The subscript adjoint added the gradient into ``zeros_like(s)``, a NumPy scalar,
which takes no item assignment: every reverse form crashed with a TypeError.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.3, -0.8, 1.2])
M = np.array([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4], [1.5, -0.6, 0.8]])


def empty_tuple_index(x):
    s = np.sum(x ** 2)
    return s[()] * 2.0


def ellipsis_index(x):
    return np.sin(np.sum(x)[...]) * np.sum(x ** 3)


def trace_item(m):
    return np.trace(m)[()] ** 2 + np.sum(m * m)


def twice(x):
    s = np.prod(x + 2.0)
    return s[()][...] * s


@pytest.mark.parametrize("f, x", [(empty_tuple_index, X), (ellipsis_index, X), (trace_item, M), (twice, X)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_scalar_subscript(f, x):
    check_grads(f, (x,), order=2)
    g = sg.grad(f)(x)
    value, g2 = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    np.testing.assert_allclose(g2, g, rtol=1e-14)
    np.testing.assert_allclose(taped(f, x), g, rtol=1e-14)
    d = np.linspace(0.5, 1.5, x.size).reshape(x.shape)
    _, tangent = sg.jvp(f, (x,), (d,))
    assert tangent == pytest.approx(np.sum(g * d), rel=1e-12)
