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

from . import anno
from .activity import walk_stmts

_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin}


def _rank_of_value(value):
    if isinstance(value, (bool, int, float, np.generic)):
        return 0
    if isinstance(value, np.ndarray):
        return value.ndim
    return None


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


def _rank(s, ranks, ints):
    kind = anno.kind(s)
    value = s.value
    if isinstance(value, gast.Constant):
        return 0 if isinstance(value.value, (int, float)) else None
    if kind == "copy":
        return ranks.get(value.id)
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
        elementwise = isinstance(fn, np.ufunc) or s.sg_rule.broadcast
        if elementwise and s.sg_args and all(r == 0 for r in arg_ranks):
            return 0
        if getattr(fn, "__module__", None) == "math" or fn is math.pow:
            return 0
        if fn in _REDUCTIONS and isinstance(s.sg_args.get("axis"), gast.Constant) \
                and s.sg_args["axis"].value is None:
            return 0
    return None


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
    known = {p: _rank_of_value(v) for p, v in zip(params, sample) if p not in defs}
    candidates = {n for n in defs if n not in ints} | {p for p, r in known.items() if r == 0}
    changed = True
    while changed:
        changed = False
        ranks = dict(known)
        ranks.update({n: 0 for n in candidates | set(ints)})
        for name in sorted(candidates & set(defs)):
            if any(s is None or _rank(s, ranks, ints) != 0 for s in defs[name]):
                candidates.discard(name)
                changed = True
    return candidates | set(ints)
