"""The benchmark workloads, each written once, as plain NumPy.

Each is a function returning a scalar loss (the last, a vector: its Jacobian
is taken), in the style a scientist writes it; none is shaped to suit a
particular gradient tool. srcgrad differentiates
these functions as they stand.

The autograd and JAX columns run this same source with ``np`` rebound to
``autograd.numpy`` / ``jax.numpy`` (see ``frameworks.py``), so this module
must stay free of anything but the workload functions and ``import numpy``.
"""
import numpy as np


# 1. Rosenbrock as a Python loop over the scalar elements of an array.
def rosenbrock_loop(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


# 2. Logistic regression: mean logistic loss, labels y in {-1, +1}.
def logistic_loss(w, b, X, y):
    margins = y * (X @ w + b)
    return np.mean(np.logaddexp(0.0, -margins))


# 3. Two-layer tanh MLP with softmax cross-entropy; labels are class indices.
def mlp_loss(W1, b1, W2, b2, X, labels):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), labels])



# 3b. The same MLP in another style users write: the parameters as one dict.
def mlp_loss_params(params, X, labels):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), labels])

# 3c. And as one tuple, unpacked, with the hidden layer in a helper.
def dense_tanh(W, b, x):
    return np.tanh(x @ W + b)


def mlp_loss_tuple(params, X, labels):
    W1, b1, W2, b2 = params
    logits = dense_tanh(W1, b1, X) @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), labels])


# 4. Vanilla tanh RNN over a sequence xs of shape (steps, batch, inputs);
#    squared error of a linear read-out of the last hidden state.
def rnn_loss(Wx, Wh, b, Wo, xs, target):
    h = np.zeros((xs.shape[1], Wh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    prediction = h @ Wo
    return np.mean((prediction - target) ** 2)


# 5. RK4 integration of the Lotka-Volterra equations; the loss is on the final
#    state, the gradient is taken with respect to the parameters p.
def lotka_volterra(state, p):
    prey, predator = state[0], state[1]
    alpha, beta, gamma, delta = p[0], p[1], p[2], p[3]
    return np.array([alpha * prey - beta * prey * predator,
                     delta * prey * predator - gamma * predator])


def rk4_loss(p, y0, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = lotka_volterra(y, p)
        k2 = lotka_volterra(y + 0.5 * dt * k1, p)
        k3 = lotka_volterra(y + 0.5 * dt * k2, p)
        k4 = lotka_volterra(y + dt * k3, p)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum((y - 1.0) ** 2)


# 5b. The same RK4 in another style users write: Python-float state, and a helper
#     returning the derivatives as a tuple (issue 15's first style).
def lotka_volterra_floats(prey, predator, alpha, beta, gamma, delta):
    return alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator


def rk4_loss_floats(alpha, beta, gamma, delta, prey, predator, dt, steps):
    x, y = prey, predator
    for _ in range(steps):
        k1x, k1y = lotka_volterra_floats(x, y, alpha, beta, gamma, delta)
        k2x, k2y = lotka_volterra_floats(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y,
                                         alpha, beta, gamma, delta)
        k3x, k3y = lotka_volterra_floats(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y,
                                         alpha, beta, gamma, delta)
        k4x, k4y = lotka_volterra_floats(x + dt * k3x, y + dt * k3y, alpha, beta, gamma, delta)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    return (x - 1.0) ** 2 + (y - 1.0) ** 2


# 6. A scalar recurrence, differentiated twice (grad of grad).
def scalar_recurrence(a):
    s = a
    for _ in range(100):
        s = np.sin(s) * a + 0.5 * s
    return s


# 7. A two-layer tanh network without biases, for its full Jacobian dy/dx.
def tanh_net(W1, W2, x):
    return np.tanh(W2 @ np.tanh(W1 @ x))


# 8. A small function of a vector, for Hessian-vector products (forward over reverse).
def chain_energy(x):
    return np.sum(np.sin(x) * x ** 2) + np.sum(x[:-1] * x[1:]) ** 2
