"""Plain-NumPy helpers that grad expressions in ``rules/`` call as ``_sg.<name>``.

There are three kinds, and the rule tables (``rules/``) say which is which:

- **Differentiable helpers** (most of this file). Written only with constructs
  and primitives the compiler itself supports -- assignments, ``if``/``else``,
  ``for`` over ``range``, ``return``, arithmetic, subscripts, tuple and list
  literals, list comprehensions, and calls to functions that have a rule, are
  in ``NONDIFF``, or are other helpers -- so that the compiler can read and
  differentiate them again for higher derivatives. They never modify their
  arguments in place.
- **Primitive helpers** (``einsum_list``, ``astype``, ``flatten``, ``item``):
  small wrappers with their own entry in ``TABLE``. The compiler uses their rule
  and never reads their body, which may therefore use any Python.
- **Planning helpers** (``einsum_slot_plan``, ``norm_plan``, ...): compute
  shapes, axes, subscripts and masks from non-differentiable inputs. They are
  listed in ``NONDIFF`` and may use any Python.
"""
import math
import string

import numpy as np

__all__ = [
    "shape_of",
    # differentiable
    "sum_grad", "expand_reduced", "sum_to", "reshape_like", "real_grad", "mean_grad",
    "prod_grad", "extreme_grad", "var_grad", "cumsum_grad", "transpose_grad", "clip_grad",
    "clip_bound_grad",
    "matmul_grad_x1", "matmul_grad_x2", "dot_grad", "einsum_grad", "einsum_slot_grad",
    "solve_grad_a", "solve_grad_b", "det_grad", "norm_grad", "unit", "trace_grad", "split_grad",
    "stack_grad", "array_grad", "array_item_grad", "linspace_grad", "builtin_sum_grad",
    "builtin_max_grad", "builtin_min_grad", "pick_grad", "log_grad", "hypot_grad", "nonzero",
    "written", "item_grad",
    # primitives with their own rule
    "broadcast_to", "add_reduce", "sigmoid", "einsum_list", "astype", "flatten", "item",
    "join_r", "join_c", "singular_cofactors", "cofactors_grad", "cofactors_tangent", "arrayed",
    # planning (non-differentiable)
    "einsum_slot_plan", "dot_subscripts", "inner_subscripts", "tensordot_subscripts",
    "einsum_subscripts", "einsum_sublists",
    "inverse_axes", "concat_offsets", "inexact", "flat_scalars", "reduced_size", "axis_slice",
    "item_mask",
    "norm_plan", "linspace_weights", "not_differentiable", "survivors", "memory_order",
]


# ---------------------------------------------------------------------------
# Differentiable helpers
# ---------------------------------------------------------------------------

def shape_of(value):
    """``np.shape(value)``, which reads ``value.shape`` where there is one, without
    NumPy's ``__array_function__`` dispatch (about a microsecond a call, and the adjoints
    of small arrays make many)."""
    try:
        return value.shape
    except AttributeError:
        return np.shape(value)


def sum_grad(grad, a, axis, keepdims):
    """Adjoint of ``np.sum(a, axis, keepdims=keepdims)``: spread ``grad`` back over ``a``."""
    shape = shape_of(a)
    if axis is not None and not keepdims and len(shape):  # (NumPy's scalars take axis=0)
        grad = np.expand_dims(grad, axis)
    return broadcast_to(grad, shape)


def expand_reduced(grad, axis, keepdims, a=None):
    """``grad`` of a reduction of ``a`` over ``axis``, with the reduced axes put back as
    size 1 (none for a NumPy scalar ``a``, which NumPy reduces over ``axis=0``)."""
    if axis is not None and not keepdims and (a is None or np.ndim(a) != 0):
        return np.expand_dims(grad, axis)
    return grad


def sum_to(grad, like):
    """Sum ``grad`` down to the shape of ``like`` (undo broadcasting; no-op if equal)."""
    shape = shape_of(like)
    if shape_of(grad) == shape:
        return grad
    for i in range(np.ndim(grad) - len(shape)):
        grad = np.sum(grad, axis=0)
    for i in range(len(shape)):
        if shape[i] == 1 and shape_of(grad)[i] != 1:
            grad = np.sum(grad, axis=i, keepdims=True)
    return grad


def reshape_like(grad, like):
    """``grad`` reshaped to the shape of ``like`` (returned as is when they agree)."""
    if shape_of(grad) == shape_of(like):
        if shape_of(like) == () and type(like) is np.ndarray and not isinstance(grad, np.ndarray):
            return np.array(grad)  # (a 0-d array's adjoint is indexed as it is: ``g[...]``)
        return grad
    return np.reshape(grad, shape_of(like))


def real_grad(grad, ans):
    """``grad``, or zeros of its shape when the result ``ans`` is not floating (a cast to int)."""
    if inexact(ans):
        return grad
    return np.zeros(shape_of(grad))


def mean_grad(grad, a, axis, keepdims):
    """Adjoint of ``np.mean(a, axis, keepdims=keepdims)``.

    Takes no ``ans``: a gradient that does not return the mean's value need
    not compute it. ``grad`` is scaled before it is spread, while it is small.
    """
    return sum_grad(grad / reduced_size(shape_of(a), axis), a, axis, keepdims)


