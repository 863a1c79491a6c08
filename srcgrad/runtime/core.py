"""The core helpers generated code calls as ``_sg.<name>``: adjoint buffers and items.

Everything here either has a rule in ``rules/helpers.py`` or is listed as
non-differentiable there, so that generated adjoint code can itself be
differentiated (``sg.grad(sg.grad(f))``).
"""
import collections
import dataclasses
import functools
import itertools
import math
import operator
import sys

import numpy as np

from ..errors import NotDifferentiableError
from ..variables import Variable, read_only
from .attributes import MissingAttribute

__all__ = [
    "unbroadcast", "broadcast_like", "zeros_like", "tangent_zeros", "add", "iadd", "update", "check_not_0d",
    "check_array", "check_row_index", "stored_grad", "add_at", "add_at_zeros", "times_ones", "is_source",
    "add_to_sources", "sources_grad", "as_held",
    "gather_items", "zero_at", "copy_slot", "copy_value", "dict_values", "dict_values_grad", "dict_values_grad_grad", "save_slot", "restore_slot", "check_has_key", "repeat_grad", "repeats", "concat_grad", "HELD", "read_value", "Like", "like",
    "seed_like", "check_not_array", "check_not_view",
    "check_item_read", "check_arrays_added", "distinct", "upstream", "as_list", "from_list", "check_scalar", "scalar_seed", "attempting", "attempted", "caught", "try_tail", "rolled_back",
    "custom_adjoints", "writeable", "UNBOUND", "dict_keys", "dict_sorted", "dict_counted", "dict_has", "check_unpack", "check_count", "check_zip", "field", "field_grad",
    "field_index", "new_object", "set_attributes", "tangent", "set_tangent", "enter_context", "exit_context", "check_item_update", "check_slice_length", "updated_in_place",
    "value_copy", "check_field", "as_arguments", "taken", "snapshot", "put_back",
    "check_unpacked", "check_positional",
]


_SCALARS = frozenset({float, int, np.float64, np.float32, np.float16, np.longdouble})


_SHAPED = (np.ndarray, np.generic)
_CONTAINERS = frozenset({list, tuple})


def _shape(value):
    # ``np.shape`` dispatches through ``__array_function__``; arrays know their shape.
    return value.shape if isinstance(value, _SHAPED) or type(value) is Like else np.shape(value)


def unbroadcast(grad, like):
    """Sum ``grad`` down to the shape of ``like``: the adjoint of broadcasting."""
    if type(like) in _SCALARS and type(grad) in _SCALARS:
        return grad  # the common case in scalar loops, without np.shape
    if type(like) in _CONTAINERS and type(grad) in _CONTAINERS:
        # An item of a list that is itself a list or tuple (``layers[i]`` = (W, b)):
        # containers do not broadcast; their items may.
        return type(grad)(unbroadcast(g, l) for g, l in zip(grad, like))
    shape = _shape(like)
    gshape = _shape(grad)
    if gshape == shape:
        return grad
    extra = len(gshape) - len(shape)
    if extra < 0:
        return _restore_leading_ones(grad, gshape, shape)
    # One reduction for all axes: ``np.add.reduce`` skips ``np.sum``'s Python dispatch.
    if shape == ():
        return np.add.reduce(grad, axis=None)
    ones = tuple(extra + i for i, n in enumerate(shape) if n == 1 and gshape[extra + i] != 1)
    if not ones:
        return np.add.reduce(grad, axis=tuple(range(extra)))
    out = np.add.reduce(grad, axis=tuple(range(extra)) + ones, keepdims=True)
    return out.reshape(shape) if extra else out


def _restore_leading_ones(grad, gshape, shape):
    """The adjoint of ``v`` in ``a[i] = v`` where ``v`` has leading 1-sized axes the slots lack
    (NumPy drops them). Any other adjoint smaller than its value is a bug: say so."""
    lead = len(shape) - len(gshape)
    if any(n != 1 for n in shape[:lead]):
        raise ValueError(f"srcgrad internal error: an adjoint of shape {gshape} for a value "
                         f"of shape {shape}")
    return np.reshape(unbroadcast(grad, np.broadcast_to(0.0, shape[lead:])), shape)


def broadcast_like(grad, like):
    """Broadcast ``grad`` to the shape of ``like``: the adjoint of ``unbroadcast``."""
    if type(like) in _CONTAINERS and type(grad) in _CONTAINERS:
        return type(grad)(broadcast_like(g, l) for g, l in zip(grad, like))
    shape = np.shape(like)
    gshape = np.shape(grad)
    if gshape == shape:
        return grad
    if len(gshape) > len(shape):  # leading 1-sized axes that ``unbroadcast`` restored
        grad = np.reshape(grad, gshape[len(gshape) - len(shape):])
    return np.broadcast_to(grad, shape)


