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
from ..ir.names import binding_counts, bound_names, shared_with, walk_stmts, written_into
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


def free_early(forward, backward, keep, scalars, adjoints, params=()):
    """``forward + backward`` with shape stand-ins and ``del`` statements added.

    ``keep``: names that must live to the end (returned, parameters).
    ``scalars``: names known to hold scalars, whose adjoints (``adjoints``
    maps a name to its adjoint's) are scalars too: nothing worth freeing.
    ``params``: those of ``keep`` that are parameters: one a loop rebinds holds
    the loop's last value, not the caller's, and is freed like the others.
    """
    scalars = set(scalars) | {adjoints[n] for n in scalars if n in adjoints}
    body = forward + backward
    once = _bound_once_at_top(body) - set(keep) - scalars
    _use_shapes(forward, backward, once)
    _seed_ones(backward, body)
    _fuse_temporaries(forward, body, set(keep))
    # A name a loop rebinds (``for ...: x = np.sin(x)``) is freed after its last read
    # if that read is a statement of its own at the top level: bound when it ran.
    looped = {n for s in forward if isinstance(s, (gast.For, gast.While))
              for n in _array_names(s)}
    late = looped - (set(keep) - set(params)) - scalars - once
    # (A parameter the loop rebinds holds the loop's last value: let go of it too.)
    leftovers = _drop_loop_leftovers(forward, backward, set(keep) - set(params) | scalars)
    return _delete_dead(leftovers + backward, once, late)


_ARITHMETIC = (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant, gast.operator,
               gast.unaryop, gast.expr_context)


def _fuse_temporaries(forward, body, keep):
    """``t = 2.0 * x; y = t + 1.0`` becomes ``y = 2.0 * x + 1.0`` where ``t`` is read
    there only: NumPy then computes the sum into the product's buffer (its temporary
    elision) instead of holding both. ``t``'s expression is arithmetic on names and
    constants, and ``y``'s reaches ``t`` through operators and NumPy calls only, so
    nothing runs between where ``t`` was computed and where it is now. Not a name of
    ``keep``, which the caller's code reads after these statements."""
    counts = binding_counts(body)
    reads = {}
    for s in body:
        for n in T.walk(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                reads[n.id] = reads.get(n.id, 0) + 1

    def fuse(stmts):
        for s in stmts:
            for field in ("body", "orelse"):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    fuse(getattr(s, field))
        k = 0
        while k + 1 < len(stmts):
            s, use = stmts[k], stmts[k + 1]
            name = s.targets[0].id if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) else None
            if name is not None and name not in keep and counts.get(name) == 1 \
                    and reads.get(name) == 1 \
                    and anno.kind(s) in (None, "prim") and anno.kind(use) in (None, "prim") \
                    and isinstance(s.value, (gast.BinOp, gast.UnaryOp)) \
                    and all(isinstance(n, _ARITHMETIC) for n in gast.walk(s.value)) \
                    and isinstance(use, gast.Assign) and _slot_of(use.value, name):
                parent, field = _slot_of(use.value, name)
                setattr(parent, field, s.value) if not isinstance(field, int) \
                    else parent.args.__setitem__(field, s.value)
                del stmts[k]
                continue
            k += 1
    fuse(forward)


def _slot_of(node, name):
    """(parent, field) of the one read of ``name`` in ``node``, reached through operators
    and ``np.<function>`` calls only; None otherwise."""
    if isinstance(node, gast.BinOp):
        children = (("left", node.left), ("right", node.right))
    elif isinstance(node, gast.UnaryOp):
        children = (("operand", node.operand),)
    elif isinstance(node, gast.Call) and not node.keywords \
            and isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
            and node.func.value.id == "np":
        children = tuple(enumerate(node.args))
    else:
        return None
    for field, child in children:
        if isinstance(child, gast.Name) and child.id == name:
            return node, field
        found = _slot_of(child, name)
        if found is not None:
            return found
    return None


