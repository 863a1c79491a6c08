"""A bound method of one object stored in another's attribute (``self.act = scaler.apply``,
``self.g = A(3.0).f``, a dict of them): called as ``self.act(z)`` it runs with the other
object as ``self``. srcgrad ran it with the holder as ``self``, reading the holder's fields
of the same names: wrong values and gradients in every form (found by a battery of
framework-style programs). Checked against Python's values and central differences."""
import numpy as np
import pytest

import srcgrad as sg


class A:
    def __init__(self, k):
        self.k = k

    def f(self, x):
        return self.k * x


class B:
    def __init__(self, g):
        self.g = g
        self.k = 0.0  # (the field the wrong receiver read)

    def run(self, x):
        return self.g(x)


HELD = B(A(3.0).f)


def through_the_holder(x):
    return HELD.run(x) ** 2


def test_value_and_gradient_of_a_held_bound_method():
    value, grad = sg.value_and_grad(through_the_holder)(2.0)
    assert value == through_the_holder(2.0) == 36.0
    assert grad == 36.0  # d/dx (3x)^2 at 2


class Scale:
    def __init__(self, s):
        self.s = s

    def apply(self, z):
        return np.tanh(z) * self.s


class Dense:
    def __init__(self, W, act):
        self.W = W
        self.act = act
        self.s = 100.0

    def __call__(self, x):
        return self.act(x @ self.W)


X = np.array([[1.0, 2.0]])
W0 = np.array([[0.5, -0.3], [0.2, 0.8]])


def _expected():
    def f(W):
        return np.sum((np.tanh(X @ W) * 0.5) ** 2)
    eps = 1e-6
    g = np.zeros_like(W0)
    for i in np.ndindex(W0.shape):
        d = np.zeros_like(W0)
        d[i] = eps
        g[i] = (f(W0 + d) - f(W0 - d)) / (2 * eps)
    return f(W0), g


def with_a_variable():
    layer = Dense(sg.Variable(W0.copy()), Scale(0.5).apply)
    with sg.GradientTape() as tape:
        y = np.sum(layer(X) ** 2)
    return y, tape.gradient(y, layer.W)


def with_a_watched_array():
    layer = Dense(W0.copy(), Scale(0.5).apply)
    with sg.GradientTape() as tape:
        tape.watch(layer.W)
        y = np.sum(layer(X) ** 2)
    return y, tape.gradient(y, layer.W)


def from_a_dict_of_them():
    scalers = {"half": Scale(0.5).apply, "double": Scale(2.0).apply}
    layer = Dense(W0.copy(), scalers["half"])
    with sg.GradientTape() as tape:
        tape.watch(layer.W)
        y = np.sum(layer(X) ** 2)
    return y, tape.gradient(y, layer.W)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [with_a_variable, with_a_watched_array, from_a_dict_of_them],
                         ids=lambda f: f.__name__)
def test_tape_of_a_held_bound_method(form, placement):
    value, grad = _expected()
    y, g = (form if placement == "plain" else sg.function(form))()
    assert y == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(g, grad, rtol=1e-6, atol=1e-9)