def tangent_zeros(value):
    """A zero tangent for ``value`` in forward mode, where a tuple's tangent is a tuple
    (``(0.7,) + pair``: the tangents concatenate as the values do); else ``zeros_like``'s."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(tangent_zeros(v) for v in value)
    return zeros_like(value)


def zeros_like(value):
    """A zero adjoint for ``value``: 0.0, a float array, or a list of them (a dict for a
    dict or a dataclass: its fields').

    ``None`` stands for a variable not bound on this path; its adjoint is 0.0.
    """
    if type(value) is np.ndarray or type(value) is Like:  # (the usual value, first)
        return np.zeros(value.shape, value.dtype if value.dtype.kind in "fc" else np.float64)
    if type(value) is float:  # (then numbers, as below)
        return 0.0
    if type(value) is np.float64:
        return np.float64(0)
    if isinstance(value, (list, tuple)):
        return [zeros_like(v) for v in value]
    if isinstance(value, collections.Counter):  # (its adjoint too reads a key it lacks as 0: _holds)
        return collections.Counter({k: zeros_like(v) for k, v in value.items()})
    if isinstance(value, dict):
        return {k: zeros_like(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: zeros_like(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Variable):  # (its value: not a read of it as itself, _note_read)
        return zeros_like(value.read_value())
    if type(value) is MissingAttribute:  # (an attribute the code sets before any read)
        return 0.0
    if hasattr(value, "__array__") and not isinstance(value, np.generic):
        return zeros_like(np.asarray(value))
    if isinstance(value, np.generic):
        if np.issubdtype(value.dtype, np.inexact):
            return value.dtype.type(0)
        return np.float64(0)
    return 0.0


def add(a, b):
    """Accumulate two adjoints; lists (adjoints of lists and tuples) add elementwise,
    and so do tuples (never concatenated)."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape \
            or type(a) is float and type(b) is float:
        return a + b  # (the usual pair, before the tests below that it passes)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return [add(x, y) for x, y in zip(a, b)]
    if isinstance(a, dict) and isinstance(b, dict):
        total = {k: add(a[k], b[k]) for k in a}
        return collections.Counter(total) if isinstance(a, collections.Counter) else total
    # A list's adjoint from list operations and one from NumPy reading it as an array
    # (``np.mean(lst)``): row by row, keeping the list the list operations pop from.
    if isinstance(a, (list, tuple)) and _rows_of(b, a):
        return [add(x, y) for x, y in zip(a, b)]
    if isinstance(b, (list, tuple)) and _rows_of(a, b):
        return [add(x, y) for x, y in zip(a, b)]
    if isinstance(a, _STRUCTURES) != isinstance(b, _STRUCTURES):
        return _plus_zero_seed(a, b)
    if type(a) is np.ndarray and type(b) is np.ndarray and a.shape != b.shape:
        # A seed's stale shape would broadcast the other (fuzzer 35151:845: (3,) + (2, 3)).
        if _is_seed(b) and _is_zero(b):
            return a
        if _is_seed(a) and _is_zero(a):
            return b
    elif type(a) is np.ndarray and a.ndim and type(b) is not np.ndarray:
        # ... and so would it a number's (a dict item written, through an alias, with an
        # array where a number was: fuzzer 35191:319).
        if _is_seed(a) and _is_zero(a):
            return b
    elif type(b) is np.ndarray and b.ndim and type(a) is not np.ndarray:
        if _is_seed(b) and _is_zero(b):
            return a
    try:
        return a + b
    except ValueError:
        return _plus_zero_seed(a, b)


_STRUCTURES = (list, tuple, dict)


def _rows_of(array, items):
    return type(array) is np.ndarray and array.ndim > 0 and len(array) == len(items)


def _plus_zero_seed(a, b):
    """``a + b`` where they do not match: fine only if one of them is zeros, which adds
    nothing whatever its structure. A tape seeds an output no gradient asks for with
    zeros of its structure at the block's end, which is not the structure where it
    meets this adjoint when a dict item was rebound to another shape after another
    name took the dict (``n = m; m['w'] = v``: fuzzer 779:70)."""
    zero_a, zero_b = _is_zero(a), _is_zero(b)
    if zero_a and zero_b:  # the seed has the stale structure, computed zeros the right one
        return b if _is_seed(a) and not _is_seed(b) else a
    if zero_b:
        return a
    if zero_a:
        return b
    return a + b


def _is_seed(value):
    """A tape's zero seed: read-only zero-stride arrays (or a list or dict of them)."""
    return _every_leaf(value, lambda v: type(v) is np.ndarray and not v.flags.writeable
                       and not any(v.strides))


def _is_zero(value):
    """Zeros, or a list, tuple or dict of them (only where adjoints do not match)."""
    def zero(v):
        try:
            return not np.any(v)
        except (TypeError, ValueError):
            return False
    return _every_leaf(value, zero)


def _every_leaf(value, test):
    if isinstance(value, (list, tuple)):
        return all(_every_leaf(v, test) for v in value)
    if isinstance(value, dict):
        return all(_every_leaf(v, test) for v in value.values())
    return test(value)


def times_ones(value, ones):
    """``ones * value``, where ``ones`` is the seed 1.0 spread over a shape (``sum_grad``
    of 1.0: the adjoint of each element of a summed loss).

    For float64 and complex128 arrays the product is ``value`` itself, broadcast to
    the product's shape: a read-only view, no array computed or held (peak
    memory). Other values are multiplied, as written (their dtype changes).
    """
    if type(value) is np.ndarray and (value.dtype == np.float64 or value.dtype == np.complex128):
        shape = ones.shape
        if value.shape == shape:
            # Read-only: ``value`` may be an argument or a value the caller sees, and a
            # gradient that is this view is copied before it is returned (``_cast``), so
            # that updating the gradient in place cannot change the argument.
            return read_only(value)
        return np.broadcast_to(value, np.broadcast_shapes(value.shape, shape))
    return ones * value


_IN_PLACE_MIN = 256  # elements


def iadd(total, value):
    """``total + value``, computed into ``total`` where NumPy gives the same array: an
    adjoint buffer the backward code made and nothing else holds (``Reverse.acc``'s
    OWN), of ``value``'s shape, of a dtype ``value``'s casts to safely. No new array
    per accumulation (a loop adding into one adjoint keeps one). Small arrays are
    added as written: there the checks would cost more than a new array."""
    if type(total) is np.ndarray and total.size >= _IN_PLACE_MIN and total.base is None \
            and total.flags.writeable:
        kind = type(value)
        if kind is float or kind is int:
            if total.dtype.kind in "fc":
                total += value
                return total
        elif kind is np.ndarray and value.shape == total.shape \
                and (value.dtype == total.dtype or np.can_cast(value.dtype, total.dtype, "safe")):
            total += value
            return total
    return total + value


_UPDATES = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
            "/=": operator.itruediv, "**=": operator.ipow, "@=": operator.imatmul,
            "%=": operator.imod, "//=": operator.ifloordiv, "&=": operator.iand,
            "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
            ">>=": operator.irshift}


