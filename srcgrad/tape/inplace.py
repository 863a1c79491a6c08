"""Tape blocks of an ``@sg.function`` compiled in place: no frame tricks.

When the decorated function is first called, each ``with GradientTape() as
tape:`` block in it that can run once (``once.why_not``) is replaced in the
function's own code by a call of the block's compiled forward code, whose
results are bound to the block's variables as plain assignments::

    with sg.GradientTape() as tape:             tape = sg.GradientTape()
        loss = model_loss(W, X)          ->     ran_1 = run(tape, region_1, (W, X))
                                                if ran_1 is None:
                                                    with tape as tape:
                                                        loss = model_loss(W, X)
                                                else:
                                                    loss = ran_1[0]

``run(tape, (region, input names), input values)`` returns None where the block cannot run compiled for these values (a
value the compiler does not take, a block it refuses); the block then runs as
written, as a tape in plain code does. Everything else in the function is
the user's code, compiled again from its source with the same file, lines,
globals and closure cells, so tracebacks, debuggers and coverage see the
user's lines.

Functions this cannot rebuild exactly (generators and coroutines, ``super()``
without arguments, source that cannot be found) are left as they are: their blocks run as in plain
code.
"""
import ast
import copy
import types

import gast

from .. import runtime
from ..compiler.source import class_of, mangle
from ..passes.tape_blocks import region_inputs
from . import blocks, once

_GENERATORS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen
_RUN, _UNBOUND = "__srcgrad_run__", "__srcgrad_unbound__"


def compile_in_place(f, run):
    """``f`` with its tape blocks compiled in place (``run`` runs one), or None if it
    has none that can be, or ``f`` cannot be rebuilt from its source exactly."""
    code = f.__code__
    if code.co_flags & _GENERATORS or "__class__" in code.co_freevars \
            or f.__name__ == "<lambda>":
        return None
    try:
        tree = blocks._tree(code.co_filename, f.__globals__, code)
    except Exception:  # no source: the blocks say so when they run
        return None
    node = _find_def(tree, code)
    if node is None:
        return None
    node = mangle(copy.deepcopy(node), class_of(code))  # as a class body compiles it
    local = set(code.co_varnames) | set(code.co_cellvars)
    regions = []
    for stmts, i in _tape_withs(node.body):
        w = stmts[i]
        region = blocks.Region(code.co_filename, w.lineno, w.body, w.items[0].optional_vars.id,
                               f.__globals__, key=(code.co_filename, w.lineno, w.col_offset),
                               with_stmt=w, next_stmt=blocks._after(stmts, i),
                               **blocks._frame_facts(code))
        if once.why_not(region) is not None:
            continue
        region.inputs = region_inputs(region)
        region.outputs = once.bound_names(region.statements)
        inputs = [n for n in region.inputs if (n in local or n in code.co_freevars)
                  and n != region.tape_name]  # (the tape is not data the block reads)
        if any(n in local and not _bound_before(node, w, n) for n in inputs):
            continue  # may be unbound when the block starts: as plain code does
        regions.append((w, region, inputs))
    if not regions:
        return None
    tree_ast = gast.gast_to_ast(gast.Module([copy.deepcopy(node)], []))
    inner = tree_ast.body[0]
    inner.decorator_list = []
    injected = {_RUN: run, _UNBOUND: runtime.UNBOUND}
    at = {(w.lineno, w.col_offset): (k, region, inputs)
          for k, (w, region, inputs) in enumerate(regions)}
    found = [(stmts, s) for stmts in _ast_blocks(inner) for s in stmts
             if isinstance(s, ast.With) and (s.lineno, s.col_offset) in at]
    for stmts, s in found:  # (the replacement keeps the with, as its fallback)
        k, region, inputs = at[(s.lineno, s.col_offset)]
        injected[f"__srcgrad_region_{k}__"] = (region, tuple(inputs))
        j = next(i for i, t in enumerate(stmts) if t is s)
        stmts[j:j + 1] = _in_place(s, k, inputs, region)
    params = list(code.co_freevars) + list(injected)
    outer = ast.FunctionDef("__srcgrad_outer__", ast.arguments(
        [], [ast.arg(p) for p in params], None, [], [], None, []), [inner], [], None)
    module = ast.Module([outer], [])
    ast.copy_location(outer, inner)
    ast.fix_missing_locations(module)
    g_text = ast.unparse(module)
    compiled = compile(module, code.co_filename, "exec", dont_inherit=True)
    outer_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    new = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType)
               and c.co_name == code.co_name)
    cells = dict(zip(code.co_freevars, f.__closure__ or ()))
    cells.update({n: types.CellType(v) for n, v in injected.items()})
    g = types.FunctionType(new, f.__globals__, f.__name__, f.__defaults__,
                           tuple(cells[n] for n in new.co_freevars))
    g.__kwdefaults__ = f.__kwdefaults__
    g.__qualname__, g.__module__, g.__doc__ = f.__qualname__, f.__module__, f.__doc__
    g.__annotations__ = getattr(f, "__annotations__", {})
    g.__dict__.update(f.__dict__)
    g.__srcgrad_in_place__ = g_text
    return g


def _find_def(tree, code):
    for n in gast.walk(tree):
        if isinstance(n, gast.FunctionDef) and n.name == code.co_name:
            first = min([n.lineno] + [d.lineno for d in n.decorator_list])
            if first == code.co_firstlineno:
                return n
    return None


