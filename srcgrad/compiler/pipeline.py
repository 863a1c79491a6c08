"""The pipeline, top to bottom in ``compile_gradient`` and ``compile_region``.

parse -> fence -> desugar -> normalize (resolve names, inline calls, one
operation per statement) -> activity -> reverse -> record -> cleanup ->
unparse -> load. Each step is a module of ``srcgrad.passes`` or of this
package; this file only wires them, in order, with a comment where order
matters. The state they share is ``context.Context``.
"""
import copy
import functools
import gc
import types

import gast
import numpy as np

from ..ir import anno, atoms, templates as T
from ..ir.names import bound_names, loads_in, stores, walk_stmts, written_into
from ..ir.resolve import Guards
from ..passes import activity, apart, contexts, fence, functional, lambdas, lifetimes, \
    loop_else, normalize, ranks, recompute, record, repeatable, tape_blocks, walrus
from ..passes.cleanup import cleanup, dead_restores, drop_unused, forward_copies
from ..passes.desugar import desugar
from ..passes.normalize.calls import note_kind
from ..passes.reverse import Reverse, int_names
from ..rules.table import POWER_BELOW_ONE, POWER_CONSTANT_EXPONENT
from ..runtime import complexes as complexes_rt, fft as fft_rt
from .. import trees
from . import cache, watched_reads
from ..variables import Variable
from . import codegen, source
from .context import Context, Generated, called_with


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


# Attributes naming a complex type (``np.complex128``), a function of complex values
# (``z.conj()``, ``np.angle``) or one making complex values of real ones (``np.fft``).
_COMPLEX_TYPES = ("complex", "csingle", "cdouble", "clongdouble")
_COMPLEX_ATTRIBUTES = frozenset({"conj", "conjugate", "angle", "fft", "emath", "scimath", "eig",
                                 "eigvals", "hilbert", "roots"})
# ... and the same functions reached by a name (``from numpy import roots``): np.roots'
# rule is holomorphic, right only in code compiled for complex values (rules/polynomials.py).
_COMPLEX_FUNCTIONS = (np.conj, np.conjugate, np.angle, np.roots, np.linalg.eig, np.linalg.eigvals)
_COMPLEX_MODULES = ("numpy.fft", "scipy.fft", "numpy.lib.scimath")
_COMPLEX_DTYPES = ("complex", "c8", "c16", "c32")
# srcgrad's helpers in adjoint code compiled for complex values (higher order).
_COMPLEX_HELPERS = frozenset(complexes_rt.__all__) | frozenset(fft_rt.__all__)


def may_be_complex(body, sample, scope):
    """Whether a complex number may enter the forward pass: a literal like ``1j``, a
    complex type or dtype named, a function making complex values of real ones
    (``np.fft``), a complex global or closure value, a complex argument, or
    srcgrad's own helpers for complex adjoints (code differentiated again).
    What this misses (a complex attribute of an object) compiles for real values,
    whose rules refuse complex ones where they could be wrong (``_sg.real_input_grad``)
    and whose gradients are checked to be real (``cache._cast``)."""
    tree = gast.Module(body, [])
    # (``np.mgrid[0:1:5j]``, ``np.r_[0:1:5j]``: an imaginary step is a count)
    counts = {id(n.step) for n in gast.walk(tree) if isinstance(n, gast.Slice)}
    for node in gast.walk(tree):
        if isinstance(node, gast.Constant) and (
                isinstance(node.value, complex) and id(node) not in counts
                or isinstance(node.value, str) and node.value.startswith(_COMPLEX_DTYPES)):
            return True
        if isinstance(node, gast.Attribute) and (
                node.attr.startswith(_COMPLEX_TYPES) or node.attr in _COMPLEX_ATTRIBUTES
                or node.attr in _COMPLEX_HELPERS and isinstance(node.value, gast.Name)
                and node.value.id == "_sg"):
            return True
        if isinstance(node, gast.Name):  # (not by its name: `angle` may be any variable)
            value = scope.value(node)
            if value is complex or _complex(value) or any(
                    value is f for f in _COMPLEX_FUNCTIONS) or \
                    getattr(value, "__module__", None) in _COMPLEX_MODULES:
                return True
    return any(map(_complex_tree, sample or ()))


def _complex_tree(value):
    if atoms.unknown(value):
        return value.may_be_complex
    if isinstance(value, (list, tuple)):
        return any(map(_complex_tree, value))
    if isinstance(value, dict):
        return any(map(_complex_tree, value.values()))
    return _complex(value) or _complex(getattr(value, "_value", None))


def note_records(ctx, values):
    """Names passed a namedtuple or dataclass (or lists, tuples and dicts of them) that
    ``trees.py`` rebuilds from its fields: their fields are read as the compiler reads a
    record it built (``passes/normalize/calls.field``); and the keys of dicts passed."""
    for name, value in values.items():
        cls = type(value)
        if cls is dict and all(type(k) in (str, int) for k in value):
            ctx.dict_keys[name] = tuple(value)  # (cache._kind keys dicts by their keys)
        if _holds_variable(value):
            continue  # a tape's static input: its items and fields resolve to the Variables
        if trees.record_fields(cls) is not None:
            ctx.containers.add(name)
        if trees.record_fields(cls) is not None or cls in (dict, list, tuple):
            # (nested too: a dict of lists of records, a dataclass of a list of them)
            note_kind(ctx, name, trees.record_kind(value))


