"""Loops over containers known when compiling, unrolled, and the other reads of such
containers: ``for layer in layers:``, ``for k, v in params.items():``, ``for i in
range(len(Ws)): Ws[i]`` over objects, functions, or Variables and values a tape
watches; ``getattr(obj, "w")`` as ``obj.w``. Each iteration gets its own copy of the
body with the loop variables bound to known items, so calls through them are inlined
and the Variables read through them are found. What the code is compiled for
(``cache._kind``, ``watched_reads.Watched.held_by``) includes the containers' layouts.
"""
import builtins
import copy
import keyword

import gast
import numpy as np

from ...ir import anno, templates as T
from ...ir.atoms import is_static_object as _is_static_object
from ...ir.names import bound_names, name_ids, walk_stmts
from ...ir.resolve import MISSING, UNROLL_MAX
from . import functions
from .inline import rename


def loop(norm, s):
    """``s`` (a ``for`` loop) unrolled, or None where it is not over a container known
    when compiling that holds objects or values a tape watches."""
    items = static_items(norm, s.iter)
    target, body = loop_target(s)
    if items and len(items) <= UNROLL_MAX \
            and (_fits([_bound(target, value, expr, norm.scope.is_source,
                               norm.scope.iterates_sources)
                        for value, expr in items]) or _indexes_a_holder(norm, target, body)) \
            and not any(isinstance(n, gast.Break) for n in T.walk(s)):
        return unroll(norm, s, target, body, items)
    return None


def unroll(norm, s, target, body, items):
    """``for layer in self.layers:`` over objects known at compile time.

    Also ``for W, b in zip(weights, biases)``, ``for W, b in layers`` (pairs)
    and ``enumerate``. Each iteration gets its own copy of the body, with
    the loop variables bound to known objects, so calls through them can be
    inlined and Variables read through them are found.
    """
    norm.changed = True
    out = []
    last = {}
    rebound = {n for st in walk_stmts(body) for n in bound_names(st)}
    for value, expr in items:
        mapping, keys = {}, {}
        for leaf, leaf_value, leaf_expr in _leaves(target, value, expr):
            name = norm.ctx.namer.fresh(leaf)
            bind = anno.set_kind(anno.like(T.assign(name, leaf_expr), s), "opaque")
            if _is_static_object(leaf_value) or type(leaf_value) in _CONTAINERS \
                    and norm.scope.iterates_sources(leaf_expr):
                norm.scope.static[name] = leaf_value
            elif type(leaf_value) in _KEYS and isinstance(leaf_expr, gast.Constant) \
                    and leaf not in rebound:
                # A dict's key, a range's or a display's: ``params[k]`` reads a known item.
                # (Not an int read from a list, whose kind does not hold its value.)
                keys[name] = leaf_value
            out.append(bind)
            mapping[leaf] = last[leaf] = name
        for stmt in body:
            out.append(_with_keys(rename(copy.deepcopy(stmt), mapping), keys))
    # Python leaves the loop variables bound to the last items.
    out += [anno.set_kind(anno.like(T.assign(leaf, T.name(name)), s), "opaque")
            for leaf, name in last.items()]
    return out


