"""Running products, differences and products of sequences: cumprod, diff, convolve, correlate, kron, cross, sinc, gradient.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/sequences.py``; their last
argument is the number of leading axes of seed rows on ``g`` (1 in ``rows``,
the forms ``tape.jacobian`` uses; ``selection.lead_rule`` writes both).

- ``cumprod`` is exact where ``a`` has zeros, without dividing by them, to any
  order (``runtime/sequences.cumprod_last_grad``).
- ``diff``: also for ``prepend``/``append``; marked as a view, since with
  ``n=0`` NumPy returns ``a`` itself (a write into the result is then refused).
- ``convolve``/``correlate``: real 1-d operands, modes ``full``, ``same``,
  ``valid``.
- ``cross``: 3-vectors and (deprecated in NumPy 2) 2-vectors, any axes.
- ``sinc``: its derivative is 0 at 0 (and its second derivative right there).
- ``gradient``: its rule is for ``np.gradient(f)`` and ``np.gradient(f, axis=k)``
  (unit spacing, ``edge_order=1``). Called with spacings or ``edge_order`` it is
  written out (``gradient`` below, ``WITH_OPTIONS``): NumPy's formulas over
  slices, for scalar spacings and coordinate arrays, ``edge_order`` 1 or 2,
  differentiable in ``f``, in the spacings and in the coordinates. For evenly
  spaced coordinates NumPy switches to its formula for a scalar spacing; this
  keeps the one for coordinates (equal to it up to rounding), whose derivative
  in the coordinates is the one along every direction.
"""
import numpy as np

from .. import runtime as _sg
from ..runtime import sequences as _rt
from .entry import Rule
from .selection import lead_rule

_CONV = "_sg.conv_grad(g, a, v, mode, {flip}, {which}, {{lead}})"
_DIFF = "_sg.diff_grad(g, a, n, axis, prepend, append, {which}, {{lead}})"
_CROSS = "_sg.cross_grad(g, a, b, axisa, axisb, axisc, axis, {which}, {{lead}})"

TABLE = {
    np.cumprod: lead_rule("a, axis=None, dtype=None, out=None",
                          a="_sg.cumprod_grad(g, ans, a, axis, {lead})"),
    # None for NumPy's "no value" of prepend and append. With n=0 NumPy returns
    # ``a`` itself (and ignores prepend and append): a view, for the alias analysis.
    # A view: with n=0 NumPy returns the input itself (writes into the result are
    # refused; ``d = d / h`` rather than ``d /= h``).
    np.diff: lead_rule("a, n=1, axis=-1, prepend=None, append=None", view=True,
                       prepend=_DIFF.format(which=0), a=_DIFF.format(which=1),
                       append=_DIFF.format(which=2)),
    np.convolve: lead_rule("a, v, mode='full'", a=_CONV.format(flip=False, which=0),
                           v=_CONV.format(flip=False, which=1)),
    np.correlate: lead_rule("a, v, mode='valid'", a=_CONV.format(flip=True, which=0),
                            v=_CONV.format(flip=True, which=1)),
    np.kron: lead_rule("a, b", a="_sg.kron_grad(g, a, b, 0, {lead})",
                       b="_sg.kron_grad(g, a, b, 1, {lead})"),
    np.cross: lead_rule("a, b, axisa=-1, axisb=-1, axisc=-1, axis=None",
                        a=_CROSS.format(which=0), b=_CROSS.format(which=1)),
    np.sinc: Rule("x", rank="elementwise", x="g * _sg.sinc_slope(x)"),
    np.gradient: lead_rule("f, *varargs, axis=None, edge_order=1",
                           f="_sg.gradient_grad(g, f, varargs, axis, edge_order, {lead})"),
}


