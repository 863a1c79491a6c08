"""Differentiable values stored in attributes of objects the code was handed.

``self.h = np.tanh(self.W @ self.h + x)`` in a method of a cell passed in (an
argument, a global, a model's layer, a tape's block reading a layer), or a layer
caching its input ``self.x = x``: the object exists before and after the code, so
it is not kept as its attributes (``objects.py`` does that for objects the code
builds). Each such attribute is mirrored by a local variable, ``cell_h``:

- a store ``cell.h = v`` becomes ``cell_h = v`` (differentiated as any
  assignment) and ``cell.h = cell_h`` (the object holds what Python gives it,
  seen by what reads it later, in the code or after it);
- every read of ``cell.h``, under any name the compiler knows for the object
  (``self`` of an inlined method, ``layer = model.layers[0]``), reads ``cell_h``;
- ``cell_h`` starts from the attribute's value where the object is first bound (at
  the start for an argument or a global): ``_sg.attribute_or_missing``, which fails
  as Python's read fails where the attribute is not set yet.

The compiler knows the objects when compiling (they are specialised on, as
methods are resolved on them); each name bound to one, where the binding reads a
path (``model.layers[0]``) or is an argument, is checked when it runs to be the
same object as in the compiled code's other names for it and no other
(``_sg.check_object_slot``). Refused, naming the line: the object handed to a
function that is not inlined (a library's, ``setattr``, ``vars``), its
``__dict__``, a read of such an attribute through an object the compiler does not
know, an object first bound inside a loop or a branch. Classes that change how
attributes work, records and library classes are refused as before.
"""
import inspect

import gast
import numpy as np

from ...ir import anno, templates as T
from ...ir.atoms import is_static_object
from ...ir.names import own_nodes, root_id, walk_stmts
from ...ir.resolve import MISSING, among
from . import objects

# Calls that may receive such an object: they read no attribute a gradient flows from.
_HARMLESS = (print, repr, str, id, isinstance, type, hasattr, callable, len, format, hash)


def set_in_methods(cls):
    """Names of the attributes a method of ``cls`` (or of a base class of the user's),
    ``__init__`` aside, sets on ``self``: the object's state, which calls change (a PID's
    ``self.prev``, a foot's ``self.contact``). Found once per class."""
    found = _SET_IN_METHODS.get(cls)
    if found is None:
        found = set()
        for klass in cls.__mro__:
            if klass is object or (getattr(klass, "__module__", "") or "").split(".")[0] \
                    in ("builtins", "numpy", "srcgrad"):
                continue
            for name, fn in vars(klass).items():
                fn = getattr(fn, "__func__", fn)
                if name != "__init__" and inspect.isfunction(fn):
                    found |= _set_on_self(fn)
        _SET_IN_METHODS[cls] = found = frozenset(found)
    return found


_SET_IN_METHODS = {}


def _set_on_self(fn):
    import ast
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return set()
    args = fn.__code__.co_varnames[:1]
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
            and n.value.id in args}


def mirrored(norm, target):
    """The object whose attribute the store ``target`` (``obj.attr``) writes, where the
    attribute is mirrored by a local (or can be), else None."""
    base = target.value
    if not isinstance(base, gast.Name) or base.id in norm.ctx.objects:
        return None
    obj = norm.scope.value(base)
    if obj is MISSING or not is_static_object(obj) or objects.plain_class(type(obj)) is not None:
        return None
    found = inspect.getattr_static(type(obj), target.attr, None)
    if found is not None and (hasattr(found, "__set__") or hasattr(found, "__get__")):
        return None  # (a property, a method, a descriptor: not a plain attribute)
    return obj


def why_not(norm, target):
    """Why the store ``target`` of a differentiable value is not mirrored: (words to
    add to the message, a remedy)."""
    local = "keep the value in a local variable"
    obj = norm.scope.value(target.value)
    if obj is MISSING:
        return (" of an object srcgrad cannot tell when compiling (a loop's variable over "
                "a list given when running, an item at an index known only then)",
                "bind the object to a name known when compiling (first, second = "
                f"model.layers; layer = layers[0]), or {local}")
    if not is_static_object(obj):
        return "", local
    reason = objects.plain_class(type(obj))
    if reason is not None:
        return f" of an object whose attributes srcgrad cannot mirror ({reason})", local
    return f" (`{target.attr}` of its class is a property or a descriptor)", local


