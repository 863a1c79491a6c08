"""Two inputs' gradients are never one array.

In ``z = x + y`` both adjoints are ``dz``: returned as they were, ``gx`` and
``gy`` were the same NumPy array, so an in-place update of one (gradient
clipping, ``g *= lr`` in an optimizer) silently changed the other. Found
while fuzzing ``sg.grad`` inside differentiated code (issue 12). Checked for
``sg.grad``, ``value_and_grad``, the tape's ``gradient`` and ``jacobian``, and
through a second derivative (``_sg.distinct`` has a rule: identity).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, -0.2, 0.5])
Y = np.array([1.0, 0.4, -0.3])


def summed(x, y):
    z = x + y
    return np.sum(z * z)


def independent(grads):
    a, b = grads
    assert not np.may_share_memory(a, b)
    before = b.copy()
    a *= 0.5
    np.testing.assert_array_equal(b, before)


def test_grad():
    gx, gy = sg.grad(summed, wrt=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, 2 * (X + Y))
    independent((gx, gy))


def test_value_and_grad():
    value, grads = sg.value_and_grad(summed, wrt=(0, 1))(X, Y)
    assert value == pytest.approx(summed(X, Y))
    independent(grads)


def test_tape_gradient_and_jacobian():
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(X)
        tape.watch(Y)
        z = X + Y
        w = np.sum(z * z)
    independent(tape.gradient(w, [X, Y]))
    independent(tape.jacobian(z, [X, Y]))


def test_tape_in_function():
    @sg.function
    def taped(x, y):
        with sg.GradientTape() as tape:
            tape.watch(x)
            tape.watch(y)
            w = np.sum((x + y) ** 2)
        return tape.gradient(w, [x, y])

    independent(taped(X, Y))


def cubic(x, y):
    z = x + y
    return np.sum(z * z * x)


def through_an_inner_gradient(x, y):
    gx, gy = sg.grad(cubic, wrt=(0, 1))(x, y)
    return np.sum(gx * gy) + np.sum(gy)


def test_second_order_through_the_gradient_pair():
    check_grads(through_an_inner_gradient, (X, Y), order=1)