def prod_grad(grad, a, axis, keepdims):
    """Adjoint of ``np.prod(a, axis, keepdims=keepdims)``, exact when ``a`` has zeros.

    Each element gets the product of the *other* elements of its slice. Slices
    with no zero use ``prod / a``; slices with one or two zeros are written so
    that the result is also right to differentiate once more (second
    derivatives are exact at exact zeros too). No branch divides by zero.
    """
    zero = a == 0
    nonzero = np.where(zero, 1.0, a)
    p = np.prod(nonzero, axis=axis, keepdims=True)
    count = np.sum(zero, axis=axis, keepdims=True)
    # Value 0, but carries the derivative of the slice's zero elements.
    z = np.sum(np.where(zero, a, 0.0), axis=axis, keepdims=True)
    one_zero = np.where(zero, p, z * p / nonzero)
    two_zeros = np.where(zero, (z - a) * p, 0.0)
    others = np.where(count == 0, p / nonzero,
                      np.where(count == 1, one_zero, np.where(count == 2, two_zeros, 0.0)))
    return expand_reduced(grad, axis, keepdims, a) * others


def extreme_grad(grad, ans, a, axis, keepdims):
    """Adjoint of ``np.max``/``np.min``: ``grad`` shared equally by the tied extreme elements."""
    grad = expand_reduced(grad, axis, keepdims, a)
    ans = expand_reduced(ans, axis, keepdims, a)
    mask = a == ans
    return np.where(mask, grad / add_reduce(mask, axis, True), 0.0)


def var_grad(grad, a, axis, ddof, keepdims):
    """Adjoint of ``np.var(a, axis, ddof=ddof, keepdims=keepdims)``."""
    grad = expand_reduced(grad, axis, keepdims)
    n = np.size(a) / np.size(grad)
    centered = a - np.mean(a, axis=axis, keepdims=True)
    return 2.0 * grad * centered / (n - ddof)


def cumsum_grad(grad, a, axis):
    """Adjoint of ``np.cumsum(a, axis)``: a reversed cumulative sum."""
    if axis is None or np.ndim(a) == 0:  # (a NumPy scalar's cumsum over axis=0: one item)
        return np.reshape(np.flip(np.cumsum(np.flip(grad))), shape_of(a))
    return np.flip(np.cumsum(np.flip(grad, axis), axis), axis)


def transpose_grad(grad, axes):
    """Adjoint of ``np.transpose(a, axes)``: transpose back."""
    if axes is None:
        return np.transpose(grad)
    return np.transpose(grad, inverse_axes(axes, np.ndim(grad)))


def clip_grad(grad, a, a_min, a_max, min, max):
    """Adjoint for ``a`` of ``np.clip``: ``grad`` where ``a`` is inside the bounds, else 0.

    ``min``/``max`` are NumPy 2's keyword spellings of ``a_min``/``a_max``.
    """
    # (np.less / np.greater: any operand may be a list, which NumPy reads as an array.)
    if a_min is not None:
        grad = np.where(np.less(a, a_min), 0.0, grad)
    if min is not None:
        grad = np.where(np.less(a, min), 0.0, grad)
    if a_max is not None:
        grad = np.where(np.greater(a, a_max), 0.0, grad)
    if max is not None:
        grad = np.where(np.greater(a, max), 0.0, grad)
    return grad


def clip_bound_grad(grad, a, a_min, a_max, min, max, which):
    """Adjoint for the lower (``which`` 0) or upper (1) bound of ``np.clip(a, ...)``, which
    is ``minimum(maximum(a, low), high)``: the upper bound where ``maximum(a, low)``
    exceeds it (everywhere when ``low > high``, as NumPy documents), the lower where
    ``a`` is below it and the upper does not take over."""
    low = a_min if a_min is not None else min
    high = a_max if a_max is not None else max
    raised = a if low is None else np.maximum(a, low)
    if which == 1:
        return np.where(np.greater(raised, high), grad, 0.0)
    if high is None:
        return np.where(np.less(a, low), grad, 0.0)
    return np.where(np.less(a, low), np.where(np.greater(raised, high), 0.0, grad), 0.0)


def matmul_grad_x1(grad, x1, x2):
    """Adjoint for ``x1`` of ``np.matmul(x1, x2)``, before unbroadcasting the batch axes.

    (Axes are added and dropped by ``np.reshape``: ``np.expand_dims`` and
    ``np.squeeze`` spend microseconds checking their arguments, and generated code
    calls this at every step when the ranks were not known at compile time.)
    """
    if np.ndim(x2) == 1:
        grad = np.reshape(grad, shape_of(grad) + (1,))
        x2 = np.reshape(x2, (1,) + shape_of(x2))
    else:
        x2 = np.swapaxes(x2, -1, -2)
    if np.ndim(x1) == 1:
        shape = shape_of(grad)
        out = np.matmul(np.reshape(grad, shape[:-1] + (1,) + shape[-1:]), x2)
        shape = shape_of(out)
        return np.reshape(out, shape[:-2] + shape[-1:])
    return np.matmul(grad, x2)


def matmul_grad_x2(grad, x1, x2):
    """Adjoint for ``x2`` of ``np.matmul(x1, x2)``, before unbroadcasting the batch axes."""
    if np.ndim(x2) == 1:
        grad = np.reshape(grad, shape_of(grad) + (1,))
    if np.ndim(x1) == 1:
        shape = shape_of(grad)
        grad = np.reshape(grad, shape[:-1] + (1,) + shape[-1:])
        x1 = np.reshape(x1, shape_of(x1) + (1,))
    else:
        x1 = np.swapaxes(x1, -1, -2)
    if np.ndim(x2) == 1:
        out = np.matmul(x1, grad)
        return np.reshape(out, shape_of(out)[:-1])
    return np.matmul(x1, grad)