def update(a, op, b):
    """``a op b`` as Python runs an augmented assignment (``a -= b`` updates an array in
    place, so its views and other names see it, and binds a new number): for statements
    no gradient flows through, which run as written."""
    return _UPDATES[op](a, b)


def _is_basic_index(index):
    if isinstance(index, tuple):
        return all(_is_basic_index(i) for i in index)
    return index is None or index is Ellipsis or isinstance(index, (int, np.integer, slice))


def _holds(adjoint, index):
    """Does the adjoint of a container have an item at ``index``? A ``Counter``'s may not:
    it reads a key it does not hold as 0, a constant with no adjoint. (Any other
    container's missing item is an error: it raised running forward.)"""
    return not isinstance(adjoint, collections.Counter) or index in adjoint


def _plain_update(dtype, index, grad):
    """Is ``a[index] += grad`` on a float array of ``dtype`` the whole of ``add_at``'s
    work: a slice or an int, and a gradient of that dtype (no cast, no ``np.add.at``)?"""
    return dtype.kind == "f" and (type(index) is slice or type(index) is int) \
        and (type(grad) is float or type(grad) is np.ndarray and grad.dtype is dtype)


def add_at(base, index, grad):
    """A copy of adjoint ``base`` with ``grad`` added at ``base[index]``.

    Repeated fancy indices accumulate (``np.add.at``), as the adjoint of a
    gather must.
    """
    if type(base) is np.ndarray and _plain_update(base.dtype, index, grad):
        out = base.copy()  # (the usual call, a slice's adjoint: its dtype is the base's)
        out[index] += grad
        return out
    if isinstance(base, (list, dict)):
        out = base.copy()
        if not _holds(out, index):
            return out
        out[index] = add(out[index], grad)
        return out
    out = np.array(base, dtype=np.result_type(base, grad, np.float16), copy=True)
    if _is_basic_index(index):
        out[index] += grad
    else:
        np.add.at(out, index, grad)
    if out.ndim == 0 and not isinstance(base, np.ndarray):
        return out[()]  # the adjoint of a NumPy scalar (``s[()]``, ``s[...]``) stays a scalar
    return out


def add_at_zeros(like, index, grad):
    """Zeros shaped like ``like`` with ``grad`` added at ``[index]``: the adjoint of ``like[index]``.

    ``add_at(zeros_like(like), index, grad)`` without copying the fresh zeros.
    """
    if (type(like) is np.ndarray or type(like) is Like) and _plain_update(like.dtype, index, grad):
        base = np.zeros(like.shape, like.dtype)  # (the usual call, as below)
        base[index] += grad
        return base
    base = zeros_like(like)
    if isinstance(base, (list, dict)):
        if _holds(base, index):
            base[index] = add(base[index], grad)
        return base
    if not isinstance(base, np.ndarray):
        # ``s[()]`` / ``s[...]`` of a NumPy scalar (a reduction's np.float64): NumPy
        # scalars take no item assignment, so add into a 0-d array and give a scalar back.
        return add_at(base, index, grad)
    kind = getattr(grad, "dtype", None)  # (``dtype == None`` is True in NumPy: test ``is``)
    if type(grad) is not float and (kind is None or kind != base.dtype):
        dtype = np.result_type(base, grad)  # a complex adjoint, or a wider one
        if dtype != base.dtype:
            base = base.astype(dtype)
    if _is_basic_index(index):
        base[index] += grad
    else:
        np.add.at(base, index, grad)
    return base


def gather_items(like, items):
    """The adjoint of ``like[0], ..., like[n - 1]`` read one by one, from their adjoints ``items``.

    ``alpha, beta = p[0], p[1]`` gives one array ``[dalpha, dbeta]`` where
    item-by-item updates of a zero array would cost four calls. Items of
    ``like`` past ``n`` get zeros.
    """
    if (type(like) is np.ndarray or type(like) is Like) and like.shape == (len(items),) \
            and like.dtype == np.float64:
        for v in items:
            if type(v) is not np.float64 and type(v) is not float:
                break
        else:
            return np.array(items)  # float64, as the zeros updated item by item would be
    out = zeros_like(like)
    if isinstance(out, (list, dict)):
        for i, item in enumerate(items):
            out[i] = add(out[i], item)
        return out
    dtype = np.result_type(out, *items)  # as if each item were added apart (add_at)
    if dtype != out.dtype:
        out = out.astype(dtype)
    for i, item in enumerate(items):
        out[i] += item
    return out


def zero_at(base, index, container=None):
    """A copy of adjoint ``base`` with ``base[index]`` set to zero. ``container``: the
    list or dict ``base`` is the adjoint of, its item at ``index`` as it was before the
    write being undone (the zeros take its shape; a key the write added goes)."""
    if isinstance(base, (list, dict)):
        out = base.copy()
        if container is None:
            out[index] = zeros_like(out[index])
        elif isinstance(container, dict) and index not in container:
            out.pop(index, None)
        else:
            out[index] = zeros_like(container[index])
        return out
    out = np.array(base, copy=True)
    out[index] = 0
    return out


def save_slot(container, key):
    """``copy_slot(container[key])``, or ``MISSING`` for a key a dict does not hold yet
    (the write about to happen adds it; ``restore_slot`` takes it out again)."""
    if type(container) is dict and key not in container:
        return MISSING
    return copy_slot(container[key])


def check_has_key(container, key, where):
    """Code differentiated again reads ``save_slot`` as ``copy_slot(container[key])``
    (``passes/desugar.py``): a key the write adds cannot be undone there (no ``del``)."""
    if type(container) is dict and key not in container:
        from ..errors import CompileError
        raise CompileError(f"a write adding the key {key!r} to a dict (in code "
                           f"differentiated twice) is not supported", where,
                           remedy="build the dict with every key it will hold")


def restore_slot(container, key, value):
    if value is MISSING:
        del container[key]
    else:
        container[key] = value


