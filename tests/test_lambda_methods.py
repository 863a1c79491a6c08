"""A method defined by a lambda in a class body (``act = lambda self, z: ...``): its
injected name was ``lambda``, a keyword, and the generated code a SyntaxError (found by a
battery of framework-style programs)."""
import sys
from pathlib import Path

import numpy as np

from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import taped  # noqa: E402


class Layer:
    act = lambda self, z: np.tanh(z) * self.k  # noqa: E731

    def __init__(self, W):
        self.W = W
        self.k = 0.5

    def __call__(self, x):
        return self.act(x @ self.W)


X = np.array([[1.0, 2.0]])


def loss(W):
    return np.sum(Layer(W)(X))


def test_a_lambda_method():
    W = np.array([[0.5, -0.3], [0.2, 0.8]])
    check_grads(loss, (W,))
    expected = X.T @ (0.5 * (1 - np.tanh(X @ W) ** 2))
    np.testing.assert_allclose(taped(loss, W.copy()), expected)