def _seed_ones(backward, body):
    """``ones * e``, where ``ones = _sg.sum_grad(1.0, ...)`` is the seed of a summed loss
    spread over its elements, becomes ``_sg.times_ones(e, ones)``: ``e`` itself, not a
    product computed into a new array (``np.sum(np.sin(x) * x)``: ``dsin = ones * x``)."""
    counts = binding_counts(body)

    def bound_once(s):
        return isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1

    def is_one(node, one):
        return isinstance(node, gast.Name) and node.id in one or isinstance(node, gast.Constant) \
            and type(node.value) is float and node.value == 1.0 \
            or isinstance(node, gast.Call) and gast.unparse(node.func).strip() == "_sg.scalar_seed"

    def is_const(node, value):
        return isinstance(node, gast.Constant) and node.value is value

    one = {s.targets[0].id for s in body if bound_once(s) and is_one(s.value, ())}
    ones = set()
    for s in walk_stmts(backward):  # (in a loop too: ``times_ones`` reads the shape it has)
        call = s.value if bound_once(s) else None
        if isinstance(call, gast.Call) and gast.unparse(call.func).strip() == "_sg.sum_grad" \
                and len(call.args) == 4 and not call.keywords and is_one(call.args[0], one) \
                and is_const(call.args[2], None) and is_const(call.args[3], False):
            ones.add(s.targets[0].id)
    if not ones:
        return
    # ``e`` itself, not a copy: not for an array the backward code restores in place
    # (``y[1] = y_slot`` undoing ``y[1] *= 3``), which would change the adjoint too.
    restored = _written_in_place(backward, body)

    def seed_times_constant(node):  # ``ones * 2``: (ones, 2)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for seed, c in ((node.left, node.right), (node.right, node.left)):
                if isinstance(seed, gast.Name) and seed.id in ones and isinstance(c, gast.Constant):
                    return seed, c
        return None

    class Rewrite(gast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            if not isinstance(node.op, gast.Mult):
                return node
            for left, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(other, gast.Constant):
                    continue  # ``ones * 2`` as written: a number is no array to spare
                if any(isinstance(n, gast.Name) and n.id in restored for n in gast.walk(other)):
                    continue
                if isinstance(left, gast.Name) and left.id in ones:
                    return T.expr("_sg.times_ones(e, s)", e=other, s=left.id)
                scaled = seed_times_constant(left)
                if scaled is not None:  # ``ones * 2 * y``: ``2 * y`` (1.0 * 2 is 2 exactly)
                    return T.expr("_sg.times_ones(c * e, s)", c=scaled[1], e=other,
                                  s=scaled[0].id)
            return node
    backward[:] = [Rewrite().visit(s) for s in backward]


def _written_in_place(backward, body):
    """Names whose arrays ``backward`` writes into (``y[1] = v``, ``_sg.restore_slot(y,
    ...)``), with the names that may share them (``z = y``, ``z = y[1:]``)."""
    views = [(s.targets[0].id, root) for s in walk_stmts(body + backward)
             if isinstance(s, gast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], gast.Name) for root in [_viewed(s.value)] if root]
    return shared_with(written_into(backward), views)


def _viewed(value):
    """The name whose array ``value`` may be, or be a view of (``y``, ``y[1:]``, ``y.T``)."""
    while isinstance(value, (gast.Subscript, gast.Attribute)):
        value = value.value
    return value.id if isinstance(value, gast.Name) else None


def _drop_loop_leftovers(forward, backward, keep):
    """After a top-level loop of ``forward``, let go of the last trip's temporaries
    that nothing reads any more (``x_sin = x_mul = None``: a loop of no trips
    binds nothing, so no ``del``); inside it, of each trip's own temporaries
    after their last read (``_trip_temporaries``)."""
    out = []
    for i, s in enumerate(forward):
        out.append(s)
        if not isinstance(s, (gast.For, gast.While)):
            continue
        outside = forward[:i] + forward[i + 1:] + backward + list(s.orelse)
        _trip_temporaries(s, set(keep) | set().union(*(_reads(c) for c in outside)))
        inside = {n for inner in walk_stmts(s.body) for n in bound_names(inner)}
        later = set().union(*(_loads(c) for c in forward[i + 1:] + backward))
        freed = {n for d in s.body if isinstance(d, gast.Delete) for n in _names(d.targets)}
        dead = sorted((inside - later - keep - freed) & _array_names(s))
        if dead:
            out.append(gast.Assign([T.name(n) for n in dead], T.const(None), None))
    return out


def _trip_temporaries(loop, read_outside):
    """``del`` a temporary of one trip after its last read in that trip: the next trip's
    would otherwise be computed while it is alive (``x_mul = 2.0 * x; x = x_mul + 1.0``
    holds three arrays where NumPy's ``x = 2.0 * x + 1.0`` holds two). Only names bound
    once in the body, by one of its top-level statements, and read only after it in
    the same body (so bound whenever the ``del`` runs)."""
    body = loop.body
    counts = binding_counts(body)
    head = _loads(loop.iter if isinstance(loop, gast.For) else loop.test) | _closed_over(body)
    dies_at = {}
    for b, s in enumerate(body):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and _may_be_array(s.value)):
            continue
        name = s.targets[0].id
        if counts.get(name) != 1 or name in read_outside or name in head \
                or any(name in _reads(c) for c in body[:b + 1]):
            continue
        reads = [k for k in range(b + 1, len(body)) if name in _reads(body[k])]
        if reads and not _moves(body[reads[-1]], name):
            dies_at.setdefault(reads[-1], []).append(name)
    for k in sorted(dies_at, reverse=True):
        dead = gast.Delete([gast.Name(n, gast.Del(), None, None) for n in sorted(dies_at[k])])
        body.insert(k + 1, dead)


