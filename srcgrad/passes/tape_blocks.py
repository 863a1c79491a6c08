"""The statements of a block a GradientTape recorded, in the compiler's language.

``tape.watch(x)`` becomes a marker where the backward pass reports x's
adjoint, ``stop_recording()`` blocks keep their statements with their values
cut off, and a nested tape's ``inner.gradient(y, x)`` becomes a call to the
inner block's own adjoint code (compiled by the ``compile_inner`` callback,
the pipeline's ``compile_region``), which the compiler inlines and so
differentiates again: nested tapes give higher derivatives.

Before (a block at line 3)::

    tape.watch(x)
    with tape.stop_recording():
        c = x * 2.0
    y = x * x

After::

    _sg_watch(x)
    c = _sg.stop_gradient(x * 2.0)
    y = x * x
"""
import builtins
import copy
import inspect
import types

import gast

from ..ir import anno, templates as T
from ..ir.names import scope_nodes, walk_stmts
from ..ir.scopes import free_names
from . import as_written, contexts, try_except


def _check_watches_in_loop(loop, tape_name, region):
    """``for v in xs: tape.watch(v)``: each trip watches another value under one name,
    which a marker (reporting the name's adjoint) cannot tell apart: refused."""
    bound = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)}
    for s in walk_stmts(loop.body):
        if is_tape_call(s, tape_name, "watch") and s.value.args and any(
                isinstance(n, gast.Name) and n.id in bound for n in gast.walk(s.value.args[0])):
            arg = gast.unparse(s.value.args[0]).strip()
            raise region.error(
                f"`{tape_name}.watch({arg})` inside a loop that binds `{arg}` anew each trip "
                "is not supported: srcgrad watches a variable, not each value it holds",
                s, "watch the whole list before the loop (`tape.watch(xs)`), and ask for "
                "the gradients with respect to it")


def watch_marker(node, region, known=None, rebound=(), namer=None, copies=None):
    """``tape.watch(x)`` becomes markers: the backward pass reports x's adjoint there.

    A list, tuple or dict literal watches each item; a variable holding a
    container watches the container and each variable holding one of its items.
    Watching is by identity, as TensorFlow matches tensors: another variable
    holding the very array (``w = x`` before the block) is watched with it.
    ``known``: the block's inputs and their values at entry; ``rebound``: names
    the block has bound before this statement (their entry values are gone).

    ``tape.watch(model.w)`` (an attribute or constant-item chain) among the
    statements the block starts with is watched from its first line, with every
    read of the value from where it is stored (``compiler/watched_reads.py``):
    it becomes such a read (``namer``: names it).
    """
    arg = node.value.args[0] if node.value.args else None
    names, reads = [], []

    def collect(expr):
        if isinstance(expr, (gast.List, gast.Tuple)):
            for e in expr.elts:
                collect(e)
        elif isinstance(expr, gast.Dict):
            for e in expr.values:
                collect(e)
        elif isinstance(expr, gast.Name):
            names.append(expr.id)
        elif watch_chain(expr) is not None and namer is not None \
                and _leading(node, region):
            reads.append(expr)
        else:
            raise region.error("tape.watch() of an expression is not supported here; watch a "
                               "variable, or an attribute or item (`tape.watch(model.w)`) on "
                               "the block's first lines", node, "assign the value to a name "
                               "first, or move the watch to the start of the block")

    collect(arg)
    for name in list(names):
        # (``alias = x`` earlier in the block: watching one watches the other, the uses of
        # each after the watch counted once, under its own name)
        root = (copies or {}).get(name, name)
        names += [n for n in [root] + [a for a, b in (copies or {}).items() if b == root]
                  if n not in names]
    chained = [gast.copy_location(T.assign(namer.fresh(f"watched_{_short_chain(e)}"), e), node)
               for e in reads]
    known = {n: v for n, v in (known or {}).items() if n not in rebound}
    for e in reads:
        # (``tape.watch(m.w)`` where the block reads ``ww = m.w`` bound before it: the
        # same array, watched under that name too. A chain read nowhere gives a sentinel
        # no name holds.)
        from ..compiler.watched_reads import Locator  # (which imports this module)

        # (from a global too: ``tape.watch(store["a"])`` with ``x = store["a"]`` before)
        root = watch_chain(e)[0]
        held = Locator(*watch_chain(e), param=True)(
            known if root in known else {root: region.globals.get(root)})
        if held is not None and type(held) not in PYTHON_NUMBERS:
            names += [n for n, v in known.items() if v is held and n not in names]
    for name in list(names):
        if name not in known:
            continue
        value = known[name]
        items = value.values() if isinstance(value, dict) else value \
            if isinstance(value, (list, tuple)) else ()
        # (Not a Python number: equal ones are often one object, CPython sharing a code
        # object's equal constants; ``K = 1.0; T = 1.0`` are two values.)
        names += [n for n, v in known.items()
                  if type(v) not in PYTHON_NUMBERS and n not in names
                  and (v is value or any(v is item for item in items))]
        # ... which cannot tell another name for a watched Python number (``x = w``)
        # from an equal constant: refused rather than guessed.
        same = [n for n, v in known.items() if type(v) in PYTHON_NUMBERS and n != name
                and n not in names and (v is value or any(v is item for item in items))]
        if same:
            raise region.error(
                f"`{same[0]}` holds the very Python number the GradientTape watches as "
                f"`{name}`: srcgrad cannot tell another name for the watched value "
                f"(`{same[0]} = {name}`) from an equal constant (CPython shares equal "
                "constants: `K = 1.0; T = 1.0` are one object)", node,
                f"watch a NumPy scalar or an array (`{name} = np.float64({name})` before "
                "the block, and the other name bound to it after)")
    markers = []
    for name in dict.fromkeys(names):
        marker = gast.Expr(gast.Call(T.name("_sg_watch"), [T.name(name)], []))
        gast.copy_location(marker, node)
        markers.append(anno.set_kind(marker, "watch", watched=name))
    return chained + markers


