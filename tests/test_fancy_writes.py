"""Writes through repeated fancy indices follow NumPy (issue 12, class 5).

``a[idx] = v`` writes each slot of ``idx`` in order and keeps the last write;
``a[idx] += v`` reads ``a[idx]`` once, adds and writes back the same way, so
a repeated slot gets one increment, not several (unlike ``np.add.at``). The
adjoint of ``v`` followed ``np.add.at`` and counted every repetition (e.g.
``[2, 2]`` where finite differences give ``[0, 2]``). Now only the element
that lands last in its slot gets the slot's gradient (``_sg.written``).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped, taped_two

X = np.array([0.5, -1.0, 2.0])
W = np.array([1.0, 2.0, 3.0])


def repeated(x):
    a = np.zeros(3)
    a[[0, 0, 1]] = x
    return np.sum(a * W)


def repeated_increment(x):
    a = x * 1.0
    a[[2, 2]] += x[:2]
    return np.sum(a * a)


def negative_and_positive_alias(x):
    a = x * 1.0
    a[[-1, 2]] = np.array([x[0] * 2.0, x[1]])
    return np.sum(a * a)


def scalar_to_repeated_slots(x):
    a = x * 1.0
    a[[1, 1, 0]] = x[2] ** 2
    return np.sum(a * W)


def boolean_mask(x):
    a = x * 1.0
    a[a > 0] = x[a > 0] ** 2
    return np.sum(a)


def pairs_of_index_arrays(x):
    m = np.outer(x, x)
    m[[0, 1, 0], [1, 1, 1]] = x
    return np.sum(m * m)


def slice_and_repeated_columns(x):
    m = np.outer(x, x)
    m[:, [0, 0]] = np.stack([x, x * 2.0], axis=1)
    return np.sum(m ** 2)


def two_dimensional_index(x):
    a = x * 1.0
    a[np.array([[0, 0], [1, 0]])] = np.array([[x[1], x[2]], [x[0], x[1] * 3.0]])
    return np.sum(a * a)


def broadcast_row(x):
    m = np.zeros((3, 3))
    m[[2, 0, 2]] = x          # one row written three times, two of them to row 2
    return np.sum(m * np.arange(9.0).reshape(3, 3))


def in_a_loop(x):
    a = np.zeros(3)
    for k in range(3):
        a[[k, 0]] = x[k] * np.array([1.0, 2.0])
    return np.sum(a * a * W)


def written_into_itself(x):
    b = np.outer(x, x[:2])
    b[0:] = b
    return np.sum(b * b)


CASES = [repeated, repeated_increment, negative_and_positive_alias, scalar_to_repeated_slots,
         boolean_mask, pairs_of_index_arrays, slice_and_repeated_columns, two_dimensional_index,
         broadcast_row, in_a_loop, written_into_itself]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_every_form(f):
    check_grads(f, (X,), order=2)
    value, g = sg.value_and_grad(f)(X)
    assert value == f(X)
    np.testing.assert_allclose(taped(f, X), g, rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(f, X), g, rtol=1e-12)


def test_the_last_write_gets_the_gradient():
    # a = [x1, x2, 0] after a[[0, 0, 1]] = x: x0 is overwritten
    np.testing.assert_array_equal(sg.grad(repeated)(X), [0.0, 1.0, 2.0])


def vector_of_repeated_writes(x):
    a = x * 1.0
    a[[0, 0, 2]] = x * 3.0
    return a * a


def matrix_of_repeated_pairs(x):
    m = np.outer(x, x)
    m[[0, 2, 0], [1, 1, 1]] += x * 2.0
    m[:, [2, 2]] = np.stack([x, x ** 2], axis=1)
    return m


def vector_with_a_leading_axis(x):
    a = x * 1.0
    a[[1, 1]] = (x[:2] ** 2).reshape(1, 2)
    a[[0, 0]] = a[[0, 0]] * x[1:].reshape(1, 1, 2)
    return a * a


@pytest.mark.parametrize("f", [vector_of_repeated_writes, matrix_of_repeated_pairs,
                               vector_with_a_leading_axis], ids=lambda f: f.__name__)
def test_jacobian_rows(f):
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = f(X)
    jac = tape.jacobian(y, X)
    eps = 1e-6
    numeric = np.stack([(f(X + eps * e) - f(X - eps * e)) / (2 * eps)
                        for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(jac, numeric, atol=1e-8)


def test_basic_indices_read_the_slot_directly():
    text = sg.adjoint_source(repeated)
    assert "_sg.written(" in text
    text = sg.adjoint_source(written_into_itself)
    assert "_sg.written(" not in text


# -- More forms of fancy writes: each case a program in its own user style ----

IDX = np.array([2, 0, 2, 2])
MASK = np.array([True, False, True])
ROWS = np.array([0, 2, 0])
COLS = np.array([1, 1, 1])
GRID = np.array([[0, 1], [1, 1]])
V2 = np.array([0.3, -0.7])
M = np.arange(1.0, 10.0).reshape(3, 3) / 4.0


def global_index_array(x, v):
    a = np.sin(x)
    a[IDX] = v * v
    return np.sum(a * W)


def global_index_array_increment(x, v):
    a = np.sin(x)
    a[IDX] += v * x[0]
    return np.sum(a * a)


def index_list_in_a_variable(x, v):
    idx = [1, 1, 0, 1]
    a = x ** 2
    a[idx] -= v
    return np.sum(a * W)


def negative_repeats(x, v):
    a = x * 2.0
    a[[-1, 2, -3, 0]] = v
    return np.sum(np.tanh(a) * W)


def negative_repeats_increment(x, v):
    a = x * 2.0
    a[[-1, 2, -1]] += v[:3]
    return np.sum(a ** 3)


def constant_mask(x, v):
    a = x * x
    a[MASK] = v[:2] * 3.0
    return np.sum(a * W)


def mask_increment(x, v):
    a = x * 1.0
    a[x > 0] += v[0] * x[x > 0]
    return np.sum(a * a)


def python_float_to_repeated_slots(x, s):
    a = x * 1.0
    a[[0, 0, 2]] = s * 2.0
    return np.sum(a * W)


def python_float_increment(x, s):
    a = x * 1.0
    a[[0, 0, 2]] += s * s
    return np.sum(a * a * W)


def value_broadcast_over_index_grid(x, v):
    a = x * 1.0
    a[GRID] = v[:2]        # a row of two against the (2, 2) grid of slots
    return np.sum(a * a * W)


def value_with_a_leading_axis(x, v):
    a = x * 1.0
    a[[1, 1]] = v[:2].reshape(1, 2)
    return np.sum(a * W)


def grid_increment(x, v):
    a = x * 1.0
    a[GRID] += np.outer(v[:2], v[2:])
    return np.sum(a * a)


def pairs_increment(x, v):
    m = np.outer(x, v[:3])
    m[ROWS, COLS] += x
    return np.sum(m * M)


def pairs_in_a_tuple_variable(x, v):
    ij = (ROWS, COLS)
    m = np.outer(x, x)
    m[ij] = v[:3] * x
    return np.sum(m * m)


def row_index_and_column_slice(x, v):
    m = np.outer(x, x)
    m[[1, 1, 0], 1:] = np.stack([v[:2], x[:2], v[2:]])
    return np.sum(m * M)


def column_index_after_ellipsis(x, v):
    m = np.outer(x, x)
    m[..., [2, 2]] *= v[:2]
    return np.sum(m * M)


def separated_index_arrays(x, v):
    t = np.ones((3, 2, 3)) * x
    t[[0, 0], :, [1, 1]] = v.reshape(2, 2)
    return np.sum(t * t * np.arange(18.0).reshape(3, 2, 3))


def params_dict(x, v):
    return loss_of_params({"x": x, "v": v})


def loss_of_params(p):
    a = p["x"] * 1.0
    a[[0, 0, 1]] = p["v"][:3]
    a[[2, 2]] += p["v"][2:]
    return np.sum(a * a * W)


def helper_scatter(a, v):
    b = a.copy()
    b[[1, 0, 1]] = v[:3]
    return np.sum(b * W), np.sum(v)


def through_a_helper(x, v):
    weighted, total = helper_scatter(x * 1.0, v)
    return weighted * total


def int_read_from_an_array(x, v):
    a = x * 1.0
    i = IDX[0]
    a[i] = v[0]
    a[IDX[1]] += v[1]
    return np.sum(a * a)


def increments_in_a_loop(x, v):
    a = np.zeros(3)
    for k in range(2):
        a[[k, 0, k]] += v[k:k + 3] * x[k]
    return np.sum(a * a * W)


V = np.array([0.8, -0.4, 1.3, 0.6])

MORE = [global_index_array, global_index_array_increment, index_list_in_a_variable,
        negative_repeats, negative_repeats_increment, constant_mask, mask_increment,
        value_broadcast_over_index_grid, value_with_a_leading_axis, grid_increment,
        pairs_increment, pairs_in_a_tuple_variable, row_index_and_column_slice,
        column_index_after_ellipsis, separated_index_arrays, through_a_helper,
        int_read_from_an_array, increments_in_a_loop, params_dict]


@pytest.mark.parametrize("f", MORE, ids=lambda f: f.__name__)
def test_more_forms(f):
    check_grads(f, (X, V), order=2)
    value, (gx, gv) = sg.value_and_grad(f, wrt=(0, 1))(X, V)
    assert value == f(X, V)
    for g in (taped_two(f, X, V), sg.function(taped_two)(f, X, V)):
        np.testing.assert_allclose(g[0], gx, rtol=1e-12)
        np.testing.assert_allclose(g[1], gv, rtol=1e-12)


@pytest.mark.parametrize("f", [python_float_to_repeated_slots, python_float_increment],
                         ids=lambda f: f.__name__)
def test_python_float_values(f):
    check_grads(f, (X, 0.7), order=2)
    value, (gx, gs) = sg.value_and_grad(f, wrt=(0, 1))(X, 0.7)
    assert value == f(X, 0.7)
    assert isinstance(gs, float)


# -- Items of dicts and lists: one slot each, whatever the index ---------------

def dict_item(x):
    d = {"a": x[0], "b": x[1]}
    d["a"] = x[2] * 3.0
    return d["a"] * d["b"]


def list_item_at_an_index_read_from_an_array(x):
    lst = [x[0], x[1], x[2]]
    i = IDX[1]                 # an int only at run time: the generated code asks _sg.written
    lst[i] = x[0] ** 2
    return lst[0] * lst[1] + lst[2]


def test_dict_item_is_one_slot():
    # crashed: the dict's adjoint went through the fancy-index survivors
    check_grads(dict_item, (X,), order=2)
    assert "_sg.written(" not in sg.adjoint_source(dict_item)


def test_list_item_at_a_run_time_index():
    check_grads(list_item_at_an_index_read_from_an_array, (X,), order=2)
    value, _ = sg.value_and_grad(list_item_at_an_index_read_from_an_array)(X)
    assert value == list_item_at_an_index_read_from_an_array(X)
