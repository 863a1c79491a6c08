"""``with np.errstate(...):`` around differentiated code, in the compiler's language.

NumPy's error state decides only whether a floating-point event warns, raises or
passes; the values are the same. So the block is its statements between a call
that sets the state and one that puts the old one back (both without
derivative), and the forward code runs them under the state the user asked for::

    with np.errstate(divide="ignore"):        errstate = _sg.push_errstate(divide="ignore")
        y = np.log(x)                  ->     y = np.log(x)
                                              _sg.pop_errstate(errstate)

A block that leaves early (``return``, ``break``, ``continue``, ``yield``) would skip
the second call: it stays a ``with`` statement, refused as before. (The backward
code runs under the caller's state.)
"""
import gast
import numpy as np

from ..ir import templates as T

_EXITS = (gast.Return, gast.Break, gast.Continue, gast.Yield, gast.YieldFrom, gast.Raise)


def lower(stmts, resolve, namer=None, _count=None):
    """``stmts`` with each ``with np.errstate(...)`` lowered; ``resolve(expr)`` is the
    object an expression names when the code is compiled (or None); ``namer`` names
    the saved states (without one: ``_sg_errstate_<k>``, nested blocks apart)."""
    count = _count if _count is not None else [0]
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                    and not isinstance(s, gast.FunctionDef):
                setattr(s, field, lower(inner, resolve, namer, count))
        if _errstate(s, resolve):
            call = s.items[0].context_expr
            count[0] += 1
            name = namer.fresh("errstate") if namer is not None else f"_sg_errstate_{count[0]}"
            push = T.assign(name, gast.Call(T.expr("_sg.push_errstate"), list(call.args),
                                            list(call.keywords)))
            pop = gast.Expr(gast.Call(T.expr("_sg.pop_errstate"), [T.name(name)], []))
            out += [gast.copy_location(push, s)] + s.body + [gast.copy_location(pop, s)]
            continue
        out.append(s)
    return out


def _errstate(s, resolve):
    if not isinstance(s, gast.With) or len(s.items) != 1 or s.items[0].optional_vars is not None:
        return False
    call = s.items[0].context_expr
    if not isinstance(call, gast.Call) or resolve(call.func) is not np.errstate:
        return False
    return not any(isinstance(n, _EXITS) for b in s.body for n in gast.walk(b))


def resolver(src):
    """``resolve`` for ``lower``: what a name or an attribute of one denotes in ``src``'s
    globals and closure (locals are not known here: they are not ``np``)."""
    def resolve(expr):
        if isinstance(expr, gast.Attribute):
            base = resolve(expr.value)
            return getattr(base, expr.attr, None) if base is not None else None
        if isinstance(expr, gast.Name):
            cell = src.freevars.get(expr.id)
            if cell is not None:
                try:
                    return cell.cell_contents
                except ValueError:
                    return None
            return src.globals.get(expr.id)
        return None
    return resolve
