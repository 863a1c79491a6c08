"""The pipeline, top to bottom in ``compile_gradient``.

parse -> fence -> desugar -> normalize (resolve names, inline calls, one
operation per statement) -> activity -> instrument -> reverse -> record ->
unparse -> load. Each step is a module of ``srcgrad.transforms`` or a small
module of the package; this file only wires them and holds the context they
share.
"""
import builtins
import copy
import functools
import gc
import math
import types
from dataclasses import dataclass

import gast
import numpy as np

from . import codegen, source
from ..rules import table
from ..ir import templates as T
from ..errors import CompileError
from .naming import Namer
from ..passes import activity, fence, lifetimes, normalize, ranks, recompute, record
from ..ir import anno, atoms, scopes
from ..passes.cleanup import cleanup, drop_unused, forward_copies
from ..passes.desugar import desugar
from ..passes.resolve import MISSING as _UNKNOWN, Guards, Scope, is_library
from ..passes.reverse import Reverse, int_names

_LITERALS = (int, float, complex, str, bytes, bool, type(None))


class Context:
    """State shared by the passes for one compilation."""

    def __init__(self, src, guards):
        self.src = src
        self.guards = guards
        taken = {n.id for n in gast.walk(src.node) if isinstance(n, gast.Name)}
        taken |= set(dir(builtins)) | set(src.globals) | {"_sg", "_"}
        self.namer = Namer(taken)
        self.scope = Scope(src.globals, dict(src.freevars), guards)
        self.containers = set()
        self.tuples = {}
        self.cells = {"_sg": codegen.runtime_cell()}
        self.runtime = self.cells["_sg"].cell_contents
        self.scope.static["_sg"] = self.runtime
        self.cells.update(src.freevars)
        self.result_hint = "result"
        self._sources = {}
        # Tapes: reads of trainable Variables are differentiated (sources).
        self.param_values = {}  # parameters' values at the first call (tapes)
        self.arg_values = {}  # the same for sg.grad: only to specialise inner gradients
        self.variable_sources = False
        self.is_variable = lambda value: False
        self.sources = set()
        self.read_values = set()  # names holding the array read from a watched Variable
        self.scope.is_source = self._is_variable_read
        self.scope.calls_user_code = self._calls_user_code
        self.top_locals = scopes.function_locals(src.node)
        # Rule expressions say ``np`` and ``math``: use the user's own names
        # when they mean those modules, else private cells.
        self.module_names = {
            "np": self._module_name("np", np, "_np"),
            "math": self._module_name("math", math, "_math"),
        }

    def _module_name(self, name, module, private):
        if self.src.globals.get(name) is module and name not in self.top_locals:
            return name
        self.namer.reserve([private])
        self.cells[private] = types.CellType(module)
        self.scope.static[private] = module
        return private

    def rule(self, obj):
        return table.rule(obj)

    def harmless_call(self, call):
        """A call that cannot change its arguments: a primitive, or ``len``, ``range``, ..."""
        obj = self.scope.value(call.func)
        return obj is not _UNKNOWN and (table.nondiff(obj) or table.rule(obj) is not None)

    def _calls_user_code(self, call):
        """Under a tape, a call into user code may read Variables: differentiate it."""
        if not self.variable_sources:
            return False
        obj = self.scope.value(call.func)
        if isinstance(obj, gast.FunctionDef):
            return True
        if isinstance(obj, types.MethodType):
            obj = obj.__func__
        elif not isinstance(obj, (types.FunctionType, type)) and obj is not _UNKNOWN:
            obj = getattr(type(obj), "__call__", None)
        return isinstance(obj, types.FunctionType) and not is_library(obj)

    def _is_variable_read(self, node):
        """Does ``node`` (a name or attribute chain) read a trainable Variable a tape watches?"""
        if not self.variable_sources or not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
            return False
        if isinstance(node, gast.Name) and (node.id in self.sources or node.id in self.read_values):
            return False
        obj = self.scope.value(node)
        return self.is_variable(obj) and getattr(obj, "trainable", False)

    def source(self, fn):
        if fn not in self._sources:
            src = source.parse_function(fn)
            fence.check(src)
            src.names = scopes.names(src.node)  # (locals, free names): once, not per inlining
            self._sources[fn] = src
        return self._sources[fn]

    def error(self, message, stmt, remedy=None):
        o = anno.origin(stmt)
        if o is None and hasattr(stmt, "lineno"):
            o = self.src.origin(stmt)
        return CompileError(message, o.short() if o else None, None, remedy)

    def inject(self, obj, base):
        name = self.namer.fresh(base)
        self.cells[name] = types.CellType(obj)
        self.scope.static[name] = obj
        return name

    def constant(self, value):
        if isinstance(value, _LITERALS) and not (isinstance(value, float) and not np.isfinite(value)):
            return T.const(value)
        return T.name(self.inject(value, "default"))

    def import_free_names(self, src, callee):
        """Renames that make ``callee``'s free names mean what they mean in its module."""
        free = src.names[1]
        mapping = {}
        same_module = src.globals is self.src.globals
        for name in sorted(free):
            if name in src.freevars:
                if name in self.top_locals and _contents(src.freevars[name]) is \
                        self.param_values.get(name, _MISSING):
                    # A closure over the very variable the compiled code has as a
                    # parameter (a tape block calling a local function): the same variable.
                    continue
                mine = self.cells.get(name)
                if mine is not None and _contents(mine) is _contents(src.freevars[name]) \
                        and name not in self.top_locals:
                    continue
                fresh = self.namer.fresh(f"{src.fn.__name__}_{name}")
                self.cells[fresh] = src.freevars[name]
                self.scope.freevars[fresh] = src.freevars[name]
                mapping[name] = fresh
            elif name in src.globals:
                obj = src.globals[name]
                self.guards.add(src.globals, name, obj)
                if same_module and name not in self.top_locals:
                    continue
                if same_module and self.param_values.get(name, _MISSING) is obj:
                    continue  # a module-level tape block: the global is this parameter
                if self.src.globals.get(name, _MISSING) is obj and name not in self.top_locals:
                    continue
                mapping[name] = self.inject(obj, name)
        return mapping


