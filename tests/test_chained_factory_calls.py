"""A function or object a call makes, used at once: ``make(base)(x, y)``,
``Model(W, 2.0).predict(x)`` (``calls._user_function``).

Closures a call makes were compiled where the code names them first (``g =
make(base); g(x, y)``); called in the same expression they were refused ("cannot tell
at compile time which function `make(base)` is"). The call is now named, in the
order Python evaluates it (the function before its arguments), and called as the
named closure in the next round of the normalizer.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([0.4, -1.1, 0.7])
Y = np.array([1.3, 0.2, -0.5])


def energy(x, y):
    return np.sum(np.sin(x) * y ** 2)


def scaled(fun, k):
    def run(x, y):
        return k * fun(x, y)
    return run


def compose(outer, inner):
    return lambda v: outer(inner(v))


def chained(x, y):
    return scaled(energy, 2.0)(x, y) + np.sum(x * y)


def chained_twice(x, y):
    return scaled(scaled(energy, 0.5), 3.0)(x, y * 2.0)


def composed(x, y):
    return np.sum(compose(np.tanh, lambda v: v * y)(x))


class Model:
    def __init__(self, W, scale=1.0):
        self.W, self.scale = W, scale

    def predict(self, v):
        return self.scale * np.tanh(v * self.W)


def method_of_an_object_made_at_once(x, y):
    return np.sum(Model(y, 2.0).predict(x) ** 2)


def partial_called_at_once(x, y):
    return functools.partial(energy, y=y)(x) * 2.0


def made_inside(x, y):
    def power(p):
        return lambda v: np.sum(v ** p)
    return power(3)(x) + power(2)(y) * np.sum(x)


@pytest.mark.parametrize("f", [chained, chained_twice, composed, made_inside,
                               method_of_an_object_made_at_once, partial_called_at_once])
def test_function_made_and_called_at_once(f):
    check_grads(f, (X.copy(), Y.copy()), order=2)
    assert_forms_agree(f, (X.copy(), Y.copy()))


def test_the_factory_runs_before_the_arguments():
    calls = []

    def noting(tag, value):
        calls.append(tag)
        return value

    def factory(k):
        calls.append("factory")
        return lambda v: k * v

    def f(x):
        return np.sum(factory(2.0)(noting("argument", x)))

    np.testing.assert_allclose(sg.grad(f)(X.copy()), 2.0 * np.ones(3))
    assert calls == ["factory", "argument"]
