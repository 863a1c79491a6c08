"""``copy.copy`` / ``copy.deepcopy`` of parameter trees, and ``dict(p)`` of a dict a
helper returns.

``copy.copy(p)`` was refused ("cannot tell at compile time which function `copier`
is": the compiler read into the copy module's source), ``copy.deepcopy(p)`` too, and
``dict(p)`` of ``p = helper(x)`` was refused before the helper was inlined. A dict or
list whose keys or length the code shows is now built anew from its items (each
deep-copied for ``deepcopy``: arrays copied, so writes into the copy leave the
original as Python leaves it), an array copied (``calls._copied``,
``_sg.copy_value``); what the copy shares with the original (``copy.copy``'s items)
is shared for the alias analysis (``aliasing._shared_by``).
"""
import copy

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])
H = np.array([[0.5, -0.2], [0.1, 0.3]])


def _params(x):
    return {"W": x[:4].reshape(2, 2) * 1.0, "b": x[4:] * 1.0}


def deep_then_rebind(x):
    p = _params(x)
    q = copy.deepcopy(p)
    q["W"] = q["W"] * 2.0
    return np.sum(np.tanh(H @ q["W"] + q["b"])) + np.sum(p["W"])


def shallow_then_rebind(x):
    p = _params(x)
    q = copy.copy(p)
    q["b"] = q["b"] ** 2
    return np.sum(q["b"] * p["b"]) + np.sum(q["W"])


def dict_of_a_helper(x):
    p = _params(x)
    q = dict(p)
    q["b"] = q["b"] ** 2
    return np.sum(q["b"] * p["b"]) + np.sum(q["W"])


def deep_list_and_tuple(x):
    xs = [x[:3] * 1.0, x[3:] * 1.0]
    ys = copy.deepcopy(xs)
    ys[0] = ys[0] * ys[1]
    t = copy.deepcopy((xs[1], x[0] * 2.0))
    return np.sum(xs[0] * ys[0]) + np.sum(t[0]) * t[1]


def deep_array_written(x):
    z = copy.deepcopy(x)
    z[0] = z[1] * 4.0
    return np.sum(x * z)


def copied_into_its_own_name(x):
    p = dict(w=x[:3] * 1.0, b=x[3:] * 1.0)
    p = copy.copy(p)
    p.update(b=p["b"] ** 2)
    q = {"u": x[0], "v": x[1]}
    q = copy.deepcopy(q)
    q |= {"u": q["v"] * 3.0}
    return np.sum(p["w"] * p["b"]) + q["u"] * q["v"]


@pytest.mark.parametrize("f", [deep_then_rebind, shallow_then_rebind, dict_of_a_helper,
                               deep_list_and_tuple, deep_array_written,
                               copied_into_its_own_name])
def test_copies_in_every_form(f):
    assert_every_form(f, X.copy())


def update_copy(p, x):
    q = copy.deepcopy(p)
    q["W"] = q["W"] - 0.1 * np.cos(q["W"]) * x[0]
    return np.sum(q["W"] * p["b"]) + np.sum(q["b"] * x)


def test_a_copy_of_a_dict_passed():
    p = _params(X)
    check_grads(update_copy, (p, X[:2].copy()))
    before = {k: v.copy() for k, v in p.items()}
    sg.grad(update_copy)(p, X[:2].copy())
    for k in p:
        np.testing.assert_array_equal(p[k], before[k])


def shallow_copy_of_arrays_written(x):
    xs = [x[:3] * 1.0, x[3:] * 1.0]
    ys = copy.copy(xs)
    ys[0][0] = x[5] * 10.0  # (writes into xs[0] too, as Python does)
    return np.sum(xs[0] ** 2) + np.sum(ys[0])


def test_a_write_through_a_shallow_copy_is_refused():
    with pytest.raises(sg.CompileError, match="ys"):
        sg.grad(shallow_copy_of_arrays_written)(X.copy())
