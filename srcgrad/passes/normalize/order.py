"""What Python evaluates before a call in the same statement, evaluated before it.

``c.x + c.bump()`` reads ``c.x`` first, then calls ``bump``, which may set ``c.x``
again. The normalizer inlines the call, its statements before the statement's own,
and so read ``c.x`` (or the local mirroring it, ``attributes.py``) after them: the
value and the gradient of the old attribute were those of the new (a portfolio's
``port.w - port.rebalance(t)`` was 0). So the reads of objects' attributes and items,
and the calls of the user's code, that come before a statement's last such call are
each bound to a name before the statement, in the order Python evaluates them
(``c.bump() + c.x + c.bump()``: the first call, then the read).
"""
import copy
import types

import gast
import numpy as np

from ...ir import anno, templates as T
from ...ir.names import walk_stmts
from ...ir.resolve import MISSING, is_library
from .attributes import replace_node


def hoist_reads_before_calls(norm, body):
    """In ``body`` (nested blocks too), what each statement evaluates before its last call
    of the user's code, bound to names before it (see the module's doc)."""
    changed = False
    fields = _field_locals(norm)  # (the same for every statement of this round)
    for owner, field in _bodies(body):
        stmts = getattr(owner, field) if owner is not None else body
        out = []
        for s in stmts:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) and anno.kind(s) is None \
                    and _conditional(norm, s.value):
                out += _as_statements(norm, s, s.targets[0].id, s.value)
                changed = True
                continue
            if isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and s.value is not None \
                    and anno.kind(s) is None:
                for item in _before_last_call(norm, s.value, fields):
                    name = norm.ctx.namer.fresh(_hint(item))
                    out += _as_statements(norm, s, name, item) if _conditional(norm, item) \
                        else [anno.like(T.assign(name, copy.deepcopy(item)), s)]
                    replace_node(s, item, T.name(name))
                    changed = True
            out.append(s)
        if owner is None:
            body[:] = out
        else:
            setattr(owner, field, out)
    return changed


def _conditional(norm, node):
    """A conditional expression, or a chained comparison, calling the user's code where
    it may not run (``a if c else f()``, ``a < b < f()``)."""
    if isinstance(node, gast.IfExp):
        return _calls_user_code(norm, node)
    return isinstance(node, gast.Compare) and len(node.ops) > 1 \
        and any(_calls_user_code(norm, c) for c in node.comparators[1:])


def _as_statements(norm, s, name, value):
    """``name = value`` (at ``s``), ``value`` a ``_conditional``, as statements running
    what Python runs, in its order."""
    if isinstance(value, gast.IfExp):
        return [_branches(norm, s, name, value)]
    # ``a < b < c()``: ``t = b; name = a < t; if name: name = t < c()``
    left = value.left
    out = body = []
    for k, (op, right) in enumerate(zip(value.ops, value.comparators)):
        last = k == len(value.ops) - 1
        step = []
        if not last:
            held = norm.ctx.namer.fresh("compared")
            step.append(anno.like(T.assign(held, copy.deepcopy(right)), s))
            right = T.name(held)
        step.append(anno.like(T.assign(name, gast.Compare(copy.deepcopy(left), [op],
                                                          [copy.deepcopy(right)])), s))
        hoist_reads_before_calls(norm, step)
        body += step
        if not last:
            nest = anno.like(gast.If(T.name(name), [], []), s)
            body.append(nest)
            body = nest.body
        left = right
    return out


def _branches(norm, s, name, value):
    """``name = a if test else b`` (at ``s``) as an if statement: ``(c.x + c.bump()) if
    flag else 0``, each branch's reads and calls then ordered as a statement's."""
    branches = [[anno.like(T.assign(name, copy.deepcopy(v)), s)] for v in (value.body,
                                                                           value.orelse)]
    for branch in branches:
        hoist_reads_before_calls(norm, branch)
    return anno.like(gast.If(copy.deepcopy(value.test), *branches), s)


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