def store(norm, s, target, varied_value):
    """``s``, the store ``target = value`` of an attribute, as the statements it becomes:
    ``local = value; obj.attr = local`` where the attribute is mirrored (a
    differentiable value makes it so), or None (stored as written)."""
    if varied_value and not isinstance(target.value, gast.Name):
        holder = norm.scope.value(target.value)
        if holder is not MISSING and is_static_object(holder) \
                and objects.plain_class(type(holder)) is None:
            # ``model.dense.W = W``: the object held named first, known in the next round
            root = root_id(target.value) or "obj"
            name = norm.ctx.namer.fresh(f"{root}_{_last_name(target.value)}")
            norm.changed = True
            bind = anno.like(T.assign(name, T.clone(target.value)), s)
            write = anno.like(T.assign(gast.Attribute(T.name(name), target.attr, gast.Store()),
                                       s.value), s)
            return [bind, write]
    key = _key(norm, target)
    if key is None:
        if not varied_value:
            return None
        obj = mirrored(norm, target)
        if obj is None:
            return None
        key = (id(obj), target.attr)
        spelled = norm._spelling(target, s)
        norm.ctx.mirrors[key] = norm.ctx.namer.fresh(spelled.replace(".", "_"))
        norm.ctx.mirrored_objects.setdefault(id(obj), (obj, spelled.rsplit(".", 1)[0]))
    local = norm.ctx.mirrors[key]
    if isinstance(s.value, gast.Name) and s.value.id == local:
        return [anno.set_kind(s, "opaque")]
    norm.changed = True
    return [anno.like(T.assign(local, s.value), s),
            anno.set_kind(anno.like(T.assign(T.clone(target), T.name(local)), s), "opaque")]


def _last_name(node):
    return node.attr if isinstance(node, gast.Attribute) else "item"


def _key(norm, target):
    """(id, attribute) of the mirrored attribute ``target`` reads or writes, whatever
    names the object (``cell.h``, ``self.h``, ``model.cell.h``), else None."""
    if not norm.ctx.mirrors or not isinstance(target.value, (gast.Name, gast.Attribute,
                                                             gast.Subscript)):
        return None
    obj = norm.scope.value(target.value)
    if obj is MISSING:
        return None
    key = (id(obj), target.attr)
    return key if key in norm.ctx.mirrors and norm.ctx.mirrored_objects[id(obj)][0] is obj \
        else None


def rewrite(norm, fn):
    """Reads of mirrored attributes as their locals; each object's locals started where
    it is first bound, each binding checked when it runs. Returns whether anything
    changed (the round starts again)."""
    if not norm.ctx.mirrors:
        return False
    changed = False
    attrs = {attr for _, attr in norm.ctx.mirrors}
    objs = norm.ctx.mirrored_objects
    unsourced = set()  # source reads now of a local: no longer watch points
    norm.scope.mirrored_names = frozenset(
        n.id for n in T.walk(fn) if isinstance(n, gast.Name) and _is_mirrored(
            norm.scope.value(n), objs))
    for s in _statements(fn.body):
        if getattr(s, "sg_mirror_start", False):
            continue
        _check_escapes(norm, s, attrs)  # (``del obj.h``: refused up front, fence.py)
        for node in _loads(s):
            key = _key(norm, node)
            if key is None:
                continue
            replace_node(s, node, T.name(norm.ctx.mirrors[key]))
            if anno.kind(s) == "opaque":
                anno.set_kind(s, None)  # (normalized again: now differentiated)
            elif anno.kind(s) == "read" and isinstance(s.value, gast.Name):
                # A source read of the attribute (it held a watched value when the code
                # started): now of the local, which the code may have bound since; what
                # it held at the start is the source (``_start``).
                anno.set_kind(s, "copy")
                norm.ctx.sources.discard(s.targets[0].id)
                unsourced.add(s.targets[0].id)
            changed = True
    if unsourced:
        _drop_watches(fn.body, unsourced)
    return _start(norm, fn) or changed


def _drop_watches(body, names):
    """``body`` without the watch points of ``names`` (a reported adjoint of the value a
    local holds there would count the start's again, where it still holds it)."""
    body[:] = [s for s in body if not (anno.kind(s) == "watch"
                                       and getattr(s, "sg_watched", None) in names)]
    for s in body:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                _drop_watches(getattr(s, field), names)
        for handler in getattr(s, "handlers", ()):
            _drop_watches(handler.body, names)


def _statements(body):
    """The statements of ``body``, nested blocks too, but not nested defs (inlined where
    they are called, and rewritten there)."""
    return [s for s in walk_stmts(body) if not isinstance(s, gast.FunctionDef)]


def _loads(s):
    """The attribute reads in ``s`` (not in the statements nested in it)."""
    return [n for n in own_nodes(s) if isinstance(n, gast.Attribute)
            and isinstance(n.ctx, gast.Load)]


