"""Clean-up of generated code: dead adjoints, trivial arithmetic, copies, unused values.

- An adjoint assigned and never read again (a zero made for a branch join
  that nothing after it consumes, an adjoint reset at the end of a loop body
  that the next iteration overwrites) is dropped, by a liveness pass over the
  structured code.
- ``g * 1.0``, ``1.0 * g``, ``g / 1`` and ``--g`` are simplified.
- In loops, copies ``t = s`` read only further down are replaced by ``s``.
- The adjoint of an unpacked vector, built item by item, becomes one
  ``_sg.gather_items`` call.
- ``drop_unused`` (forward code): pure statements whose value nothing reads.

Only dead adjoints, copies and (forward) unused pure values are removed: no
statement with an effect is.

Before/after::

    dy = dz * 1.0           dy = dz
    dz = _sg.zeros_like(z)  (dropped: dz is not read again)
"""
import gast

from ..ir import templates as T
from ..ir.atoms import is_sg_call
from ..ir.names import loads, stores, walk_stmts
from ..ir.effects import pure_assignment, simple
from . import try_except


def _is_one(node):
    return isinstance(node, gast.Constant) and not isinstance(node.value, bool) \
        and isinstance(node.value, (int, float)) and node.value == 1


def _num(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


class Peephole(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _num(node.left), _num(node.right)
        if a is not None and b is not None and type(node.op) in _FOLD:
            return gast.Constant(_FOLD[type(node.op)](a, b), None)
        if isinstance(node.op, gast.Pow) and _is_one(node.right):
            return node.left
        if isinstance(node.op, gast.Mult):
            if _is_one(node.right):
                return node.left
            if _is_one(node.left):
                return node.right
        if isinstance(node.op, gast.Div) and _is_one(node.right):
            return node.left
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub) and isinstance(node.operand, gast.UnaryOp) \
                and isinstance(node.operand.op, gast.USub):
            return node.operand.operand
        return node


def _defs(stmt):
    return {n.id for t in getattr(stmt, "targets", []) for n in T.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


class _Liveness:
    def __init__(self, removable, visit=None):
        self.removable = removable
        self.visit = visit  # visit(statement, names live after it), in the pruning pass
        self._flow = {}  # id(simple statement) -> (defs, uses): loops are walked many times

    def flow(self, s):
        out = self._flow.get(id(s))
        if out is None:
            out = self._flow[id(s)] = (_defs(s), loads(s))
        return out

    def block(self, stmts, live, prune):
        """Live names before ``stmts`` given ``live`` after; drops dead adjoints if ``prune``."""
        kept = []
        for s in reversed(stmts):
            if isinstance(s, gast.If):
                then_live = self.block(s.body, set(live), prune)
                else_live = self.block(s.orelse, set(live), prune)
                if prune:
                    s.body = s.body or [gast.Pass()]
                live = then_live | else_live | loads(s.test)
            elif isinstance(s, (gast.For, gast.While)):
                # A while test runs again after each iteration: what it reads is live there.
                loop_live = set(live) | (loads(s.test) if isinstance(s, gast.While) else set())
                while True:
                    body_live = self.block(s.body, set(loop_live), False)
                    new = loop_live | body_live
                    if new == loop_live:
                        break
                    loop_live = new
                if prune:
                    self.block(s.body, set(loop_live), True)
                    s.body = s.body or [gast.Pass()]
                head = s.iter if isinstance(s, gast.For) else s.test
                live = loop_live | loads(head)
            elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) \
                    and s.targets[0].id in self.removable and s.targets[0].id not in live:
                if _pops(s.value):
                    # A dead adjoint taken off a stack of them (``dp = dp_stack.pop()``):
                    # the pop stays, or the next pop would take this one's item.
                    live |= loads(s.value)
                    if prune:
                        kept.append(gast.copy_location(gast.Expr(s.value), s))
                continue  # a dead adjoint: drop it
            else:
                if prune and self.visit is not None:
                    self.visit(s, live)
                defs, uses = self.flow(s)
                live -= defs  # in place: callers pass a copy, and a forward pass's
                live |= uses  # live set grows with its length (copies would be quadratic)
            kept.append(s)
        if prune:
            stmts[:] = kept[::-1]
        return live


def _pops(value):
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
               and n.func.attr == "pop" for n in gast.walk(value))