def dot_grad(grad, a, b, argnum):
    """Adjoint for ``a`` (``argnum`` 0) or ``b`` (1) of ``np.dot(a, b)``, before unbroadcasting."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        if argnum == 0:
            return grad * b
        return grad * a
    if np.ndim(b) <= 2:
        # Here np.dot(a, b) is np.matmul(a, b).
        if argnum == 0:
            return matmul_grad_x1(grad, a, b)
        return matmul_grad_x2(grad, a, b)
    return einsum_slot_grad(grad, dot_subscripts(np.ndim(a), np.ndim(b)), [a, b], argnum)


def einsum_grad(grad, subscripts, operands):
    """Adjoints of all operands of ``np.einsum(subscripts, *operands)``: a list."""
    return [einsum_slot_grad(grad, subscripts, operands, i) for i in range(len(operands))]


def einsum_slot_grad(grad, subscripts, operands, i):
    """Adjoint of ``operands[i]`` of ``np.einsum(subscripts, *operands)``.

    An einsum of ``grad`` with the other operands (``einsum_slot_plan`` writes
    its subscripts), then spread over the axes that einsum cannot produce
    (repeated and summed-only labels) and summed over broadcast axes.
    """
    shapes = [shape_of(operands[k]) for k in range(len(operands))]
    spec, insert, target, mask = einsum_slot_plan(subscripts, shapes, i)
    arrays = [grad if k == i else operands[k] for k in range(len(operands))]
    result = einsum_list(spec, arrays)
    if len(insert) > 0:
        result = np.broadcast_to(np.expand_dims(result, insert), target)
    if mask is not None:
        result = result * mask
    return sum_to(result, operands[i])


def solve_grad_b(grad, a, b):
    """Adjoint for ``b`` of ``x = np.linalg.solve(a, b)``, before unbroadcasting."""
    at = np.swapaxes(a, -1, -2)
    if np.ndim(b) == 1:
        return np.squeeze(np.linalg.solve(at, np.expand_dims(grad, -1)), -1)
    return np.linalg.solve(at, grad)


def solve_grad_a(grad, ans, a, b):
    """Adjoint for ``a`` of ``ans = np.linalg.solve(a, b)``, before unbroadcasting."""
    gb = solve_grad_b(grad, a, b)
    if np.ndim(b) == 1:
        return -(np.expand_dims(gb, -1) * np.expand_dims(ans, -2))
    return -np.matmul(gb, np.swapaxes(ans, -1, -2))


def det_grad(grad, ans, a):
    """Adjoint of ``np.linalg.det(a)``: ``grad`` times the cofactor matrix of ``a``.

    That is ``det(a) * inv(a).T`` where ``a`` is invertible. A singular ``a``
    has no inverse but may well have cofactors (rank ``n - 1``): they come
    from the SVD there. ``det`` and ``inv`` factor ``a`` alike, so
    ``det(a) != 0`` is exactly when ``inv`` succeeds. Near a singular matrix the inverse's
    entries are huge and cancel (the cofactors are not): its derivative, the code of second
    derivatives, would be noise. There, too, the SVD's; the test is Hadamard's bound,
    ``|det(a)|`` at most the product of the rows' norms.
    """
    bound = np.prod(np.sqrt(np.sum(a * a, axis=-1)), axis=-1)
    if np.all(np.abs(ans) > 1e-8 * bound):
        scale = np.expand_dims(grad * ans, (-2, -1))
        return scale * np.swapaxes(np.linalg.inv(a), -1, -2)
    return np.expand_dims(grad, (-2, -1)) * singular_cofactors(a)


def singular_cofactors(a):
    """Cofactor matrix of (a stack of) square matrices, singular ones included.

    With ``a = u @ diag(s) @ vt``: ``det(u) det(vt) u @ diag(prod of s but s_i) @ vt``.
    The products of the other singular values are taken from both ends, so
    no zero is divided by.
    """
    u, s, vt = np.linalg.svd(a)
    ones = np.ones(shape_of(s)[:-1] + (1,))
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(s[..., 1:], -1)], axis=-1),
                               axis=-1), -1)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    return np.expand_dims(sign, (-2, -1)) * ((u * np.expand_dims(before * after, -2)) @ vt)


def _cofactor_minors(a):
    """(pairs of distinct indices, the signed minors of ``a`` without the rows of one pair
    and the columns of another, a one-hot map from pairs to their second index): what the
    derivative of the cofactors is made of (``cofactors_grad``, ``cofactors_tangent``)."""
    n = shape_of(a)[-1]
    pairs = np.array([(i, k) for i in range(n) for k in range(n) if i != k])
    first, second = pairs[:, 0], pairs[:, 1]
    rest = np.array([[r for r in range(n) if r not in p] for p in pairs.tolist()],
                    dtype=np.intp).reshape(len(pairs), n - 2)
    minors = np.linalg.det(a[..., rest[:, None, :, None], rest[None, :, None, :]])
    # (the sign of C[i, j], then of a[k, l]'s place in a without row i and column j)
    place = second - (second > first)
    sign = (-1.0) ** (first[:, None] + first[None, :] + place[:, None] + place[None, :])
    return first, second, sign * minors


def cofactors_tangent(a, a_dot):
    """Forward mode's tangent of ``singular_cofactors(a)`` along ``a_dot`` (exact at any
    matrix: from minors, as ``cofactors_grad``)."""
    return _through_minors(a_dot, a, transposed=False)


def cofactors_grad(grad, a):
    """Adjoint of ``singular_cofactors(a)``: a second derivative of ``det``, exact at any
    matrix. The cofactor ``C[i, j]`` changes with ``a[k, l]`` (``k != i``, ``l != j``) by the
    signed minor of ``a`` without rows ``i, k`` and columns ``j, l``; no inverse is taken."""
    return _through_minors(grad, a, transposed=True)


def _through_minors(v, a, transposed):
    """The cofactors' derivative at ``a`` applied to ``v``: along ``v`` (a change of ``a``:
    read at each pair's second index, summed into its first) or, ``transposed``, to ``v``
    (an adjoint of the cofactors: read at the first, summed into the second)."""
    n = shape_of(a)[-1]
    if n < 2:
        return np.zeros(np.broadcast_shapes(shape_of(v), shape_of(a)))
    first, second, signed = _cofactor_minors(a)
    read, into = (first, second) if transposed else (second, first)
    terms = v[..., read[:, None], read[None, :]] * signed
    to_index = (into[:, None] == np.arange(n)).astype(float)  # pair p -> its index there
    return np.swapaxes(to_index, 0, 1) @ terms @ to_index


def norm_grad(grad, ans, x, ord, axis, keepdims):
    """Adjoint of ``np.linalg.norm(x, ord, axis, keepdims)``.

    Supported: vector norms of any order, and the matrix norms ``'fro'``,
    ``1``, ``-1``, ``inf`` and ``-inf``. The 2-norm gets the subgradient 0 at
    ``x == 0``; ties of max/min norms share the gradient equally.
    """
    kind, axes, sum_axes, extreme_axes, p = norm_plan(ord, axis, np.ndim(x))
    if not keepdims:
        grad = np.expand_dims(grad, axes)
        ans = np.expand_dims(ans, axes)
    if kind == "l2":
        return x * (grad / np.where(ans == 0, 1.0, ans))
    if kind == "l1":
        return unit(x) * grad
    if kind == "lp":
        # 0 where x is 0 (the abs kink; |x| ** (p - 1) is infinite there for
        # p < 1) and where the norm is 0 (for p < 0 one zero element makes it 0).
        size = np.abs(x)
        scale = grad / np.where(ans == 0, 1.0, ans) ** (p - 1.0)
        slope = unit(x) * np.where(size == 0, 1.0, size) ** (p - 1.0) * scale
        return np.where(ans == 0, 0.0, slope)
    if kind == "l0":
        return np.zeros(shape_of(x))
    sums = np.sum(np.abs(x), axis=sum_axes, keepdims=True)
    if kind == "max":
        best = np.max(sums, axis=extreme_axes, keepdims=True)
    else:
        best = np.min(sums, axis=extreme_axes, keepdims=True)
    mask = np.where(sums == best, 1.0, 0.0)
    return unit(x) * mask * grad / np.sum(mask, axis=extreme_axes, keepdims=True)


def unit(value):
    """``value / |value|`` (0 at 0): the gradient of ``|value|``, ``np.sign`` for real
    values (written without np.sign, which code differentiated again would refuse on
    complex ones: ``rules/complexes.py``)."""
    if np.iscomplexobj(value):
        r = np.abs(value)
        return value / np.where(r == 0, 1.0, r)
    return np.where(value > 0, 1.0, np.where(value < 0, -1.0, 0.0))


def trace_grad(grad, a, offset, axis1, axis2):
    """Adjoint of ``np.trace(a, offset, axis1, axis2)``: ``grad`` on that diagonal."""
    shape = shape_of(a)
    mask = np.eye(shape[axis1], shape[axis2], offset)
    spread = np.expand_dims(grad, (-2, -1)) * mask
    return np.moveaxis(spread, (-2, -1), (axis1, axis2))


def split_grad(grad, arrays, axis, kind):
    """Adjoints of the pieces joined by ``np.concatenate``/``hstack``/``vstack``: a list.

    ``kind`` names the joining function (see ``concat_offsets``). Piece ``i`` is
    the slice of ``grad`` that came from ``arrays[i]``, reshaped to its shape;
    an ndarray ``arrays`` gets an ndarray.
    """
    shapes = [shape_of(arrays[i]) for i in range(len(arrays))]
    axis, offsets = concat_offsets(shapes, axis, kind)
    ndim = np.ndim(grad)
    pieces = [reshape_like(grad[axis_slice(ndim, axis, offsets[i], offsets[i + 1])], arrays[i])
              for i in range(len(arrays))]
    if isinstance(arrays, np.ndarray):
        return np.stack(pieces)
    return pieces


def join_r(items):
    """``np.r_[a, b, ...]`` of arrays and numbers (its adjoint splits like ``concatenate``)."""
    return np.r_[tuple(items)]


def join_c(items):
    """``np.c_[a, b, ...]`` of arrays and numbers."""
    return np.c_[tuple(items)]


def stack_grad(grad, arrays, axis):
    """Adjoints of the arrays joined by ``np.stack(arrays, axis)``: a list."""
    moved = np.moveaxis(grad, axis, 0)
    if isinstance(arrays, np.ndarray):
        return moved
    return [moved[i] for i in range(len(arrays))]


def array_grad(grad, obj):
    """Adjoint of ``np.array(obj)``/``np.asarray(obj)``.

    For an array (or scalar) ``obj`` the identity; for a list or tuple a list of
    adjoints, one per element (nested one level further for lists of lists;
    deeper levels get arrays).
    """
    if isinstance(obj, (list, tuple)):
        if flat_scalars(obj, shape_of(grad)):  # np.array([a, b]): no shapes to check
            return [grad[i] for i in range(len(obj))]
        grad = reshape_like(grad, obj)
        return [array_item_grad(grad[i], obj[i]) for i in range(len(obj))]
    return reshape_like(grad, obj)


def array_item_grad(grad, item):
    """Adjoint of one element of a list given to ``np.array`` (see ``array_grad``)."""
    if isinstance(item, (list, tuple)):
        return [reshape_like(grad[j], item[j]) for j in range(len(item))]
    return reshape_like(grad, item)


def linspace_grad(grad, like, num, endpoint, axis, which, retstep=False):
    """Adjoint for ``start`` (``which`` 0) or ``stop`` (1) of ``np.linspace``; with
    ``retstep`` ``grad`` is the pair of the samples' and the step's adjoints, the step
    ``(stop - start) / (num - 1)`` (``/ num`` without the end point)."""
    if not retstep:
        weights = linspace_weights(num, endpoint, axis, np.ndim(grad), which)
        return sum_to(np.sum(grad * weights, axis=axis), like)
    weights = linspace_weights(num, endpoint, axis, np.ndim(grad[0]), which)
    intervals = num - 1 if endpoint else num
    if intervals < 1:
        return not_differentiable("np.linspace(..., retstep=True) of one sample (its step is NaN)")
    slope = (1.0 if which == 1 else -1.0) / intervals
    return sum_to(np.sum(grad[0] * weights, axis=axis) + grad[1] * slope, like)


def builtin_sum_grad(grad, iterable):
    """Adjoint of the builtin ``sum(iterable, start)`` for ``iterable``.

    An ndarray (summed over axis 0) gets an ndarray; a list or tuple a list.
    """
    if isinstance(iterable, np.ndarray):
        return np.broadcast_to(sum_to(grad, iterable[0]), shape_of(iterable))
    return [sum_to(grad, iterable[i]) for i in range(len(iterable))]


def builtin_max_grad(grad, args):
    """Adjoints of the builtin ``max(*args)``: ``grad`` for the first largest value."""
    if len(args) == 1:
        return [pick_grad(grad, args[0], np.argmax(args[0]))]
    return pick_grad(grad, args, np.argmax(args))


def builtin_min_grad(grad, args):
    """Adjoints of the builtin ``min(*args)``: ``grad`` for the first smallest value."""
    if len(args) == 1:
        return [pick_grad(grad, args[0], np.argmin(args[0]))]
    return pick_grad(grad, args, np.argmin(args))


def pick_grad(grad, values, index):
    """Adjoint of ``values[index]`` for a list (a list) or a 1-d array (an array)."""
    if isinstance(values, np.ndarray):
        return np.where(np.arange(len(values)) == index, grad, 0.0)
    return [grad * (i == index) for i in range(len(values))]


def log_grad(grad, x, base):
    """Adjoint for ``x`` of ``math.log(x)`` or ``math.log(x, base)``."""
    if base is None:
        return grad / x
    return grad / (x * math.log(base))


def hypot_grad(grad, ans, coordinates):
    """Adjoints of ``math.hypot(*coordinates)``: a list (0 at the origin)."""
    return [grad * coordinates[i] / nonzero(ans) for i in range(len(coordinates))]


def written(grad, index):
    """The part of adjoint ``grad`` that reaches ``v`` in ``a[index] = v``: ``grad[index]``
    where the write lasts. A repeated fancy index writes its slot several
    times and NumPy keeps the last; the earlier writes get no gradient."""
    if isinstance(grad, (list, dict)):
        return grad[index]  # the adjoint of a list or dict: an item is one slot
    return grad[index] * survivors(grad, index)


def survivors(like, index):
    """True where an element of ``like[index] = v`` is the last write to its slot."""
    if not any(isinstance(i, (np.ndarray, list)) for i in _index_parts(index)):
        return True  # ints and slices (also read from arrays at run time) write a slot once
    slots = np.arange(np.size(like)).reshape(shape_of(like))[index]
    flat = np.ravel(slots)
    last = flat.size - 1 - np.unique(flat[::-1], return_index=True)[1]
    keep = np.zeros(flat.size, dtype=bool)
    keep[last] = True
    return keep.reshape(shape_of(slots))


def arrayed(a):
    """``a`` as NumPy reads an array_like operand: a list or tuple becomes an array,
    anything else is returned as it is.

    Grad expressions compute with their operands as arrays (``x2 - 1``, ``x1 > 0``,
    ``x * x``), where a Python list or tuple would repeat, fail or compare as a whole
    (``x ** [1.0, 2.0]``, ``np.interp([0.5], [0.0, 1.0], fp)``). A Python float stays
    a float, so that it keeps promoting like a Python scalar (``float32 ** (y - 1)``).
    A primitive helper: its rule is ``np.asarray``'s (``rules/shapes.py``).
    """
    if isinstance(a, (list, tuple)):
        return np.asarray(a)
    return a


def nonzero(x):
    """``x`` with its zeros replaced by 1.

    The divisor of an adjoint whose numerator is 0 where ``x`` is (``hypot``,
    ``std``, ``arctan2`` at their kinks): the subgradient 0 there, not 0 / 0.
    """
    return np.where(x == 0, 1.0, x)


def _index_parts(index):
    return index if isinstance(index, tuple) else (index,)


# ---------------------------------------------------------------------------
# Primitives with their own rule in TABLE (bodies never differentiated)
# ---------------------------------------------------------------------------

# Below this many elements a spread adjoint is a new array: filling it costs less than
# making a view (about 5 microseconds of Python at any size).
_SMALL = 4096


def broadcast_to(array, shape):
    """``np.broadcast_to(array, shape)``'s values: a read-only view, without NumPy's
    argument handling, or for a small ``shape`` an array of its own (no other name can
    reach it, so nothing written into it is seen elsewhere).

    ``np.broadcast_to`` spends about 2 microseconds in Python before it makes
    the view; for a contiguous array the view is one ``np.ndarray`` call.
    """
    if type(array) is not np.ndarray:
        if type(array) not in (float, np.float64):
            return np.broadcast_to(array, shape)
        if 0 < math.prod(shape) <= _SMALL:  # (a scalar seed spread: sum and mean adjoints)
            out = np.empty(shape)
            out.fill(array)
            return out
        array = np.asarray(array)
    extra = len(shape) - array.ndim
    if extra >= 0 and math.prod(shape) <= _SMALL and not array.dtype.hasobject:
        out = np.empty(shape, array.dtype)
        np.copyto(out, array)  # (broadcast as np.broadcast_to would, or its ValueError)
        return out
    if extra < 0 or not array.flags.c_contiguous or array.dtype.hasobject or array.size == 0:
        return np.broadcast_to(array, shape)
    strides = [0] * extra
    for n, m, stride in zip(shape[extra:], array.shape, array.strides):
        if m == n:
            strides.append(stride)
        elif m == 1:
            strides.append(0)
        else:
            return np.broadcast_to(array, shape)  # NumPy's error
    out = np.ndarray(shape, array.dtype, array, 0, strides)
    out.flags.writeable = False
    return out


def add_reduce(a, axis, keepdims):
    """``np.sum(a, axis, keepdims=keepdims)`` without ``np.sum``'s Python-level dispatch."""
    return np.add.reduce(a, axis=axis, keepdims=keepdims)


