"""Def-use chains over a normalized body, flow-sensitive, for ``sg.explain``.

The compiler's activity analysis follows names, not bindings: in ::

    h = x * w
    h = x * 2.0
    return np.sum(h)

``h`` reads ``w`` and the result reads ``h``, so ``w`` looks connected, yet its
gradient is zero. Here a *definition* is one binding of a name by one statement
(an argument's by the function's entry); it reaches the statements that no
rebinding on the way separates it from. Loops and branches join what may reach,
so a definition is dead only when every path rebinds it before any read.
"""
import gast

from .ir.names import loads, walk_stmts, written_names
from .passes import activity

ENTRY = "entry"  # the site of the arguments' definitions


class Flow:
    """``reaching[s]``: name -> the definitions ``(site, name)`` reaching statement ``s``;
    ``uses[d]``: the statements reading ``d``; ``carries[d]``: the definitions computed
    from ``d`` with a derivative; ``kills[d]``: the statements rebinding ``d``'s name
    where ``d`` reaches; ``exit``: the definitions the final ``return`` sees."""

    def __init__(self, body, params, stops):
        self.stops = stops
        self.reaching, self.kills = {}, {}
        self.uses, self.carries = {}, {}
        state = {p: {(ENTRY, p)} for p in params}
        self.exit = self._block(body, state)
        for s, here in self.reaching.items():
            reads, carried, binds = effects(s, stops)
            for n in reads:
                for d in here.get(n, ()):
                    self.uses.setdefault(d, []).append(s)
                    if n in carried:
                        self.carries.setdefault(d, []).extend((s, w) for w in binds)
        self.order = {s: i for i, s in enumerate(walk_stmts(body))}
        self.order[ENTRY] = -1

    def derived(self, name):
        """The definitions computed from the argument ``name`` with a derivative."""
        return _closure([(ENTRY, name)], self.carries)

    def feeding(self, defs):
        """The definitions ``defs`` are computed from with a derivative (``defs`` too)."""
        back = {}
        for d, outs in self.carries.items():
            for e in outs:
                back.setdefault(e, []).append(d)
        return _closure(defs, back)

    def dead(self, defs):
        """Of ``defs``, those rebound on every path before anything reads them, in order."""
        return sorted((d for d in defs if not self.uses.get(d) and self.kills.get(d)
                       and d not in self.exit.get(d[1], ())), key=lambda d: self.order[d[0]])

    def _block(self, stmts, state):
        for s in stmts:
            state = self._stmt(s, state)
        return state

    def _stmt(self, s, state):
        if isinstance(s, gast.If):
            self._see(s, state)
            return _join(self._block(s.body, dict(state)), self._block(s.orelse, dict(state)))
        if isinstance(s, (gast.For, gast.While)):
            head = state
            while True:  # to the fixpoint: what one iteration binds, the next may read
                self._see(s, head)
                inner = self._bind(s, head, effects(s, self.stops)[2])
                end = self._block(s.body, inner)
                new = _join(state, end)
                if new == head:
                    break
                head = new
            # (A desugared ``break`` is last in the body: it leaves with the body's end state.)
            return self._block(s.orelse, end if _runs(s) else head)
        self._see(s, state)
        return self._bind(s, state, effects(s, self.stops)[2])

    def _see(self, s, state):
        self.reaching[s] = {n: set(ds) for n, ds in state.items()}

    def _bind(self, s, state, binds):
        state = dict(state)
        for n in binds:
            for d in state.get(n, ()):
                self.kills.setdefault(d, set()).add(s)
            state[n] = {(s, n)}
        return state


def _closure(start, edges):
    out, todo = set(), list(start)
    while todo:
        d = todo.pop()
        if d not in out:
            out.add(d)
            todo.extend(edges.get(d, ()))
    return out


def _join(a, b):
    return {n: a.get(n, set()) | b.get(n, set()) for n in a.keys() | b.keys()}


def effects(s, stops=lambda s: False):
    """(names ``s`` reads, those of them whose derivative flows into what it binds,
    names it binds). A compound statement reads its test or iterable (a ``for``
    binds its target); ``stops(s)``: ``s`` gives no derivative (an integer cast)."""
    if isinstance(s, (gast.If, gast.While)):
        return loads(s.test), set(), []
    if isinstance(s, gast.For):
        return loads(s.iter), set(), [n for n in _names(s.target)]
    if isinstance(s, gast.Return):
        value = s.value
        return (loads(value) if value is not None else set(),
                {value.id} if isinstance(value, gast.Name) else set(), [])
    writes, carried = activity.flow(s)
    reads = loads(s)
    if fills(s):
        # ``a[:] = v`` replaces all of ``a``: what ``a`` held before is not read.
        base = s.targets[0].value.id
        reads = loads(s.value) | loads(s.targets[0].slice)
        carried = carried - {base} if base not in reads else carried
    # (A rule may read what its statement does not spell: ``np.einsum``'s operand list.)
    reads = reads | carried
    binds = list(writes) + [n for n in written_names(s) if n not in writes]
    return reads, set() if stops(s) else carried, binds


def _runs(loop):
    """Does ``loop`` surely run its body once (``range(3)``, ``while True``)? Else the
    definitions before it may pass it untouched."""
    if isinstance(loop, gast.While):
        return isinstance(loop.test, gast.Constant) and bool(loop.test.value)
    it = loop.iter
    if isinstance(it, (gast.Tuple, gast.List)):
        return bool(it.elts) and not any(isinstance(e, gast.Starred) for e in it.elts)
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" \
            and not it.keywords and all(isinstance(a, gast.Constant) and type(a.value) is int
                                        for a in it.args):
        try:
            return len(range(*(a.value for a in it.args))) > 0
        except (TypeError, ValueError):
            return False
    return False


def fills(s):
    """``a[:] = v``, ``a[...] = v``, ``a[:, :] = v``: a write of every element of ``a``."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Subscript)
            and isinstance(s.targets[0].value, gast.Name)):
        return False
    index = s.targets[0].slice
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return bool(parts) and all(
        isinstance(p, gast.Slice) and p.lower is None and p.upper is None and p.step is None
        or isinstance(p, gast.Constant) and p.value is Ellipsis for p in parts)


def _names(target):
    return [n.id for n in gast.walk(target) if isinstance(n, gast.Name)]