def _tape_withs(body):
    """(statement list, index) of each ``with ...GradientTape(...) as name:`` in ``body``,
    not in nested functions or classes."""
    for stmts in _stmt_lists(body):
        for i, s in enumerate(stmts):
            if isinstance(s, gast.With) and once._nested_tape(s):
                yield stmts, i


def _stmt_lists(body):
    yield body
    for s in body:
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) \
                or isinstance(s, gast.With) and once._nested_tape(s):
            continue  # (a tape block in a tape block is the outer block's)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                yield from _stmt_lists(inner)
        for h in getattr(s, "handlers", ()):
            yield from _stmt_lists(h.body)


def _ast_blocks(fn):
    """Statement lists of the ast ``fn``, outermost first, not in nested scopes."""
    todo = [fn.body]
    while todo:
        stmts = todo.pop()
        yield stmts
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    todo.append(inner)
            for h in getattr(s, "handlers", ()):
                todo.append(h.body)


def _bound_before(fn, target, name):
    """Is ``name`` (a local of ``fn``) bound on every path to the statement ``target``?
    Parameters, and names a statement before it in its own or an enclosing
    list binds (a loop's target inside its body), unless deleted anywhere."""
    if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Del)
           for n in gast.walk(fn)):
        return False
    args = fn.args
    if name in [a.id for a in args.posonlyargs + args.args + args.kwonlyargs] \
            or any(a is not None and a.id == name for a in (args.vararg, args.kwarg)):
        return True

    def search(stmts):
        """None if ``target`` is not in ``stmts``, else whether ``name`` is bound there."""
        for i, s in enumerate(stmts):
            if s is target:
                return any(_binds(t, name) for t in stmts[:i])
            inside = []
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                        and not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                    inside.append((field, inner))
            inside += [("handler", h.body) for h in getattr(s, "handlers", ())]
            for field, inner in inside:
                found = search(inner)
                if found is None:
                    continue
                if found or any(_binds(t, name) for t in stmts[:i]):
                    return True
                loop_target = getattr(s, "target", None) if isinstance(s, gast.For) \
                    and field == "body" else None
                with_vars = [it.optional_vars for it in getattr(s, "items", ())
                             if it.optional_vars is not None] if isinstance(s, gast.With) else []
                return any(isinstance(n, gast.Name) and n.id == name
                           for t in [loop_target] + with_vars if t is not None
                           for n in gast.walk(t))
        return None
    return bool(search(fn.body))


def _binds(s, name):
    """Does the statement ``s`` bind ``name`` whenever it completes?"""
    if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
        targets = s.targets if isinstance(s, gast.Assign) else [s.target]
        if isinstance(s, gast.AnnAssign) and s.value is None:
            return False
        return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                   for t in targets for n in gast.walk(t))
    if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
        return s.name == name
    if isinstance(s, (gast.Import, gast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in s.names)
    if isinstance(s, gast.With):
        return any(_binds(t, name) for t in s.body) or any(
            isinstance(n, gast.Name) and n.id == name for it in s.items
            if it.optional_vars is not None for n in gast.walk(it.optional_vars))
    return False


def _in_place(w, k, inputs, region):
    """The statements replacing the ast ``with`` statement ``w`` (see the module's doc)."""
    tape, ran = region.tape_name, f"__srcgrad_ran_{k}__"
    item = w.items[0]

    def name(n, ctx=ast.Load):
        return ast.Name(n, ctx())

    def at(node):
        return ast.copy_location(node, w)
    always = {n for s in region.statements for n in once.bound_names([s])
              if _binds(s, n) and not isinstance(s, gast.With)}
    # Bound first, as a with statement binds it before its body runs (a GradientTape's
    # __enter__ returns the tape itself; ``run`` takes nothing else).
    def binding(bound_always):
        out = []
        for i, n in enumerate(region.outputs):
            value = ast.Subscript(name(ran), ast.Constant(i), ast.Load())
            assign = at(ast.Assign([name(n, ast.Store)], value))
            if n not in bound_always:  # a zero-trip loop leaves it as it was
                assign = at(ast.If(ast.Compare(copy.deepcopy(value), [ast.IsNot()],
                                               [name(_UNBOUND)]), [assign], []))
            out.append(assign)
        return out
    # The block raising: the variables as its statements left them, then the exception
    # (a handler around the block reads them, as it would after a with statement).
    error = f"__srcgrad_error_{k}__"
    raised = at(ast.ExceptHandler(name("BaseException"), error, [
        at(ast.Assign([name(ran, ast.Store)], ast.Call(
            name("getattr"), [name(error), ast.Constant("__srcgrad_bound__"),
                              ast.Constant(None)], []))),
        at(ast.If(ast.Compare(name(ran), [ast.IsNot()], [ast.Constant(None)]),
                  binding(set()), [])),
        at(ast.Raise(None, None))]))
    out = [at(ast.Assign([copy.deepcopy(item.optional_vars)], item.context_expr)),
           at(ast.Try([at(ast.Assign([name(ran, ast.Store)], ast.Call(
               name(_RUN), [name(tape), name(f"__srcgrad_region_{k}__"),
                            ast.Tuple([name(n) for n in inputs], ast.Load())], [])))],
               [raised], [], []))]
    fallback = at(ast.With([ast.withitem(name(tape), item.optional_vars)], w.body))
    out.append(at(ast.If(ast.Compare(name(ran), [ast.Is()], [ast.Constant(None)]),
                         [fallback], binding(always))))
    return out
