"""Adjoint code of a region a GradientTape recorded.

The region's statements become ``def tape_region(<inputs>, <seeds>)``:
it reruns the region from the values its inputs had when it was entered,
recording what the backward pass needs, then runs the backward pass from one
seed per target and returns ``[(source, adjoint), ...]`` for every watched
value and every trainable ``Variable`` the region read. The tape matches
sources by identity, as TensorFlow matches tensors.

Same pipeline as ``compiler.compile_gradient``; what differs is what is
differentiated with respect to (watch points, Variable reads) and seeded
(any variable of the region).
"""
import copy

import gast

from . import codegen, source
from . import templates as T
from .compiler import Context, Generated, _loads, _record
from .transforms import activity, anno, fence, normalize, ranks, record
from .transforms.cleanup import cleanup
from .transforms.desugar import desugar
from .transforms.resolve import Guards
from .transforms.reverse import Reverse, int_names
from .transforms.scopes import free_names


def _watch_marker(target_name, node, region):
    """``tape.watch(x)`` becomes a marker: the backward pass reports x's adjoint there."""
    arg = node.value.args[0] if node.value.args else None
    if not isinstance(arg, gast.Name):
        raise region.error("tape.watch() of an expression is not supported; watch a variable",
                           node, "assign the value to a name first")
    marker = gast.Expr(gast.Call(T.name("_sg_watch"), [T.name(arg.id)], []))
    gast.copy_location(marker, node)
    return anno.set_kind(marker, "watch", watched=arg.id)


def _is_tape_call(stmt, tape_name, method):
    value = getattr(stmt, "value", None)
    if not (isinstance(stmt, gast.Expr) and isinstance(value, gast.Call)):
        return False
    f = value.func
    return isinstance(f, gast.Attribute) and f.attr == method and isinstance(f.value, gast.Name) \
        and f.value.id == tape_name


def _prepare(stmts, region):
    """The region's statements with watch calls as markers and stop_recording blocks cut off."""
    out = []
    for s in stmts:
        s = copy.deepcopy(s)
        if _is_tape_call(s, region.tape_name, "watch"):
            out.append(_watch_marker(region.tape_name, s, region))
            continue
        if isinstance(s, (gast.Return, gast.Break, gast.Continue)):
            word = type(s).__name__.lower()
            raise region.error(f"`{word}` inside a recorded GradientTape block is not supported",
                               s, "end the with block first")
        if isinstance(s, gast.With):
            item = s.items[0].context_expr
            f = getattr(item, "func", None)
            if isinstance(f, gast.Attribute) and f.attr == "stop_recording":
                # Values computed here carry no gradient: wrap what is assigned.
                for inner in _prepare(s.body, region):
                    if isinstance(inner, gast.Assign):
                        inner.value = T.expr("_sg.stop_gradient(v)", v=inner.value)
                    out.append(inner)
                continue
            raise region.error("a with statement inside a recorded GradientTape block is not "
                               "supported yet (nested tapes are not implemented)", s)
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _prepare(getattr(s, field), region))
        out.append(s)
    return out


def region_inputs(region):
    """Names the region reads before assigning them (candidates for parameters)."""
    node = gast.FunctionDef("tape_region", gast.arguments([], [], None, [], [], None, []),
                            copy.deepcopy(region.statements), [], None, None, [])
    return sorted(free_names(node))


def region_outputs(region):
    names = set()
    for s in activity.walk_stmts(region.statements):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                names |= {n.id for n in gast.walk(t) if isinstance(n, gast.Name)}
        elif isinstance(s, gast.For):
            names |= {n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)}
    return sorted(names)


def compile_region(region, inputs, sample, targets, watch_variables, is_variable):
    """Generate and load the adjoint code of ``region`` seeded at ``targets``."""
    body = _prepare(region.statements, region)
    params = list(inputs)
    args = gast.arguments([gast.Name(p, gast.Param(), None, None) for p in params], [], None,
                          [], [], None, [])
    node = gast.FunctionDef("tape_region", args, body + [gast.Return(T.const(None))],
                            [], None, None, [])
    gast.copy_location(node, region.statements[0] if region.statements else node)
    node.lineno = region.lineno
    src = source.FunctionSource(fn=None, node=node, filename=region.filename, line_offset=0,
                                globals=region.globals)
    fence.check(src)
    ctx = Context(src, Guards())
    ctx.variable_sources = watch_variables
    ctx.is_variable = is_variable
    desugar(node, ctx.namer)
    for s in activity.walk_stmts(node.body):
        if anno.origin(s) is None:
            anno.set_origin(s, region.origin(s))
    for p, value in zip(params, sample):
        if is_variable(value) or not normalize._is_static_object(value):
            continue
        ctx.scope.static[p] = value
    # Trainable Variables the region receives are watched from its first line.
    auto = [p for p, v in zip(params, sample) if watch_variables and is_variable(v) and v.trainable]
    node.body[:0] = [_watch_marker(None, _fake_watch(p, node), region) for p in auto]
    watched = sorted({s.sg_watched for s in activity.walk_stmts(node.body) if anno.kind(s) == "watch"})
    normalize.normalize(node, ctx, watched)
    body = node.body[:-1]
    wrt = watched + sorted(ctx.sources)
    act = activity.analyze(node.body, wrt, set(targets))
    record.instrument(body, ctx.namer)
    rev = Reverse(ctx, act)
    rev.ints = int_names(body)
    rev.scalars = ranks.scalar_names(body, params, sample, rev.ints)
    rev.grads_list = ctx.namer.fresh("source_grads")
    seeds = [ctx.namer.fresh(f"seed_{t}") for t in targets]
    state = {}
    backward = [T.assign(rev.grads_list, gast.List([], gast.Load()))]
    for t, seed in zip(targets, seeds):
        if t in act:
            backward.append(T.assign(rev.d(t), T.name(seed)))
            state[t] = True
    backward += rev.block(body, state)
    forward, backward = _record(ctx, rev, body, params, backward)
    out = T.name(rev.grads_list)
    cleanup(backward, ctx.namer.adjoints.values(), _loads([gast.Expr(out)]))
    node.args.args += [gast.Name(sd, gast.Param(), None, None) for sd in seeds]
    fname = ctx.namer.fresh("tape_region")
    new = gast.FunctionDef(fname, node.args, forward + backward + [gast.Return(out)],
                           [], None, None, [])
    T.fix_ctx(new)
    where = region.origin(node).short()
    header = (f"adjoint of the GradientTape block at {where}, from {', '.join(targets)}; "
              "generated by srcgrad")
    text = codegen.unparse(new, header)
    loaded = codegen.load(text, fname, region.globals, ctx.cells, f"tape {where}")
    return Generated(text, loaded, ctx.guards)


def _fake_watch(name, node):
    call = gast.Expr(gast.Call(gast.Attribute(T.name("tape"), "watch", gast.Load()),
                               [T.name(name)], []))
    gast.copy_location(call, node)
    return call