def _holds_variable(value):
    if not trees.is_tree(value):
        return isinstance(value, Variable)
    return any(isinstance(leaf, Variable) for _, leaf in trees.flatten(value, strict=False)[0])


def _may_be_none(body, result_name):
    """A path that returns nothing (``result = None`` is where early returns start)."""
    return any(isinstance(s, gast.Assign) and isinstance(s.value, gast.Constant)
               and s.value.value is None and result_name in bound_names(s)
               for s in walk_stmts(body))


def _complex(value):
    return isinstance(value, (complex, np.complexfloating)) \
        or isinstance(value, np.ndarray) and np.iscomplexobj(value)


def normalized_function(fn, wrt, sample, strong=False, values_seen=True, keywords=None):
    """``fn`` parsed, checked, desugared and normalized for differentiating with respect
    to its positional parameters ``wrt`` (indices): (source, context, the def, its
    parameter names, the names of ``wrt``). Its last statement returns the result.
    ``strong``: gradients it calls are inlined with strong zeros (runtime/strong.py);
    ``values_seen``: the values it computes are seen, not only its gradient.
    ``sample``: the arguments (``atoms.UNKNOWN_VALUE`` for one known only when the code
    runs; a None is the value passed, which the cache keys on). ``keywords``: the keys a
    ``**kwargs`` parameter holds in the call (None: not known, refused)."""
    src = source.parse_function(fn)                   # parse
    src.node.body = contexts.lower(src.node.body, contexts.resolver(src))  # np.errstate
    fence.check(src, differentiated=True, keywords=keywords)  # what is unsupported, up front
    ctx = Context(src, Guards())
    ctx.strong, ctx.values_seen = strong, values_seen
    ctx.guards.function(fn)                           # its code and defaults, as parsed
    node, params = _signature(src, ctx, sample, keywords)  # *args, **kwargs specialised
    wrt_names = [params[i] for i in wrt]
    desugar(node, ctx.namer)                          # early exits and sugar
    for s in walk_stmts(node.body):
        if anno.origin(s) is None:
            anno.set_origin(s, src.origin(s))
    ctx.arg_values = {p: v for p, v in zip(params, sample or ()) if not atoms.unknown(v)}
    # (``act=None``: ``if act is not None:`` decided when compiling; an einsum's subscripts.)
    ctx.constant_params = {p: v for p, v in ctx.arg_values.items() if atoms.keyed_constant(v)}
    # (Gradients this code calls compile for complex values where it may hold them.)
    ctx.may_be_complex = may_be_complex(node.body, sample, ctx.scope)
    note_records(ctx, ctx.arg_values)
    for p, value in zip(params, sample or ()):        # objects passed in: resolve their methods
        if p not in wrt_names and atoms.is_static_object(value):
            ctx.scope.static[p] = value
    normalize.normalize(node, ctx, wrt_names, desugar,  # resolve, inline, one operation a
                        lifted_loader(ctx))               # statement
    apart.insert_check(node.body, params, atoms.known_sample(sample) or (), ctx.scope,  # alone
                       src.node.body[:-1] if src.filename.startswith("<srcgrad tree") else ())
    return src, ctx, node, params, wrt_names


def lifted_loader(ctx):
    """How the normalizer makes a function of a def nested in the code it compiles, to
    take its gradient (``passes/normalize/closures.py``): printed and loaded as generated
    code is, its free names meaning what they mean in the code compiled."""
    def load(node):
        text = codegen.unparse(node, f"{node.name}: a nested def lifted out to take its "
                                     "gradient; generated by srcgrad")
        free = codegen.free_names(node)
        cells = {n: c for n, c in ctx.cells.items() if n in free}
        fn = codegen.load(text, node.name, ctx.src.globals, cells, f"lifted {node.name}")
        fn.__qualname__ = node.name  # (not the loader's factory's local)
        ctx.guards.keep(fn)  # the code compiled now depends on it: alive as long as that
        return fn
    return load


