"""A tape block compiled to run once: forward code that records, backward code that reads.

``compile_region`` generates one function that runs a block from its entry
values and then its adjoint (what a nested tape's gradient taken inside the
block compiles to). Here the same generated code is cut in two at the end of
the block:

- ``tape_region(<inputs>)`` runs in place of the block's statements. It
  returns the values of the variables the block binds (the tape writes them
  back into the caller's frame), the values the block watched, and its
  locals: the record the backward pass reads.
- ``tape_region_backward(take, live, <seeds>)`` takes what it reads from the
  record (``take`` is the record's ``pop`` for a tape used once, ``get`` for a
  persistent one) and returns ``[(source, adjoint), ...]`` for the sources
  named in ``live`` (those a seeded target reaches).

The targets are not known when the block runs, so every variable the block
binds that a gradient can flow through has a seed (zeros for those not
asked for), and the adjoint of each is reported where the block last binds
it (a value the block computed can be a source). What the backward pass
restores in place (a slot written back, a list popped) is the record's own:
the tape copies what the user can reach when the block ends, so the user's
objects stay as the block left them, and gives each run of a persistent
tape's backward code fresh copies of what it restores (``tape/kept.py``).

What the backward code reads is listed for the tape, which copies when the
block ends what the user can reach (``copied``; ``through_reads``: only the
values that are an input's own; ``private_reads``: only what is inside
containers), see ``ir/escapes.py`` and ``tape/kept.py``.
"""
import gast
import numpy as np

from ..errors import CompileError
from ..ir import anno, escapes, templates as T
from ..ir.atoms import OP_SYMBOLS
from ..ir.names import handed_on, loads_in, scope_nodes, statement_lists, walk_stmts, \
    written_into
from ..passes import activity, lifetimes, tape_blocks
from ..passes.cleanup import cleanup
from ..passes.normalize import objects
from . import codegen
from .context import Generated
from .pipeline import region_front, reverse_and_record, trim_forward, watch_where_bound, \
    without_gc, without_placeholders


class Recorded(Generated):
    """``forward`` and ``backward`` functions, and what the tape needs to call them."""


