"""Statements of a tape block outside the compiler's language, run as written.

A block that runs once (issue 11, section 3) may hold statements the
compiler does not differentiate and needs not: a ``try`` around logging,
``with open(...)``, an ``import``, a ``def``, a ``del``. Each becomes a
function of its own, compiled from the user's lines (a traceback names
them), called in the block's compiled code as a call without derivative;
the names it binds are bound from what it returns::

    try:                                        block_stmt_out = block_stmt(log, loss)
        log.write(f"{float(loss)}\\n")    ->
    except OSError:
        failed = True                           if block_stmt_out[0] is not UNBOUND:
                                                    failed = block_stmt_out[0]

Only what a gradient flows through must be in the compiler's language, so
the compiler refuses such a statement (``check``, when it knows which
values are differentiated) where a gradient could flow through it: it reads
a differentiated value other than to compute something new from it (a
conversion, a print, arithmetic), or binds a name to a value computed from
one (any name the block binds may be a target or a source).
"""
import ast
import builtins
import copy
import types
from dataclasses import dataclass

import gast

from .. import runtime
from ..ir import templates as T
from ..ir.names import scope_bound_names, scope_nodes
from ..ir.resolve import among
from ..ir.scopes import free_names
from ..ir.varied import expr_varied
from ..rules import table

# What runs as written (a ``with`` other than a tape's is decided by the caller).
# (A ``def`` is in the compiler's language: a nested function, inlined where called.)
LIFTED = (gast.Try, gast.With, gast.Import, gast.ImportFrom, gast.ClassDef,
          gast.Delete) + tuple(getattr(gast, n) for n in ("TryStar",) if hasattr(gast, n))
_ESCAPING = (gast.Return, gast.Yield, gast.YieldFrom, gast.Await, gast.Global, gast.Nonlocal)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_WHAT = {gast.Try: "try statement", gast.With: "with statement", gast.Import: "import",
         gast.ImportFrom: "import", gast.ClassDef: "class", gast.Delete: "del statement"}
# Methods that change their object (a dict's items, a list's) rather than compute.
_MUTATING = {"update", "pop", "popitem", "setdefault", "clear", "append", "extend", "insert",
             "remove", "sort", "reverse", "__setitem__", "__delitem__", "fill", "resize"}


@dataclass
class Written:
    """What the compiler checks of a statement run as written."""

    what: str          # "try statement", ...
    params: tuple      # the block's names it reads, in the order passed
    impure: frozenset  # params it may keep, write into or hand to unknown code
    binds: tuple       # names it binds, in the order returned
    stmt: object       # the statement (gast), to follow values through it


