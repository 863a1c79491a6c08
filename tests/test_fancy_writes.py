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
from tape_forms import taped

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


def test_jacobian_rows():
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = vector_of_repeated_writes(X)
    jac = tape.jacobian(y, X)
    eps = 1e-6
    numeric = np.stack([(vector_of_repeated_writes(X + eps * e)
                         - vector_of_repeated_writes(X - eps * e)) / (2 * eps)
                        for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(jac, numeric, atol=1e-8)


def test_basic_indices_read_the_slot_directly():
    text = sg.adjoint_source(repeated)
    assert "_sg.written(" in text
    text = sg.adjoint_source(written_into_itself)
    assert "_sg.written(" not in text