def _before_last_call(norm, expr, fields):
    """The reads and calls (outermost first met) that ``expr`` evaluates before its last
    call of the user's code, in that order."""
    items = []  # (node, is a call)
    _items(norm, expr, items, fields)
    last = max((i for i, (_, call) in enumerate(items) if call), default=None)
    if last is None:
        return []
    if _conditional(norm, items[last][0]):
        last += 1  # (made a statement of its own, then an if statement: as above)
    elif not any(not call for _, call in items[:last]):
        return []  # (no read before a call: nothing evaluated out of order)
    return [node for node, _ in items[:last]]


def _field_locals(norm):
    """The locals standing for objects' attributes: of objects the code builds
    (``objects.py``) and of those it was handed (``attributes.py``)."""
    fields = {f for o in norm.ctx.objects.values() for f in o.fields.values()
              if isinstance(f, str)}
    return fields | set(norm.ctx.mirrors.values())


def _calls_user_code(norm, node):
    return any(isinstance(n, gast.Call) and _user_call(norm, n) for n in gast.walk(node))


def _items(norm, node, items, fields):
    """Append to ``items`` the object reads and calls of the user's code ``node`` makes,
    in the order Python evaluates them. A conditional part (a branch of ``a if c else
    b``, the operands of ``and``/``or`` after the first, a comprehension) holding such
    a call is one call, evaluated whole."""
    if isinstance(node, gast.Lambda):
        return
    if isinstance(node, gast.Compare) and len(node.ops) > 1 \
            and any(_calls_user_code(norm, c) for c in node.comparators[1:]):
        # ``a < b < c()``: ``c()`` runs only where ``a < b``
        _items(norm, node.left, items, fields)
        _items(norm, node.comparators[0], items, fields)
        items.append((node, True))
        return
    if isinstance(node, (gast.IfExp, gast.BoolOp, gast.ListComp, gast.SetComp,
                         gast.DictComp, gast.GeneratorExp)):
        first = node.test if isinstance(node, gast.IfExp) else \
            node.values[0] if isinstance(node, gast.BoolOp) else None
        if first is not None:
            _items(norm, first, items, fields)
        if _calls_user_code(norm, node):
            items.append((node, True))
        return
    if isinstance(node, gast.Call):
        # (the function called, ``self.layers[0]``, ``obj.method``, left as it is: the
        # compiler resolves calls through what they are spelled)
        for a in node.args:
            _items(norm, a, items, fields)
        for k in node.keywords:
            _items(norm, k.value, items, fields)
        if _user_call(norm, node):
            items.append((node, True))
        return
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) \
            and node.id in fields:
        items.append((node, False))  # (an attribute read, as its local: ``c.x`` is ``c_x``)
        return
    if isinstance(node, (gast.Attribute, gast.Subscript)) and isinstance(node.ctx, gast.Load) \
            and _of_an_object(norm, node):
        if _calls_user_code(norm, node):
            _items(norm, node.value, items, fields)
            if isinstance(node, gast.Subscript):
                _items(norm, node.slice, items, fields)
        items.append((node, False))
        return
    for field in node._fields:
        value = getattr(node, field, None)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST) and not isinstance(child, (gast.expr_context,
                                                                     gast.operator)):
                _items(norm, child, items, fields)


def _user_call(norm, call):
    """May ``call`` run code of the user's (which may set attributes and items)?"""
    f = norm.scope.value(call.func)
    if f is MISSING:
        return True
    return not (is_library(f) or isinstance(f, type) and f.__module__ == "builtins")


def _of_an_object(norm, node):
    """An object's attribute (not a module's or a class's, nor an array's such as ``.T``:
    no call changes those), or an item of a dict or a list known when compiling (an
    array's item read early would be a view: ``ir/aliasing.py`` would refuse its writes)."""
    base = norm.scope.value(node.value)
    if isinstance(node, gast.Attribute):
        return not isinstance(base, (types.ModuleType, type, np.ndarray)) \
            and not hasattr(np.ndarray, node.attr)
    return base is not MISSING and type(base) in (dict, list)


def _hint(node):
    if isinstance(node, gast.Attribute):
        return f"{node.attr}_before"
    return "called_before" if isinstance(node, gast.Call) else "item_before"
