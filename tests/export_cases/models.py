"""Functions exported in tests/test_export.py, in the styles users write: globals
(numbers, arrays, a flag), helpers, loops and branches, parameter dicts, complex
values and FFTs, scipy.special."""
import math

import numpy as np
import scipy.special as sp

SCALE = 0.5
CENTRES = np.array([[0.0, 1.0], [1.0, -1.0], [2.0, 0.5]])
USE_BIAS = True


def _layer(W, b, x):
    h = x @ W
    if USE_BIAS:
        h = h + b
    return np.tanh(h)


def mlp(params, x):
    h = _layer(params["W1"], params["b1"], x)
    return np.mean(_layer(params["W2"], params["b2"], h) ** 2)


def rbf_energy(p):
    total = 0.0
    for c in CENTRES:  # a loop over a global array's rows
        d = p - c
        total = total + math.exp(-SCALE * float(np.dot(d, d)))
    return total


def spectral(x):
    f = np.fft.rfft(x * np.hanning(len(x)))
    return np.sum(np.abs(f) ** 2) + np.sum(sp.log_expit(x))


def complex_phase(z):
    return np.sum(np.abs(np.exp(1j * z) - z) ** 2)


def piecewise(x, y):
    out = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            out = out + x[i] * y
        else:
            out = out - np.sin(x[i]) ** 2
    return out