def sigmoid(a, b):
    """``1 / (1 + exp(b - a))``: the derivative of ``np.logaddexp(a, b)`` in ``a``.

    Needs no ``ans``, so a gradient that does not return the value need not
    compute the ``logaddexp``; and neither overflows nor loses the tails for
    large ``|a - b|``. Where ``exp(-z)`` is finite everywhere (all but far negative
    ``z``), ``1 / (1 + exp(-z))`` in one buffer, exact in both tails; elsewhere
    written three ways, the fastest for each size: NumPy's per-call cost decides
    below a few hundred elements, memory traffic above.
    """
    z = a if type(b) in (int, float) and b == 0 else np.subtract(a, b)
    if type(z) is float or type(z) is np.float64:  # scalar code: no NumPy calls
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)
    if type(z) is np.ndarray and z.ndim and z.dtype.kind == "f" and z.size \
            and z.min() >= _exp_limit(z.dtype):  # (NaN: not >=, below)
        e = np.negative(z)
        np.exp(e, out=e)
        e += 1.0
        np.reciprocal(e, out=e)
        return e
    if type(z) is not np.ndarray or z.size < 512 or z.dtype.kind != "f":
        # (Not ``exp(z - logaddexp(z, 0))``: inf - inf where ``b`` is -inf, hunt 11.)
        return np.exp(-np.logaddexp(0.0, -z))
    if z.size <= 4096:
        e = np.exp(-np.abs(z))
        r = 1.0 / (1.0 + e)
        return np.where(z >= 0, r, e * r)
    # Large arrays: the same in two buffers (half the peak memory, and faster).
    e = np.abs(z)
    np.negative(e, out=e)
    np.exp(e, out=e)
    r = e + 1.0
    np.reciprocal(r, out=r)
    e *= r
    np.copyto(e, r, where=z >= 0)
    return e


