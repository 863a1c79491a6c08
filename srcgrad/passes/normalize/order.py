"""Reads that Python makes before a call in the same statement, made before it.

``c.x + c.bump()`` reads ``c.x`` first, then calls ``bump``, which may set ``c.x``
again. The normalizer inlines the call, its statements before the statement's own,
and so read ``c.x`` (or the local mirroring it, ``attributes.py``) after them: the
value and the gradient of the old attribute were those of the new (a portfolio's
``port.w - port.rebalance(t)`` was 0). Such a read is bound to a name first.
"""
import gast

from ...ir import anno, templates as T
from ...ir.names import walk_stmts


def hoist_reads_before_calls(norm, body):
    """In ``body`` (nested blocks too), each attribute or item read that a call to the
    user's code follows in its statement is bound to a name before the statement."""
    changed = False
    for owner, field in _bodies(body):
        stmts = getattr(owner, field) if owner is not None else body
        out = []
        for s in stmts:
            if isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and s.value is not None \
                    and anno.kind(s) is None:
                reads = _reads_before_calls(norm, s.value)
                for read in reads:
                    name = norm.ctx.namer.fresh(_hint(read))
                    out.append(anno.like(T.assign(name, _clone(read)), s))
                    _replace(s, read, T.name(name))
                    changed = True
            out.append(s)
        if owner is None:
            body[:] = out
        else:
            setattr(owner, field, out)
    return changed


def _bodies(body):
    yield None, None
    for s in walk_stmts(body):
        if isinstance(s, gast.FunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                yield s, field
        for handler in getattr(s, "handlers", ()):
            yield handler, "body"


def _reads_before_calls(norm, expr):
    """The attribute and item reads of ``expr``, in the order Python evaluates them, that a
    call of the user's code comes after (not those inside branches, lambdas or
    comprehensions, evaluated maybe or later)."""
    seen, found = [], []
    for node in _in_order(expr):
        if isinstance(node, gast.Call):
            if not norm.ctx.harmless_call(node) and _user_call(norm, node):
                found += [r for r in seen if r not in found]
            continue
        if isinstance(node, (gast.Attribute, gast.Subscript)) and isinstance(node.ctx, gast.Load) \
                and _of_an_object(norm, node):
            seen.append(node)
    # (the outermost of nested reads: ``a.b.c`` once)
    return [r for r in found if not any(r is not o and _inside(r, o) for o in found)]


def _in_order(node):
    """The nodes of an expression in the order Python evaluates them (a call after its
    function and arguments), not descending into lambdas, comprehensions and the branches
    of conditional expressions or the later operands of ``and`` / ``or``."""
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                         gast.GeneratorExp)):
        return
    if isinstance(node, gast.IfExp):
        yield from _in_order(node.test)
        return
    if isinstance(node, gast.BoolOp):
        yield from _in_order(node.values[0])
        return
    if isinstance(node, gast.Call):
        # (the function called, ``self.layers[0]``, ``obj.method``, left as it is: the
        # compiler resolves calls through what they are spelled)
        for a in node.args:
            yield from _in_order(a)
        for k in node.keywords:
            yield from _in_order(k.value)
        yield node
        return
    for field in node._fields:
        value = getattr(node, field, None)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST) and not isinstance(child, (gast.expr_context,
                                                                     gast.operator)):
                yield from _in_order(child)
    yield node


def _user_call(norm, call):
    """May ``call`` run code of the user's (which may set attributes and items)?"""
    from ...ir.resolve import MISSING, is_library

    f = norm.scope.value(call.func)
    if f is MISSING:
        return True
    return not (is_library(f) or isinstance(f, type) and f.__module__ == "builtins")


def _of_an_object(norm, node):
    """An object's attribute (not a module's or a class's, nor an array's such as ``.T``:
    no call changes those), or an item of a dict or a list known when compiling (an
    array's item read early would be a view: ``ir/aliasing.py`` would refuse its writes)."""
    import types

    import numpy as np

    from ...ir.resolve import MISSING

    base = norm.scope.value(node.value)
    if isinstance(node, gast.Attribute):
        return not isinstance(base, (types.ModuleType, type, np.ndarray)) \
            and not hasattr(np.ndarray, node.attr)
    return base is not MISSING and type(base) in (dict, list)


def _inside(inner, outer):
    return any(n is inner for n in gast.walk(outer))


def _hint(node):
    return f"{node.attr}_before" if isinstance(node, gast.Attribute) else "item_before"


def _clone(node):
    import copy

    return copy.deepcopy(node)


def _replace(stmt, old, new):
    for parent in gast.walk(stmt):
        for field in parent._fields:
            value = getattr(parent, field, None)
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, v in enumerate(value):
                    if v is old:
                        value[i] = new
                        return