PYTHON_NUMBERS = frozenset({float, int, complex, bool})



def leading_watches(statements, tape_name):
    """The ``tape.watch(...)`` statements a block starts with: what they watch is watched
    from its first line (also where it is read from objects and containers)."""
    out = []
    for s in statements:
        if not is_tape_call(s, tape_name, "watch"):
            break
        out.append(s)
    return out


def watches_first(statements, tape_name):
    """``statements`` with the watches among the plain reads a block starts with moved to
    its first line, the names those reads bound read as what they were bound to:
    ``ws = [a, b]; tape.watch(ws)`` watches ``a`` and ``b``, ``alias = x;
    tape.watch(alias)`` ``x``, ``W = p["W"]; tape.watch(W)`` ``p["W"]`` (and its reads
    elsewhere: ``watched_reads``). TensorFlow watches the very tensors, and no operation it
    could record runs before those watches. The same list where there is nothing to move."""
    bound, watches, reads = {}, [], []
    for k, s in enumerate(statements):
        if is_tape_call(s, tape_name, "watch"):
            if not s.value.args or not _names_in(s.value.args[0], bound):
                watches.append(s)
                continue
            moved = copy.copy(s)
            moved.value = copy.copy(s.value)
            moved.value.args = [_read_as_bound(s.value.args[0], bound)] + s.value.args[1:]
            # (kept where it was too, in case a chain read there gives a new value each
            # time, a property's: the name's watch then, ``Prepare.stmt``)
            moved.sg_as_written, fallback = s, copy.copy(s)
            fallback.sg_fallback_of = moved
            watches.append(moved)
            reads.append(fallback)
            continue
        pairs = _plain_reads(s)
        if pairs is None:
            break
        bound.update({n: _read_as_bound(v, bound) for n, v in pairs})
        reads.append(s)
    else:
        k = len(statements)
    rest = _nested_watches_read_as_bound(list(statements[k:]), bound)
    if not reads or len(watches) == len(leading_watches(statements, tape_name)) \
            and not any(_names_in(w.value.args[0], bound) for w in watches if w.value.args):
        return statements if all(a is b for a, b in zip(rest, statements[k:])) \
            else list(statements[:k]) + rest
    # (At the first statement's place: the block is skipped from its first line on, where
    # its compiled code ran in its place, ``once.leading_try_lines``.)
    watches = [gast.copy_location(copy.copy(w), statements[0]) for w in watches]
    return watches + reads + rest


def _nested_watches_read_as_bound(stmts, bound):
    """``stmts`` with the leading watches of the tapes nested in the block (``with
    GradientTape() as inner: inner.watch(W)``) of names its first lines bound (``W =
    p["W"]``), not bound again since, read as what they were bound to: the watch of the
    same tensor. (New statements where they change: the originals are the parsed file's.)"""
    if not bound:
        return stmts
    out = []
    for s in stmts:
        if bound and isinstance(s, gast.With) and len(s.items) == 1 \
                and isinstance(s.items[0].optional_vars, gast.Name):
            name = s.items[0].optional_vars.id
            lead = leading_watches(s.body, name)
            if any(w.value.args and _names_in(w.value.args[0], bound) for w in lead):
                moved = []
                for w in lead:
                    w = copy.copy(w)
                    w.value = copy.copy(w.value)
                    w.value.args = [_read_as_bound(w.value.args[0], bound)] + w.value.args[1:]
                    moved.append(w)
                s = copy.copy(s)
                s.body = moved + list(s.body[len(lead):])
        out.append(s)
        rebound = bound_in(s)
        bound = {n: e for n, e in bound.items()
                 if n not in rebound and not (_names_in(e, {r: 0 for r in rebound}))}
    return out


