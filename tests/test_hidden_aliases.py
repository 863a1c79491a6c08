"""Writes into an array that another name holds without the alias analysis seeing it:
through what a container's ``get``/``pop``/``setdefault``, ``next`` or
``operator.getitem`` hands back; through views that ``np.einsum`` of one operand,
``np.split`` unpacked, ``np.imag``, ``np.broadcast_arrays``, ``np.meshgrid(copy=False)``
and ``sliding_window_view`` give; and attribute stores into an array (``w.real = c``,
``y.flat = c``, ``y.shape = s``). Each gave a silently wrong gradient (found by a battery
of NumPy idioms); now refused, naming the line. Code without the alias is differentiated
(checked against central differences)."""
import operator
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form, taped  # noqa: E402


def get_existing(x):
    y = x * 1.0
    d = {"k": y}
    w = d.get("k")
    w[0] = 3.0 * x[1]
    return np.sum(y ** 2)


def setdefault(x):
    y = x * 1.0
    cache = {}
    w = cache.setdefault("buf", y)
    w[0] = 3.0 * x[1]
    return np.sum(y ** 2)


def popped(x):
    y = x * 1.0
    stack = [y, x * 3.0]
    top = stack.pop()
    bottom = stack.pop()  # y itself
    bottom[1:] += top[:-1]
    return np.sum(y ** 2)


def next_of_iter(x):
    y = x * 1.0
    w = next(iter([y]))
    w[0] = 3.0 * x[1]
    return np.sum(y ** 2)


def next_default(x):
    y = x * 1.0
    w = next(iter([]), y)
    w[0] = 3.0 * x[1]
    return np.sum(y ** 2)


def operator_getitem(x):
    y = x * 1.0
    w = operator.getitem([y], 0)
    w[0] = 3.0 * x[1]
    return np.sum(y ** 2)


def accumulator_from_get(x):
    y = x * 1.0
    d = {}
    for i in range(2):
        acc = d.get("acc", y)
        acc *= x[i]
        d["acc"] = acc
    return np.sum(y ** 2)


def einsum_diagonal(x):
    Y = x.reshape(2, 2) * 1.0
    d = np.einsum('ii->i', Y)
    Y[1, 1] = 5.0 * x[2]
    return np.sum(d ** 2)


def einsum_transpose(x):
    Y = x.reshape(2, 2) * 1.0
    t = np.einsum('ij->ji', Y)
    Y[0, 1] = 5.0 * x[2]
    return np.sum(t * np.arange(4.0).reshape(2, 2))


def split_unpacked(x):
    y = x * 1.0
    a, b = np.split(y, 2)
    y[1] = 5.0 * x[3]
    return np.sum(a ** 2) + np.sum(b)


def vsplit_unpacked(x):
    Y = x.reshape(2, 2) * 1.0
    top, bottom = np.vsplit(Y, 2)
    Y[0, 0] = 5.0 * x[3]
    return np.sum(top ** 2) + np.sum(bottom)


def broadcast_arrays(x):
    y = x[:2] * 1.0
    A, B = np.broadcast_arrays(y[None, :], x.reshape(2, 2))
    y[1] = 5.0 * x[3]
    return np.sum(A * np.arange(4.0).reshape(2, 2)) + np.sum(B)


def meshgrid_without_copies(x):
    y = x[:2] * 1.0
    A, B = np.meshgrid(y, x[2:], copy=False)
    y[0] = 5.0 * x[3]
    return np.sum(A * np.arange(4.0).reshape(2, 2)) + np.sum(B)


def windows(x):
    y = x * 1.0
    W = np.lib.stride_tricks.sliding_window_view(y, 3)
    y[2] = 5.0 * x[0]
    return np.sum(W.sum(axis=1) ** 2)


def flat_store(x):
    y = x * 2.0
    y.flat = 0.5
    return np.sum(y * x)


def shape_store(x):
    y = x * 1.0
    y.shape = (2, 2)
    return np.sum(y ** 2 * np.arange(4.0).reshape(2, 2))


X = np.array([0.5, -1.0, 2.0, 0.7])
REFUSED = [get_existing, setdefault, popped, next_of_iter, next_default, operator_getitem,
           accumulator_from_get, einsum_diagonal, einsum_transpose, split_unpacked,
           vsplit_unpacked, broadcast_arrays, meshgrid_without_copies, windows, flat_store,
           shape_store]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_a_write_through_a_hidden_alias_is_refused(f):
    with pytest.raises(sg.CompileError):
        sg.grad(f)(X.copy())
    with pytest.raises(sg.CompileError):
        sg.jvp(f, (X.copy(),), (np.ones(4),))
    with pytest.raises(sg.CompileError):
        taped(f, X.copy())


def params_get_in_place(params, X):
    W = params.get("W")
    W *= 2.0  # params["W"] itself
    return np.sum((X @ params["W"]) ** 2)


def test_a_parameter_dict_item_fetched_by_get_and_updated_in_place_is_refused():
    data = np.array([[0.5, -1.0], [1.5, 0.3]])
    with pytest.raises(sg.CompileError, match="another variable may share"):
        sg.grad(params_get_in_place)({"W": np.array([[0.2, -0.4], [0.7, 0.1]])}, data)


def imag_view(z):
    w = z * 2.0
    im = np.imag(w)
    w[0] = 5.0 + 7.0j * z[1].real
    return np.sum(im ** 2)


def real_part_store(z):
    w = z * 2.0
    w.real = np.array([1.0, 2.0, 3.0])
    return np.sum(np.abs(w) ** 2)


@pytest.mark.parametrize("f", [imag_view, real_part_store], ids=lambda f: f.__name__)
def test_complex_parts_written_through_are_refused(f):
    with pytest.raises(sg.CompileError):
        sg.grad(f)(np.array([0.3 + 0.7j, -0.5 + 0.2j, 1.1 - 0.4j]))


def get_then_rebind(x):
    d = {"k": x * 1.0}
    w = d.get("k")
    w = w * 3.0  # a new array: no write through the alias
    return np.sum(w ** 2) + np.sum(d["k"])


def einsum_of_two_then_update(x):
    A = x.reshape(2, 2) * 1.0
    out = np.einsum('ij,j->i', A, x[:2])  # a new array
    A[0, 0] = 3.0 * x[3]
    return np.sum(out ** 2) + np.sum(A)


def split_then_read(x):
    a, b = np.split(x * 1.0, 2)
    return np.sum(a ** 2) * np.sum(b)


@pytest.mark.parametrize("f", [get_then_rebind, einsum_of_two_then_update, split_then_read],
                         ids=lambda f: f.__name__)
def test_without_a_write_through_an_alias(f):
    assert_every_form(f, X.copy())