_EXP_LIMITS = {}  # dtype char -> the least z whose exp(-z) is finite (with a margin)


def _exp_limit(dtype):
    limit = _EXP_LIMITS.get(dtype.char)
    if limit is None:
        limit = _EXP_LIMITS[dtype.char] = 1.0 - float(np.log(np.finfo(dtype).max))
    return limit


def einsum_list(subscripts, operands):
    """``np.einsum(subscripts, *operands)`` with the operands as one list."""
    big = sum(np.size(op) for op in operands) > 4096
    return np.einsum(subscripts, *operands, optimize="greedy" if big else False)


def astype(a, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """``a.astype(...)`` as a function (the ``astype`` method's primitive)."""
    return np.asarray(a).astype(dtype, order=order, casting=casting, subok=subok, copy=copy)


def flatten(a, order="C"):
    """``a.flatten(order)`` as a function: a copy, never a view."""
    return np.asarray(a).flatten(order)


def item(a, *index):
    """``a.item(*index)`` as a function: the one element, or the element at a flat index
    or at a multi-index (a tuple, or one int per axis)."""
    return np.asarray(a).item(*index)


def item_grad(grad, a, index, lead=0):
    """Adjoint of ``item(a, *index)``: ``grad`` at the element read, zeros elsewhere
    (``lead``: 1 for a leading axis of seed rows on ``grad``)."""
    mask = item_mask(shape_of(a), index)
    return mask * np.reshape(grad, shape_of(grad)[:lead] + (1,) * np.ndim(mask))


def item_mask(shape, index):
    """Ones at the element ``a.item(*index)`` reads in an array of ``shape``, else zeros."""
    mask = np.zeros(shape)
    if not index:
        mask[...] = 1.0
        return mask
    position = index[0] if len(index) == 1 else index
    if np.ndim(position) == 0:  # a flat index
        position = np.unravel_index(int(position) % max(math.prod(shape), 1), shape)
    mask[tuple(int(p) for p in position)] = 1.0
    return mask


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

def not_differentiable(what):
    """Raise for a case a rule cannot differentiate (never a silent wrong gradient)."""
    from ..errors import NotDifferentiableError
    raise NotDifferentiableError(f"srcgrad: {what} is not differentiable")


def einsum_subscripts(subscripts, where):
    """``subscripts`` if it is a string: ``np.einsum(s, a, b)`` where the code computes ``s``
    (the string form); an array there is the sublist form, which the compiler could not
    tell and so refuses."""
    if isinstance(subscripts, str):
        return subscripts
    from ..errors import CompileError
    raise CompileError(
        f"np.einsum's first argument is a {type(subscripts).__name__}, not a subscripts "
        "string: the sublist form with a first operand that is not differentiated and "
        "sublists the code computes", where,
        remedy="pass the subscripts string: np.einsum('ij,jk->ik', A, B)")


def einsum_sublists(sublists, where):
    """The subscripts string of ``np.einsum(op0, sub0, op1, sub1, ..., [out])``:
    ``sublists`` holds the operands' sublists, then the output's (None if not given)."""
    *inputs, output = sublists
    return ",".join(_sublist_letters(s, where) for s in inputs) + (
        "" if output is None else "->" + _sublist_letters(output, where))


def _sublist_letters(sublist, where):
    letters = string.ascii_letters
    out = []
    for axis in sublist:
        if axis is Ellipsis:
            out.append("...")
        elif isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) \
                and 0 <= axis < len(letters):
            out.append(letters[axis])
        else:
            from ..errors import CompileError
            raise CompileError(f"np.einsum's sublist {sublist!r} holds {axis!r}, not an axis "
                               "number (0 to 51) or Ellipsis", where)
    return "".join(out)


