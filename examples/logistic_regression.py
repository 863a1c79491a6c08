"""Logistic regression trained by gradient descent, gradients from srcgrad.

    python examples/logistic_regression.py
"""
import numpy as np


def loss(w, b, X, y):
    """Mean logistic loss for labels y in {-1, +1}."""
    margins = y * (X @ w + b)
    return np.mean(np.logaddexp(0.0, -margins))


def synthetic_data(n=200, features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, features))
    true_w = np.array([2.0, -1.0, 0.5])[:features]
    noise = 0.5 * rng.standard_normal(n)
    y = np.where(X @ true_w + 0.3 + noise > 0, 1.0, -1.0)
    return X, y


if __name__ == "__main__":
    import srcgrad

    X, y = synthetic_data()
    w, b = np.zeros(X.shape[1]), 0.0
    grad_loss = srcgrad.grad(loss, wrt=("w", "b"))
    learning_rate = 0.5

    first = loss(w, b, X, y)
    for step in range(51):
        if step % 10 == 0:
            print(f"step {step:3d}  loss {loss(w, b, X, y):.4f}")
        dw, db = grad_loss(w, b, X, y)
        w = w - learning_rate * dw
        b = b - learning_rate * db
    last = loss(w, b, X, y)
    print("weights", w, "bias", b)
    if not last < first:
        raise SystemExit(f"the loss did not fall: {first:.4f} -> {last:.4f}")
