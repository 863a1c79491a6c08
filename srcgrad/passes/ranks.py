"""The rank (number of dimensions) and shape of each variable, from the first call's arguments.

Elementwise adjoints need ``_sg.unbroadcast`` only when an operand may have
been broadcast; between scalars nothing is, and the call (and keeping the
operand's value alive for its shape) can go. Products of matrices and
vectors of known ranks get their adjoints written out (``Rule.by_rank``).
Arrays' and Variables' ranks are part of the cache key, so what is inferred
here holds for every call that reuses the code. Where the cache also keys on
the small sizes of the array arguments and on which of the others are equal
(``size_classes``: a batch of 32 and one of 64 share code), shapes are known
too: an operand of the result's shape needs no unbroadcasting, and a bias
broadcast over a batch gets its ``g.sum(axis=0)`` written out.

Flow-insensitive: a name has a shape only if every assignment gives it the same.

Before/after (``A`` a matrix, ``v`` a vector at the first call)::

    # grad of: u = A @ v                      # grad of: u = A @ v
    dA = _sg.unbroadcast(                     dA = np.outer(du, v)
        _sg.matmul_grad_x1(du, A, v), A)      dv = du @ A
    dv = _sg.unbroadcast(
        _sg.matmul_grad_x2(du, A, v), v)

    # grad of: z = X @ W + b                  # grad of: z = X @ W + b
    dz_matmul = _sg.unbroadcast(dz, z_matmul) dz_matmul = dz
    db = _sg.unbroadcast(dz, b)               db = dz.sum(axis=0)
"""
import gast
import numpy as np

from ..ir import anno, templates as T
from ..ir.atoms import walked_object
from ..ir.names import walk_stmts
from ..ir.shapes import ARITHMETIC
from ..rules import table
from ..rules.entry import params as rule_params
from ..runtime import adjoints, core
from ..variables import Variable


def _shape_of_value(value, sized):
    """An argument's shape; its sizes only if ``sized`` (the cache keys on their classes)."""
    if isinstance(value, (bool, int, float, np.generic)):
        return ()
    if sized and (type(value) is np.ndarray or type(value) is Variable):
        return value.shape
    if isinstance(value, (np.ndarray, Variable)):
        return (None,) * value.ndim
    return None


# ``_sg`` helpers, not differentiated, whose result has their argument's rank.
_SHAPED_LIKE = {"seed_like", "zeros_like", "read_value", "copy_slot", "writeable"}


def _shaped_like_argument(value):
    f = getattr(value, "func", None)
    return isinstance(value, gast.Call) and isinstance(f, gast.Attribute) \
        and isinstance(f.value, gast.Name) and f.value.id == "_sg" and f.attr in _SHAPED_LIKE \
        and len(value.args) == 1 and isinstance(value.args[0], gast.Name)