def _letters(used):
    return [c for c in string.ascii_letters if c not in used]


def _einsum_explicit(subscripts, shapes):
    """Input and output subscripts of an einsum with ``...`` replaced by letters."""
    if not isinstance(subscripts, str):
        not_differentiable("np.einsum in the operand/sublist form (use a subscripts string)")
    subs = subscripts.replace(" ", "")
    lhs, arrow, out = subs.partition("->")
    ins = lhs.split(",")
    rank = [len(shape) - (len(s) - 3) if "..." in s else 0 for s, shape in zip(ins, shapes)]
    ell = "".join(_letters(set(subs))[:max(rank, default=0)])
    ins = [s.replace("...", ell[len(ell) - r:] if r else "") for s, r in zip(ins, rank)]
    if arrow:
        out = out.replace("...", ell)
    else:
        labels = "".join(ins)
        once = sorted(c for c in set(labels) if labels.count(c) == 1 and c not in ell)
        out = ell + "".join(once)
    return ins, out


def einsum_slot_plan(subscripts, shapes, i):
    """Plan the adjoint of operand ``i`` of ``np.einsum(subscripts, *operands)``.

    Returns ``(spec, insert, target, mask)``: the einsum ``spec`` to apply to
    the operands with operand ``i`` replaced by the output's adjoint; the axes
    to ``insert`` into its result (labels repeated in operand ``i`` or only
    summed there); the ``target`` shape to broadcast to; and a 0/1 ``mask``
    selecting the diagonals of repeated labels (or ``None``).
    """
    ins, out = _einsum_explicit(subscripts, shapes)
    sizes = {}
    for s, shape in zip(ins, shapes):
        for c, n in zip(s, shape):
            sizes[c] = max(sizes.get(c, 1), n)
    others = set(out).union(*[set(s) for k, s in enumerate(ins) if k != i])
    mine, shape = ins[i], tuple(shapes[i])
    kept, insert, target, seen = "", [], [], set()
    for p, c in enumerate(mine):
        if c in seen or c not in others:
            insert.append(p)
            target.append(shape[p])
        else:
            kept += c
            target.append(sizes[c])
        seen.add(c)
    mask = None
    if len(seen) < len(mine):
        index = np.indices(shape, sparse=True)
        mask = np.ones(shape)
        for c in seen:
            first = mine.index(c)
            for p in range(first + 1, len(mine)):
                if mine[p] == c:
                    mask = mask * (index[first] == index[p])
    slots = [out if k == i else s for k, s in enumerate(ins)]
    return ",".join(slots) + "->" + kept, tuple(insert), tuple(target), mask