def replace_node(tree, old, new):
    """``old`` (a node of ``tree``) replaced by ``new`` where its parent holds it."""
    for node in gast.walk(tree):
        for field, value in gast.iter_fields(node):
            if value is old:
                setattr(node, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return


def _check_escapes(norm, s, attrs):
    mirrored_ids = norm.ctx.mirrored_objects
    for node in own_nodes(s):
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load):
            obj = norm.scope.value(node.value)
            if node.attr == "__dict__" and obj is not MISSING and id(obj) in mirrored_ids:
                raise norm.ctx.error(
                    f"`{gast.unparse(node).strip()}` reads the attributes of an object whose "
                    "attributes the code keeps differentiable values in", s,
                    "read the attributes by name (obj.h)")
            known = isinstance(node.value, gast.Name) and (
                node.value.id in norm.ctx.records or node.value.id in norm.ctx.objects)
            if node.attr in attrs and obj is MISSING and not known \
                    and not hasattr(np.ndarray, node.attr):
                raise norm.ctx.error(
                    f"`{gast.unparse(node).strip()}` reads `.{node.attr}`, an attribute the "
                    "code stores differentiable values in, of an object srcgrad cannot tell "
                    "when compiling", s,
                    "read it through a name bound to the object itself (layer = layers[0])")
            continue
        if not isinstance(node, gast.Call):
            continue
        func = norm.scope.value(node.func)
        if func is MISSING or among(func, *_HARMLESS) \
                or norm.ctx.scope.calls_user_code(node):
            continue  # (the user's functions are inlined: their reads are rewritten)
        for arg in list(node.args) + [k.value for k in node.keywords]:
            arg = arg.value if isinstance(arg, gast.Starred) else arg
            obj = norm.scope.value(arg) if isinstance(arg, gast.Name) else MISSING
            if _reaches(obj, mirrored_ids):
                raise norm.ctx.error(
                    f"`{gast.unparse(node).strip()}` hands `{arg.id}` to a function srcgrad "
                    "does not compile, and the code keeps differentiable values in its "
                    "attributes: what that function reads or writes there is not seen", s,
                    "pass the attribute's value instead (f(obj.h))")


def _reaches(obj, objs, depth=4):
    """Is ``obj`` a mirrored object, or a list, tuple, dict or object of a plain class
    holding one (a model holding its layers), a few levels deep?"""
    if _is_mirrored(obj, objs):
        return True
    if depth == 0 or obj is MISSING:
        return False
    if type(obj) in (list, tuple):
        items = obj
    elif type(obj) is dict:
        items = obj.values()
    elif is_static_object(obj) and objects.plain_class(type(obj)) is None:
        items = vars(obj).values()
    else:
        return False
    return any(_reaches(item, objs, depth - 1) for item in items)


def _is_mirrored(obj, objs):
    return obj is not MISSING and id(obj) in objs and objs[id(obj)][0] is obj


