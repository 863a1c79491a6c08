"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``var``/``std``, ``cumsum``, ``trace``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Ties of ``max``/``min`` share the gradient equally; ``prod`` is exact with
zeros (``runtime/adjoints.prod_grad``); ``std`` gives 0 where it is 0 (one
element, or all equal), a subgradient of its kink there.
"""
import numpy as np

from ..runtime import adjoints as _h
from .entry import Rule

_REDUCE = "a, axis=None, dtype=None, out=None, keepdims=False"
_EXTREME = "a, axis=None, out=None, keepdims=False"
_VAR = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"

# For seed rows (``tape.jacobian``): reductions whose adjoint is
# ``expand(g) * weights(a)``, the weights being the adjoint of a seed of ones.
_SCALED = "_sg.expand_rows({g}, a, axis, keepdims) * {helper}"
_EXTREME_ROWS = {"a": _SCALED.format(
    g="g", helper="_sg.extreme_grad(np.ones(np.shape(ans)), ans, a, axis, keepdims)")}
_VAR_WEIGHTS = "_sg.var_grad(np.ones(np.shape(ans)), a, axis, ddof, keepdims)"


def _extreme():
    return Rule(_EXTREME, rank="reduce", rows=_EXTREME_ROWS,
                a="_sg.extreme_grad(g, ans, a, axis, keepdims)")


TABLE = {
    np.sum: Rule(_REDUCE, rank="reduce", a="_sg.sum_grad(g, a, axis, keepdims)"),
    np.mean: Rule(_REDUCE, rank="reduce", a="_sg.mean_grad(g, a, axis, keepdims)",
                  rows={"a": "_sg.sum_grad_rows(g, a, axis, keepdims) / "
                             "_sg.reduced_size(np.shape(a), axis)"}),
    np.prod: Rule(_REDUCE, rank="reduce", a="_sg.prod_grad(g, a, axis, keepdims)",
                  rows={"a": _SCALED.format(
                      g="g", helper="_sg.prod_grad(np.ones(np.shape(ans)), a, axis, keepdims)")}),
    np.max: _extreme(),
    np.amax: _extreme(),
    np.min: _extreme(),
    np.amin: _extreme(),
    np.var: Rule(_VAR, a="_sg.var_grad(g, a, axis, ddof, keepdims)",
                 rows={"a": _SCALED.format(g="g", helper=_VAR_WEIGHTS)}),
    np.std: Rule(_VAR, a="_sg.var_grad(g / (2.0 * _sg.nonzero(ans)), a, axis, ddof, keepdims)",
                 rows={"a": _SCALED.format(g="g / (2.0 * _sg.nonzero(ans))", helper=_VAR_WEIGHTS)}),
    np.cumsum: Rule("a, axis=None, dtype=None, out=None", a="_sg.cumsum_grad(g, a, axis)"),
    np.trace: Rule("a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
                   a="_sg.trace_grad(g, a, offset, axis1, axis2)"),
    _h.add_reduce: Rule("a, axis, keepdims", a="_sg.sum_grad(g, a, axis, keepdims)"),
}