@without_gc
def compile_gradient(fn, wrt, mode, sample=None, as_tuple=False, inplace=True, strong=False,
                     sized=False, keywords=None):
    """Generate, print and load the adjoint of ``fn``.

    ``wrt``: indices of the positional parameters to differentiate.
    ``mode``: "grad" (returns the gradient) or "value_and_grad".
    ``sample``: the positional arguments of the first call, or None; objects
    among them (not numbers) are used to resolve method calls.
    ``as_tuple``: return a tuple of gradients even for one ``wrt``.
    ``inplace``: update the backward pass's own buffers in place; off for code
    that will itself be differentiated (its aliasing checks are conservative).
    ``strong``: the code run again where this one's gradient is not finite
    (``runtime/strong.py``). ``sized``: the caller caches the code by
    ``ranks.size_classes(sample)``, so shapes may be inferred from the sample's.
    ``keywords``: the keys of the call's ``**kwargs`` (None: not known).
    """
    fn = _differentiated(fn, sample, strong)          # sg.grad(sg.grad(f)): the inner code
    src, ctx, node, params, wrt_names = normalized_function(fn, wrt, sample, strong,
                                                            values_seen=mode != "grad",
                                                            keywords=keywords)
    sample = atoms.known_sample(sample)
    if not inplace:                                   # differentiated again: no writes
        functional.rewrite(node, ctx, params)
    body, result = node.body[:-1], node.body[-1].value
    result = result if result is not None else T.const(None)
    if not isinstance(result, (gast.Name, gast.Constant)):
        # (A result depending on nothing differentiated is left as written, ``read()``: it
        # runs once, its value both checked and returned.)
        name = ctx.namer.fresh("result")
        body = body + [anno.like(T.assign(name, result), node.body[-1])]
        result = T.name(name)
    result_name = result.id if isinstance(result, gast.Name) else None
    act = activity.analyze(node.body, wrt_names, result_name)   # varied and useful
    rerunnable = not strong and repeatable.reruns_alike(body, ctx)

    def seed(rev):  # (a result not known to be a scalar may be an array of one number)
        return T.const(1.0) if result_name in rev.scalars else T.expr("_sg.scalar_seed(r)", r=result)
    rev, state, forward, backward = reverse_and_record(   # reverse mode; what the forward saves
        ctx, body, params, sample, act, [(result_name, seed)], inplace,
        read_after=lambda state: set(), strong=strong, sized=sized)  # (adjoints only, below)
    # An argument no gradient reaches gets zeros shaped as it was passed, not as the
    # code may have rebound it (``w = np.ones(5)``): made before the forward code.
    # (Not named ``dw``: that is the adjoint of what ``w`` is rebound to.)
    unreached = {w: ctx.namer.fresh(f"zeros_{w}") for w in wrt_names if w not in state}
    forward[:0] = [T.assign(z, T.expr("_sg.zeros_like(x)", x=w)) for w, z in unreached.items()]
    grads = [T.name(unreached.get(w) or rev.d(w)) for w in wrt_names]
    out = grads[0] if len(grads) == 1 and not as_tuple else gast.Tuple(grads, gast.Load())
    cleanup(backward, ctx.namer.adjoints.values(), loads_in([gast.Expr(out)]))  # dead adjoints
    if len(grads) > 1:                                # never two gradients in one array
        out = T.expr("_sg.distinct(grads)", grads=out)
    value, kept = copy.deepcopy(result), []
    if mode == "value_and_grad" and result_name in set().union(*map(stores, backward)):
        # The backward pass restores what ``result`` held before its last binding
        # (an early return, a rebinding in a loop): the value is kept before it runs.
        value = T.name(ctx.namer.fresh(f"{result_name}_value"))
        kept = [T.assign(value.id, T.name(result_name))]
    if mode == "value_and_grad":
        out = gast.Tuple([value, out], gast.Load())
    # A result known to be a scalar needs no check; then, with sg.grad, the
    # forward pass need not compute what only the value needs.
    # (Unless it may be complex: a complex result is differentiated as its real part.)
    check = [] if result_name in rev.scalars and mode == "grad" \
        and not rev.complex \
        and not _may_be_none(body, result_name) else \
        [T.stmt("_sg.check_scalar(r, n)", r=result, n=T.const(f"{fn.__qualname__}()"))]
    lifetimes.shapes_from_operands(forward, backward, params, rev.ranks)
    check += kept
    trim_forward(forward, rev, check + backward + [gast.Expr(out)])
    code = forward + check + backward
    if inplace:                                       # free what nothing reads any more
        code = lifetimes.free_early(forward + check, backward,
                                    set(params) | loads_in([gast.Expr(out)]),
                                    set(rev.scalars) | {result_name},  # the result is one too
                                    ctx.namer.adjoints, params)
    verb = "grad" if mode == "grad" else "value_and_grad"
    fname = ctx.namer.fresh(f"{verb}_{src.node.name}", exact=True)  # (``id_``: ``grad_id_``)
    new = gast.FunctionDef(fname, node.args, code + [gast.Return(out)], [], None, None, [])
    T.fix_ctx(new)
    what = "gradient" if mode == "grad" else "value and gradient"
    header = (f"{what} of {fn.__qualname__} ({src.origin(src.node).short()}) with respect to "
              f"{', '.join(wrt_names)}; generated by srcgrad")
    text = codegen.unparse(new, header)               # print
    loaded = codegen.load(text, fname, src.globals, ctx.cells, f"{mode} {fn.__qualname__}")
    if src.node.args.vararg is None:  # same parameters: a call inlined at second order may omit some
        loaded.__defaults__, loaded.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    loaded.__srcgrad_guards__ = ctx.guards  # code that inlines this code depends on them too
    return Generated(text, loaded, ctx.guards, rerunnable)


