"""Helpers of the ``special`` rules (``rules/special.py``), reached as ``_sg.<name>``.

Each is plain Python over functions that have rules, so that adjoint code
calling it can be differentiated again (``tests/test_rule_table.py`` reads
them). Without SciPy the rules are absent and these are never called.
"""
import math

import numpy as np

from .adjoints import not_differentiable, sum_grad, sum_to
from .complexes import is_complex

__all__ = ["erf_slope", "ratio_where", "logsumexp_grad", "logsumexp_b_grad", "softmax_grad", "log_softmax_grad",
           "logsumexp_sign_weights", "b_or_one", "logsumexp_sign_tangent",
           "polygamma_slope", "zeta_slope", "erfinv_slope", "i1_slope", "i1e_slope",
           "gammainc_slope", "multigammaln_slope", "normal_density", "log_ndtr_slope",
           "ndtri_slope", "loggamma_slope"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# scipy.special's functions the helpers call: bound when a program has imported it
# (from_scipy.py; also ``_sg.<name>``), as importing srcgrad imports no SciPy.
digamma = gammaln = i0 = i0e = i1 = i1e = xlogy = zeta = None


def erf_slope(x):
    """d erf(x) / dx = 2 / sqrt(pi) exp(-x^2)."""
    return (2.0 / math.sqrt(math.pi)) * np.exp(-(x * x))


def normal_density(x):
    """d ndtr(x) / dx: the standard normal density exp(-x^2 / 2) / sqrt(2 pi)."""
    return np.exp(-0.5 * (x * x) - _LOG_SQRT_2PI)


def log_ndtr_slope(x, y):
    """d log_ndtr(x) / dx = density(x) / ndtr(x), as exp(log density - y), y = log_ndtr(x):
    finite far in the lower tail, where both are tiny."""
    return np.exp(-0.5 * (x * x) - _LOG_SQRT_2PI - y)


def ndtri_slope(y):
    """d ndtri(p) / dp = 1 / density(y), y = ndtri(p)."""
    return np.exp(0.5 * (y * y) + _LOG_SQRT_2PI)


def loggamma_slope(x):
    """d loggamma(x) / dx = digamma(x) for real x > 0; NaN where SciPy's value is NaN
    (x <= 0). Complex values are refused (SciPy's loggamma is the principal branch)."""
    if is_complex(x):
        return not_differentiable("scipy.special.loggamma of complex values")
    return np.where(x > 0, digamma(np.where(x > 0, x, 1.0)), np.nan)


def polygamma_slope(n, x):
    """d polygamma(n, x) / dx = polygamma(n + 1, x) = (-1)^(n + 2) (n + 1)! zeta(n + 2, x).
    SciPy's zeta takes real ``x`` only: a complex one is refused."""
    if is_complex(x):
        return not_differentiable("digamma or polygamma of a complex value (its slope, "
                                  "zeta(n + 2, x), SciPy computes for real values only)")
    # (n + 1)! as exp(gammaln(n + 2)) also for an array of orders, which math.factorial
    # refuses; exact to rounding.
    return (-1.0) ** (n + 2) * np.exp(gammaln(n + 2.0)) * zeta(n + 2.0, x)


def zeta_slope(s, q):
    """d zeta(s, q) / dq = -s zeta(s + 1, q) (the Hurwitz zeta function)."""
    return -s * zeta(s + 1.0, q)


def erfinv_slope(y):
    """d erfinv(x) / dx = sqrt(pi) / 2 exp(y^2), y = erfinv(x) (erfcinv: its negative)."""
    return (0.5 * math.sqrt(math.pi)) * np.exp(y * y)


def i1_slope(x):
    """d i1(x) / dx = i0(x) - i1(x) / x, and its limit 1/2 at x == 0."""
    return np.where(x == 0, 0.5, i0(x) - i1(x) / np.where(x == 0, 1.0, x))


def i1e_slope(x):
    """d i1e(x) / dx = i0e(x) - i1e(x) / x - sign(x) i1e(x), and its limit 1/2 at x == 0
    (i1e(x) = exp(-|x|) i1(x))."""
    return np.where(x == 0, 0.5, i0e(x) - i1e(x) / np.where(x == 0, 1.0, x)
                    - np.sign(x) * i1e(x))


def gammainc_slope(a, x):
    """d gammainc(a, x) / dx = exp(-x) x^(a - 1) / gamma(a) (gammaincc: its negative),
    through logarithms (xlogy: 1 at x == 0 for a == 1)."""
    return np.exp(xlogy(a - 1.0, x) - x - gammaln(a))


def multigammaln_slope(a, d):
    """d multigammaln(a, d) / da = sum over j < d of digamma(a - j / 2)."""
    total = 0.0 * a
    for j in range(int(d)):
        total = total + digamma(a - 0.5 * j)
    return total


def ratio_where(x, y):
    """x / y, and 0 where x == y == 0: d xlogy(x, y) / dy, as xlogy(0, y) is 0 for every y.

    Only the point where both are 0 is masked: at x == 0 the slope's own slope in x is
    still 1 / y (masking every x == 0 made that second derivative 0)."""
    return x / np.where(np.logical_and(x == 0, y == 0), 1.0, y)


def logsumexp_grad(g, ans, a, axis, b, keepdims, return_sign):
    """Adjoint of ``scipy.special.logsumexp(a, axis, b, keepdims)``: the softmax of ``a``
    (times ``b``) weighting ``g`` spread back over the reduced axes.

    With ``return_sign`` (``ans`` and ``g`` pairs: ``log|s|`` and the sign of
    ``s = sum b exp(a)``, piecewise constant: no adjoint), ``d log|s| / da_i = b_i exp(a_i) / s
    = sign b_i exp(a_i - log|s|)``."""
    if return_sign:
        return logsumexp_sign_weights(g[0], ans, a, axis, b, keepdims) * b_or_one(b)
    weights = np.exp(a - sum_grad(ans, a, axis, keepdims))
    if b is not None:
        weights = weights * b
    return sum_grad(g, a, axis, keepdims) * weights


def logsumexp_b_grad(g, ans, a, axis, b, keepdims, return_sign):
    """Adjoint of ``scipy.special.logsumexp(a, axis, b, keepdims)`` in the weights ``b``:
    d/db_i log(sum_j b_j exp(a_j)) = exp(a_i - ans), ``g`` spread back over the reduced
    axes and summed down to ``b``'s shape (with ``return_sign``, times the sign)."""
    if return_sign:
        return sum_to(logsumexp_sign_weights(g[0], ans, a, axis, b, keepdims), b)
    return sum_to(sum_grad(g, a, axis, keepdims) * np.exp(a - sum_grad(ans, a, axis, keepdims)), b)


def logsumexp_sign_weights(g, ans, a, axis, b, keepdims):
    """``g`` spread back over the reduced axes times ``sign exp(a - log|s|)`` (``ans`` the pair
    ``log|s|, sign`` of ``logsumexp(..., return_sign=True)``)."""
    if is_complex(a) or is_complex(b):
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True) of complex "
                                  "values")
    scale = np.exp(a - sum_grad(ans[0], a, axis, keepdims)) * sum_grad(ans[1], a, axis, keepdims)
    return sum_grad(g, a, axis, keepdims) * scale


def b_or_one(b):
    """The weights ``b`` of ``logsumexp``, 1.0 for none."""
    if b is None:
        return 1.0
    return b


def logsumexp_sign_tangent(a, a_dot, axis, b, b_dot, keepdims, ans):
    """Forward mode's tangent of ``logsumexp(a, axis, b, keepdims, return_sign=True)``:
    ``(sum sign exp(a - log|s|) (b da + db), 0)``; the sign is piecewise constant."""
    if is_complex(a) or is_complex(b):
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True) of complex "
                                  "values")
    scale = np.exp(a - sum_grad(ans[0], a, axis, keepdims)) * sum_grad(ans[1], a, axis, keepdims)
    t = np.sum(scale * (b_or_one(b) * a_dot + b_dot), axis=axis, keepdims=keepdims)
    return t, np.zeros(np.shape(ans[1]))


def softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.softmax(x, axis)``: s * (g - sum(g * s))."""
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


def log_softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.log_softmax(x, axis)``: g - softmax * sum(g)."""
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)
