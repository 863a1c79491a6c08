"""Functions that build arrays out of others or out of the user's own functions, written
out over functions with rules (as ``rewrites.py``): the compiler inlines them as the
user's code, so the adjoint, tangent, tape and second derivatives follow.

- ``divmod(a, b)`` (the builtin): ``(a // b, a % b)``; ``np.divmod`` is in
  ``nan_reductions.py``.
- ``np.block``: nested lists of arrays (or scalars) up to three deep, each leaf given
  leading axes of one up to the result's rank, joined by ``np.concatenate`` along the
  last axis at the deepest level, the one before at the next. A tuple, or depths that
  differ, are refused as NumPy refuses them.
- ``np.piecewise``: NumPy's own loop: ``y = zeros_like(x)``, and for each condition in
  order ``y[cond] = func(x[cond])`` (or the constant), the ``otherwise`` condition where
  there is one function more than conditions; written with ``np.where``, no write into
  ``y`` (second order). Arguments for the functions are refused (bind them in a lambda).
- ``np.apply_along_axis``: ``func1d`` of each 1-D slice along ``axis`` (a Python loop),
  the results stacked and their axes put where ``axis`` was.
- ``np.fromiter``: the items as a float array (``count`` of them if given); a dtype that
  is not a real float is refused for differentiable values.
- ``np.ascontiguousarray``/``np.asfortranarray``: ``np.asarray`` in that memory order
  (the argument itself where it is in that order already), at least 1-d;
  ``math.prod``: the items multiplied from ``start``, left to right.
"""
import builtins
import math

import numpy as np

from .. import runtime as _sg


def divmod_builtin(a, b):
    """The builtin ``divmod``: ``(a // b, a % b)``."""
    return a // b, a % b


def _leading(a, ndim):
    """``a`` as an array of ``ndim`` axes, ones put in front (``np.block``'s leaves)."""
    return np.reshape(a, (1,) * (ndim - np.ndim(a)) + np.shape(a))


def _block_depth(arrays, depth):
    """Raise as NumPy does where the lists of ``np.block`` are not all ``depth`` deep."""
    level = arrays
    for _ in range(depth - 1):
        if not all(type(a) is list for a in level):
            raise ValueError("List depths are mismatched (np.block)")
        level = [a for inner in level for a in inner]
    if any(type(a) is list or type(a) is tuple for a in level):
        raise ValueError("List depths are mismatched (np.block)")


def block(arrays):
    """``np.block``: nested lists joined along the last axes, the deepest level last."""
    if type(arrays) is tuple:
        _sg.not_differentiable("np.block of a tuple (NumPy too takes lists only)")
    if type(arrays) is not list:
        return np.array(arrays)
    if len(arrays) == 0 or type(arrays[0]) is not list:
        _block_depth(arrays, 1)
        ndim = builtins.max([1] + [np.ndim(a) for a in arrays])
        return np.concatenate([_leading(a, ndim) for a in arrays], axis=-1)
    if len(arrays[0]) == 0 or type(arrays[0][0]) is not list:
        _block_depth(arrays, 2)
        ndim = builtins.max([2] + [np.ndim(a) for row in arrays for a in row])
        return np.concatenate([np.concatenate([_leading(a, ndim) for a in row], axis=-1)
                               for row in arrays], axis=-2)
    if len(arrays[0][0]) > 0 and type(arrays[0][0][0]) is list:
        _sg.not_differentiable("np.block of lists nested more than three deep")
    _block_depth(arrays, 3)
    ndim = builtins.max([3] + [np.ndim(a) for plane in arrays for row in plane for a in row])
    return np.concatenate([np.concatenate([np.concatenate([_leading(a, ndim) for a in row],
                                                          axis=-1) for row in plane], axis=-2)
                           for plane in arrays], axis=-3)


