"""Helpers of the polynomial rules (``rules/polynomials.py``), reached as ``_sg.<name>``.

Plain Python over NumPy functions that have rules, so that adjoint code calling
them can be differentiated again. ``lead`` is the number of leading axes of seed
rows on ``g`` (``tape.jacobian``), 0 otherwise.
"""
import numpy as np

from .adjoints import arrayed, not_differentiable
from .ufuncs import axes_between

__all__ = ["polyval_grad_p", "polyval_slope", "vander_slopes", "roots_jacobian", "roots_repeated"]


def polyval_grad_p(g, p, x, lead):
    """Adjoint of ``np.polyval(p, x)`` for the coefficient vector ``p`` (highest power
    first): coefficient ``i`` multiplies ``x ** (n - 1 - i)``, summed over ``x``."""
    if isinstance(p, np.poly1d) or np.ndim(p) != 1:
        return not_differentiable("np.polyval of coefficients other than a vector or a list "
                                  "of numbers (a np.poly1d: pass p.coeffs)")
    powers = np.arange(np.shape(p)[0] - 1, -1, -1)
    terms = np.reshape(x, np.shape(x) + (1,)) ** powers
    spread = np.reshape(g, np.shape(g) + (1,)) * terms
    return np.sum(spread, axis=axes_between(lead, lead + np.ndim(x)))


def polyval_slope(p, x):
    """``d polyval(p, x) / dx``: the derivative's coefficients by Horner's rule."""
    if isinstance(p, np.poly1d):  # (its items count from the constant term up)
        return not_differentiable("np.polyval of a np.poly1d (pass p.coeffs)")
    n = len(p)
    slope = 0.0 * arrayed(x)  # (a list of points, as np.polyval reads it)
    for i in range(n - 1):
        slope = slope * x + p[i] * (n - 1 - i)
    return slope


def vander_slopes(x, N, increasing):
    """``d V[k, j] / d x[k]`` for ``V = np.vander(x, N, increasing)``: column ``j`` is
    ``x ** power_j``, its slope ``power_j * x ** (power_j - 1)`` (0 for the constant)."""
    n = len(x) if N is None else N
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    column = np.reshape(x, (len(x), 1))
    return powers * column ** np.maximum(powers - 1, 0)


def roots_jacobian(p, roots):
    """``d roots / d p`` for ``roots = np.roots(p)``, one row a root: the holomorphic
    derivative (code compiled for complex values passes ``p`` and ``roots`` conjugated,
    so ``g @ J`` is then TensorFlow's adjoint).

    Each simple root ``r`` of ``P``, ``p`` without the leading zeros NumPy drops (degree
    ``n = len(roots)``), moves by ``dr = -dP(r) / P'(r)`` with ``dP(r) = sum_j dp_j r^(n-j)``.
    So a trailing zero, whose root NumPy appends as ``0.0``, has its derivative too, and
    moves the other roots. Repeated roots (and so two trailing zeros or more) have none:
    refused. The dropped leading zeros get 0, as ``np.polymul``'s: a root comes in from
    infinity there, a jump of the number of roots."""
    p = np.atleast_1d(p)
    n = len(roots)
    if n == 0:
        return np.zeros((0, len(p)))
    if roots_repeated(roots):
        return not_differentiable("np.roots at a repeated root (two trailing zero coefficients "
                                  "or more make one at 0; if they are constants, take the "
                                  "roots of the polynomial without them and append the zeros)")
    lead = np.flatnonzero(p)[0]
    slope = np.polyval(np.polyder(p[lead:]), roots)
    powers = np.reshape(roots, (n, 1)) ** np.arange(n, -1, -1)  # (0 ** 0 is 1)
    return np.concatenate((np.zeros((n, lead)), -powers / np.reshape(slope, (n, 1))), axis=1)


def roots_repeated(roots):
    """Whether ``np.roots``' roots have a repeated one, to rounding: ``m`` of them within
    ``10 eps^(1/m)`` of one (relative to the larger magnitude of each pair), as far as
    rounding the coefficients splits an ``m``-fold root. Distinct roots that close are
    refused too: their derivatives would be of the order of ``eps^(1/m - 1)``."""
    n = len(roots)
    if n < 2:
        return False
    eps = np.finfo(np.result_type(roots)).eps
    size = np.abs(roots)
    scale = np.maximum(np.reshape(size, (n, 1)), np.reshape(size, (1, n)))
    gaps = np.abs(np.reshape(roots, (n, 1)) - np.reshape(roots, (1, n)))
    for m in range(2, n + 1):
        if np.any(np.sum(gaps <= 10.0 * eps ** (1.0 / m) * scale, axis=1) >= m):
            return True
    return False