def _int_index_count(index):
    """How many dimensions an index of ints and slices removes, or None if unsure."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    removed = 0
    for p in parts:
        if isinstance(p, gast.Slice):
            continue
        if isinstance(p, gast.Constant) and isinstance(p.value, int):
            removed += 1
        elif isinstance(p, gast.UnaryOp) and isinstance(p.operand, gast.Constant):
            removed += 1
        elif isinstance(p, gast.Name):
            return None  # could be an int or an index array: decided by the ints below
        else:
            return None
    return removed


def _stack_items(body):
    """List name -> the values appended to it, for lists only appended to and popped.

    Inside loops, values are saved on such lists (``record.py``), and inner
    generated code differentiated again reads them back with ``pop()``.
    """
    items, receivers, loads = {}, set(), set()
    for s in walk_stmts(body):
        for node in T.walk(s):
            f = getattr(node, "func", None)
            if isinstance(node, gast.Call) and isinstance(f, gast.Attribute) \
                    and isinstance(f.value, gast.Name):
                if f.attr == "append" and len(node.args) == 1:
                    items.setdefault(f.value.id, []).append(node.args[0])
                    receivers.add(id(f.value))
                elif f.attr == "pop" and not node.args:
                    receivers.add(id(f.value))
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                loads.add(node)
    other = {n.id for n in loads if id(n) not in receivers}  # any other use of the list
    return {name: values for name, values in items.items() if name not in other}


# The analysis's values: a shape (a tuple of sizes, ``None`` for a size not
# known), ``TOP`` (nothing known yet: the optimistic start, and ``None``
# placeholders) or ``None`` (not one rank). Sizes come from the first call's
# arrays, and the cache keys on the small ones (up to ``EXACT``: a 2-element
# state, 3-D coordinates) and on which of the others are equal
# (``size_classes``), never on the sizes themselves: a size above ``EXACT`` is
# only ever compared for equality, and a size written in the code counts only
# if it is one of the small ones.
TOP = "top"
EXACT = 4


def size_classes(args):
    """The small sizes of the array arguments, and which of their other sizes equal which:
    the part of a cache key that lets shapes inferred from one call hold for every call
    reusing the code. Variables count too, and those objects hold as attributes, to the
    depth the key describes the objects (``cache._structure``): the key fixes which
    attributes those are, in which order, so a position in this tuple is one attribute."""
    seen = {}
    out = []
    for a in args:
        t = type(a)
        if t is np.ndarray:  # (the usual argument: no call per array)
            for n in a.shape:
                out.append(~n if n <= EXACT else seen.setdefault(n, len(seen)))
        elif t is Variable:
            _sizes(a._value.shape, seen, out)
        elif t not in _UNWALKED and walked_object(a):
            _object_sizes(a, OBJECT_DEPTH, seen, out)
    return tuple(out)


OBJECT_DEPTH = 3  # as deep as ``cache._structure`` describes an argument's objects
_UNWALKED = frozenset((float, int, bool, complex, tuple, list, dict, str, type(None)))


def _sizes(shape, seen, out):
    for n in shape:
        # (small sizes as themselves, below zero; the others numbered in order)
        out.append(~n if n <= EXACT else seen.setdefault(n, len(seen)))


def _object_sizes(obj, depth, seen, out):
    for value in vars(obj).values():
        if type(value) is Variable:
            _sizes(value._value.shape, seen, out)
        elif depth > 1 and type(value) not in _UNWALKED and walked_object(value):
            _object_sizes(value, depth - 1, seen, out)


def _keyed_sizes(node, static, args):
    """Does ``size_classes`` key on the sizes of the Variable the attribute chain ``node``
    denotes: is it at most ``OBJECT_DEPTH`` attributes from an argument, through objects it
    walks?"""
    chain = []
    while isinstance(node, gast.Attribute):
        node = node.value
        chain.append(node)
    if len(chain) > OBJECT_DEPTH or not isinstance(node, gast.Name) or node.id not in args:
        return False
    return all(walked_object(args[n.id] if n is node else static(n)) for n in chain)


def _join(values):
    shapes = set()
    for v in values:
        if v is None:
            return None
        if v is not TOP:
            shapes.add(v)
    if not shapes:
        return TOP
    if len({len(v) for v in shapes}) > 1:
        return None
    return tuple(dims.pop() if len(dims) == 1 else None for dims in map(set, zip(*shapes)))


def _broadcast(shapes):
    """NumPy's broadcasting of shapes: a size 1 stretches to the other; an unknown size
    leaves the result's unknown unless another operand has a size other than 1 there."""
    if any(s is None for s in shapes):
        return None
    if any(s is TOP for s in shapes):
        return TOP
    if not shapes:
        return None
    rank = max(map(len, shapes))
    out = []
    for axis in range(-rank, 0):
        sizes = [s[axis] for s in shapes if len(s) >= -axis]
        known = {n for n in sizes if n is not None and n != 1}
        if len(known) > 1:
            return None  # an error when the code runs
        out.append(known.pop() if known else None if None in sizes else 1)
    return tuple(out)


def _flag(node):
    """A ``keepdims=`` written as a constant: its value, or None if not constant."""
    if node is None:
        return False
    if isinstance(node, gast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _reduced(axis, keepdims, shape):
    """The shape of a reduction over the constant ``axis`` of an array of this shape."""
    keep = _flag(keepdims)
    if keep is None:
        return None
    if axis is None and not keep:
        return ()
    if shape is None or shape is TOP:
        return shape
    if axis is None:
        return (1,) * len(shape)
    if isinstance(axis, int) and not isinstance(axis, bool) and -len(shape) <= axis < len(shape):
        axis %= len(shape)
        return shape[:axis] + ((1,) if keep else ()) + shape[axis + 1:]
    return None


_FILLED = (np.zeros, np.ones, np.empty, np.full)
_BROADCASTS = (np.broadcast_to, adjoints.broadcast_to)
_FILLED_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


def _size(node, env):
    """A size written in the code: ``x.shape[k]`` of a shape known, or a small number
    (``EXACT``); a larger one may equal an argument's size by chance: not known."""
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.value.value, gast.Name) \
            and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int:
        shape = env.get(node.value.value.id)
        k = node.slice.value
        return shape[k] if isinstance(shape, tuple) and -len(shape) <= k < len(shape) else None
    return _size_of_count(node.value) if isinstance(node, gast.Constant) \
        and type(node.value) is int else None


