"""NumPy functions that compute integers, booleans or indices carry no gradient.

``np.digitize(x, bins)`` (and ``np.isin``, ``np.lexsort``, ``np.unravel_index``,
``np.tril_indices_from``, ...) was refused ("no derivative rule") where its result
reached the value: they are piecewise constant, as ``np.searchsorted`` already was.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])
BINS = np.linspace(-1.0, 2.0, 4)


def binned(x):
    return np.sum(x ** 2 * np.digitize(x, BINS))


def membership(x):
    return np.sum(x * np.isin(np.round(x, 1), [0.3, 0.9]) + x ** 2 * np.isposinf(x))


def ordered(x):
    order = np.lexsort((x[::-1], np.round(x)))
    return np.sum(x[order] * np.arange(6.0))


def unraveled(x):
    m = x.reshape(2, 3)
    i, j = np.unravel_index(np.argmax(m), m.shape)
    rows, cols = np.triu_indices_from(m[:, :2] @ m[:, :2].T)
    return m[i, j] * np.sum(m[:, 0]) + np.sum(m[rows, cols] ** 2)


@pytest.mark.parametrize("f", [binned, membership, ordered, unraveled])
def test_integer_valued_results_are_constants(f):
    check_grads(f, (X.copy(),))

    def taped(x):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)
    want = sg.grad(f)(X.copy())
    np.testing.assert_allclose(taped(X.copy()), want, rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(X.copy()), want, rtol=1e-12)
