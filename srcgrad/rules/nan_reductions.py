"""NumPy's NaN-ignoring reductions and cumulations (nanmax, nanmin, nanprod, nanvar,
nanstd, nancumsum, nancumprod), NumPy 2's cumulative_sum/cumulative_prod, the parts of
floats (ldexp, frexp, modf, divmod) and ``np.i0``; and ``np.var``/``np.std`` with
``where=``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/nan_plans.py``.

- ``nanmax``/``nanmin``: ``np.max``'s rule, whose ties share ``g``: a NaN element never
  equals the extreme, so it gets 0. A slice of NaNs only is NaN (NumPy warns "All-NaN
  slice encountered"), a constant: its elements get 0. ``initial=``/``where=`` are
  refused when compiled.
- ``nansum``-like ones (``nanprod``, ``nancumsum``, ``nancumprod``) take NaN as the
  neutral element, and give it a gradient of 0; ``nanvar``/``nanstd`` leave NaNs out of
  the count (``ddof``, ``correction``, ``where=``, ``keepdims``): a slice with no more
  elements than ``ddof`` is NaN (NumPy's warning too), of gradient 0. ``nanstd`` (and
  ``np.std`` with ``where=``), as ``np.std``, gives 0 where it is 0. ``mean=``, ``dtype=``,
  ``out=`` and complex values are refused when the code runs.
- ``nanargmax``/``nanargmin``: integers (``NONDIFF``). ``nanmedian``, ``nanquantile``,
  ``nanpercentile`` have rules in ``order_stats.py``.
- ``ldexp(x1, x2)``: ``x1 * 2**x2``, ``x2`` integers (no gradient); ``frexp``: the
  mantissa ``x / 2**e`` (slope ``2**-e``; at a power of two, where the mantissa jumps, the
  slope of the side NumPy's value is on), the exponent integers; ``modf``: the
  fractional part has slope 1 (0 at an infinity), the integral part 0; ``divmod``:
  ``(floor_divide, remainder)``, NumPy's own.
- ``np.spacing``: piecewise constant (``NONDIFF``); ``np.nextafter`` has its rule with the
  elementwise ones (``elementwise.py``).
- ``np.i0``: its slope is ``i1``, computed by SciPy (``scipy.special.i1``); without SciPy
  it is refused when the code runs.
"""
import importlib.util
import warnings

import numpy as np

from .. import runtime as _sg
from ..runtime import nan_plans as _rt
from .entry import Rule

_EXTREME = "a, axis=None, out=None, keepdims=False"
_EXTREME_GRAD = "_sg.nan_extreme_grad(g, ans, a, axis, keepdims)"
_EXTREME_ROWS = {"a": "_sg.expand_rows(g, a, axis, keepdims) * "
                      "_sg.nan_extreme_grad(np.ones(np.shape(ans)), ans, a, axis, keepdims)"}
_EXTREME_TANGENT = "_sg.nan_extreme_tangent(a, a_dot, ans, axis, keepdims)"

# np.i0's slope is SciPy's i1: its rule is there when SciPy is installed (``_sg.i1``
# imports scipy.special when it first runs: ``import srcgrad`` does not).
_SCIPY_INSTALLED = importlib.util.find_spec("scipy") is not None

TABLE = {
    np.nanmax: Rule(_EXTREME, rank="reduce", rows=_EXTREME_ROWS, a=_EXTREME_GRAD),
    np.nanmin: Rule(_EXTREME, rank="reduce", rows=_EXTREME_ROWS, a=_EXTREME_GRAD),
    # x1 * 2**x2, exactly (NumPy takes integers only for x2: no gradient there).
    np.ldexp: Rule("x1, x2", broadcast=True, rank="elementwise",
                   x1="np.ldexp(g, x2)", rows={"x1": "np.ldexp(g, x2)"}),
}
if _SCIPY_INSTALLED:
    TABLE[np.i0] = Rule("x", broadcast=True, rank="elementwise", x="g * _sg.i1(x)")
METHODS = {}
ATTRIBUTES = {}
# (np.spacing: the gap to the next float, piecewise constant as np.floor.)
NONDIFF = {np.nanargmax, np.nanargmin, np.spacing, _rt.frexp_exponent, _rt.modf_parts, _rt.no_scipy_for,
           _rt.cumulative_axis, _rt.initial_shape}
