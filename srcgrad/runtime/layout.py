"""Helpers of the ``layout`` rules (``rules/layout.py``), reached as ``_sg.<name>``.

Each is plain Python over NumPy functions that have rules, so that adjoint
code calling it can be differentiated again (``tests/test_rule_table.py``
reads them). The planning helpers at the end compute axes, offsets and index
maps from shapes and other non-differentiable inputs and are listed in the
rules' ``NONDIFF``.

``lead`` is the number of leading axes of seed rows on ``g``: 0, or 1 in the
row forms of ``tape.jacobian``; forward values never have them.

Every function here moves elements without combining them, so each adjoint
sends each item of ``g`` back to the element it was copied from, copies of one
element adding up: a gather of the copies and a sum (``scatter_axis``; a
scatter-add would write in place), or a reshape and a sum where the copies
form an axis of their own.
"""
import numpy as np

from .adjoints import axis_slice, not_differentiable

try:
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # NumPy < 2
    from numpy.core.numeric import normalize_axis_tuple

__all__ = [
    # differentiable
    "scatter_axis", "repeat_array_grad", "tile_grad", "roll_grad", "pad_grad", "pad_constant_grad",
    "split_pieces_grad", "diag_grad", "diagonal_grad", "atleast_grad", "rot90_grad",
    "rollaxis_grad", "joined_grad", "append_grad",
    # planning (non-differentiable)
    "along_axis", "inverse_map", "lead_axes", "negated", "repeat_plan", "tile_plan", "pad_pairs",
    "pad_interior", "pad_maps", "pad_owners", "split_plan", "diagonal_plan", "rollaxis_plan",
    "joined_offsets", "append_plan", "meshgrid_shapes", "insert_index", "delete_index",
    "resize_index", "broadcast_shape_of", "unwrapped", "arange_values", "choose_index", "compress_index",
    "trim_zeros_slice", "poly_zeros_dtype",
]


# ---------------------------------------------------------------------------
# Differentiable helpers
# ---------------------------------------------------------------------------

def scatter_axis(g, index, size, axis):
    """Adjoint of ``x[..., index]`` (``index`` on ``axis``) for an ``x`` with ``size``
    elements along ``axis``: each slice of ``g`` along ``axis`` added into the slice of
    ``x`` it was read from, repeated indices adding up.

    Written as a gather (``inverse_map``: where each slice of ``x`` went, padded
    with a slice of zeros) and a sum, so that it is differentiable again.
    """
    shape = np.shape(g)
    zero = np.zeros(shape[:axis] + (1,) + shape[axis + 1:], np.result_type(g))
    padded = np.concatenate([g, zero], axis)
    return np.sum(padded[along_axis(axis, inverse_map(index, size))], axis=axis + 1)


def repeat_array_grad(g, a, repeats, axis, lead):
    """Adjoint of ``np.repeat(a, repeats, axis)``: the copies of each element summed."""
    rows = np.shape(g)[:lead]
    shape = np.shape(a)
    if axis is None:
        shape = (np.size(a),)
    ax, count, index = repeat_plan(shape, repeats, axis)
    if index is None:  # one count for all: the copies form an axis of their own
        split = rows + shape[:ax] + (shape[ax], count) + shape[ax + 1:]
        out = np.sum(np.reshape(g, split), axis=lead + ax + 1)
    else:
        out = scatter_axis(g, index, shape[ax], lead + ax)
    return np.reshape(out, rows + np.shape(a))


def tile_grad(g, A, reps, lead):
    """Adjoint of ``np.tile(A, reps)``: the tiles summed."""
    rows = np.shape(g)[:lead]
    split, axes = tile_plan(np.shape(A), reps, lead)
    return np.reshape(np.sum(np.reshape(g, rows + split), axis=axes), rows + np.shape(A))


def roll_grad(g, a, shift, axis, lead):
    """Adjoint of ``np.roll(a, shift, axis)``: roll back."""
    back = negated(shift)
    if axis is None:  # rolled flat
        flat = np.reshape(g, np.shape(g)[:lead] + (-1,))
        return np.reshape(np.roll(flat, back, axis=lead), np.shape(g))
    return np.roll(g, back, axis=lead_axes(axis, np.ndim(a), lead))