def lift(s, region, block_names, items_read, ctx):
    """Statements calling ``s`` run as written; ``block_names``: the block's inputs and
    every name it binds; ``items_read``: names whose items or attributes the block
    reads (``cfg["lr"]``, ``self.w``) outside ``s``."""
    what = _WHAT.get(type(s), type(s).__name__)
    if isinstance(s, gast.Delete) and all(isinstance(t, gast.Name) for t in s.targets):
        # ``del tmp`` (memory): the name unbound, so it is not written back.
        unbound = T.name(ctx.inject(runtime.UNBOUND, "UNBOUND"))
        return [gast.copy_location(T.assign(t.id, copy.deepcopy(unbound)), s) for t in s.targets]
    for node in scope_nodes(s):
        if isinstance(node, _ESCAPING):
            raise region.error(f"`{type(node).__name__.lower()}` in a {what} inside a "
                               "GradientTape block is not supported", node,
                               "end the with block first")
        if isinstance(node, (gast.Break, gast.Continue)) and not _in_own_loop(node, s):
            raise region.error("break or continue out of a statement run as written in a "
                               "GradientTape block is not supported", node)
    changed = sorted(_changed_objects(s) & set(items_read))
    if changed:
        # The compiler may have read that item when compiling (a constant of a dict,
        # a method of an object): a change it cannot see would go unnoticed.
        raise region.error(f"the {what} changes `{changed[0]}`, whose items or attributes the "
                           "block reads elsewhere, in code srcgrad runs as written", s,
                           f"change `{changed[0]}` outside the GradientTape block")
    wrapper = gast.FunctionDef("_", gast.arguments([], [], None, [], [], None, []),
                               [copy.deepcopy(s)], [], None, None, [])
    params = tuple(sorted(n for n in free_names(wrapper) if n in block_names))
    binds = tuple(bound_names(s))
    fn = _compile(s, region, params, binds)
    info = Written(what, params, frozenset(p for p in params if not _pure(s, p, region)),
                   binds, copy.deepcopy(s))
    callee = ctx.inject(fn, "block_stmt")
    out = ctx.namer.fresh(f"{callee}_out")
    call = T.assign(out, gast.Call(T.name(callee), [T.name(p) for p in params], []))
    call.sg_as_written = info
    stmts = [call]
    unbound = ctx.inject(runtime.UNBOUND, "UNBOUND") if binds else None
    for k, name in enumerate(binds):
        item = gast.Subscript(T.name(out), T.const(k), gast.Load())
        bind = T.assign(name, item)
        if not isinstance(s, (gast.Import, gast.ImportFrom, gast.FunctionDef, gast.ClassDef)):
            # Bound on some paths only (an except clause), or deleted: as it was otherwise.
            test = gast.Compare(copy.deepcopy(item), [gast.IsNot()], [T.name(unbound)])
            bind = gast.If(test, [bind], [])
        stmts.append(bind)
    for t in stmts:
        for node in gast.walk(t):
            if isinstance(node, (gast.stmt, gast.expr)):
                gast.copy_location(node, s)
    return stmts


def check(info, varied, scope, error):
    """Raise ``error(message, remedy)`` if a gradient could flow through the statement."""
    read = [p for p in info.params if p in varied]
    if not read:
        return
    kept = [p for p in read if p in info.impure]
    if kept:
        raise error(f"the {info.what} uses the differentiated value `{kept[0]}` in a way "
                    "srcgrad cannot follow (it may keep it, write into it, or pass it to "
                    "code srcgrad cannot see), and srcgrad runs it as written",
                    "compute differentiated values outside it; inside, only read them "
                    f"(float({kept[0]}), print, f-strings)")
    derived = sorted(set(info.binds) & _derived(info.stmt, set(read), scope))
    if derived:
        # Any name the block binds may be a target or a source of a gradient.
        raise error(f"the {info.what} computes `{derived[0]}` from the differentiated value "
                    f"`{read[0]}`: a gradient would flow through code srcgrad runs as "
                    "written, which it does not differentiate",
                    f"compute `{derived[0]}` outside the {info.what}")


def _derived(s, tainted, scope):
    """Names ``s`` binds to values a gradient could flow into from ``tainted`` names (as
    the compiler decides what is differentiated: not shapes, comparisons, draws...),
    followed until nothing changes."""
    tainted = set(tainted)
    while True:
        before = len(tainted)
        for node in scope_nodes(s):
            sources, targets = (), ()
            if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                sources = [node.value]
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            elif isinstance(node, gast.withitem) and node.optional_vars is not None:
                sources, targets = [node.context_expr], [node.optional_vars]
            elif isinstance(node, (gast.For, gast.comprehension)):
                sources, targets = [node.iter], [node.target]
            elif isinstance(node, gast.NamedExpr):
                sources, targets = [node.value], [node.target]
            if any(src is not None and expr_varied(src, tainted, scope) for src in sources):
                tainted |= {n.id for t in targets for n in gast.walk(t)
                            if isinstance(n, gast.Name)}
        if len(tainted) == before:
            return tainted


def _changed_objects(s):
    """Names whose object ``s`` may change: items or attributes stored or deleted, or a
    changing method called (``d.update(...)``, ``lst.append(...)``)."""
    out = set()
    for node in scope_nodes(s):
        if isinstance(node, (gast.Subscript, gast.Attribute)) \
                and isinstance(node.ctx, (gast.Store, gast.Del)):
            base = node.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                out.add(base.id)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _MUTATING and isinstance(node.func.value, gast.Name):
            out.add(node.func.value.id)
    return out