@without_gc
def compile_region(region, inputs, sample, targets, watch_variables, is_variable, sources,
                   watch_inputs=(), returns=None, strong=False, fresh=()):
    """Generate and load the adjoint code of a nested tape's block: what its
    ``inner.gradient(y, x)`` inside the outer block compiles to, which the outer
    block's compiler inlines and so differentiates again.

    The region's statements become ``def tape_region(<inputs>, <seeds>)``: it
    runs the region from its inputs, recording what the backward pass needs,
    then runs the backward pass from one seed per target, and returns a tuple
    of the adjoints of ``sources`` (names; zeros where unconnected). What is
    differentiated with respect to are the watch points and Variable reads;
    ``watch_inputs``: inputs watched as well (trainable Variables passed as
    arrays).

    Without ``returns`` the outer code calls it in place of each gradient call,
    so the block's statements run again there: refused where that would not
    repeat (a random draw, an effect: ``passes/repeatable.py``). With
    ``returns`` it runs once, in place of the block's statements: no seed
    argument (ones like the target), and it returns ``(adjoints, <returns>...)``,
    the values the block bound (``UNBOUND`` where it bound nothing). ``rerunnable``
    says whether a gradient that comes out non-finite is worth computing again with
    strong zeros (``strong``: that adjoint, runtime/strong.py): running the block again
    computes the same, and a derivative in it can be infinite at a finite point.
    """
    # (Its inputs holding a Variable's array are such inputs for a tape nested in it
    # too: three nested tapes reading a Variable none watches, hunt 8.)
    spec, watched = _watched_at_start(region, inputs, sample, fresh)
    ctx, node, body, wrt, params = region_front(region, inputs, sample, watch_variables,
                                                is_variable, watch_inputs,
                                                as_arrays=watch_inputs, watched=watched,
                                                fresh=fresh)
    if returns is None:
        repeatable.check(body, ctx, "it is a nested tape's block")
    functional.rewrite(node, ctx, params)  # (the outer block's code differentiates it again)
    body = node.body[:-1]
    # (Computed again with strong zeros only where a derivative can be non-finite at a
    # finite point: otherwise the retry's code would only cost the outer block.)
    rerunnable = _singular_somewhere(body) and (returns is None
                                                or repeatable.reruns_alike(body, ctx))
    act = activity.analyze(node.body, wrt, set(targets))
    seeds = [ctx.namer.fresh(f"seed_{t}") for t in targets]

    def prelude(rev):
        rev.named_sources = {n: ctx.namer.fresh(f"grad_{n}") for n in sources}
        return [T.assign(v, T.expr("_sg.zeros_like(x)", x=n)) for n, v in rev.named_sources.items()]

    rev, _, forward, backward = reverse_and_record(
        ctx, body, params, sample, act, [(t, T.name(sd)) for t, sd in zip(targets, seeds)],
        inplace=False, prelude=prelude, read_after=lambda state: set(),  # (adjoints only)
        strong=strong)
    # (A tuple's adjoint is a list, as a list's; the gradient of a tuple of sources is
    # a tuple, as the tape's.)
    tuples = {n for n, value in zip(inputs, sample) if type(value) is tuple}
    out = gast.Tuple([T.expr("tuple(g)", g=v) if n in tuples else T.name(v)
                      for n, v in rev.named_sources.items()], gast.Load())
    middle = []
    if returns is not None:
        # The values the block bound, kept before the backward code restores them.
        kept = [ctx.namer.fresh(f"{n}_value") for n in returns]
        middle = [T.assign(k, T.name(n)) for k, n in zip(kept, returns)]
        middle += [T.assign(sd, T.expr("_sg.seed_like(y)", y=t)) for sd, t in zip(seeds, targets)]
        out = gast.Tuple([out] + [T.name(k) for k in kept], gast.Load())
        # Bound by the block's own statements (not only in a loop or a branch): always bound.
        bound = {t.id for st in region.statements if isinstance(st, gast.Assign)
                 for t in st.targets if isinstance(t, gast.Name)}
        unbound = [n for n in returns if n not in params and n not in bound]
        forward = [T.assign(n, T.expr("_sg.UNBOUND")) for n in unbound] + \
            without_placeholders(forward, unbound)
    cleanup(backward, ctx.namer.adjoints.values(), loads_in([gast.Expr(out)]))
    lifetimes.shapes_from_operands(forward, backward, params, rev.ranks)
    code = forward + middle + backward
    if returns is None:
        node.args.args += [gast.Name(sd, gast.Param(), None, None) for sd in seeds]
    fname = ctx.namer.fresh(f"{region.tape_name or 'tape'}_region")
    new = gast.FunctionDef(fname, node.args, code + [gast.Return(out)], [], None, None, [])
    T.fix_ctx(new)
    where = region.origin(node).short()
    header = (f"adjoint of the GradientTape block at {where}, from {', '.join(targets)}; "
              "generated by srcgrad")
    text = codegen.unparse(new, header)
    loaded = codegen.load(text, fname, region.globals, ctx.cells, f"tape {where}")
    # Inlined into an outer tape's code: valid while what it read is.
    loaded.__srcgrad_guards__ = ctx.guards
    generated = Generated(text, loaded, ctx.guards, rerunnable)
    generated.nested_reads = list(ctx.nested_reads)
    if ctx.watched_reads is not None and ctx.watched_reads.sites:
        generated.nested_reads.append(spec.compiled_for(ctx.watched_reads))
    return generated


def _watched_at_start(region, inputs, sample, fresh):
    """What a nested tape's block watches on its first lines (``watched_reads.NestedReads``
    says where: of its ``fresh`` inputs, holding when compiling what they hold where it
    starts, and of globals), and the ``Watched``; or (None, None)."""
    from ..tape import once  # (which imports the compiler)

    start, chains, later = once.watched_from_start(region)
    roots = start | later | {c.root for c in chains}
    spec = watched_reads.NestedReads(
        {n for n in roots if n in fresh}, {n for n in roots if n not in inputs},
        start, chains, later, region.globals)
    watched = spec.watched({n: v for n, v in zip(inputs, sample) if n in fresh})
    return (spec, watched) if watched else (None, None)