def _int_value(norm, node):
    """An int known when compiling: a constant, or ``len`` of a container the code is
    compiled for (its kind holds its length: ``cache._kind``)."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
            and norm.scope.value(node.func) is builtins.len:
        seq = norm.scope.value(node.args[0])
        if type(seq) in (list, tuple, dict) and norm.scope.iterates_sources(node.args[0]):
            return len(seq)
    return None


def _indexes_a_holder(norm, target, body):
    """Does ``body`` read by the loop variable ``target`` (a key, an index) from a
    container holding Variables or values a tape watches (``for k in params:
    params[k]``, ``for i in range(len(layers)): layers[i]``)? Unrolled, each read
    is of a known item."""
    return isinstance(target, gast.Name) and any(
        isinstance(n, gast.Subscript) and target.id in name_ids(n.slice)
        and norm.scope.iterates_sources(n.value)
        for st in body for n in T.walk(st))


def static_items(norm, it):
    """(value, expression) of each item of an iterable known at compile time, or None.

    A list or tuple known when compiling, a display of known values, a dict's keys,
    values or items, ``range`` of known bounds, and ``zip`` / ``enumerate`` /
    ``sorted`` of such.
    """
    fn = norm.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
    if isinstance(it, gast.Call) and it.keywords:
        return None
    functions_held = functions.static_items(norm, it)
    if functions_held is not None:
        return functions_held
    if fn is builtins.zip and it.args:
        parts = [static_items(norm, a) for a in it.args]
        if any(p is not None for p in parts):
            # (``zip(apply_funs, params)``: functions known when compiling beside a list
            # of values whose length the code shows, stax's serial)
            parts = [p if p is not None or not isinstance(a, gast.Name)
                     else _runtime_items(norm, a) for p, a in zip(parts, it.args)]
        if any(p is None for p in parts):
            return None
        return [(tuple(p[k][0] for p in parts), gast.Tuple([p[k][1] for p in parts], gast.Load()))
                for k in range(min(map(len, parts)))]
    if fn is builtins.range and 1 <= len(it.args) <= 3 and all(
            type(_int_value(norm, a)) is int for a in it.args):
        bounds = range(*(_int_value(norm, a) for a in it.args))
        return [(k, T.const(k)) for k in bounds] if len(bounds) <= UNROLL_MAX else None
    if fn is builtins.sorted and len(it.args) == 1:
        # ``sorted(params)``, ``sorted(params.items())``: by keys known when compiling
        # (distinct, so that the items' values are never compared).
        part = static_items(norm, it.args[0])
        if part is None:
            return None
        keys = [v[0] if type(v) is tuple and v else v for v, _ in part]
        if any(type(k) not in (str, int) for k in keys) or len(set(keys)) != len(keys) \
                or len({type(k) for k in keys}) > 1:
            return None
        return [part[i] for i in sorted(range(len(part)), key=keys.__getitem__)]
    if fn in (builtins.list, builtins.tuple, builtins.reversed) and len(it.args) == 1:
        # ``list(params.values())``, ``tuple(self.layers)``: a copy of the same items
        part = static_items(norm, it.args[0])
        return part if part is None or fn is not builtins.reversed else part[::-1]
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) \
            and it.func.attr == "copy" and not it.args \
            and type(norm.scope.value(it.func.value)) in (list, dict):
        return static_items(norm, it.func.value)  # ``ws.copy()``
    if isinstance(it, (gast.List, gast.Tuple)) and it.elts \
            and any(isinstance(e, gast.Starred) for e in it.elts):
        # ``[*ws]``, ``(*head, last)``: the items of each part in turn
        parts = [static_items(norm, e.value) if isinstance(e, gast.Starred)
                 else _display_item(norm, e) for e in it.elts]
        return None if any(p is None for p in parts) else [i for p in parts for i in p]
    if isinstance(it, gast.BinOp) and isinstance(it.op, gast.Mult) \
            and isinstance(it.right, gast.Constant) and type(it.right.value) is int \
            and isinstance(norm.scope.value(it.left), (list, tuple)):
        part = static_items(norm, it.left)  # ``ws * 2``: the items again
        return None if part is None else part * it.right.value
    if isinstance(it, gast.BinOp) and isinstance(it.op, gast.Add):
        # ``ws + []``, ``encoders + decoders``: the items of both
        parts = [[] if isinstance(e, (gast.List, gast.Tuple)) and not e.elts
                 else static_items(norm, e) for e in (it.left, it.right)]
        if any(p is None for p in parts) \
                or not all(isinstance(norm.scope.value(e), (list, tuple))
                           or isinstance(e, (gast.List, gast.Tuple)) for e in (it.left, it.right)):
            return None
        return parts[0] + parts[1]
    if fn is builtins.enumerate and len(it.args) == 1:
        part = static_items(norm, it.args[0])
        if part is None:
            return None
        return [((k, v), gast.Tuple([T.const(k), e], gast.Load())) for k, (v, e) in enumerate(part)]
    if isinstance(it, (gast.List, gast.Tuple)) and it.elts and len(it.elts) <= UNROLL_MAX:
        # ``for k in ("1", "2")``, ``for h in [encoder, decoder]``, ``zip(fs, (0.5, 2.0))``
        values = [e.value if isinstance(e, gast.Constant) else norm.scope.value(e)
                  for e in it.elts]
        return None if any(v is MISSING for v in values) else list(zip(values, it.elts))
    sliced = _constant_slice(it)
    if sliced is not None:  # ``self.layers[:-1]``: the items it holds, read from the whole
        seq = norm.scope.value(it.value)
        if not isinstance(seq, (list, tuple)) or len(seq) > UNROLL_MAX:
            return None
        return [(seq[k], gast.Subscript(copy.deepcopy(it.value), T.const(k), gast.Load()))
                for k in range(len(seq))[sliced]]
    seq = norm.scope.value(it)
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and not it.args \
            and it.func.attr in ("keys", "values", "items"):
        seq, it, how = norm.scope.value(it.func.value), it.func.value, it.func.attr
    else:
        how = "keys"
    if type(seq) is dict and len(seq) <= UNROLL_MAX:
        # A dict known when compiling (one holding Variables or watched values: the
        # code is compiled for its keys and kinds of values, ``cache._kind``).
        def item(k):
            return gast.Subscript(copy.deepcopy(it), T.const(k), gast.Load())
        if how == "keys":
            return [(k, T.const(k)) for k in seq]
        if how == "values":
            return [(v, item(k)) for k, v in seq.items()]
        return [((k, v), gast.Tuple([T.const(k), item(k)], gast.Load()))
                for k, v in seq.items()]
    if not isinstance(seq, (list, tuple)) or len(seq) > UNROLL_MAX:
        return None
    return [(v, gast.Subscript(copy.deepcopy(it), T.const(k), gast.Load()))
            for k, v in enumerate(seq)]


def _display_item(norm, e):
    value = e.value if isinstance(e, gast.Constant) else norm.scope.value(e)
    return None if value is MISSING else [(value, e)]


def _runtime_items(norm, node):
    """(MISSING, expression) for each item of the sequence ``node`` whose length the code
    shows (``norm.facts.items``), its values known only when running; or None."""
    known = norm.facts.items(node)
    return None if known is None else [(MISSING, e) for e in known]


def _constant_slice(node):
    """The ``slice`` of ``seq[a:b:c]`` whose bounds are constant ints (or left out)."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice)):
        return None
    bounds = []
    for part in (node.slice.lower, node.slice.upper, node.slice.step):
        negative = isinstance(part, gast.UnaryOp) and isinstance(part.op, gast.USub)
        value = part.operand if negative else part
        if value is None:
            bounds.append(None)
        elif isinstance(value, gast.Constant) and type(value.value) is int:
            bounds.append(-value.value if negative else value.value)
        else:
            return None
    return None if bounds[2] == 0 else slice(*bounds)