@without_gc
def compile_recorded(region, inputs, sample, outputs, watch_variables, is_variable,
                     watch_inputs=(), rows=False, as_arrays=(), modules=None, watched=None,
                     strong=False):
    """Forward and backward code of ``region`` run once, from ``inputs`` (names whose
    entry values are ``sample``); ``outputs``: the names the block binds.

    ``as_arrays``: inputs holding a trainable Variable's array (the tape passes
    the array): watched from the first line, in nested tapes' blocks too.
    ``rows``: the backward code takes seeds with a leading axis of rows
    (``jacobian``); it reads the record of the forward code compiled without
    ``rows`` only if the two forward codes are the same (``forward_text``).
    ``strong``: the backward code has strong zeros (``runtime/strong.py``), read
    likewise.
    ``modules``: modules the caller's function binds (``import numpy as np`` in
    it), name -> module: constants of the code, as its globals are.
    ``watched``: id -> value of the values watched when the block starts: reads of
    them from where they are stored are sources (``watched_reads``).
    """
    _check_no_global_rebound(region, inputs, outputs)
    ctx, node, body, wrt, params = region_front(region, inputs, sample, watch_variables,
                                                is_variable, tuple(watch_inputs) + tuple(as_arrays),
                                                once=True, as_arrays=as_arrays, modules=modules,
                                                watched=watched)
    # Values the block stores in attributes of objects it was handed (``self.loss =
    # ...``, passes/normalize/attributes.py) are targets too (``tape.gradient(
    # model.loss, W)``), under the locals that mirror them; not written back.
    mirrors = sorted(set(ctx.mirrors.values()))
    act = activity.analyze(node.body, wrt, set(outputs) | set(mirrors))
    active = [n for n in list(outputs) + mirrors if n in act]
    # What each seed reaches: a source no asked-for target reaches gets None, not zeros;
    # one gathered into a list the target reads other items of as well.
    # (Nothing the block changes in place: what an item holds is what it was bound to.)
    changed = lifetimes._mutated_in_place(node.body)
    displays = {} if changed else activity.displays_of(node.body)
    reaches = {n: activity.analyze(node.body, wrt, {n}, displays).active for n in active}
    # ... and each item of a list, tuple or dict display an output is (``outs[1]`` as a
    # target reaches what that item does).
    item_leaves = {} if changed else {
        (n, path): leaf for n in active for path, leaf in _display_items(node.body, n)}
    item_reaches = {key: activity.analyze(node.body, wrt, {leaf}, displays).active
                    for key, leaf in item_leaves.items()}
    order = watch_where_bound(body, region, [(n,) for n in active])
    # A value watched under the name it was made with, reported as another (``first =
    # h`` then ``h`` rebound): a target reaching that name reaches the reported one.
    for s in body:
        shown = getattr(s, "sg_report_as", None)
        if shown is not None and shown != s.sg_watched:
            for reached in reaches.values():
                if s.sg_watched in reached:
                    reached.add(shown)
    _comment_with_statement(body)
    seeds = [ctx.namer.fresh(f"seed_{n}") for n in active]
    watched_log = ctx.namer.fresh("watched")

    def prelude(rev):
        rev.grads_list = ctx.namer.fresh("source_grads")
        return [T.assign(rev.grads_list, gast.List([], gast.Load()))]

    rev, _, forward, backward = reverse_and_record(
        ctx, body, params, sample, act, [(n, T.name(sd)) for n, sd in zip(active, seeds)],
        inplace=True, prelude=prelude, watch_log=(watched_log, set(wrt) - ctx.sources),
        rows=seeds[0] if rows and seeds else None,
        read_after=lambda state: set(),  # (the user's variables are read before it)
        strong=strong, sized=True)  # (the tape keys its code on ranks.size_classes)
    out = T.name(rev.grads_list)
    forward = forward + objects.made_for_outputs(ctx, outputs)
    # The end of the block: the user's variables are read here.
    point = gast.Expr(gast.Tuple([T.name(n) for n in list(outputs) + mirrors], gast.Load()))
    cleanup(backward, ctx.namer.adjoints.values(), loads_in([gast.Expr(out)]))
    lifetimes.shapes_from_operands(forward, backward, params, rev.ranks)
    trim_forward(forward, rev, [point] + backward + [gast.Expr(out)])
    code = lifetimes.free_early(forward + [point], backward,
                                set(params) | set(seeds) | loads_in([gast.Expr(out)]),
                                rev.scalars, ctx.namer.adjoints, params)
    at = next(i for i, s in enumerate(code) if s is point)
    fwd, bwd = code[:at], _live_dels(code[at + 1:])
    unbound = [n for n in outputs if n not in params]
    # A variable a zero-trip loop would bind stays as it was (unbound: not written back).
    fwd = without_placeholders(fwd, unbound)
    flags = _read_flags(fwd, set(wrt), ctx.namer, watched_log)

    where = region.origin(node).short()
    fname = ctx.namer.fresh(f"{region.tape_name or 'tape'}_region")
    bname = ctx.namer.fresh(f"{fname}_backward")
    head = [T.assign(watched_log, gast.List([], gast.Load()))]
    head += [T.assign(n, T.expr("_sg.UNBOUND")) for n in unbound]
    result = gast.Tuple([gast.Tuple([T.name(n) for n in outputs], gast.Load()), T.name(watched_log),
                         T.expr("locals()")], gast.Load())
    forward_fn = gast.FunctionDef(fname, node.args, head + fwd + [gast.Return(result)],
                                  [], None, None, [])
    recorded = set(params) | set(unbound) | {watched_log} | {
        n for s in fwd for n in tape_blocks.bound_in(s)}
    take, live = ctx.namer.fresh("take"), ctx.namer.fresh("live")
    bwd = _reported_if_live(bwd, rev.grads_list, live, flags)
    reads = sorted(_names_in(bwd) & recorded - set(seeds))
    unpack = [_unpack(n, take) for n in reads]
    args = gast.arguments([gast.Name(a, gast.Param(), None, None) for a in [take, live] + seeds],
                          [], None, [], [], None, [])
    backward_fn = gast.FunctionDef(bname, args, unpack + bwd + [gast.Return(out)],
                                   [], None, None, [])
    for f in (forward_fn, backward_fn):
        T.fix_ctx(f)
    header = (f"the GradientTape block at {where}, run once: {fname} runs it and records, "
              f"{bname} is its adjoint, seeded at {', '.join(active) or 'nothing'}"
              f"{' (all seed rows at once)' if rows else ''}; generated by srcgrad")
    text = codegen.unparse([forward_fn, backward_fn], header)
    fns = codegen.load(text, (fname, bname), region.globals, ctx.cells, f"tape {where}")
    generated = Recorded(text, fns[0], ctx.guards)
    generated.forward, generated.backward = fns
    generated.forward_text = codegen.unparse(forward_fn, "")
    generated.outputs = list(outputs)
    generated.updated_inputs = updated_inputs(region, params, sample)
    generated.seeded = active
    generated.mirrors = [n for n in mirrors if n in active]
    stored = ctx.watched_reads
    generated.watch_reads = stored.locators() if stored is not None else ()
    generated.watch_pattern = stored.compiled_pattern() if stored is not None else ()
    generated.nested_reads = tuple(ctx.nested_reads)
    generated.order = order
    # Containers the block fills after binding them (appends, item writes): watched where
    # bound, their adjoint there is not their items' (refused as sources: tape.backward).
    generated.filled = {
        s.value.func.value.id if anno.kind(s) == "append" else s.targets[0].value.id
        for s in walk_stmts(body) if anno.kind(s) in ("append", "setitem")}
    generated.filled_through = _filled_through(body, params, generated.filled)
    generated.reaches = reaches
    generated.item_reaches = item_reaches
    generated.item_leaves = item_leaves
    # What the user can reach and may write into before the backward code reads it.
    private, through = escapes.private_names(
        fwd, ctx.scope, set(params) | set(outputs) | {watched_log}, set(params))
    generated.copied = sorted(set(reads) - private - through)
    # ``a + b`` of two lists is a new list of the same items: looked into at run time.
    generated.private_reads = sorted(set(reads) & private)
    # New arrays or the inputs' own: only the inputs' are copied.
    generated.through_reads = sorted(set(reads) & through)
    # Restored in place by the backward code: a persistent tape gives each run its own copy.
    generated.restored = _restored(reads, bwd)
    # ... all of it the record's own (stacks it pops, arrays the block made): then the
    # user's arrays are never written into by the backward code.
    generated.restores_only_own = all(
        n in private or n not in outputs and _own_list(n, fwd, bwd) for n in generated.restored)
    generated.variables = [ctx.scope.value(s.value) for s in walk_stmts(body)
                           if anno.kind(s) == "read"]
    return generated


