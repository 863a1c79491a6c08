"""Adjoint helpers for code that carries a leading axis of seed rows.

``GradientTape.jacobian`` runs a block's adjoint code once for all rows of
the identity: every adjoint then has an extra first axis (row ``k`` is the
adjoint seeded by the ``k``-th unit vector), while forward values keep their
shapes. Elementwise rules need nothing for this (NumPy aligns shapes from the
right), so only what moves, reshapes or reduces axes has a ``*_rows`` form
here; ``rules/rows.py`` says which rule uses which.

These run in generated code as ``_sg.<name>`` and are never differentiated
again (a Jacobian is not recorded on another tape).
"""
import numpy as np

from . import adjoints as _h
from .core import add as _add

__all__ = [
    "zeros_rows", "unbroadcast_rows", "broadcast_rows", "take_rows", "written_rows", "add_at_rows",
    "add_rows_into",
    "zero_at_rows", "each_row", "expand_rows", "sum_grad_rows", "reshape_rows",
    "transpose_rows", "swapaxes_rows", "moveaxis_rows", "flip_rows", "cumsum_rows",
    "trace_rows", "einsum_slot_rows", "einsum_rows", "dot_rows", "split_rows", "stack_rows",
    "array_rows", "linspace_rows", "builtin_sum_rows", "pick_rows", "extreme_args_rows",
    "from_list_rows", "norm_rows", "logsumexp_rows", "logsumexp_b_rows", "softmax_rows", "log_softmax_rows",
]


def _axis(axis, ndim):
    """``axis`` (an int or tuple, maybe negative) of a row, as axes of the batched array."""
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) % ndim + 1 for a in axis)
    return int(axis) % ndim + 1


def zeros_rows(value, seed):
    """A zero adjoint for ``value`` with one row per row of ``seed``."""
    if isinstance(value, (list, tuple)):
        return [zeros_rows(v, seed) for v in value]
    if isinstance(value, dict):
        return {k: zeros_rows(v, seed) for k, v in value.items()}
    if value is None:
        return 0.0
    value = np.asarray(value)
    dtype = value.dtype if np.issubdtype(value.dtype, np.inexact) else np.float64
    return np.zeros((_rows(seed),) + value.shape, dtype)


def _rows(seed):
    """How many rows a seed has: a list's or dict's seed (one per item) has its items'."""
    while isinstance(seed, (list, tuple, dict)) and len(seed):
        seed = next(iter(seed.values())) if isinstance(seed, dict) else seed[0]
    return len(seed)


def unbroadcast_rows(grad, like):
    """Sum each row of ``grad`` down to the shape of ``like`` (``runtime.unbroadcast``)."""
    shape = np.shape(like)
    gshape = np.shape(grad)
    if len(gshape) == 0 or gshape[1:] == shape:
        return grad
    extra = len(gshape) - 1 - len(shape)
    if extra < 0:  # leading 1-sized axes of ``v`` in ``a[i] = v`` (``runtime.unbroadcast``)
        return np.reshape(unbroadcast_rows(grad, np.broadcast_to(0.0, shape[-extra:])),
                          gshape[:1] + shape)
    if extra > 0:
        grad = np.sum(grad, axis=tuple(range(1, extra + 1)))
    axes = tuple(i + 1 for i, n in enumerate(shape) if n == 1 and np.shape(grad)[i + 1] != 1)
    if axes:
        grad = np.sum(grad, axis=axes, keepdims=True)
    return grad


def broadcast_rows(grad, like):
    """Broadcast each row of ``grad`` to the shape of ``like`` (``runtime.broadcast_like``)."""
    shape = np.shape(like)
    if np.shape(grad)[1:] == shape:
        return grad
    grad = np.asarray(grad)
    lead = grad.shape[:1]
    row = grad.shape[1:]
    if len(row) > len(shape):  # leading 1-sized axes that ``unbroadcast_rows`` restored
        row = row[len(row) - len(shape):]
        grad = grad.reshape(lead + row)
    grad = grad.reshape(lead + (1,) * (len(shape) - len(row)) + row)
    return np.broadcast_to(grad, lead + shape)


def _basic(index):
    if isinstance(index, tuple):
        return all(_basic(i) for i in index)
    return index is None or index is Ellipsis or isinstance(index, (int, np.integer, slice))


def _last(index):
    """``index`` for an array whose row axis was moved to the end."""
    index = index if isinstance(index, tuple) else (index,)
    if any(i is Ellipsis for i in index):
        return index + (slice(None),)
    return index


def _first(index):
    return (slice(None),) + (index if isinstance(index, tuple) else (index,))


