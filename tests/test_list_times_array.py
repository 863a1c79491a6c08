"""``array * list`` (a list display, a local list, a tuple) is NumPy's product (hunt4
bug_18): the compiler takes ``a * n`` with a list operand for sequence repetition, and
refused it ("the value passed as `n` of `this function`...") when the other operand
was differentiated. The repetition's entry now has the product's adjoint for ``n``:
a differentiated count is an array, and NumPy broadcasts the list against it.
Sequence repetition of Python lists (``[a, b] * 3``) still works.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees, taped

X = np.array([0.3, -0.8, 1.2])


def times_list_display(x):
    return np.sum(np.tanh(x) * [1.0, 2.0, 3.0])


def list_display_times(x):
    return np.sum([1.0, -2.0, 0.5] * np.sin(x) ** 2)


def times_local_list(x):
    w = [0.5, 1.5, -1.0]
    y = x * w
    return np.sum(y * y)


def times_tuple(x):
    return np.sum(np.exp(x) * (1.0, 2.0, 3.0))


def times_broadcast_list(x):
    m = np.outer(x, x)
    return np.sum(m * [1.0, 2.0, 3.0])


def list_of_inputs_times_array(x):
    # The list holds differentiated values too: both operands have adjoints.
    return np.sum([x[0], 2.0, x[1]] * np.cos(x))


def repetition_still_repeats(x):
    parts = [x[0], x[1] * 2.0] * 3
    return sum(p * p for p in parts) + parts[3] * x[2]


CASES = [times_list_display, list_display_times, times_local_list, times_tuple,
         times_broadcast_list, list_of_inputs_times_array, repetition_still_repeats]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    check_grads(f, (X,), order=2)
    value, g = sg.value_and_grad(f)(X)
    assert value == pytest.approx(f(X), rel=1e-14)
    np.testing.assert_allclose(sg.grad(f)(X), g, rtol=1e-14)
    np.testing.assert_allclose(taped(f, X), g, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_forward_mode(f):
    assert_forward_mode_agrees(f, (X,))


def test_value_is_numpys():
    want = (1 - np.tanh(X) ** 2) * np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(sg.grad(times_list_display)(X), want, rtol=1e-14)


def test_jacobian_of_list_times_array():
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = np.tanh(X) * [1.0, 2.0, 3.0]
    want = np.diag((1 - np.tanh(X) ** 2) * np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(tape.jacobian(y, X), want, rtol=1e-12)
