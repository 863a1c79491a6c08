"""Free forward values as soon as nothing needs them (peak memory).

Python keeps every local alive until the function returns, so generated code
that computes ``h_matmul = X @ W1; h_add = h_matmul + b1; h = np.tanh(h_add)``
holds all three arrays through the whole backward pass, where a hand-written
gradient keeps only ``h``. Two steps, on straight-line code only (values
bound once, at the top level of the function, never inside a loop or branch):

1. **Shapes, not values.** Where the backward pass reads such a value only
   for its shape and dtype (``_sg.unbroadcast(g, h_matmul)``,
   ``_sg.zeros_like(h_add)``, ``_sg.sum_grad(g, a, ...)``), it reads
   ``h_matmul_like = _sg.like(h_matmul)`` instead: an array of that shape and
   dtype that takes no memory (``np.broadcast_to`` of one zero).
2. **del after the last use.** ``del h_matmul, h_add`` right after the last
   statement that reads them.

Only for code that is not differentiated again (``sg.grad`` code compiled
with ``inplace``, tape blocks not nested in another tape): the compiler does
not read ``del`` statements back.

In loops (``loop_shapes``, before recording): a value rebound on every trip
and read back only for its shape is recorded as its ``_sg.like`` stand-in,
restored trip by trip like the value would be, so the recorder keeps shapes
instead of one array per trip; after a top-level loop, the last trip's
temporaries that nothing reads are let go (``x_sin = x_mul = None``).

Before both, in all generated code, ``shapes_from_operands``: a value read
only for its shape, ``z = np.logaddexp(0.0, t)`` in ``_sg.mean_grad(g, z,
...)``, is read from the operand that has that shape (``t``), so that a
gradient that does not return ``z`` need not compute it.
"""
import copy

import gast

from ..ir import anno, templates as T
from ..ir.names import binding_counts, bound_names, walk_stmts
from ..ir.shapes import shape_source

# ``_sg`` helpers -> the positions of arguments they use only for shape and dtype.
SHAPE_ONLY = {
    "unbroadcast": (1,),
    "zeros_like": (0,),
    "add_at_zeros": (0,),
    "gather_items": (0,),
    "sum_grad": (1,),
    "mean_grad": (1,),
    "reshape_like": (1,),
    "sum_to": (1,),
    "unbroadcast_rows": (1,),
    "sum_grad_rows": (1,),
}


# ``_sg`` helpers -> the positions of arguments of which they read only the shape
# (not the dtype: ``zeros_like`` and ``add_at_zeros`` are not here).
SHAPE_NOT_DTYPE = {"unbroadcast": (1,), "sum_grad": (1,), "mean_grad": (1,),
                   "reshape_like": (1,), "sum_to": (1,)}


def shapes_from_operands(forward, backward, params, ranks):
    """Shape-only reads in ``backward`` of ``z = op(a, scalars)`` read ``a`` instead.

    Straight-line values only: ``z`` and ``a`` are bound once, at the top level
    of ``forward`` (or ``a`` is a parameter bound nowhere), so ``a`` still has
    the shape it gave ``z`` when the backward pass runs.
    """
    counts = binding_counts(forward + backward)
    origin = {}
    for s in forward:
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name)):
            continue
        z, a = s.targets[0].id, shape_source(s, ranks)
        if a is not None and counts.get(z) == 1 and (counts.get(a) == 1 or a in params
                                                      and a not in counts):
            origin[z] = origin.get(a, a)
    if not origin:
        return
    for s in backward:
        for node in T.walk(s):
            if isinstance(node, gast.Call):
                for arg in _shape_reads(node, SHAPE_NOT_DTYPE):
                    if isinstance(arg, gast.Name) and arg.id in origin:
                        arg.id = origin[arg.id]


def free_early(forward, backward, keep, scalars, adjoints):
    """``forward + backward`` with shape stand-ins and ``del`` statements added.

    ``keep``: names that must live to the end (returned, parameters).
    ``scalars``: names known to hold scalars, whose adjoints (``adjoints``
    maps a name to its adjoint's) are scalars too: nothing worth freeing.
    """
    scalars = set(scalars) | {adjoints[n] for n in scalars if n in adjoints}
    body = forward + backward
    once = _bound_once_at_top(body) - set(keep) - scalars
    _use_shapes(forward, backward, once)
    return _delete_dead(_drop_loop_leftovers(forward, backward, set(keep) | scalars) + backward,
                        once)


def _drop_loop_leftovers(forward, backward, keep):
    """After a top-level loop of ``forward``, let go of the last trip's temporaries
    that nothing reads any more (``x_sin = x_mul = None``: a loop of no trips
    binds nothing, so no ``del``)."""
    out = []
    for i, s in enumerate(forward):
        out.append(s)
        if not isinstance(s, (gast.For, gast.While)):
            continue
        inside = {n for inner in walk_stmts(s.body) for n in bound_names(inner)}
        later = set().union(*(_loads(c) for c in forward[i + 1:] + backward))
        dead = sorted(n for n in inside - later - keep if _may_hold_array(n, s))
        if dead:
            out.append(gast.Assign([T.name(n) for n in dead], T.const(None), None))
    return out


def _loads(node):
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _may_hold_array(name, loop):
    return any(isinstance(s, gast.Assign) and name in bound_names(s) and _may_be_array(s.value)
               for s in walk_stmts(loop.body))


def _bound_once_at_top(body):
    """Names bound once, by a top-level statement that may give an array."""
    counts = binding_counts(body)
    top = {n for s in body if isinstance(s, gast.Assign) and _may_be_array(s.value)
           for n in bound_names(s)}
    return {n for n in top if counts[n] == 1}


