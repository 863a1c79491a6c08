"""Order statistics: ``np.median``, ``np.quantile``, ``np.percentile`` (and their ``nan``
forms), the builtin ``sorted``, and ``a.tolist()``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Helpers
live in ``runtime/order_stats.py``; their last argument is the number of leading
axes of seed rows on ``g`` (1 in ``rows``, the forms ``tape.jacobian`` uses).

- A quantile is a fixed combination of one or two order statistics of each
  slice (for a given ``q``, slice length and ``method``, any of NumPy's): ``g``
  goes to them with NumPy's own weights, through the sort. Tied elements are
  matched in order of position, as a stable sort orders them (a one-sided
  derivative there, as ``np.sort``'s). ``q`` is not differentiable (a
  differentiated ``q`` is refused when compiled), nor are ``out=``,
  ``overwrite_input=True`` (which reorders ``a`` in place) and ``weights=``
  (refused when the gradient runs). A slice holding a NaN gets a NaN gradient,
  as its value is NaN; the ``nan`` forms give NaN elements 0.
- ``sorted``: each item's adjoint goes back to the item that was put there (a
  list for a list, an array for a 1-d array). With ``key=`` it is written out
  (``rules/iteration.py``): each key computed once, as Python does, the items
  gathered in the order of a stable sort of the keys.
- ``a.tolist()``: a nested list of Python floats; its adjoint is that list's
  adjoint as an array.
"""
import numpy as np

from ..runtime import order_stats as _rt
from .selection import lead_rule

_Q = "a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, " \
     "*, weights=None"
_MEDIAN = "a, axis=None, out=None, overwrite_input=False, keepdims=False"


def _quantile(kind, median=False):
    args = "0.5, axis, out, overwrite_input, 'linear', keepdims, None" if median else \
        "q, axis, out, overwrite_input, method, keepdims, weights"
    return lead_rule(_MEDIAN if median else _Q,
                     a=f"_sg.quantile_grad(g, a, {args}, {kind!r}, {{lead}})")


def _quantile_tangent(kind, median=False):
    args = "0.5, axis, out, overwrite_input, 'linear', keepdims, None" if median else \
        "q, axis, out, overwrite_input, method, keepdims, weights"
    return f"_sg.quantile_tangent(a, a_dot, {args}, {kind!r})"


_KINDS = {np.median: ("median", True), np.quantile: ("quantile", False),
          np.percentile: ("percentile", False), np.nanmedian: ("nanmedian", True),
          np.nanquantile: ("nanquantile", False), np.nanpercentile: ("nanpercentile", False)}

TABLE = {fn: _quantile(kind, median) for fn, (kind, median) in _KINDS.items()}
TABLE.update({
    sorted: lead_rule("iterable, *, key=None, reverse=False",
                      iterable="_sg.sorted_grad(g, iterable, key, reverse, {lead})"),
    _rt.tolist: lead_rule("a", a="_sg.tolist_grad(g, a, {lead})"),
})
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {"tolist": (_rt.tolist, "plain")}
ATTRIBUTES = {}
NONDIFF = {_rt.quantile_axes, _rt.quantile_shape, _rt.quantile_plan, _rt.sorted_order,
           _rt.sorted_ranks, _rt.list_leaves_plan}

# Forward mode (``rules/tangents.py``).
EXPLICIT = {fn: _quantile_tangent(kind, median) for fn, (kind, median) in _KINDS.items()}
EXPLICIT.update({
    sorted: "_sg.sorted_tangent(iterable, iterable_dot, key, reverse)",
    _rt.tolist: "_sg.tolist(a_dot)",
})