def _tidy(stmts):
    """Drop comments left with nothing under them and empty ifs; keep blocks non-empty."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _tidy(s.body)
            s.orelse = _tidy(s.orelse) if isinstance(s, gast.If) else s.orelse
            if isinstance(s, gast.If) and not _real(s.body) and not _real(s.orelse):
                continue
            s.body = s.body or [gast.Pass()]
        out.append(s)
    kept = []
    for i, s in enumerate(out):
        if getattr(s, "sg_comment", False) and not any(
                not getattr(n, "sg_comment", False) for n in out[i + 1:i + 2]):
            continue
        kept.append(s)
    return kept


def _real(stmts):
    return any(not getattr(s, "sg_comment", False) and not isinstance(s, gast.Pass) for s in stmts)


def drop_unused(forward, live_after):
    """Drop forward statements whose value nothing reads; returns ``forward``.

    A gradient need not compute what only its function's value needs: with
    ``sg.grad`` the loss itself, the last ``np.mean`` and, in a loop, the
    running sum ``s = s + ...``, none of which the backward pass reads. Only
    names whose every binding is a pure statement (a primitive with a rule, a
    copy, an index or a literal) can go; everything else stays.
    """
    impure, bound = set(), set()
    tried = try_except.protected(forward)  # (a try's body: each statement may raise)
    for s in walk_stmts(forward):
        if isinstance(s, (gast.If, gast.While)):
            continue
        names = stores(s.target if isinstance(s, gast.For) else s)
        bound |= names
        if isinstance(s, gast.For) or not pure_assignment(s) or id(s) in tried:
            impure |= names
    _Liveness(bound - impure).block(forward, set(live_after), True)
    forward[:] = _tidy(forward)
    # A loop left with nothing to do (its values are recomputed backward): gone,
    # unless its target's last value is read after it.
    read = set(live_after)
    for s in forward:
        if not _idle_loop(s):
            read |= loads(s)
    forward[:] = [s for s in forward if not (_idle_loop(s) and s.target.id not in read)]
    return forward


def forward_copies(forward, live_after):
    """``_Copies`` in the loops of the forward pass; ``live_after``: what the backward
    pass and the result read (a name the backward pass restores from a stack, it
    reads too)."""
    _Copies(forward, set(live_after)).block(forward)
    return forward


def _idle_loop(s):
    return isinstance(s, gast.For) and not _real(s.body) and not s.orelse \
        and isinstance(s.target, gast.Name) and isinstance(s.iter, gast.Name)


def _bindings(stmts):
    count = {}
    for s in walk_stmts(stmts):
        targets = [s.target] if isinstance(s, (gast.For, gast.AugAssign)) else \
            getattr(s, "targets", [])
        for t in targets:
            for n in T.walk(t):
                if isinstance(n, gast.Name):
                    count[n.id] = count.get(n.id, 0) + 1
    return count


def _is_copy(s, target, source):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == target \
        and isinstance(s.value, gast.Name) and s.value.id == source


def _rebinds(s):
    """Names ``s`` (nested blocks included) binds or deletes; ``a[i] += v`` binds nothing."""
    return {n.id for n in T.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))}


class _Copies:
    """Drop ``t = s`` where ``t`` is read only further down the same block, before ``s`` changes.

    Generated adjoint code is full of them (``ds_add = ds``: the adjoint of an
    addition passes through); each costs a store and a load per iteration.
    ``t`` must be bound once in all the code and read nowhere else.
    """

    def __init__(self, stmts, live_after):
        self.bound = _bindings(stmts)
        self.live_after = live_after
        self.total = {}
        for s in stmts:
            for n in T.walk(s):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                    self.total[n.id] = self.total.get(n.id, 0) + 1

    def block(self, stmts, in_loop=False):
        """Only in loops: there the copies cost once per iteration, and outside them
        a copy often gives a value its user-facing name (``ds = dresult_add``)."""
        for s in stmts:
            if isinstance(s, (gast.If, gast.For, gast.While)):
                self.block(s.body, in_loop or not isinstance(s, gast.If))
                self.block(s.orelse, in_loop)
        if not in_loop:
            return
        loads = {}
        rebinds = [_rebinds(s) for s in stmts]  # substituting loads below leaves these as they are
        for k, s in enumerate(stmts):
            for n in T.walk(s):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                    loads.setdefault(n.id, []).append((k, n))
        dropped = set()
        for k, s in enumerate(stmts):
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name)):
                continue
            t, src = s.targets[0].id, s.value.id
            uses = loads.get(t, [])
            if t == src or self.bound.get(t) != 1 or t in self.live_after or not uses \
                    or self.total.get(t) != len(uses) \
                    or any(j <= k or isinstance(stmts[j], (gast.If, gast.For, gast.While))
                           for j, _ in uses):
                continue
            last = max(j for j, _ in uses)
            if any(src in rebinds[j] and not _is_copy(stmts[j], src, t)
                   for j in range(k + 1, last)):
                continue
            for _, n in uses:
                n.id = src
            dropped |= {j for j in range(k + 1, last + 1) if _is_copy(stmts[j], src, src)}
            loads.setdefault(src, []).extend(uses)
            loads[t] = []
            self.total[src] = self.total.get(src, 0) + len(uses)
            self.total[t] = 0
            dropped.add(k)
        stmts[:] = [s for k, s in enumerate(stmts) if k not in dropped]


def _inner_blocks(stmts):
    """The statement lists directly inside the ifs and loops of ``stmts``."""
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            yield s.body
            yield s.orelse


def _int_constant(node):
    return isinstance(node, gast.Constant) and type(node.value) is int and node.value >= 0


def _gathered(stmts):
    """``d = _sg.add_at_zeros(p, 2, c); d[1] += b; d[0] += a`` -> ``d = _sg.gather_items(p, [a, b, c])``.

    The adjoint of unpacking a vector (``a, b, c = p[0], p[1], p[2]``): one
    array instead of a zero array updated item by item.
    """
    for block in _inner_blocks(stmts):
        _gathered(block)
    out, k = [], 0
    while k < len(stmts):
        s = stmts[k]
        call = s.value if isinstance(s, gast.Assign) else None
        if not (is_sg_call(call) and call.func.attr == "add_at_zeros" and len(call.args) == 3
                and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
                and _int_constant(call.args[1])):
            out.append(s)
            k += 1
            continue
        d = s.targets[0].id
        items = {call.args[1].value: call.args[2]}
        j = k + 1
        while j < len(stmts) and isinstance(stmts[j], gast.AugAssign) \
                and isinstance(stmts[j].op, gast.Add) and isinstance(stmts[j].target, gast.Subscript) \
                and isinstance(stmts[j].target.value, gast.Name) and stmts[j].target.value.id == d \
                and _int_constant(stmts[j].target.slice) and stmts[j].target.slice.value not in items \
                and d not in loads(stmts[j].value):
            items[stmts[j].target.slice.value] = stmts[j].value
            j += 1
        if j - k < 2 or set(items) != set(range(len(items))):
            out.append(s)
            k += 1
            continue
        values = gast.List([items[i] for i in range(len(items))], gast.Load())
        out.append(T.assign(d, T.expr("_sg.gather_items(p, v)", p=call.args[0], v=values)))
        k = j
    stmts[:] = out


def _constant_adjoints(backward, adjoint_names):
    """In loops, loads of an adjoint bound once in all the code, to a number, become
    that number.

    The seed ``ds = 1.0`` of a running sum, which its loop passes on unchanged,
    and then ``ds_pow = ds * 100.0``: generated code reads an adjoint only
    after its binding, so every load sees the one value. Only in loops, where
    each multiplication costs once per iteration; elsewhere ``dresult = 1.0``
    stays, as a reader expects it.
    """
    count = _bindings(backward)
    values = {}
    for s in walk_stmts(backward):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and s.targets[0].id in adjoint_names and count.get(s.targets[0].id) == 1 \
                and _num(s.value) is not None:
            values[s.targets[0].id] = s.value.value
    if not values:
        return False
    fold = _Fold(values)
    for loop in _loops(backward):
        fold.visit(loop)
    return fold.replaced


class _Fold(gast.NodeTransformer):
    """Loads of the names in ``values`` become those constants."""

    def __init__(self, values):
        self.values = values
        self.replaced = False

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            self.replaced = True
            return gast.Constant(self.values[node.id], None)
        return node


def _loops(stmts):
    """The outermost loops of ``stmts`` (also those under an ``if``)."""
    for s in stmts:
        if isinstance(s, (gast.For, gast.While)):
            yield s
        elif isinstance(s, gast.If):
            yield from _loops(s.body)
            yield from _loops(s.orelse)


def _item_add(s):
    """``d[i] += v`` with ``i`` names and constants: (d, the index as text, v), else None."""
    if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
            and isinstance(s.target, gast.Subscript) and isinstance(s.target.value, gast.Name) \
            and simple(s.target.slice):
        return s.target.value.id, gast.dump(s.target.slice), s.value
    return None


def _written_into(s):
    """Names whose value ``s`` changes in place: ``a[0] += v``, ``a.x = v``."""
    targets = [s.target] if isinstance(s, gast.AugAssign) else getattr(s, "targets", [])
    out = set()
    for t in targets:
        while isinstance(t, (gast.Subscript, gast.Attribute)):
            t = t.value
        if isinstance(t, gast.Name) and not (isinstance(s, gast.AugAssign) and t is s.target):
            out.add(t.id)
    return out


def _merged_item_adds(stmts):
    """``d[i] += a; ...; d[i] += b`` -> ``...; d[i] += a + b`` where nothing between
    touches ``d`` or rebinds or writes into ``i`` or ``a``: one read and write of the
    item, not two (a hand-written scalar loop adds its terms first)."""
    for block in _inner_blocks(stmts):
        _merged_item_adds(block)
    dropped = set()
    for k, s in enumerate(stmts):
        first = _item_add(s)
        if first is None or k in dropped:
            continue
        d, index, value = first
        frozen = loads(s.target.slice) | loads(value)
        for j in range(k + 1, len(stmts)):
            later = stmts[j]
            second = _item_add(later)
            if second is not None and second[:2] == (d, index) and j not in dropped:
                later.value = gast.BinOp(value, gast.Add(), later.value)
                dropped.add(k)
                break
            if isinstance(later, (gast.If, gast.For, gast.While)) or d in loads(later) \
                    or d in _rebinds(later) or frozen & (_rebinds(later) | _written_into(later)):
                break
    stmts[:] = [s for k, s in enumerate(stmts) if k not in dropped]


def dead_restores(backward, live_after):
    """The keys of the restores in ``backward`` (``sg_restore_key``, see ``record.py``) whose
    name nothing reads after them, on every path: the forward pass need not save
    what they would put back (``x_stack.append(x)`` holds an array per trip).
    ``live_after``: the names read after ``backward``. Prunes nothing."""
    dead, live_somewhere = set(), set()

    def visit(s, live):
        key = getattr(s, "sg_restore_key", None)
        if key is not None:
            (live_somewhere if s.targets[0].id in live else dead).add(key)
    _Liveness(frozenset(), visit).block(backward, set(live_after), True)
    return dead - live_somewhere


def cleanup(backward, adjoint_names, live_after):
    """Simplify ``backward`` (a statement list) in place; returns it."""
    adjoint_names = set(adjoint_names)
    peep = Peephole()
    backward[:] = [peep.visit(s) for s in backward]
    _Liveness(adjoint_names).block(backward, set(live_after), True)
    _Copies(backward, set(live_after)).block(backward)
    # Once copies are gone: constants, folded, until none is left to propagate.
    while _constant_adjoints(backward, adjoint_names):
        backward[:] = [peep.visit(s) for s in backward]
        _Liveness(adjoint_names).block(backward, set(live_after), True)
    _gathered(backward)
    _merged_item_adds(backward)
    backward[:] = _tidy(backward)
    return backward