def _plain_reads(s):
    """``[(name, value)]`` of ``w = p["w"]``, ``u = self.u``, ``y = x``, ``W, b = p["W"],
    p["b"]``, ``ws = [a, b]``: names bound to what is stored or to displays of such,
    computing nothing; else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1):
        return None
    target, value = s.targets[0], s.value
    pairs = list(zip(target.elts, value.elts)) \
        if isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple) \
        and len(target.elts) == len(value.elts) else [(target, value)]
    if all(isinstance(t, gast.Name) and _plain(v) for t, v in pairs):
        return [(t.id, v) for t, v in pairs]
    return None


def _plain(value):
    if isinstance(value, (gast.List, gast.Tuple)):
        return all(_plain(e) for e in value.elts)
    if isinstance(value, gast.Dict):
        return all(isinstance(k, gast.Constant) for k in value.keys) \
            and all(_plain(v) for v in value.values)
    return isinstance(value, gast.Name) or watch_chain(value) is not None


def _names_in(expr, bound):
    return {n.id for n in gast.walk(expr) if isinstance(n, gast.Name)} & bound.keys()


def _read_as_bound(expr, bound):
    """``expr`` (made of names, chains and displays) with each name ``bound`` maps read as
    what it was bound to (what that is, is read as at the block's start already)."""
    if isinstance(expr, gast.Name):
        return copy.deepcopy(bound.get(expr.id, expr))
    out = copy.copy(expr)
    if isinstance(expr, (gast.List, gast.Tuple)):
        out.elts = [_read_as_bound(e, bound) for e in expr.elts]
    elif isinstance(expr, gast.Dict):
        out.keys = [copy.deepcopy(k) for k in expr.keys]
        out.values = [_read_as_bound(v, bound) for v in expr.values]
    elif isinstance(expr, (gast.Attribute, gast.Subscript)):
        out.value = _read_as_bound(expr.value, bound)
        if isinstance(expr, gast.Subscript):
            out.slice = copy.deepcopy(expr.slice)
    else:
        return copy.deepcopy(expr)
    return out


def _leading(node, region):
    return any((s.lineno, s.col_offset) == (node.lineno, node.col_offset)
               for s in leading_watches(region.statements, region.tape_name))


def watch_chain(expr):
    """``(name, path)`` of an attribute or constant-item chain from a name (``model.w``:
    ``("model", (("attr", "w"),))``), or None."""
    path = []
    while isinstance(expr, (gast.Attribute, gast.Subscript)):
        if isinstance(expr, gast.Attribute):
            path.append(("attr", expr.attr))
        elif isinstance(expr.slice, gast.Constant):
            path.append(("item", expr.slice.value))
        else:
            return None
        expr = expr.value
    if not path or not isinstance(expr, gast.Name):
        return None
    return expr.id, tuple(reversed(path))


def _short_chain(expr):
    _, path = watch_chain(expr)
    words = ("".join(c for c in str(k) if c.isalnum() or c == "_") for _, k in path)
    return "_".join(w for w in words if w)[:30] or "item"


def once_watched(stmts, live=None):
    """``stmts`` with each value watched once, as ``tape.watch`` is idempotent.

    A marker reports the adjoint its name has at that point, which includes
    every later use: a second marker for a name not rebound since the first
    would report those uses again. In a loop that does not rebind the name,
    the marker moves before the loop (it would report once per trip).
    """
    live = set() if live is None else live
    out = []
    for s in stmts:
        if anno.kind(s) == "watch":
            if s.sg_watched not in live:
                live.add(s.sg_watched)
                out.append(s)
            continue
        if isinstance(s, (gast.For, gast.While)):
            bound = bound_in(s)
            inner = live - bound
            for m in s.body:
                if anno.kind(m) == "watch" and m.sg_watched not in bound \
                        and m.sg_watched not in live:
                    out.append(m)  # hoisted: watched from the first trip
                    live.add(m.sg_watched)
                    inner.add(m.sg_watched)
            s.body = once_watched(s.body, set(inner))
            s.orelse = once_watched(s.orelse, set(inner))
            out.append(s)
            live -= bound
            continue
        if isinstance(s, gast.If):
            then_live, else_live = set(live), set(live)
            s.body = once_watched(s.body, then_live)
            s.orelse = once_watched(s.orelse, else_live)
            out.append(s)
            live &= then_live & else_live
            live -= bound_in(s)
            continue
        out.append(s)
        live -= bound_in(s)
    return out


def bound_in(s):
    """Names ``s`` (and the blocks in it) binds or deletes, a def's name included (a
    lambda hoisted to one: the backward code may call it)."""
    return {n.id for n in gast.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))} | {
        n.name for n in gast.walk(s) if isinstance(n, gast.FunctionDef)}


def is_tape_call(stmt, tape_name, method):
    value = getattr(stmt, "value", None)
    if not (isinstance(stmt, gast.Expr) and isinstance(value, gast.Call)):
        return False
    f = value.func
    return isinstance(f, gast.Attribute) and f.attr == method and isinstance(f.value, gast.Name) \
        and f.value.id == tape_name