def loop_target(s):
    """The loop's target and body, seeing through desugar's ``for W_b in ...: W, b = W_b``."""
    first = s.body[0] if s.body else None
    if isinstance(first, gast.Assign) and len(first.targets) == 1 \
            and isinstance(first.targets[0], (gast.Tuple, gast.List)) \
            and isinstance(first.value, gast.Name) and first.value.id == s.target.id \
            and s.target.id not in {n.id for st in s.body[1:] for n in T.walk(st)
                                    if isinstance(n, gast.Name)}:
        return first.targets[0], s.body[1:]
    return s.target, s.body


def constant_getattrs(body, scope):
    """``getattr(obj, "w")`` as the attribute read ``obj.w`` it is, so that what it reads
    (a Variable a tape watches) is seen as such (hunt 3: a silent None)."""
    for node in T.walk(gast.Module(body, [])):
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                if isinstance(child, gast.Call) and len(child.args) in (2, 3) \
                        and not child.keywords and isinstance(child.args[1], gast.Constant) \
                        and isinstance(child.args[1].value, str) \
                        and child.args[1].value.isidentifier() \
                        and not keyword.iskeyword(child.args[1].value) \
                        and scope.value(child.func) is builtins.getattr \
                        and (len(child.args) == 2 or _has_attribute(scope, child)):
                    new = anno.like(gast.Attribute(child.args[0], child.args[1].value,
                                                   gast.Load()), child)
                    if isinstance(value, list):
                        value[k] = new
                    else:
                        setattr(node, field, new)