def copy_slot(value):
    """A snapshot of a value about to be overwritten in place."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return list(value)
    return value


def copy_value(value, name, where):
    """``copy.copy(v)`` / ``copy.deepcopy(v)`` of an array or a number (the compiler
    builds a dict, list or tuple whose keys or length it knows anew, item by item)."""
    if isinstance(value, np.ndarray) and type(value) is np.ndarray:
        return value.copy()
    if isinstance(value, (int, float, complex, np.generic)) or value is None:
        return value
    from ..errors import CompileError

    raise CompileError(
        f"`{name}()` of a {type(value).__name__} holding differentiable values: srcgrad copies "
        "arrays and numbers, and dicts, lists and tuples whose keys or length the code shows",
        where, remedy="build the copy as a display: {k: v.copy() for k, v in p.items()}, "
        "[v.copy() for v in xs]")


def repeats(count):
    """Does ``seq * count`` of a list or tuple repeat it (an integer count, as Python's
    ``list.__mul__`` takes), rather than multiply it as NumPy does (an array count)?"""
    try:
        operator.index(count)
    except TypeError:
        return False
    return True


def repeat_grad(grad, seq, count):
    """Adjoint of ``seq * count`` for a list or tuple: the copies' adjoints summed; for
    an array (a name the compiler took for a list), or a list times an array (NumPy's
    product), of the product."""
    if not isinstance(seq, (list, tuple)):
        return unbroadcast(grad * count, seq)
    if not repeats(count):
        return list(unbroadcast(grad * count, np.asarray(seq)))
    n = len(seq)
    out = [grad[i] for i in range(n)]
    for k in range(1, len(grad) // n):
        out = [add(out[i], grad[k * n + i]) for i in range(n)]
    return out


def concat_grad(grad, a, b, which, lead):
    """Adjoint of operand ``which`` of ``a + b`` for lists or tuples (a slice of the
    adjoint list); for arrays (names the compiler took for lists), of the sum."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return grad[:len(a)] if which == 0 else grad[len(a):]
    if lead:
        raise NotDifferentiableError("srcgrad: a sum of arrays the compiler took for a list "
                                     "concatenation is not differentiable by rows (jacobian)")
    return unbroadcast(grad, a if which == 0 else b)


# While a tape runs a block's adjoint code: Variable -> the array the block
# read, for Variables assigned since the block ran (see GradientTape._vjp).
HELD = [None]


def is_source(read, source):
    """Is ``read`` (a Variable a nested tape's block read from where it is stored) the
    source ``source``, given as the Variable or as the array it holds?"""
    if read is source:
        return True
    return any(a is b for a in _held_forms(read) for b in _held_forms(source))


def _held_forms(value):
    """What stands for ``value`` in a tape's compiled block: a Variable and its array (or
    the array held for it, ``HELD``). (A block with nested tapes is given a 0-d
    Variable's array, not its NumPy scalar: ``tape.run_compiled``.)"""
    if not isinstance(value, Variable):
        return (value,)
    return value, read_value(value)


def as_held(value):
    """``value`` itself: a nested tape's sources named as they are held (a Variable, not
    read as its array), to be matched by identity (``is_source``)."""
    return value


def add_to_sources(grads, read, sources, grad):
    """``grads`` (the adjoints of a nested tape's sources, in their structure: ``[W1, W2]``
    bound to one name, a dict of them) with ``grad`` added where ``sources`` holds ``read``
    (a Variable the block read where it is stored); a source given as itself, the same.
    (A list or dict watched whole and read whole, ``np.stack(net.ws)``: the very one.)"""
    if isinstance(sources, (list, tuple, dict)) and read is sources:
        return add(grads, grad)
    if isinstance(sources, (list, tuple)):
        return [add_to_sources(g, read, s, grad) for g, s in zip(grads, sources)]
    if isinstance(sources, dict):
        return {k: add_to_sources(grads[k], read, s, grad) for k, s in sources.items()}
    return add(grads, grad) if is_source(read, sources) else grads


def sources_grad(grads, read, sources, like, lead=0):
    """What ``add_to_sources`` added ``like`` to, summed: its adjoint for ``grad`` (``lead``
    axes of rows on each adjoint). Zeros where ``sources`` does not hold ``read``."""
    picked = []

    def pick(g, s):
        if isinstance(s, (list, tuple, dict)) and read is s:
            picked.append(g)
        elif isinstance(s, (list, tuple)):
            for gi, si in zip(g, s):
                pick(gi, si)
        elif isinstance(s, dict):
            for k, si in s.items():
                pick(g[k], si)
        elif is_source(read, s):
            picked.append(g)
        else:
            leaves.append(g)

    leaves = []
    pick(grads, sources)
    if picked:
        return functools.reduce(add, picked)
    rows = np.shape(leaves[0])[:lead] if leaves else ()
    return np.zeros(rows + np.shape(like)) if rows else zeros_like(like)


def read_value(value):
    """A Variable's array (a tape reads Variables through this); anything else as is."""
    read = getattr(value, "read_value", None)
    if read is None:
        return value
    held = HELD[0]
    if held and isinstance(value, Variable) and value in held:
        return held[value]
    return read()


class Like:
    """An array's shape and dtype without its data (``np.shape``/``np.size`` work on it)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    def __repr__(self):
        return f"Like(shape={self.shape}, dtype={self.dtype})"


def value_copy(value):
    """``Variable.numpy()`` of a Variable the compiled code reads as its array: a copy of
    it, a NumPy scalar when 0-d (no gradient flows through it)."""
    value = np.asarray(value)
    return value[()] if value.ndim == 0 else value.copy()


def like(value):
    """A stand-in for an array read only for its shape and dtype: no memory of its own.

    Lets generated code free a forward value early (``passes/lifetimes.py``).
    """
    if type(value) is np.ndarray and value.ndim > 0:
        return Like(value.shape, value.dtype)
    return value


def seed_like(value):
    """The default seed of a tape's gradient: ones shaped like the target."""
    if type(value) is np.float64 or type(value) is float:  # (a loss: a reduction's value)
        return np.ones((), np.float64)
    if type(value) is np.ndarray and value.dtype.kind in "fc":
        return np.ones(value.shape, value.dtype)
    return np.ones_like(np.asarray(value), dtype=np.result_type(np.asarray(value).dtype, np.float16))