class Prepare:
    """The region's statements, ready for the compiler.

    - ``tape.watch(x)`` becomes a marker where the backward pass reports x's adjoint;
    - ``with tape.stop_recording():`` keeps its statements, their values cut off;
    - a nested ``with GradientTape() as inner:`` keeps its statements (they are
      part of this region too), and ``inner.gradient(y, x)`` becomes a call to
      the inner block's own adjoint code, which the compiler inlines and so
      differentiates again: nested tapes give higher derivatives.
    """

    def __init__(self, region, ctx, watch_variables, is_variable, known, compile_inner,
                 once=False, fresh=None):
        self.known = known  # this region's inputs -> their values at entry
        # (those of them that are the values where the region starts: not those of a
        # nested region's inputs that the outer one bound before it)
        self.fresh = set(known) if fresh is None else fresh
        self.compile_inner = compile_inner
        self.once = once  # nested tapes' blocks run once, in place (``_run_once``)
        self.gradients = {}  # (line, column) of an inner.gradient(...) -> its adjoints' name
        self.region = region
        self.ctx = ctx
        self.watch_variables = watch_variables
        self.is_variable = is_variable
        self.inner = {}  # tape name -> Region of a nested tape block
        self.bound = set()  # names bound by the statements prepared so far
        self.copies = {}  # ``a = x`` on the block's top level (``_note_copy``)
        self._names = None  # what statements run as written see of the block
        self._nested = 0  # how many ifs, loops and withs of the block enclose the statement

    def block(self, stmts, tape_name, in_loop=False):
        out = []
        i = 0
        while i < len(stmts):
            s = stmts[i]
            end = self._manual_inner(stmts, i)
            if end is not None:
                # ``inner.__enter__()`` ... ``inner.__exit__(...)``: a nested tape by hand.
                name = s.value.func.value.id
                inner = self.region.nested(s, stmts[i + 1:end], name)
                self.inner[name] = inner
                out += self.block(stmts[i + 1:end], tape_name, in_loop)
                i = end + 1
                continue
            if is_tape_call(s, tape_name, "reset") and (in_loop or self._nested):
                # (What it drops depends on whether, or on which trip, it runs: a record
                # cut at run time, which the compiled code does not model.)
                raise self.region.error(
                    f"`{tape_name}.reset()` inside an if, a loop or a with statement of the "
                    "block is not supported", s,
                    "call it at the block's top level, or end the block and start a new one "
                    "where it would reset")
            if is_tape_call(s, tape_name, "reset") and self._makes_variables(stmts[:i]):
                # (TensorFlow watches them again when read after it: srcgrad watches a
                # Variable made in the block where it is made, which reset() drops.)
                raise self.region.error(
                    f"`{tape_name}.reset()` after the block makes a Variable is not supported",
                    s, "make the Variables before the block")
            if is_tape_call(s, tape_name, "reset"):
                # Only what runs after reset() is recorded: what came before is constant.
                out = [_constant(o) for o in out if anno.kind(o) != "watch"]
                mark = gast.copy_location(gast.Pass(), s)
                mark.sg_reset = True
                out.append(mark)
                i += 1
                continue
            if isinstance(s, (gast.For, gast.While)):
                self.bound |= bound_in(s)  # bound on an earlier trip
            ran = self._run_once(stmts, i, tape_name)
            if ran is not None:
                out += ran
                self.bound |= bound_in(s)
                i += 1
                continue
            out += self.stmt(copy.deepcopy(s), tape_name, in_loop)
            self.bound |= bound_in(s)
            self._note_copy(s, in_loop)
            i += 1
        return out

    def _through_descriptor(self, watch):
        """Does an attribute chain ``watch`` watches read a property (or another
        descriptor) of an object known now?"""
        from ..compiler.watched_reads import Locator  # (which imports this module)

        values = dict(self.region.globals)
        values.update(self.known)
        for node in gast.walk(watch.value.args[0] if watch.value.args else watch):
            if isinstance(node, gast.Attribute) and watch_chain(node.value) is not None \
                    or isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
                owner = values.get(node.value.id, None) if isinstance(node.value, gast.Name) \
                    else Locator(*watch_chain(node.value), param=True)(values)
                found = inspect.getattr_static(type(owner), node.attr, None)
                if found is not None and hasattr(found, "__get__"):
                    return True
        return False

    def _note_copy(self, s, in_loop):
        """Keep ``copies`` (a name -> the name it was bound to by ``a = x`` on the block's
        top level, both unbound since): watching either watches the one array."""
        rebound = bound_in(s)
        self.copies = {a: b for a, b in self.copies.items()
                       if a not in rebound and b not in rebound}
        if not (in_loop or self._nested) and isinstance(s, gast.Assign) \
                and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Name) and s.value.id != s.targets[0].id:
            self.copies[s.targets[0].id] = self.copies.get(s.value.id, s.value.id)

    def _makes_variables(self, stmts):
        """Does any of ``stmts`` call ``sg.Variable``?"""
        from ..variables import Variable

        return any(isinstance(n, gast.Call) and self.ctx.scope.value(n.func) is Variable
                   for s in stmts for n in gast.walk(s))

    def _manual_inner(self, stmts, i):
        """The index of the ``__exit__`` matching an ``x.__enter__()`` at ``i``, or None."""
        s = stmts[i]
        value = getattr(s, "value", None)
        if not (isinstance(s, gast.Expr) and isinstance(value, gast.Call)
                and isinstance(value.func, gast.Attribute) and value.func.attr == "__enter__"
                and isinstance(value.func.value, gast.Name)):
            return None
        name = value.func.value.id
        for j in range(i + 1, len(stmts)):
            if is_tape_call(stmts[j], name, "__exit__"):
                return j
        raise self.region.error(f"`{name}.__enter__()` without `{name}.__exit__(...)` in the "
                                "same block", s)

    def stmt(self, s, tape_name, in_loop=False):
        region = self.region
        lowered = contexts.lower([s], contexts.resolver(self.ctx.src), self.ctx.namer)
        if len(lowered) != 1 or lowered[0] is not s:  # ``with np.errstate(...)``
            return self.block(lowered, tape_name, in_loop)
        if isinstance(s, gast.Try):
            # (What a block binds is its result, written back to the caller's variables:
            # read outside the try body, wherever the block reads it.)
            s = try_except.split(s, None, everything_read=True)
        if isinstance(s, gast.Try) and not any(
                isinstance(n, as_written.LIFTED) for st in s.body + s.handlers
                for n in scope_nodes(st)):
            # (a try in its else clause, one ``split`` made too, is lowered in its turn)
            scope = gast.Module(list(self.region.statements), [])
            tried = try_except.lowered(s, scope, self.ctx.namer.fresh)
            if tried is not None:  # (in the compiler's language: differentiated)
                return self.block(tried, tape_name, in_loop)
        if self.once and isinstance(s, as_written.LIFTED) and not self._recorded_with(s):
            # Outside the compiler's language: runs as written (refused later if a
            # gradient would flow through it).
            return as_written.lift(s, region, self._block_names(), self._items_read(s),
                                   self.ctx)
        if is_tape_call(s, tape_name, "watch"):
            # (A watch moved to the block's start, reading a name as the chain it was bound
            # to, unless a chain reads a property (a new value at each read): then the
            # watch of the name, where it was.)
            moved = getattr(s, "sg_fallback_of", None)
            if moved is not None and not self._through_descriptor(moved):
                return []
            if getattr(s, "sg_as_written", None) is not None and self._through_descriptor(s):
                return []
            return watch_marker(s, region, self.known, self.bound, self.ctx.namer,
                                self.copies if not self._nested else {})
        if any(is_tape_call(s, name, "watch") for name in self.inner):
            return []  # a nested tape's watch: that tape's business
        if isinstance(s, gast.Return) or (isinstance(s, (gast.Break, gast.Continue)) and not in_loop):
            word = type(s).__name__.lower()
            raise region.error(f"`{word}` inside a recorded GradientTape block is not supported",
                               s, "end the with block first")
        if isinstance(s, gast.With):
            return self.with_stmt(s, tape_name, in_loop)
        if isinstance(s, gast.Assign) and (s.lineno, s.col_offset) in self.gradients:
            grads, as_list = self.gradients[(s.lineno, s.col_offset)]
            s.value = T.name(grads) if as_list else gast.Subscript(T.name(grads), T.const(0),
                                                                   gast.Load())
            return [s]
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr)) and self.inner:
            # ``inner.gradient(y, x)`` anywhere in the statement (``[0]`` of it, in a call).
            inner = _InnerGradients(self, s)
            inner.visit(s)
            if inner.before:
                return inner.before + [s]
        if isinstance(s, (gast.For, gast.While)):
            _check_watches_in_loop(s, tape_name, region)
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                loop = in_loop or isinstance(s, (gast.For, gast.While))
                self._nested += 1
                try:
                    setattr(s, field, self.block(getattr(s, field), tape_name, loop))
                finally:
                    self._nested -= 1
        return [s]

    @staticmethod
    def _recorded_with(s):
        """``with tape.stop_recording():`` or a nested tape: part of what is recorded."""
        if not isinstance(s, gast.With) or len(s.items) != 1:
            return False
        f = getattr(s.items[0].context_expr, "func", None)
        return isinstance(f, gast.Attribute) and f.attr == "stop_recording" \
            or (getattr(f, "attr", None) or getattr(f, "id", None)) == "GradientTape"

    def _block_names(self):
        """The block's inputs and every name it binds."""
        if self._names is None:
            self._names = set(self.known) | {n for t in self.region.statements
                                              for n in as_written.bound_names(t)}
        return self._names

    def _items_read(self, s):
        """Names whose items or attributes the block reads outside statement ``s`` (a copy
        of one of its own)."""
        def counts(stmts):
            out = {}
            for t in stmts:
                for n in gast.walk(t):
                    if isinstance(n, (gast.Subscript, gast.Attribute)) \
                            and isinstance(n.ctx, gast.Load) and isinstance(n.value, gast.Name):
                        out[n.value.id] = out.get(n.value.id, 0) + 1
            return out
        total, inside = counts(self.region.statements), counts([s])
        return {n for n, k in total.items() if k > inside.get(n, 0)}

    def with_stmt(self, s, tape_name, in_loop):
        item = s.items[0]
        f = getattr(item.context_expr, "func", None)
        self._nested += 1
        try:
            return self._with_stmt(s, item, f, tape_name, in_loop)
        finally:
            self._nested -= 1

    def _with_stmt(self, s, item, f, tape_name, in_loop):
        if isinstance(f, gast.Attribute) and f.attr == "stop_recording" \
                and not (isinstance(f.value, gast.Name) and f.value.id == tape_name):
            # (TensorFlow pauses only that tape: the one this code is compiled for, nested
            # in it or around it, records them; srcgrad cut them for every tape)
            raise self.region.error(
                f"`{gast.unparse(f.value).strip()}.stop_recording()` in the block of another "
                f"tape (`{tape_name}`, nested in it or around it) is not supported", s,
                "compute the values in the block of the tape that should not record them, "
                "outside the other's, or cut them with sg.stop_gradient(...) (for every tape)")
        if isinstance(f, gast.Attribute) and f.attr == "stop_recording":
            for t in walk_stmts(s.body):
                if isinstance(t, gast.Expr) and isinstance(t.value, gast.Call) \
                        and self.ctx.scope.calls_user_code(t.value):
                    # (what it changes, an object's attribute, an array handed to it, is
                    # not seen here: it would be recorded)
                    raise self.region.error(
                        f"`{gast.unparse(t.value).strip()}` called for its effects inside "
                        "tape.stop_recording(): srcgrad cannot tell what it changes, which "
                        "the tape would record", t,
                        "assign what it computes in the block (`norm.running = "
                        "norm.running + 0.5 * h`), or call it outside the tape's block")
            out = []
            for inner in self.block(s.body, tape_name, in_loop):
                if isinstance(inner, gast.Assign):
                    # (computed as the block's code is, reading Variables where srcgrad
                    # sees them; then cut)
                    computed = self.ctx.namer.fresh("unrecorded")
                    out.append(gast.copy_location(T.assign(computed, inner.value), inner))
                    inner.value = T.expr("_sg.stop_gradient(v)", v=computed)
                out.append(inner)
            # What the block changed otherwise (``y *= 2``, in a loop, ``out=y``): constants
            # after it too.
            for name in sorted(_changed_unrecorded(s.body)):
                out.append(gast.copy_location(
                    T.assign(name, T.expr("_sg.stop_gradient(v)", v=name)), s))
            return out
        name = getattr(f, "attr", None) or getattr(f, "id", None)
        if name == "GradientTape" and isinstance(item.optional_vars, gast.Name):
            inner = self.region.nested(s, s.body, item.optional_vars.id)
            self.inner[inner.tape_name] = inner
            return self.block(s.body, tape_name, in_loop)
        raise self.region.error("a with statement inside a recorded GradientTape block is not "
                                "supported (other than nested tapes and stop_recording)", s)

    def _run_once(self, stmts, i, tape_name):
        """``with GradientTape() as inner:`` at ``stmts[i]`` whose only use is one
        ``g = inner.gradient(y, x)`` later in ``stmts``, as statements that run the
        inner block once, with its backward code, where the block is::

            inner_run = inner_value_and_gradient(<inputs>)
            y = inner_run[1]            # each variable the inner block binds
            ...
            g = inner_run[0][0]         # at the gradient call

        None where the block is not of that form, or the outer block is run again
        (the gradient call is then compiled to adjoint code that runs the inner
        block again)."""
        s = stmts[i]
        if not isinstance(s, gast.With) or len(s.items) != 1:
            return None
        item = s.items[0]
        f = getattr(item.context_expr, "func", None)
        if (getattr(f, "attr", None) or getattr(f, "id", None)) != "GradientTape" \
                or not isinstance(item.optional_vars, gast.Name):
            return None
        name = item.optional_vars.id
        calls = [t for t in stmts[i + 1:] if isinstance(t, gast.Assign)
                 and isinstance(t.value, gast.Call) and not t.value.keywords
                 and len(t.value.args) == 2 and isinstance(t.value.func, gast.Attribute)
                 and t.value.func.attr == "gradient" and isinstance(t.value.func.value, gast.Name)
                 and t.value.func.value.id == name]
        uses = [n for t in self.region.statements for n in gast.walk(t)
                if isinstance(n, gast.Name) and n.id == name]
        inner_uses = [n for t in s.body for n in gast.walk(t)
                      if isinstance(n, gast.Name) and n.id in (name, tape_name)]
        if len(calls) != 1 or len(uses) != 2 + len([n for n in inner_uses if n.id == name]) \
                or any(n.id == tape_name for n in inner_uses) \
                or any(isinstance(t, gast.With) or is_tape_call(t, name, "reset")
                       for t in walk_stmts(s.body)):
            return None
        call = calls[0]
        target, sources = call.value.args
        as_list = isinstance(sources, (gast.List, gast.Tuple))
        hoisted = []
        names = _source_names(sources.elts if as_list else [sources], hoisted, self.ctx)
        if not isinstance(target, gast.Name) or names is None:
            return None
        roots = {n.id for h in hoisted for n in gast.walk(h.value.args[0])  # (as_held's)
                 if isinstance(n, gast.Name)}
        if roots & set().union(*(bound_in(t) for t in s.body)):
            return None  # (read from what the block binds: evaluated after it, as written)
        between = set().union(*(bound_in(t) for t in stmts[i + 1:stmts.index(call)]))
        rebound = sorted(between & ({target.id} | {n.id for n in names} | roots))
        if rebound:
            raise self.region.error(
                f"`{rebound[0]}` is bound again between the end of `{name}`'s block and "
                f"`{name}.gradient(...)`: the tape recorded the value its block computed, not "
                "this one", call, f"take the gradient right after the block, or compute "
                f"`{rebound[0]}` inside it")
        if not self.once:
            return None
        inner = self.region.nested(s, s.body, name)
        local = set(self.known) | set(region_outputs(self.region))
        inputs = [n for n in region_inputs(inner) if n in local]
        returns = sorted(region_outputs(inner))
        def compiled(strong):
            return self._compiled_inner(inner, inputs, [self.known.get(n) for n in inputs],
                                        [target.id], self.watch_variables, self.is_variable,
                                        sources=[n.id for n in names], returns=returns,
                                        watch_inputs=self._variables_in(inputs), strong=strong)
        first = compiled(False)
        callee = self.ctx.inject(first.fn, f"{name}_value_and_gradient")
        run = self.ctx.namer.fresh(f"{name}_run")
        grads = self.ctx.namer.fresh(f"{name}_gradients")
        out = [gast.copy_location(h, s) for h in hoisted]
        out.append(T.assign(run, gast.Call(T.name(callee), [T.name(n) for n in inputs], [])))
        if first.rerunnable:
            # A gradient that came out non-finite (a masked NaN: ``np.where(x > 0,
            # np.sqrt(x), 0)`` at 0) is computed again with strong zeros, as the tape's
            # own gradient and sg.grad's are; the block runs again, computing the same.
            again = self.ctx.inject(compiled(True).fn, f"{name}_value_and_gradient_strong")
            out.append(T.unless_finite(
                T.expr("r[0]", r=T.name(run)),
                [T.assign(run, gast.Call(T.name(again), [T.name(n) for n in inputs], []))]))
        out.append(T.assign(grads, gast.Subscript(T.name(run), T.const(0), gast.Load())))
        out += [T.assign(n, gast.Subscript(T.name(run), T.const(k + 1), gast.Load()))
                for k, n in enumerate(returns)]
        for o in out:
            gast.copy_location(o, s)
        self.gradients[(call.lineno, call.col_offset)] = grads, as_list
        return out

    def _compiled_inner(self, inner, inputs, *args, **kwargs):
        """The inner block's adjoint code (``compile_inner``). Its inputs this region has not
        bound before the inner block hold, when compiling, what they hold where it starts:
        its reads of what it watches of them from globals and containers are sources;
        which reads give those is part of what this region's code is compiled for."""
        fresh = [n for n in inputs if n in self.fresh and n not in self.bound]
        compiled = self.compile_inner(inner, inputs, *args, fresh=fresh, **kwargs)
        self.ctx.nested_reads += compiled.nested_reads
        return compiled

    def _variables_in(self, inputs):
        """Inputs that are trainable Variables passed as arrays: a nested tape watches
        them as it watches the Variables it reads."""
        as_arrays = getattr(self.ctx, "as_arrays", ())
        return tuple(n for n in inputs if n in as_arrays) if self.watch_variables else ()

    def inner_gradient(self, inner, call, stmt, before):
        """``inner.gradient(y, x)`` as a call to the adjoint code of the inner block (the
        statements computing it appended to ``before``)."""
        args = list(call.args) + [k.value for k in call.keywords]
        if len(call.args) < 2 or any(k.arg not in ("output_gradients",) for k in call.keywords):
            raise self.region.error("a nested tape's gradient needs (target, sources) and at most "
                                    "output_gradients", stmt)
        target, sources = args[0], args[1]
        if not isinstance(target, gast.Name):
            raise self.region.error("a nested tape's gradient target must be a variable", stmt)
        as_list = isinstance(sources, (gast.List, gast.Tuple))
        hoisted = []
        names = _source_names(sources.elts if as_list else [sources], hoisted, self.ctx)
        if names is None:
            raise self.region.error("a nested tape's gradient sources must be variables or "
                                    "their attributes and constant items (model.weights, "
                                    "params['w'])", stmt)
        before += [gast.copy_location(h, stmt) for h in hoisted]
        # The inner block's inputs are variables of this region; other free
        # names are globals, resolved as such.
        local = set(self.known) | set(region_outputs(self.region))
        inputs = [n for n in region_inputs(inner) if n in local]
        sample = [self.known.get(n) for n in inputs]
        def callee(strong):
            compiled = self._compiled_inner(inner, inputs, sample, [target.id],
                                            self.watch_variables, self.is_variable,
                                            sources=[n.id for n in names],
                                            watch_inputs=self._variables_in(inputs),
                                            strong=strong)
            name = self.ctx.inject(compiled.fn,
                                   f"{inner.tape_name}_gradient" + ("_strong" * strong))
            seed = copy.deepcopy(call.keywords[0].value) if call.keywords \
                else T.expr("_sg.seed_like(y)", y=target.id)
            return compiled, gast.Call(T.name(name), [T.name(n) for n in inputs] + [seed], [])
        # Computed before the statement, and again with strong zeros where it comes out
        # non-finite (a masked NaN), as a tape's own gradient is (the block runs again:
        # a nested tape whose block does not repeat is refused, passes/repeatable.py).
        result = self.ctx.namer.fresh(f"{inner.tape_name}_grads")
        first, value = callee(False)
        before.append(gast.copy_location(T.assign(result, value), stmt))
        if first.rerunnable:
            before.append(gast.copy_location(T.unless_finite(
                T.name(result), [gast.copy_location(T.assign(result, callee(True)[1]), stmt)]),
                stmt))
        return T.name(result) if as_list else gast.Subscript(T.name(result), T.const(0),
                                                              gast.Load())


