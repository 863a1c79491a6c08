"""Lists and tuples of objects built in the compiled code (objects.py), known when compiling.

``layers = [Dense(W1, b1), Dense(W2, b2)]`` (or ``self.layers = [...]`` in an
``__init__``): each object is kept as its attributes, and the list is only a
name for them, in order. Its uses are rewritten to the objects: ``layers[0]``
(a constant index) is the first; ``for layer in layers:`` (also over
``enumerate`` or ``reversed`` of it) is unrolled, the body once per object;
``len(layers)`` is a constant; ``[l.W for l in layers]`` and a generator
expression over it are the display of the items. Another name for the list
(``self.layers``, a parameter it is passed to) is the list. Anything else
(an append, an item written, a slice, an index known only when running, the
list passed to code srcgrad does not compile) leaves the list a value: its
objects are then refused (objects.py) as before.
"""
import copy

import gast

from ...ir import anno, templates as T
from ...ir.names import handed_on, walk_stmts, written_into
from ..desugar import _own_exits_any

_ITERATORS = ("enumerate", "reversed")


def display_of_objects(rw, s):
    """The roots of ``s``'s objects if ``s`` binds a name, once, to a list or tuple
    display of objects whose every use is one this module rewrites; else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, (gast.List, gast.Tuple))
            and s.value.elts):
        return None
    roots = [rw._root(e.id) if isinstance(e, gast.Name) else None for e in s.value.elts]
    if None in roots or rw.counts.get(s.targets[0].id, 0) != 1:
        return None
    return roots if list_kept(rw, s.targets[0].id, s) else None


def list_kept(rw, name, defining):
    """Is every use of the list ``name`` (and of other names bound to it) one this module
    rewrites? ``defining``: the statement binding it."""
    names = handed_on({name}, name_copies(rw.fn.body))
    if any(rw.counts.get(n, 0) != 1 for n in names - {name}):
        return False
    iterated = set()
    for s in walk_stmts(rw.fn.body):
        if isinstance(s, gast.For):
            iterated.add(id(s.iter))
        for n in gast.walk(s):
            if isinstance(n, gast.comprehension):
                iterated.add(id(n.iter))
    for s in walk_stmts(rw.fn.body):
        if s is defining:
            continue
        nodes = list(gast.walk(s)) if not isinstance(s, (gast.If, gast.While, gast.For)) else \
            [s] + list(gast.walk(getattr(s, "test", None) or s.iter)) + list(
                gast.walk(getattr(s, "target", gast.Pass())))
        for parent in nodes:
            for child in gast.iter_child_nodes(parent):
                if isinstance(child, gast.Name) and child.id in names \
                        and not _kept_use(rw, parent, child, iterated):
                    return False
    return True


def constant_index(node):
    """The int ``node`` is (``0``, ``-1``), or None."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = constant_index(node.operand)
        return None if inner is None else -inner
    return None


def _kept_use(rw, parent, child, iterated):
    if isinstance(parent, gast.Subscript):
        return parent.value is child and isinstance(parent.ctx, gast.Load) \
            and constant_index(parent.slice) is not None
    if isinstance(parent, (gast.For, gast.comprehension)):
        return parent.iter is child and id(child) in iterated
    if isinstance(parent, gast.Assign):
        return parent.value is child
    if isinstance(parent, gast.Call):
        fn = rw.norm.scope.value(parent.func)
        if getattr(fn, "__name__", None) in _ITERATORS + ("len",) and fn.__module__ == "builtins":
            return len(parent.args) == 1 and (fn is len or id(parent) in iterated)
        if fn is zip:  # ``for s, pair in zip(springs, pairs)``
            return id(parent) in iterated and not parent.keywords
        return rw._object_use(parent, child, None)
    return False


def name_copies(body):
    """(a, b) for each ``b = a`` of two names in ``body``: where a name's value goes."""
    return [(s.value.id, s.targets[0].id) for s in walk_stmts(body)
            if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)]