def take_rows(grad, index):
    """Row-wise ``grad[index]`` (a list adjoint is indexed as is)."""
    if isinstance(grad, (list, dict)):
        return grad[index]
    if _basic(index):
        return grad[_first(index)]
    # Fancy indices: NumPy may move their axes to the front, so index with
    # the rows last, where no index can reach them.
    return np.moveaxis(np.moveaxis(grad, 0, -1)[_last(index)], -1, 0)


def written_rows(grad, index):
    """``adjoints.written`` on every row."""
    if isinstance(grad, (list, dict)):
        return take_rows(grad, index)
    return take_rows(grad, index) * _h.survivors(grad[0], index)


def add_at_rows(base, index, grad):
    """``runtime.add_at`` on every row: a copy of ``base`` with ``grad`` added at ``[index]``."""
    if isinstance(base, (list, dict)):
        out = base.copy()
        # (A slice of a list adjoint and its list of row adjoints add item by item, not
        # concatenate: ``vals[::-1]``.)
        out[index] = _add(out[index], grad) if isinstance(out[index], list) \
            else out[index] + grad
        return out
    out = np.array(base, dtype=np.result_type(base, grad, np.float16), copy=True)
    if _basic(index):
        out[_first(index)] += grad
    else:
        np.add.at(np.moveaxis(out, 0, -1), _last(index), np.moveaxis(np.asarray(grad), 0, -1))
    return out


def add_rows_into(base, index, grad):
    """``base[index] += grad`` on every row, in place (``base`` is the backward pass's own)."""
    if isinstance(base, (list, dict)):
        base[index] = base[index] + grad
    else:
        base[_first(index)] += grad


def zero_at_rows(base, index, container=None):
    """``runtime.zero_at`` on every row."""
    if isinstance(base, (list, dict)):
        out = base.copy()
        if isinstance(container, dict) and index not in container:
            out.pop(index, None)
        elif container is not None and np.shape(container[index]) != np.shape(out[index])[1:]:
            out[index] = zeros_rows(container[index], out[index])
        else:
            out[index] = out[index] * 0.0
        return out
    out = np.array(base, copy=True)
    if _basic(index):
        out[_first(index)] = 0
    else:
        np.moveaxis(out, 0, -1)[_last(index)] = 0
    return out


def each_row(fn, grad):
    """``fn`` applied to each row of ``grad``, results stacked row-wise.

    For the few rules with no row form (user ``custom_gradient`` functions,
    reshapes in an unusual memory order): only that one rule runs per row.
    """
    if isinstance(grad, (list, tuple)):
        n = len(_first_array(grad))
        rows = [fn([_row(g, k) for g in grad]) for k in range(n)]
    else:
        rows = [fn(grad[k]) for k in range(len(grad))]
    return _stack(rows)


def _first_array(items):
    for g in items:
        if isinstance(g, (list, tuple)):
            return _first_array(g)
        if np.ndim(g) > 0:
            return g
    raise ValueError("no rows to iterate over")


def _row(g, k):
    if isinstance(g, (list, tuple)):
        return [_row(v, k) for v in g]
    return g[k] if np.ndim(g) > 0 else g


def _stack(rows):
    first = rows[0]
    if isinstance(first, (list, tuple)):
        return [_stack([r[j] for r in rows]) for j in range(len(first))]
    if first is None:
        return None
    return np.stack([np.asarray(r) for r in rows])


# -- reductions ----------------------------------------------------------------
def expand_rows(grad, a, axis, keepdims):
    """Rows of a reduction's adjoint with the reduced axes of ``a`` put back as size 1."""
    ndim = np.ndim(a)
    if axis is None:
        return np.reshape(grad, np.shape(grad)[:1] + (1,) * ndim)
    if keepdims:
        return grad
    return np.expand_dims(grad, _axis(axis, ndim))


def sum_grad_rows(grad, a, axis, keepdims):
    """``adjoints.sum_grad`` on every row."""
    grad = expand_rows(grad, a, axis, keepdims)
    return np.broadcast_to(grad, np.shape(grad)[:1] + np.shape(a))


def cumsum_rows(grad, a, axis):
    if axis is None:
        n = len(grad)
        flat = np.reshape(grad, (n, -1))
        return np.reshape(np.flip(np.cumsum(np.flip(flat, 1), 1), 1), (n,) + np.shape(a))
    ax = _axis(axis, np.ndim(a))
    return np.flip(np.cumsum(np.flip(grad, ax), ax), ax)


