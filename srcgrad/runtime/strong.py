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

Differentiated again (``sg.hvp``, ``sg.hessian``, ``sg.grad(sg.grad(f))``), the
gradient's code with strong zeros is differentiated as any code: a zeroed
contribution is a constant 0 (``strong_grad``, ``strong_zero_tangent``; their rules
in ``rules/helpers.py`` and ``rules/tangents.py``).
"""
import math

import numpy as np

__all__ = ["strong_zero", "strong_grad", "strong_zero_tangent", "all_finite"]


def strong_zero(value, seed):
    """``value``, one elementwise contribution ``seed * f'(x)``, with 0 where the
    adjoint ``seed`` is exactly 0 and ``value`` is not finite."""
    if not isinstance(value, np.ndarray):
        if seed == 0 and not np.isfinite(value):
            return type(value)(0)
        return value
    bad = ~np.isfinite(value)
    if not bad.any():
        return value
    return np.where(bad & (np.asarray(seed) == 0), np.zeros((), value.dtype), value)


def strong_grad(grad, value, seed):
    """The adjoint of ``strong_zero(value, seed)`` for ``value``: ``grad``, but 0 where
    the contribution was zeroed (a constant there)."""
    zeroed = (np.asarray(seed) == 0) & ~np.isfinite(value)
    if not np.any(zeroed):
        return grad
    return np.where(zeroed, np.zeros((), np.result_type(grad)), grad)


def strong_zero_tangent(value_dot, value, seed, seed_dot):
    """The tangent of ``strong_zero(value, seed)``: 0 where the contribution
    ``seed * f'(x)`` has a seed that is 0 and stays 0 along the direction (``seed_dot``
    0: a masked entry) and the contribution or its tangent ``seed_dot * f'(x) +
    seed * f''(x) x_dot`` is not finite; elsewhere ``value_dot`` (a seed that moves
    off 0 times an infinite derivative stays non-finite, as it is)."""
    if not isinstance(value_dot, np.ndarray) and not isinstance(value, np.ndarray):
        if seed == 0 and seed_dot == 0 and not (np.isfinite(value) and np.isfinite(value_dot)):
            return type(value_dot)(0)
        return value_dot
    bad = ~(np.isfinite(value) & np.isfinite(value_dot))
    if not bad.any():
        return value_dot
    zeroed = bad & (np.asarray(seed) == 0) & (np.asarray(seed_dot) == 0)
    return np.where(zeroed, np.zeros((), np.result_type(value_dot)), value_dot)


def all_finite(value, depth=4):
    """Is every number in ``value`` (an array, a number, or a list, tuple or dict of
    them, a few levels deep) finite? Other objects count as finite."""
    if type(value) is float or type(value) is np.float64:  # (a float: math's test)
        return math.isfinite(value)
    if isinstance(value, np.ndarray):
        # (One pass and no temporary: the sum is finite if every item is, and a sum that
        # overflows only costs a second run that changes nothing. A real sum is checked
        # as a Python float: no ufunc call on the usual path.)
        kind = value.dtype.kind
        if kind == "f":
            return math.isfinite(value.sum())
        return kind != "c" or bool(np.isfinite(value.sum()))
    if isinstance(value, (float, complex, np.inexact)):
        return bool(np.isfinite(value))
    if depth and isinstance(value, (list, tuple)):
        for v in value:  # (a tuple of real arrays, the usual gradients: checked here)
            if type(v) is np.ndarray and v.dtype.kind == "f":
                if not math.isfinite(v.sum()):
                    return False
            elif not all_finite(v, depth - 1):
                return False
        return True
    if depth and isinstance(value, dict):
        return all(all_finite(v, depth - 1) for v in value.values())
    return True
