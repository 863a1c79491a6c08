"""Choosing and ordering elements: take, take_along_axis, select, sort, partition, nan_to_num, real/imag/conj, interp.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/selection.py``; their last
argument is the number of leading axes of seed rows on ``g`` (1 in ``rows``,
the forms ``tape.jacobian`` uses).

The adjoint of a gather (``take``, ``take_along_axis``, ``interp``'s ``fp``)
adds each item back where it was read, repeated indices adding up, through
``np.bincount`` (``runtime/selection.scatter_add``), which therefore has a
rule here too: differentiable in ``weights``.

Conventions where the derivative does not exist:

- ``sort``/``partition``: each item's adjoint goes back to the element it came
  from. At ties (equal elements) the result is not differentiable; tied
  elements are matched in order of position, as a stable sort orders them,
  which gives the derivative along directions that keep that order (central
  differences at a tie give the average over the tied slots instead).
- ``interp``: at a knot, the slope of the segment to its right (0 at the last
  knot and outside ``[xp[0], xp[-1]]``). Differentiable in ``x``, ``fp``,
  ``left`` and ``right``; a differentiated ``xp`` is refused, and so is
  ``period``.
- ``nan_to_num``: 1 where ``x`` is finite, 0 where it was replaced;
  differentiable in ``nan``, ``posinf``, ``neginf`` too. ``copy`` is refused
  (``copy=False`` writes into ``x``).
- ``real``, ``imag``, ``conj``/``conjugate``, ``real_if_close``: these entries are
  for real inputs (identity, or zero for ``imag``), and refuse a complex one when
  the adjoint runs; code compiled for complex values uses the complex forms of
  ``rules/complexes.py`` instead.
"""
import numpy as np

from .. import runtime as _sg
from ..runtime import selection as _rt
from .entry import Rule

_FIELDS = ("rank", "view", "nograd")  # the Rule fields lead_rule passes on


def lead_rule(signature, *, same=(), **fields):
    """A Rule whose grads call helpers ending in ``{lead}``: 0 in its grads, 1 in its
    row forms. ``same``: ``(param, grad)`` pairs elementwise in ``g``, their own row forms."""
    grads = {p: t for p, t in fields.items() if p not in _FIELDS}
    fields = {k: v for k, v in fields.items() if k in _FIELDS}
    rows = {p: t.format(lead=1) for p, t in grads.items()}
    grads = {p: t.format(lead=0) for p, t in grads.items()}
    for p, t in same:
        grads[p] = rows[p] = t
    return Rule(signature, rows=rows, **fields, **grads)


def _real_input(signature, what):
    """For real inputs, which NumPy returns unchanged (see ``TABLE``)."""
    param = signature.split(",")[0]
    return lead_rule(signature, rank="elementwise", view=True,
                     same=[(param, f"_sg.real_input_grad(g, {param}, {what!r})")])


_PERMUTED = "_sg.permute_grad(g, a, ans, axis, {lead})"

TABLE = {
    np.take: lead_rule("a, indices, axis=None, out=None, mode='raise'",
                       a="_sg.take_grad(g, a, indices, axis, mode, {lead})"),
    np.take_along_axis: lead_rule("arr, indices, axis=-1",
                                  arr="_sg.take_along_axis_grad(g, arr, indices, axis, {lead})"),
    # Which choice is taken is piecewise constant in the conditions.
    np.select: lead_rule("condlist, choicelist, default=0", nograd={"condlist"},
                         choicelist="_sg.select_grad(g, condlist, choicelist, {lead})",
                         default="_sg.select_default_grad(g, condlist, default, {lead})"),
    np.sort: lead_rule("a, axis=-1, kind=None, order=None, *, stable=None", a=_PERMUTED),
    np.partition: lead_rule("a, kth, axis=-1, kind='introselect', order=None", a=_PERMUTED),
    # nan, posinf, neginf: the values written where x is NaN, +inf, -inf (their
    # sums need no row form: rules/rows.py swaps sum_to for its twin). No `copy`:
    # copy=False writes into x, so a call passing it is refused when compiled.
    np.nan_to_num: Rule("x, *, nan=0.0, posinf=None, neginf=None", rank="elementwise",
                        x="_sg.nan_to_num_grad(g, x)", rows={"x": "_sg.nan_to_num_grad(g, x)"},
                        nan="_sg.sum_to(np.where(np.isnan(x), g, 0.0), nan)",
                        posinf="_sg.sum_to(np.where(x == np.inf, g, 0.0), posinf)",
                        neginf="_sg.sum_to(np.where(x == -np.inf, g, 0.0), neginf)"),
    # For a real input NumPy returns the input itself from np.real, np.real_if_close
    # and the methods a.conj() and a.conjugate() (np.conjugate itself copies).
    np.real: _real_input("val", "np.real"),
    np.real_if_close: _real_input("a, tol=100", "np.real_if_close"),
    np.conjugate: _real_input("x", "np.conjugate"),
    # (Of a complex array, a view of its memory, as np.real's.)
    np.imag: lead_rule("val", rank="elementwise", view=True,
                       same=[("val", "_sg.imag_input_grad(g, val)")]),
    # The scatter-add of the helpers above (runtime/selection.scatter_add).
    np.bincount: lead_rule("x, weights=None, minlength=0", weights="np.take(g, x, axis={lead})"),
    np.interp: lead_rule("x, xp, fp, left=None, right=None, period=None",
                         same=[("x", "_sg.interp_grad_x(g, x, xp, fp, period)")],
                         fp="_sg.interp_grad_fp(g, x, xp, fp, left, right, period, {lead})",
                         left="_sg.interp_grad_outside(g, x, xp, fp, left, -1, period, {lead})",
                         right="_sg.interp_grad_outside(g, x, xp, fp, right, 1, period, {lead})"),
}


def interp(x, xp, fp, left=None, right=None, period=None):
    """``np.interp`` called with ``period``: NumPy's own steps (``left`` and ``right`` are
    then ignored, as NumPy ignores them)."""
    if period is None:
        return np.interp(x, xp, fp, left, right)
    _sg.interp_period_plan(np.shape(xp), np.shape(fp), period)
    period = np.abs(period)
    # (in float64, as NumPy computes: a float64 scalar is not weak, NEP 50)
    x = np.mod(np.multiply(x, np.float64(1.0)), period)
    xp = np.mod(np.multiply(xp, np.float64(1.0)), period)
    order = np.argsort(xp)
    xp = np.take(xp, order)
    fp = np.take(fp, order)
    xp = np.concatenate([xp[-1:] - period, xp, xp[0:1] + period])
    fp = np.concatenate([fp[-1:], fp, fp[0:1]])
    return np.interp(x, xp, fp)


# Functions written out above, called instead of the rule when given one of these
# keywords or more positional arguments than the count (as ``rewrites.rewrite`` reads it).
WITH_OPTIONS = {np.interp: (interp, ("period",), 5)}
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
# (``a.sort()`` and ``a.partition()`` sort in place: they stay refused.)
METHODS = {"take": (np.take, "plain"), "conj": (np.conjugate, "plain"),
           "conjugate": (np.conjugate, "plain")}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {"real": np.real, "imag": np.imag}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = {np.argpartition, _rt.diagonal_index, _rt.along_axis_index, _rt.flat_index,
           _rt.complex_input, _rt.take_positions, _rt.along_axis_positions,
           _rt.row_positions, _rt.select_masks, _rt.permutation_back, _rt.interp_checked,
           _rt.interp_segment, _rt.interp_period_plan}