_WRITING_METHODS = frozenset({"fill", "sort", "partition", "put", "itemset", "resize"})
_WRITING_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal",
                                "put_along_axis", "at"})


def _changed_unrecorded(stmts):
    """Names whose values ``stmts`` (a ``stop_recording`` block) change other than by an
    assignment at its top level, which is made a constant where it is: those bound inside
    its loops, branches and ``try``s, augmented (``y *= 2``), or written into by a call
    (``np.add(a, b, out=y)``, ``np.copyto(y, v)``, ``y.sort()``)."""
    names = set()
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If, gast.Try, gast.With)):
            names |= {n.id for n in gast.walk(s) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, gast.Store)}
            # (``y[i] = ...`` in a loop writes into ``y``)
            names |= {n.value.id for n in gast.walk(s) if isinstance(n, gast.Subscript)
                      and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)}
        elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            names.add(s.target.id)
        for call in (n for n in gast.walk(s) if isinstance(n, gast.Call)):
            f = call.func
            names |= {k.value.id for k in call.keywords
                      if k.arg == "out" and isinstance(k.value, gast.Name)}
            if isinstance(f, gast.Attribute) and f.attr in _WRITING_METHODS \
                    and isinstance(f.value, gast.Name):
                names.add(f.value.id)
            elif isinstance(f, gast.Attribute) and f.attr in _WRITING_FUNCTIONS \
                    and call.args and isinstance(call.args[0], gast.Name):
                names.add(call.args[0].id)
    return names


