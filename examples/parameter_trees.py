"""A two-layer network whose parameters are one dict, trained with srcgrad, and the
same network with its layers as a list of (W, b) pairs and as namedtuples: the
gradient comes back in the structure of the parameters (as in JAX).

    python examples/parameter_trees.py
"""
from typing import NamedTuple

import numpy as np


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def mlp_loss(params, X, y):
    """Mean squared error of a tanh network whose parameters are a dict."""
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.mean((out[:, 0] - y) ** 2)


def layers_loss(layers, X, y):
    """The same network, its layers a list of (W, b) pairs."""
    h = X
    for W, b in layers[:-1]:
        h = np.tanh(h @ W + b)
    W, b = layers[-1]
    return np.mean(((h @ W + b)[:, 0] - y) ** 2)


def records_loss(layers, X, y):
    """The same network, its layers namedtuples read by field."""
    h = X
    for layer in layers[:-1]:
        h = np.tanh(h @ layer.W + layer.b)
    out = h @ layers[-1].W + layers[-1].b
    return np.mean((out[:, 0] - y) ** 2)


def data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, (n, 1))
    return X, np.sin(X[:, 0])


def initial(seed=1, width=16):
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(size=(1, width)), "b1": np.zeros(width),
            "W2": rng.normal(size=(width, 1)) / width, "b2": np.zeros(1)}


if __name__ == "__main__":
    import srcgrad as sg

    X, y = data()
    params = initial()
    value_and_grad = sg.value_and_grad(mlp_loss)
    first = mlp_loss(params, X, y)
    for step in range(301):
        loss, grads = value_and_grad(params, X, y)  # grads: a dict with params' keys
        params = {k: params[k] - 0.1 * grads[k] for k in params}
        if step % 100 == 0:
            print(f"step {step:3d}  loss {loss:.4f}")
    last = mlp_loss(params, X, y)

    layers = [(params["W1"], params["b1"]), (params["W2"], params["b2"])]
    g = sg.grad(layers_loss)(layers, X, y)  # a list of (dW, db) pairs
    same = sg.grad(mlp_loss)(params, X, y)
    assert np.allclose(g[0][0], same["W1"]) and np.allclose(g[1][1], same["b2"])
    named = sg.grad(records_loss)([Layer(*pair) for pair in layers], X, y)  # Layers of grads
    assert isinstance(named[0], Layer) and np.allclose(named[0].W, same["W1"])
    if not last < first:
        raise SystemExit(f"the loss did not go down: {first} -> {last}")
    print("ok: the three structures give the same gradient")