def gradient(f, *varargs, axis=None, edge_order=1):
    """``np.gradient`` with spacings or ``edge_order``: per axis, central differences
    inside and one-sided ones of first or second order at the ends, for a scalar
    spacing or an array of coordinates (NumPy's formulas, term by term)."""
    axes = _sg.gradient_written_plan(np.shape(f), [np.shape(h) for h in varargs], axis,
                                     edge_order)
    if _sg.integer_dtype(f):
        f = np.multiply(f, np.float64(1.0))  # (as NumPy: no wraparound of differences)
    if len(axes) == 1:  # (an array: bound to no list, so that its uses read as arrays)
        if len(varargs) == 0:
            h = 1.0
        else:
            h = varargs[0]
        return _gradient_along(f, axes[0], h, edge_order)
    if len(varargs) == 0:
        spacings = [1.0 for ax in axes]
    elif len(varargs) == 1:
        spacings = [varargs[0] for ax in axes]
    else:
        spacings = list(varargs)
    return tuple([_gradient_along(f, ax, h, edge_order) for ax, h in zip(axes, spacings)])


def _gradient_along(f, axis, h, edge_order):
    """``np.gradient`` of ``f`` along one axis, of spacing ``h`` (a scalar or coordinates)."""
    m = np.moveaxis(f, axis, -1)
    n = np.shape(m)[-1]
    if np.ndim(h) == 0:
        inner = (m[..., 2:] - m[..., :n - 2]) / (2.0 * h)
        if edge_order == 1:
            first = (m[..., 1:2] - m[..., :1]) / h
            last = (m[..., n - 1:] - m[..., n - 2:n - 1]) / h
        else:
            first = (-1.5 / h) * m[..., :1] + (2.0 / h) * m[..., 1:2] + (-0.5 / h) * m[..., 2:3]
            last = (0.5 / h) * m[..., n - 3:n - 2] + (-2.0 / h) * m[..., n - 2:n - 1] \
                + (1.5 / h) * m[..., n - 1:]
    else:
        if _sg.integer_dtype(h):
            h = np.multiply(h, np.float64(1.0))  # (as NumPy: no wraparound of differences)
        dx = np.diff(h)
        dx1 = dx[:n - 2]
        dx2 = dx[1:]
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        inner = a * m[..., :n - 2] + b * m[..., 1:n - 1] + c * m[..., 2:]
        if edge_order == 1:
            first = (m[..., 1:2] - m[..., :1]) / dx[0]
            last = (m[..., n - 1:] - m[..., n - 2:n - 1]) / dx[n - 2]
        else:
            d1 = dx[0]
            d2 = dx[1]
            first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2))) * m[..., :1] \
                + ((d1 + d2) / (d1 * d2)) * m[..., 1:2] + (-d1 / (d2 * (d1 + d2))) * m[..., 2:3]
            d1 = dx[n - 3]
            d2 = dx[n - 2]
            last = (d2 / (d1 * (d1 + d2))) * m[..., n - 3:n - 2] \
                + (-(d2 + d1) / (d1 * d2)) * m[..., n - 2:n - 1] \
                + ((2.0 * d2 + d1) / (d2 * (d1 + d2))) * m[..., n - 1:]
    out = np.moveaxis(np.concatenate([first, inner, last], -1), -1, axis)
    dtype = _sg.gradient_dtype(f)
    if out.dtype != dtype:  # (NumPy's result has ``f``'s dtype: float32 from float32)
        out = out.astype(dtype)
    return out


# Functions written out above, called instead of the rule when given one of these
# keywords or more positional arguments than the count (as ``rewrites.rewrite`` reads it).
WITH_OPTIONS = {np.gradient: (gradient, ("edge_order",), 1)}
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {"cumprod": (np.cumprod, "plain")}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = {_rt.diff_pieces, _rt.conv_padding, _rt.correlate_windows, _rt.kron_plan,
           _rt.cross_plan, _rt.gradient_plan, _rt.gradient_written_plan,
           _rt.integer_dtype, _rt.gradient_dtype}