def piecewise(x, condlist, funclist, *args, **kw):
    """``np.piecewise``: NumPy's loop, each function of the elements its condition keeps."""
    if args or kw:
        _sg.not_differentiable("np.piecewise with arguments for the functions (bind them "
                               "in a lambda: lambda t: f(t, a))")
    x = np.asarray(x)
    n2 = len(funclist)
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray))
                                 and np.ndim(x) != 0):
        condlist = [condlist]
    conds = np.asarray(condlist, dtype=bool)
    n = len(conds)
    if n == n2 - 1:  # the "otherwise" condition
        conds = np.concatenate([conds, np.logical_not(np.any(conds, axis=0, keepdims=True))],
                               axis=0)
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = np.zeros_like(x)
    for k, func in enumerate(funclist):  # (unrolled: a display of functions)
        cond = conds[k]
        if callable(func):
            vals = x[cond]
            if np.size(vals) > 0:  # y[cond] = func(vals), as a gather (no write into y)
                spread = np.ravel(np.broadcast_to(func(vals), np.shape(vals)))
                at = np.where(np.ravel(cond), np.cumsum(np.ravel(cond)) - 1, 0)
                y = np.where(cond, np.reshape(spread[at], np.shape(x)), y)
        else:
            y = np.where(cond, func, y)
    if y.dtype != x.dtype:
        return y.astype(x.dtype)
    return y


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``np.apply_along_axis``: ``func1d`` of each 1-D slice along ``axis``, the results
    stacked, their axes where ``axis`` was."""
    if args or kwargs:
        _sg.not_differentiable("np.apply_along_axis with arguments for func1d (bind them "
                               "in a lambda: lambda v: f(v, a))")
    arr = np.asarray(arr)
    nd = np.ndim(arr)
    if axis < -nd or axis >= nd:
        raise np.exceptions.AxisError(axis, nd)
    axis = axis % nd
    moved = np.moveaxis(arr, axis, -1)
    batch = np.shape(moved)[:-1]
    if 0 in batch:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    rows = np.reshape(moved, (-1, np.shape(moved)[-1]))
    results = [np.asarray(func1d(rows[i])) for i in range(np.shape(rows)[0])]
    shape = np.shape(results[0])
    out = np.reshape(np.stack(results), batch + shape)
    if len(shape) == 0:
        return out
    return np.moveaxis(out, [len(batch) + j for j in range(len(shape))],
                       [axis + j for j in range(len(shape))])


def fromiter(iter, dtype, count=-1, *, like=None):
    """``np.fromiter``: the items (the first ``count`` of them) as a float array."""
    if like is not None:
        _sg.not_differentiable("np.fromiter with like=")
    if not np.issubdtype(dtype, np.floating):
        _sg.not_differentiable(f"np.fromiter with dtype={dtype!r} (a differentiable value "
                               "cast to a dtype that is not a real float; pass dtype=float)")
    items = list(iter)
    if count >= 0:
        if len(items) < count:
            raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                             f"{len(items)} items.")
        items = items[:count]
    out = np.array(items)
    if out.dtype != np.dtype(dtype):
        out = out.astype(dtype)
    if np.ndim(out) != 1:
        raise ValueError("setting an array element with a sequence (np.fromiter takes "
                         "scalar items)")
    return out


def ascontiguousarray(a, dtype=None, *, like=None):
    """``np.ascontiguousarray``: at least 1-d, ``a`` itself where it is in C order
    already, else a copy in C order (as NumPy: a write into the result reaches ``a``
    exactly when NumPy's does)."""
    if like is not None or dtype is not None:
        _sg.not_differentiable("np.ascontiguousarray with dtype= or like= (convert with "
                               "np.asarray(a, dtype=...) first)")
    return np.atleast_1d(np.asarray(a, order="C"))


def asfortranarray(a, dtype=None, *, like=None):
    """``np.asfortranarray``: at least 1-d, ``a`` itself where it is in Fortran order
    already, else a copy in Fortran order."""
    if like is not None or dtype is not None:
        _sg.not_differentiable("np.asfortranarray with dtype= or like= (convert with "
                               "np.asarray(a, dtype=...) first)")
    return np.atleast_1d(np.asarray(a, order="F"))


def prod(iterable, *, start=1):
    """``math.prod``: the items multiplied from ``start``, left to right."""
    total = start
    for item in iterable:
        total = total * item
    return total


REWRITES = {builtins.divmod: divmod_builtin, np.block: block, np.piecewise: piecewise,
            np.apply_along_axis: apply_along_axis, np.fromiter: fromiter,
            np.ascontiguousarray: ascontiguousarray, np.asfortranarray: asfortranarray,
            math.prod: prod}
