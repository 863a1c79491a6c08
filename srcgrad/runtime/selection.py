"""Helpers of the ``selection`` rules (``rules/selection.py``), reached as ``_sg.<name>``.

Each is plain Python over NumPy functions that have rules, so that adjoint
code calling it can be differentiated again (``tests/test_rule_table.py``
reads them). The planning helpers at the end compute indices and masks from
non-differentiable inputs and are listed in the rules' ``NONDIFF``.

``lead`` is the number of leading axes of seed rows on ``g``: 0, or 1 in the
row forms of ``tape.jacobian``; forward values never have them.
"""
import math

import numpy as np

from .adjoints import arrayed, astype, not_differentiable

__all__ = [
    # differentiable
    "sum_lead", "scatter_add", "take_grad", "take_along_axis_grad", "select_grad",
    "select_default_grad", "permute_grad", "nan_to_num_grad", "real_input_grad",
    "imag_input_grad", "interp_grad_x", "interp_grad_fp", "interp_grad_outside",
    # planning (non-differentiable)
    "complex_input", "take_positions", "along_axis_positions", "row_positions",
    "select_masks", "permutation_back", "interp_checked", "interp_segment", "interp_period_plan",
    "diagonal_index", "along_axis_index", "flat_index",
]


# ---------------------------------------------------------------------------
# Differentiable helpers
# ---------------------------------------------------------------------------

def sum_lead(grad, like, lead):
    """``grad`` summed down to the shape of ``like`` (undoing broadcasting), its first
    ``lead`` axes kept."""
    shape = np.shape(like)
    for i in range(np.ndim(grad) - lead - len(shape)):
        grad = np.sum(grad, axis=lead)
    for i in range(len(shape)):
        if shape[i] == 1 and np.shape(grad)[lead + i] != 1:
            grad = np.sum(grad, axis=lead + i, keepdims=True)
    return grad


def scatter_add(grad, positions, size):
    """A flat array of ``size`` zeros with each item of ``grad`` added at its flat position
    (``positions``, shaped like ``grad``), repeated positions adding up.

    The adjoint of a gather, written with ``np.bincount`` (which has a rule)
    rather than ``np.add.at`` (which writes in place).
    """
    flat = np.ravel(positions)
    if complex_input(grad):  # bincount sums real weights: the two parts apart
        return np.bincount(flat, weights=np.real(np.ravel(grad)), minlength=size) + \
            1j * np.bincount(flat, weights=np.imag(np.ravel(grad)), minlength=size)
    total = np.bincount(flat, weights=np.ravel(grad), minlength=size)
    if np.result_type(total) != np.result_type(grad):  # bincount's sums are float64
        total = astype(total, np.result_type(grad))
    return total


def take_grad(g, a, indices, axis, mode, lead):
    """Adjoint of ``np.take(a, indices, axis, mode=mode)``: each item of ``g`` added into
    the element it was read from, repeated indices adding up."""
    rows = np.shape(g)[:lead]
    positions, size = take_positions(np.shape(a), indices, axis, mode, rows)
    return np.reshape(scatter_add(g, positions, size), rows + np.shape(a))


def take_along_axis_grad(g, arr, indices, axis, lead):
    """Adjoint of ``np.take_along_axis(arr, indices, axis)``: each item of ``g`` added into
    the element it was read from, repeated indices adding up."""
    rows = np.shape(g)[:lead]
    positions, size = along_axis_positions(np.shape(arr), indices, axis, rows)
    return np.reshape(scatter_add(g, positions, size), rows + np.shape(arr))


def select_grad(g, condlist, choicelist, lead):
    """Adjoints of the choices of ``np.select(condlist, choicelist, default)``: a list.

    Choice ``i`` gets ``g`` where condition ``i`` is the first one true.
    """
    masks = select_masks(condlist)
    out = [sum_lead(np.where(masks[i], g, 0.0), choicelist[i], lead)
           for i in range(len(choicelist))]
    if isinstance(choicelist, np.ndarray):
        return np.stack(out, lead)
    return out


def select_default_grad(g, condlist, default, lead):
    """Adjoint of ``default`` of ``np.select``: ``g`` where no condition is true."""
    masks = select_masks(condlist)
    return sum_lead(np.where(masks[len(condlist)], g, 0.0), default, lead)


def permute_grad(g, a, ans, axis, lead):
    """Adjoint of ``np.sort``/``np.partition`` (``ans``: ``a`` permuted along ``axis``,
    flattened for None): each item of ``g`` goes back to the element it came from.

    The permutation is found by sorting both (stably), so it does not depend on
    how NumPy arranged ``ans`` (``partition`` leaves the order of the others
    unspecified). Tied elements are matched in order of position: a one-sided
    derivative there (see ``rules/selection.py``).
    """
    if axis is None:
        order = np.argsort(np.ravel(a), kind="stable")
        found = np.argsort(np.ravel(ans), kind="stable")
        back = permutation_back(order, found, -1, lead)
        return np.reshape(np.take_along_axis(g, back, -1), np.shape(g)[:lead] + np.shape(a))
    order = np.argsort(a, axis, kind="stable")
    found = np.argsort(ans, axis, kind="stable")
    back = permutation_back(order, found, axis, lead)
    return np.take_along_axis(g, back, lead + axis % np.ndim(a))