def _source_names(sources, hoisted, ctx):
    """The names of a nested tape's gradient sources: a source read from an object or a
    container (``model.trainable_variables``, ``params["w"]``) is bound to a name of its
    own first (an assignment appended to ``hoisted``), as the inner block's adjoint code
    names its sources. None where a source is computed (a call)."""
    names = []
    for source in sources:
        if isinstance(source, gast.Name):
            names.append(source)
            continue
        node = source
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Constant):
                return None
            node = node.value
        if not isinstance(node, gast.Name) or node is source:
            return None
        name = ctx.namer.fresh(getattr(source, "attr", None) or f"{node.id}_item")
        # (as it is, not read as an array where it is a Variable: the sources are matched
        # by identity to what the inner block reads, ``runtime.is_source``)
        hoisted.append(T.assign(name, T.expr("_sg.as_held(v)", v=copy.deepcopy(source))))
        names.append(T.name(name))
    return names


class _InnerGradients(gast.NodeTransformer):
    """Replaces the calls of a nested tape's ``gradient`` in one statement."""

    def __init__(self, prepare, stmt):
        self.prepare = prepare
        self.stmt = stmt
        self.before = []  # statements computing them, run before ``stmt``

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, gast.Attribute) and f.attr == "gradient" \
                and isinstance(f.value, gast.Name) and f.value.id in self.prepare.inner:
            return self.prepare.inner_gradient(self.prepare.inner[f.value.id], node, self.stmt,
                                               self.before)
        return node


