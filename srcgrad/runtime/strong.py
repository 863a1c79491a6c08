"""Strong zeros: a zero adjoint times an infinite or undefined derivative is zero.

A value the forward pass computes as NaN or inf and then masks out
(``np.where(x > 0, np.log(x), 0.0)`` at ``x == 0``, ``np.nanmean(r ** 2)`` of
residuals with missing data, ``np.where(mask, 1 / r, 0)`` on a diagonal) gets
a zero adjoint, and the chain rule multiplies that zero by the derivative
there, which is inf or NaN: ``0 * inf`` is NaN, and the NaN spreads to every
gradient the masked entry sums into. The result does not depend on the masked
entry at all, so its contribution is 0.

The generated code runs as NumPy computes (no check in the usual case); a
gradient that comes out non-finite is computed again by the same code with each
elementwise adjoint passed through ``strong_zero`` (``passes/reverse.py``,
``strong``), which reads nothing the first code did not.
"""
import math

import numpy as np

__all__ = ["strong_zero", "all_finite"]


def strong_zero(value, g):
    """``value``, one elementwise contribution ``g * f'(x)``, with 0 where the
    adjoint ``g`` is exactly 0 and ``value`` is not finite."""
    if not isinstance(value, np.ndarray):
        if g == 0 and not np.isfinite(value):
            return type(value)(0)
        return value
    bad = ~np.isfinite(value)
    if not bad.any():
        return value
    return np.where(bad & (np.asarray(g) == 0), np.zeros((), value.dtype), value)


def all_finite(value, depth=4):
    """Is every number in ``value`` (an array, a number, or a list, tuple or dict of
    them, a few levels deep) finite? Other objects count as finite."""
    if type(value) is float:
        return math.isfinite(value)
    if isinstance(value, np.ndarray):
        # (One pass and no temporary: the sum is finite if every item is, and a sum that
        # overflows only costs a second run that changes nothing.)
        return value.dtype.kind not in "fc" or bool(np.isfinite(value.sum()))
    if isinstance(value, (float, complex, np.inexact)):
        return bool(np.isfinite(value))
    if depth and isinstance(value, (list, tuple)):
        return all(all_finite(v, depth - 1) for v in value)
    if depth and isinstance(value, dict):
        return all(all_finite(v, depth - 1) for v in value.values())
    return True
