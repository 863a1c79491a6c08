"""Functions that pick some of an array's items by a condition or an index array, written
out as gathers over functions with rules (as ``rewrites.py``): the compiler inlines them
as the user's code, so the adjoint, tangent, tape and second derivatives follow. Which
items go where is computed from the condition or index alone (``runtime/layout.py``),
never differentiated.

- ``np.choose(a, choices, mode=)``: the choices broadcast with ``a`` and joined, then
  gathered at positions that are NumPy's own choose of positions: ``mode`` 'raise',
  'wrap' and 'clip' as NumPy has them (an entry out of range raises for 'raise');
  ``out=`` is refused.
- ``np.compress(condition, a, axis=)``: ``np.take`` of the positions ``condition`` keeps
  (``a`` raveled for ``axis=None``); ``out=`` is refused.
- ``np.extract(condition, arr)``: NumPy's ``take(ravel(arr), nonzero(ravel(condition)))``.
- ``np.trim_zeros(filt, trim, axis=)``: ``filt`` cut by the slice NumPy 2.2+ takes (of
  each axis trimmed, for N-d ``filt``); a list stays a list, as NumPy slices it.
"""
import numpy as np

from .. import runtime as _sg


def choose(a, choices, out=None, mode="raise"):
    """``np.choose``: for each position of ``a`` (broadcast with the choices), the item
    there of the choice ``a`` names."""
    if out is not None:
        _sg.not_differentiable("np.choose with out=")
    shape, index, dtype = _sg.choose_index(a, choices, mode)
    joined = np.concatenate([np.ravel(np.broadcast_to(c, shape)) for c in choices])
    picked = joined[index]
    if picked.dtype != dtype:  # (a Python scalar among the choices does not widen them)
        return picked.astype(dtype)
    return picked


def compress(condition, a, axis=None, out=None):
    """``np.compress``: the slices of ``a`` along ``axis`` (its items, raveled, for
    ``axis=None``) where ``condition`` is true."""
    if out is not None:
        _sg.not_differentiable("np.compress with out=")
    return np.take(a, _sg.compress_index(condition), axis=axis)


def extract(condition, arr):
    """``np.extract``: the items of ``arr`` where ``condition`` is true, both raveled."""
    return np.take(np.ravel(arr), np.flatnonzero(np.ravel(condition)))


def trim_zeros(filt, trim="fb", axis=None):
    """``np.trim_zeros``: ``filt`` without its leading and/or trailing zeros."""
    cut = _sg.trim_zeros_slice(filt, trim, axis)
    if cut is None:  # nothing to trim (0-d): NumPy returns filt itself
        return filt
    return filt[cut]


REWRITES = {np.choose: choose, np.compress: compress, np.extract: extract,
            np.trim_zeros: trim_zeros}
