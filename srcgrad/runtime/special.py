"""Helpers of the ``special`` rules (``rules/special.py``), reached as ``_sg.<name>``.

Each is plain Python over functions that have rules, so that adjoint code
calling it can be differentiated again (``tests/test_rule_table.py`` reads
them). Without SciPy the rules are absent and these are never called.
"""
import math

import numpy as np

from .adjoints import not_differentiable, sum_grad

__all__ = ["erf_slope", "ratio_where", "logsumexp_grad", "softmax_grad", "log_softmax_grad",
           "polygamma_slope", "zeta_slope"]

try:
    from scipy.special import digamma, expit
    from scipy.special._ufuncs import _zeta as zeta  # (scipy.special.zeta is Python over it)
except ImportError:  # the rules that call these are absent too
    pass
else:
    __all__ += ["digamma", "expit", "zeta"]


def erf_slope(x):
    """d erf(x) / dx = 2 / sqrt(pi) exp(-x^2)."""
    return (2.0 / math.sqrt(math.pi)) * np.exp(-(x * x))


def polygamma_slope(n, x):
    """d polygamma(n, x) / dx = polygamma(n + 1, x) = (-1)^(n + 2) (n + 1)! zeta(n + 2, x)."""
    return (-1.0) ** (n + 2) * math.factorial(n + 1) * zeta(n + 2.0, x)


def zeta_slope(s, q):
    """d zeta(s, q) / dq = -s zeta(s + 1, q) (the Hurwitz zeta function)."""
    return -s * zeta(s + 1.0, q)


def ratio_where(x, y):
    """x / y, and 0 where x == 0: d xlogy(x, y) / dy, as xlogy(0, y) is 0 for every y."""
    return np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, y))


def logsumexp_grad(g, ans, a, axis, b, keepdims, return_sign):
    """Adjoint of ``scipy.special.logsumexp(a, axis, b, keepdims)``: the softmax of ``a``
    (times ``b``) weighting ``g`` spread back over the reduced axes."""
    if return_sign:
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True)")
    weights = np.exp(a - sum_grad(ans, a, axis, keepdims))
    if b is not None:
        weights = weights * b
    return sum_grad(g, a, axis, keepdims) * weights


def softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.softmax(x, axis)``: s * (g - sum(g * s))."""
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


def log_softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.log_softmax(x, axis)``: g - softmax * sum(g)."""
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)