def trace_rows(grad, a, offset, axis1, axis2):
    shape = np.shape(a)
    mask = np.eye(shape[axis1], shape[axis2], offset)
    spread = np.expand_dims(grad, (-2, -1)) * mask
    return np.moveaxis(spread, (-2, -1), (_axis(axis1, len(shape)), _axis(axis2, len(shape))))


# -- shapes --------------------------------------------------------------------
def reshape_rows(grad, like, order="C"):
    """Each row of ``grad`` reshaped to the shape of ``like``, in ``order``."""
    grad = np.asarray(grad)
    shape = np.shape(like)
    if grad.shape[1:] == shape:
        return grad
    if order == "C":
        return np.reshape(grad, grad.shape[:1] + shape)
    if order == "F":  # rows last, so that Fortran order never mixes two rows
        return np.moveaxis(np.reshape(np.moveaxis(grad, 0, -1), shape + grad.shape[:1], order="F"),
                           -1, 0)
    return each_row(lambda row: np.reshape(row, shape, order=order), grad)


def transpose_rows(grad, axes):
    """``adjoints.transpose_grad`` on every row."""
    ndim = np.ndim(grad) - 1
    if axes is None:
        inverse = tuple(range(ndim - 1, -1, -1))
    else:
        inverse = _h.inverse_axes(tuple(int(a) % ndim for a in axes), ndim)
    return np.transpose(grad, (0,) + tuple(a + 1 for a in inverse))


def swapaxes_rows(grad, axis1, axis2):
    ndim = np.ndim(grad) - 1
    return np.swapaxes(grad, _axis(axis1, ndim), _axis(axis2, ndim))


def moveaxis_rows(grad, source, destination):
    """The adjoint of ``np.moveaxis(a, source, destination)``: move back, on every row."""
    ndim = np.ndim(grad) - 1
    return np.moveaxis(grad, _axis(destination, ndim), _axis(source, ndim))


def flip_rows(grad, axis):
    ndim = np.ndim(grad) - 1
    if axis is None:
        return np.flip(grad, tuple(range(1, ndim + 1)))
    return np.flip(grad, _axis(axis, ndim))


def split_rows(grad, arrays, axis, kind):
    """``adjoints.split_grad`` on every row."""
    shapes = [np.shape(arrays[i]) for i in range(len(arrays))]
    axis, offsets = _h.concat_offsets(shapes, axis, kind)
    ndim = np.ndim(grad)
    axis = axis % (ndim - 1) + 1
    pieces = [reshape_rows(grad[_h.axis_slice(ndim, axis, offsets[i], offsets[i + 1])], arrays[i])
              for i in range(len(arrays))]
    if isinstance(arrays, np.ndarray):
        return np.stack(pieces, axis=1)
    return pieces


def stack_rows(grad, arrays, axis):
    """``adjoints.stack_grad`` on every row."""
    moved = np.moveaxis(grad, _axis(axis, np.ndim(grad) - 1), 1)
    if isinstance(arrays, np.ndarray):
        return moved
    return [moved[:, i] for i in range(len(arrays))]


def array_rows(grad, obj):
    """``adjoints.array_grad`` on every row."""
    grad = reshape_rows(grad, obj)
    if isinstance(obj, (list, tuple)):
        return [_array_item_rows(grad[:, i], obj[i]) for i in range(len(obj))]
    return grad


def _array_item_rows(grad, item):
    if isinstance(item, (list, tuple)):
        return [reshape_rows(grad[:, j], item[j]) for j in range(len(item))]
    return reshape_rows(grad, item)


def from_list_rows(grad, like):
    """``runtime.from_list`` on every row: row adjoints of a list back into ``like``'s form."""
    if isinstance(like, list):
        return grad
    if len(grad) == 0:
        raise ValueError("no rows to iterate over")
    return np.stack([np.asarray(g) for g in grad], axis=1)


# -- products ------------------------------------------------------------------
def einsum_slot_rows(grad, subscripts, operands, i):
    """``adjoints.einsum_slot_grad`` on every row: one more label for the rows."""
    shapes = [np.shape(operands[k]) for k in range(len(operands))]
    spec, insert, target, mask = _h.einsum_slot_plan(subscripts, shapes, i)
    ins, out = spec.split("->")
    label = next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba" if c not in spec)
    slots = ins.split(",")
    slots[i] = label + slots[i]
    arrays = [grad if k == i else operands[k] for k in range(len(operands))]
    result = _h.einsum_list(",".join(slots) + "->" + label + out, arrays)
    if len(insert) > 0:
        result = np.broadcast_to(np.expand_dims(result, tuple(p + 1 for p in insert)),
                                 result.shape[:1] + tuple(target))
    if mask is not None:
        result = result * mask
    return unbroadcast_rows(result, operands[i])