def comprehensions(norm, body):
    """``[np.sum(p[k] ** 2) for k in p]`` (or a generator or dict comprehension) over a
    container of values a tape watches, known when compiling: the display of its items,
    as a loop over it is unrolled (``p[k]`` by a key known only when running would be
    refused: which value it reads decides whether it is a source). True where one made
    objects (``_objects_made``): the round starts again, to keep them as objects."""
    made_objects = False
    for node in T.walk(gast.Module(body, [])):
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for k, child in enumerate(items):
                display = _display_of(norm, child)
                if display is None:
                    continue
                made_objects = made_objects or getattr(display, "sg_objects", False)
                norm.changed = True
                if isinstance(value, list):
                    value[k] = display
                else:
                    setattr(node, field, display)
    return made_objects


def _display_of(norm, node):
    if not isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.DictComp)) \
            or len(node.generators) != 1:
        return None
    objects = _objects_made(norm, node)
    if objects is not None:
        return objects
    gen = node.generators[0]
    # (Over the container, or over keys or indices it is read by: ``[params[k] - lr *
    # grads[k] for k in range(len(params))]``, as a loop over them is unrolled.)
    parts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    if gen.ifs or gen.is_async or not (norm.scope.iterates_sources(gen.iter)
                                       or _indexes_a_holder(norm, gen.target, parts)) \
            or not all(isinstance(n, (gast.Name, gast.Tuple, gast.List))
                       for n in gast.walk(gen.target) if isinstance(n, gast.expr)):
        return None
    items = static_items(norm, gen.iter)
    if items is None or len(items) > UNROLL_MAX:
        return None
    made = []
    for _, expr in items:
        bound = {}
        _bind(gen.target, expr, bound)
        if isinstance(node, gast.DictComp):
            made.append((functions._substituted(node.key, bound),
                         functions._substituted(node.value, bound)))
        else:
            made.append(functions._substituted(node.elt, bound))
    if isinstance(node, gast.DictComp):
        return anno.like(gast.Dict([k for k, _ in made], [v for _, v in made]), node)
    kind = gast.List if isinstance(node, gast.ListComp) else gast.Tuple
    return anno.like(kind(made, gast.Load()), node)


def _objects_made(norm, node):
    """``[Linear(W, b) for W, b in zip(Ws, bs)]``: a list comprehension making objects
    of the user's classes over items the code shows how many (a tuple passed in, a
    display, ``range``, ``zip``/``enumerate`` of those): the display of them, which the
    compiler keeps object by object (``objects.py``), as ``[Linear(Ws[0], bs[0]), ...]``.
    None for another comprehension."""
    gen = node.generators[0]
    if not isinstance(node, gast.ListComp) or gen.ifs or gen.is_async \
            or not any(isinstance(n, gast.Call) and _user_class(norm.scope.value(n.func))
                       for n in T.walk(node.elt)):
        return None
    items = _known_items(norm, gen.iter)
    if items is None or len(items) > UNROLL_MAX:
        return None
    made = []
    for expr in items:
        bound = {}
        _bind(gen.target, expr, bound)
        made.append(functions._substituted(node.elt, bound))
    display = anno.like(gast.List(made, gast.Load()), node)
    display.sg_objects = True
    return display


def object_index_loops(norm, body):
    """``for i in range(len(layers)): h = layers[i](h)`` over a list display of objects
    of the user's classes (``layers = [Linear(W1, b1), Linear(W2, b2)]``, or one a
    comprehension made): unrolled, so that each read is of a known object, as a loop
    over the list itself is. True where one was (the round starts again, for
    ``objects.py`` to see the objects read by constant indices)."""
    done = False
    for owner in [n for n in T.walk(gast.Module(body, [])) if hasattr(n, "body")]:
        for field in ("body", "orelse"):
            stmts = getattr(owner, field, None)
            if not isinstance(stmts, list):
                continue
            out = []
            for st in stmts:
                items = _object_index_loop(norm, st)
                if items is None:
                    out.append(st)
                    continue
                norm.changed = done = True
                out += unroll(norm, st, st.target, st.body, items)
            stmts[:] = out  # (in place: the top level is the function's own list)
    return done