def check_not_array(value, name, where, op="+"):
    """Refuse ``x += v`` (``op`` is ``+``) on an array that another variable may also reach.

    srcgrad compiles ``x += v`` as ``x = x + v``; for an array shared with
    another name Python would update both, so the gradient would be wrong.
    """
    if isinstance(value, (np.ndarray, list)):
        from ..errors import CompileError

        kind = "an array" if isinstance(value, np.ndarray) else "a list"
        raise CompileError(
            f"in-place update `{name} {op}= ...` of {kind} that another variable may share", where,
            remedy=f"write `{name} = {name} {op} ...`, or copy it first with `{name} = {name}.copy()`")


def check_array(value, call, where):
    """Refuse ``a.sort()`` (``fill``, ``partition``, ``put``) on what is not an ndarray:
    srcgrad compiles the call as the store into an array it is (``a[...] = np.sort(a)``)."""
    if type(value) is not np.ndarray:
        from ..errors import CompileError

        raise CompileError(
            f"`{call}` is compiled as a write into an ndarray, and this is a "
            f"{type(value).__name__}", where,
            remedy="bind the new value instead (`lst = sorted(lst)`), or make it an array first")


_NO_INDEX = object()


def check_row_index(value, target, where, *rows, index=_NO_INDEX):
    """Refuse ``K[i][j] = v`` (compiled as ``K[i, j] = v``) unless ``K`` is an array and
    each of ``rows`` (``i``; ``i, j`` of ``T[i][j][k]``) an integer: then ``K[i]`` is a
    view of a row, written through. ``index``, the last index where it is one value
    known only when running (``j``), may be an integer, a slice, or an index array, not
    a tuple (``T[i][(1, 2)]`` is ``T[i, 1, 2]``, not ``T[i, (1, 2)]``)."""
    from ..errors import CompileError

    remedy = ("index the array at once (`K[i, j] = v`), or build a list of lists as new lists "
              "(`K[i] = K[i][:j] + [v] + K[i][j + 1:]`)")
    if type(value) is not np.ndarray:
        raise CompileError(
            f"`{target} = ...` writes through `[{rows[0]!r}]` of a "
            f"{type(value).__name__}: srcgrad compiles it as a write into an array's row",
            where, remedy=remedy)
    for i in rows:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise CompileError(
                f"`{target} = ...` writes through `[{i!r}]` of an array: srcgrad compiles "
                "it as one write into the array, which is that write only for integer "
                f"indices, and this is a {type(i).__name__}", where, remedy=remedy)
    if index is not _NO_INDEX and (isinstance(index, (tuple, bool, np.bool_))
                                   or isinstance(index, np.ndarray) and index.dtype == object):
        raise CompileError(
            f"`{target} = ...` indexes a row with a {type(index).__name__} ({index!r}): "
            "srcgrad compiles it as one write into the array, which is that write only for "
            "an integer, a slice or an index array", where,
            remedy="index the array at once (`K[i, j, k] = v`)")


def check_not_0d(value, name, where, op="+"):
    """Refuse ``x += v`` on a 0-d array: srcgrad compiles the update of a private array as
    ``x = x + v``, which NumPy gives as a number for a 0-d ``x``, where ``+=`` keeps the
    array (so other names of it see a later update too)."""
    if type(value) is np.ndarray and value.ndim == 0:
        from ..errors import CompileError

        raise CompileError(
            f"in-place update `{name} {op}= ...` of a 0-d array (NumPy keeps it an array that "
            "other names share; srcgrad's compiled update gives a number)", where,
            remedy=f"write `{name} = {name} {op} ...`, or make it a number first with "
                   f"`{name} = float({name})`")


def enter_context(manager):
    """``manager.__enter__()``: a context that changes only how events are reported
    (``passes/contexts.py``); what ``with ... as`` binds."""
    return manager.__enter__()


def exit_context(manager):
    """``manager.__exit__`` of a block that ended normally."""
    manager.__exit__(None, None, None)


def updated_in_place(value):
    """Does ``x += v`` update ``value`` in place (an array, a list, a dict), so that every
    name of it sees the update (a number is replaced)?"""
    return isinstance(value, (np.ndarray, list, dict))


def check_item_update(container, index, name, where):
    """Refuse ``a[i] += v`` where ``a`` is not an array and its item is one (or a list):
    Python updates that item in place, an object another variable may hold, where
    srcgrad stores a new one. (Items of arrays, and numbers, are not updated in place.)"""
    if isinstance(container, np.ndarray):
        return
    item = container[index]
    if isinstance(item, (np.ndarray, list)):
        from ..errors import CompileError

        raise CompileError(
            f"in-place update `{name}[...] op= ...` of an item of a "
            f"{type(container).__name__} that is an array, which another variable may hold",
            where, remedy=f"write `{name}[i] = {name}[i] + ...`")


def check_slice_length(container, index, value, name, where):
    """Refuse ``lst[i:j] = items`` where a list's slice and the items differ in length:
    Python then grows or shrinks the list, which srcgrad's adjoint (item for item) does
    not model. (Into an array, NumPy broadcasts or raises: nothing to check.)"""
    if not isinstance(container, list):
        return
    from ..errors import CompileError

    if not hasattr(value, "__len__"):  # (an iterator: how many items, only taking them tells)
        raise CompileError(f"`{name}[i:j] = ...` of a list from a {type(value).__name__}",
                           where, remedy="make the items a list first: list(...)")
    if len(container[index]) != len(value):
        raise CompileError(
            f"`{name}[i:j] = ...` replaces {len(container[index])} items of a list with "
            f"{len(value)}, which changes its length", where,
            remedy=f"build a new list: `{name} = {name}[:i] + [...] + {name}[j:]`")


