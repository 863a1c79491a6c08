"""The runtime helpers of generated code, in forms Numba compiles (``backend="numba"``).

Generated code calls its helpers as ``_sg.name(...)``; the Numba backend
(``compiler/numba_backend.py``) gives it this module as ``_sg`` instead of
``runtime``. Each helper here is a stub with a Numba ``overload``: it
types the cases it models exactly (scalars, and arrays where shapes agree or
the reduction is whole) and refuses the others with a typing error, which
the backend turns into a ``CompileError`` naming the user's line. A helper
missing here is refused before Numba runs (``HELPERS``).

Importing this module imports Numba.
"""
import math

import numpy as np
from numba import literal_unroll, njit, types
from numba.core.errors import TypingError
from numba.extending import overload


class Refusal(Exception):
    """Raised by compiled code for a case found only when it runs: the backend turns it
    into a ``CompileError`` (``compiler/numba_backend.py``)."""


def _plain(t):
    """The type an Optional holds: generated code starts stacks' variables at None."""
    return t.type if isinstance(t, types.Optional) else t


def _scalar(t):
    return isinstance(_plain(t), (types.Float, types.Integer, types.Boolean))


def _array(t, ndim=None):
    t = _plain(t)
    return isinstance(t, types.Array) and (ndim is None or t.ndim == ndim)


def _refuse(helper, *kinds):
    raise TypingError(f"srcgrad's Numba backend has no form of `{helper}` for "
                      f"{', '.join(str(k) for k in kinds)}")


def zeros_like(value):
    """A zero adjoint for ``value``."""


@overload(zeros_like)
def _zeros_like(value):
    if _scalar(value) or isinstance(value, (types.NoneType, types.Omitted)):
        return lambda value: 0.0
    if _array(value) and isinstance(_plain(value).dtype, types.Float):
        return lambda value: np.zeros(value.shape, value.dtype)
    if _array(value) and isinstance(_plain(value).dtype, (types.Integer, types.Boolean)):
        return lambda value: np.zeros(value.shape, np.float64)
    _refuse("zeros_like", value)


def zeros_into(out, value):
    """``zeros_like(value)`` as ``out`` zeroed: an array of ``value``'s shape and float
    dtype the caller made (``compiler/numba_fast.py``)."""


@overload(zeros_into)
def _zeros_into(out, value):
    if _array(value) and isinstance(_plain(value).dtype, types.Float) and _array(out):
        def into(out, value):
            if out.shape != value.shape:
                raise AssertionError("srcgrad internal error: zeros_into of another shape")
            out[...] = 0
            return out
        return into
    _refuse("zeros_into", value)


def distinct(grads):
    """The gradients as computed: the caller copies any returned twice (``core.distinct``)."""


@overload(distinct)
def _distinct(grads):
    return lambda grads: grads


def check_scalar(value, what):
    """``value``, a scalar; a ``TypeError`` for an array."""


@overload(check_scalar)
def _check_scalar(value, what):
    if _scalar(value):
        return lambda value, what: value
    if _array(value, 0):
        return lambda value, what: value[()]
    if _array(value):
        def fail(value, what):
            raise TypeError("the function must return a scalar to be differentiated "
                            "with grad, but it returned an array; reduce it first (np.sum)")
        return fail
    _refuse("check_scalar", value)


def scalar_seed(value):
    """``1.0``: the seed of the scalar ``check_scalar`` let through."""


@overload(scalar_seed)
def _scalar_seed(value):
    if _scalar(value) or _array(value, 0):
        return lambda value: 1.0
    _refuse("scalar_seed", value)


def check_not_0d(value, name, where, op="+"):
    """Nothing for a number or an array of rank 1 or more (``x += v`` compiled as
    ``x = x + v``); a 0-d array is refused, as the default backend refuses it."""


@overload(check_not_0d)
def _check_not_0d(value, name, where, op="+"):
    if _array(value, 0):
        _refuse("check_not_0d (`+=` on a 0-d array)", value)
    return lambda value, name, where, op="+": None


def update(a, op, b):
    """``a op b`` as an augmented assignment runs it (an array in place)."""


def _updating(op):
    # One function per operator: Numba types each on its own operands.
    scope = {}
    exec(f"def run(a, op, b):\n    a {op} b\n    return a\n", scope)
    return scope["run"]