def updated_inputs(region, inputs, sample):
    """Inputs holding an array that the block updates (``total += v``): compiled as
    ``total = total + v``, a new array, which the tape writes back into the caller's at
    the end of the block (its other names and views see the update, as in Python).
    Not those the block first rebinds, unconditionally (``total = total * 2``): the
    update is then of the block's own array. Refuses one bound another way after an
    update may have run: which array the caller's names see would depend on the order."""
    values = dict(zip(inputs, sample))
    updates, rebound, own, bound = {}, set(), set(), set()
    for s in region.statements:
        # Names bound by an update itself, or by a comprehension (its own variable).
        skipped = {id(n.target) for n in scope_nodes(s) if isinstance(n, gast.AugAssign)}
        skipped |= {id(t) for c in scope_nodes(s) if isinstance(c, gast.comprehension)
                    for t in gast.walk(c.target)}
        for n in scope_nodes(s):
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) \
                    and n.target.id not in own:
                if not _bound_just_before(s, n):
                    updates.setdefault(n.target.id, n)
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) \
                    and id(n) not in skipped:
                if n.id in updates:
                    rebound.add(n.id)
                elif isinstance(s, gast.Assign) and n.id not in own:
                    own.add(n.id)  # (a top-level assignment: runs before any update)
                else:
                    bound.add(n.id)  # (before an update, on some paths only)
    out = sorted(n for n in updates if isinstance(values.get(n), np.ndarray))
    for n in out:
        op = OP_SYMBOLS.get(type(updates[n].op), "+")
        if n in rebound:
            raise CompileError(
                f"the GradientTape block updates the array `{n}` it was given in place "
                f"(`{n} {op}= ...`) and binds `{n}` again after: srcgrad runs the update as "
                "a new array, written back into the caller's at the end of the block",
                region.filename, updates[n].lineno,
                remedy=f"write the update as `{n} = {n} {op} ...` (a new array, as the "
                       "other binding makes)")
        if n in bound:
            raise CompileError(
                f"the GradientTape block updates `{n}` in place (`{n} {op}= ...`) where it "
                f"may hold the array it was given or one a binding of `{n}` before made (in a "
                "branch or a loop): srcgrad would write the update back into the caller's "
                "array whichever it is", region.filename, updates[n].lineno,
                remedy=f"write the update as `{n} = {n} {op} ...` (a new array)")
    return out


