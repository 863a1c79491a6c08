"""What the forward pass records for the backward pass, and nothing more.

- Branches taken: ``cond = <test>`` before an ``if`` whose backward code is
  not empty.
- Trip counts: a counter for each loop whose backward code is not empty.
- Overwritten values the backward pass reads (the set ``needed``): in
  straight-line code a local copy (``x_prev = x``), inside loops a stack
  (``h_stack.append(h)``). Values never overwritten stay in their variables.

``instrument`` names the conditions and counters before the backward pass is
generated; ``Recorder.forward`` writes the forward code once ``needed`` is
known, and ``Recorder.fill`` replaces the backward pass's restore
placeholders with the matching pops, or drops them.

Before/after (``s`` is overwritten in a loop and its adjoint reads it)::

    for i in i_range:               for i in i_range:
        s_new = s + s_mul               s_new = s + s_mul
        s = s_new                       s_stack.append(s)
                                        s = s_new
    ...                             ...
    for i in reversed(i_range):     for i in reversed(i_range):
        <restore s>                     s = s_stack.pop()
"""
import copy

import gast

from ..ir import anno, templates as T
from ..ir.names import written_names


def instrument(body, namer):
    for s in body:
        if isinstance(s, gast.If):
            if not (len(s.body) == 1 and isinstance(s.body[0], gast.Break)):
                s.sg_cond = namer.fresh("cond")
            instrument(s.body, namer)
            instrument(s.orelse, namer)
        elif isinstance(s, (gast.For, gast.While)):
            base = s.target.id if isinstance(s, gast.For) else "while"
            s.sg_trips = namer.fresh(f"{base}_trips")
            if _replayable_range(s):
                # The backward pass walks the same range backwards: no trip
                # count (unless the loop can stop early), no stack of targets.
                s.sg_range = namer.fresh(f"{base}_range")
                s.sg_early_exit = any(isinstance(n, gast.Break) for n in T.walk(s))
            instrument(s.body, namer)


def _push(stack, value):
    """``stack.append(value)``, marked as a record (what a ``try`` body pushed before it
    raised is taken off again: passes/try_except.emit)."""
    push = T.stmt("s.append(v)", s=stack, v=value)
    push.sg_push = True
    return push


def _replayable_range(s):
    """``for i in range(...)`` whose body never rebinds ``i``."""
    it = s.iter if isinstance(s, gast.For) else None
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range"
            and not it.keywords):
        return False
    target = s.target.id
    return not any(isinstance(n, gast.Name) and n.id == target and isinstance(n.ctx, gast.Store)
                   for b in s.body for n in T.walk(b))