def dot_subscripts(ndim_a, ndim_b):
    """Einsum subscripts equal to ``np.dot`` of arrays of these ranks."""
    a = string.ascii_letters[:ndim_a]
    b = string.ascii_letters[ndim_a:ndim_a + ndim_b]
    if ndim_a == 0 or ndim_b == 0:
        return f"{a},{b}->{a}{b}"
    k = -2 if ndim_b >= 2 else -1
    b = b.replace(b[k], a[-1])
    return f"{a},{b}->{a[:-1]}{b.replace(a[-1], '')}"


def inner_subscripts(ndim_a, ndim_b):
    """Einsum subscripts equal to ``np.inner`` of arrays of these ranks."""
    a = string.ascii_letters[:ndim_a]
    b = string.ascii_letters[ndim_a:ndim_a + ndim_b]
    if ndim_a == 0 or ndim_b == 0:
        return f"{a},{b}->{a}{b}"
    b = b[:-1] + a[-1]
    return f"{a},{b}->{a[:-1]}{b[:-1]}"


def tensordot_subscripts(ndim_a, ndim_b, axes):
    """Einsum subscripts equal to ``np.tensordot(a, b, axes)``."""
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(ndim_a - axes, ndim_a)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    axes_a = [ax % ndim_a for ax in axes_a]
    axes_b = [ax % ndim_b for ax in axes_b]
    a = list(string.ascii_letters[:ndim_a])
    b = list(string.ascii_letters[ndim_a:ndim_a + ndim_b])
    for ax_a, ax_b in zip(axes_a, axes_b):
        b[ax_b] = a[ax_a]
    out = [c for p, c in enumerate(a) if p not in axes_a]
    out += [c for p, c in enumerate(b) if p not in axes_b]
    return "".join(a) + "," + "".join(b) + "->" + "".join(out)


def inverse_axes(axes, ndim):
    """The permutation that undoes ``np.transpose(x, axes)`` (negative axes allowed)."""
    return tuple(np.argsort([ax % ndim for ax in axes]))