def _may_be_array(value):
    """Not a constant, a flag, a range or a stack: nothing worth a ``del`` line."""
    if isinstance(value, (gast.Constant, gast.Compare, gast.BoolOp, gast.List)):
        return False
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id not in ("range", "len", "int", "bool", "float")
    return True


def _shape_reads(call, table=SHAPE_ONLY):
    """The argument nodes of ``call`` that a ``_sg`` helper reads only for shape (and dtype)."""
    f = call.func
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "_sg":
        return [call.args[i] for i in table.get(f.attr, ()) if i < len(call.args)]
    return []


def _shape_only_reads(backward):
    """``{name: its Name nodes}`` for the names ``backward`` reads only for their shape."""
    shape_only = {}   # name -> the Name nodes that read it for its shape only
    loads = []
    for s in backward:
        for node in T.walk(s):
            if isinstance(node, gast.Call):
                for arg in _shape_reads(node):
                    if isinstance(arg, gast.Name):
                        shape_only.setdefault(arg.id, []).append(arg)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                loads.append(node)
    shape_reads = {id(a) for reads in shape_only.values() for a in reads}
    other = {n.id for n in loads if id(n) not in shape_reads}
    return {n: reads for n, reads in shape_only.items() if n not in other}


def loop_shapes(body, backward, params):
    """Values bound in a loop that ``backward`` reads only for their shape are
    recorded as ``_sg.like`` stand-ins, not as arrays.

    Run before recording: ``x_mul`` rebound on every trip and read as
    ``_sg.unbroadcast(dx_mul, x_mul)`` would otherwise be saved once per trip,
    every trip's array alive until the backward pass reaches it. The stand-in
    is bound right after each binding, so each trip's restores the shape that
    trip had. For code not differentiated again (as ``free_early``).
    """
    in_loops = set()
    for s in walk_stmts(body):
        if isinstance(s, (gast.For, gast.While)):
            in_loops |= {n for inner in walk_stmts(s.body) for n in bound_names(inner)}
            in_loops |= set(bound_names(s))
    reads = {n: r for n, r in _shape_only_reads(backward).items() if n in in_loops}
    if not reads:
        return body
    for name, nodes in reads.items():
        for arg in nodes:
            arg.id = f"{name}_like"
    stand_ins = {}  # (id of the binding statement, name) -> the stand-in bound after it
    body = [_stand_in(n, None, stand_ins) for n in params if n in reads] + \
        _with_stand_ins(body, set(reads), stand_ins)
    _restore_with(backward, stand_ins)
    return body


def _stand_in(name, binding, stand_ins):
    s = anno.set_kind(T.assign(f"{name}_like", T.expr("_sg.like(x)", x=name)), "opaque")
    stand_ins[(id(binding), name)] = s
    return s


def _with_stand_ins(stmts, names, stand_ins):
    out = []
    for s in stmts:
        compound = False
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, gast.FunctionDef):
                setattr(s, field, _with_stand_ins(getattr(s, field), names, stand_ins))
                compound = True
        if isinstance(s, gast.For):
            s.body = [_stand_in(n, s, stand_ins) for n in bound_names(s) if n in names] + s.body
        out.append(s)
        if not compound:
            out += [_stand_in(n, s, stand_ins) for n in bound_names(s) if n in names]
    return out


def _restore_with(code, stand_ins):
    """Where ``backward`` restores a value that has a stand-in, restore the stand-in too
    (the recorder fills these placeholders, ``record.Recorder.fill``)."""
    for i in reversed(range(len(code))):
        c = code[i]
        for field in ("body", "orelse"):
            if isinstance(getattr(c, field, None), list):
                _restore_with(getattr(c, field), stand_ins)
        marker = getattr(c, "sg_restore", None)
        stand_in = marker and stand_ins.get((id(marker.stmt), marker.name))
        if stand_in is not None and marker.how in ("rebind", "target"):
            twin = copy.copy(c)
            if marker.how == "rebind" and isinstance(marker.stmt, gast.For):
                # After the loop: the stand-in the target had before it, which the
                # recorder saves with the target (the trips' stand-ins are popped).
                twin.sg_restore = type(marker)(marker.stmt, stand_in.targets[0].id, "rebind")
            else:
                twin.sg_restore = type(marker)(stand_in, stand_in.targets[0].id, "rebind")
            code.insert(i + 1, twin)


def _use_shapes(forward, backward, candidates):
    shape_only = _shape_only_reads(backward)
    names = {n for n in shape_only if n in candidates}
    if not names:
        return
    stand_ins = []
    for s in forward:
        stand_ins.append(s)
        stand_ins += [T.assign(f"{name}_like", T.expr("_sg.like(x)", x=name))
                      for name in bound_names(s) if name in names]
    forward[:] = stand_ins
    for name in names:
        for arg in shape_only[name]:
            arg.id = f"{name}_like"


def _delete_dead(body, candidates):
    last = {}
    for i, s in enumerate(body):
        for node in T.walk(s):
            if isinstance(node, gast.Name) and node.id in candidates:
                last[node.id] = i
    dies_at = {}
    for name, i in last.items():
        dies_at.setdefault(i, []).append(name)
    out = []
    for i, s in enumerate(body):
        out.append(s)
        dead = sorted(n for n in dies_at.get(i, ()) if not _binds_only(s, n))
        if dead:
            out.append(gast.Delete([T.name(n, store=False) for n in dead]))
            for target in out[-1].targets:
                target.ctx = gast.Del()
    return out


def _binds_only(s, name):
    """``s`` binds ``name`` and nothing reads it after: keep it (a value the caller may see)."""
    return isinstance(s, gast.Assign) and name in bound_names(s) and not any(
        isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
        for n in T.walk(s))
