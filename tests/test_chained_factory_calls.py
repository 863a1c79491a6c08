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


class Regressor:
    def __init__(self, w):
        self.w = w

    def loss(self, x, y):
        return np.sum((np.tanh(self.w * x) - y) ** 2)


def make_regressor(w):
    return Regressor(w * 2.0)


def object_from_a_function_used_at_once(x, y):
    return make_regressor(x).loss(x, y) + make_regressor(y).loss(y, x)


Point = __import__("collections").namedtuple("Point", "a b")


class Segment(Point):
    def length2(self):
        return np.sum((self.a - self.b) ** 2)


def make_segment(x, y):
    return Segment(x * 1.5, np.sin(y))


def record_from_a_function_used_at_once(x, y):
    return make_segment(x, y).length2() * np.sum(make_segment(y, x).a)


@pytest.mark.parametrize("f", [object_from_a_function_used_at_once,
                               record_from_a_function_used_at_once])
def test_method_of_what_a_function_returns_called_at_once(f):
    # (``make_regressor(x).loss(x, y)`` was refused: "srcgrad cannot tell yet whether
    # it is a record whose class has that method")
    check_grads(f, (X.copy(), Y.copy()), order=2)
    assert_forms_agree(f, (X.copy(), Y.copy()))


def model_made_from_data(x, y):
    m = make_regressor(y)  # (no differentiable value reaches the call)
    return m.loss(x, y) + make_regressor(y).loss(y, x)


def test_object_a_function_makes_from_constants():
    # (its method with differentiable arguments was refused: the call making the object
    # was run as it is, so the object was not known when compiling)
    check_grads(model_made_from_data, (X.copy(), Y.copy()), order=2, wrt=0)
    assert_forms_agree(lambda x: model_made_from_data(x, Y.copy()), (X.copy(),))
