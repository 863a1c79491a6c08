"""User functions that corpus functions call from another module.

Imported both ways a user would: ``from . import helpers_mod`` (then
``helpers_mod.sigmoid(z)``) and ``from .helpers_mod import sigmoid``. The
compiler must find and differentiate their source here. Some of them call each
other, so the call chain crosses functions inside this module as well.
"""
import math

import numpy as np


def sigmoid(z):
    """The logistic function, elementwise."""
    return 1.0 / (1.0 + np.exp(-z))


def softplus(z):
    """log(1 + exp(z)), computed without overflow."""
    return np.logaddexp(0.0, z)


def squared_norm(v):
    return np.sum(v * v)


def normalized(v, eps=1e-12):
    """``v`` scaled to unit length (calls another helper of this module)."""
    return v / np.sqrt(squared_norm(v) + eps)


def moments(a):
    """Mean and (biased) variance of a vector, returned as a tuple."""
    m = np.mean(a)
    d = a - m
    return m, np.mean(d * d)


def affine(x, W, b=None, scale=1.0):
    """``scale * x @ W + b`` with an optional bias and a keyword scale."""
    out = scale * (x @ W)
    if b is not None:
        out = out + b
    return out


def tanh_layer(x, W, b=0.0):
    return np.tanh(affine(x, W, b=b))


def logsumexp(z, axis=None, keepdims=False):
    """log(sum(exp(z))) along ``axis``, shifted by the maximum for stability."""
    zmax = np.max(z, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(z - zmax), axis=axis, keepdims=True)) + zmax
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out


def horner(coeffs, x):
    """Evaluate the polynomial with ``coeffs`` (highest degree first) at ``x``."""
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


def mse(pred, target):
    return np.mean((pred - target) ** 2)


def huber(r, delta=1.0):
    """Elementwise Huber function: quadratic within ``delta``, linear outside."""
    small = np.abs(r) <= delta
    return np.where(small, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta))


def smooth_abs(x, eps=1e-2):
    """A differentiable stand-in for ``abs`` on Python floats."""
    return math.sqrt(x * x + eps)


def gaussian_pdf(x, mu=0.0, sigma=1.0):
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))
