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
- ``gradient``: differentiable in ``f`` for scalar spacings (a differentiated
  spacing is refused) and ``edge_order=1``; coordinate arrays are refused.
"""
import numpy as np

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
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {"cumprod": (np.cumprod, "plain")}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = {_rt.diff_pieces, _rt.conv_padding, _rt.correlate_windows, _rt.kron_plan,
           _rt.cross_plan, _rt.gradient_plan}
