"""Context managers that change only how floating-point events and warnings are
reported (``np.errstate``, ``warnings.catch_warnings``, ``np.printoptions``,
``contextlib.nullcontext``), around differentiated code, in the compiler's language.

The values are the ones without them. So the block is its statements between a
call that enters the context and one that leaves it (both without derivative),
and the forward code runs them in it::

    with np.errstate(divide="ignore"):        errstate = np.errstate(divide="ignore")
        y = np.log(x)                  ->     _sg.enter_context(errstate)
                                              y = np.log(x)
                                              _sg.exit_context(errstate)

(``with ... as w``: ``w = _sg.enter_context(...)``.) A block that leaves early
(``return``, ``break``, ``continue``, ``yield``, ``raise``) would skip the second
call: it stays a ``with`` statement, refused as before. The backward code runs in
the caller's context.
"""
import gast

from ..ir import templates as T
from ..rules import table

_EXITS = (gast.Return, gast.Break, gast.Continue, gast.Yield, gast.YieldFrom, gast.Raise)
_REPORTING_ONLY = table.REPORTING_CONTEXTS


def lower(stmts, resolve, namer=None, _count=None):
    """``stmts`` with each such ``with`` statement lowered; ``resolve(expr)`` is the
    object an expression names when the code is compiled (or None); ``namer`` names
    the context managers (without one: ``_sg_context_<k>``, nested blocks apart)."""
    count = _count if _count is not None else [0]
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                    and not isinstance(s, gast.FunctionDef):
                setattr(s, field, lower(inner, resolve, namer, count))
        if _reporting_only(s, resolve):
            item = s.items[0]
            count[0] += 1
            name = namer.fresh("context") if namer is not None else f"_sg_context_{count[0]}"
            enter = gast.Call(T.expr("_sg.enter_context"), [T.name(name)], [])
            head = [T.assign(name, item.context_expr),
                    T.assign(item.optional_vars.id, enter) if item.optional_vars is not None
                    else gast.Expr(enter)]
            leave = gast.Expr(gast.Call(T.expr("_sg.exit_context"), [T.name(name)], []))
            out += [gast.copy_location(h, s) for h in head] + s.body \
                + [gast.copy_location(leave, s)]
            continue
        out.append(s)
    return out


def _reporting_only(s, resolve):
    if not isinstance(s, gast.With) or len(s.items) != 1:
        return False
    item = s.items[0]
    if item.optional_vars is not None and not isinstance(item.optional_vars, gast.Name):
        return False
    call = item.context_expr
    if not isinstance(call, gast.Call) or resolve(call.func) not in _REPORTING_ONLY:
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