def _singular_somewhere(body):
    """Does ``body`` compute with a primitive whose derivative can be infinite at a finite
    point (a rule with a restricted domain: ``sqrt``, ``log``, a division; a power below
    1), where a masked entry's adjoint is ``0 * inf``?"""
    for s in walk_stmts(body):
        rule = getattr(s, "sg_rule", None) if anno.kind(s) == "prim" else None
        if rule is None:
            continue
        if any(kind != "real" for kind in rule.domain.values()) or rule is POWER_BELOW_ONE:
            return True
        exponent = s.sg_args.get("x2") if rule is POWER_CONSTANT_EXPONENT else None
        if exponent is not None and not (isinstance(exponent, gast.Constant)
                                         and isinstance(exponent.value, (int, float))
                                         and exponent.value >= 1):
            return True
    return False


def region_front(region, inputs, sample, watch_variables, is_variable, watch_inputs=(),
                 once=False, as_arrays=(), modules=None, watched=None, fresh=None):
    """The region's statements as a normalized ``def tape_region(<inputs>)``; ``once``:
    for a block run once (its nested tapes' blocks run once too, see tape_blocks);
    ``as_arrays``: inputs that are trainable Variables passed as their arrays;
    ``modules``: modules bound in the caller's function (name -> module);
    ``watched``: values watched at the start, id -> value (``watched_reads``);
    ``fresh``: the inputs whose sample is their value where the block starts (all of
    them where None).

    Returns the context, the def, its body (without the final return), the
    names differentiated with respect to, and the parameters.
    """
    params = list(inputs)
    node, src = _region_def(region, params, modules)
    ctx = Context(src, Guards())
    ctx.block_frame = (region.frame_cells, region.module_level,  # (import_free_names)
                       region.frame_code)
    # The def is still empty: the names temporaries must not take are the block's.
    ctx.namer.reserve(n.id for s in region.statements for n in gast.walk(s)
                      if isinstance(n, gast.Name))
    ctx.variable_sources = watch_variables
    ctx.is_variable = is_variable
    ctx.param_values = dict(zip(params, sample))
    if once:  # (the tape keys a block's code on its inputs' kinds: a None is one)
        ctx.constant_params = {p: v for p, v in ctx.param_values.items()
                               if atoms.keyed_constant(v)}
    ctx.tape_region = True  # (its containers' items may be targets and sources)
    note_records(ctx, ctx.param_values)
    # A list or tuple input is one as the block reads it: passed whole to NumPy
    # (``np.square(xs)`` of a watched list), it is read as an array whose adjoint goes
    # back into its items (hunt 7: the tape gave None where sg.grad gave the gradient).
    ctx.containers.update(p for p, v in ctx.param_values.items()
                          if type(v) in (list, tuple) and not _holds_variable(v))
    ctx.as_arrays = set(as_arrays)  # trainable Variables passed as their arrays
    if watched:
        ctx.watched_reads = watched_reads.Reads(watched)
        _check_numbers_held(region, watched, params, sample)
    prepare = tape_blocks.Prepare(region, ctx, watch_variables, is_variable,
                                  dict(zip(params, sample)), compile_region, once,
                                  set(params) if fresh is None else set(fresh))
    node.body = prepare.block(region.statements, region.tape_name) + [gast.Return(T.const(None))]
    lambdas.hoist(node)  # (as source.parse_function does for a function's own code)
    walrus.hoist(node)
    loop_else.lower(node)
    fence.check(src)
    desugar(node, ctx.namer)
    for s in walk_stmts(node.body):
        if anno.origin(s) is None:
            anno.set_origin(s, region.origin(s))
    _static_inputs(ctx, region, params, sample, watch_variables, is_variable)
    # Trainable Variables the region receives are watched from its first line.
    auto = [p for p, v in zip(params, sample) if watch_variables and is_variable(v) and v.trainable
            or p in watch_inputs]
    _watch_after_last_reset(node, region, auto)
    node.body = tape_blocks.once_watched(node.body)
    watched = sorted({s.sg_watched for s in walk_stmts(node.body) if anno.kind(s) == "watch"})
    ctx.may_be_complex = may_be_complex(node.body, sample, ctx.scope)
    normalize.normalize(node, ctx, watched, desugar, lifted_loader(ctx))
    apart.insert_check(node.body, params, sample, ctx.scope)
    return ctx, node, node.body[:-1], watched + sorted(ctx.sources), params


def _check_numbers_held(region, watched, params, sample):
    """Refuse an input container (or object) holding a Python number the block watches
    by another name (``box = [lam]``, ``tape.watch(lam)``, ``f(box)``): equal numbers are
    often one object, so srcgrad cannot tell a read of it through the container from a
    constant (it was silently one)."""
    if not watched.numbers:
        return
    for p, value in zip(params, sample):
        if type(value) in tape_blocks.PYTHON_NUMBERS or isinstance(value, np.ndarray):
            continue
        for path, leaf in watched_reads.held_leaves(value, 3):
            number, sites = watched.numbers.get(id(leaf), (None, ()))
            if number is leaf and (True, p, path) not in sites:
                held = p + "".join(f".{k}" if how == "attr" else f"[{k!r}]" for how, k in path)
                raise region.error(
                    f"`{held}` holds the very Python number the GradientTape watches: srcgrad "
                    "cannot tell a read of it there from an equal constant (CPython shares "
                    "equal numbers)", region.statements[0],
                    f"watch it where it is held (`tape.watch({held})`), or make it a NumPy "
                    "scalar (`np.float64(...)`) before putting it there")


