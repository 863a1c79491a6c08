"""In-place updates of arrays no other name can reach, found flow by flow.

``aliasing.shared_names`` is flow-insensitive: ``a = x`` anywhere makes every
in-place update of ``a`` suspect, even one after ``a = x * 2.0`` rebound it to
a new array. This analysis follows the statements in order and proves, for an
in-place update (``a += v``, ``a[i] = v``), that ``a`` holds a *private*
object: one made by an expression that always returns a new object (an
arithmetic result, a ufunc's, a copy), not since handed to anything that may
keep it (another name, a container, a view, a call that is not known to copy,
a loop over it, a nested function). Then updating it in place and rebinding
it are the same, and the update needs no refusal or run-time check. A private
object may have several names (``b = a``): NumPy's update reaches them all, so
the compiler binds the others to the result after it (``normalizer``).

A must-analysis: at a join (after ``if``/``else``, at a loop's head) an object
is private only under the same names on every path; unknown statements forget
everything.
"""
import gast
import numpy as np

from .. import runtime as rt
from ..rules import table
from . import templates as T
from .aliasing import bound_only_to, einsum_may_view, identity_call, last_reads
from .names import is_item_check, name_ids, own_nodes, walk_stmts
from .resolve import MISSING
from .scopes import free_names

# Functions whose result is always a new array (or a new scalar), never an operand
# or a view of one, and that keep no reference to their operands.
_FRESH_FUNCTIONS = frozenset({
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var,
    np.dot, np.matmul, np.outer, np.inner, np.tensordot, np.where, np.concatenate,
    np.stack, np.vstack, np.hstack, np.clip, np.ones, np.zeros, np.full, np.empty,
    np.ones_like, np.zeros_like, np.full_like, np.empty_like, np.array, np.copy,
    np.arange, np.linspace, np.eye, np.identity, np.cumsum, np.cumprod, np.sort, np.tile,
    np.repeat, np.kron, np.cross, np.trace, np.linalg.inv, np.linalg.solve,
    np.linalg.det, np.linalg.norm,
    list,  # (a new list, whatever it is given: its items exposed, as a display's)
})
# Methods with the same property (on arrays; the receiver is not kept either).
_FRESH_METHODS = frozenset({"copy", "sum", "mean", "prod", "max", "min", "std", "var", "dot",
                            "astype", "cumsum", "cumprod", "trace"})
# srcgrad's own checks of a container's layout (``_sg.check_count(args, 2, ...)``): they
# return None and keep no reference.
_CHECKS = (rt.check_count, rt.check_unpack, rt.check_zip, rt.check_item_read, rt.check_has_key,
           rt.check_arrays_added)
# Attributes that are not the array (``a.shape``), so reading them keeps nothing of it.
_NOT_THE_ARRAY = frozenset({"shape", "ndim", "size", "dtype"})


def private_updates(body, scope, last=None):
    """The in-place statements of ``body`` (``sg_inplace`` assignments to a name, stores
    into ``name[...]``) whose array nothing but names can reach: id -> the other names
    of that array (``b = a`` before ``a += v``), which NumPy's update reaches too."""
    found = {}
    last = last_reads(body) if last is None else last
    flow = _Flow(scope, found, _moving_tuples(body, last))
    stores = {}
    for s in walk_stmts(body):
        for n in T.walk(s):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
    flow.bound_once = {s.targets[0].id: s.value for s in walk_stmts(body)
                       if isinstance(s, gast.Assign) and len(s.targets) == 1
                       and isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1}
    flow.loads = _load_counts(body)
    flow.last_reads = last
    flow.sequences = _sequence_names(body, scope)
    flow.block(body, _State())
    return found


def _sequence_names(body, scope):
    """Names every binding of which is a new list or tuple (a display, a comprehension,
    ``list(...)``, ``tuple(...)``): reading their items keeps nothing of them."""
    def new_sequence(v):
        if isinstance(v, (gast.List, gast.Tuple, gast.ListComp)):
            return True
        return isinstance(v, gast.Call) and len(v.args) <= 1 and not v.keywords \
            and any(scope.value(v.func) is t for t in (list, tuple))
    return frozenset(bound_only_to(body, new_sequence))