_UPDATES = {op: _updating(op) for op in
            ("+=", "-=", "*=", "/=", "**=", "%=", "//=", "&=", "|=", "^=", "<<=", ">>=")}


@overload(update, prefer_literal=True)
def _update(a, op, b):
    if isinstance(op, types.StringLiteral) and op.literal_value in _UPDATES:
        return _UPDATES[op.literal_value]
    _refuse("update", op)


def strong_zero(value, seed):
    """``value``, with 0 where ``seed`` is 0 and ``value`` is not finite (runtime/strong.py)."""


@overload(strong_zero)
def _strong_zero(value, seed):
    if _scalar(value) and _scalar(seed):
        return lambda value, seed: 0.0 if seed == 0 and not np.isfinite(value) else value
    if _array(value) and (_scalar(seed) or _array(seed)):
        return lambda value, seed: np.where(~np.isfinite(value) & (seed == 0),
                                            np.zeros_like(value), value)
    _refuse("strong_zero", value, seed)


def ieee_divide(n, d):
    """``n / d``, infinite or NaN where ``d`` is 0, as NumPy's division is (pymath.py)."""


@overload(ieee_divide)
def _ieee_divide(n, d):
    if _scalar(n) and _scalar(d):
        def divide(n, d):
            if d == 0:
                if n == 0 or np.isnan(n):
                    return np.nan
                return np.inf * np.sign(n) * math.copysign(1.0, d)
            return n / d
        return divide
    return lambda n, d: np.divide(n, d)


def ieee_power(x, e):
    """``x ** e``, infinite where ``x`` is 0 and ``e`` negative, as NumPy's power is."""


@overload(ieee_power)
def _ieee_power(x, e):
    if _scalar(x) and _scalar(e):
        def power(x, e):
            if x == 0 and e < 0:
                return np.power(float(x), float(e))
            return x ** e
        return power
    return lambda x, e: np.power(x, e)


def check_not_array(value, name, where, op="+"):
    """``x += v`` on a number; on an array another name may share, refused (as the
    default backend refuses it when it runs)."""


@overload(check_not_array)
def _check_not_array(value, name, where, op="+"):
    if _array(value) or isinstance(_plain(value), types.List):
        _refuse("check_not_array (`+=` on an array another variable may share)", value)
    return lambda value, name, where, op="+": None


def check_unpacked(value, count, where):
    """``a, b = value`` read by position: as Python, refuse another number of items
    (Numba types no dict or set here)."""


@overload(check_unpacked)
def _check_unpacked(value, count, where):
    def check(value, count, where):
        if len(value) != count:
            raise ValueError("the number of values to unpack differs from the names")
    return check


def check_positional(value, where):
    """A loop reading ``value`` by position: nothing to refuse (Numba types no dict or
    set here)."""


@overload(check_positional)
def _check_positional(value, where):
    return lambda value, where: None


def updated_in_place(value):
    """Does ``x += v`` update ``value`` in place (an array, a list)?"""


@overload(updated_in_place)
def _updated_in_place(value):
    shared = _array(value) or isinstance(_plain(value), types.List)
    return lambda value: shared


def writeable(value):
    """``value``: the arrays compiled code makes are writeable; a read-only one passed in
    stays so (a write into it does not compile: refused), and the gradient returned is
    copied from it (``cache._cast``)."""


@overload(writeable)
def _writeable(value):
    return lambda value: value


def copy_slot(value):
    """A snapshot of a value about to be overwritten in place."""


@overload(copy_slot)
def _copy_slot(value):
    if _array(value):
        return lambda value: value.copy()
    if _scalar(value):
        return lambda value: value
    _refuse("copy_slot", value)


def add_at_zeros(like, index, grad):
    """Zeros shaped like ``like`` with ``grad`` added at ``[index]`` (an int or a slice)."""


@overload(add_at_zeros)
def _add_at_zeros(like, index, grad):
    if _array(like) and isinstance(_plain(index), (types.Integer, types.SliceType)):
        def add_at_zeros(like, index, grad):
            base = np.zeros(like.shape, np.float64)
            base[index] += grad
            return base
        return add_at_zeros
    _refuse("add_at_zeros", like, index)


