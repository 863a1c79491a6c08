"""Lists, tuples and dicts of functions known when compiling, and the calls made through them.

A name bound once to a display of functions (each a def or lambda of the code, or
a function its module names: ``np.tanh``, a user function) whose every use reads
it (an item, a loop over it, ``zip``/``enumerate``/``reversed``/``len`` of it) holds
those functions the whole time: nothing can change or replace them. Calls through it
are compiled as calls of the function they reach::

    fs = [np.sin, lambda v: v ** 2]       fs = [np.sin, _lambda_fs]
    y = fs[1](x)                   ->     y = _lambda_fs(x)           (inlined)
    for f in fs: y = f(y)                 f = fs[0]; y = np.sin(y); f = fs[1]; ...

(loops are unrolled by ``Normalizer.unroll``). An item chosen when the code runs
(``acts[name](x)``, ``name`` a string argument) is one of the functions; the call
becomes a choice among them, each compiled, by which one the item is::

    act = acts[name]                        (KeyError here, as Python raises it)
    if not (act is acts["relu"] or act is acts["tanh"]): raise TypeError(...)  (a slice)
    y = relu(x) if act is acts["relu"] else np.tanh(x)

Part of the normalize pass: ``tables`` is made for each round over the function body.
"""
import builtins
import types

import gast
import numpy as np

from ...errors import CompileError
from ...ir import anno, templates as T
from ...ir.resolve import MISSING, is_library
from ...ir.varied import expr_varied

_TABLE_MAX = 32  # items of a module's table of functions compiled as a choice among them
# Builtins a table may be passed to: they read its items, never change or keep it.
_READERS = (builtins.zip, builtins.enumerate, builtins.reversed, builtins.len)


def tables(norm, body):
    """name -> [(key, expression of the function)] for each table of functions in ``body``."""
    bindings = {}
    for node in T.walk(gast.Module(list(body), [])):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and norm.counts.get(node.targets[0].id) == 1 \
                and isinstance(node.value, (gast.List, gast.Tuple, gast.Dict)):
            items = _items(norm, node.value)
            if items and all(known_function(norm, e) for _, e in items):
                bindings[node.targets[0].id] = items
    bindings.update(_global_tables(norm, body))
    if not bindings:
        return {}
    escaped = _escaped(norm, body, set(bindings))
    return {name: items for name, items in bindings.items()
            if name not in escaped and name not in norm.facts.mutated}


def note_items(norm, body):
    """Names bound once to an item of a table at a constant key (``f = fs[2]``, an
    unrolled loop's variable in code differentiated again) denote its function."""
    for node in T.walk(gast.Module(list(body), [])):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and norm.counts.get(node.targets[0].id) == 1 \
                and isinstance(node.value, gast.Subscript) \
                and isinstance(node.value.value, gast.Name) \
                and node.value.value.id in norm.function_tables:
            key = norm.facts.constant(node.value.slice)
            table = norm.function_tables[node.value.value.id]
            found = None if key is MISSING else _lookup(
                table, key, _is_dict(norm, node.value.value.id))
            if found is not None:
                norm.scope.static.setdefault(node.targets[0].id, norm.scope.value(found))


def _global_tables(norm, body):
    """Tables the code reads from its module or a closure (``ACTS = {"relu": relu, "tanh":
    np.tanh}`` at the top of the module): name -> [(key, the function)], each item read
    (and guarded) now; the choice made when the code runs reads the container again."""
    out = {}
    for name in sorted({n.id for n in T.walk(gast.Module(list(body), []))
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}):
        if norm.counts.get(name) or name in norm.scope.locals:
            continue
        held = norm.scope.lookup(name, guard=False)  # (a global array: not made a guard)
        if type(held) not in (dict, list, tuple) or not 0 < len(held) <= _TABLE_MAX \
                or not all(callable(v) for v in (held.values() if type(held) is dict else held)):
            continue
        if type(held) is dict and not all(k is None or type(k) in (str, int) for k in held):
            continue  # (``None: identity`` for ``activation=None``)
        held = norm.scope.value(T.name(name))  # (now guarded)
        keys = list(held) if type(held) is dict else list(range(len(held)))
        reads = [(k, gast.Subscript(T.name(name), T.const(k), gast.Load())) for k in keys]
        if all(known_function(norm, e) for _, e in reads):
            # (Each function as a constant of the code: a call of ``ACTS["relu"]`` would
            # be a call through the table again.)
            out[name] = [(k, norm.ctx.constant(norm.scope.value(e))) for k, e in reads]
    return out