def _load_counts(node):
    counts = {}
    for n in T.walk(node) if not isinstance(node, list) else (m for t in node for m in T.walk(t)):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _moving_tuples(body, last):
    """Names bound once to a tuple display of names read nowhere else (or nowhere after
    it: ``last``, ``aliasing.last_reads``), and read only item by item (``t[0]``,
    ``t[1]``: each item once) or unpacked once: what a helper's ``return a, b`` becomes
    when inlined. Its items move through it unshared."""
    loads, stores, displays = {}, {}, {}
    indices = {}   # name -> the constant indices of its item reads (``t[0]``)
    unpacked = {}  # name -> how many assignments unpack it (``a, b = t``)
    for s in walk_stmts(body):
        # (A loop's or branch's own nodes: its body's statements come on their own.)
        for n in T.walk(s) if isinstance(s, gast.FunctionDef) else own_nodes(s):
            if isinstance(n, gast.Name):
                table = loads if isinstance(n.ctx, gast.Load) else stores
                table[n.id] = table.get(n.id, 0) + 1
            elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and isinstance(n.slice, gast.Constant) and isinstance(n.slice.value, int):
                indices.setdefault(n.value.id, []).append(n.slice.value)
            elif isinstance(n, gast.Assign) and isinstance(n.value, gast.Name):
                unpacked[n.value.id] = unpacked.get(n.value.id, 0) + 1
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Tuple) \
                and all(isinstance(e, gast.Name) for e in s.value.elts):
            displays[s.targets[0].id] = ([e.id for e in s.value.elts], last.get(id(s), ()))
    out = {}
    for name, (items, moved) in displays.items():
        if stores.get(name, 0) != 1 or len(set(items)) != len(items) \
                or any(loads.get(i, 0) != 1 and i not in moved for i in items):
            continue
        reads, at = loads.get(name, 0), indices.get(name, [])
        if len(at) == reads and len(set(at)) == len(at) \
                or reads == 1 and unpacked.get(name, 0) == 1:
            out[name] = items
    return out


class _State:
    """Private objects, each as the class of names bound to it (``b = a`` of a private
    ``a``: one object under two names, nothing else holding it)."""

    __slots__ = ("classes", "_names")

    def __init__(self, classes=frozenset()):
        self.classes = frozenset(classes)
        self._names = None

    def names(self):
        """Every name of a private object (one set, made on first use: a state per
        statement is asked about a few names, and a block may hold thousands)."""
        if self._names is None:
            self._names = frozenset().union(*self.classes)
        return self._names

    def __contains__(self, name):
        return name in self.names()

    def __eq__(self, other):
        return self.classes == other.classes

    def __hash__(self):
        return hash(self.classes)

    def __and__(self, other):
        """At a join: an object is private after it only under the same names on both
        paths (a name bound to it on one path holds it there too)."""
        return _State(self.classes & other.classes)

    def __len__(self):
        return len(self.classes)

    def names_with(self, name):
        return next((k for k in self.classes if name in k), frozenset())

    def exposed(self, names):
        """The objects of ``names`` handed to something that may keep them: not private."""
        names = set(names)
        if names.isdisjoint(self.names()):
            return self
        return _State(k for k in self.classes if k.isdisjoint(names))

    def unbound(self, names):
        """``names`` rebound: the objects they held lose them."""
        names = set(names)
        if not names or names.isdisjoint(self.names()):
            return self  # (the usual meet outside loops, and a name bound the first time)
        held = [k for k in self.classes if not k.isdisjoint(names)]
        if not held:
            return self
        return _State((self.classes - set(held)) | {k - names for k in held if k - names})

    def fresh(self, name):
        return _State(self.unbound([name]).classes | {frozenset([name])})

    def moved(self, pairs):
        """``u, v = v, u`` (``pairs``: each target name with the name it is bound to,
        all at once): each target joins the names of its source's object as it was
        before the statement."""
        targets = {t for t, _ in pairs}
        joining = {}
        for t, source in pairs:
            k = self.names_with(source)
            if k:
                joining.setdefault(k, set()).add(t)
        classes = [(k - targets) | joining.get(k, set()) for k in self.classes]
        return _State(frozenset(k) for k in classes if k)

    def copied(self, target, source):
        """``target = source``: one more name for ``source``'s object, if private."""
        state = self.unbound([target])
        k = state.names_with(source)
        if not k:
            return state
        return _State((state.classes - {k}) | {k | {target}})