def check_not_view(value, base, name, where):
    """Refuse ``a[0], a[1] = a[1], a[0]`` when the items read are views of ``a``.

    Python reads both right-hand items before the first write, but a row of a
    2-D array is a view: the second write then copies the row the first write
    changed. srcgrad's adjoint would see the values as read, so it refuses;
    items of a 1-D array are copies and pass.
    """
    if isinstance(value, np.ndarray) and isinstance(base, np.ndarray) \
            and np.shares_memory(value, base):
        from ..errors import CompileError

        raise CompileError(
            f"`{name}` is a view of the array this assignment writes into, so the write "
            "changes it before it is stored", where,
            remedy=f"copy the items read first (`{name}.copy()`), or swap with fancy indexing: "
                   "`a[[0, 1]] = a[[1, 0]]`")


def check_arrays_added(a, b, where):
    """Refuse ``a + b`` (or ``*``) the compiler took for arrays where it joins or repeats
    lists or tuples (slices of a list whose kind it could not tell)."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        from ..errors import CompileError

        raise CompileError(
            "slices of a list or tuple joined or repeated where srcgrad could not tell they "
            "were lists when compiling (an item of a dict, what a call returns, a loop's "
            "variable)", where,
            remedy="join arrays (np.concatenate of the slices of np.array(...)), or pass "
            "the list itself to a function that joins its slices (a list argument's slices "
            "are lists)")


def check_item_read(value, base, text, name, where):
    """Refuse an item read ``name = text`` (``a = x[i]``) that is a view of ``base``, the
    array the code writes into later.

    ``x[0]`` of a vector is a number, a copy; of a matrix it is a row, a view, which a
    write into ``x`` changes, where srcgrad's adjoint sees the values as they were read.
    """
    if isinstance(base, np.ndarray) and isinstance(value, np.ndarray) \
            and np.shares_memory(value, base):
        from ..errors import CompileError

        read = f"{name} = {text}" if name else text
        raise CompileError(
            f"`{read}` reads a view of `{text.split('[')[0]}` (the index leaves some of its "
            "axes), and the code writes into it later: srcgrad's adjoint would see the "
            "values as read", where, remedy=f"copy what is read: `{read}.copy()`")


def distinct(grads):
    """``grads`` (a tuple), with each array that shares memory with an earlier one copied.

    Two inputs' adjoints can be one array (``z = x + y``: both are ``dz``);
    returned as they are, an in-place update of one (``gx *= 0.5``) would
    silently change the other.
    """
    if len(grads) < 2:
        return tuple(grads)
    if all(type(g) is np.ndarray and g.base is None or not isinstance(g, np.ndarray)
           for g in grads) and len(set(map(id, grads))) == len(grads):
        # Arrays owning their memory, each once, and numbers (a bias's NumPy scalar):
        # nothing shared.
        return tuple(grads)
    out = list(grads)
    for i, g in enumerate(out):
        if isinstance(g, np.ndarray) and any(isinstance(h, np.ndarray) and _may_share(g, h)
                                             for h in out[:i]):
            out[i] = g.copy()
    return tuple(out)


def _may_share(a, b):
    # Two arrays that own their memory share it only if they are one array.
    if a.base is None and b.base is None:
        return a is b
    return np.may_share_memory(a, b)


def writeable(value):
    """``value`` with its read-only arrays copied (in tuples and lists too).

    What an inlined ``sg.grad(f)(...)`` returns: the adjoint of ``np.sum`` is a
    read-only broadcast view, and the user may write into the gradient, as
    into the one ``sg.grad`` returns outside differentiated code.
    """
    if isinstance(value, np.ndarray):
        return value if value.flags.writeable else value.copy()
    if isinstance(value, (tuple, list)):
        return type(value)(writeable(v) for v in value)
    return value


def as_list(grad, like):
    """An adjoint for the list or tuple ``like``: ``grad`` split along axis 0."""
    if isinstance(grad, list):
        return grad
    return [grad[i] for i in range(len(like))]


def from_list(grad, like):
    """The adjoint of ``as_list``: a list of row adjoints back into ``like``'s form."""
    if isinstance(like, list):
        return grad
    import numpy as _np

    return _np.stack([_np.asarray(g) for g in grad]) if len(grad) else _np.zeros_like(like)


def upstream(grad_fn, grad):
    """A ``custom_gradient``'s ``grad_fn`` called with the adjoint of what it returned: one
    argument per output where it returned several (a tuple or a list, whose adjoint is
    one), as TensorFlow calls it."""
    return grad_fn(*grad) if type(grad) in (list, tuple) else grad_fn(grad)


def custom_adjoints(grads, inputs, rows=None):
    """What a ``custom_gradient``'s ``grad_fn`` returned: one adjoint per input.

    ``None`` for an input means no gradient flows through it (TensorFlow's
    convention): a zero adjoint, not a NaN. ``rows``: the number of seed rows
    (``tape.jacobian``), the leading axis every adjoint then has.
    """
    if len(inputs) == 1 and not (isinstance(grads, (list, tuple)) and len(grads) == 1
                                 and not isinstance(inputs[0], (list, tuple))):
        grads = (grads,)
    if len(grads) != len(inputs):
        raise ValueError(f"a custom_gradient's grad_fn returned {len(grads)} gradients for "
                         f"{len(inputs)} inputs; return one per input (None for no gradient)")
    return [_zero_adjoint(x, rows) if g is None else g for g, x in zip(grads, inputs)]


def _zero_adjoint(value, rows):
    if rows is None:
        return zeros_like(value)
    return np.zeros((rows,) + np.shape(value))


