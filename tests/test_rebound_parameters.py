"""A parameter the function rebinds (``x = x * x``) keeps its rank and dtype kind.

Found by the fuzzer (issue 12, class 3): the names the compiler took for ints
were found by an optimistic fixpoint, and ``x = x * x`` alone refutes nothing,
so a float array parameter was taken for an int, hence for a scalar, and its
adjoint lost a reduction (0.75x the gradient, or a broadcast crash). Checked in
every form: ``sg.grad`` against central differences, the others against it.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def squared_then_mean(x):
    x = x * x
    return np.mean(x + np.mean(x))


def through_a_copy(x, y):
    a = x
    x = a
    b = np.mean(x) - x
    return np.sum(b) + np.sum(y)


def rebound_second_parameter(x, y):
    a = np.mean(x)
    y = y + y
    b = a + y
    return a + np.sum(b)


def counted_down(x, n):
    s = 0.0
    while n > 0:       # an int parameter rebound to ints stays an int
        s = s + np.sum(x * n)
        n = n - 1
    return s


CASES = [
    (squared_then_mean, (np.array([0.692, 0.601]),)),
    (through_a_copy, (np.array([0.594, -1.325, 0.751]), np.array([[1.168], [-0.858], [-0.705]]))),
    (rebound_second_parameter, (np.array([-1.418, 0.441, 0.577, -1.15]),
                                np.array([-1.105, 0.514, 1.375]))),
    (counted_down, (np.array([0.3, -0.2]), 3)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_grad_matches_finite_differences(f, args):
    check_grads(f, args, order=1)


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_value_and_grad(f, args):
    value, g = sg.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(g, sg.grad(f)(*args), rtol=1e-12)


def _taped_1(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def _taped_2(f, x, z):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x, z)
    return tape.gradient(y, x)


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_tape_in_plain_code_and_in_function(f, args):
    taped = _taped_1 if len(args) == 1 else _taped_2
    expected = sg.grad(f)(*args)  # checked against finite differences above
    np.testing.assert_allclose(taped(f, *args), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.function(taped)(f, *args), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", CASES[:2], ids=[f.__name__ for f, _ in CASES[:2]])
def test_second_order(f, args):
    check_grads(f, args, order=2)