def _region_def(region, params, modules=None):
    """An empty ``def tape_region(<params>)`` at the block's line, and its source (the
    ``modules`` its caller's function binds are its free variables)."""
    args = gast.arguments([gast.Name(p, gast.Param(), None, None) for p in params], [], None,
                          [], [], None, [])
    node = gast.FunctionDef("tape_region", args, [], [], None, None, [])
    node.lineno, node.col_offset = region.lineno, 0
    src = source.FunctionSource(fn=None, node=node, filename=region.filename, line_offset=0,
                                globals=region.globals,
                                freevars={n: types.CellType(m) for n, m in (modules or {}).items()})
    return node, src


def _static_inputs(ctx, region, params, sample, watch_variables, is_variable):
    """Inputs whose methods and items resolve at compile time: objects, lists of objects
    (the code is compiled for their kinds: ``cache._kind``), and containers of
    Variables or of values watched at the start (``params[0]``, ``for v in params``,
    ``for layer in layers: layer.W``), whose reads are then sources."""
    assigned = set(tape_blocks.region_outputs(region)) | written_into(region.statements) | {
        s.name for s in walk_stmts(region.statements)  # (``def h(v):`` in the block: anew)
        if isinstance(s, (gast.FunctionDef, gast.ClassDef))}
    for p, value in zip(params, sample):
        if is_variable(value) or p in assigned:
            continue
        if atoms.is_static_object(value) or cache.unrolled(value) \
                or (watch_variables and tape_blocks.holds_variables(value, is_variable)) \
                or ctx.watched_reads is not None and (
                    ctx.watched_reads.watched.holds(value)
                    or type(value) in (list, tuple, dict) and any(  # (``{"main": net.loss}``)
                        ctx.watched_reads.watched.holds(c) for c in called_with(value))):
            ctx.scope.static[p] = value


def _watch_after_last_reset(node, region, names):
    """Watch ``names`` from the start of the region, or from its last ``tape.reset()``."""
    start = next((i + 1 for i in range(len(node.body) - 1, -1, -1)
                  if getattr(node.body[i], "sg_reset", False)), 0)
    node.body[start:start] = [m for p in names
                              for m in tape_blocks.watch_marker(tape_blocks.fake_watch(p, node), region)]
    node.body = [s for s in node.body if not getattr(s, "sg_reset", False)]


def watch_where_bound(body, region, groups):
    """Watch each group's value after the top-level statement of ``body`` that last binds it.

    Names bound to one value: the adjoint of the one bound first includes what
    flows through the others (``c = a`` passes ``c``'s adjoint on to ``a``), so
    only it is watched; names last bound in the same statement (a loop) are
    watched each, their adjoints after it being disjoint. Returns each watched
    name's statement position.
    """
    last = {}
    for i, s in enumerate(body):
        for n in tape_blocks.bound_in(s):
            last[n] = i
    at = {}
    for group in groups:
        bound = [n for n in group if n in last]
        if bound:
            first = min(last[n] for n in bound)
            at.setdefault(first, []).extend(n for n in bound if last[n] == first)
    # A name last bound as a copy of another the block rebinds after (``first = h``,
    # then ``h = h * 2``): the value is the one ``h`` was bound to before, whose
    # adjoint there includes what flows through both names; reported as ``first``.
    made = {}
    for i in list(at):
        for n in list(at[i]):
            j, via = _made_at(body, i, n, last)
            if j is not None:
                at[i].remove(n)
                at.setdefault(j, []).append(n)
                made[n] = via
    for i in sorted(at, reverse=True):
        markers = []
        for n in at[i]:
            for m in tape_blocks.watch_marker(tape_blocks.fake_watch(made.get(n, n), body[i]),
                                              region):
                m.sg_output = True  # reported by name: the tape holds the value the block made
                m.sg_report_as = n
                markers.append(m)
        body[i + 1:i + 1] = markers
    return {n: i for i, names in at.items() for n in names}


def _made_at(body, i, name, last):
    """Where the value ``name`` is last bound to (at top-level statement ``i``) was made,
    if that binding copies another name the block rebinds after it: (position, that
    name), or (None, None)."""
    s = body[i]
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)):
        return None, None
    other = s.value.id
    if last.get(other, -1) <= i:
        return None, None  # not rebound after: watched under its own name as before
    made = [j for j in range(i) if other in tape_blocks.bound_in(body[j])]
    if not made:
        return None, None
    j = made[-1]
    inner, via = _made_at(body, j, other, {**last, other: i + 1})
    return (inner, via) if inner is not None else (j, other)


def without_placeholders(forward, names):
    """``forward`` without the recorder's ``x = None`` placeholders (``sg_preinit``) of
    ``names``: a block whose loop runs no trip leaves such a variable as it was."""
    return [s for s in forward
            if not (getattr(s, "sg_preinit", False) and s.targets[0].id in names)]


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def ints_of(body, params, sample):
    """The names that hold ints (``passes/reverse.int_names``); a parameter passed an int
    stays one."""
    known = sample if sample is not None else ()
    return int_names(body, [p for i, p in enumerate(params)
                            if i >= len(known) or not _is_int(known[i])])


def trim_forward(forward, rev, after):
    """Drop from ``forward`` what none of the statements ``after`` it reads (values the
    backward pass rebuilds itself included), and the copies in its loops."""
    live = loads_in(after)
    drop_unused(forward, live - rev.rebuilt)
    forward_copies(forward, live)


