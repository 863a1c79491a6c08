"""A small Keras-like model: Dense layers holding sg.Variables, an MLP, a loss.

Everything here is plain Python + NumPy; a GradientTape differentiates through
``model(x)`` by reading this file's source (``__call__`` of user classes, a
loop over ``self.layers``, attribute reads ``self.w``).
"""
import numpy as np

import srcgrad as sg


def relu(z):
    return np.maximum(z, 0.0)


def identity(z):
    return z


class Dense:
    def __init__(self, n_in, n_out, activation=None, rng=None, name="dense"):
        rng = np.random.default_rng(0) if rng is None else rng
        scale = np.sqrt(2.0 / n_in)
        self.w = sg.Variable(rng.normal(0.0, scale, size=(n_in, n_out)), name=f"{name}/w")
        self.b = sg.Variable(np.zeros(n_out), name=f"{name}/b")
        self.activation = activation

    def __call__(self, x):
        z = x @ self.w + self.b
        if self.activation == "relu":
            return relu(z)
        if self.activation == "tanh":
            return np.tanh(z)
        return z

    @property
    def trainable_variables(self):
        return [self.w, self.b]


class MLP:
    def __init__(self, sizes, activation="tanh", seed=0):
        rng = np.random.default_rng(seed)
        self.layers = []
        for i in range(len(sizes) - 1):
            last = i == len(sizes) - 2
            self.layers.append(Dense(sizes[i], sizes[i + 1], None if last else activation,
                                     rng=rng, name=f"dense_{i}"))

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    @property
    def trainable_variables(self):
        out = []
        for layer in self.layers:
            out += layer.trainable_variables
        return out


def loss_fn(y_true, y_pred):
    """Mean squared error."""
    return np.mean((y_true - y_pred) ** 2)


def make_data(n=32, n_in=3, seed=1):
    """Synthetic regression data: a smooth function of the inputs."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, n_in))
    y = np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3] - 0.3 * x[:, :1] ** 2
    return x, y


def train_step(model, x_batch, y_true, lr):
    """One SGD step with the tape; returns the loss before the step."""
    with sg.GradientTape() as tape:
        loss = loss_fn(y_true, model(x_batch))
    grads = tape.gradient(loss, model.trainable_variables)
    for v, g in zip(model.trainable_variables, grads):
        v.assign_sub(lr * g)
    return loss


@sg.function
def train_step_decorated(model, x_batch, y_true, lr):
    """``train_step`` inside an @sg.function."""
    with sg.GradientTape() as tape:
        loss = loss_fn(y_true, model(x_batch))
    grads = tape.gradient(loss, model.trainable_variables)
    for v, g in zip(model.trainable_variables, grads):
        v.assign_sub(lr * g)
    return loss


def train_step_manual(model, x_batch, y_true, lr):
    """``train_step`` with the tape entered and exited by hand."""
    tape = sg.GradientTape()
    tape.__enter__()
    loss = loss_fn(y_true, model(x_batch))
    tape.__exit__(None, None, None)
    grads = tape.gradient(loss, model.trainable_variables)
    for v, g in zip(model.trainable_variables, grads):
        v.assign_sub(lr * g)
    return loss


def loss_and_grads(model, x_batch, y_true):
    """The loss and its gradients w.r.t. ``model.trainable_variables`` (no update)."""
    with sg.GradientTape() as tape:
        loss = loss_fn(y_true, model(x_batch))
    return loss, tape.gradient(loss, model.trainable_variables)


def train(model, x, y, steps=20, lr=0.1, step=train_step):
    return [float(step(model, x, y, lr)) for _ in range(steps)]