def like(value):
    """``value``, read for its shape and dtype (Numba frees nothing early)."""


@overload(like)
def _like(value):
    return lambda value: value


def add(a, b):
    """Two adjoints accumulated."""


@overload(add)
def _add(a, b):
    if _scalar(a) and _scalar(b) or _same_rank(a, b):
        return lambda a, b: a + b
    _refuse("add", a, b)


def _same_rank(a, b):
    return _array(a) and _array(b) and _plain(a).ndim == _plain(b).ndim


def iadd(total, value):
    """``total + value``."""


@overload(iadd)
def _iadd(total, value):
    if _scalar(total) and _scalar(value) or _same_rank(total, value) \
            or _array(total) and _scalar(value):
        return lambda total, value: total + value
    _refuse("iadd", total, value)


def times_ones(value, ones):
    """``ones * value``."""


@overload(times_ones)
def _times_ones(value, ones):
    return lambda value, ones: ones * value


def sum_grad(grad, a, axis, keepdims):
    """The adjoint of ``np.sum(a)`` over all axes: ``grad`` spread over ``a``."""


@overload(sum_grad)
def _sum_grad(grad, a, axis, keepdims):
    if not isinstance(axis, (types.NoneType, types.Omitted)):
        _refuse("sum_grad (a sum or mean over an axis)", axis)
    if _array(a) and _scalar(grad):
        return lambda grad, a, axis, keepdims: np.full(a.shape, grad)
    if _scalar(a) and _scalar(grad):
        return lambda grad, a, axis, keepdims: grad
    _refuse("sum_grad", grad, a)


def mean_grad(grad, a, axis, keepdims):
    """The adjoint of ``np.mean(a)`` over all axes."""


@overload(mean_grad)
def _mean_grad(grad, a, axis, keepdims):
    # (``sum_grad`` of the scaled seed, as runtime/adjoints.py has it; it refuses the rest.)
    if _array(a):
        return lambda grad, a, axis, keepdims: sum_grad(grad / a.size, a, axis, keepdims)
    return lambda grad, a, axis, keepdims: sum_grad(grad, a, axis, keepdims)


def sigmoid(a, b):
    """``1 / (1 + exp(b - a))``, the derivative of ``np.logaddexp(a, b)`` in ``a``,
    without overflow for large ``|a - b|``."""


