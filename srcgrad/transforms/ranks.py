"""Which variables are known to be scalars (0-d), from the arguments of the first call.

Elementwise adjoints need ``_sg.unbroadcast`` only when an operand may have
been broadcast; between scalars nothing is, and the call (and keeping the
operand's value alive for its shape) can go. Arrays' ranks are part of the
cache key, so what is inferred here holds for every call that reuses the code.

Flow-insensitive: a name has a rank only if every assignment gives it the same.
"""
import math

import gast
import numpy as np

from .. import runtime
from ..variables import Variable
from . import anno
from .activity import walk_stmts

_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin}


def _rank_of_value(value):
    if isinstance(value, (bool, int, float, np.generic)):
        return 0
    if isinstance(value, (np.ndarray, Variable)):
        return value.ndim
    return None


# Helpers that return their argument's value as it is (same rank).
_IDENTITIES = {runtime.read_value, runtime.copy_slot}
_LIKE_SECOND = {runtime.unbroadcast, runtime.broadcast_like}
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
        for node in gast.walk(s):
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


def _rank(s, ranks, ints, stacks=None):
    kind = anno.kind(s)
    value = s.value
    if kind == "pop" and stacks:
        values = stacks.get(value.func.value.id)
        if values and all(_atom_rank(v, ranks) == 0 for v in values):
            return 0
        return None
    if isinstance(value, gast.Constant):
        # ``None``: the placeholder for a name not bound yet on some path
        # (generated code pre-sets those); it constrains no rank.
        return 0 if value.value is None or isinstance(value.value, (int, float)) else None
    if isinstance(value, gast.Name):  # a copy (of an active value or not)
        return ranks.get(value.id)
    if _shaped_like_argument(value):
        return ranks.get(value.args[0].id)
    if kind == "getitem":
        base = ranks.get(value.value.id)
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if base is None or any(isinstance(p, gast.Constant) and p.value is None for p in parts):
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
    if kind == "prim":
        fn = s.sg_func
        arg_ranks = [0 if isinstance(a, gast.Constant) else ranks.get(a.id)
                     for a in s.sg_args.values() if isinstance(a, (gast.Name, gast.Constant))]
        if fn in _IDENTITIES:
            return arg_ranks[0] if arg_ranks else None
        if fn in _LIKE_SECOND:  # shaped like their second argument
            like = s.sg_args.get("like")
            return _atom_rank(like, ranks) if like is not None else None
        elementwise = isinstance(fn, np.ufunc) or s.sg_rule.broadcast
        if elementwise and s.sg_args and all(r == 0 for r in arg_ranks):
            return 0
        if getattr(fn, "__module__", None) == "math" or fn is math.pow:
            return 0
        if fn in _REDUCTIONS and isinstance(s.sg_args.get("axis"), gast.Constant) \
                and s.sg_args["axis"].value is None:
            return 0
    return None


def _atom_rank(node, ranks):
    if isinstance(node, gast.Constant):
        return 0 if node.value is None or isinstance(node.value, (int, float)) else None
    return ranks.get(node.id) if isinstance(node, gast.Name) else None


def scalar_names(body, params, sample, ints):
    """Names bound only to scalars, given the first call's arguments ``sample``.

    A greatest fixpoint: assume every variable is a scalar, then drop those
    with an assignment that may not give one, until nothing changes. Loop-
    carried values (``s = s + x[i]``) stay scalars by induction.
    """
    if sample is None:
        return set()
    defs = {}
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            defs.setdefault(s.targets[0].id, []).append(s)
        else:
            for t in getattr(s, "targets", []):
                for n in gast.walk(t):
                    if isinstance(n, gast.Name):
                        defs.setdefault(n.id, []).append(None)
            if isinstance(s, gast.For) and s.target.id not in ints:
                defs.setdefault(s.target.id, []).append(None)
    stacks = _stack_items(body)
    known = {p: _rank_of_value(v) for p, v in zip(params, sample) if p not in defs}
    candidates = {n for n in defs if n not in ints} | {p for p, r in known.items() if r == 0}
    changed = True
    while changed:
        changed = False
        ranks = dict(known)
        ranks.update({n: 0 for n in candidates | set(ints)})
        for name in sorted(candidates & set(defs)):
            if any(s is None or _rank(s, ranks, ints, stacks) != 0 for s in defs[name]):
                candidates.discard(name)
                changed = True
    return candidates | set(ints)