def reverse_and_record(ctx, body, params, sample, act, seeds, inplace, prelude=None, rows=None,
                       watch_log=None, read_after=None, strong=False, sized=False):
    """Backward code seeded by ``seeds`` ((name, value) pairs; a value may be a function of
    ``rev``, which knows the ranks) and the forward code it needs.

    ``prelude(rev)`` may configure the generator and returns statements that
    open the backward code. ``rows``: the name of a seed with a leading axis
    of rows (``tape.jacobian``), which every adjoint then carries.
    ``read_after(state)``: the forward names the caller's code reads after the
    backward code (given the adjoint state); then a value the backward code
    would restore where nothing reads it any more is not saved. None: every
    restore is kept. ``strong``: zero adjoints are strong (``runtime/strong.py``).
    ``sized``: the code is cached by ``ranks.size_classes`` of ``sample``.
    Returns (generator, adjoint state, forward, backward).
    """
    record.instrument(body, ctx.namer)                # name branch flags and trip counters
    rev = Reverse(ctx, act)
    rev.ints = ints_of(body, params, sample)
    rev.inplace = inplace
    rev.rows = rows
    rev.strong = strong
    rev.complex = ctx.may_be_complex or may_be_complex(body, sample, ctx.scope)
    # (What a seed is computed from: where ``np.sign`` of a complex value is refused.)
    if rev.complex:
        rev.reaching = activity.reaching(body, {n for n, _ in seeds})
        rev.constant_for_complex(body)
    rev.ranks, rev.shapes = ranks.infer(body, params, sample, rev.ints, ctx.scope.value, sized)
    ranks.drop_same_shape_helpers(body, rev.shapes)
    rev.scalars = {n for n, r in rev.ranks.items() if r == 0}
    backward = list(prelude(rev)) if prelude is not None else []
    state = {}
    for name, value in seeds:
        if name in act:
            backward.append(T.assign(rev.d(name), value(rev) if callable(value) else value))
            state[name] = True
    if state:
        backward += rev.block(body, state)
    if inplace:
        body = lifetimes.loop_shapes(body, backward, params)
    live_after = read_after(state) if read_after is not None else None
    forward, backward = _record(ctx, rev, body, params, backward, watch_log, live_after)
    return rev, state, forward, backward


def _differentiated(fn, sample, strong=False):
    """The function whose code is read: a gradient's own generated code, for higher order
    (``strong``: its code with strong zeros, runtime/strong.py)."""
    generated = getattr(fn, "__srcgrad_generated__", None)
    if generated is None:
        return fn
    # The inner code may be specialised on the values' kinds (ranks included):
    # they are part of the outer code's own cache key.
    sample = list(sample) if sample is not None else None
    return generated(sample, strong=True) if strong else generated(sample)


def _signature(src, ctx, sample, keywords=None):
    """A copy of the def to rewrite, with *args spread out and ``**kwargs`` a dict display
    of the ``keywords`` it holds (read from it by key: the cache keys on them); its
    positional parameter names."""
    node = copy.deepcopy(src.node)
    if node.args.kwarg is not None and keywords is not None:
        # (The parameter renamed: ``kw`` is then bound once, to the display.)
        kw, given = node.args.kwarg.id, ctx.namer.fresh(f"{node.args.kwarg.id}_given")
        node.args.kwarg = gast.Name(given, gast.Param(), None, None)
        held = gast.Dict([T.const(k) for k in keywords],
                         [gast.Subscript(T.name(given), T.const(k), gast.Load())
                          for k in keywords])
        node.body.insert(0, gast.copy_location(T.assign(kw, held), node))
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


def _record(ctx, rev, body, params, backward, watch_log=None, live_after=None):
    """The forward code, saving what ``backward`` reads, and ``backward`` with its restores.

    Run twice: the first run shows which branch flags and trip counters the
    backward pass still reads once empty blocks are dropped, and (given
    ``live_after``, the names read after ``backward``) which restores put back
    a value nothing reads (``for ...: x = 2.0 * x`` after ``x ** 2`` was
    differentiated: no array saved per trip); the second records only the rest.
    """
    primal = set(params) | {n for s in walk_stmts(body) for n in _stores(s)}
    needed = _needed(backward, primal, body)
    saved_not, rev.rebuilt = recompute.plan(body, params, backward, needed, rev.scalars,
                                            ctx.harmless_call)
    needed -= saved_not
    _snapshot_items(body, needed)
    # (A global the code writes into, ``LAP[1:-1] = ...``, is no local to pre-set.)
    zeroed = rev.zeroed & primal
    first = record.Recorder(ctx.namer, params, needed, preinit=zeroed)
    first.forward(body)
    filled = first.fill(backward)
    used = loads_in(filled)
    dead = dead_restores(filled, live_after) if live_after is not None else frozenset()
    records = {getattr(s, attr, None) for s in walk_stmts(body)
               for attr in ("sg_cond", "sg_trips", "sg_range")}
    needed -= {r for r in records if r and r not in used}
    rec = record.Recorder(ctx.namer, params, needed, used_records=used, preinit=zeroed,
                          watch_log=watch_log, dead=dead)
    rec.share_names(first)
    forward, backward = rec.forward(body), rec.fill(backward)
    if watch_log is None and rev.inplace:
        # (not in a tape's block, whose variables the user's code reads before the backward
        # code runs; nor in code to be differentiated again, which writes into no argument)
        _put_back_written(ctx, rec, body, params, primal, forward, backward)
    return forward, backward