@njit
def _sigmoid_of(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@overload(sigmoid)
def _sigmoid(a, b):
    if _scalar(a) and _scalar(b):
        return lambda a, b: _sigmoid_of(a - b)
    if _array(a) and (_scalar(b) or _array(b)):
        def each(a, b):
            z = a - b
            out = np.empty(z.shape)
            for i, v in enumerate(z.flat):
                out.flat[i] = _sigmoid_of(v)
            return out
        return each
    _refuse("sigmoid", a, b)


def matmul_grad_x1(grad, x1, x2):
    """The adjoint for ``x1`` of ``x1 @ x2``, operands of rank 1 or 2."""


def matmul_grad_x2(grad, x1, x2):
    """The adjoint for ``x2`` of ``x1 @ x2``, operands of rank 1 or 2."""


def _ranks(x1, x2):
    return (_plain(x1).ndim if _array(x1) else 0), (_plain(x2).ndim if _array(x2) else 0)


@overload(matmul_grad_x1)
def _matmul_grad_x1(grad, x1, x2):
    ranks = _ranks(x1, x2)
    if ranks == (2, 2):
        return lambda grad, x1, x2: grad @ np.ascontiguousarray(x2.T)
    if ranks == (1, 2):
        return lambda grad, x1, x2: x2 @ grad
    if ranks == (2, 1):
        return lambda grad, x1, x2: np.outer(grad, x2)
    if ranks == (1, 1):
        return lambda grad, x1, x2: grad * x2
    _refuse("matmul_grad_x1", x1, x2)


@overload(matmul_grad_x2)
def _matmul_grad_x2(grad, x1, x2):
    ranks = _ranks(x1, x2)
    if ranks == (2, 2):
        return lambda grad, x1, x2: np.ascontiguousarray(x1.T) @ grad
    if ranks == (1, 2):
        return lambda grad, x1, x2: np.outer(x1, grad)
    if ranks == (2, 1):
        return lambda grad, x1, x2: grad @ x1
    if ranks == (1, 1):
        return lambda grad, x1, x2: grad * x1
    _refuse("matmul_grad_x2", x1, x2)


def dot_grad(grad, a, b, argnum):
    """The adjoint of ``np.dot(a, b)`` for ``a`` (``argnum`` 0) or ``b`` (1), operands of
    rank 0 to 2."""


@overload(dot_grad, prefer_literal=True)
def _dot_grad(grad, a, b, argnum):
    ranks = _ranks(a, b)
    if not isinstance(argnum, types.IntegerLiteral) or max(ranks) > 2:
        _refuse("dot_grad", a, b, argnum)
    first = argnum.literal_value == 0
    if 0 in ranks:
        return (lambda grad, a, b, argnum: grad * b) if first else \
            (lambda grad, a, b, argnum: grad * a)
    return (lambda grad, a, b, argnum: matmul_grad_x1(grad, a, b)) if first else \
        (lambda grad, a, b, argnum: matmul_grad_x2(grad, a, b))


def transpose_grad(grad, axes):
    """The adjoint of ``np.transpose(a)`` (all axes reversed)."""


@overload(transpose_grad)
def _transpose_grad(grad, axes):
    if isinstance(axes, (types.NoneType, types.Omitted)) and _array(grad):
        return lambda grad, axes: np.ascontiguousarray(grad.T)
    _refuse("transpose_grad", grad, axes)


def gather_items(like, items):
    """The adjoint of a vector read item by item: its items' adjoints in one array."""


@overload(gather_items)
def _gather_items(like, items):
    if _array(like, 1):
        def gather(like, items):
            out = np.zeros(like.shape, np.float64)
            for i in range(len(items)):
                out[i] = items[i]
            return out
        return gather
    _refuse("gather_items", like)


def add_at(base, index, grad):
    """A copy of ``base`` with ``grad`` added at ``[index]``, an integer or a slice (no
    repeated indices)."""


@overload(add_at)
def _add_at(base, index, grad):
    if _array(base) and isinstance(_plain(index), (types.Integer, types.SliceType)):
        def add_at(base, index, grad):
            # A copy, as ``core.add_at`` gives: another name may hold ``base``.
            out = base.copy()
            out[index] += grad
            return out
        return add_at
    _refuse("add_at", base, index)


def unbroadcast(grad, like):
    """``grad`` summed down to the shape of ``like``."""


@overload(unbroadcast)
def _unbroadcast(grad, like):
    if _scalar(like) and _scalar(grad):
        return lambda grad, like: grad
    if _scalar(like) and _array(grad):
        return lambda grad, like: grad.sum()
    # Size-1 axes of ``like`` the gradient was broadcast along: summed.
    if _same_rank(grad, like) and _plain(grad).ndim == 1:
        def unbroadcast_1d(grad, like):
            if grad.shape == like.shape:
                return grad
            return np.array([grad.sum()])
        return unbroadcast_1d
    if _same_rank(grad, like) and _plain(grad).ndim == 2:
        def unbroadcast_2d(grad, like):
            if grad.shape == like.shape:
                return np.ascontiguousarray(grad)
            out = np.ascontiguousarray(grad)
            if like.shape[0] == 1 and out.shape[0] != 1:
                out = out.sum(axis=0).reshape((1, out.shape[1]))
            if like.shape[1] == 1 and out.shape[1] != 1:
                out = np.ascontiguousarray(out.sum(axis=1)).reshape((out.shape[0], 1))
            return out
        return unbroadcast_2d
    if _array(grad, 2) and _array(like, 1):
        def leading(grad, like):
            out = np.ascontiguousarray(grad).sum(axis=0)
            if out.shape == like.shape:
                return out
            return np.array([out.sum()])  # (``like`` has one element)
        return leading
    if _same_rank(grad, like):
        def refuse(grad, like):
            if grad.shape != like.shape:
                raise Refusal("summing a gradient down to the size-1 axes of an array "
                              "of rank 3 or more")
            return grad
        return refuse
    _refuse("unbroadcast", grad, like)


def reversed_of(seq):
    """``reversed(seq)`` (Numba has no ``reversed``): a range backwards, or a copy."""


@overload(reversed_of)
def _reversed_of(seq):
    if isinstance(_plain(seq), types.RangeType):
        def backwards(seq):
            n = len(seq)
            return range(seq.start + (n - 1) * seq.step, seq.start - seq.step, -seq.step)
        return backwards
    return lambda seq: seq[::-1]


def stack_new(sample, size=16):
    """An empty stack of numbers of ``sample``'s type: an array (its count is kept
    beside it, ``compiler/numba_stacks.py``)."""


@overload(stack_new)
def _stack_new(sample, size=16):
    if isinstance(sample, (types.Float, types.Integer, types.Boolean)):
        dtype = np.dtype(str(sample))
        return lambda sample, size=16: np.empty(size, dtype)
    _refuse("stack_new", sample)


def stack_grown(stack):
    """A copy of full ``stack`` twice as long (its count is kept beside it)."""


@overload(stack_grown)
def _stack_grown(stack):
    def grown(stack):
        out = np.empty(2 * len(stack), stack.dtype)
        out[:len(stack)] = stack
        return out
    return grown


def stack_reserve(stack, count, extra):
    """``stack`` (``count`` items) with room for ``extra`` more: itself when it has it,
    else a copy of its items ``count + extra`` long (``numba_stacks.py``: before a loop
    whose pushes are counted in advance)."""


@overload(stack_reserve)
def _stack_reserve(stack, count, extra):
    def reserve(stack, count, extra):
        need = count + extra
        if need <= len(stack):
            return stack
        out = np.empty(need, stack.dtype)
        out[:count] = stack[:count]
        return out
    return reserve


def stack_product(a, b):
    """``a * b`` of two trip counts (``numba_stacks.py``'s bounds), refused past 64 bits."""


@overload(stack_product)
def _stack_product(a, b):
    def product(a, b):
        if a < 0 or b < 0 or b > 0 and a > 9223372036854775807 // b:
            raise OverflowError("srcgrad: a stack's bound on its pushes outgrows 64 bits")
        return a * b
    return product


def stack_put(stack, count, value):
    """``stack[count] = value`` in a stack sized in advance (``stack_reserve``): a
    count past its end is srcgrad's error (a wrong bound), raised, never written."""


@overload(stack_put)
def _stack_put(stack, count, value):
    def put(stack, count, value):
        if count >= len(stack):
            raise AssertionError("srcgrad internal error: a stack sized in advance "
                                 "overflowed (its bound on the pushes was wrong)")
        stack[count] = value
    return put


def _finite(value):
    """Are all of ``value``'s numbers finite?"""


@overload(_finite)
def _finite_impl(value):
    if _scalar(value):
        return lambda value: np.isfinite(value)
    if _array(value):
        def every(value):
            for v in value.flat:
                if not np.isfinite(v):
                    return False
            return True
        return every
    if isinstance(value, types.BaseTuple):
        def each(value):
            ok = True
            for v in literal_unroll(value):
                ok = ok and _finite(v)
            return ok
        return each
    if isinstance(value, types.NoneType):
        return lambda value: True
    _refuse("all_finite", value)


@njit
def all_finite(value):
    """What ``runtime.strong.all_finite`` answers, compiled."""
    return _finite(value)


@njit
def finite_of(value):
    """``all_finite``, in the compiled code beside the result it checks (the backend's
    wrapper of the generated code returns both: one call, not two)."""
    return _finite(value)


# The helpers this module has: any other ``_sg.name`` in generated code is refused
# before Numba sees it.
HELPERS = frozenset({"zeros_like", "distinct", "check_scalar", "scalar_seed", "like", "add", "iadd",
                     "times_ones", "sum_grad", "gather_items", "add_at", "unbroadcast", "reversed_of",
                     "check_not_0d", "update", "strong_zero",
                     "ieee_divide", "ieee_power", "mean_grad", "check_not_array",
                     "updated_in_place", "writeable", "copy_slot", "add_at_zeros", "sigmoid",
                     "matmul_grad_x1", "matmul_grad_x2", "dot_grad", "transpose_grad",
                     "stack_new", "stack_grown", "stack_reserve", "stack_put",
                     "stack_product", "zeros_into", "check_unpacked", "check_positional"})
