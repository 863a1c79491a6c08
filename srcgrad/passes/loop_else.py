"""The ``else`` of a loop becomes an ``if`` after it, on a flag its breaks set.

Runs once, on the parsed function, after ``walrus.hoist``. Python runs a loop's
``else`` when the loop ends without ``break``; a flag set right before each of
the loop's own breaks says the same, and the rest of the compiler knows loops
with breaks and branches::

    for v in xs:                        v_broke = False
        if v < 0:                       for v in xs:
            break                ->         if v < 0:
        s = s + v                               v_broke = True
    else:                                       break
        s = s * 2                           s = s + v
                                        if not v_broke:
                                            s = s * 2

A loop without a ``break`` of its own runs its ``else`` always: it follows the
loop. Inner loops are lowered first, so a ``break`` in an inner loop's ``else``
(which belongs to the outer loop) is found in the ``if`` it became.
"""
import gast

from ..ir import templates as T
from ..ir.names import fresh_name


def lower(fn):
    """Rewrite the loop ``else`` clauses of ``fn`` (a gast FunctionDef) and its nested
    defs, in place."""
    taken = {n.id for n in T.walk(fn) if isinstance(n, gast.Name)}
    _block(fn, "body", taken)


def _block(owner, field, taken):
    out = []
    for s in getattr(owner, field):
        for inner in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, inner, None), list) and not isinstance(s, gast.ClassDef):
                _block(s, inner, taken)
        for handler in getattr(s, "handlers", ()):
            _block(handler, "body", taken)
        if isinstance(s, (gast.For, gast.While)) and s.orelse:
            out += _lowered(s, taken)
        else:
            out.append(s)
    setattr(owner, field, out)


def _lowered(loop, taken):
    orelse, loop.orelse = loop.orelse, []
    breaks = list(_own_breaks(loop.body, loop, "body"))
    if not breaks:
        return [loop] + orelse
    flag = _fresh(loop, taken)
    for owner, field, k in reversed(breaks):  # (reversed: earlier positions stay valid)
        stmts = getattr(owner, field)
        brk = stmts[k]
        stmts.insert(k, gast.copy_location(T.assign(flag, T.const(True)), brk))
    test = gast.UnaryOp(gast.Not(), T.name(flag))
    return [gast.copy_location(T.assign(flag, T.const(False)), loop), loop,
            gast.copy_location(gast.If(test, orelse, []), orelse[0])]


def _own_breaks(stmts, owner, field):
    """(statement list's owner, field, position) of each ``break`` of the loop whose
    body is ``stmts``: not those of loops or defs inside it."""
    for k, s in enumerate(stmts):
        if isinstance(s, gast.Break):
            yield owner, field, k
        elif not isinstance(s, (gast.For, gast.While, gast.FunctionDef, gast.ClassDef)):
            for inner in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, inner, None), list):
                    yield from _own_breaks(getattr(s, inner), s, inner)
            for handler in getattr(s, "handlers", ()):
                yield from _own_breaks(handler.body, handler, "body")


def _fresh(loop, taken):
    target = loop.target if isinstance(loop, gast.For) else None
    return fresh_name(f"{target.id}_broke" if isinstance(target, gast.Name) else "loop_broke",
                      taken)