_MISSING = object()


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


@dataclass
class Generated:
    text: str
    fn: object
    guards: Guards


def _specialize_varargs(node, nextra):
    """``def f(x, *args)`` called with 2 extra arguments -> ``def f(x, args_0, args_1)``."""
    a = node.args
    if a.vararg is None:
        return []
    name = a.vararg.id
    extra = [f"{name}_{i}" for i in range(nextra)]
    a.args = a.args + [gast.Name(e, gast.Param(), None, None) for e in extra]
    a.vararg = None
    bind = T.assign(name, gast.Tuple([T.name(e) for e in extra], gast.Load()))
    gast.copy_location(bind, node)
    node.body.insert(0, bind)
    return extra


def without_gc(compile_fn):
    """Run a compilation with the cyclic garbage collector paused.

    A compilation allocates many AST nodes and keeps them alive until it
    ends; the collector would traverse them again and again, which makes
    compile time grow faster than the function's size (1.4 -> 1.9 ms per
    statement from 100 to 1000 statements, against 1.1 -> 1.4 without it).
    """
    @functools.wraps(compile_fn)
    def run(*args, **kwargs):
        if not gc.isenabled():
            return compile_fn(*args, **kwargs)
        gc.disable()
        try:
            return compile_fn(*args, **kwargs)
        finally:
            gc.enable()
    return run