def _constructed(call, fn, env, ints):
    """The shape of ``np.zeros((n, m))`` (a shape written out) or ``np.zeros_like(x)``."""
    if not call.args or any(k.arg in ("shape", "ndmin") for k in call.keywords):
        return None
    first = call.args[0]
    if fn in _FILLED:
        if isinstance(first, (gast.Tuple, gast.List)):
            return tuple(_size(n, env) for n in first.elts)
        if isinstance(first, gast.Constant) and isinstance(first.value, int) \
                or isinstance(first, gast.Name) and first.id in ints:
            return (_size(first, env),)
    if fn in _FILLED_LIKE and isinstance(first, gast.Name):
        return env.get(first.id)
    return None


def _product(fn, shapes):
    """The shape of ``np.matmul`` or ``np.dot`` of operands of these shapes."""
    if any(s is None for s in shapes):
        return None
    if any(s is TOP for s in shapes):
        return TOP
    s1, s2 = shapes
    if fn is np.dot:
        if not s1 or not s2:
            return s1 + s2
        return s1[:-1] + s2[:-2] + s2[-1:] if len(s2) >= 2 else s1[:-1]
    if not s1 or not s2:
        return None  # an error at run time
    if len(s1) == 1 or len(s2) == 1:
        return s1[:-1] if len(s2) == 1 else s2[:-2] + s2[-1:]
    batch = _broadcast([s1[:-2], s2[:-2]])
    return None if batch is None else batch + (s1[-2], s2[-1])


def _size_of_count(n):
    return n if 0 <= n <= EXACT else None


def _unknown_sizes(shape):
    return shape if shape is None or shape is TOP else (None,) * len(shape)


def _atom(node, env):
    if isinstance(node, gast.Constant):
        if node.value is None:
            return TOP
        return () if isinstance(node.value, (int, float)) else None
    return env.get(node.id) if isinstance(node, gast.Name) else None


class _Call:
    """A call not differentiated, seen as the primitive statement it would be."""

    def __init__(self, fn, rule, args):
        self.sg_func, self.sg_rule, self.sg_args = fn, rule, args