def _in_own_loop(node, s):
    return any(isinstance(loop, (gast.For, gast.While)) and any(n is node for n in gast.walk(loop))
               for loop in scope_nodes(s))


def bound_names(s):
    """Names ``s`` binds (or deletes) in the block's scope, in order of first binding."""
    return scope_bound_names([s], deleted=True)


def _compile(s, region, params, binds):
    """``def block_stmt(<params>): <s>; return (<binds or UNBOUND>,)`` from the user's
    lines, with the user's globals."""
    body = gast.gast_to_ast(gast.Module([copy.deepcopy(s)], [])).body
    unbound = "__srcgrad_unbound__"
    result = ast.parse(f"__srcgrad_locals__ = locals()\n"
                       f"return ({''.join(f'__srcgrad_locals__.get({b!r}, {unbound}), ' for b in binds)})"
                       ).body
    args = ast.arguments([], [ast.arg(p) for p in params] + [ast.arg(unbound)], None, [], [],
                         None, [ast.Constant(None)])
    fn = ast.FunctionDef("block_stmt", args, body + result, [], None)
    for node in result:  # the lines of what is added: the statement's last line
        for n in ast.walk(node):
            ast.copy_location(n, body[-1])
    ast.copy_location(fn, body[0])
    module = ast.Module([fn], [])
    ast.fix_missing_locations(module)
    code = compile(module, region.filename, "exec", dont_inherit=True)
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    fn = types.FunctionType(inner, region.globals, "block_stmt", (runtime.UNBOUND,))
    fn.__srcgrad_as_written__ = True  # called, never inlined nor differentiated (table.nondiff)
    return fn


# Array attributes that give a new value (or a number) and keep no reference.
_READ_ATTRIBUTES = table.NONDIFF_ATTRIBUTES


def _pure(s, name, region):
    """Does ``s`` only compute new values from ``name`` (never keep it, write into it,
    or pass it to code whose effect srcgrad does not know)?"""
    parents = {}
    for node in scope_nodes(s):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in scope_nodes(s):
        if isinstance(node, gast.Name) and node.id == name:
            if not isinstance(node.ctx, gast.Load) or not _pure_use(node, parents, region):
                return False
    # A function or class it defines may read the value later: not followed.
    return not any(isinstance(n, _SCOPES) and any(isinstance(m, gast.Name) and m.id == name
                                                  for m in gast.walk(n))
                   for n in gast.walk(s) if n is not s)


def _pure_use(node, parents, region, depth=0):
    parent = parents.get(id(node))
    if isinstance(parent, (gast.FormattedValue, gast.BinOp, gast.UnaryOp, gast.Compare,
                           gast.BoolOp)):
        return True
    if isinstance(parent, gast.Call) and node is not parent.func \
            and not any(k.arg == "out" for k in parent.keywords):
        return _known_pure(parent.func, region)
    if isinstance(parent, gast.Attribute) and parent.value is node:
        if parent.attr in _READ_ATTRIBUTES:
            return True
        call = parents.get(id(parent))
        return isinstance(call, gast.Call) and call.func is parent \
            and parent.attr in table.METHODS and parent.attr not in ("copy",)
    if isinstance(parent, gast.Subscript) and parent.value is node and depth < 3:
        return _pure_use(parent, parents, region, depth + 1)  # a view: where does it go?
    return False


def _known_pure(func, region):
    """A function with a rule or in the non-differentiable list: it computes, it does not
    keep or write into its arguments (``out=`` excluded by the caller)."""
    obj = _resolve(func, region.globals)
    if obj is None:
        return False
    return table.rule(obj) is not None or table.nondiff(obj) \
        or among(obj, float, repr, format, round)


def _resolve(node, env):
    if isinstance(node, gast.Name):
        if node.id in env:
            return env[node.id]
        return getattr(builtins, node.id, None)
    if isinstance(node, gast.Attribute):
        base = _resolve(node.value, env)
        if isinstance(base, types.ModuleType):
            return getattr(base, node.attr, None)
    return None

