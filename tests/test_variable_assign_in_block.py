"""A Variable assigned a value computed from differentiated ones inside a tape block:
a batch norm's moving statistics in training (``moving_mean.assign(0.9 * moving_mean +
0.1 * mu)``). TensorFlow's assign has no gradient: the value is stored, the loss's
gradient flows as usual. It was refused ("called for its effect on differentiable
values"). Checked in plain code and ``@sg.function`` over training steps against central
differences, with the statistics updated once a step.
"""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([[1.0, 2.0], [-0.5, 0.5], [0.3, -1.0]])
WEIGHTS = np.array([1.0, 2.0])


class Dense:
    def __init__(self):
        self.w = sg.Variable(np.array([[0.5, -0.2], [0.1, 0.9]]))

    def __call__(self, x):
        return x @ self.w


class BatchNorm:
    def __init__(self, n):
        self.gamma = sg.Variable(np.ones(n))
        self.moving_mean = sg.Variable(np.zeros(n), trainable=False)

    def __call__(self, h):
        mu = np.mean(h, axis=0)
        var = np.var(h, axis=0)
        self.moving_mean.assign(0.9 * self.moving_mean + 0.1 * mu)
        return self.gamma * (h - mu) / np.sqrt(var + 1e-3)


def step(dense, bn):
    with sg.GradientTape() as tape:
        out = bn(dense(X))
        loss = np.sum(np.tanh(out) * WEIGHTS)
    g = tape.gradient(loss, dense.w)
    dense.w.assign_sub(0.1 * g)
    return g


def _loss(W):
    h = X @ W
    return np.sum(np.tanh((h - h.mean(0)) / np.sqrt(h.var(0) + 1e-3)) * WEIGHTS)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_training_steps(placement):
    dense, bn = Dense(), BatchNorm(2)
    run = sg.function(step) if placement == "function" else step
    moving = np.zeros(2)
    for _ in range(3):
        W = dense.w.numpy().copy()
        moving = 0.9 * moving + 0.1 * (X @ W).mean(0)
        g = run(dense, bn)
        fd = np.zeros_like(W)
        for idx in np.ndindex(W.shape):
            e = np.zeros_like(W)
            e[idx] = 1e-6
            fd[idx] = (_loss(W + e) - _loss(W - e)) / 2e-6
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(bn.moving_mean.numpy(), moving, rtol=1e-12)
