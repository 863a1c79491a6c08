"""Helpers of the order-statistic rules (``rules/order_stats.py``), reached as ``_sg.<name>``.

Plain Python over NumPy functions that have rules, so that adjoint code calling
them can be differentiated again; the planning helpers at the end (``NONDIFF``)
find orders and weights from values that carry no gradient. ``lead`` is the
number of leading axes of seed rows on ``g`` (``tape.jacobian``), 0 otherwise.

A quantile of any ``method`` is, for a fixed ``q`` and slice length, a fixed
combination of at most two order statistics: ``quantile_plan`` reads those
weights off NumPy itself (below), so every method is modelled exactly as NumPy
computes it, and the gradient of ``a`` is ``g`` times the weights, sent back
through the sort.
"""
import math
import types

import numpy as np

from .adjoints import not_differentiable
from .selection import complex_input

__all__ = [
    # differentiable
    "quantile_grad", "quantile_tangent", "sorted_grad", "sorted_tangent", "tolist",
    "tolist_grad",
    "list_item",
    # planning (non-differentiable)
    "quantile_axes", "quantile_shape", "quantile_plan", "sorted_order", "sorted_ranks",
    "list_leaves_plan",
]


def quantile_grad(g, a, q, axis, out, overwrite_input, method, keepdims, weights, kind, lead):
    """Adjoint of ``np.<kind>(a, q, axis, ..., method, keepdims)`` for ``a`` (``kind``:
    ``median``, ``quantile``, ``percentile`` or their ``nan`` forms)."""
    perm, rest, n, moved, back = quantile_axes(np.shape(a), axis, lead)
    flat = np.reshape(np.transpose(a, perm), rest + (n,))
    w, ranks, order = quantile_plan(np.argsort(flat, axis=-1, kind="stable"), np.isnan(flat),
                                    complex_input(a), q, out, overwrite_input, method,
                                    weights, kind, lead)
    rows = np.shape(g)[:lead]
    spread = np.reshape(g, rows + (np.shape(w)[lead],) + rest + (1,)) * w
    by_rank = np.sum(spread, axis=lead)
    in_place = np.take_along_axis(by_rank, ranks, lead + len(rest))
    return np.transpose(np.reshape(in_place, rows + moved), back)


def quantile_tangent(a, a_dot, q, axis, out, overwrite_input, method, keepdims, weights, kind):
    """Forward mode's tangent of ``np.<kind>`` (see ``quantile_grad``)."""
    perm, rest, n, moved, back = quantile_axes(np.shape(a), axis, 0)
    flat = np.reshape(np.transpose(a, perm), rest + (n,))
    w, ranks, order = quantile_plan(np.argsort(flat, axis=-1, kind="stable"), np.isnan(flat),
                                    complex_input(a), q, out, overwrite_input, method,
                                    weights, kind, 0)
    flat_dot = np.reshape(np.transpose(a_dot, perm), rest + (n,))
    in_order = np.take_along_axis(flat_dot, order, len(rest))
    t = np.sum(w * np.expand_dims(in_order, 0), axis=-1)
    return np.reshape(t, quantile_shape(np.shape(a), q, axis, keepdims))


def sorted_grad(g, iterable, key, reverse, lead):
    """Adjoint of the builtin ``sorted(iterable, key=key, reverse=reverse)``: item ``k`` of
    ``g`` goes back to the item that was put at place ``k`` (a list for a list or
    tuple, an array for a 1-d array)."""
    ranks = sorted_ranks(iterable, key, reverse)
    back = [g[ranks[i]] for i in range(len(ranks))]
    if isinstance(iterable, np.ndarray):
        return np.stack(back, lead)
    return back


def sorted_tangent(iterable, iterable_dot, key, reverse):
    """Forward mode's tangent of ``sorted``: the tangents put in the same order (a list)."""
    order = sorted_order(iterable, key, reverse)
    return [iterable_dot[order[k]] for k in range(len(order))]


def tolist(a):
    """``a.tolist()`` as a function (the array's items as nested lists of Python numbers)."""
    return np.asarray(a).tolist()


def tolist_grad(g, a, lead):
    """Adjoint of ``a.tolist()``: the (nested) list ``g`` as an array shaped like ``a``."""
    paths, rows = list_leaves_plan(g, np.shape(a), lead)
    if len(paths) == 0:
        return np.zeros(rows + np.shape(a))
    leaves = [np.broadcast_to(list_item(g, paths[k]), rows) for k in range(len(paths))]
    return np.reshape(np.stack(leaves, lead), rows + np.shape(a))


def list_item(nested, path):
    """``nested[path[0]][path[1]]...``: an item of nested lists."""
    item = nested
    for i in range(len(path)):
        item = item[path[i]]
    return item


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

_PERCENT = {"median": False, "quantile": False, "percentile": True}


def quantile_axes(shape, axis, lead):
    """How a quantile over ``axis`` of an array of ``shape`` reads it: ``perm`` moves the
    reduced axes last, giving ``rest + (n,)`` once they are flattened (``moved``
    before); ``back`` moves them back, after ``lead`` leading axes."""
    ndim = len(shape)
    if axis is None:
        reduced = tuple(range(ndim))
    else:
        reduced = tuple(sorted({int(i) % ndim for i in np.ravel(axis)}))
    kept = tuple(i for i in range(ndim) if i not in reduced)
    perm = kept + reduced
    moved = tuple(shape[i] for i in perm)
    back = tuple(range(lead)) + tuple(lead + int(i) for i in np.argsort(perm))
    return perm, moved[:len(kept)], math.prod(moved[len(kept):]), moved, back