def _put_back_written(ctx, rec, body, params, primal, forward, backward):
    """The backward code takes out again what the forward code wrote into an array, list
    or dict (an item, an append, a pop): it reads them as they were. One the caller holds
    (an argument, a global; never rebound here) ends as Python's run leaves it: its state
    at the end of the forward code, put back at the end of the backward code."""
    rebound = {n for s in walk_stmts(body) for n in _stores(s)}
    written = sorted({base for (_, base, how) in rec.restores if how in ("slot", "unappend",
                                                                         "unpop")})
    for base in written:
        if base in rebound or base not in params and base in primal:
            continue  # (the code's own object, or a name it rebinds)
        snap = ctx.namer.fresh(f"{base}_as_left")
        forward.append(T.assign(snap, T.expr("_sg.snapshot(a)", a=base)))
        backward.append(T.stmt("_sg.put_back(a, s)", a=base, s=snap))


def check_function(fn):
    """Parse ``fn`` and reject unsupported constructs, without generating code.

    Tape blocks are checked when a tape compiles them (statements in them that
    no gradient flows through may be outside the compiler's language).
    """
    src = source.parse_function(fn)
    for node in gast.walk(src.node):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [_without_tape_body(s) for s in stmts])
    fence.check(src, allow_with=True, differentiated=True)


def _without_tape_body(s):
    """A ``with ...GradientTape(...)`` block with its statements left to the tape."""
    if isinstance(s, gast.With) and any(
            (getattr(getattr(i.context_expr, "func", None), "attr", None)
             or getattr(getattr(i.context_expr, "func", None), "id", None)) == "GradientTape"
            for i in s.items):
        s = copy.copy(s)
        s.body = [gast.copy_location(gast.Pass(), s)]
    return s


def _stores(s):
    names = bound_names(s)
    for attr in ("sg_cond", "sg_trips", "sg_range"):
        if getattr(s, attr, None):
            names.append(getattr(s, attr))
    return names


def _written_in_place(stmts):
    """Arrays some statement writes into (``a[i] = v``)."""
    return {s.targets[0].value.id for s in stmts if anno.kind(s) == "setitem"}


def _snapshot_items(body, needed):
    """Copy items of arrays written in place when the backward pass reads them.

    ``t = a[0]`` can be a view; once ``a`` is written, ``t`` changes. Restores
    keep the backward pass right anyway, but a snapshot keeps the generated
    code free of views read after writes, which is what lets the compiler
    differentiate it again (higher order). An item a statement checks is no
    view of the array it writes (``a[0], a[1] = a[1], a[0]``,
    ``_sg.check_not_view``) is checked before it is copied: the copy would pass
    the check where NumPy swaps views.
    """
    stmts = list(walk_stmts(body))
    written = _written_in_place(stmts)

    def where(s):
        o = anno.origin(s)
        return o and (o.filename, o.lineno)
    checks = {where(s): s.value for s in stmts if isinstance(s, gast.Expr)
              and isinstance(s.value, gast.Call) and "check_not_view" in gast.unparse(s.value.func)}

    def block(stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    setattr(s, field, block(getattr(s, field)))
            if anno.kind(s) == "getitem" and s.value.value.id in written \
                    and s.targets[0].id in needed:
                check = checks.get(where(s)) if where(s) is not None else None
                if check is not None:
                    out.append(anno.like(gast.Expr(T.expr(
                        "_sg.check_not_view(v, a, n, w)", v=T.clone(s.value), a=s.value.value.id,
                        n=T.const(gast.unparse(s.value).strip()), w=check.args[3])), s))
                s.value = T.expr("_sg.copy_slot(v)", v=s.value)
            out.append(s)
        return out
    body[:] = block(body)
def _needed(backward, primal, body):
    """Forward values the backward pass reads (and so must see restored).

    Also: the list a needed item was popped from (to push it back), and an
    array written in place whose item or view the backward pass reads (the
    view sees the array's slots, so they must be restored).
    """
    needed = loads_in(backward) & primal
    stmts = list(walk_stmts(body))
    written = _written_in_place(stmts)
    # A list or array changed in place under one name and read under another (``ops =
    # arrays; arrays.pop()``, then the backward pass reads ``ops``): restored too, or the
    # read sees it changed (third derivative through ``np.tensordot``, autograd's suite).
    changed_in_place = written | {s.value.func.value.id for s in stmts
                                  if anno.kind(s) in ("append", "pop")}
    changed = True
    while changed:
        changed = False
        for s in stmts:
            kind = anno.kind(s)
            if kind == "pop":
                pairs = [(s.value.func.value.id, s.targets[0].id)]
            elif kind == "getitem" and s.value.value.id in written:
                pairs = [(s.targets[0].id, s.value.value.id)]
            elif kind == "copy" and isinstance(s.value, gast.Name) \
                    and {s.value.id, s.targets[0].id} & changed_in_place:
                pairs = [(s.targets[0].id, s.value.id), (s.value.id, s.targets[0].id)]
            else:
                continue
            for have, add in pairs:
                if have in needed and add not in needed:
                    needed.add(add)
                    changed = True
    return needed
