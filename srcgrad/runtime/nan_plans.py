"""Helpers of ``rules/nan_reductions.py``, reached as ``_sg.<name>``.

``nan_extreme_grad`` and ``nan_extreme_tangent`` are plain Python over functions with
rules (the adjoint and tangent of ``np.nanmax``/``np.nanmin``); the others read values
that carry no gradient (the parts of ``np.frexp``/``np.modf``, the exponent an
integer), listed in ``NONDIFF``.
"""
import numpy as np

from .adjoints import add_reduce, expand_reduced, not_differentiable

__all__ = ["nan_extreme_grad", "nan_extreme_tangent", "frexp_exponent", "modf_parts",
           "no_scipy_for", "cumulative_axis", "initial_shape"]


def nan_extreme_grad(grad, ans, a, axis, keepdims):
    """Adjoint of ``np.nanmax``/``np.nanmin``: ``grad`` shared equally by the tied extreme
    elements (``extreme_grad``); a NaN element never equals the extreme, and a slice of
    NaNs only (whose value is NaN) has none: it gets 0, without dividing by 0."""
    grad = expand_reduced(grad, axis, keepdims, a)
    ans = expand_reduced(ans, axis, keepdims, a)
    mask = a == ans
    return np.where(mask, grad / np.maximum(add_reduce(mask, axis, True), 1), 0.0)


def nan_extreme_tangent(a, a_dot, ans, axis, keepdims):
    """Tangent of ``np.nanmax``/``np.nanmin``: the tangent of the tied extremes, shared as
    the adjoint shares ``g``; NaN elements (never equal to the extreme) and a slice of NaNs
    only (whose value is a constant NaN) give nothing, whatever their tangent."""
    weights = nan_extreme_grad(np.ones(np.shape(ans)), ans, a, axis, keepdims)
    return np.sum(np.where(weights == 0, 0.0, weights * a_dot), axis=axis, keepdims=keepdims)


def frexp_exponent(x):
    """The exponent ``e`` of ``np.frexp(x)`` (integers: no gradient)."""
    return np.frexp(x)[1]


def modf_parts(x):
    """``np.modf(x)``'s two parts, as constants."""
    return np.modf(x)


def no_scipy_for(what):
    """Refuse ``what``, whose derivative needs SciPy."""
    return not_differentiable(f"{what}: its derivative is computed by SciPy "
                              "(scipy.special), which is not installed; install scipy")


def cumulative_axis(ndim, axis):
    """The axis of ``np.cumulative_sum``/``np.cumulative_prod``: required but for 1-d."""
    if axis is None:
        if ndim != 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument "
                             "is required.")
        return 0
    return axis


def initial_shape(shape, axis):
    """The shape of the start value that ``include_initial`` puts before ``axis``."""
    out = list(shape)
    out[axis] = 1
    return tuple(out)