# Forward mode (``rules/tangents.py``).
EXPLICIT = {
    np.nanmax: _EXTREME_TANGENT,
    np.nanmin: _EXTREME_TANGENT,
    np.ldexp: "np.ldexp(x1_dot, x2)",
}
if _SCIPY_INSTALLED:
    EXPLICIT[np.i0] = "x_dot * _sg.i1(x)"


# ---------------------------------------------------------------------------
# Written out over functions with rules
# ---------------------------------------------------------------------------

def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """``np.nanprod``: the product with NaN taken as one."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.nanprod with dtype= or out=")
    filled = np.where(np.isnan(a), 1.0, a)
    if initial is None and where is True:
        return np.prod(filled, axis=axis, keepdims=keepdims)
    start = 1.0 if initial is None else initial
    return np.prod(filled, axis=axis, keepdims=keepdims, initial=start, where=where)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``np.nancumsum``: the running sum with NaN taken as zero."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.nancumsum with dtype= or out=")
    return np.cumsum(np.where(np.isnan(a), 0.0, a), axis=axis)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``np.nancumprod``: the running product with NaN taken as one."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.nancumprod with dtype= or out=")
    return np.cumprod(np.where(np.isnan(a), 1.0, a), axis=axis)


def _var_of_kept(a, kept, axis, ddof, keepdims, name):
    """The variance of the elements of ``a`` that ``kept`` marks, NaN where a slice has no
    more of them than ``ddof`` (as ``np.nanvar``)."""
    if np.iscomplexobj(a):
        _sg.not_differentiable(f"{name} of complex values")
    count = np.sum(kept, axis=axis, keepdims=True)
    centre = np.sum(np.where(kept, a, 0.0), axis=axis, keepdims=True) / np.maximum(count, 1)
    d = np.where(kept, a - centre, 0.0)
    total = np.sum(d * d, axis=axis, keepdims=keepdims)
    dof = np.sum(kept, axis=axis, keepdims=keepdims) - ddof
    bad = dof <= 0
    if np.any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
    return np.where(bad, np.nan, total / np.where(bad, 1.0, dof))


def _sqrt_zero(var):
    """``sqrt(var)``, whose slope is taken as 0 where ``var`` is 0 (as ``np.std``'s rule)."""
    zero = var == 0
    return np.where(zero, 0.0, np.sqrt(np.where(zero, 1.0, var)))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
           mean=None, correction=None):
    """``np.nanvar``: the variance of the elements that are not NaN (and that ``where``
    keeps), over their count less ``ddof`` (or ``correction``)."""
    if dtype is not None or out is not None or mean is not None:
        _sg.not_differentiable("np.nanvar or np.nanstd with dtype=, out= or mean= (compute "
                               "the mean inside the function instead)")
    if correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    kept = np.logical_and(np.logical_not(np.isnan(a)), where)
    return _var_of_kept(a, kept, axis, ddof, keepdims, "np.nanvar or np.nanstd")


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
           mean=None, correction=None):
    """``np.nanstd``: the root of ``np.nanvar``."""
    return _sqrt_zero(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                             correction=correction))


def var_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    """``np.var`` with ``where=``: the variance of the elements the mask keeps (NumPy's
    value where a slice keeps no more than ``ddof`` of them: ``total / 0``)."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.var or np.std with dtype= or out=")
    if np.iscomplexobj(a):
        _sg.not_differentiable("np.var or np.std of complex values with where=")
    kept = np.broadcast_to(where, np.shape(a))
    count = np.sum(kept, axis=axis, keepdims=True)
    centre = np.sum(np.where(kept, a, 0.0), axis=axis, keepdims=True) / count
    d = np.where(kept, a - centre, 0.0)
    total = np.sum(d * d, axis=axis, keepdims=keepdims)
    dof = np.maximum(np.sum(kept, axis=axis, keepdims=keepdims) - ddof, 0)
    return total / dof


def std_where(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    """``np.std`` with ``where=``: the root of ``var_where``."""
    return _sqrt_zero(var_where(a, axis, dtype, out, ddof, keepdims, where=where))


def cumulative_sum(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_sum`` (NumPy 2.1): ``np.cumsum`` along ``axis`` (optional for 1-d
    ``x`` only), after a zero with ``include_initial``."""
    return _cumulative(x, axis, dtype, out, include_initial, False)


def cumulative_prod(x, *, axis=None, dtype=None, out=None, include_initial=False):
    """``np.cumulative_prod`` (NumPy 2.1): ``np.cumprod`` along ``axis``, after a one with
    ``include_initial``."""
    return _cumulative(x, axis, dtype, out, include_initial, True)


