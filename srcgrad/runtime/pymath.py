"""Helpers of the ``math`` module's rules (``rules/python.py``), reached as ``_sg.<name>``.

Plain Python over functions that have rules, so that adjoint code calling them
can be differentiated again (``math.gamma``'s second derivative differentiates
``math_digamma``); no SciPy needed.
"""
import math

import numpy as np

__all__ = ["math_digamma", "ieee_divide", "ieee_power"]

# psi(z) ~ log z - 1/(2z) - sum_k B_2k / (2k z^2k): from z >= 10 the first omitted
# term, 3617/8160 z^-16, is below 5e-17 (and its derivative below 1e-17).
_ASYMPTOTIC_FROM = 10.0


def math_digamma(x):
    """The digamma function ``d log|gamma(x)| / dx`` of a Python float (not a pole):
    reflected below 1/2, shifted up by its recurrence, then the asymptotic series."""
    reflected = x < 0.5
    y = 1.0 - x if reflected else x
    steps = max(0, math.ceil(_ASYMPTOTIC_FROM - y))  # (ceil: no derivative)
    total = 0.0
    for k in range(steps):
        total = total - 1.0 / (y + k)
    z = y + steps
    inv = 1.0 / (z * z)
    tail = inv * (1.0 / 12 - inv * (1.0 / 120 - inv * (1.0 / 252 - inv * (
        1.0 / 240 - inv * (1.0 / 132 - inv * (691.0 / 32760 - inv / 12.0))))))
    value = total + math.log(z) - 0.5 / z - tail
    if reflected:
        value = value - math.pi / math.tan(math.pi * x)
    return value


def ieee_divide(n, d):
    """``n / d``, infinite or NaN where ``d`` is 0 as NumPy's division is: Python's floats
    raise there, and a derivative infinite at the edge of its function's domain
    (``math.sqrt`` at 0, ``math.asin`` at 1) is ``inf``, not an error."""
    try:
        return n / d
    except ZeroDivisionError:
        return np.divide(n, d)


def ieee_power(x, e):
    """``x ** e``, infinite where ``x`` is 0 and ``e`` negative as NumPy's power is (the
    derivative of ``x ** 0.5`` at 0), where Python's floats raise."""
    try:
        return x ** e
    except ZeroDivisionError:
        return np.power(np.float64(x) if type(x) is float else x, e)