def _bound(call, rule):
    """Parameter -> argument node of ``call`` by ``rule``'s signature, defaults filled in;
    None where the call spreads arguments."""
    ps = [p for p in rule_params(rule) if not p.variadic]
    if len(call.args) > len(ps) or any(isinstance(a, gast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    bound = {p.name: a for p, a in zip(ps, call.args)}
    bound.update((k.arg, k.value) for k in call.keywords)
    for p in ps:
        if p.name not in bound and p.default is not None:
            bound[p.name] = p.default
    return bound


class _Item:
    """The binding of one name of ``a, b = (u, v)`` (``s``) to its item."""

    def __init__(self, s, item):
        self.s, self.value = s, item


def _unpacked_items(s):
    """``[(name node, item node)]`` for ``a, b = (u, v)`` of as many names as items,
    or None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], (gast.Tuple, gast.List))
            and isinstance(s.value, (gast.Tuple, gast.List))):
        return None
    names, items = s.targets[0].elts, s.value.elts
    if len(names) != len(items) or not all(isinstance(n, gast.Name) for n in names):
        return None
    return list(zip(names, items))


def _literal_item(value, tuples):
    """The item node ``t[k]`` reads of a tuple written out (``t = (u, v)``; a list may have
    changed since), or None."""
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
            and value.value.id in tuples and isinstance(value.slice, gast.Constant) \
            and type(value.slice.value) is int:
        items, k = tuples[value.value.id], value.slice.value
        if -len(items) <= k < len(items):
            return items[k]
    return None


def _shape(s, env, ints, stacks, literals, static, resolve, tuples, keyed, shape_values):
    """The shape statement ``s`` gives its target, from the shapes ``env`` holds now
    (``keyed``: the arguments by name, if the cache keys on their ``size_classes``;
    ``shape_values``: names bound once to ``np.shape(x)`` or ``x.shape`` -> ``x``)."""
    if isinstance(s, _Item):
        item = s.value
        return _atom(item, env) if isinstance(item, (gast.Name, gast.Constant)) else None
    kind = anno.kind(s)
    value = s.value
    item = _literal_item(value, tuples)
    if item is not None:  # ``k1x = k1_pair[0]`` of ``k1_pair = (dx, dy)``
        return _atom(item, env) if isinstance(item, (gast.Name, gast.Constant)) else None
    if kind == "pop":
        values = stacks.get(value.func.value.id)
        return _join(_atom(v, env) for v in values) if values else None
    if isinstance(value, (gast.Constant, gast.Name)):  # a constant, or a copy
        return _atom(value, env)
    if isinstance(value, gast.Attribute) and kind != "prim":  # ``model.W`` (not ``x.T``):
        # a Variable's shape never changes.
        v = static(value) if static is not None else None
        if not isinstance(v, Variable):
            return None
        return v.shape if keyed is not None and _keyed_sizes(value, static, keyed) \
            else (None,) * v.ndim
    if _shaped_like_argument(value):
        return env.get(value.args[0].id)
    if isinstance(value, gast.Call) and kind != "prim" and resolve is not None:
        fn = resolve(value.func)
        if fn in _BROADCASTS and len(value.args) == 2 \
                and _shape_named(value.args[1], shape_values):  # (a constant's)
            return env.get(shape_values[value.args[1].id])
        rule = table.rule(fn)
        if rule is not None and rule.rank is not None:  # ``np.sum(X)`` of a constant X
            bound = _bound(value, rule)
            return None if bound is None else _primitive(_Call(fn, rule, bound), env, literals)
        return _constructed(value, fn, env, ints)
    if isinstance(value, gast.BinOp) and isinstance(value.op, ARITHMETIC) \
            and all(isinstance(v, (gast.Name, gast.Constant)) for v in (value.left, value.right)):
        return _broadcast([_atom(value.left, env), _atom(value.right, env)])  # not recorded
    if kind == "getitem" or isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return _indexed(value, env, ints)  # also ``xs[t]`` of a constant array (kind opaque)
    if kind == "prim":
        if s.sg_func in _BROADCASTS and _shape_named(s.sg_args.get("shape"), shape_values):
            # ``broadcast_to(g, np.shape(a))`` (a gradient's code, differentiated again)
            return env.get(shape_values[s.sg_args["shape"].id])
        return _primitive(s, env, literals)
    return None


def _slice_bound(node):
    """A slice bound written as a constant int (``-1`` included), None if absent, or
    ``False`` if it is anything else."""
    if node is None:
        return None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _slice_bound(node.operand)
        return -inner if type(inner) is int else False
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else False


def _sliced(size, p):
    """The size of ``x[lower:upper]`` along an axis of size ``size``.

    A small size (up to ``EXACT``) gives the exact length. A larger one is a size
    class ``n``, larger than ``EXACT`` at every call: ``x[k:]``, ``x[:-k]``,
    ``x[k:-j]`` have size ``max(0, n - c)`` (``c = k + j``), written ``("-", n, c)``:
    two slices of one size class with the same ``c`` have one size, whatever ``n``
    is at the call (``x[1:] - x[:-1]``); ``x[:k]`` and ``x[-k:]`` with ``k`` small
    have size ``k``. Anything else: not known.
    """
    lower, upper, step = _slice_bound(p.lower), _slice_bound(p.upper), _slice_bound(p.step)
    if size is None or any(b is False for b in (lower, upper, step)) or step not in (None, 1):
        return None
    if type(size) is int and size <= EXACT:
        return len(range(size)[lower:upper])
    if lower is None or lower >= 0:
        if upper is None or upper < 0:
            c = (lower or 0) + (-upper if upper is not None else 0)
            if c == 0:
                return size
            return ("-", size[1], size[2] + c) if type(size) is tuple else ("-", size, c)
        if type(size) is int and upper <= EXACT:  # (``size`` is larger: ``upper`` is in it)
            return max(0, upper - (lower or 0))
    elif (upper is None or upper < 0) and type(size) is int and -lower <= EXACT:
        return max(0, -lower + (upper or 0))  # ``x[-3:-1]``: 2
    return None


def _indexed(value, env, ints):
    """The shape of ``base[index]``: an integer index removes its axis; a slice keeps it
    (its size only if the slice is ``:``)."""
    base = env.get(value.value.id)
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    if base is None or base is TOP:
        return base
    if any(isinstance(p, gast.Constant) and p.value is None for p in parts):
        return None
    if len(parts) > len(base):
        return None
    out = []
    for p, size in zip(parts, base):
        if isinstance(p, gast.Slice):
            out.append(_sliced(size, p))
        elif not (isinstance(p, gast.Name) and p.id in ints or _int_index_count(p) == 1):
            return None
    return tuple(out) + base[len(parts):]


def _default(rule, name):
    """The default of parameter ``name`` in ``rule``'s signature (a node), or None."""
    return next((p.default for p in rule_params(rule) if p.name == name), None)


# Functions of rank rule "same" whose result has the operand's very shape.
_SAME_SHAPE = (np.flip, np.fliplr, np.flipud, np.roll, np.fft.fftshift, np.fft.ifftshift)


def _primitive(s, env, literals):
    """The shape of a primitive's result, by its entry's rank rule (``Rule.rank``)."""
    fn, how = s.sg_func, s.sg_rule.rank
    args = [_atom(a, env) for a in s.sg_args.values()
            if isinstance(a, (gast.Name, gast.Constant))]
    if how == "identity":
        return args[0] if args else None
    if how == "from_list":  # np.array([a, b]) of values of one rank r: rank r + 1
        obj = s.sg_args.get("object", s.sg_args.get("a"))
        items = literals.get(obj.id) if isinstance(obj, gast.Name) else None
        ndmin = s.sg_args.get("ndmin")
        if items is not None and (ndmin is None or isinstance(ndmin, gast.Constant)
                                  and ndmin.value == 0):
            inner = _join(_atom(e, env) for e in items) if items else None
            return inner if inner is None or inner is TOP else (_size_of_count(len(items)),) + inner
    if how == "like_second":
        like = s.sg_args.get("like")
        return _atom(like, env) if like is not None else None
    if how == "scalar":
        return ()
    operands = [_atom(s.sg_args.get(p.name), env) for p in rule_params(s.sg_rule)[:2]]
    axis = s.sg_args.get("axis", _default(s.sg_rule, "axis"))
    if how == "reduce" and isinstance(axis, gast.Constant):
        keepdims = s.sg_args.get("keepdims", _default(s.sg_rule, "keepdims"))
        return _reduced(axis.value, keepdims, operands[0])
    if how == "same":
        if fn in _SAME_SHAPE:
            return operands[0]
        axes = s.sg_args.get("axes")
        if fn is np.transpose and (axes is None or isinstance(axes, gast.Constant)
                                   and axes.value is None) and isinstance(operands[0], tuple):
            return operands[0][::-1]
        return _unknown_sizes(operands[0])
    if how == "product":
        return _product(fn, operands)
    if how == "elementwise" and s.sg_args and len(args) == len(s.sg_args):
        return _broadcast(args)
    return None


def _keyed(static, params):
    """``static`` for attribute chains rooted at a parameter: the cache keys on their
    classes and Variables' ranks (``cache._structure``); a global object's are not."""
    def value(node):
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        return static(node) if isinstance(root, gast.Name) and root.id in params else None
    return value


def _shape_named(node, shape_values):
    """Is ``node`` a name bound once to ``np.shape(x)`` or ``x.shape`` (``broadcast_to``'s
    ``shape``: the result then has ``x``'s)?"""
    return isinstance(node, gast.Name) and node.id in shape_values


def _shape_value(value, resolve):
    """``x`` if ``value`` is ``np.shape(x)`` or ``x.shape``, else None."""
    if isinstance(value, gast.Attribute) and value.attr == "shape" \
            and isinstance(value.value, gast.Name):
        return value.value.id
    if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords \
            and isinstance(value.args[0], gast.Name) and resolve is not None \
            and any(resolve(value.func) is f for f in (np.shape, adjoints.shape_of)):
        return value.args[0].id  # (shape_of: np.shape in srcgrad's own helpers)
    return None


_SAME_SHAPE_IDENTITY = (core.unbroadcast, core.broadcast_like)


def drop_same_shape_helpers(body, shapes):
    """``t = _sg.unbroadcast(a, b)`` or ``_sg.broadcast_like(a, b)`` where ``a`` and ``b``
    have one known shape (both return ``a`` then): ``t = a``. A gradient's code inlined
    into code that differentiates it again (``sg.hvp``, ``sg.grad`` of ``sg.grad``, nested
    tapes) calls them for shapes unknown where it was compiled; here they are known, and
    neither the call nor its derivative is left."""
    for s in walk_stmts(body):
        if anno.kind(s) != "prim" or getattr(s, "sg_func", None) not in _SAME_SHAPE_IDENTITY:
            continue
        grad, like = s.sg_args.get("grad"), s.sg_args.get("like")
        if isinstance(grad, gast.Name) and isinstance(like, gast.Name) \
                and grad.id in shapes and shapes[grad.id] == shapes.get(like.id):
            s.value = T.name(grad.id)
            anno.set_kind(s, "copy")


def infer(body, params, sample, ints, static=None, sized=False):
    """(name -> rank, name -> shape): ranks for the names bound only to values of one
    rank, shapes for those bound only to values of one shape, given the first call's
    arguments ``sample``. Shapes hold sizes only if ``sized``: the code is cached by
    ``size_classes`` of its arguments.

    Shapes are inferred for every variable, optimistically (the way constant
    propagation is): each starts as ``TOP`` and only ever goes down to one
    shape, then to one with sizes unknown, then to ``None``, as its assignments
    are evaluated again, until nothing changes. Loop-carried values
    (``s = s + x[i]``) keep their shape by induction, and ``state[0]`` of a
    computed vector is known to be a scalar.
    ``static(node)``: the object an attribute chain denotes at compile time,
    for the ranks of Variables read from objects (the cache keys on them).
    """
    if sample is None:
        return {}, {}
    defs = {}
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            defs.setdefault(s.targets[0].id, []).append(s)
        elif _unpacked_items(s) is not None:
            # ``x, y = (1.0, 1.0)``: each name the rank of its item
            for k, (t, item) in enumerate(_unpacked_items(s)):
                defs.setdefault(t.id, []).append(_Item(s, item))
        else:
            for t in getattr(s, "targets", []):
                for n in gast.walk(t):
                    if isinstance(n, gast.Name):
                        defs.setdefault(n.id, []).append(None)
            if isinstance(s, gast.For) and s.target.id not in ints:
                defs.setdefault(s.target.id, []).append(None)
    stacks = _stack_items(body)
    literals = {n: list(d[0].value.elts) for n, d in defs.items()  # lists and tuples written out
                if len(d) == 1 and d[0] is not None and not isinstance(d[0], _Item)
                and isinstance(d[0].value, (gast.List, gast.Tuple))}
    tuples = {n: d[0].value.elts for n, d in defs.items()
              if len(d) == 1 and d[0] is not None and not isinstance(d[0], _Item)
              and isinstance(d[0].value, gast.Tuple)}
    resolve = static  # what a call's function denotes (numpy's functions are stable)
    if static is not None:
        static = _keyed(static, set(params))
    given = {p: _shape_of_value(v, sized) for p, v in zip(params, sample)}
    keyed = dict(zip(params, sample)) if sized else None
    shape_values = {n: _shape_value(d[0].value, resolve) for n, d in defs.items()
                    if len(d) == 1 and d[0] is not None and not isinstance(d[0], _Item)}
    shape_values = {n: x for n, x in shape_values.items() if x is not None}
    env = {p: r for p, r in given.items() if p not in defs}
    env.update({n: TOP for n in defs})
    env.update({n: () for n in ints})
    # Names in the order the code first binds them: a chain of n statements settles in
    # two passes, not n (any order reaches the same fixed point, as shapes only go down).
    order = [n for n in defs if n not in ints]
    changed = True
    while changed:
        changed = False
        for name in order:
            shapes = [None if s is None else _shape(s, env, ints, stacks, literals, static,
                                                    resolve, tuples, keyed, shape_values)
                      for s in defs[name]]
            new = _join(shapes + [given[name]] if name in given else shapes)  # x = 2 * x
            if new != env[name]:
                env[name] = new
                changed = True
    shapes = {n: v for n, v in env.items() if isinstance(v, tuple)}
    return ({n: len(v) for n, v in shapes.items()},
            {n: v for n, v in shapes.items() if None not in v})
