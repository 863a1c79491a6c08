"""One function per cause ``sg.explain`` names (tests/test_explain.py); the lines it
must name are marked ``# MARK: <cause>``."""
import numpy as np

import srcgrad as sg

USE_NOISE = False


def integer_cast(x, k):
    n = int(k)  # MARK: int
    return np.sum(x) * n


def integer_cast_of_a_sum(x, k):
    n = int(np.sum(k))  # MARK: int of a sum
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


# --- a value overwritten before use (each rebinding marked, and what it rebinds) ---

def overwritten(x, w):
    h = x * w  # MARK: overwritten h
    h = x * 2.0  # MARK: overwrites h
    return np.sum(h)


def argument_rebound(x, w):
    w = 3.0  # MARK: rebinds w
    return np.sum(x * w)


def filled(x, w):
    a = w * 1.0  # MARK: filled a
    a[:] = 0.0  # MARK: fills a
    return np.sum(a * x)


def overwritten_in_both_branches(x, w, c):
    h = x * w  # MARK: h before both branches
    if c > 0:
        h = x * 2.0  # MARK: then-branch overwrites h
    else:
        h = x * 3.0  # MARK: else-branch overwrites h
    return np.sum(h)


class Reset:
    """Overwrites in a branch decided when compiling (``args`` given to explain)."""

    def __init__(self, on):
        self.on = on

    def __call__(self, x, w):
        h = x * w  # MARK: h before the decided branch
        if self.on:
            h = x * 2.0  # MARK: decided branch overwrites h
        return np.sum(h)


# --- rebindings after a read: connected, never "overwritten" ---

def loop_carried(x, w):
    h = x * 2.0
    out = 0.0
    for i in range(3):
        out = out + np.sum(h)
        h = x * w  # read by the next iteration
    return out


def augmented(x, w):
    h = x * w
    h += x
    return np.sum(h)


def read_in_one_branch(x, w, c):
    h = x * w
    out = np.sum(x)
    if c > 0:
        out = np.sum(h)
    h = x * 2.0
    return out + np.sum(h)


def overwritten_in_one_branch(x, w, c):
    h = x * w
    if c > 0:
        h = x * 2.0
    return np.sum(h)


def slot_written(x, w):
    a = w * 1.0
    a[0] = 0.0
    return np.sum(a * x)


def argument_read_then_rebound(x, w):
    w = w * 2.0
    return np.sum(x * w)


def einsum_rebound(x, w):
    h = np.einsum("i,i->i", x, w)
    h = np.einsum("i,i->i", h, x)  # reads h through the rule's operand list
    return np.sum(h)