class Recorder:
    def __init__(self, namer, params, needed, used_records=None, preinit=(), watch_log=None,
                 dead=frozenset()):
        self.namer = namer
        # (list name, names): the forward appends the values of those names where they
        # are watched to that list (a tape learns what its block watched).
        self.watch_log = watch_log
        self.params = set(params)
        self.needed = needed
        self.used = used_records  # conds/counters the backward pass kept; None = all
        self.dead = dead  # keys of restores nothing reads after (cleanup.dead_restores)
        self.restores = {}
        self.stacks = []
        self.preinit = sorted(set(preinit) - self.params)
        self._names = {}

    def share_names(self, other):
        """Use the names ``other`` gave to saves and stacks (a second run of the same body)."""
        self._names = other._names

    def _name(self, key, base):
        if key not in self._names:
            self._names[key] = self.namer.fresh(base)
        return self._names[key]

    def _stack(self, name, suffix="stack"):
        stack = self._name(("stack", name, suffix), f"{name}_{suffix}")
        if stack not in self.stacks:
            self.stacks.append(stack)
        return stack

    def _keep(self, name):
        return self.used is None or name in self.used

    # -- forward -----------------------------------------------------------------
    def forward(self, body):
        self.possibly = set(self.params)
        self.definitely = set(self.params)
        code = self.block(body, in_loop=False)
        head = [T.assign(n, T.const(None)) for n in self.preinit]
        for a in head:
            a.sg_preinit = True  # not the user's: a tape block leaves such a name unbound
        head += [T.assign(s, gast.List([], gast.Load())) for s in self.stacks]
        return head + code

    def block(self, stmts, in_loop):
        out = []
        for s in stmts:
            out += self.stmt(s, in_loop)
        return out

    def _save(self, s, name, in_loop, how="rebind"):
        """Code saving ``name`` before ``s`` overwrites it; registers the restore."""
        key = (id(s), name, how)
        if name not in self.needed or key in self.dead:
            return []
        if in_loop:
            stack = self._stack(name)
            if name not in self.definitely and name not in self.preinit:
                self.preinit.append(name)
            self.restores[key] = [T.assign(name, T.expr("s.pop()", s=stack))]
            return [_push(stack, T.name(name))]
        if name not in self.possibly:
            return []
        if name not in self.definitely and name not in self.preinit:
            self.preinit.append(name)
        prev = self._name(key, f"{name}_prev")
        self.restores[key] = [T.assign(name, T.name(prev))]
        return [T.assign(prev, T.name(name))]

    def _define(self, names):
        self.possibly.update(names)
        self.definitely.update(names)

    def stmt(self, s, in_loop):
        kind = anno.kind(s)
        if kind == "watch":
            if self.watch_log is None or s.sg_watched not in self.watch_log[1]:
                return []  # a marker for the backward pass only
            # A tape run once: it learns what the block watched from the block.
            return [T.stmt("w.append(v)", w=self.watch_log[0], v=s.sg_watched)]
        if isinstance(s, gast.If):
            return self.if_stmt(s, in_loop)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, in_loop)
        out = []
        if kind == "setitem":
            base = s.targets[0].value.id
            if base in self.needed:
                index = s.targets[0].slice
                key = (id(s), base, "slot")
                target = gast.Subscript(T.name(base), index, gast.Store())
                # A string key is a dict's, which the write may add: saved as missing,
                # taken out again when restored.
                by_key = isinstance(index, gast.Constant) and isinstance(index.value, str) \
                    or getattr(s, "sg_by_key", False) and not isinstance(index, gast.Constant) \
                    and not any(isinstance(n, gast.Slice) for n in gast.walk(index))
                if by_key:
                    slot = T.expr("_sg.save_slot(a, i)", a=base, i=index)

                    def restore(v):
                        return T.stmt("_sg.restore_slot(a, i, v)", a=base, i=index, v=v)
                else:
                    slot = T.expr("_sg.copy_slot(a[i])", a=base, i=index)

                    def restore(v):
                        return T.assign(target, v)
                if in_loop:
                    stack = self._stack(base, "slots")
                    out.append(_push(stack, slot))
                    self.restores[key] = [restore(T.expr("s.pop()", s=stack))]
                else:
                    prev = self._name(key, f"{base}_slot")
                    out.append(T.assign(prev, slot))
                    self.restores[key] = [restore(T.name(prev))]
        elif kind == "append":
            lst = s.value.func.value.id
            if lst in self.needed:
                self.restores[(id(s), lst, "unappend")] = [T.stmt("a.pop()", a=lst)]
        elif kind == "pop":
            lst = s.value.func.value.id
            t = s.targets[0].id
            if lst in self.needed:
                self.restores[(id(s), lst, "unpop")] = [T.stmt("a.append(v)", a=lst, v=t)]
        names = written_names(s)
        for name in names:
            out += self._save(s, name, in_loop)
        self._define(names)
        return out + [s]

    def if_stmt(self, s, in_loop):
        cond = getattr(s, "sg_cond", None)
        before_p, before_d = set(self.possibly), set(self.definitely)
        body = self.block(s.body, in_loop)
        then_p, then_d = self.possibly, self.definitely
        self.possibly, self.definitely = set(before_p), set(before_d)
        orelse = self.block(s.orelse, in_loop)
        self.possibly |= then_p
        self.definitely &= then_d
        if cond is None or not self._keep(cond):
            return [anno.like(gast.If(s.test, body or [gast.Pass()], orelse), s)]
        record = anno.like(T.assign(cond, s.test), s)
        out = self._save(s, cond, in_loop)
        self._define([cond])
        return out + [record, anno.like(gast.If(T.name(cond), body or [gast.Pass()], orelse), s)]

    def loop(self, s, in_loop):
        trips = s.sg_trips
        keep = self._keep(trips)
        out = []
        if keep:
            init = T.assign(trips, T.const(0))
            out += self._save(s, trips, in_loop)
            out.append(init)
            self._define([trips])
        head = []
        node = anno.like(type(s)(**{f: getattr(s, f) for f in s._fields}), s)
        replay = getattr(s, "sg_range", None)
        if replay is not None and replay in self.needed:
            out += self._save(s, replay, in_loop)
            out.append(T.assign(replay, s.iter))
            self._define([replay])
            node.iter = T.name(replay)
        if isinstance(s, gast.For):
            target = s.target.id
            out += self._save(s, target, in_loop, how="rebind")
            # (its shape stand-in too, if it has one: ``lifetimes.loop_shapes``)
            out += self._save(s, f"{target}_like", in_loop, how="rebind")
            if target in self.needed and replay is None \
                    and (id(s), target, "target") not in self.dead:
                stack = self._stack(target)
                head.append(_push(stack, T.name(target)))
                self.restores[(id(s), target, "target")] = [T.assign(target, T.expr("s.pop()", s=stack))]
        if keep:
            head.insert(0, T.assign(trips, T.expr("t + 1", t=trips)))
        saved_d = set(self.definitely)
        if isinstance(s, gast.For):
            self._define([s.target.id])
        body = self.block(s.body, in_loop=True)
        self.definitely = saved_d
        node.body = head + body
        return out + [node]

    # -- backward placeholders ------------------------------------------------
    def fill(self, code):
        """Backward ``code`` with restore placeholders replaced and empty blocks dropped.

        Builds new lists and nodes: the same placeholder code is filled twice
        (see ``compiler/pipeline.py``), so it must not be changed in place.
        """
        out = []
        for c in code:
            marker = getattr(c, "sg_restore", None)
            if marker is not None:
                key = (id(marker.stmt), marker.name, marker.how)
                restores = T.clone(self.restores.get(key, []))
                where = anno.origin(marker.stmt)
                for r in restores:  # (an error in code differentiated again names the line)
                    if where is not None and anno.origin(r) is None:
                        anno.set_origin(r, where)
                    if isinstance(r, gast.Assign) and isinstance(r.targets[0], gast.Name):
                        r.sg_restore_key = key  # a name bound again: dropped if dead
                out += restores
                continue
            if isinstance(c, gast.If):
                body, orelse = self.fill(c.body), self.fill(c.orelse)
                if not _code(body) and not _code(orelse):
                    continue
                c = copy.copy(c)
                c.body, c.orelse = body or [gast.Pass()], orelse
            elif isinstance(c, gast.For):
                body = self.fill(c.body)
                if not _code(body):
                    continue
                c = copy.copy(c)
                c.body = body
            out.append(c)
        return _drop_dangling_comments(out)


def _code(stmts):
    return any(not getattr(c, "sg_comment", False) and not isinstance(c, gast.Pass) for c in stmts)


def _drop_dangling_comments(stmts):
    out = []
    for i, c in enumerate(stmts):
        if getattr(c, "sg_comment", False):
            nxt = stmts[i + 1] if i + 1 < len(stmts) else None
            if nxt is None or getattr(nxt, "sg_comment", False):
                continue
        out.append(c)
    return out