def list_root(rw, name):
    seen = set()
    while name in rw.aliases and name not in seen:
        seen.add(name)
        name = rw.aliases[name]
    return name if name in rw.ctx.object_lists else None


def item(rw, node):
    """``layers[0]`` of a list of objects: the object."""
    root = list_root(rw, node.value.id)
    items = rw.ctx.object_lists[root]
    index = constant_index(node.slice)
    if not -len(items) <= index < len(items):
        raise rw.ctx.error(f"index {index} of a list of {len(items)} objects", rw.cur)
    rw.changed = True
    return T.name(items[index])


def _iterated(rw, it):
    """(the objects in the order a loop takes them, whether with their index) if ``it``
    is a list of objects, ``enumerate`` or ``reversed`` of one; else None."""
    if isinstance(it, gast.Name) and list_root(rw, it.id):
        return rw.ctx.object_lists[list_root(rw, it.id)], False
    if isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords \
            and isinstance(it.args[0], gast.Name) and list_root(rw, it.args[0].id):
        fn = rw.norm.scope.value(it.func)
        items = rw.ctx.object_lists[list_root(rw, it.args[0].id)]
        if fn is enumerate:
            return list(enumerate(items)), True
        if fn is reversed:
            return items[::-1], False
    if isinstance(it, gast.Call) and it.args and not it.keywords \
            and all(isinstance(a, (gast.Name, gast.List, gast.Tuple)) for a in it.args) \
            and rw.norm.scope.value(it.func) is zip:
        # ``zip(springs, pairs)``: the objects of each list of them, the items of a
        # display, other sequences by name (item ``k`` read when it runs), as many
        # trips as the shortest list of objects or display.
        roots = [list_root(rw, a.id) if isinstance(a, gast.Name) else None for a in it.args]
        if any(roots):
            n = min([len(rw.ctx.object_lists[r]) for r in roots if r]
                    + [len(a.elts) for a in it.args if not isinstance(a, gast.Name)])
            return [rw.ctx.object_lists[r][:n] if r else
                    a.id if isinstance(a, gast.Name) else a.elts[:n]
                    for r, a in zip(roots, it.args)], "zip"
    return None


