"""Helpers of the polynomial rules (``rules/polynomials.py``), reached as ``_sg.<name>``.

Plain Python over NumPy functions that have rules, so that adjoint code calling
them can be differentiated again. ``lead`` is the number of leading axes of seed
rows on ``g`` (``tape.jacobian``), 0 otherwise.
"""
import numpy as np

from .adjoints import arrayed, not_differentiable
from .ufuncs import axes_between

__all__ = ["polyval_grad_p", "polyval_slope", "vander_slopes"]


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