class _Flow:
    """``block`` and ``stmt`` return (the state after, the intersection of every state
    on the way, nested blocks' included: a loop's next trip or a ``break`` may start
    from any of them)."""

    def __init__(self, scope, found, moving):
        self.scope = scope
        self.found = found
        self.moving = moving  # tuples their items move through (``_moving_tuples``)
        self.private_items = {}  # moving tuple -> which of its items were private
        self.last_reads = {}  # id of an assignment -> names nothing reads after it
        self.bound_once = {}  # name -> its value, for names bound by one assignment
        self.sequences = frozenset()  # names only ever bound to new lists or tuples
        self.deciding = True  # off while a loop's head state is not known yet
        self.dead = frozenset()  # names the loop evaluated holds nothing in at a trip's end
        self._dead_at = {}  # id of a loop -> its dead names (nested loops run again)
        # A loop evaluated again from the same state while nothing is decided (an inner
        # loop, once per trip of each loop around it's fixpoint: 3**depth times) gives
        # what it gave: (id, state, dead) -> (after, common, its writes of private_items).
        self._loops_seen = {}
        self._writing = []  # the write logs of the loops being evaluated

    def block(self, stmts, private):
        common = private
        for s in stmts:
            private, within = self.stmt(s, private)
            common = self.meet(self.meet(common, within), private)
        return private, common

    def meet(self, a, b):
        """``a & b`` for what a loop's head may start from: without the names the loop
        being evaluated holds nothing in at a trip's end (``dead_at_head``)."""
        return a.unbound(self.dead) & b.unbound(self.dead)

    def stmt(self, s, private):
        if isinstance(s, gast.If):
            head = private.exposed(self.exposed(s.test, True))
            after, common = self.block(s.body, head)
            other, common_else = self.block(s.orelse, head)
            return after & other, self.meet(self.meet(head, common), common_else)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, private)
        if isinstance(s, gast.Assign):
            after = self.assign(s, private)
        elif isinstance(s, (gast.Pass, gast.Break, gast.Continue)) or is_item_check(s):
            after = private
        elif isinstance(s, (gast.Expr, gast.Return)):
            after = private.exposed(self.exposed(s.value, False))
        elif isinstance(s, gast.FunctionDef) and not any(
                isinstance(n, (gast.Global, gast.Nonlocal)) for n in T.walk(s)):
            # (A nested def keeps the variables it reads, to read when it is called: those
            # are no longer private; the rest are, as a helper at module level leaves them.)
            after = private.exposed(free_names(s)).unbound([s.name])
        else:
            after = _State()  # anything else: nothing is known to be private after it
        return after, self.meet(private, after)

    def loop(self, s, private):
        """The body runs from the loop's head state: what is private on entry and at
        every point of the body (the next trip starts from any of them)."""
        if self.deciding:
            return self._loop(s, private)
        key = (id(s), private, self.dead)
        if key in self._loops_seen:
            after, common, writes = self._loops_seen[key]
            for name, items in writes:
                self.private_items[name] = items
                for log in self._writing:
                    log.append((name, items))
            return after, common
        self._writing.append([])
        try:
            after, common = self._loop(s, private)
        finally:
            writes = self._writing.pop()
        for log in self._writing:
            log.extend(writes)
        self._loops_seen[key] = (after, common, writes)
        return after, common

    def _loop(self, s, private):
        def at_head(state):
            if isinstance(s, gast.For):
                return state.unbound(name_ids(s.target))
            return state.exposed(self.exposed(s.test, True))

        # (Only this loop's: an outer loop's are live on each trip of this one.)
        outer = self.dead
        self.dead = dead = self.dead_at_head(s)
        head = at_head(private.exposed(self.exposed(s.iter, False)) if isinstance(s, gast.For)
                       else private).unbound(dead)
        deciding, self.deciding = self.deciding, False
        for _ in range(2 * len(head) + 2):  # the state only shrinks: a fixpoint soon
            _, common = self.block(s.body, head)
            narrower = at_head(head & common).unbound(dead)
            if narrower == head:
                break
            head = narrower
        self.deciding = deciding
        _, common = self.block(s.body, head)  # the decisions inside, from that state
        self.dead = outer
        after, common_else = self.block(s.orelse, head)
        return after, self.meet(self.meet(self.meet(private, head), common), common_else)

    def dead_at_head(self, s):
        """Names no trip of loop ``s`` reads before binding them anew, and nothing reads
        after it (an inlined helper's parameter, ``rhs_x = x`` in ``x += dt * rhs(x)``):
        what they held at a trip's end is never read, so they hold nothing at its head
        (an update of ``x`` there need not reach them)."""
        if id(s) not in self._dead_at:
            self._dead_at[id(s)] = self._dead_names(s)
        return self._dead_at[id(s)]

    def _dead_names(self, s):
        inside = _load_counts(s)
        test = s.test if isinstance(s, gast.While) else s.iter
        dead = set()
        seen = {n.id for n in T.walk(test) if isinstance(n, gast.Name)}
        for t in s.body:
            mentioned = {n.id for n in T.walk(t) if isinstance(n, gast.Name)}
            if isinstance(t, gast.Assign) and len(t.targets) == 1 \
                    and isinstance(t.targets[0], gast.Name):
                name = t.targets[0].id
                if name not in seen and name not in _load_counts(t.value) \
                        and inside.get(name, 0) == self.loads.get(name, 0):
                    dead.add(name)
            seen |= mentioned
        return frozenset(dead)

    def moved_item(self, value, private):
        """Is ``value`` ``t[k]`` of a moving tuple ``t`` whose item ``k`` was private?"""
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                and isinstance(value.slice, gast.Constant) and isinstance(value.slice.value, int):
            items = self.private_items.get(value.value.id) \
                if value.value.id in self.moving and value.value.id in private else None
            k = value.slice.value
            return items is not None and -len(items) <= k < len(items) and items[k]
        return False

    def decide(self, s, name, private):
        """``s`` updates ``name``'s private object: the other names of it are rebound to
        the result after ``s`` (NumPy's update reaches them)."""
        if self.deciding:
            self.found[id(s)] = tuple(sorted(private.names_with(name) - {name}))

    def assign(self, s, private):
        (target,) = s.targets if len(s.targets) == 1 else (None,)
        inplace = getattr(s, "sg_inplace", False)
        if isinstance(target, gast.Name) and inplace:
            if target.id not in private:  # (still the array others may hold)
                return private.exposed(self.exposed(s.value.right, True)).unbound([target.id])
            self.decide(s, target.id, private)  # ``a += v``: ``a = a + v`` exactly
            return private.exposed(self.exposed(s.value.right, True))
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            base = target.value.id
            held = self.exposed(s.value, False)
            if isinstance(s.value, gast.Subscript) and isinstance(s.value.value, gast.Name) \
                    and s.value.value.id == base:
                # ``new[0] = new[1]``: the item's values are copied into the array (a list
                # holds the item, not itself), the view is not kept (hunt 6: the double
                # buffer of a PDE step was refused).
                held = held - {base}
            reads = self.exposed(target.slice, True) | held
            # (``a[i] += v`` of a list updates an item others may hold: the normalizer
            # checks when it runs that ``a`` is an array.) A write into an array under
            # other names too is not taken: the backward code restores the slot under
            # the name written, and reads the array under the others.
            if base in private and base not in reads and len(private.names_with(base)) == 1:
                self.decide(s, base, private)  # a write into a private array
            return private.exposed(reads)
        if identity_call(s.value, self.scope):
            # ``y = _sg.stop_gradient(y)`` (a stop_recording block's): ``y`` itself
            s = gast.Assign(s.targets, s.value.args[0])
        moved = self.moved_item(s.value, private)
        if isinstance(target, gast.Name) and isinstance(s.value, gast.Tuple) \
                and target.id in self.moving:
            # (an item is private if its object has no other name: it moves out alone)
            items = [len(private.names_with(e.id)) == 1 for e in s.value.elts]
            self.private_items[target.id] = items
            for log in self._writing:
                log.append((target.id, items))
        if isinstance(target, gast.Name) and isinstance(s.value, gast.Name):
            after = private.copied(target.id, s.value.id)
            # (read nowhere after: moved, ``x_new = x.copy(); x = x_new``, one name again)
            moved = self.loads.get(s.value.id) == 1 \
                or s.value.id in self.last_reads.get(id(s), ())
            return after.unbound([s.value.id]) if moved else after
        if isinstance(target, gast.Name) and getattr(s, "sg_item_unshared", False) \
                and not moved:
            # ``t = x[i]`` checked when it runs not to be a view of ``x``, or read only
            # before ``x`` is written into (ir/aliasing.py, ``_item_reads``): ``x`` stays
            # private; ``t`` may be a container's item.
            return private.exposed(self.exposed(s.value.slice, True)).unbound([target.id])
        if not moved and _names_moved(name_ids(target) if isinstance(target, (
                gast.Tuple, gast.List)) else (), s.value) is None:
            # (an item moving out leaves the tuple's other items as they were; names
            # bound to names at once, ``u, v = v, u``, hand their objects on)
            private = private.exposed(self.exposed(s.value, False))
        if isinstance(target, gast.Name):
            fresh = self.fresh(s.value) or moved
            return private.fresh(target.id) if fresh else private.unbound([target.id])
        if isinstance(target, (gast.Tuple, gast.List)) \
                and all(isinstance(t, gast.Name) for t in target.elts):
            names = [t.id for t in target.elts]
            swapped = _names_moved(names, s.value)
            if swapped is not None:
                return private.moved(swapped)
            fresh = None
            if isinstance(s.value, (gast.Tuple, gast.List)) and len(names) == len(s.value.elts):
                fresh = {n for n, v in zip(names, s.value.elts) if self.fresh(v)}
            elif isinstance(s.value, gast.Name) and s.value.id in self.moving \
                    and len(names) == len(self.moving[s.value.id]):
                fresh = {n for n, k in zip(names, self.private_items.get(s.value.id, ())) if k}
            if fresh is not None and len(set(names)) == len(names):
                private = private.unbound(names)
                for n in sorted(fresh):
                    private = private.fresh(n)
                return private
        return private.unbound(set().union(*(name_ids(t) for t in s.targets))).exposed(
            set().union(*(self.exposed(t, True) for t in s.targets)))

    def fresh(self, value):
        """Does ``value`` always evaluate to a new object nothing else holds?"""
        if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        if isinstance(value, gast.Subscript) and self.fancy(value.slice):
            return True  # advanced indexing copies
        if isinstance(value, (gast.Constant, gast.Tuple, gast.List, gast.Dict)):
            return True  # (a new container; what it holds is exposed, not private)
        if isinstance(value, gast.Call) and not _copies_optional(value):
            f = value.func
            fn = self.scope.value(f)
            if isinstance(f, gast.Attribute) and f.attr in _FRESH_METHODS and (
                    fn is MISSING or isinstance(getattr(fn, "__self__", None), np.ndarray)):
                # a method of the value (an array's; one known when compiling in a tape's
                # block, ``x.copy()`` of a watched array): not a module's function
                return True
            if isinstance(fn, np.ufunc):
                return len(value.args) <= fn.nin
            try:
                return fn in _FRESH_FUNCTIONS
            except TypeError:
                return False
        return False

    def keeps_nothing(self, call):
        """A primitive with a rule that is not a view (``_sg.copy_slot(a[0])``): its
        result holds nothing of its operands (no ``out=``)."""
        fn = self.scope.value(call.func)
        if any(fn is check for check in _CHECKS):
            return True
        try:
            found = table.rule(fn)
        except TypeError:
            return False
        if getattr(fn, "__name__", None) == "einsum" and einsum_may_view(call):
            return False  # (``np.einsum('ii->i', a)``: a view of ``a``)
        return found is not None and not found.view and not _copies_optional(call)

    def fancy(self, index):
        """Is ``index`` certainly an advanced index (the result a copy): a list display,
        a comparison (a mask), ``np.array([...])``, or a tuple holding one?"""
        if isinstance(index, gast.Tuple):
            return any(self.fancy(e) for e in index.elts)
        if isinstance(index, (gast.List, gast.Compare)):
            return True
        if isinstance(index, gast.Name):  # bound once to one (how indices are normalized)
            value = self.bound_once.get(index.id)
            return value is not None and not isinstance(value, gast.Name) and self.fancy(value)
        return isinstance(index, gast.Call) and self.scope.value(index.func) is np.array \
            and len(index.args) == 1 and isinstance(index.args[0], gast.List)

    def exposed(self, node, safe):
        """Names whose object evaluating ``node`` may leave reachable from elsewhere
        (``safe``: the value of ``node`` itself is not kept, only computed with)."""
        if node is None:
            return set()
        if isinstance(node, gast.Name):
            return set() if safe else {node.id}
        if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return set().union(*(self.exposed(c, True) for c in gast.iter_child_nodes(node)))
        if isinstance(node, (gast.IfExp, gast.BoolOp)):
            parts = [node.body, node.orelse] if isinstance(node, gast.IfExp) else node.values
            test = self.exposed(node.test, True) if isinstance(node, gast.IfExp) else set()
            return test.union(*(self.exposed(p, safe) for p in parts))
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in self.sequences:
            # An item of a list (or a new list of its items) keeps nothing of the list:
            # ``a[1] = f(a[1])`` replaces the item; the item itself is not private.
            return self.exposed(node.slice, True)
        if isinstance(node, gast.Subscript):  # a view keeps its base (a copy does not)
            return self.exposed(node.value, safe or self.fancy(node.slice)) \
                | self.exposed(node.slice, True)
        if isinstance(node, gast.Attribute):
            return self.exposed(node.value, safe or node.attr in _NOT_THE_ARRAY)
        if isinstance(node, gast.Call):
            keeps = not (self.fresh(node) or self.keeps_nothing(node))
            out = self.exposed(node.func, not keeps) if isinstance(node.func, gast.Attribute) \
                else set()
            for a in list(node.args) + [k.value for k in node.keywords]:
                out |= self.exposed(a, not keeps)
            return out
        if isinstance(node, (gast.Slice, gast.Constant)):
            return set().union(*(self.exposed(c, True) for c in gast.iter_child_nodes(node)))
        # Containers, comprehensions, lambdas, starred...: whatever they name may be kept.
        return {n.id for n in T.walk(node) if isinstance(n, gast.Name)}


def _names_moved(targets, value):
    """``[(target, source)]`` for ``a, b = b, a`` (distinct target names bound to a
    display of names), or None."""
    targets = list(targets)
    if not (isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(targets)
            and len(set(targets)) == len(targets) == len(value.elts) > 0
            and all(isinstance(e, gast.Name) for e in value.elts)):
        return None
    return [(t, e.id) for t, e in zip(targets, value.elts)]


def _copies_optional(call):
    """``out=`` or ``copy=`` given: the result may be an operand."""
    return any(k.arg in ("out", "copy") for k in call.keywords)