def unrolled(rw, s):
    """``for layer in layers:`` over a list of objects: the body once per object, with
    ``layer`` the object's name; None for another loop."""
    found = _iterated(rw, s.iter)
    if found is None:
        return None
    items, indexed = found
    if indexed == "zip":
        # (A display's items are evaluated in each trip's place: only where the body
        # changes nothing they read, as Python evaluated them before the loop.)
        changed = written_into(s.body, attributes=True) | {
            n.id for b in s.body for n in gast.walk(b)
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        read = {n.id for p in items if isinstance(p, list) and not _objects(p)
                for e in p for n in gast.walk(e) if isinstance(n, gast.Name)}
        return None if read & changed else _unrolled_zip(rw, s, items)
    body = list(s.body)
    index, target = (s.target.elts if indexed and isinstance(s.target, gast.Tuple)
                     and len(s.target.elts) == 2 else (None, s.target))
    first = body[0] if body else None
    if indexed and index is None and isinstance(first, gast.Assign) \
            and isinstance(first.value, gast.Name) and first.value.id == getattr(target, "id", None) \
            and isinstance(first.targets[0], gast.Tuple) and len(first.targets[0].elts) == 2:
        index, target = first.targets[0].elts  # (desugar unpacks ``i, v`` first in the body)
        body = body[1:]
    if indexed and not isinstance(index, gast.Name) or not isinstance(target, gast.Name):
        raise rw.ctx.error("a loop over a list of objects binds one name to each (and its "
                           "index, with enumerate)", s)
    _check_body(rw, s, body, {target.id})
    out = []
    for it in items:
        k, obj = it if indexed else (None, it)
        if indexed:
            out.append(anno.like(T.assign(index.id, T.const(k)), s))
        out += [_substituted(copy.deepcopy(b), target.id, obj) for b in body]
    rw.changed = True
    return out + list(s.orelse)


def _unrolled_zip(rw, s, parts):
    """``for spring, (i, j) in zip(springs, pairs):``: the body once per object, its
    name the object's, the other names bound to item ``k`` of their sequence (checked
    when it runs to hold that many items: Python's zip would stop sooner)."""
    body, target = list(s.body), s.target
    first = body[0] if body else None
    if isinstance(target, gast.Name) and isinstance(first, gast.Assign) \
            and isinstance(first.value, gast.Name) and first.value.id == target.id \
            and isinstance(first.targets[0], gast.Tuple):
        target, body = first.targets[0], body[1:]  # (desugar unpacks the target first)
    if not isinstance(target, gast.Tuple) or len(target.elts) != len(parts) or any(
            _objects(p) and not isinstance(t, gast.Name) for p, t in zip(parts, target.elts)):
        raise rw.ctx.error("a loop over `zip` of a list of objects binds one name to each "
                           "object (and a name or names to each item of the others)", s)
    # (A list of objects holds their names; a display's items are expressions.)
    _check_body(rw, s, body, {t.id for p, t in zip(parts, target.elts) if _objects(p)})
    count = len(next(p for p in parts if _objects(p)))
    o = anno.origin(s)
    out = [anno.set_kind(anno.like(T.stmt("_sg.check_zip(s, n, w)", s=p, n=T.const(count),
                                          w=T.const(o.short() if o else "?")), s), "opaque")
           for p in parts if isinstance(p, str)]
    for k in range(count):
        for p, t in zip(parts, target.elts):
            if not _objects(p):
                item = gast.Subscript(T.name(p), T.const(k), gast.Load()) \
                    if isinstance(p, str) else copy.deepcopy(p[k])
                out.append(anno.like(T.assign(copy.deepcopy(t), item), s))
        for b in body:
            b = copy.deepcopy(b)
            for p, t in zip(parts, target.elts):
                if _objects(p):
                    b = _substituted(b, t.id, p[k])
            out.append(b)
    rw.changed = True
    return out + list(s.orelse)


def _check_body(rw, s, body, names):
    """Refuse a loop over objects whose body leaves early or binds an object's ``names``."""
    if _own_exits_any(body, (gast.Break, gast.Continue)) or any(
            isinstance(n, gast.Name) and n.id in names and not isinstance(n.ctx, gast.Load)
            for b in body for n in gast.walk(b)):
        raise rw.ctx.error(
            "a loop over a list of objects with `break`, `continue`, or its variable bound "
            "again in the body is not supported", s,
            "skip objects with an `if` in the body, and use another name for other values")


def _objects(part):
    """Is a part of ``zip`` a list of objects (their names), not a display's items
    (nodes) or a sequence's name?"""
    return isinstance(part, list) and all(isinstance(p, str) for p in part)


def displayed(rw, node):
    """``[l.W for l in layers]`` / ``(... for l in layers)``: the display of the items;
    None for another comprehension."""
    if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
        return None
    gen = node.generators[0]
    found = _iterated(rw, gen.iter)
    if found is None:
        return None
    items, indexed = found
    target = gen.target
    if indexed:
        if not (isinstance(target, gast.Tuple) and len(target.elts) == 2
                and all(isinstance(e, gast.Name) for e in target.elts)):
            return None
        index, target = target.elts
    if not isinstance(target, gast.Name):
        return None
    elts = []
    for it in items:
        k, obj = it if indexed else (None, it)
        elt = _substituted(copy.deepcopy(node.elt), target.id, obj)
        if indexed:
            elt = _substituted(elt, index.id, None, T.const(k))
        elts.append(elt)
    rw.changed = True
    kind = gast.List if isinstance(node, gast.ListComp) else gast.Tuple
    return kind(elts, gast.Load())


def _substituted(node, name, obj, value=None):
    class Sub(gast.NodeTransformer):
        def visit_Name(self, n):
            if n.id == name and isinstance(n.ctx, gast.Load):
                return copy.deepcopy(value) if value is not None else \
                    gast.Name(obj, gast.Load(), None, None)
            return n
    return Sub().visit(node)