def pad_grad(g, array, pad_width, mode, reflect_type, lead):
    """Adjoint for ``array`` of ``np.pad(array, pad_width, mode)``.

    ``constant``: the part of ``g`` over ``array``. ``edge``, ``reflect``,
    ``symmetric`` and ``wrap`` copy slices along one axis after the other, so
    along each axis a padded position holds the slice at one position of the
    array (``pad_maps``); the adjoint scatters ``g`` back axis by axis. Other
    modes (and ``reflect_type='odd'``) are refused when run.
    """
    shape = np.shape(array)
    pairs = pad_pairs(len(shape), pad_width)
    if mode == "constant":
        return g[pad_interior(shape, pairs, lead)]
    maps = pad_maps(shape, pairs, mode, reflect_type)
    for i in range(len(shape)):
        if maps[i] is not None:
            g = scatter_axis(g, maps[i], shape[i], lead + i)
    return g


def pad_constant_grad(g, array, pad_width, mode, constant_values, lead):
    """Adjoint for ``constant_values`` of ``np.pad(array, pad_width, 'constant',
    constant_values=...)``: the sum of ``g`` over the places each value fills.

    NumPy pads one axis after the other, so a corner holds the value of the last
    axis padded there (``pad_owners``).
    """
    shape = np.shape(array)
    owners = np.ravel(pad_owners(shape, pad_pairs(len(shape), pad_width), mode))
    rows = np.shape(g)[:lead]
    flat = np.reshape(g, rows + (-1,))
    sums = [np.sum(np.where(owners == i, flat, 0.0), axis=lead) for i in range(2 * len(shape))]
    per_value = np.reshape(np.stack(sums, -1), rows + (len(shape), 2))
    like = np.shape(constant_values)
    for i in range(2 - len(like)):  # values broadcast to (ndim, 2) from the right
        per_value = np.sum(per_value, axis=lead)
    for i in range(len(like)):
        if like[i] == 1:
            per_value = np.sum(per_value, axis=lead + i, keepdims=True)
    return per_value


def split_pieces_grad(g, ary, indices_or_sections, axis, kind, lead):
    """Adjoint of ``np.split``/``array_split``/``hsplit``/``vsplit``/``dsplit`` (``kind``)
    of ``ary``, from the list ``g`` of its pieces' adjoints.

    Pieces that tile ``ary`` in order (every split but by unsorted indices) are
    joined back; otherwise each is added where it was read from.
    """
    ax, pieces, tiled = split_plan(np.shape(ary), indices_or_sections, axis, kind)
    if tiled:
        return np.concatenate(g, axis=lead + ax)
    n = np.shape(ary)[ax]
    total = scatter_axis(g[0], pieces[0], n, lead + ax)
    for i in range(1, len(pieces)):
        total = total + scatter_axis(g[i], pieces[i], n, lead + ax)
    return total


