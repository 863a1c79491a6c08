"""The rank (number of dimensions) of each variable, from the arguments of the first call.

Elementwise adjoints need ``_sg.unbroadcast`` only when an operand may have
been broadcast; between scalars nothing is, and the call (and keeping the
operand's value alive for its shape) can go. Products of matrices and
vectors of known ranks get their adjoints written out (``Rule.by_rank``).
Arrays' and Variables' ranks are part of the cache key, so what is inferred
here holds for every call that reuses the code.

Flow-insensitive: a name has a rank only if every assignment gives it the same.

Before/after (``A`` a matrix, ``v`` a vector at the first call)::

    # grad of: u = A @ v                      # grad of: u = A @ v
    dA = _sg.unbroadcast(                     dA = np.outer(du, v)
        _sg.matmul_grad_x1(du, A, v), A)      dv = du @ A
    dv = _sg.unbroadcast(
        _sg.matmul_grad_x2(du, A, v), v)
"""
import gast
import numpy as np

from ..ir import anno, templates as T
from ..ir.names import walk_stmts
from ..ir.shapes import ARITHMETIC
from ..rules.entry import params as rule_params
from ..variables import Variable


def _rank_of_value(value):
    if isinstance(value, (bool, int, float, np.generic)):
        return 0
    if isinstance(value, (np.ndarray, Variable)):
        return value.ndim
    return None


# ``_sg`` helpers, not differentiated, whose result has their argument's rank.
_SHAPED_LIKE = {"seed_like", "zeros_like", "read_value", "copy_slot"}


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


# The analysis's values: a rank (an int), ``TOP`` (nothing known yet: the
# optimistic start, and ``None`` placeholders) or ``None`` (not one rank).
TOP = "top"


def _join(values):
    ranks = set()
    for v in values:
        if v is None:
            return None
        if v is not TOP:
            ranks.add(v)
    if len(ranks) > 1:
        return None
    return ranks.pop() if ranks else TOP


def _elementwise(ranks):
    """Broadcasting: the result has the largest rank."""
    if any(r is None for r in ranks):
        return None
    if any(r is TOP for r in ranks):
        return TOP
    return max(ranks) if ranks else None


def _reduced(axis, keepdims, rank):
    """The rank of a reduction over the constant ``axis`` of an array of rank ``rank``."""
    if keepdims is None or isinstance(keepdims, gast.Constant) and keepdims.value is False:
        keep = False
    elif isinstance(keepdims, gast.Constant) and keepdims.value is True:
        keep = True
    else:
        return None
    if axis is None and not keep:
        return 0
    if axis is None or rank is None or rank is TOP:
        return rank
    if isinstance(axis, int) and not isinstance(axis, bool) and rank > 0:
        return rank if keep else rank - 1
    return None


_FILLED = (np.zeros, np.ones, np.empty, np.full)
_FILLED_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


def _constructed(call, fn, env, ints):
    """The rank of ``np.zeros((n, m))`` (a shape written out) or ``np.zeros_like(x)``."""
    if not call.args or any(k.arg in ("shape", "ndmin") for k in call.keywords):
        return None
    first = call.args[0]
    if fn in _FILLED:
        if isinstance(first, (gast.Tuple, gast.List)):
            return len(first.elts)
        if isinstance(first, gast.Constant) and isinstance(first.value, int) \
                or isinstance(first, gast.Name) and first.id in ints:
            return 1
    if fn in _FILLED_LIKE and isinstance(first, gast.Name):
        return env.get(first.id)
    return None


def _product(fn, ranks):
    """The rank of ``np.matmul`` or ``np.dot`` of operands of these ranks."""
    if any(r is None for r in ranks):
        return None
    if any(r is TOP for r in ranks):
        return TOP
    r1, r2 = ranks
    if fn is np.dot:
        if r1 == 0 or r2 == 0:
            return r1 + r2
        return r1 + r2 - 2 if r2 >= 2 else r1 - 1
    if r1 == 0 or r2 == 0:
        return None  # an error at run time
    if r1 == 1 or r2 == 1:
        return r1 + r2 - 2
    return max(r1, r2)


