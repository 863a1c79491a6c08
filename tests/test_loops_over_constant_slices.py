"""Loops over a constant slice of a container known when compiling: ``for layer in
self.layers[:-1]``, the from-scratch Keras model's forward pass.

Over layers holding Variables a tape watches, such a loop was refused (the items it
reads were not known); it is unrolled as the loop over the whole list is. Checked in a
tape in plain code and in ``@sg.function`` against central differences, and through
``sg.grad`` of a list of weights (a parameter tree) to second order.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


class Linear:
    def __init__(self, n_in, n_out, rng):
        self.W = sg.Variable(rng.normal(size=(n_in, n_out)) * 0.5)
        self.b = sg.Variable(rng.normal(size=n_out) * 0.1)

    def __call__(self, x):
        return x @ self.W + self.b


class Model:
    def __init__(self, how):
        rng = np.random.default_rng(0)
        self.layers = [Linear(3, 4, rng), Linear(4, 4, rng), Linear(4, 2, rng)]
        self.how = how

    def __call__(self, x):
        if self.how == "all but last":
            for layer in self.layers[:-1]:
                x = np.tanh(layer(x))
            return self.layers[-1](x)
        x = np.tanh(self.layers[0](x))
        for layer in self.layers[1:]:
            x = np.sin(layer(x))
        return x


def _loss(model, X):
    with sg.GradientTape() as tape:
        loss = np.sum(model(X) ** 2)
    return loss, tape.gradient(loss, [v for layer in model.layers for v in (layer.W, layer.b)])


def _plain_loss(model, X):
    return float(np.sum(model(X) ** 2))


@pytest.mark.parametrize("how", ["all but last", "all but first"])
@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_tape_over_a_slice_of_layers(how, placement):
    model = Model(how)
    X = np.random.default_rng(1).normal(size=(2, 3))
    run = sg.function(_loss) if placement == "function" else _loss
    loss, grads = run(model, X)
    assert loss == pytest.approx(_plain_loss(model, X), rel=1e-12)
    variables = [v for layer in model.layers for v in (layer.W, layer.b)]
    eps = 1e-6
    for v, g in zip(variables, grads):
        value = v.numpy().copy()
        fd = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            step = np.zeros_like(value)
            step[idx] = eps
            v.assign(value + step)
            up = _plain_loss(model, X)
            v.assign(value - step)
            down = _plain_loss(model, X)
            fd[idx] = (up - down) / (2 * eps)
        v.assign(value)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def mlp_over_sliced_weights(weights, x):
    for W in weights[:-1]:
        x = np.tanh(x @ W)
    return np.sum((x @ weights[-1]) ** 2)


def mlp_every_other(weights, x):
    total = 0.0
    for W in weights[::2]:
        total = total + np.sum(np.sin(x @ W))
    for W in weights[-2:]:
        total = total + np.sum(W ** 2)
    return total


@pytest.mark.parametrize("f", [mlp_over_sliced_weights, mlp_every_other])
def test_sg_grad_of_a_list_read_by_slices(f):
    rng = np.random.default_rng(2)
    weights = [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)]
    check_grads(f, (weights, rng.normal(size=(2, 3))), order=2)
