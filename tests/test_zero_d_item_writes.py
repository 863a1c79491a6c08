"""A 0-d array written through ``[...]`` (``ll = np.zeros(()); ll[...] += v``), the
value returned as it is or through ``float(ll)``: the seed was a Python float, indexed as
``dll[...]`` in the adjoint code: TypeError (found by a battery of statistics programs).
Also ``check_grads`` of a value of one element shaped ``(1, 1)``, which ``sg.grad``
takes."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


def returned_as_is(x):
    ll = np.zeros(())
    ll[...] = np.sum(x ** 2)
    return ll * 1.0


def accumulated_then_float(x):
    ll = np.zeros(())
    for v in x:
        ll[...] += np.log1p(v ** 2)
    return float(ll)


def test_a_zero_d_array_written_by_item():
    x = np.array([0.4, -0.7, 1.1])
    for f in (returned_as_is, accumulated_then_float):
        assert_every_form(f, x, order=1)  # (second order: a TypeError left, stop 49's note)
    np.testing.assert_allclose(sg.grad(accumulated_then_float)(x), 2 * x / (1 + x ** 2))


def quadratic_form(w):
    return w[None, :] @ np.array([[2.0, 0.3], [0.3, 1.0]]) @ w[:, None]  # shape (1, 1)


def test_check_grads_of_a_one_by_one_value():
    w = np.array([0.5, -0.2])
    check_grads(quadratic_form, (w,))
    np.testing.assert_allclose(sg.grad(quadratic_form)(w), [1.88, -0.1])


def test_sorted_dict_items_refused_not_a_numpy_error():
    """(``sorted(p.items())`` of a parameter dict raised NumPy's ValueError from inside
    srcgrad; sorting its keys works.)"""
    params = {"W": np.array([[0.5, -0.3], [0.2, 0.8]]), "b": np.array([0.1, -0.2])}

    def by_items(p):
        items = sorted(p.items())
        return np.sum(np.tanh(X1 @ items[0][1] + items[1][1]))

    def by_keys(p):
        ks = sorted(p)
        return np.sum(np.tanh(X1 @ p[ks[0]] + p[ks[1]]))
    with pytest.raises(NotDifferentiableError, match="sorted of items that are not real"):
        sg.grad(by_items)(params)
    g = sg.grad(by_keys)(params)
    np.testing.assert_allclose(g["b"], 1 - np.tanh(X1 @ params["W"] + params["b"])[0] ** 2)


X1 = np.array([[1.0, 2.0]])