def check_scalar(value, what):
    """Raise the error users get from ``grad`` of a function with a non-scalar result."""
    if value is None:
        raise TypeError(
            f"{what} must return a scalar to be differentiated with grad, but it returned "
            "None; is its return statement missing?")
    shape = np.shape(value)
    if (shape != () and np.prod(shape) != 1) or isinstance(value, (list, tuple)):
        # (An array of one number is its number, as in autograd: ``x @ W`` of shape (1, 1).)
        raise TypeError(
            f"{what} must return a scalar to be differentiated with grad, but it returned "
            f"{'a ' + type(value).__name__ if isinstance(value, (list, tuple)) else 'an array of shape ' + str(shape)}; "
            "reduce it first (e.g. np.sum) or use a GradientTape with output_gradients"
        )
    return value


def attempting(*exception_types):
    """``True``: the flag of a ``try`` statement's body, made false by its handler (the
    compiler reads a ``try`` as a branch on it: passes/try_except.py)."""
    return True


def rolled_back(stack, length, value=None):
    """``value`` as it was before a ``try`` body that raised pushed it on ``stack`` (the
    first item past ``length``), the pushes taken off: the backward pass then finds the
    stack and the value as where the body did not run. (For the compiler, ``value``
    itself: in its model the body did not run, so nothing is past ``length``.)"""
    if len(stack) > length:
        value = stack[length]
        del stack[length:]
    return value


def try_tail():
    """Nothing: marks where a ``try`` body's last statement starts, for the compiler."""


def attempted(flag):
    """``flag``: the test of a ``try``'s ``else`` clause (the body ran to its end)."""
    return flag


def caught():
    """The exception being handled (``except E as e``: ``e``)."""
    return sys.exc_info()[1]


def scalar_seed(value):
    """The seed of a result ``check_scalar`` let through: ``1.0``, or ones shaped like an
    array of one number (its adjoint has the array's shape)."""
    shape = np.shape(value)
    if shape == ():
        # (NumPy's scalar for NumPy's: a 0-d array's adjoint is indexed as it is, ``ll[...]``)
        return np.float64(1.0) if isinstance(value, (np.ndarray, np.generic)) else 1.0
    return np.ones(shape)


class _Unbound:
    """What a recorded tape block leaves in a variable it did not bind (the tape
    writes back only what it finds bound)."""

    def __repr__(self):
        return "<unbound>"


UNBOUND = _Unbound()


class _Missing:
    """What ``save_slot`` saves for a dict key a write adds."""

    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


def dict_keys(d):
    """The keys of a dict of differentiable values iterated over (``for k, v in
    d.items()``): a list, taken when the loop starts, carrying no gradient."""
    if type(d) is not dict and type(d) is not collections.OrderedDict:
        raise TypeError(f"srcgrad compiled this loop as one over a dict's keys, and the "
                        f"value iterated over is a {type(d).__name__}")
    return list(d)


def dict_values(d):
    """``d.values()`` of a dict of differentiable values whose keys only the run knows
    (a layer of a tree a loop reads by its runtime keys): a list, in the dict's order."""
    if not isinstance(d, dict):
        raise TypeError(f"srcgrad compiled `.values()` as the method of a dict, and the "
                        f"value it is called on is a {type(d).__name__}")
    return list(d.values())


def dict_values_grad(g, d):
    """The adjoint of ``d`` from that of ``dict_values(d)``, key by key."""
    if not isinstance(g, (list, tuple)):  # (not read: zeros)
        return zeros_like(d)
    return {k: zeros_like(v) if gi is None else gi for (k, v), gi in zip(d.items(), g)}


def dict_values_grad_grad(g, d):
    """The adjoint of ``dict_values_grad``'s list from that of the dict it builds."""
    if not isinstance(g, dict):
        return [zeros_like(v) for v in d.values()]
    return [g[k] for k in d]


def dict_sorted(d):
    """``sorted(d)`` of a dict of differentiable values iterated over: its sorted keys."""
    return sorted(dict_keys(d))


def dict_counted(keys):
    """``enumerate(keys)`` of a dict's keys iterated over (``for i, k in
    enumerate(sorted(d))``): (count, key) pairs, carrying no gradient."""
    return list(enumerate(keys))


def dict_has(d, key):
    """``key in d`` for ``d.get(key)`` of a dict of differentiable values, whose keys the
    compiler could not tell (``passes/normalize/calls._dict_get``)."""
    if not isinstance(d, dict):
        raise TypeError(f"srcgrad compiled `.get()` as the method of a dict, and the value "
                        f"it is called on is a {type(d).__name__}")
    return key in d


def check_unpack(items, count):
    """Starred unpacking (``first, *rest = values``, ``passes/desugar.py``) of ``items``
    (a list) into ``count`` names besides the starred one: as Python, refuse fewer."""
    if len(items) < count:
        raise ValueError(f"not enough values to unpack (expected at least {count}, "
                         f"got {len(items)})")


def check_positional(value, where):
    """A loop at ``where`` compiled to read ``value`` by position: refuse a dict or set,
    which Python iterates otherwise (a dict by its keys)."""
    if isinstance(value, (dict, set, frozenset)):
        raise TypeError(f"srcgrad compiled the loop at {where} to read its items by "
                        f"position, and it iterates a {type(value).__name__}: loop over "
                        f"`tuple(d)` (a dict's keys) or a dict srcgrad can tell")


def check_unpacked(value, count, where):
    """``a, b = value`` compiled as ``a = value[0]; b = value[1]``: as Python, refuse
    another number of items; and refuse what unpacks otherwise than by position (a dict
    gives its keys, a set its members in no fixed order), which the compiler did not
    know ``value`` to be."""
    if isinstance(value, (dict, set, frozenset)):
        raise TypeError(f"srcgrad compiled the unpacking at {where} as reads by position, "
                        f"and the value is a {type(value).__name__}: unpack "
                        f"`tuple(d)` (its keys) or `d.values()` of a dict srcgrad can tell")
    n = len(value)
    if n != count:
        raise ValueError(f"too many values to unpack (expected {count})" if n > count else
                         f"not enough values to unpack (expected {count}, got {n})")


