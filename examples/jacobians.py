"""Jacobians and Hessians with GradientTape, checked against finite differences.

    python examples/jacobians.py

- the Jacobian of a small tanh network's output with respect to its input
  (``tape.jacobian``: one backward pass for all output rows at once);
- per-example Jacobians of a batch (``tape.batch_jacobian``);
- the Hessian of a loss, as the Jacobian of a nested tape's gradient.

Exits with status 1 if any result differs from central differences.
"""
import sys

import numpy as np

import srcgrad as sg

rng = np.random.default_rng(0)
W1 = rng.standard_normal((16, 4)) * 0.5
W2 = rng.standard_normal((3, 16)) * 0.5


def network(x):
    return np.tanh(W2 @ np.tanh(W1 @ x))


def loss(x):
    return np.sum(network(x) ** 2) + 0.1 * np.sum(x ** 4)


def numeric_jacobian(f, x, eps=1e-6):
    columns = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = eps
        columns.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * eps))
    return np.stack(columns, axis=-1).reshape(np.shape(f(x)) + x.shape)


def report(what, got, expected):
    ok = np.allclose(got, expected, rtol=1e-6, atol=1e-8)
    print(f"{what:<44} shape {str(np.shape(got)):<10} {'ok' if ok else 'MISMATCH'}")
    return ok


x = rng.standard_normal(4)

# d network(x) / dx: a (3, 4) matrix from one backward pass.
with sg.GradientTape() as tape:
    tape.watch(x)
    y = network(x)
jacobian = tape.jacobian(y, x)

# Per-example Jacobians of a batch of 5 inputs: (5, 3, 4).
batch = rng.standard_normal((5, 4))
with sg.GradientTape() as tape:
    tape.watch(batch)
    ys = np.tanh(np.tanh(batch @ W1.T) @ W2.T)
per_example = tape.batch_jacobian(ys, batch)

# The Hessian of the loss: the Jacobian of the gradient an inner tape computes.
with sg.GradientTape() as outer:
    outer.watch(x)
    with sg.GradientTape() as inner:
        inner.watch(x)
        value = loss(x)
    g = inner.gradient(value, x)
hessian = outer.jacobian(g, x)

results = [
    report("jacobian of the network", jacobian, numeric_jacobian(network, x)),
    report("batch_jacobian, example by example", per_example,
           np.stack([numeric_jacobian(network, b) for b in batch])),
    report("hessian of the loss", hessian, numeric_jacobian(sg.grad(loss), x)),
    report("the hessian is symmetric", hessian, hessian.T),
]
sys.exit(0 if all(results) else 1)