def region_inputs(region):
    """Names the region reads before assigning them (candidates for parameters), and the
    builtins' names it reads: the caller's function may bind them (``len = 2``, ``range
    = ...``); those its frame holds are inputs like the others, the rest builtins."""
    node = gast.FunctionDef("tape_region", gast.arguments([], [], None, [], [], None, []),
                            copy.deepcopy(region.statements), [], None, None, [])
    builtin_names = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Load) and hasattr(builtins, n.id)}
    # (A name the block binds is no free name of it, even where a read comes first: on a
    # loop's first trip, in a branch that did not bind it. Hunt 10.)
    try:
        free = free_names(node)
    except IndexError:  # (beniget on a ``break`` out of the block: refused when it runs)
        node.body = [gast.While(T.const(True), node.body, [])]
        free = free_names(node)
    # (A variable of the block's function that a closure reads, ``s`` of ``def h(v):
    # return s * v``, which the block binds: its value at the start too, for the calls
    # before the binding, ``y0 = h(a); s = a``.)
    # (So is a global a module-level block binds, which a function it calls reads: ``y =
    # f(a); SCALE = 3.0; f(a)``.)
    bound = set(region_outputs(region))
    cells = (region.frame_cells or frozenset()) & bound
    if region.module_level:
        cells |= bound & set(region.globals)
    return sorted(free | builtin_names | read_before_bound(region.statements) | cells)