def concat_offsets(shapes, axis, kind="concatenate"):
    """``(axis, offsets)`` of the pieces joined by ``np.concatenate``, ``hstack``, ``vstack``, ``r_`` or ``c_``.

    ``kind`` chooses the joining function; for ``axis=None`` (concatenate of
    flattened arrays) the returned axis is 0.
    """
    if kind == "vstack":
        shapes = [shape if len(shape) >= 2 else (1, *shape, 1)[:2] for shape in shapes]
        axis = 0
    elif kind == "hstack":
        axis = 0 if all(len(shape) <= 1 for shape in shapes) else 1
        shapes = [shape if len(shape) >= 1 else (1,) for shape in shapes]
    elif kind == "r_":  # np.r_[...]: scalars become 1-D, then axis 0
        shapes = [shape if len(shape) >= 1 else (1,) for shape in shapes]
        axis = 0
    elif kind == "c_":  # np.c_[...]: scalars and 1-D arrays become columns, then the last axis
        shapes = [shape if len(shape) >= 2 else (*shape, 1, 1)[:2] for shape in shapes]
        axis = len(shapes[0]) - 1
    if axis is None:
        sizes = [math.prod(shape) for shape in shapes]
        axis = 0
    else:
        sizes = [shape[axis] for shape in shapes]
    return axis, [0, *np.cumsum(sizes).tolist()]


def inexact(value):
    """Does ``value`` have a floating or complex dtype? (``np.issubdtype`` costs 5x more.)"""
    return np.result_type(value).kind in "fc"


_SCALAR_TYPES = (float, int, np.floating, np.integer)


def flat_scalars(seq, shape):
    """Is ``seq`` a list of scalars, and ``shape`` that of ``np.array(seq)``?"""
    return shape == (len(seq),) and all(type(v) in _SCALAR_TYPES or isinstance(v, np.generic)
                                        and v.ndim == 0 for v in seq)


def reduced_size(shape, axis):
    """How many elements a reduction over ``axis`` of an array of ``shape`` combines."""
    if axis is None:
        return math.prod(shape)
    axes = axis if isinstance(axis, tuple) else (axis,)
    return math.prod(shape[i] for i in axes)


def axis_slice(ndim, axis, start, stop):
    """The index ``x[start:stop]`` along ``axis`` of an ``ndim``-d array."""
    index = [slice(None)] * ndim
    index[axis] = slice(start, stop)
    return tuple(index)


def norm_plan(ord, axis, ndim):
    """Classify ``np.linalg.norm(x, ord, axis)``.

    Returns ``(kind, axes, sum_axes, extreme_axes, p)``: ``kind`` is ``'l2'``
    (also ``'fro'``), ``'l1'``, ``'lp'`` (order ``p``), ``'l0'``, or
    ``'max'``/``'min'`` (the norm is the max/min over ``extreme_axes`` of the
    sums of ``|x|`` over ``sum_axes``); ``axes`` are the reduced axes.
    """
    if axis is None:
        if ord is None or ord == "fro":
            return "l2", tuple(range(ndim)), (), (), 2.0
        axis = tuple(range(ndim))
    elif np.ndim(axis) == 0:  # (an int, a NumPy integer, a 0-d array)
        axis = (int(axis),)
    axes = tuple(int(ax) % ndim for ax in axis)
    if len(axes) == 1:
        if ord is None or ord == 2:
            return "l2", axes, (), (), 2.0
        if ord == 1:
            return "l1", axes, (), (), 1.0
        if ord == 0:
            return "l0", axes, (), (), 0.0
        if ord == np.inf:
            return "max", axes, (), axes, math.inf
        if ord == -np.inf:
            return "min", axes, (), axes, -math.inf
        if isinstance(ord, str):
            not_differentiable(f"np.linalg.norm with ord={ord!r} on vectors")
        return "lp", axes, (), (), float(ord)
    if len(axes) != 2:
        not_differentiable(f"np.linalg.norm over axes {axis}")
    rows, cols = axes
    if ord is None or ord == "fro":
        return "l2", axes, (), (), 2.0
    if ord in (1, -1):
        return ("max" if ord == 1 else "min"), axes, (rows,), (cols,), float(ord)
    if ord in (np.inf, -np.inf):
        return ("max" if ord > 0 else "min"), axes, (cols,), (rows,), float(ord)
    not_differentiable(f"np.linalg.norm with matrix ord={ord!r} (needs an SVD)")


def linspace_weights(num, endpoint, axis, ndim, which):
    """d(np.linspace)/d(start) (``which`` 0) or d/d(stop) (1), to broadcast along ``axis``."""
    t = np.linspace(0.0, 1.0, num, endpoint=endpoint)
    weights = 1.0 - t if which == 0 else t
    shape = [1] * ndim
    shape[axis] = num
    return np.reshape(weights, shape)


def memory_order(a, order):
    """The order in which a reshape of ``a`` in ``order`` reads its elements, for its
    adjoint to read them back alike: ``'A'`` is ``'F'`` for an array Fortran- and not
    C-contiguous, else ``'C'``; ``'K'`` (``np.ravel``'s memory order) is the same for
    such arrays, and refused for one neither C- nor F-contiguous."""
    if order != "A" and order != "K":
        return order
    flags = getattr(a, "flags", None)
    if flags is None:  # a number or a list: NumPy reads it in C order
        return "C"
    if flags.f_contiguous and not flags.c_contiguous:
        return "F"
    if order == "K" and not flags.c_contiguous:
        return not_differentiable("np.ravel(..., order='K') of an array neither C- nor "
                                  "F-contiguous (its memory order)")
    return "C"