def check_field(result, name, index):
    """``result.name`` compiled as ``result[index]`` (NumPy's named results,
    ``np.linalg.eigh(a).eigenvalues``): as Python, an AttributeError where ``result`` has
    no such field there (``np.linalg.qr(a, 'r')`` is an array)."""
    if tuple(getattr(type(result), "_fields", ()))[index:index + 1] != (name,):
        raise AttributeError(f"{type(result).__name__!r} object has no attribute {name!r}")


def check_count(items, count, function, where):
    """``f(*items)`` compiled for ``count`` items, the number of arguments ``f`` takes
    there (``passes/normalize/calls.spread``): refuse another number, as Python does."""
    n = len(items)
    if n != count:
        raise TypeError(f"{function}() called with {n} arguments from *args where it takes "
                        f"{count} ({where})")


def check_zip(seq, count, where):
    """``zip(objects, seq)`` unrolled for ``count`` trips: ``seq`` must hold as many items
    (Python's zip would stop at its end)."""
    if len(seq) < count:
        raise ValueError(f"srcgrad unrolled a loop over zip() of a list of {count} objects "
                         f"and a sequence of {len(seq)} items ({where}): give the sequence "
                         "as many items as the list holds objects")


def snapshot(obj):
    """A copy of what the array, list or dict ``obj`` holds (``put_back``)."""
    if isinstance(obj, np.ndarray):
        return obj.copy()
    return dict(obj) if isinstance(obj, dict) else list(obj)


def put_back(obj, held):
    """``obj`` made to hold ``held`` again, in place: the state a caller's object was
    left in by the forward code, after the backward code took its writes out."""
    if isinstance(obj, np.ndarray):
        obj[...] = held
    elif isinstance(obj, dict):
        obj.clear()
        obj.update(held)
    else:
        obj[:] = held


def taken(items, count):
    """The first ``count`` items of the iterator ``items`` (all, for None), as a list: an
    iterator a loop zips with sequences, indexed by the compiled loop."""
    return list(items if count is None else itertools.islice(items, count))


def field(record, name):
    """``record.name`` of a dataclass built in differentiated code (its adjoint is a dict
    of its fields' adjoints, and so is the zero tangent of one whose fields were
    constants: ``tangent(None, record)``)."""
    return record[name] if type(record) is dict else getattr(record, name)


def field_grad(grad, record, name, lead=0):
    """The adjoint of ``record`` from ``record.name``'s: ``grad`` at ``name``, zeros at its
    other fields (with ``lead`` leading axes of seed rows)."""
    rows = _lead_shape(grad, lead)
    out = {}
    for f in dataclasses.fields(record):
        if f.name == name:
            out[f.name] = grad
        else:
            zero = zeros_like(getattr(record, f.name))
            out[f.name] = np.zeros(rows + np.shape(zero)) if lead else zero
    return out


def _lead_shape(grad, lead):
    """The shape of the ``lead`` leading axes of seed rows on an adjoint that may be a
    list, tuple or dict of leaves of different shapes (a field holding layers)."""
    if not lead:
        return ()
    while isinstance(grad, (list, tuple, dict)):
        items = list(grad.values()) if isinstance(grad, dict) else list(grad)
        if not items:
            return ()
        grad = items[0]
    return np.shape(grad)[:lead]


def new_object(cls):
    """An object a tape block built and kept as its attributes (``passes/normalize/
    objects.py``), made for the user's variables after the block: its ``__init__`` is
    not run again (it ran, inlined); ``set_attributes`` gives it its attributes."""
    return cls.__new__(cls)


def set_attributes(obj, names, values):
    obj.__dict__.update(zip(names, values))


def field_index(record, name):
    """The position of field ``name`` in a namedtuple ``record`` (read as that item)."""
    return type(record)._fields.index(name)


def tangent(dot, value):
    """A forward-mode tangent that may not have been set (None): zeros like ``value``."""
    return zeros_like(value) if dot is None else dot


def set_tangent(dot, base, index, item):
    """The tangent of ``base`` after ``base[index] = item``: a copy of ``dot`` (the
    tangent before; tangents may share arrays) with the item's tangent (None: zeros)."""
    if isinstance(dot, (list, dict)):
        out = dot.copy()
    else:
        out = np.array(dot, dtype=np.result_type(dot, 1.0), copy=True)
    integer = isinstance(base, np.ndarray) and base.dtype.kind in "biu"
    out[index] = zeros_like(base[index]) if item is None or integer else item
    return out


def stored_grad(grad, base):
    """The adjoint of a value stored by ``base[index] = value``, ``grad`` being
    ``base``'s adjoint at ``index``: zeros where ``base`` is an array of integers or
    booleans (the store casts: piecewise constant, as ``astype(int)``)."""
    if isinstance(base, np.ndarray) and base.dtype.kind in "biu":
        return np.zeros(np.shape(grad))
    return grad


def as_arguments(out, args, multiple, with_value):
    """What an exported gradient returns, its gradients in the structure of the arguments
    they are of: a tuple's adjoint is computed as a list, ``sg.grad`` gives a tuple."""
    if with_value:
        value, grads = out
        return value, as_arguments(grads, args, multiple, False)
    if multiple:
        return tuple([_like_argument(g, a) for g, a in zip(out, args)])
    return _like_argument(out, args[0])


def _like_argument(grad, value):
    if type(value) is tuple and isinstance(grad, (list, tuple)) and len(grad) == len(value):
        return tuple([_like_argument(g, v) for g, v in zip(grad, value)])
    if type(value) is list and isinstance(grad, (list, tuple)) and len(grad) == len(value):
        return [_like_argument(g, v) for g, v in zip(grad, value)]
    if type(value) is dict and type(grad) is dict:
        return {k: _like_argument(g, value.get(k)) for k, g in grad.items()}
    return grad