def quantile_shape(shape, q, axis, keepdims):
    """The shape of ``np.quantile(a, q, axis, keepdims=keepdims)`` for ``a`` of ``shape``."""
    perm, rest, n, moved, back = quantile_axes(shape, axis, 0)
    if keepdims:
        rest = tuple(shape[i] if i in perm[:len(rest)] else 1 for i in range(len(shape)))
    return np.shape(q) + rest


def quantile_plan(order, missing, complex, q, out, overwrite_input, method, weights, kind, lead):
    """What ``np.<kind>(a, q, method=method)`` does with the slices of ``a`` moved last
    (``quantile_axes``), from their stable ``order`` and where they are NaN:

    - ``w``: shape ``(1,) * lead + (len(q),) + rest + (n,)`` (ones for ``rest`` when all
      slices are alike): the weight of each order statistic of a slice in each
      quantile; NaN for slices whose value is NaN (a NaN in them, except for the
      ``nan`` forms);
    - ``ranks``: where each element went in the sort (``(1,) * lead`` in front);
    - ``order`` itself.
    """
    name = f"np.{kind}"
    if out is not None:
        not_differentiable(f"{name} with out= (it writes into an existing array)")
    if overwrite_input:
        not_differentiable(f"{name} with overwrite_input=True (it reorders the input in place)")
    if weights is not None:
        not_differentiable(f"{name} with weights=")
    if complex:
        not_differentiable(f"{name} of complex values")
    rest, n = order.shape[:-1], order.shape[-1]
    ranks = np.argsort(order, axis=-1, kind="stable")
    ranks = ranks.reshape((1,) * lead + ranks.shape)
    nan_form = kind.startswith("nan")
    percent = _PERCENT[kind[3:] if nan_form else kind]
    qs = np.ravel(np.asarray(q, dtype=float))
    if not nan_form:
        w = np.reshape(_weights(qs, n, method, percent), (len(qs),) + (1,) * len(rest) + (n,))
        if missing.any():
            w = w * np.where(missing.any(-1), np.nan, 1.0)[None, ..., None]
    else:
        counts = n - missing.sum(-1)
        w = np.zeros((len(qs),) + rest + (n,))
        for m in np.unique(counts):
            where = counts == m
            if m == 0:  # all NaN: NumPy's value is NaN
                w[:, where, :] = np.nan
            else:
                w[:, where, :m] = _weights(qs, int(m), method, percent)[:, None, :]
    return w.reshape((1,) * lead + w.shape), ranks, order


def _weights(qs, n, method, percent):
    """The weight of each order statistic of ``n`` values in each quantile, as NumPy
    computes it: the quantiles of ascending step vectors (``steps[k]`` is 1 from
    place ``k`` on) are the weights' tail sums. Its index arithmetic depends on
    ``q`` and ``n`` alone, so this is exact for every ``method``."""
    steps = (np.arange(n)[None, :] >= np.arange(n + 1)[:, None]).astype(float)
    if percent:
        tails = np.percentile(steps, qs, axis=1, method=method)
    else:
        tails = np.quantile(steps, qs, axis=1, method=method)
    return np.reshape(tails[:, :-1] - tails[:, 1:], (len(qs), n))


# Keys that are called again to find the order: builtins and ufuncs, which have no
# side effects (a Python function could count its calls or draw random numbers).
_PURE_KEYS = (types.BuiltinFunctionType, np.ufunc)


def sorted_order(iterable, key, reverse):
    """Which item ``sorted(iterable, key=key, reverse=reverse)`` puts at each place: the
    same stable sort, of the positions by the items' keys."""
    if not isinstance(iterable, (list, tuple, np.ndarray)):
        not_differentiable(f"sorted of a {type(iterable).__name__} (only of a list, a "
                           "tuple or a 1-d array)")
    if isinstance(iterable, np.ndarray) and iterable.ndim != 1:
        not_differentiable("sorted of an array that is not 1-d")
    if key is not None and not (isinstance(key, _PURE_KEYS) or key in (float, int)):
        not_differentiable("sorted with key= a Python function (srcgrad would call it again "
                           "to find the order; sort by np.argsort instead)")
    items = list(iterable)
    keys = items if key is None else [key(v) for v in items]
    if any(isinstance(k, (tuple, list, dict, str)) or np.iscomplexobj(k) or np.ndim(k) != 0
           for k in keys):  # (``sorted(d.items())``: pairs; sort the keys, read d[k])
        not_differentiable("sorted of items that are not real numbers (pairs of "
                           "sorted(d.items()): sort the keys, sorted(d), and read d[k])")
    return sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)


def sorted_ranks(iterable, key, reverse):
    """Where ``sorted(iterable, key=key, reverse=reverse)`` puts each item."""
    order = sorted_order(iterable, key, reverse)
    ranks = [0] * len(order)
    for place, i in enumerate(order):
        ranks[i] = place
    return ranks


def list_leaves_plan(g, shape, lead):
    """The index paths of the numbers of a nested list shaped ``shape`` (C order), and
    the shape of the seed rows its leaves carry (``lead`` axes; unused items' adjoints
    may be plain zeros)."""
    paths = list(np.ndindex(*shape))
    rows = ()
    if lead:
        found = []
        for path in paths:
            leaf = g
            for i in path:
                leaf = leaf[i]
            found.append(np.shape(leaf))  # (unused items' adjoints: plain zeros)
        rows = np.broadcast_shapes(*found) if found else ()
    return paths, rows