def nan_to_num_grad(g, x):
    """Adjoint for ``x`` of ``np.nan_to_num(x)``: ``g`` where ``x`` is finite, 0 where
    it was replaced."""
    if complex_input(x):
        return not_differentiable("np.nan_to_num of a complex array (complex inputs are "
                                  "not supported)")
    return np.where(np.isfinite(x), g, 0.0)


def real_input_grad(g, x, what):
    """Adjoint of ``np.real``/``np.conjugate``/``np.real_if_close`` of a real ``x``, which
    return it unchanged: ``g``. Complex ``x`` is refused."""
    if complex_input(x):
        return not_differentiable(f"{what} of a complex array (complex inputs are not "
                                  "supported)")
    return g


def imag_input_grad(g, val):
    """Adjoint of ``np.imag`` of a real ``val`` (zeros whatever ``val`` is): 0. Complex
    ``val`` is refused."""
    if complex_input(val):
        return not_differentiable("np.imag of a complex array (complex inputs are not "
                                  "supported)")
    return np.zeros_like(g)


def interp_grad_x(g, x, xp, fp, period):
    """Adjoint for ``x`` of ``np.interp(x, xp, fp)``: ``g`` times the slope of the segment
    ``x`` lies in, 0 outside ``[xp[0], xp[-1])``; at a knot, the segment to its right."""
    x, xp = arrayed(x), arrayed(xp)  # (lists, as np.interp reads them: compared below)
    segment = interp_segment(np.searchsorted(xp, x, side="right"), np.size(xp), period,
                             complex_input(x) or complex_input(fp))
    if np.size(xp) < 2:
        return np.zeros_like(g)
    inside = np.logical_and(x >= xp[0], x < xp[-1])
    widths = np.diff(xp)
    slopes = np.diff(fp) / np.where(widths == 0, 1.0, widths)
    return np.where(inside, g * np.take(slopes, segment), 0.0)


def interp_grad_fp(g, x, xp, fp, left, right, period, lead):
    """Adjoint for ``fp`` of ``np.interp(x, xp, fp, left, right)``: each value is a weighted
    sum of the ``fp`` at the two ends of its segment, and ``g`` goes back with
    those weights (where the value is not ``left``/``right``).

    The weights are computed from ``x`` here, so that their derivative in ``x`` is
    right: 0 outside ``[xp[0], xp[-1])``, as for the adjoint of ``x``.
    """
    x, xp = arrayed(x), arrayed(xp)  # (lists, as np.interp reads them: compared below)
    segment = interp_segment(np.searchsorted(xp, x, side="right"), np.size(xp), period,
                             complex_input(x) or complex_input(fp))
    below = np.logical_and(x < xp[0], left is not None)
    above = np.logical_and(x > xp[-1], right is not None)
    part = np.where(np.logical_or(below, above), 0.0, g)
    rows = np.shape(g)[:lead]
    if np.size(xp) < 2:  # one knot: every value is fp[0]
        return np.sum(np.reshape(part, rows + (-1,)), axis=-1, keepdims=True)
    inside = np.logical_and(x >= xp[0], x < xp[-1])
    widths = np.diff(xp)
    width = np.take(np.where(widths == 0, 1.0, widths), segment)
    t = np.where(inside, (x - np.take(xp, segment)) / width, np.where(x < xp[0], 0.0, 1.0))
    left_knot, size = row_positions(segment, np.size(fp), rows)
    out = scatter_add(part * (1.0 - t), left_knot, size) \
        + scatter_add(part * t, left_knot + 1, size)
    return np.reshape(out, rows + np.shape(fp))


def interp_grad_outside(g, x, xp, fp, value, side, period, lead):
    """Adjoint of ``left`` (``side`` -1) or ``right`` (1) of ``np.interp``: ``g`` summed
    where ``x`` is below ``xp[0]`` (or above ``xp[-1]``)."""
    x, xp = arrayed(x), arrayed(xp)  # (lists, as np.interp reads them: compared below)
    if side < 0:
        outside = x < xp[0]
    else:
        outside = x > xp[-1]
    outside = interp_checked(outside, period, complex_input(x) or complex_input(fp))
    return sum_lead(np.where(outside, g, 0.0), value, lead)


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

def complex_input(value):
    """Is ``value`` complex? (Adjoints here are for real inputs only.)"""
    if isinstance(value, (list, tuple)):
        return np.iscomplexobj(value)
    return np.result_type(value).kind == "c"


def _flat_positions(shape, rows):
    """Each element's flat position in an array of shape ``rows + shape``."""
    size = math.prod(rows) * math.prod(shape)
    return np.arange(size).reshape(tuple(rows) + tuple(shape)), size