def _object_index_loop(norm, s):
    """The items of the loop ``s`` if it is one ``object_index_loops`` unrolls."""
    it = getattr(s, "iter", None)
    if isinstance(it, gast.Name):  # (desugar names what a loop iterates: ``items = range(n)``)
        it = norm.facts.bound_call(it.id)
    if not (isinstance(s, gast.For) and isinstance(s.target, gast.Name) and not s.orelse
            and isinstance(it, gast.Call) and norm.scope.value(it.func) is range
            and not any(isinstance(n, (gast.Break, gast.Continue)) for n in T.walk(s))):
        return None
    i = s.target.id

    def made(e):  # (an object made there, or bound to a name: objects.scalarize)
        e = norm.facts.bound.get(e.id) if isinstance(e, gast.Name) else e
        return isinstance(e, gast.Call) and _user_class(norm.scope.value(e.func))

    def objects_list(node):
        display = norm.facts.display_of(node)
        return display is not None and any(map(made, display.elts))
    if not any(isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Name)
               and n.slice.id == i and objects_list(n.value)
               for st in s.body for n in T.walk(st)):
        return None
    items = _known_items(norm, it)
    if items is None or len(items) > UNROLL_MAX:
        return None
    return [(c.value, c) for c in items]


def _user_class(obj):
    return isinstance(obj, type) and obj.__module__ != "builtins" \
        and not obj.__module__.split(".")[0] in ("numpy", "scipy", "srcgrad")


def _known_items(norm, it):
    """An expression for each item ``it`` gives, where the code shows how many, or None:
    ``range`` of constants, a sequence (``norm.facts.items``), ``zip``/``enumerate``
    of those."""
    fn = norm.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
    if fn is range and not it.keywords:
        bounds = [_known_int(norm, a) for a in it.args]
        return None if None in bounds or len(bounds) not in (1, 2, 3) or bounds[2:] == [0] \
            else [T.const(i) for i in range(*bounds)]
    if fn is builtins.zip and it.args and not it.keywords:
        parts = [_known_items(norm, a) for a in it.args]
        if any(p is None for p in parts):
            return None
        return [gast.Tuple(list(t), gast.Load()) for t in zip(*parts)]
    if fn is builtins.enumerate and len(it.args) == 1 and not it.keywords:
        inner = _known_items(norm, it.args[0])
        return None if inner is None else \
            [gast.Tuple([T.const(i), e], gast.Load()) for i, e in enumerate(inner)]
    if isinstance(it, gast.Call):
        return None
    return norm.facts.items(it)


def _known_int(norm, node):
    """An int the code shows: ``_int_value``'s, or ``len`` of a sequence whose length
    the code shows (a display, a tuple passed in)."""
    value = _int_value(norm, node)
    if type(value) is int:
        return value
    if isinstance(node, gast.Call) and norm.scope.value(node.func) is builtins.len \
            and len(node.args) == 1 and not node.keywords:
        return norm.facts.length(node.args[0])
    return None


def _bind(target, expr, bound):
    """The names of ``target`` bound to the parts of ``expr`` (an item's expression)."""
    if isinstance(target, gast.Name):
        bound[target.id] = expr
        return
    for i, t in enumerate(target.elts):
        part = expr.elts[i] if isinstance(expr, gast.Tuple) and len(expr.elts) == len(target.elts) \
            else gast.Subscript(copy.deepcopy(expr), T.const(i), gast.Load())
        _bind(t, part, bound)


def compiled_in(container):
    """May the code read ``container``'s items when compiling (objects, Variables or
    arrays a tape may watch in it: loops over it unrolled, calls resolved), rather than
    when it runs (a log of numbers)?"""
    items = container.values() if type(container) is dict else container
    return any(_is_static_object(v) or type(v) is np.ndarray
               or type(v) in (list, tuple, dict) and compiled_in(v) for v in items)