def _is_dict(norm, name):
    return isinstance(norm.facts.bound.get(name), gast.Dict) \
        or type(norm.scope.value(T.name(name))) is dict


def _items(norm, display):
    if isinstance(display, gast.Dict):
        keys = [norm.facts.constant(k) if k is not None else MISSING for k in display.keys]
        if MISSING in keys:
            return None
        merged = {}
        for k, v in zip(keys, display.values):  # a repeated key: its last value
            merged[k] = v
        return list(merged.items())
    if any(isinstance(e, gast.Starred) for e in display.elts):
        return None
    return list(enumerate(display.elts))


def known_function(norm, node):
    """Is ``node`` a function known when compiling: a def of the code bound once (or a
    name bound once to one), or a name, attribute or constant item of a module's
    function (read, and guarded, now)?"""
    if isinstance(node, gast.Name) and node.id in norm.scope.local_defs:
        return True
    if isinstance(node, gast.Name) and node.id in norm.scope.static:
        obj = norm.scope.static[node.id]
    elif not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)) \
            or expr_varied(node, norm.varied, norm.scope):
        return False
    else:
        obj = norm.scope.value(node)
    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, np.ufunc,
                            gast.FunctionDef))


def _escaped(norm, body, names):
    """The ``names`` some use of which may keep, pass on or change their table."""
    parents = {}
    for node in T.walk(gast.Module(list(body), [])):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    out = set()
    for node in T.walk(gast.Module(list(body), [])):
        if not (isinstance(node, gast.Name) and node.id in names):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Store) and isinstance(parent, gast.Assign) \
                or isinstance(node.ctx, gast.Del):
            continue  # the one binding, or unbinding the name (generated code's ``del``)
        if isinstance(parent, gast.Subscript) and parent.value is node \
                and isinstance(parent.ctx, gast.Load):
            continue
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
            continue
        if isinstance(parent, gast.Call) and node in parent.args \
                and norm.scope.value(parent.func) in _READERS:
            continue
        out.add(node.id)
    return out


def static_items(norm, it):
    """(function, expression) of each item of a list or tuple table ``it``, or None."""
    if not isinstance(it, gast.Name) or it.id not in norm.function_tables \
            or it.id in norm.ctx.dicts or _is_dict(norm, it.id):
        return None
    return [(norm.scope.value(e), gast.Subscript(T.name(it.id), T.const(k), gast.Load()))
            for k, e in norm.function_tables[it.id]]


def call(norm, node, out, dest, hint):
    """``fs[k](args)`` of a table ``fs``: a call of the function ``k`` picks."""
    f = node.func
    name, key = f.value.id, f.slice
    items = norm.function_tables[name]
    if isinstance(key, gast.Slice) or expr_varied(key, norm.varied, norm.scope):
        raise norm.ctx.error(
            f"`{gast.unparse(f).strip()}`: which function is called depends on "
            "differentiable values", norm.cur,
            "choose the function with a constant or an argument that carries no gradient")
    value = norm.facts.constant(key)
    if value is not MISSING:
        found = _lookup(items, value, _is_dict(norm, name))
        if found is not None:
            return norm.expr(anno.like(gast.Call(T.clone(found), node.args, node.keywords),
                                       node), out, dest, hint)
    # Chosen when the code runs: the item read as Python reads it (raising as it does
    # for a missing key), then which of the known functions it is.
    chosen = norm.ctx.namer.fresh(f"{name}_chosen")
    out.append(norm._mark(T.assign(chosen, gast.Subscript(T.name(name), T.clone(key),
                                                          gast.Load())), "opaque"))
    tests = [gast.Compare(T.name(chosen), [gast.Is()],
                          [gast.Subscript(T.name(name), T.const(k), gast.Load())])
             for k, _ in items]
    guard = T.stmt("""if not known: raise TypeError("'%s' object is not callable" % type(c).__name__)""",
                   known=gast.BoolOp(gast.Or(), [T.clone(t) for t in tests])
                   if len(tests) > 1 else T.clone(tests[0]), c=T.name(chosen))
    out.append(norm._mark(guard, "opaque"))
    choice = gast.Call(T.clone(items[-1][1]), node.args, node.keywords)
    for t, (_, fn) in reversed(list(zip(tests[:-1], items[:-1]))):
        choice = gast.IfExp(t, gast.Call(T.clone(fn), [T.clone(a) for a in node.args],
                                         [T.clone(k) for k in node.keywords]), choice)
    return norm.expr(anno.like(choice, node), out, dest, hint)