@without_gc
def compile_gradient(fn, wrt, mode, sample=None, as_tuple=False, inplace=True):
    """Generate, print and load the adjoint of ``fn``.

    ``wrt``: indices of the positional parameters to differentiate.
    ``mode``: "grad" (returns the gradient) or "value_and_grad".
    ``sample``: the positional arguments of the first call, or None; objects
    among them (not numbers) are used to resolve method calls.
    ``as_tuple``: return a tuple of gradients even for one ``wrt``.
    ``inplace``: update the backward pass's own buffers in place; off for code
    that will itself be differentiated (its aliasing checks are conservative).
    """
    fn = _differentiated(fn, sample)                  # sg.grad(sg.grad(f)): the inner code
    src = source.parse_function(fn)                   # parse
    fence.check(src)                                  # reject what is unsupported, up front
    ctx = Context(src, Guards())
    node, params = _signature(src, ctx, sample)       # *args specialised on their number
    wrt_names = [params[i] for i in wrt]
    desugar(node, ctx.namer)                          # early exits and sugar
    for s in activity.walk_stmts(node.body):
        if anno.origin(s) is None:
            anno.set_origin(s, src.origin(s))
    ctx.arg_values = dict(zip(params, sample or ()))
    for p, value in zip(params, sample or ()):        # objects passed in: resolve their methods
        if p not in wrt_names and atoms.is_static_object(value):
            ctx.scope.static[p] = value
    normalize.normalize(node, ctx, wrt_names)         # resolve, inline, one operation a statement
    body, result = node.body[:-1], node.body[-1].value
    result = result if result is not None else T.const(None)
    result_name = result.id if isinstance(result, gast.Name) else None
    act = activity.analyze(node.body, wrt_names, result_name)   # varied and useful
    rev, state, forward, backward = reverse_and_record(   # reverse mode; what the forward saves
        ctx, body, params, sample, act, [(result_name, T.const(1.0))], inplace)
    grads = [T.name(rev.d(w)) if w in state else T.expr("_sg.zeros_like(x)", x=w) for w in wrt_names]
    out = grads[0] if len(grads) == 1 and not as_tuple else gast.Tuple(grads, gast.Load())
    cleanup(backward, ctx.namer.adjoints.values(), _loads([gast.Expr(out)]))  # dead adjoints
    if mode == "value_and_grad":
        out = gast.Tuple([copy.deepcopy(result), out], gast.Load())
    # A result known to be a scalar needs no check; then, with sg.grad, the
    # forward pass need not compute what only the value needs.
    check = [] if result_name in rev.scalars and mode == "grad" else \
        [T.stmt("_sg.check_scalar(r, n)", r=result, n=T.const(f"{fn.__qualname__}()"))]
    lifetimes.shapes_from_operands(forward, backward, params, rev.ranks)
    trim_forward(forward, rev, check + backward + [gast.Expr(out)])
    code = forward + check + backward
    if inplace:                                       # free what nothing reads any more
        code = lifetimes.free_early(forward + check, backward,
                                    set(params) | _loads([gast.Expr(out)]),
                                    set(rev.scalars) | {result_name},  # the result is one too
                                    ctx.namer.adjoints)
    verb = "grad" if mode == "grad" else "value_and_grad"
    fname = ctx.namer.fresh(f"{verb}_{src.node.name}")
    new = gast.FunctionDef(fname, node.args, code + [gast.Return(out)], [], None, None, [])
    T.fix_ctx(new)
    what = "gradient" if mode == "grad" else "value and gradient"
    header = (f"{what} of {fn.__qualname__} ({src.origin(src.node).short()}) with respect to "
              f"{', '.join(wrt_names)}; generated by srcgrad")
    text = codegen.unparse(new, header)               # print
    loaded = codegen.load(text, fname, src.globals, ctx.cells, f"{mode} {fn.__qualname__}")
    return Generated(text, loaded, ctx.guards)


def trim_forward(forward, rev, after):
    """Drop from ``forward`` what none of the statements ``after`` it reads (values the
    backward pass rebuilds itself included), and the copies in its loops."""
    live = _loads(after)
    drop_unused(forward, live - rev.rebuilt)
    forward_copies(forward, live)


def reverse_and_record(ctx, body, params, sample, act, seeds, inplace, prelude=None, rows=None):
    """Backward code seeded by ``seeds`` ((name, value) pairs) and the forward code it needs.

    ``prelude(rev)`` may configure the generator and returns statements that
    open the backward code. ``rows``: the name of a seed with a leading axis
    of rows (``tape.jacobian``), which every adjoint then carries.
    Returns (generator, adjoint state, forward, backward).
    """
    record.instrument(body, ctx.namer)                # name branch flags and trip counters
    rev = Reverse(ctx, act)
    rev.ints = int_names(body)
    rev.inplace = inplace
    rev.rows = rows
    rev.ranks = ranks.infer(body, params, sample, rev.ints, ctx.scope.value)
    rev.scalars = {n for n, r in rev.ranks.items() if r == 0}
    backward = list(prelude(rev)) if prelude is not None else []
    state = {}
    for name, value in seeds:
        if name in act:
            backward.append(T.assign(rev.d(name), value))
            state[name] = True
    if state:
        backward += rev.block(body, state)
    forward, backward = _record(ctx, rev, body, params, backward)
    return rev, state, forward, backward


def _differentiated(fn, sample):
    """The function whose code is read: a gradient's own generated code, for higher order."""
    generated = getattr(fn, "__srcgrad_generated__", None)
    if generated is None:
        return fn
    # The inner code may be specialised on the values' kinds (ranks included):
    # they are part of the outer code's own cache key.
    return generated(list(sample) if sample is not None else None)