def _cumulative(x, axis, dtype, out, include_initial, product):
    if dtype is not None or out is not None:
        _sg.not_differentiable(f"np.cumulative_{'prod' if product else 'sum'} with dtype= or "
                               "out=")
    if np.ndim(x) == 0:  # (taken as one item, as NumPy does)
        x = np.reshape(x, (1,))
    axis = _rt.cumulative_axis(np.ndim(x), axis)
    total = np.cumprod(x, axis=axis) if product else np.cumsum(x, axis=axis)
    if include_initial:
        shape = _rt.initial_shape(np.shape(x), axis)
        start = np.ones(shape) if product else np.zeros(shape)
        return np.concatenate([start, total], axis=axis)
    return total


def frexp(x, out=None, where=True, dtype=None):
    """``np.frexp``: the mantissa ``x / 2**e`` (exactly: ``ldexp(x, -e)``) and the exponent
    ``e`` (integers)."""
    if out is not None or where is not True or dtype is not None:
        _sg.not_differentiable("np.frexp with out=, where= or dtype=")
    e = _sg.frexp_exponent(x)
    return np.ldexp(x, -e), e


def modf(x, out=None, where=True, dtype=None):
    """``np.modf``: the fractional part ``x - trunc(x)`` (slope 1; NumPy's own value at an
    infinity, where the slope is 0, and its signed zero at an integer) and the integral
    part (a constant)."""
    if out is not None or where is not True or dtype is not None:
        _sg.not_differentiable("np.modf with out=, where= or dtype=")
    fraction, whole = _sg.modf_parts(x)
    infinite = np.isinf(x)
    finite_whole = np.where(infinite, 0.0, whole)  # (inf - inf would warn)
    d = x - finite_whole
    # (At an integer d is +0.0: NumPy's fraction, -0.0 for a negative x, less a zero of
    # slope -1.)
    return np.where(infinite, fraction, np.where(d == 0, fraction - (finite_whole - x), d)), \
        whole


def divmod_(x1, x2, out=None, where=True, dtype=None):
    """``np.divmod``: ``(np.floor_divide(x1, x2), np.remainder(x1, x2))``, NumPy's own."""
    if out is not None or where is not True or dtype is not None:
        _sg.not_differentiable("np.divmod with out=, where= or dtype=")
    return np.floor_divide(x1, x2), np.remainder(x1, x2)


def i0_without_scipy(x):
    """``np.i0`` without SciPy: refused (its slope, i1, is SciPy's)."""
    return _sg.no_scipy_for("np.i0")


def softplus(x, out=None, where=True, dtype=None):
    """``scipy.special.softplus``: ``np.logaddexp(0, x)``, as SciPy computes it."""
    if out is not None or where is not True or dtype is not None:
        _sg.not_differentiable("scipy.special.softplus with out=, where= or dtype=")
    return np.logaddexp(0.0, x)


# Functions written out in Python over functions with rules (``rewrites.rewrite``).
REWRITES = {np.nanprod: nanprod, np.nancumsum: nancumsum, np.nancumprod: nancumprod,
            np.nanvar: nanvar, np.nanstd: nanstd, np.frexp: frexp, np.modf: modf,
            np.divmod: divmod_}
for _fn, _written in ((getattr(np, "cumulative_sum", None), cumulative_sum),
                      (getattr(np, "cumulative_prod", None), cumulative_prod)):
    if _fn is not None:
        REWRITES[_fn] = _written
if not _SCIPY_INSTALLED:
    REWRITES[np.i0] = i0_without_scipy
# Called with ``where=``/``initial=`` (``rewrites.WITH_WHERE``) or ``mean=``/``correction=``
# (``rewrites.WITH_MEAN``): these take them.
WITH_WHERE = {np.nanprod: nanprod, np.nanvar: nanvar, np.nanstd: nanstd, np.var: var_where,
              np.std: std_where, np.frexp: frexp, np.modf: modf, np.divmod: divmod_}
WITH_MEAN = {np.nanvar: nanvar, np.nanstd: nanstd}


def _with_special(special):
    """``scipy.special.softplus`` (SciPy 1.15 on), written out: added when a program has
    imported scipy.special (``rules/optional.py``)."""
    if getattr(special, "softplus", None) is not None:
        REWRITES[special.softplus] = softplus
        WITH_WHERE[special.softplus] = softplus


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.special": _with_special}