def _lookup(items, key, is_dict):
    """The expression the constant ``key`` reads from a table, as Python indexes it."""
    if is_dict:
        try:
            return dict(items).get(key)
        except TypeError:  # unhashable
            return None
    if type(key) not in (int, bool) or not -len(items) <= key < len(items):
        return None
    return items[key][1]


# -- functions made by a call ---------------------------------------------------------
#
# ``make(a)`` whose body ends ``return inner`` (a def of its own, or a lambda, which is
# hoisted into one) makes a closure over its own frame. Inlined, the frame is the
# callee's renamed variables: the same closure, as long as one frame is made, which
# holds where the call is not inside a loop (there, two closures made on two trips
# would read one set of variables). Calls through such names in a loop are refused.

def makes_function(norm, call):
    """Is ``call`` a call of a user function that returns a def of its own?"""
    if not isinstance(call, gast.Call) or isinstance(call.func, gast.Call):
        return False
    obj = norm.scope.value(call.func)
    if isinstance(obj, gast.FunctionDef):
        node = obj
    elif isinstance(obj, types.FunctionType) and not is_library(obj):
        try:
            node = norm.ctx.source(obj).node
        except CompileError:
            return False
    else:
        return False
    last = node.body[-1] if node.body else None
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Name)):
        return False
    return any(isinstance(s, gast.FunctionDef) and s.name == last.value.id for s in node.body)


def made_display(norm, value):
    """``[make(w) for w in (0.5, 2.0)]`` as ``[make(0.5), make(2.0)]``: one call (one
    frame) per item, where the items are known when compiling; None otherwise."""
    if not (isinstance(value, gast.ListComp) and len(value.generators) == 1
            and makes_function(norm, value.elt)):
        return None
    gen = value.generators[0]
    if gen.ifs:
        return None
    it = gen.iter
    if isinstance(it, (gast.List, gast.Tuple)) and not any(isinstance(e, gast.Starred)
                                                          for e in it.elts):
        items = list(it.elts)
    else:
        values = norm._constant_sequence(it)
        items = [T.const(v) for v in values] if values is not None else norm.facts.items(it)
    bound = [_bind(gen.target, item) for item in items or ()]
    if items is None or None in bound:
        return None
    return gast.List([_substituted(value.elt, b) for b in bound], gast.Load())


def _bind(target, item):
    """name -> expression, for ``target`` bound to the display ``item``; None if the
    shapes differ or are not written out."""
    if isinstance(target, gast.Name):
        return {target.id: item}
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(item, (gast.Tuple, gast.List)) \
            and len(target.elts) == len(item.elts) \
            and not any(isinstance(e, gast.Starred) for e in target.elts + item.elts):
        out = {}
        for t, e in zip(target.elts, item.elts):
            inner = _bind(t, e)
            if inner is None:
                return None
            out.update(inner)
        return out
    return None


def _substituted(expr, bound):
    class Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            return T.clone(bound[node.id]) if node.id in bound \
                and isinstance(node.ctx, gast.Load) else node
    return Substitute().visit(T.clone(expr))


def pending(norm, it):
    """Is ``it`` a name bound to a display of functions that calls inlined in this round
    make (``fs = [fs_item, fs_item_2]`` after ``fs_item = make(a)``), known as a table
    in the next round?"""
    if not isinstance(it, gast.Name) or it.id in norm.function_tables:
        return False
    display = norm.facts.bound.get(it.id)
    display = made_display(norm, display) or display
    if not isinstance(display, (gast.List, gast.Tuple)):
        return False
    return any(makes_function(norm, e) or isinstance(e, gast.Name)
               and e.id not in norm.scope.static and (
                   makes_function(norm, norm.facts.bound.get(e.id))
                   or isinstance(norm.facts.bound.get(e.id), gast.Name))
               for e in display.elts)
