"""An ``OrderedDict`` of parameters (PyTorch's ``state_dict()``, code written for
Python < 3.7) is a parameter tree as a dict is: its gradient is an ``OrderedDict`` with
the same keys, in every form (before: "grad requires floating-point inputs ... is a
OrderedDict")."""
from collections import OrderedDict

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.linspace(0.0, 1.0, 12).reshape(4, 3)


def params():
    return OrderedDict(W=np.linspace(-0.3, 0.4, 6).reshape(3, 2), b=np.array([0.2, -0.1]))


def loss(p, x):
    h = np.tanh(x @ p["W"] + p["b"])
    return np.sum(h ** 2) + sum(np.sum(v) for v in p.values())


def loss_by_items(p, x):
    total = 0.0
    for name, value in p.items():
        total = total + np.sum(np.sin(value)) * (2.0 if name == "W" else 1.0)
    return total + np.sum(x @ p["W"])


def nested(p, x):
    return loss(p["encoder"], x) * p["scale"]


@pytest.mark.parametrize("f", [loss, loss_by_items], ids=lambda f: f.__name__)
def test_functional_forms(f):
    p = params()
    g = sg.grad(f)(p, X)
    assert type(g) is OrderedDict and list(g) == ["W", "b"]
    check_grads(f, (p, X), order=2, wrt=0)
    value, g2 = sg.value_and_grad(f)(p, X)
    assert value == pytest.approx(f(p, X), rel=1e-12)
    assert all(np.allclose(g2[k], g[k]) for k in g)
    t = OrderedDict(W=np.ones((3, 2)), b=np.ones(2))
    _, tangent = sg.jvp(lambda q: f(q, X), (p,), (t,))
    assert tangent == pytest.approx(sum(np.sum(g[k] * t[k]) for k in g), rel=1e-10)


def test_nested_with_a_float_leaf():
    q = OrderedDict(encoder=params(), scale=1.5)
    g = sg.grad(nested)(q, X)
    assert type(g) is OrderedDict and type(g["encoder"]) is OrderedDict
    check_grads(nested, (q, X), order=1, wrt=0)


def test_tapes():
    p = params()
    expected = sg.grad(loss)(p, X)
    with sg.GradientTape() as tape:
        tape.watch(p)
        y = loss(p, X)
    g = tape.gradient(y, p)
    assert type(g) is OrderedDict
    assert all(np.allclose(g[k], expected[k], rtol=1e-12) for k in expected)

    @sg.function
    def step(p):
        with sg.GradientTape() as tape:
            tape.watch(p)
            y = loss(p, X)
        return tape.gradient(y, p)
    g = step(p)
    assert type(g) is OrderedDict
    assert all(np.allclose(g[k], expected[k], rtol=1e-12) for k in expected)
