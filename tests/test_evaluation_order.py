"""Python evaluates an expression left to right: in ``c.x + c.bump()``, ``c.x`` is read
before ``bump`` sets it again. srcgrad inlined the call first and read the attribute after
it (or the local mirroring it): the value and the gradient were those of the new
attribute (a portfolio's ``port.w - port.rebalance(t)`` gave 0 for both). Such reads are
made before the call now (``passes/normalize/order.py``). Checked against what Python
computes and central differences in every form."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


class C:
    def __init__(self, q):
        self.x = q

    def bump(self):
        self.x = self.x * 2
        return self.x


class Portfolio:
    def __init__(self, w):
        self.w = w

    def rebalance(self, target):
        self.w = 0.5 * self.w + 0.5 * target
        return self.w


class Filter:
    def __init__(self):
        self.a = np.array([0.2, -0.1])

    def predict(self):
        self.a = self.a * 0.5 + 0.1
        return self.a

    def innovation(self, z):
        return self.a - self.predict() + z


def sum_then_call(q):
    c = C(q)
    return np.sum(c.x + c.bump())


def in_a_display(q):
    c = C(q)
    return np.sum(np.array([c.x, c.bump()])[0] ** 2)


def augmented(q):
    c = C(q[0] * 1.0 + q[1])  # (a NumPy scalar: ``+=`` binds a new one)
    c.x += c.bump()
    return np.sum(c.x)


def turnover(w0):
    port = Portfolio(w0)
    target = np.array([0.25, 0.25, 0.5])
    return np.sum((port.w - port.rebalance(target)) ** 2)


def in_a_method(z):
    return np.sum(Filter().innovation(z) ** 2)


def as_an_argument(q):
    c = C(q)
    return np.sum(np.maximum(c.x, c.bump() - 1.0))


held = C(np.array([0.3]))


def handed_object(q):
    held.x = q
    return np.sum(held.x * held.bump())


def call_read_call(q):
    c = C(q)
    return np.sum(c.bump() + c.x + c.bump())


def two_objects(q):
    c = C(q)
    d = C(q * 0.5)
    return np.sum(c.x * d.bump() + d.x * c.bump())


def read_call_twice(q):
    c = C(q)
    return np.sum(c.x * c.bump() + c.x * c.bump())


def in_a_comprehension(q):
    c = C(q)
    return np.sum(np.stack([c.x * c.bump() for _ in range(3)]))


def in_a_branch(q):
    c = C(q)
    return np.sum(c.x * (c.bump() if np.sum(q) > 0 else q))


def whole_in_a_branch(q):
    c = C(q)
    return np.sum(c.x + c.bump()) if np.sum(q) > 0 else 0.0


CASES = [sum_then_call, in_a_display, augmented, turnover, in_a_method, as_an_argument,
         handed_object, call_read_call, two_objects, read_call_twice, in_a_comprehension,
         in_a_branch, whole_in_a_branch]


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_read_before_the_call(f):
    x = np.array([0.5, 0.3, 0.2]) if f is turnover else np.array([0.7, 0.4])
    value, grad = sg.value_and_grad(f)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
    np.testing.assert_allclose(grad, _fd(f, x), rtol=1e-6, atol=1e-9)
    assert_every_form(f, x, order=2)


class Acc:
    def __init__(self, start):
        self.total = start

    def add(self, v):
        self.total = self.total + v
        return self.total


def chained_false_first(x):
    a = Acc(0.0)
    ok = 1.0 < a.total < a.add(x[1])  # False first: add does not run
    return a.total * x[0] + (1.0 if ok else 0.0)


def chained_true_first(x):
    a = Acc(2.0)
    ok = 1.0 < a.total < a.add(x[1])  # True first: add runs
    return a.total * x[0] + (1.0 if ok else 0.0)


@pytest.mark.parametrize("f", [chained_false_first, chained_true_first],
                         ids=lambda f: f.__name__)
def test_chained_comparison_runs_what_python_runs(f):
    x = np.array([0.5, 1.7])
    value, grad = sg.value_and_grad(f)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()))
    np.testing.assert_allclose(grad, _fd(f, x), rtol=1e-6, atol=1e-9)


def constant_left_by_a_break(x):
    """(``p = 0.0`` is rebound later in the trip, but a ``break`` between leaves it the
    value read after the loop: not dropped as a dead constant.)"""
    total = 0.0
    p = x[0]
    for i in range(3):
        p = 0.0
        if i == 1:
            break
        p = x[i] * 2.0
        total = total + p * x[1]
    return total + p * x[0] + np.sum(x)


def test_a_constant_a_break_leaves_is_kept():
    x = np.array([0.7, 0.4, -0.3])
    value, grad = sg.value_and_grad(constant_left_by_a_break)(x.copy())
    np.testing.assert_allclose(value, constant_left_by_a_break(x.copy()))
    np.testing.assert_allclose(grad, _fd(constant_left_by_a_break, x), rtol=1e-6, atol=1e-9)