def _start(norm, fn):
    """Each mirrored attribute's local started where its object is first bound; the
    names bound to an object by reading a path (and the arguments) checked."""
    changed = False
    ctx = norm.ctx
    params = {a.id for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    bound = {n.id for s in _statements(fn.body) for n in T.walk(s)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    slots = list(ctx.mirrored_objects)
    if ctx.mirror_slots is None:
        ctx.mirror_slots = ctx.namer.fresh("attribute_slots")
        start = anno.set_kind(T.assign(ctx.mirror_slots, gast.Dict([], [])), "opaque")
        start.sg_mirror_start = True
        fn.body.insert(0, start)
        changed = True
    for key, local in ctx.mirrors.items():
        if key in ctx.mirror_started:
            continue
        obj, spelled = ctx.mirrored_objects[key[0]]
        names = {n.id for n in T.walk(fn) if isinstance(n, gast.Name)
                 and norm.scope.value(n) is obj}
        outer = sorted(n for n in names if n in params or n not in bound)
        path = None if outer else _outer_path(norm, fn, obj, params, bound)
        head = []
        if outer or path is not None:
            at, name = 1, outer[0] if outer else ctx.namer.fresh(spelled.replace(".", "_"))
            if path is not None:  # (``hold.cell``: reachable from the start)
                bind = T.assign(name, path)
                bind.sg_mirror_start = bind.sg_slot_checked = True
                head.append(bind)
            if name not in ctx.mirror_checked:  # (an argument: another call's may differ)
                ctx.mirror_checked.add(name)
                head.append(_slot_check(ctx, slots.index(key[0]), name, spelled))
        else:
            at, name = _first_binding(norm, fn, names | {local}, spelled)
        start = T.expr("_sg.attribute_or_missing(o, a)", o=T.name(name), a=T.const(key[1]))
        # (read where the object is found from the start, ``ps[0].x``: where a watched
        # value is found)
        held = gast.Attribute(T.clone(path) if path is not None else T.name(name), key[1],
                              gast.Load())
        if norm.scope.is_source(held):
            # (A value a tape watches, or a Variable, held there when the code starts:
            # ``self.W = self.W * 2.0`` differentiates the watched ``W``.)
            begin = []
            norm.variable_read(held, begin, local, local)
            for b in begin:
                b.sg_mirror_start = True
        else:
            begin = [anno.set_kind(T.assign(local, start), "opaque")]
            begin[0].sg_mirror_start = True
        fn.body[at:at] = head + begin
        ctx.mirror_started.add(key)
        changed = True
    return _check_bindings(norm, fn.body, slots) or changed


def _outer_path(norm, fn, obj, params, bound, depth=3):
    """An expression reaching ``obj`` from an argument or a global when the code starts
    (``hold.cell``, ``model.layers[0]``), through attributes of plain objects and items
    of lists and tuples; None if there is none."""
    roots = sorted({n.id for n in T.walk(fn) if isinstance(n, gast.Name)
                    and (n.id in params or n.id not in bound)})
    todo = [(norm.scope.value(T.name(r)), T.name(r)) for r in roots]
    for _ in range(depth):
        found = []
        for value, expr in todo:
            if value is MISSING:
                continue
            if type(value) in (list, tuple):
                steps = [(item, gast.Subscript(T.clone(expr), T.const(i), gast.Load()))
                         for i, item in enumerate(value)]
            elif is_static_object(value) and objects.plain_class(type(value)) is None:
                steps = [(item, gast.Attribute(T.clone(expr), a, gast.Load()))
                         for a, item in vars(value).items() if a.isidentifier()]
            else:
                continue
            for item, step in steps:
                if item is obj:
                    return step
                found.append((item, step))
        todo = found
    return None


def _first_binding(norm, fn, names, spelled):
    """(index after it, name) of the statement of the function's own block that first
    binds a name for the object; refused where a statement before it (a loop, a branch)
    already reads or binds one."""
    for i, s in enumerate(fn.body):
        mentions = {n.id for n in T.walk(s) if isinstance(n, gast.Name)} & names
        if not mentions:
            continue
        target = s.targets[0] if isinstance(s, gast.Assign) else None
        bound = [target] if isinstance(target, gast.Name) else target.elts \
            if isinstance(target, (gast.Tuple, gast.List)) else []
        own = {e.id for e in bound if isinstance(e, gast.Name)} & names
        if own and not (mentions - own):  # (``first, second = model.layers``)
            return i + 1, sorted(own)[0]
        break
    raise norm.ctx.error(
        f"`{spelled}` is first bound inside a loop or a branch, and the code keeps "
        "differentiable values in its attributes: srcgrad reads their values where the "
        "object is first bound", norm.cur,
        "bind the object before the loop (layer = model.layers[0])")


def _check_bindings(norm, block, slots):
    """``_sg.check_object_slot`` after each binding of a name to a mirrored object that
    reads a path (``layer = model.layers[0]``): the same object as the code was
    compiled for is there, in this call too."""
    changed = False
    objs = norm.ctx.mirrored_objects
    for i in range(len(block) - 1, -1, -1):
        s = block[i]
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                changed = _check_bindings(norm, getattr(s, field), slots) or changed
        if not isinstance(s, gast.Assign) or isinstance(s.value, gast.Name) \
                or getattr(s, "sg_slot_checked", False):
            continue
        target = s.targets[0]
        names = [target] if isinstance(target, gast.Name) else \
            [e for e in target.elts if isinstance(e, gast.Name)] \
            if isinstance(target, (gast.Tuple, gast.List)) else []
        for name in reversed(names):
            obj = norm.scope.value(name)
            if not _is_mirrored(obj, objs):
                continue
            s.sg_slot_checked = True
            block.insert(i + 1, _slot_check(norm.ctx, slots.index(id(obj)), name.id,
                                            norm.ctx.in_user_names(name.id)))
            changed = True
    return changed


def _slot_check(ctx, slot, name, spelled):
    check = T.stmt("_sg.check_object_slot(slots, k, o, spelled)", slots=ctx.mirror_slots,
                   k=T.const(slot), o=T.name(name), spelled=T.const(spelled))
    check.sg_mirror_start = True
    return anno.set_kind(check, "opaque")
