"""One function per cause ``sg.explain`` names (tests/test_explain.py); the lines it
must name are marked ``# MARK: <cause>``."""
import numpy as np

import srcgrad as sg

USE_NOISE = False


def integer_cast(x, k):
    n = int(k)  # MARK: int
    return np.sum(x) * n


def astype_int(x, k):
    m = k.astype(int)  # MARK: astype
    return np.sum(x * m)


def comparison(x, y):
    mask = (y > 0) * 1.0  # MARK: comparison
    return np.sum(x * mask)


def argmax(x, y):
    i = np.argmax(y)  # MARK: argmax
    return x[i]


def stopped(x, y):
    z = sg.stop_gradient(y) * x  # MARK: stop
    return np.sum(z)


def unused(x, y):
    side = np.sin(y) * 2  # MARK: unused
    return np.sum(x ** 2)


def never_read(x, y):
    return np.sum(x ** 2)


class Noise:
    def __init__(self, on):
        self.on = on

    def __call__(self, x, y):
        out = x * 2.0
        if self.on:  # MARK: branch
            out = out + y
        return np.sum(out)
