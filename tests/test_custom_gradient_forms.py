"""``custom_gradient`` as users write it, beyond a function of arrays: on a method (the
call dropped ``self``: TypeError), with several outputs (TensorFlow calls ``grad_fn``
with one upstream gradient per output: it was called with one), called with a keyword
argument (the wrapper took none, even in plain Python). Checked against central
differences."""
import numpy as np
import pytest

import srcgrad as sg


class Op:
    def __init__(self, c):
        self.c = c

    @sg.custom_gradient
    def apply(self, x):
        def grad_fn(g):
            return g * 3 * self.c * x ** 2
        return self.c * x ** 3, grad_fn


OP = Op(1.5)


@sg.custom_gradient
def two_out(x):
    def grad_fn(ga, gb):
        return ga * np.cos(x) + gb * 2 * x
    return (np.sin(x), x ** 2), grad_fn


@sg.custom_gradient
def scaled(x, scale=2.0):
    def grad_fn(g):
        return g * scale
    return x * scale, grad_fn


def on_a_method(x):
    return np.sum(OP.apply(x))


def two_outputs(x):
    a, b = two_out(x)
    return np.sum(a * b) + np.sum(b)


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [on_a_method, two_outputs], ids=lambda f: f.__name__)
def test_gradient(f):
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(sg.grad(f)(x), _fd(f, x), rtol=1e-6)
    np.testing.assert_allclose(sg.value_and_grad(f)(x)[0], f(x))
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), _fd(f, x), rtol=1e-6)


def test_keyword_argument_in_plain_python():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(scaled(x, scale=3.0), 3 * x)


def _through_op(x, op):
    return np.sum(op.apply(x))


def test_method_of_another_object_each_call():
    """The object of ``op.apply(x)`` as the code names it: a second call with another
    ``Op`` used the first one's (value and gradient)."""
    x = np.array([0.5, -1.0])
    for c in (1.5, -2.0):
        v, g = sg.value_and_grad(_through_op)(x, Op(c))
        np.testing.assert_allclose(v, np.sum(c * x ** 3))
        np.testing.assert_allclose(g, 3 * c * x ** 2)
