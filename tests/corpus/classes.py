"""User classes whose methods and ``__call__`` corpus functions call.

Instances are passed to corpus functions as ordinary, non-differentiated
arguments (``model``, ``layer``, ``poly``, ``kernel``, ``ode``); gradients are
taken with respect to the float arguments that flow through the methods.
"""
import math

import numpy as np


class Dense:
    """A fully connected layer ``act(x @ w + b)``."""

    def __init__(self, w, b, activation="tanh"):
        self.w = w
        self.b = b
        self.activation = activation

    def __call__(self, x):
        z = x @ self.w + self.b
        if self.activation == "tanh":
            return np.tanh(z)
        return z

    def l2_penalty(self):
        return np.sum(self.w ** 2)


class MLP:
    """A stack of ``Dense`` layers."""

    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    def loss(self, X, ys):
        """Mean squared error of the first output column against ``ys``."""
        pred = self(X)[:, 0]
        return np.mean((pred - ys) ** 2)


class Polynomial:
    """A polynomial with fixed coefficients, highest degree first."""

    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        acc = 0.0
        for c in self.coeffs:
            acc = acc * x + c
        return acc

    def derivative(self, x):
        degree = len(self.coeffs) - 1
        acc = 0.0
        for i, c in enumerate(self.coeffs[:-1]):
            acc = acc * x + (degree - i) * c
        return acc


class RBFKernel:
    """The squared-exponential kernel ``variance * exp(-|x1 - x2|^2 / (2 l^2))``."""

    def __init__(self, lengthscale, variance):
        self.lengthscale = lengthscale
        self.variance = variance

    def __call__(self, x1, x2):
        d = x1 - x2
        return self.variance * np.exp(-0.5 * np.dot(d, d) / self.lengthscale ** 2)

    def gram(self, X):
        sq = np.sum(X * X, axis=1)
        d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
        return self.variance * np.exp(-0.5 * d2 / self.lengthscale ** 2)


class DampedOscillator:
    """``x'' + 2 zeta omega x' + omega^2 x = forcing * sin(t)`` as a first-order system."""

    def __init__(self, omega, zeta, forcing):
        self.omega = omega
        self.zeta = zeta
        self.forcing = forcing

    def rhs(self, t, state):
        pos, vel = state[0], state[1]
        acc = -2.0 * self.zeta * self.omega * vel - self.omega ** 2 * pos
        acc = acc + self.forcing * math.sin(t)
        return np.array([vel, acc])

    def energy(self, state):
        return 0.5 * state[1] ** 2 + 0.5 * self.omega ** 2 * state[0] ** 2