def _signature(src, ctx, sample):
    """A copy of the def to rewrite, with *args spread out; its positional parameter names."""
    node = copy.deepcopy(src.node)
    nparams = len(node.args.posonlyargs + node.args.args)
    if node.args.vararg is None and sample is not None and len(sample) > nparams:
        raise TypeError(f"{src.fn.__qualname__}() takes {nparams} positional arguments "
                        f"but {len(sample)} were given")
    nextra = max(0, len(sample) - nparams) if sample is not None else 0
    varargs = _specialize_varargs(node, nextra)
    if varargs:
        ctx.tuples[src.node.args.vararg.id] = [T.name(v) for v in varargs]
        ctx.containers.add(src.node.args.vararg.id)
    # The wrapper passes every argument, defaults applied.
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kwonlyargs)
    return node, [a.id for a in node.args.posonlyargs + node.args.args]


def _record(ctx, rev, body, params, backward):
    """The forward code, saving what ``backward`` reads, and ``backward`` with its restores.

    Run twice: the first run shows which branch flags and trip counters the
    backward pass still reads once empty blocks are dropped; the second
    records only those.
    """
    primal = set(params) | {n for s in activity.walk_stmts(body) for n in _stores(s)}
    needed = _needed(backward, primal, body)
    saved_not, rev.rebuilt = recompute.plan(body, params, backward, needed, rev.scalars,
                                            ctx.harmless_call)
    needed -= saved_not
    _snapshot_items(body, needed)
    first = record.Recorder(ctx.namer, params, needed, preinit=rev.zeroed)
    first.forward(body)
    used = _loads(first.fill(backward))
    records = {getattr(s, attr, None) for s in activity.walk_stmts(body)
               for attr in ("sg_cond", "sg_trips", "sg_range")}
    needed -= {r for r in records if r and r not in used}
    rec = record.Recorder(ctx.namer, params, needed, used_records=used, preinit=rev.zeroed)
    rec.share_names(first)
    return rec.forward(body), rec.fill(backward)


def check_function(fn):
    """Parse ``fn`` and reject unsupported constructs, without generating code.

    Tape blocks are checked when a tape compiles them.
    """
    fence.check(source.parse_function(fn), allow_with=True)


def _stores(s):
    from ..passes.reverse import written_names

    names = list(written_names(s))
    if isinstance(s, gast.For):
        names.append(s.target.id)
    for attr in ("sg_cond", "sg_trips", "sg_range"):
        if getattr(s, attr, None):
            names.append(getattr(s, attr))
    return names


def _loads(code):
    out = set()
    for c in code:
        for n in T.walk(c):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                out.add(n.id)
    return out


def _written_in_place(stmts):
    """Arrays some statement writes into (``a[i] = v``)."""
    return {s.targets[0].value.id for s in stmts if anno.kind(s) == "setitem"}


def _snapshot_items(body, needed):
    """Copy items of arrays written in place when the backward pass reads them.

    ``t = a[0]`` can be a view; once ``a`` is written, ``t`` changes. Restores
    keep the backward pass right anyway, but a snapshot keeps the generated
    code free of views read after writes, which is what lets the compiler
    differentiate it again (higher order).
    """
    stmts = list(activity.walk_stmts(body))
    written = _written_in_place(stmts)
    for s in stmts:
        if anno.kind(s) == "getitem" and s.value.value.id in written and s.targets[0].id in needed:
            s.value = T.expr("_sg.copy_slot(v)", v=s.value)


def _needed(backward, primal, body):
    """Forward values the backward pass reads (and so must see restored).

    Also: the list a needed item was popped from (to push it back), and an
    array written in place whose item or view the backward pass reads (the
    view sees the array's slots, so they must be restored).
    """
    needed = _loads(backward) & primal
    stmts = list(activity.walk_stmts(body))
    written = _written_in_place(stmts)
    changed = True
    while changed:
        changed = False
        for s in stmts:
            kind = anno.kind(s)
            if kind == "pop":
                pairs = [(s.value.func.value.id, s.targets[0].id)]
            elif kind == "getitem" and s.value.value.id in written:
                pairs = [(s.targets[0].id, s.value.value.id)]
            else:
                continue
            for have, add in pairs:
                if have in needed and add not in needed:
                    needed.add(add)
                    changed = True
    return needed