def _bound_just_before(stmt, update):
    """Is the name ``update`` (an augmented assignment inside ``stmt``) bound by a plain
    assignment earlier in the same statement list (``x = 0.5 * x`` then ``x -= x`` in a
    loop's body)? Then the update is always of an array that binding made."""
    name = update.target.id
    for body in statement_lists(stmt):
        if any(t is update for t in body):
            at = next(i for i, t in enumerate(body) if t is update)
            return any(isinstance(t, gast.Assign) and any(
                isinstance(target, gast.Name) and target.id == name for target in t.targets)
                for t in body[:at])
    return False


def _check_no_global_rebound(region, inputs, outputs):
    """Refuse a block that reads a global name and binds it (``global count`` then
    ``count = count + 1`` in the block): the compiled block binds its variables in the
    caller's frame, where a global is not."""
    first_read = tape_blocks.read_before_bound(region.statements)
    for n in outputs:
        if n in first_read and n not in inputs and n in region.globals:
            raise CompileError(
                f"the GradientTape block reads the global `{n}` and binds it again: srcgrad "
                "binds what a recorded block binds in the function's own variables",
                region.filename, region.lineno,
                remedy=f"bind a local name to it before the block (`{n}_now = {n}`), use that "
                       f"in the block, and assign `{n}` after it")


def _comment_with_statement(body):
    """Reports of bound variables in the backward code under their statement's comment."""
    for before, s in zip(body, body[1:]):
        if getattr(s, "sg_output", False) and anno.origin(s) is None:
            anno.set_origin(s, anno.origin(before))


def _reported_if_live(stmts, grads_list, live, flags):
    """Each ``grads_list.append((x, g))`` only if a seeded target reaches ``x`` (and,
    for a source in ``flags``, a statement reading it ran)."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                setattr(s, field, _reported_if_live(getattr(s, field), grads_list, live, flags))
        call = getattr(s, "value", None)
        if isinstance(s, gast.Expr) and isinstance(call, gast.Call) \
                and isinstance(call.func, gast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, gast.Name) and call.func.value.id == grads_list:
            x = call.args[0].elts[0]
            name = x.id if isinstance(x, gast.Name) else x.value
            test = T.expr("n in live", n=T.const(name), live=live)
            if name in flags:
                test = T.expr("t and f", t=test, f=T.name(flags[name]))
            s = gast.If(test, [s], [])
        out.append(s)
    return out


def _read_flags(fwd, sources, namer, watch_log):
    """Sources that ``fwd`` (a block's forward code) reads only under a branch or in a
    loop body -> the name of a flag ``fwd`` now sets where it reads them.

    TensorFlow's tape connects a source to a target only through operations that
    ran: one read only in the branch not taken (``if x > 0: r = v0`` / ``else: r =
    v1 ** 2``), or in a loop that ran no trip, gets None, not zeros."""
    def reads(node):
        return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load) and n.id in sources}

    always = set()
    for s in fwd:
        if isinstance(s, (gast.If, gast.While)):
            always |= reads(s.test)
        elif isinstance(s, gast.For):
            always |= reads(s.iter)
        elif not _logs_watch(s, watch_log):
            always |= reads(s)
    flags = {}

    def mark(stmts):
        out = []
        for s in stmts:
            if isinstance(s, (gast.If, gast.For, gast.While)):
                head = reads(s.iter if isinstance(s, gast.For) else s.test) - always
                s.body, s.orelse = mark(s.body), mark(s.orelse)
            else:
                head = reads(s) - always
            for n in sorted(head):
                if n not in flags:
                    flags[n] = namer.fresh(f"{n}_read")
                out.append(T.assign(flags[n], T.const(True)))
            out.append(s)
        return out

    for s in fwd:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body, s.orelse = mark(s.body), mark(s.orelse)
    fwd[:0] = [T.assign(f, T.const(False)) for f in flags.values()]
    return flags


def _logs_watch(s, watch_log):
    """``watched.append(x)``: the block's log of what it watched, not a read."""
    call = getattr(s, "value", None)
    return isinstance(s, gast.Expr) and isinstance(call, gast.Call) \
        and isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name) \
        and call.func.value.id == watch_log