def _atom(node, env):
    if isinstance(node, gast.Constant):
        if node.value is None:
            return TOP
        return 0 if isinstance(node.value, (int, float)) else None
    return env.get(node.id) if isinstance(node, gast.Name) else None


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


def _rank(s, env, ints, stacks, literals, static, resolve, tuples):
    """The rank statement ``s`` gives its target, from the ranks ``env`` holds now."""
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
        return v.ndim if isinstance(v, Variable) else None
    if _shaped_like_argument(value):
        return env.get(value.args[0].id)
    if isinstance(value, gast.Call) and kind != "prim" and resolve is not None:
        return _constructed(value, resolve(value.func), env, ints)
    if isinstance(value, gast.BinOp) and isinstance(value.op, ARITHMETIC) \
            and all(isinstance(v, (gast.Name, gast.Constant)) for v in (value.left, value.right)):
        return _elementwise([_atom(value.left, env), _atom(value.right, env)])  # not recorded
    if kind == "getitem" or isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return _indexed(value, env, ints)  # also ``xs[t]`` of a constant array (kind opaque)
    if kind == "prim":
        return _primitive(s, env, literals)
    return None


def _indexed(value, env, ints):
    """The rank of ``base[index]``: one less for each integer index, none for a slice."""
    base = env.get(value.value.id)
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    if base is None or base is TOP:
        return base
    if any(isinstance(p, gast.Constant) and p.value is None for p in parts):
        return None
    removed = 0
    for p in parts:
        if isinstance(p, gast.Slice):
            continue
        if isinstance(p, gast.Name) and p.id in ints:
            removed += 1
        elif _int_index_count(p) == 1:
            removed += 1
        else:
            return None
    return base - removed if base >= removed else None


def _primitive(s, env, literals):
    """The rank of a primitive's result, by its entry's rank rule (``Rule.rank``)."""
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
            return inner if inner is None or inner is TOP else inner + 1
    if how == "like_second":
        like = s.sg_args.get("like")
        return _atom(like, env) if like is not None else None
    if how == "scalar":
        return 0
    operands = [_atom(s.sg_args.get(p.name), env) for p in rule_params(s.sg_rule)[:2]]
    if how == "reduce" and isinstance(s.sg_args.get("axis"), gast.Constant):
        return _reduced(s.sg_args["axis"].value, s.sg_args.get("keepdims"), operands[0])
    if how == "same":
        return operands[0]
    if how == "product":
        return _product(fn, operands)
    if how == "elementwise" and s.sg_args and len(args) == len(s.sg_args):
        return _elementwise(args)
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


def infer(body, params, sample, ints, static=None):
    """Name -> rank, for the names bound only to values of one rank, given the first
    call's arguments ``sample``.

    Ranks are inferred for every variable, optimistically (the way constant
    propagation is): each starts as ``TOP`` and only ever goes down to one
    rank, then to ``None``, as its assignments are evaluated again, until
    nothing changes. Loop-carried values (``s = s + x[i]``) keep their rank by
    induction, and ``state[0]`` of a computed vector is known to be a scalar.
    ``static(node)``: the object an attribute chain denotes at compile time,
    for the ranks of Variables read from objects (the cache keys on them).
    """
    if sample is None:
        return {}
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
    given = {p: _rank_of_value(v) for p, v in zip(params, sample)}
    env = {p: r for p, r in given.items() if p not in defs}
    env.update({n: TOP for n in defs})
    env.update({n: 0 for n in ints})
    changed = True
    while changed:
        changed = False
        for name in sorted(set(defs) - set(ints)):
            ranks = [None if s is None else _rank(s, env, ints, stacks, literals, static, resolve,
                                                  tuples) for s in defs[name]]
            new = _join(ranks + [given[name]] if name in given else ranks)  # x = 2 * x
            if new != env[name]:
                env[name] = new
                changed = True
    return {n: r for n, r in env.items() if isinstance(r, int)}