def read_before_bound(stmts, bound=frozenset()):
    """Names some read in ``stmts`` may find not yet bound by them: read before any
    binding on some path (a loop's first trip, a branch that binds nothing, a loop
    that ran no trip). ``bound``: names bound on every path before ``stmts``."""
    found = set()
    _definitely_bound(stmts, set(bound), found)
    return found


def _definitely_bound(stmts, bound, found):
    """Walk ``stmts`` in order adding to ``found`` what a read may find unbound; returns
    the names bound on every path through them (``bound`` grows with them)."""
    for s in stmts:
        if isinstance(s, gast.If):
            found |= _loads(s.test) - bound
            then = _definitely_bound(s.body, set(bound), found)
            other = _definitely_bound(s.orelse, set(bound), found)
            bound |= then & other
        elif isinstance(s, (gast.For, gast.While)):
            head = s.iter if isinstance(s, gast.For) else s.test
            found |= _loads(head) - bound
            inner = set(bound)
            if isinstance(s, gast.For):
                inner |= _stores(s.target)
            _definitely_bound(s.body, inner, found)
            _definitely_bound(s.orelse, set(bound), found)
        elif isinstance(s, (gast.With, gast.Try)):
            for item in getattr(s, "items", ()):
                found |= _loads(item.context_expr) - bound
                if item.optional_vars is not None:
                    bound |= _stores(item.optional_vars)
            inner = _definitely_bound(s.body, set(bound), found)
            for part in (getattr(s, "handlers", ()), getattr(s, "orelse", ()),
                         getattr(s, "finalbody", ())):
                for h in part:
                    _definitely_bound([h] if isinstance(h, gast.stmt) else h.body, set(bound),
                                      found)
            if isinstance(s, gast.With):
                bound |= inner
        else:
            found |= _loads(s) - bound
            if isinstance(s, gast.AugAssign):  # (``total += x`` reads ``total``)
                found |= _stores(s.target) - bound
            if not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                bound |= _stores(s)
    return bound


def _loads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _stores(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def region_outputs(region):
    """The names the block binds (not ``m`` of ``m.loss = ...``: the object stays)."""
    names = set()
    for s in walk_stmts(region.statements):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                names |= {n.id for n in gast.walk(t)
                          if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        elif isinstance(s, gast.For):
            names |= {n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)}
    return sorted(names)


def _constant(stmt):
    """``stmt`` with what it assigns cut off from differentiation."""
    for node in walk_stmts([stmt]):
        if isinstance(node, gast.Assign):
            node.value = T.expr("_sg.stop_gradient(v)", v=node.value)
    return stmt


def holds_variables(value, is_variable, depth=3):
    """A container with Variables in it: ``[W1, W2]``, ``[(W1, b1), (W2, b2)]``, a dict."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) \
        else _attributes(value)
    return any(is_variable(v) or depth > 1 and holds_variables(v, is_variable, depth - 1)
               for v in items)


def _attributes(obj):
    """An object's own attributes (a layer's ``W``): where models keep their Variables."""
    d = getattr(obj, "__dict__", None)
    code = (type, types.ModuleType, types.FunctionType)
    return d.values() if type(d) is dict and not isinstance(obj, code) else ()


def fake_watch(name, node):
    call = gast.Expr(gast.Call(gast.Attribute(T.name("tape"), "watch", gast.Load()),
                               [T.name(name)], []))
    gast.copy_location(call, node)
    return call