def take_positions(shape, indices, axis, mode, rows):
    """The flat positions, in an array of shape ``rows + shape``, of the items of
    ``np.take(a, indices, axis, mode=mode)`` (``a`` of ``shape``) for each of
    ``rows``; and that array's size."""
    if axis is None:
        shape, axis = (math.prod(shape),), 0
    axis = axis % len(shape)
    n = shape[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = np.mod(indices, n)
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    elif mode != "raise":
        not_differentiable(f"np.take with mode={mode!r}")
    flat, size = _flat_positions(shape, rows)
    return flat[(slice(None),) * (len(rows) + axis) + (indices,)], size


def along_axis_positions(shape, indices, axis, rows):
    """The flat positions, in an array of shape ``rows + shape``, of the items of
    ``np.take_along_axis(arr, indices, axis)`` (``arr`` of ``shape``) for each of
    ``rows``; and that array's size."""
    if axis is None:
        shape, axis = (math.prod(shape),), 0
    flat, size = _flat_positions(shape, rows)
    indices = np.reshape(indices, (1,) * len(rows) + np.shape(indices))
    return np.take_along_axis(flat, indices, len(rows) + axis % len(shape)), size


def row_positions(positions, size, rows):
    """``positions`` in an array of ``size`` elements, repeated for each of ``rows`` as
    positions in an array of shape ``rows + (size,)``; and that array's size."""
    count = math.prod(rows)
    offsets = np.arange(count).reshape(tuple(rows) + (1,) * np.ndim(positions)) * size
    return offsets + positions, count * size


def select_masks(condlist):
    """For ``np.select``: where each condition is the first true one, then where none is."""
    masks, taken = [], np.zeros((), bool)
    for cond in condlist:
        masks.append(np.logical_and(cond, np.logical_not(taken)))
        taken = np.logical_or(taken, cond)
    return masks + [np.logical_not(taken)]


def permutation_back(order, found, axis, lead):
    """Where each element of an array went in a permutation of it along ``axis``, from the
    stable argsorts of both (``order``, ``found``): the permuted array taken along
    the axis at these indices is the array. ``lead`` leading 1-sized axes added."""
    back = np.take_along_axis(found, np.argsort(order, axis, kind="stable"), axis)
    return back.reshape((1,) * lead + back.shape)


def interp_checked(value, period, complex):
    """``value``, once ``np.interp``'s ``period`` and complex values are refused."""
    if period is not None:
        not_differentiable("np.interp with period")
    if complex:
        not_differentiable("np.interp of complex values (complex inputs are not supported)")
    return value


def interp_period_plan(xp_shape, fp_shape, period):
    """Check ``np.interp``'s arguments with ``period`` as NumPy checks them (its errors)."""
    if period == 0:
        raise ValueError("period must be a non-zero value")
    if len(xp_shape) != 1 or len(fp_shape) != 1:
        raise ValueError("Data points must be 1-D sequences")
    if xp_shape[0] != fp_shape[0]:
        raise ValueError("fp and xp are not of the same length")


def interp_segment(right_of, n, period, complex):
    """The segment (index of its left knot, ``0 .. n - 2``) of each ``x`` of ``np.interp``,
    from ``right_of = np.searchsorted(xp, x, side='right')``; refuses ``period``
    and complex values."""
    right_of = interp_checked(np.asarray(right_of), period, complex)
    return np.clip(right_of - 1, 0, max(n - 2, 0))


# The indices of the stores that calls writing into an array are rewritten to
# (passes/normalize/stores.py): ``arr[index] = values`` stores what the call would.

def diagonal_index(a, wrap=False):
    """The index of the items ``np.fill_diagonal(a, v, wrap)`` writes (NumPy's
    ``a.flat[:end:step]``)."""
    shape = np.shape(a)
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    size = math.prod(shape)
    if len(shape) == 2:
        step, end = shape[1] + 1, size if wrap else shape[1] * shape[1]
    else:
        if any(n != shape[0] for n in shape):
            raise ValueError("All dimensions of input must be of equal length")
        step, end = 1 + int(np.sum(np.cumprod(shape[:-1]))), size
    return np.unravel_index(np.arange(0, min(end, size), step), shape)


def along_axis_index(arr, indices, axis):
    """The index of the items ``np.put_along_axis(arr, indices, values, axis)`` writes."""
    indices = np.asarray(indices)
    if not np.issubdtype(indices.dtype, np.integer):
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return flat_index(arr, indices)
    shape = np.shape(arr)
    if indices.ndim != len(shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {len(shape)}")
    axis %= len(shape)
    index = []
    for dim, n in enumerate(shape):
        index.append(indices if dim == axis else
                     np.arange(n).reshape((1,) * dim + (n,) + (1,) * (len(shape) - dim - 1)))
    return tuple(index)


def flat_index(a, ind):
    """The index of the items ``np.put(a, ind, v)`` writes (flat positions, from the end
    where negative)."""
    ind = np.asarray(ind)
    if not np.issubdtype(ind.dtype, np.integer):
        raise TypeError(f"indices must be integers, not {ind.dtype}")
    size = math.prod(np.shape(a))
    return np.unravel_index(np.where(ind < 0, ind + size, ind), np.shape(a))
