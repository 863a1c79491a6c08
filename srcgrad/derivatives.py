"""The derivative table: one entry per NumPy/math/builtin primitive.

Each entry is a ``Rule`` (see ``rules.py`` for the full contract). In a grad
expression these names are in scope:

    g      the adjoint of the primitive's result
    ans    the primitive's result
    <p>    each parameter ``p`` of the rule's signature, bound to the call's argument
    np     numpy          math   the math module
    _sg    srcgrad.runtime (core helpers + adjoint_helpers)

Python operators are differentiated through the ufunc they stand for
(``a + b`` uses the entry of ``np.add``): see ``OPERATORS``.
"""
import math

import numpy as np

from .rules import Rule

TABLE = {
    # elementwise
    np.negative: Rule("x", x="-g"),
    np.add: Rule("x1, x2", broadcast=True, x1="g", x2="g"),
    np.subtract: Rule("x1, x2", broadcast=True, x1="g", x2="-g"),
    np.multiply: Rule("x1, x2", broadcast=True, x1="g * x2", x2="g * x1"),
    np.true_divide: Rule("x1, x2", broadcast=True, x1="g / x2", x2="-g * x1 / (x2 * x2)"),
    np.sin: Rule("x", x="g * np.cos(x)"),
    np.exp: Rule("x", x="g * ans"),
    np.tanh: Rule("x", x="g * (1.0 - ans * ans)"),
    np.sum: Rule("a, axis=None, dtype=None, out=None, keepdims=False",
                 a="_sg.sum_grad(g, a, axis, keepdims)"),
    math.sin: Rule("x", x="g * math.cos(x)"),
}

# Python operators -> the primitive whose rule they use.
OPERATORS = {
    "Add": np.add, "Sub": np.subtract, "Mult": np.multiply, "Div": np.true_divide,
    "Pow": np.power, "MatMult": np.matmul, "Mod": np.mod,
    "USub": np.negative, "UAdd": np.positive,
}

# ndarray methods -> (function, how the receiver and arguments map onto it).
# "plain": x.m(*args, **kw) == f(x, *args, **kw)
# "shape": x.m(*dims) == f(x, dims) where dims may be given unpacked (reshape, transpose)
METHODS = {
    "sum": (np.sum, "plain"),
    "reshape": (np.reshape, "shape"),
}

# Attributes of arrays: differentiable ones map to a function of the array.
ATTRIBUTES = {"T": np.transpose}

# Called freely, never differentiated: their results carry no gradient.
NONDIFF = {
    np.shape, np.ndim, np.size, len, np.zeros_like, np.ones_like, np.argmax,
    np.argmin, np.sign, np.floor, np.ceil, np.round, np.zeros, np.ones, np.empty,
    np.arange, np.linspace, np.eye, np.isfinite, np.isnan, range, int, bool,
    isinstance, type, print,
}
# Attributes of arrays that carry no gradient.
NONDIFF_ATTRIBUTES = {"shape", "ndim", "dtype", "size"}
