"""Train a small MLP with sg.GradientTape and plain SGD on synthetic data.

    python examples/train_mlp_tape.py [--steps 200] [--lr 0.1]

The model is ordinary Python: layers are classes holding sg.Variables, the
forward pass loops over them. The tape reads the training step's source and
compiles its adjoint code once; every later step reuses it.
"""
import argparse

import numpy as np

import srcgrad as sg


class Dense:
    def __init__(self, n_in, n_out, activation, rng):
        self.w = sg.Variable(rng.normal(0.0, np.sqrt(1.0 / n_in), size=(n_in, n_out)),
                             name="w")
        self.b = sg.Variable(np.zeros(n_out), name="b")
        self.activation = activation

    def __call__(self, x):
        z = x @ self.w + self.b
        if self.activation:
            return np.tanh(z)
        return z


class MLP:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [Dense(a, b, i < len(sizes) - 2, rng)
                       for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))]

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    @property
    def trainable_variables(self):
        return [v for layer in self.layers for v in (layer.w, layer.b)]


def mse(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2)


def synthetic_data(n=128, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, size=(n, 2))
    y = np.sin(x[:, :1]) * np.cos(x[:, 1:]) + 0.1 * x[:, :1]
    return x, y


def train_step(model, x, y, lr):
    with sg.GradientTape() as tape:
        loss = mse(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    for v, g in zip(model.trainable_variables, grads):
        v.assign_sub(lr * g)
    return loss


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=16)
    args = parser.parse_args(argv)

    x, y = synthetic_data()
    model = MLP([2, args.hidden, args.hidden, 1])
    every = max(1, args.steps // 10)
    losses = []
    for step in range(args.steps):
        loss = train_step(model, x, y, args.lr)
        losses.append(float(loss))
        if step % every == 0 or step == args.steps - 1:
            print(f"step {step:5d}  loss {float(loss):.6f}")
    print(f"final loss {mse(y, model(x)):.6f} (started at {losses[0]:.6f})")
    return losses


if __name__ == "__main__":
    main()
