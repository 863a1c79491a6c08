"""Recompute cheap scalars in reverse loops instead of saving them.

A value that a loop body computes and the backward pass reads is saved on a
stack in every iteration and popped in the reverse loop: two list operations
per value and iteration, and a forward loop that must run first. When the
value is a scalar computed from the loop index, from names the function never
rebinds or changes, and from other such scalars of the same iteration
(``r = x[i + 1] - x[i] ** 2``), the reverse loop computes it again instead,
as a hand-written adjoint does. Nothing is saved; if the forward loop then
computes nothing anyone reads, ``cleanup.drop_unused`` removes it::

    for i in i_range:                       for i in reversed(i_range):
        r_stack.append(r)                       # recomputed: r = x[i + 1] - x[i] ** 2 ...
        r = x[i + 1] - x[i] ** 2      ->        r = x[i + 1] - x[i] ** 2
    for i in reversed(i_range):                 dx[i] += ...
        dx[i] += ...
        r = r_stack.pop()

Only top-level ``for`` loops replayed over their sequence (``reversed(r)``),
whose body is plain statements, qualify: there the loop target is bound again
in the reverse loop, and every value of an iteration can be rebuilt from it.
"""
import copy

import gast

from ..ir import anno, templates as T
from ..ir.effects import pure_assignment
from ..ir.names import loads, stores, walk_stmts

_MUTATING = ("setitem", "append", "pop")


def plan(body, params, backward, needed, scalars, harmless):
    """Recompute in reverse loops what ``needed`` holds and can be rebuilt there.

    ``scalars``: names known to hold 0-d values (ranks.py). ``harmless(call)``:
    whether a call cannot change its arguments (a NumPy function, ``len``).
    Inserts the statements into ``backward``'s reverse loops and returns
    (names no longer ``needed``, names the backward pass now binds itself).
    """
    unstable = _unstable(body, params, harmless)
    saved_not, bound = set(), set()
    for loop in body:
        reverse = _reverse_of(loop, backward)
        if reverse is None:
            continue
        outside = _loads_outside(backward, reverse)
        rebuilt = _rebuildable(loop, unstable, scalars)
        wanted = {n for n in rebuilt if n in needed and n not in outside}
        if not wanted:
            continue
        keep = _with_inputs(wanted, rebuilt)
        reverse.body[:0] = _commented([rebuilt[n] for n in rebuilt if n in keep])  # forward order
        saved_not |= wanted
        bound |= keep - outside
        if loop.target.id not in outside:
            bound.add(loop.target.id)
    return saved_not, bound


def _commented(stmts):
    """Copies of ``stmts`` under one comment per line of the user's code they come from."""
    out, last, seen = [], None, {}
    for s in stmts:
        o = anno.origin(s)
        key = (o.filename, o.lineno) if o else None
        if o is not None and key != last:
            out.append(T.comment(f"recomputed, not saved: {o.text} ({o.short()})"))
        last = key
        new = copy.deepcopy(s)
        text = gast.unparse(s.value)  # ``x[i]`` twice in a line: index once, copy after
        if text in seen:
            new.value = T.name(seen[text])
        else:
            seen[text] = s.targets[0].id
        out.append(new)
    return out


def _reverse_of(loop, backward):
    """The reverse loop replaying ``loop`` over its sequence, if ``loop`` qualifies."""
    if not isinstance(loop, gast.For) or getattr(loop, "sg_range", None) is None \
            or getattr(loop, "sg_early_exit", False) or loop.orelse:
        return None
    if any(isinstance(s, (gast.If, gast.For, gast.While, gast.With, gast.Try)) for s in loop.body):
        return None
    for s in backward:
        if isinstance(s, gast.For) and getattr(s, "sg_loop", None) is loop:
            return s
    return None


def _loads_outside(backward, loop):
    out = set()
    for s in backward:
        if s is not loop:
            out |= loads(s)
    return out


def _unstable(body, params, harmless):
    """Names bound more than once or changed in place; every other name keeps one value.

    A parameter is bound once already: assigned again in the body, it is
    unstable (the backward pass would not see it restored before a reverse
    loop that reads it, unless something else needed it).
    """
    count, changed = dict.fromkeys(params, 1), set()
    for s in walk_stmts(body):
        target = s.target if isinstance(s, gast.For) else s
        if isinstance(s, (gast.If, gast.While)):
            continue
        for name in stores(target):
            count[name] = count.get(name, 0) + 1
        if isinstance(s, gast.For) or anno.kind(s) == "watch":  # a tape's marker changes nothing
            continue
        if anno.kind(s) in _MUTATING:
            changed |= loads(s.targets[0].value if anno.kind(s) == "setitem" else s.value.func)
        elif not pure_assignment(s) and not _harmless(s, harmless):
            changed |= loads(s)  # a call may change what it is given
    return {n for n, k in count.items() if k > 1} | changed


def _harmless(s, harmless):
    """An assignment whose calls cannot change their arguments (``n = len(x)``)."""
    if not isinstance(s, gast.Assign):
        return False
    calls = [n for n in T.walk(s.value) if isinstance(n, gast.Call)]
    return all(harmless(c) for c in calls)


def _rebuildable(loop, unstable, scalars):
    """Name -> its statement, for the scalars of ``loop``'s body the reverse loop can rebuild."""
    index = loop.target.id
    bound_here = {name for s in loop.body for name in stores(s)}
    if index in bound_here:
        return {}
    out = {}
    for s in loop.body:
        if not pure_assignment(s) or len(s.targets) != 1 or not isinstance(s.targets[0], gast.Name):
            continue
        name = s.targets[0].id
        if name in unstable:  # bound by this statement only
            continue
        if anno.kind(s) == "read":
            continue  # (a source read: a tape's report of it is matched by its name)
        if name not in scalars and not isinstance(s.value, gast.Name):
            continue  # only scalars are cheap to compute again; a copy is free
        if all(n == index or n in out or (n not in unstable and n not in bound_here)
               for n in loads(s.value)):
            out[name] = s
    return out


def _with_inputs(wanted, rebuilt):
    keep, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        todo += [n for n in loads(rebuilt[name].value) if n in rebuilt]
    return keep