def einsum_rows(grad, subscripts, operands):
    return [einsum_slot_rows(grad, subscripts, operands, i) for i in range(len(operands))]


def dot_rows(grad, a, b, argnum):
    """``adjoints.dot_grad`` on every row."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return grad * (b if argnum == 0 else a)
    if np.ndim(b) <= 2:  # np.dot is np.matmul here, whose helpers broadcast over rows
        return _h.matmul_grad_x1(grad, a, b) if argnum == 0 else _h.matmul_grad_x2(grad, a, b)
    return einsum_slot_rows(grad, _h.dot_subscripts(np.ndim(a), np.ndim(b)), [a, b], argnum)


# -- constructors and builtins -------------------------------------------------
def linspace_rows(grad, like, num, endpoint, axis, which, retstep=False):
    """``adjoints.linspace_grad`` on every row."""
    if retstep:
        return _h.not_differentiable("tape.jacobian through np.linspace(..., retstep=True)")
    weights = _h.linspace_weights(num, endpoint, axis, np.ndim(grad) - 1, which)
    return unbroadcast_rows(np.sum(grad * weights, axis=_axis(axis, np.ndim(grad) - 1)), like)


def builtin_sum_rows(grad, iterable):
    """``adjoints.builtin_sum_grad`` on every row."""
    if isinstance(iterable, np.ndarray):
        row = np.expand_dims(unbroadcast_rows(grad, iterable[0]), 1)
        return np.broadcast_to(row, np.shape(row)[:1] + np.shape(iterable))
    return [unbroadcast_rows(grad, iterable[i]) for i in range(len(iterable))]


def pick_rows(grad, values, index):
    """``adjoints.pick_grad`` on every row."""
    if isinstance(values, np.ndarray):
        grad = np.reshape(grad, np.shape(grad) + (1,))
        return np.where(np.arange(len(values)) == index, grad, 0.0)
    return [grad * (i == index) for i in range(len(values))]


def extreme_args_rows(grad, args, pick):
    """The builtin ``max(*args)``/``min(*args)`` (``pick`` is np.argmax/np.argmin) on every row."""
    if len(args) == 1:
        return [pick_rows(grad, args[0], pick(args[0]))]
    return pick_rows(grad, args, pick(args))


def norm_rows(grad, ans, x, ord, axis, keepdims):
    """``adjoints.norm_grad`` on every row: ``grad`` spread over the reduced axes."""
    axes = _h.norm_plan(ord, axis, np.ndim(x))[1]
    if not keepdims:
        grad = np.expand_dims(grad, tuple(a + 1 for a in axes))
    return grad * _h.norm_grad(np.ones(np.shape(ans)), ans, x, ord, axis, keepdims)


# scipy.special's softmaxes (rules/special.py)

def _row_axis(axis, ndim):
    """``axis`` of a value, as an axis of its adjoint with a leading axis of rows."""
    if axis is None:
        return tuple(range(1, ndim))
    if np.ndim(axis) == 0:  # (an int, a NumPy integer, a 0-d array)
        return int(axis) + 1 if axis >= 0 else int(axis)
    out = []
    for i in range(len(axis)):
        out = out + [axis[i] + 1 if axis[i] >= 0 else axis[i]]
    return tuple(out)


def logsumexp_rows(g, ans, a, axis, b, keepdims, return_sign):
    """``logsumexp_grad`` for rows of ``g``."""
    if return_sign:
        return _h.not_differentiable("scipy.special.logsumexp(..., return_sign=True)")
    weights = np.exp(a - _h.sum_grad(ans, a, axis, keepdims))
    if b is not None:
        weights = weights * b
    return sum_grad_rows(g, a, axis, keepdims) * weights


def logsumexp_b_rows(g, ans, a, axis, b, keepdims, return_sign):
    """``logsumexp_b_grad`` for rows of ``g``."""
    if return_sign:
        return _h.not_differentiable("scipy.special.logsumexp(..., return_sign=True)")
    return unbroadcast_rows(sum_grad_rows(g, a, axis, keepdims)
                            * np.exp(a - _h.sum_grad(ans, a, axis, keepdims)), b)


def softmax_rows(g, ans, axis):
    """``softmax_grad`` for rows of ``g``."""
    return ans * (g - np.sum(g * ans, axis=_row_axis(axis, np.ndim(g)), keepdims=True))


def log_softmax_rows(g, ans, axis):
    """``log_softmax_grad`` for rows of ``g``."""
    return g - np.exp(ans) * np.sum(g, axis=_row_axis(axis, np.ndim(g)), keepdims=True)
