"""Methods of NumPy's ufuncs: ``np.add.reduce``, ``np.maximum.accumulate``,
``np.subtract.outer`` and their kin.

A ufunc's bound method compares and hashes equal at every attribute access
(``np.add.reduce == np.add.reduce``), so it keys the table as a function does.

- ``reduce`` (``axis`` 0 by default, unlike ``np.sum``): ``add`` is ``sum``,
  ``multiply`` ``prod`` (exact with zeros), ``maximum``/``minimum`` share the
  gradient among ties as ``max``/``min`` do, ``logaddexp``/``logaddexp2`` give
  each element ``exp(a - ans)`` (``2 ** (a - ans)``).
- ``accumulate``: ``add`` is ``cumsum``, ``multiply`` ``cumprod``; each result of
  ``maximum``/``minimum`` is one element of the operand, the first one at which the
  running extreme took its value (``runtime/ufuncs.accumulate_source``), and gets
  its gradient.
- ``outer`` of ``add``, ``subtract``, ``multiply``, ``divide``: the result has the
  first operand's axes then the second's; each operand's adjoint sums over the
  other's.

``initial=``, ``where=`` and ``out=`` are not differentiated (a call passing one is
refused), nor are other ufuncs' methods (a ``CompileError`` naming the method).
"""
import numpy as np

from ..runtime import ufuncs as _rt
from .entry import Rule
from .selection import lead_rule

_REDUCE = "array, axis=0, dtype=None, out=None, keepdims=False"
_ACCUMULATE = "array, axis=0, dtype=None, out=None"
_OUTER = "A, B"

# For seed rows (``tape.jacobian``): ``expand(g) * weights``, the weights being the
# adjoint of a seed of ones (as for ``np.prod`` and ``np.max``).
_SCALED = "_sg.expand_rows(g, array, axis, keepdims) * {weights}"
_PROD_WEIGHTS = "_sg.prod_grad(np.ones(np.shape(ans)), array, axis, keepdims)"
_EXTREME_WEIGHTS = "_sg.extreme_grad(np.ones(np.shape(ans)), ans, array, axis, keepdims)"
_LOG_WEIGHTS = "{exp}(array - _sg.expand_reduced(ans, axis, keepdims))"


def _weighted(weights):
    return Rule(_REDUCE, rank="reduce", array="_sg.sum_grad(g, array, axis, keepdims) * "
                + weights, rows={"array": _SCALED.format(weights=weights)})


def _outer(op):
    return lead_rule(_OUTER, A=f"_sg.outer_grad(g, A, B, {op!r}, 0, {{lead}})",
                     B=f"_sg.outer_grad(g, A, B, {op!r}, 1, {{lead}})")


_EXTREME_ACCUMULATE = lead_rule(
    _ACCUMULATE, array="_sg.take_along_axis_grad(g, array, _sg.accumulate_source(array, ans, "
                       "axis), axis, {lead})")

TABLE = {
    np.add.reduce: Rule(_REDUCE, rank="reduce", array="_sg.sum_grad(g, array, axis, keepdims)"),
    np.multiply.reduce: Rule(_REDUCE, rank="reduce",
                             array="_sg.prod_grad(g, array, axis, keepdims)",
                             rows={"array": _SCALED.format(weights=_PROD_WEIGHTS)}),
    np.maximum.reduce: Rule(_REDUCE, rank="reduce",
                            array="_sg.extreme_grad(g, ans, array, axis, keepdims)",
                            rows={"array": _SCALED.format(weights=_EXTREME_WEIGHTS)}),
    np.minimum.reduce: Rule(_REDUCE, rank="reduce",
                            array="_sg.extreme_grad(g, ans, array, axis, keepdims)",
                            rows={"array": _SCALED.format(weights=_EXTREME_WEIGHTS)}),
    np.logaddexp.reduce: _weighted(_LOG_WEIGHTS.format(exp="np.exp")),
    np.logaddexp2.reduce: _weighted(_LOG_WEIGHTS.format(exp="np.exp2")),
    np.add.accumulate: Rule(_ACCUMULATE, array="_sg.cumsum_grad(g, array, axis)"),
    np.multiply.accumulate: lead_rule(_ACCUMULATE,
                                      array="_sg.cumprod_grad(g, ans, array, axis, {lead})"),
    np.maximum.accumulate: _EXTREME_ACCUMULATE,
    np.minimum.accumulate: _EXTREME_ACCUMULATE,
    np.add.outer: _outer("add"),
    np.subtract.outer: _outer("subtract"),
    np.multiply.outer: _outer("multiply"),
    np.divide.outer: _outer("divide"),
}
NONDIFF = {_rt.accumulate_source, _rt.axes_between}
METHODS = {}  # (reached as attributes of the ufuncs, not of arrays)
ATTRIBUTES = {}

# Forward mode (``rules/tangents.py``).
_REDUCED_TANGENT = "np.sum({weights} * array_dot, axis=axis, keepdims=keepdims)"
LINEAR = frozenset({np.add.reduce, np.add.accumulate, np.add.outer, np.subtract.outer})
BILINEAR = frozenset({np.multiply.outer})
EXPLICIT = {
    np.multiply.reduce: _REDUCED_TANGENT.format(weights=_PROD_WEIGHTS),
    np.maximum.reduce: _REDUCED_TANGENT.format(weights=_EXTREME_WEIGHTS),
    np.minimum.reduce: _REDUCED_TANGENT.format(weights=_EXTREME_WEIGHTS),
    np.logaddexp.reduce: _REDUCED_TANGENT.format(weights=_LOG_WEIGHTS.format(exp="np.exp")),
    np.logaddexp2.reduce: _REDUCED_TANGENT.format(weights=_LOG_WEIGHTS.format(exp="np.exp2")),
    np.multiply.accumulate: "_sg.cumprod_tangent(array, array_dot, ans, axis)",
    np.maximum.accumulate: "np.take_along_axis(array_dot, _sg.accumulate_source(array, ans, "
                           "axis), axis)",
    np.minimum.accumulate: "np.take_along_axis(array_dot, _sg.accumulate_source(array, ans, "
                           "axis), axis)",
    np.divide.outer: "np.divide.outer(A_dot, B) - ans * (B_dot / B)",
}
