"""Keras's and PyTorch's style: a base class's ``__call__`` forwarding to ``self.call`` (or
``self.forward``), a model's ``call`` calling a layer, so ``Layer.__call__`` runs inside
``Layer.__call__`` on an object of another class. It was refused as a recursion without a
constant to end it (found by a battery of framework-style programs). A recursion on
objects of one class still is."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


class Layer:
    def __call__(self, x):
        return self.call(x)


class Dense(Layer):
    def __init__(self, W):
        self.W = W

    def call(self, x):
        return np.tanh(x @ self.W)


class Model(Layer):
    def __init__(self, inner):
        self.inner = inner

    def call(self, x):
        return self.inner(x) * 2.0


X = np.array([[1.0, 2.0]])
W0 = np.array([[0.5, -0.3], [0.2, 0.8]])
EXPECTED = 2 * X.T @ (1 - np.tanh(X @ W0) ** 2)


def loss(W):
    return np.sum(Model(Dense(W))(X))


def test_built_in_the_code():
    check_grads(loss, (W0,))
    np.testing.assert_allclose(sg.grad(loss)(W0), EXPECTED)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_handed_to_a_tape_block(placement):
    model = Model(Dense(sg.Variable(W0.copy())))

    def run():
        with sg.GradientTape() as tape:
            y = np.sum(model(X))
        return tape.gradient(y, model.inner.W)
    np.testing.assert_allclose((run if placement == "plain" else sg.function(run))(), EXPECTED)


class Node:
    def __init__(self, w, child=None):
        self.w = w
        self.child = child

    def total(self, x):
        return self.w * x + (self.child.total(x) if self.child is not None else 0.0)


def test_a_recursion_over_objects_of_one_class_is_refused():
    def f(w):
        return Node(w, Node(w * 2.0)).total(3.0)
    with pytest.raises(sg.CompileError, match="recursive call"):
        sg.grad(f)(0.5)
