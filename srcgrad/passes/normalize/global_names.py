"""``global`` statements: a counter or a flag the code keeps in its module.

``global NCALLS; NCALLS += 1`` in the function differentiated or in a helper it
calls: each read of a name declared global is a read of the module's variable
when it runs (``_sg.global_value``), each write a write of it (``_sg.set_global``),
so the module holds what Python leaves in it and a later read sees an earlier
write, in this function or in another one inlined into it. The values are not
differentiated: a differentiable value stored in a global is refused, as the
compiled code could not follow it through later reads. A read of the same module
variable by a function that does not declare it (``print(NCALLS)`` in another
helper) reads it when it runs too.
"""
import dis
import functools
import types

import gast

from ... import runtime as rt
from ...ir import anno, templates as T
from ...ir.names import own_nodes, walk_stmts
from ...ir.resolve import MISSING, is_library
from ...ir.varied import expr_varied


def lower(norm, fn, module_globals):
    """Rewrite the reads and writes of the names ``fn`` (a def, desugared) declares
    global, in its body and the defs nested in it; ``module_globals``: its module's."""
    declared = {n for node in _own(fn) if isinstance(node, gast.Global) for n in node.names}
    if not declared:
        return
    where = norm.ctx.constant(module_globals)
    norm.ctx.global_writes.update((id(module_globals), n) for n in declared)
    fn.body = _block(norm, fn.body, declared, where)


def _own(fn):
    """The nodes of ``fn``'s body (nested defs included: they read the same globals)."""
    return [n for s in fn.body for n in T.walk(s)]


def _block(norm, body, declared, where):
    out = []
    for s in body:
        if isinstance(s, gast.Global):
            continue
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _block(norm, getattr(s, field), declared, where))
        if isinstance(s, gast.FunctionDef):
            if {n.id for n in T.walk(s) if isinstance(n, gast.Name)
                    and not isinstance(n.ctx, gast.Load)} & declared:
                raise norm.ctx.error(
                    "a def nested in a function that declares a global binds a local of "
                    "the same name", s, "give the nested def's variable another name")
            s.body = _block(norm, s.body, declared, where)
            out.append(s)
            continue
        stored = [n for n in _targets(s) if n.id in declared]
        if stored and isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            # ``N += 1``: the module's value, updated (a number: rebound, not changed)
            s = anno.like(gast.Assign([gast.Name(s.target.id, gast.Store(), None, None)],
                                      gast.BinOp(gast.Name(s.target.id, gast.Load(), None, None),
                                                 s.op, s.value), None), s)
        if stored and not (isinstance(s, gast.Assign) and len(s.targets) == 1
                           and isinstance(s.targets[0], gast.Name)):
            raise norm.ctx.error(
                f"`{stored[0].id}`, declared global, is bound other than by `=` (a loop's "
                "variable, unpacking, `with ... as`)", s,
                f"assign it: {stored[0].id} = ...")
        _reads(s, declared, where)
        if stored:
            s = anno.like(gast.Expr(T.expr("_sg.set_global(g, name, value)", g=T.clone(where),
                                           name=T.const(stored[0].id), value=s.value)), s)
        out.append(s)
    return out


def _targets(s):
    return [n for n in T.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))]


def _reads(s, declared, where):
    """Each read of a declared name in ``s`` as a read of the module's variable."""
    for node in T.walk(s):
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.Name) and value.id in declared \
                    and isinstance(value.ctx, gast.Load):
                setattr(node, field, _read(value.id, where))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, gast.Name) and item.id in declared \
                            and isinstance(item.ctx, gast.Load):
                        value[i] = _read(item.id, where)


def _read(name, where):
    return T.expr("_sg.global_value(g, name)", g=T.clone(where), name=T.const(name))


def check(norm, fn):
    """Refuse a differentiable value written into a module variable, and read the
    module variables some code writes when the code runs, also where a function reads
    one without declaring it (inlined, or run as written: ``_writes_of`` a call)."""
    for s in walk_stmts(fn.body):
        for node in own_nodes(s):
            if isinstance(node, gast.Call):
                _note_writes(norm, norm.scope.value(node.func))
    if not norm.ctx.global_writes:
        return
    for s in walk_stmts(fn.body):
        call = s.value if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) else None
        if call is not None and norm.scope.value(call.func) is rt.set_global \
                and expr_varied(call.args[2], norm.varied, norm.scope):
            raise norm.ctx.error(
                f"storing a differentiable value in the global `{call.args[1].value}`", s,
                "return the value, or keep it in a local variable")
        _undeclared_reads(norm, s)


def _note_writes(norm, fn, depth=3):
    """The module variables a function run as written may write (``global n; n += 1``
    in it, or in a function of its module it calls, a few calls deep)."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType) or is_library(fn) or depth == 0:
        return
    for name, stores in _global_names(fn.__code__):
        if stores:
            norm.ctx.global_writes.add((id(fn.__globals__), name))
        else:
            _note_writes(norm, fn.__globals__.get(name), depth - 1)


@functools.lru_cache(maxsize=1024)
def _global_names(code):
    """(name, stored?) of the module variables ``code`` (and the code nested in it)
    stores or loads."""
    out = {(i.argval, i.opname == "STORE_GLOBAL") for i in dis.get_instructions(code)
           if i.opname in ("STORE_GLOBAL", "LOAD_GLOBAL")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= set(_global_names(const))
    return tuple(sorted(out))


def _undeclared_reads(norm, s):
    for node in [s, *own_nodes(s)]:  # (``s`` too: ``if FLAG:`` reads it as ``s.test``)
        for field, value in gast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if not (isinstance(item, gast.Name) and isinstance(item.ctx, gast.Load)):
                    continue
                module, name = norm.ctx.imported_globals.get(
                    item.id, (norm.ctx.src.globals, item.id))
                if (id(module), name) not in norm.ctx.global_writes \
                        or item.id in norm.scope.locals and item.id not in \
                        norm.ctx.imported_globals or norm.scope.value(item) is MISSING:
                    continue
                new = _read(name, norm.ctx.constant(module))
                if isinstance(value, list):
                    value[i] = new
                else:
                    setattr(node, field, new)