def _names_in(stmts):
    return {n.id for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name)}


def _restored(reads, bwd):
    """The names of ``reads`` whose objects the backward code ``bwd`` writes into, under
    their own name or another it binds to them (``traj = traj_prev``, then
    ``traj.pop()``: a name the block rebound from a list to an array)."""
    written = written_into(bwd, attributes=True)
    moves = [(s.targets[0].id, s.value.id) for s in walk_stmts(bwd)
             if isinstance(s, gast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)]
    return {n for n in reads if n in handed_on(written, moves)}


def _display_items(body, name, depth=3):
    """(path, name) of the items of ``name``, if the block binds it once, to a list, tuple
    or dict display of names, and reads it only by constant items or as an item of
    such a display; nested displays are looked into."""
    binds = [s for s in walk_stmts(body) if isinstance(s, gast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], gast.Name) and s.targets[0].id == name]
    stores = [n for n in gast.walk(gast.Module(body, [])) if isinstance(n, gast.Name)
              and n.id == name and isinstance(n.ctx, gast.Store)]
    if depth == 0 or len(binds) != 1 or len(stores) != 1:
        return []
    value = binds[0].value
    if isinstance(value, (gast.List, gast.Tuple)):
        items = list(enumerate(value.elts))
    elif isinstance(value, gast.Dict) and all(isinstance(k, gast.Constant) for k in value.keys):
        items = [(k.value, v) for k, v in zip(value.keys, value.values)]
    else:
        return []
    if not all(isinstance(v, gast.Name) for _, v in items) \
            or len({k for k, _ in items}) != len(items) or not _read_by_items_only(body, name):
        return []
    out = []
    for key, v in items:
        out.append(((key,), v.id))
        out += [((key,) + path, leaf) for path, leaf in _display_items(body, v.id, depth - 1)]
    return out


def _read_by_items_only(body, name):
    """Is every read of ``name`` in ``body`` a constant item (``outs[1]``) or an item of
    a list, tuple or dict display?"""
    parents = {}
    for n in gast.walk(gast.Module(body, [])):
        for child in gast.iter_child_nodes(n):
            parents[id(child)] = n
    for n in gast.walk(gast.Module(body, [])):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
            p = parents.get(id(n))
            if isinstance(p, (gast.List, gast.Tuple)) or isinstance(p, gast.Dict) \
                    and any(v is n for v in p.values):
                continue
            if not (isinstance(p, gast.Subscript) and p.value is n
                    and isinstance(p.slice, gast.Constant) and isinstance(p.ctx, gast.Load)):
                return False
    return True


def _own_list(name, fwd, bwd):
    """Is ``name`` a list the forward code makes (bound only to ``[]``) that the backward
    code changes only by its methods (a stack it pops), never writing into an item?"""
    bound = [n for s in fwd for n in gast.walk(s)
             if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]
    made = [s for s in walk_stmts(fwd) if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id == name]
    if len(made) != len(bound) or not all(isinstance(s.value, gast.List) and not s.value.elts
                                          for s in made):
        return False
    return not any(isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store)
                   and isinstance(n.value, gast.Name) and n.value.id == name
                   for s in bwd for n in gast.walk(s))


def _unpack(name, take):
    # What it restores in place is the record's own: the tape copied what the user
    # can reach when the block ended, and gives a persistent tape's runs fresh copies.
    return T.assign(name, T.expr("t(n, None)", t=take, n=T.const(name)))


def _live_dels(stmts):
    """``stmts`` without ``del`` of names they never read (freed at the end of the block)."""
    loads = {n.id for s in stmts for n in gast.walk(s)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    out = []
    for s in stmts:
        if isinstance(s, gast.Delete):
            keep = [t for t in s.targets if not isinstance(t, gast.Name) or t.id in loads]
            if not keep:
                continue
            s.targets = keep
        out.append(s)
    return out


def _filled_through(body, params, filled):
    """The inputs the block writes into under another name (``fill(y, x)``, a helper
    writing ``buf[0] = ...`` into the ``y`` it was handed): such a target is not seeded
    (``tape._check_not_filled`` refuses it)."""
    root = {}
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name):
            root[s.targets[0].id] = root.get(s.value.id, s.value.id)
    return {root[n] for n in filled if root.get(n) in params and root[n] != n}