def diag_grad(g, v, k, lead):
    """Adjoint of ``np.diag(v, k)``: the ``k``-th diagonal of ``g`` for a vector ``v``;
    for a matrix ``v``, ``g`` put back on that diagonal."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k, lead, lead + 1)
    return diagonal_grad(g, v, k, 0, 1, lead)


def diagonal_grad(g, a, offset, axis1, axis2, lead):
    """Adjoint of ``np.diagonal(a, offset, axis1, axis2)``: ``g`` put back on that
    diagonal, zeros elsewhere (a gather from ``g`` and one zero, ``diagonal_plan``)."""
    index, axes = diagonal_plan(np.shape(a), offset, axis1, axis2)
    shape = np.shape(g)
    padded = np.concatenate([g, np.zeros(shape[:-1] + (1,), np.result_type(g))], -1)
    return np.moveaxis(padded[..., index], (-2, -1), (lead + axes[0], lead + axes[1]))


def atleast_grad(g, arys, lead):
    """Adjoints of ``np.atleast_1d/2d/3d(*arys)``, which only reshape: a list, one per array
    (for several arrays ``g`` is the list of the results' adjoints)."""
    if len(arys) == 1:
        return [np.reshape(g, np.shape(g)[:lead] + np.shape(arys[0]))]
    return [np.reshape(g[i], np.shape(g[i])[:lead] + np.shape(arys[i]))
            for i in range(len(arys))]


def rot90_grad(g, m, k, axes, lead):
    """Adjoint of ``np.rot90(m, k, axes)``: rotate back."""
    return np.rot90(g, -k, lead_axes(axes, np.ndim(m), lead))


def rollaxis_grad(g, a, axis, start, lead):
    """Adjoint of ``np.rollaxis(a, axis, start)``: move the axis back."""
    source, destination = rollaxis_plan(np.ndim(a), axis, start)
    return np.moveaxis(g, lead + destination, lead + source)


def joined_grad(g, tup, kind, lead):
    """Adjoints of the arrays joined by ``np.column_stack``/``np.dstack`` (``kind``): a
    list, or an array for an ndarray ``tup``. Each is its slice of ``g``, reshaped to
    its array's shape (the joins first make vectors columns, and so on)."""
    shapes = [np.shape(tup[i]) for i in range(len(tup))]
    axis, offsets = joined_offsets(shapes, kind)
    rows = np.shape(g)[:lead]
    ndim = np.ndim(g)
    pieces = [np.reshape(g[axis_slice(ndim, lead + axis, offsets[i], offsets[i + 1])],
                         rows + shapes[i]) for i in range(len(tup))]
    if isinstance(tup, np.ndarray):
        return np.stack(pieces, lead)
    return pieces


def append_grad(g, arr, values, axis, which, lead):
    """Adjoint of ``arr`` (``which`` 0) or ``values`` (1) of ``np.append(arr, values, axis)``:
    its slice of ``g``, reshaped to its shape (``axis=None`` flattens both)."""
    ax, start, stop = append_plan(np.shape(arr), np.shape(values), axis, which)
    shape = np.shape(arr)
    if which == 1:
        shape = np.shape(values)
    piece = g[axis_slice(np.ndim(g), lead + ax, start, stop)]
    return np.reshape(piece, np.shape(g)[:lead] + shape)


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

def along_axis(axis, index):
    """The index ``x[..., index]`` with ``index`` on ``axis`` (slices before it)."""
    return (slice(None),) * axis + (index,)


def lead_axes(axes, ndim, lead):
    """``axes`` (an int or a sequence, maybe negative) of an ``ndim``-d array, as axes
    of the array with ``lead`` more leading axes."""
    if isinstance(axes, (int, np.integer)):
        return lead + int(axes) % ndim
    return tuple(lead + int(ax) % ndim for ax in axes)


def negated(shift):
    """``np.roll``'s ``shift`` that undoes ``shift`` (an int or a sequence of ints)."""
    shift = np.asarray(shift)
    if shift.ndim == 0:
        return -int(shift)
    return tuple(-int(s) for s in shift.ravel())


def repeat_plan(shape, repeats, axis):
    """``(axis, count, index)`` of ``np.repeat`` of an array of ``shape`` (already flat for
    ``axis=None``): ``count`` when every element is repeated as often, else ``index``,
    the position each item of the result was read from along ``axis``."""
    axis = 0 if axis is None else int(axis) % len(shape)
    counts = np.asarray(repeats)
    if counts.size == 1:
        return axis, int(counts.reshape(())), None
    return axis, None, np.repeat(np.arange(shape[axis]), counts)


def tile_plan(shape, reps, lead):
    """``(split, axes)`` for the adjoint of ``np.tile``: the result reshaped to ``split``
    has an axis of copies before each axis of the (promoted) array; summing ``axes``
    (``lead`` leading axes on top) adds the tiles up."""
    reps = tuple(int(r) for r in np.ravel(reps))
    ndim = max(len(reps), len(shape))
    shape = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    split = tuple(n for pair in zip(reps, shape) for n in pair)
    return split, tuple(lead + 2 * i for i in range(ndim))


def pad_pairs(ndim, pad_width):
    """``np.pad``'s ``pad_width`` as ``ndim`` pairs ``(before, after)``, as NumPy reads it
    (also ``{axis: width}``, NumPy 2.3's, the axes not named unpadded)."""
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            pairs[axis % ndim] = pad_pairs(1, width)[0]
        return pairs
    widths = np.round(np.asarray(pad_width)).astype(np.intp)
    if widths.size == 1:
        widths = np.full((ndim, 2), widths.ravel()[0])
    return [tuple(int(w) for w in pair) for pair in np.broadcast_to(widths, (ndim, 2))]


def pad_interior(shape, pairs, lead):
    """The index of the original array in the result of ``np.pad`` (``lead`` axes first)."""
    return (slice(None),) * lead + tuple(slice(before, before + n)
                                         for n, (before, _) in zip(shape, pairs))


_PAD_GATHERS = ("edge", "reflect", "symmetric", "wrap")


def pad_maps(shape, pairs, mode, reflect_type):
    """For each axis, the position along it of the array that each position of the padded
    result holds (None where nothing is padded): ``np.pad`` of the positions themselves,
    so that it is NumPy's own rule, large pads included."""
    if not isinstance(mode, str) or mode not in _PAD_GATHERS:
        not_differentiable(f"np.pad with mode={mode!r} (supported: 'constant', "
                           + ", ".join(repr(m) for m in _PAD_GATHERS) + ")")
    if mode in ("reflect", "symmetric") and reflect_type != "even":
        not_differentiable(f"np.pad with reflect_type={reflect_type!r}")
    return [None if pair == (0, 0) else np.pad(np.arange(n), pair, mode=mode)
            for n, pair in zip(shape, pairs)]


def pad_owners(shape, pairs, mode):
    """For ``np.pad(..., 'constant')``: which of the ``constant_values`` (flattened from
    ``(ndim, 2)``) each position of the result holds, -1 for the array's own. Axes are
    padded in order over all of the earlier axes, so the last axis padded at a
    position wins."""
    if mode != "constant":
        not_differentiable(f"constant_values of np.pad with mode={mode!r}")
    owners = np.full(tuple(n + b + a for n, (b, a) in zip(shape, pairs)), -1)
    for axis, (before, after) in enumerate(pairs):
        n = owners.shape[axis]
        owners[along_axis(axis, slice(0, before))] = 2 * axis
        owners[along_axis(axis, slice(n - after, n))] = 2 * axis + 1
    return owners


def split_plan(shape, indices_or_sections, axis, kind):
    """``(axis, pieces, tiled)`` of a split of an array of ``shape``: each piece's
    positions along ``axis``, and whether they tile the axis in order."""
    if kind == "hsplit":
        axis = 1 if len(shape) > 1 else 0
    elif kind == "vsplit":
        axis = 0
    elif kind == "dsplit":
        axis = 2
    axis = int(axis) % len(shape)
    positions = np.arange(shape[axis])
    pieces = np.array_split(positions, indices_or_sections)
    tiled = np.array_equal(np.concatenate(pieces), positions)
    return axis, pieces, tiled


def diagonal_plan(shape, offset, axis1, axis2):
    """``(index, axes)`` for the adjoint of ``np.diagonal`` of an array of ``shape``: for
    each place of the ``(shape[axis1], shape[axis2])`` matrices, its item in the
    diagonal, or one past the diagonal's end (for a zero appended); and the two
    axes, not negative."""
    ndim = len(shape)
    axes = (int(axis1) % ndim, int(axis2) % ndim)
    i, j = np.indices((shape[axes[0]], shape[axes[1]]), sparse=True)
    size = len(np.diagonal(np.empty((shape[axes[0]], shape[axes[1]])), offset))
    item = np.minimum(i, j)
    return np.where((j - i == offset) & (item < size), item, size), axes


def inverse_map(index, size):
    """For ``x[index]`` of an ``x`` with ``size`` items: where each item went, as a
    ``(size, copies)`` array of positions in ``index``, padded with ``len(index)``."""
    index = np.ravel(np.asarray(index, dtype=np.intp))
    order = np.argsort(index, kind="stable")
    counts = np.bincount(index, minlength=size)
    copies = int(counts.max()) if size else 0
    out = np.full((size, copies), len(index), dtype=np.intp)
    first = np.cumsum(counts) - counts
    out[index[order], np.arange(len(index)) - first[index[order]]] = order
    return out


def rollaxis_plan(ndim, axis, start):
    """``(source, destination)``: ``np.rollaxis(a, axis, start)`` is
    ``np.moveaxis(a, source, destination)``."""
    axis = int(axis) % ndim
    start = int(start) + ndim if start < 0 else int(start)
    if axis < start:
        start -= 1
    return axis, start


def joined_offsets(shapes, kind):
    """``(axis, offsets)`` of the arrays of ``shapes`` joined by ``np.column_stack``
    (vectors and scalars become columns) or ``np.dstack`` (made 3-d first)."""
    if kind == "column_stack":
        axis, widths = 1, [1 if len(s) < 2 else s[1] for s in shapes]
    else:
        axis, widths = 2, [1 if len(s) < 3 else s[2] for s in shapes]
    return axis, [0] + np.cumsum(widths).tolist()


def append_plan(arr_shape, values_shape, axis, which):
    """``(axis, start, stop)`` of ``arr`` (``which`` 0) or ``values`` (1) in the result of
    ``np.append(arr, values, axis)``."""
    if axis is None:
        first, second = int(np.prod(arr_shape)), int(np.prod(values_shape))
        axis = 0
    else:
        axis = int(axis) % len(arr_shape)
        first, second = arr_shape[axis], values_shape[axis]
    if which == 0:
        return axis, 0, first
    return axis, first, first + second


def meshgrid_shapes(sizes, indexing):
    """For ``np.meshgrid`` of inputs of ``sizes``: the shape each is raveled to (its own
    axis of the grid) and the grid's shape."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    grid = list(sizes)
    axes = list(range(len(sizes)))
    if indexing == "xy" and len(sizes) > 1:
        grid[0], grid[1] = grid[1], grid[0]
        axes[0], axes[1] = 1, 0
    shapes = []
    for axis in axes:
        shape = [1] * len(sizes)
        shape[axis] = -1
        shapes.append(tuple(shape))
    return shapes, tuple(grid)


def insert_index(shape, obj, values_shape, axis):
    """For ``np.insert(arr, obj, values, axis)`` (``arr`` of ``shape``, ``values`` of
    ``values_shape``): the index, into ``arr``'s items followed by ``values``'s, of each
    item of the result. NumPy inserts the positions of ``values`` into those of ``arr``
    (broadcasting and casting them as it would the values)."""
    size = int(np.prod(shape))
    positions = np.arange(size).reshape(shape)
    inserted = size + np.arange(int(np.prod(values_shape))).reshape(values_shape)
    return np.insert(positions, obj, inserted, axis=axis)


def delete_index(shape, obj, axis):
    """For ``np.delete(arr, obj, axis)`` (``arr`` of ``shape``): the flat positions in
    ``arr`` of the items kept, NumPy's own delete of the positions."""
    return np.delete(np.arange(int(np.prod(shape))).reshape(shape), obj, axis=axis)


def resize_index(size, new_shape):
    """For ``np.resize(a, new_shape)`` (``a`` of ``size`` items): the flat position in
    ``a`` of each item of the result (``a`` repeated, then cut)."""
    return np.resize(np.arange(size), new_shape)


def broadcast_shape_of(arrays):
    """The shape ``np.broadcast_arrays`` gives ``arrays``."""
    return np.broadcast_shapes(*(np.shape(a) for a in arrays))


def arange_values(start, stop, step, dtype, kwargs):
    """``np.arange``'s values (a constant of the code: ``rules/rewrites.arange`` adds the
    derivatives in ``start`` and ``step``)."""
    return np.arange(start, stop, step, dtype=dtype, **kwargs)


def unwrapped(p, discont, axis, period):
    """``np.unwrap``'s values (a constant of the code: its derivative is 1, the multiples
    of ``period`` it adds being constant between jumps)."""
    return np.unwrap(p, discont=discont, axis=axis, period=period)


def choose_index(a, choices, mode):
    """For ``np.choose(a, choices, mode=mode)``: the shape of the result, the flat position
    of each of its items in the choices broadcast to that shape and joined end to end,
    and the result's dtype. The positions are NumPy's own choose of positions (its
    errors for an entry out of range, a bad ``mode``, ``a`` not of integers); the dtype
    is that of NumPy's choose of the values (Python scalars among the choices are weak)."""
    shape = np.broadcast_shapes(np.shape(a), *(np.shape(c) for c in choices))
    size = int(np.prod(shape))
    positions = [np.arange(size).reshape(shape) + i * size for i in range(len(choices))]
    index = np.choose(a, positions, mode=mode)
    return shape, index, np.choose(a, choices, mode=mode).dtype


def compress_index(condition):
    """For ``np.compress(condition, ...)``: the positions ``condition`` keeps (NumPy's
    error for a condition that is not 1-d; one longer than the axis fails in the take,
    as in NumPy's)."""
    if np.ndim(condition) != 1:
        raise ValueError("condition must be a 1-d array")
    return np.flatnonzero(condition)


def trim_zeros_slice(filt, trim, axis):
    """For ``np.trim_zeros(filt, trim, axis)``: the slice NumPy 2.2+ takes of ``filt`` (a
    tuple of them, one an axis, where ``filt`` has several), or None where NumPy returns
    ``filt`` itself (no axis to trim); NumPy's errors for a bad ``trim`` or ``axis``."""
    values = np.asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    ndim = values.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim,
                                                                        argname="axis")
    if not axes:
        return None
    # (an object array's None counts as non-zero, as NumPy counts it)
    nonzero = np.argwhere(values if values.dtype != object else values != 0)
    if nonzero.size == 0:  # all zeros: empty along every axis trimmed
        start = stop = (0,) * ndim
    else:
        start = [int(i) for i in nonzero.min(axis=0)] if "f" in trim else (None,) * ndim
        stop = [int(i) + 1 for i in nonzero.max(axis=0)] if "b" in trim else (None,) * ndim
    cut = tuple(slice(start[ax], stop[ax]) if ax in axes else slice(None)
                for ax in range(ndim))
    return cut[0] if ndim == 1 else cut


def poly_zeros_dtype(zeros):
    """The dtype ``np.poly`` computes in for 1-d ``zeros``: ``np.mintypecode`` of theirs
    (a real float kept, integers and booleans as float64)."""
    return np.dtype(np.mintypecode(np.asarray(zeros).dtype.char))