def _has_attribute(scope, call):
    """``getattr(obj, "w", default)`` of an object known when compiling that has ``w``
    (the read is guarded: another object compiles anew)."""
    obj = scope.value(call.args[0])
    return obj is not MISSING and scope.value(
        gast.Attribute(call.args[0], call.args[1].value, gast.Load())) is not MISSING


def _bound(target, value, expr, is_source, holds_sources):
    """What a loop variable ``target`` bound to ``value`` (read as ``expr``) is bound to:
    None if a part is not known at compile time; else whether a part is an object known
    at compile time, a value a tape watches (``is_source``) or a container holding
    some (``holds_sources``: a layer's dict), the others being dict keys (an index
    from ``enumerate`` is an int) or data."""
    leaves = _leaves(target, value, expr)
    if leaves is None:
        return None
    parts = [p for _, v, e in leaves for p in _parts(v, e)]  # (``k_v`` of ``d.items()``)
    if not all(_is_static_object(v) or type(v) in _UNROLLED_DATA
               or type(v) in _CONTAINERS and holds_sources(e) for v, e in parts):
        return None
    return any(_is_static_object(v) or is_source(e)
               or type(v) in _CONTAINERS and holds_sources(e) for v, e in parts)


def _fits(bound):
    """Whether a loop unrolls, by what each iteration binds (``_bound``): all known, and an
    object or a watched value among them."""
    return None not in bound and any(bound)


def _parts(value, expr):
    """(value, expression) of the parts of a tuple an unrolled loop binds to one name."""
    if type(value) is tuple and isinstance(expr, gast.Tuple) and len(expr.elts) == len(value):
        return [p for v, e in zip(value, expr.elts) for p in _parts(v, e)]
    return [(value, expr)]


_KEYS = (int, str)
# Items an unrolled loop variable may be bound to besides objects: read when the code
# runs (``rates[k]``, a constant written in a display), never compiled in.
_UNROLLED_CONSTANTS = (int, float, bool, str, type(None))
_UNROLLED_DATA = _UNROLLED_CONSTANTS + (np.ndarray, np.float64)
_CONTAINERS = (list, tuple, dict)


def _with_keys(stmt, keys):
    """``stmt`` with the subscripts by an unrolled loop's key names (``keys``: name ->
    key; ``d[k]``, ``d["W" + k]``, ``d[f"W{i}"]``) written with the key itself, as a
    read of a known item."""
    if keys:
        for node in T.walk(stmt):
            if isinstance(node, gast.Subscript) and name_ids(node.slice) & set(keys):
                key = folded(node.slice, keys)
                if type(key) in _KEYS:
                    node.slice = T.const(key)
    return stmt


_FOLDED = (gast.Constant, gast.Name, gast.BinOp, gast.JoinedStr, gast.FormattedValue,
           gast.Add, gast.Sub, gast.Mult, gast.Load)


def folded(node, keys):
    """The value of an expression of constants and ``keys`` (name -> value), or None."""
    if not all(isinstance(n, _FOLDED) for n in T.walk(node)) or any(
            isinstance(n, gast.Name) and n.id not in keys for n in T.walk(node)) \
            or any(isinstance(n, gast.FormattedValue) and (n.format_spec or n.conversion != -1)
                   for n in T.walk(node)):
        return None
    text = gast.unparse(node).strip()
    try:
        return eval(compile(text, "<key>", "eval"), {"__builtins__": {}}, dict(keys))
    except Exception:
        return None


def _leaves(target, value, expr):
    """(name, value, expression) for each name in a loop target, or None if the shapes differ."""
    if isinstance(target, gast.Name):
        return [(target.id, value, expr)]
    if not isinstance(target, (gast.Tuple, gast.List)) or not isinstance(value, tuple) \
            or len(value) != len(target.elts):
        return None
    out = []
    for k, (t, v) in enumerate(zip(target.elts, value)):
        if isinstance(expr, gast.Tuple):
            e = expr.elts[k]
        elif expr is None:
            e = None
        else:
            e = gast.Subscript(copy.deepcopy(expr), T.const(k), gast.Load())
        inner = _leaves(t, v, e)
        if inner is None:
            return None
        out += inner
    return out