def _moves(s, name):
    """``s`` hands the value of ``name`` on (``y = t``, ``lst.append(t)``): a ``del`` after
    it would free nothing."""
    value = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr == "append":
        value = value.args[0] if len(value.args) == 1 else None
    return isinstance(value, gast.Name) and value.id == name


def _names(nodes):
    return {n.id for node in nodes for n in T.walk(node) if isinstance(n, gast.Name)}


def _loads(node):
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _array_names(loop):
    """The names an assignment in ``loop``'s body binds to what may be an array (one walk
    of the body for all its names, not one per name)."""
    return {n for s in walk_stmts(loop.body) if isinstance(s, gast.Assign)
            and _may_be_array(s.value) for n in bound_names(s)}


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
    mutated = _mutated_in_place(body + backward)
    reads = {n: r for n, r in _shape_only_reads(backward).items()
             if n in in_loops and n not in mutated}
    if not reads:
        return body
    for name, nodes in reads.items():
        for arg in nodes:
            arg.id = f"{name}_like"
    stand_ins = {}  # (id of the binding statement, name) -> the stand-in bound after it
    # A name bound only in loops and branches may be unbound when the backward pass
    # reads its stand-in (``zeros_like(g_like)`` for a branch not taken, fuzzer
    # 35073:277): the stand-in starts as None, as the name itself does (``zeros_like(None)``
    # is 0.0).
    top = {n for st in body for n in bound_names(st) if not isinstance(st, _COMPOUND)}
    unbound = [anno.set_kind(T.assign(f"{n}_like", T.const(None)), "opaque")
               for n in reads if n not in params and n not in top]
    body = unbound + [_stand_in(n, None, stand_ins) for n in params if n in reads] + \
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


def _mutated_in_place(code):
    """Names of lists, dicts and arrays ``code`` changes in place (``u.append(v)``,
    ``u.pop()``, ``d[k] = v``, a slot restored). ``_sg.like`` of a list is the list itself:
    a stand-in of one that changes later would not hold the shape it had (a list
    emptied by the backward pass's ``pop`` read as the one it was: fuzzer-style
    second-order crash, realistic-program hunt C1)."""
    # A name copied to or from a changed one holds the same object (``ops = arrays``,
    # then ``arrays.pop()``: third derivative through ``np.tensordot``, autograd's suite).
    copies = [(s.targets[0].id, s.value.id) for s in walk_stmts(code)
              if isinstance(s, gast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)]
    return shared_with(written_into(code), copies)



def _use_shapes(forward, backward, candidates):
    shape_only = _shape_only_reads(backward)
    mutated = _mutated_in_place(forward + backward)
    names = {n for n in shape_only if n in candidates and n not in mutated}
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


def _delete_dead(body, candidates, late=frozenset()):
    # A name a nested function or lambda reads is read whenever that runs (fuzzer
    # 35141:916: ``del b`` after ``def inner(): ... b ...``, then ``inner()``).
    closed_over = _closed_over(body)
    candidates, late = set(candidates) - closed_over, set(late) - closed_over
    last = {}
    for i, s in enumerate(body):
        for node in T.walk(s):
            if isinstance(node, gast.Name) and (node.id in candidates or node.id in late):
                last[node.id] = i
    dies_at = {}
    for name, i in last.items():
        if name in late and (isinstance(body[i], _COMPOUND) or name not in _reads(body[i])):
            continue  # read last in a loop or branch, or bound last: maybe unbound there
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


def _closed_over(body):
    """Names the functions and lambdas defined in ``body`` read: read whenever they run."""
    return {n.id for s in body for node in T.walk(s)
            if isinstance(node, (gast.FunctionDef, gast.Lambda))
            for n in T.walk(node) if isinstance(n, gast.Name)}


def _reads(s):
    """The names ``s`` reads (the targets of an assignment, whatever their ``ctx`` says
    before ``fix_ctx``, are not read)."""
    if isinstance(s, gast.Assign):
        parts = [s.value] + [t for t in s.targets if not isinstance(t, gast.Name)]
        return set().union(*(_loads(p) for p in parts))
    return _loads(s)


_COMPOUND = (gast.For, gast.While, gast.If, gast.With, gast.Try, gast.FunctionDef)


def _binds_only(s, name):
    """``s`` binds ``name`` and nothing reads it after: keep it (a value the caller may see)."""
    return isinstance(s, gast.Assign) and name in bound_names(s) and not any(
        isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
        for n in T.walk(s))
