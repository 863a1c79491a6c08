"""Which arrays an in-place update could reach through another name.

srcgrad differentiates by rebinding: ``x += v`` becomes ``x = x + v`` and the
adjoint of ``a[i] = v`` assumes no other variable sees ``a``. Where another
name may share the array, the compiler refuses (``a[i] = v``) or checks at run
time (``x += v``) instead of giving a wrong gradient.
"""
import builtins
import copy
import operator
import types

import gast
import numpy as np

from .. import runtime as rt
from ..rules import table
from . import templates as T
from .names import MUTATORS, binding_counts, handed_on, is_item_check, item_read, walk_stmts, \
    written_into
from .resolve import MISSING, among, is_library


def _load_counts(body):
    loads = {}
    for s in walk_stmts(body):
        if is_item_check(s):
            continue  # (the check of an item read, below: not a use of the array)
        for n in _walk_own(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
    return loads


def shared_names(body, scope, last=None):
    """Names whose array may be reachable through another name.

    An in-place update (``a[i] = v``, ``x += v`` on an array) of such a name
    would change the other name's value too, which rebinding-based adjoints
    do not see. Conservative: both names of ``x = y``, of a view bound to a
    name (``y = x[1:]``, ``y = x.T``, ``y = x.reshape(...)``), and every name
    put into a container, are shared. A name read for the last time by the
    statement that copies it (``x = x_new``, how updates are compiled; an inlined
    helper's local returned in a tuple, ``out = helper_out``) is moved, not shared.
    """
    loads = _load_counts(body)
    last = last_reads(body) if last is None else last
    # (An index ``u_t = [0, 2]`` the normalizer named: ``a[u_t]`` is a copy of its items.)
    lists = bound_only_to(body, lambda v: isinstance(v, (gast.List, gast.ListComp)))
    # (Containers that keep what is stored in them, ``log[i] = x``: not arrays, which copy.)
    keeping = bound_only_to(body, lambda v: isinstance(v, (gast.List, gast.ListComp, gast.Dict,
                                                           gast.DictComp))
                            or isinstance(v, gast.Call) and isinstance(v.func, gast.Name)
                            and scope.value(v.func) in (dict, list)) \
        | {n for n in _loaded_names(body)
           if type(scope.value(gast.Name(n, gast.Load(), None, None))) in (dict, list)}
    shared = set()
    moves = []  # (a name, the name it is copied into)
    transient = _transient_views(body, loads, scope)
    items = _item_reads(body, loads, transient, scope)
    for s in walk_stmts(body):
        if not isinstance(s, (gast.Assign, gast.Expr)):
            continue
        if not getattr(s, "sg_inplace", False) and id(s) not in transient and id(s) not in items:
            # (Read twice by its last reader, ``a, b = y, y``: copied, not moved.)
            twice = _read_twice(s.value)
            for target, part in _bindings(s):
                shared |= _shared_by(target, part, loads, scope, lists,
                                     isinstance(part, gast.Name) and part.id not in twice
                                     and part.id in last.get(id(s), ()))
                if isinstance(part, gast.Name) and part.id != target:
                    moves.append((part.id, target))
                if part is None and isinstance(s.value, gast.Call):
                    # ``a, b = np.split(y, 2)``: the pieces are views of ``y``
                    shared |= _shared_sources(s.value, scope)
        if isinstance(s, gast.Assign) and any(
                isinstance(t, gast.Attribute) or isinstance(t, gast.Subscript)
                and isinstance(t.value, gast.Name) and t.value.id in keeping
                for t in s.targets):
            # ``log["start"] = x``, ``holder.v = x``: the dict or the object keeps ``x``'s
            # array, which a later ``x[0] = ...`` changes
            shared |= _shared_sources(s.value, scope)
        for n in _walk_value(s):
            # An array put into a container, or a view of it (``[a[0], a[1]]``), is
            # reachable through the container's items.
            if isinstance(n, (gast.List, gast.Tuple, gast.Dict)):
                for e in getattr(n, "elts", getattr(n, "values", [])):
                    shared |= _shared_sources(e, scope)
            elif isinstance(n, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
                # ``[X[i] for i in ...]``: rows of X held by a list (hunt 15)
                shared |= _shared_sources(getattr(n, "elt", getattr(n, "value", None)), scope)
            elif isinstance(n, gast.Call):
                f = n.func
                if isinstance(f, gast.Attribute) and f.attr == "append" or _may_keep(n, scope):
                    for a in list(n.args) + [k.value for k in n.keywords]:
                        shared |= _shared_sources(a, scope)
    # A name moved into another (read once, by the copy) hands over its array, and with
    # it whoever else holds it: ``a = h; b = a`` (an inlined call's ``v = h`` then
    # ``y = v``), ``b[0] = ...`` writes into ``h``.
    return handed_on(shared, moves)


def _item_reads(body, loads, transient, scope):
    """The item reads ``a = x[i]`` (no slice in the index) that make no name shared.

    ``x[0]`` of a vector is a number, a copy; it is a view only where ``x`` has more
    axes than the index (a row of a matrix). Where nothing writes into ``a`` (or a name
    it is handed to) but something may write into ``x``, the read is checked when it
    runs instead of making ``a`` and ``x`` shared (refused writes): marked
    ``sg_check_item`` = (the array checked, the read as the user wrote it), for which the
    normalizer adds ``_sg.check_item_read`` before it (a view of an array is refused; a
    container's item is the object itself, but a write into the container replaces it,
    which ``a`` does not see). A read whose ``a`` is written into stays shared. Where
    every read of ``a`` comes before the writes into ``x`` (``read_first``: transient
    but for the backward pass, which reads ``a`` as saved), nothing needs checking.
    """
    found = []

    def read_first():  # (of the item reads only, and only when first asked)
        if not found:
            found.append(_transient_views(body, loads, scope, False, only=set(reads)))
        return found[0]

    reads = {}
    pairs = []
    written = set()
    updated = set()  # ``x += v``: rebinding only where ``x`` is not shared (normalizer)
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1:
            target, value = s.targets[0], s.value
            if isinstance(target, gast.Name) and isinstance(value, gast.Name):
                pairs.append((value.id, target.id))
            elif isinstance(target, gast.Name) and item_read(value) \
                    and not getattr(s, "sg_inplace", False):
                reads[id(s)] = (s, target.id, value.value.id)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            continue  # (their statements come on their own)
        written |= written_into([s])
        if getattr(s, "sg_inplace", False) and isinstance(s.targets[0], gast.Name):
            updated.add(s.targets[0].id)
        for n in T.walk(s):
            if isinstance(n, gast.Call) and isinstance(scope.value(n.func), _USER_CODE) \
                    and _may_keep(n, scope):
                # (a user's function, not inlined yet, may write into its arguments; a
                # library's that does is refused on its own: HiddenWrites)
                written |= {a.id for a in n.args if isinstance(a, gast.Name)}
    # (checked already: code inlined from a first derivative's, where the check precedes)
    for block in _blocks(body):
        for before, s in zip(block, block[1:]):
            if id(s) in reads and is_item_check(before) and \
                    gast.dump(before.value.args[0]) == gast.dump(s.value):
                s.sg_item_checked = True
    written |= updated
    item_written = {key for key, (_, name, _) in reads.items()
                    if handed_on({name}, pairs) & written}
    # (``a[0], a[1] = a[1], a[0]``: the swap's own check says it better, normalizer.py)
    swapped = {n.args[0].id for s in walk_stmts(body) if isinstance(s, gast.Expr)
               for n in [s.value] if isinstance(n, gast.Call)
               and isinstance(n.func, gast.Attribute) and n.func.attr == "check_not_view"
               and n.args and isinstance(n.args[0], gast.Name)}
    # ``M[i][j]`` read as ``t = M[i]; u = t[j]``, ``t`` read nowhere else: ``u`` is the
    # item of ``M`` that is checked (a row ``t`` read only for its item needs no check).
    # (A transient read, ``_transient_views``, needs no check unless it is such a ``u``.)
    bound = {}
    for s, name, _ in reads.values():
        bound[name] = bound.get(name, 0) + 1
    by_name = {name: (s, base) for s, name, base in reads.values() if bound[name] == 1}
    chained = {base for key, (_, _, base) in reads.items()
               if key not in item_written and loads.get(base) == 1 and base in by_name}
    out = set()
    for key, (s, name, base) in reads.items():
        s.sg_check_item = None
        s.sg_item_unshared = False  # (private.py: then ``x`` is not exposed by the read)
        if key in item_written or key in transient and base not in chained:
            continue
        out.add(key)
        s.sg_item_unshared = True
        if name in chained:
            continue
        root, text = base, T.clone(s.value)
        while root in chained:  # (``T[i][j][k]``: ``T[i]`` in place of ``t`` of ``t[j][k]``)
            inner, root = by_name[root]
            text = _rebased(text, inner.value)
        if handed_on({root}, pairs) & updated:
            out.discard(key)  # (``x += v`` decides by sharing: shared, as before)
            s.sg_item_unshared = False
        elif handed_on({root}, pairs) & written \
                and (base in chained or key not in read_first()) \
                and not handed_on({name}, pairs) & swapped:
            # (``read_first`` is of the writes into ``base``: a chained read's are ``root``'s)
            s.sg_check_item = (root, text)
    return out


def _rebased(read, base):
    """``read`` (``t[j][k]``, items of a name) read from ``base`` in place of the name."""
    if not isinstance(read, gast.Subscript):
        return T.clone(base)
    return gast.Subscript(_rebased(read.value, base), read.slice, gast.Load())


# (A def nested in the code is known as its tree: ``def ident(v): return v``.)
_USER_CODE = (types.FunctionType, types.MethodType, gast.FunctionDef)
# Builtins that keep no reference to their arguments (``max(a, b)`` returns one).
_KEEP_NOTHING = frozenset({len, range, float, int, bool, print, isinstance, abs, round, str,
                           repr, type, hash})


def _may_keep(call, scope):
    """May ``call`` keep its arguments where the caller can reach them later (a user's
    function, inlined later: ``box = keep(a)``, ``self.cache = a``)? NumPy's functions
    with a rule do not (their views are bindings ``_shared_sources`` sees)."""
    fn = scope.value(call.func)
    if fn is None:  # a method of a local value: an array's keeps nothing
        return not (isinstance(call.func, gast.Attribute)
                    and (call.func.attr in MUTATORS or call.func.attr in table.METHODS))
    if fn is copy.copy or fn is copy.deepcopy:
        return False  # (a new container or array: what it shares, _shared_by says)
    try:
        if fn in _KEEP_NOTHING or table.rule(fn) is not None or table.nondiff(fn):
            return False
    except TypeError:
        pass
    module = getattr(fn, "__module__", None) or ""
    # (srcgrad's runtime helpers in generated code take adjoints and records)
    return not isinstance(fn, np.ufunc) and module.split(".")[0] not in ("srcgrad", "numpy")


# Methods that change the list or dict they are called on.


def _transient_views(body, loads, scope, backward_reads=True, only=None):
    """Bindings ``t = b`` / ``t = b[1:]`` whose sharing nothing can observe.

    Safe when every read of ``t`` comes later in the same block, nothing
    writes into ``t``, and nothing writes into ``b`` before the last read of
    ``t``. That is how ``out[1:3] += v`` is compiled (``t = out[1:3]; u = t + v;
    out[1:3] = u``) and how the generated code saves values (``x_prev = x``).
    A write into ``b`` after the last read still changes ``t`` for the backward
    pass, which reads ``t`` again where the derivative needs its value
    (``np.cos(t)``): then only reads that need no value (``t + v``, a copy) are
    safe (second order of first-order code that restores a slot of ``b``).
    Without ``backward_reads`` only the forward pass counts: the reads of ``t`` before
    the writes into ``b`` (``_item_reads``: the backward pass reads a saved copy).
    Everywhere: ``t`` handed to another name or kept (a container, a call) is followed.
    ``only``: the ids of the bindings asked about (None: all of them).
    """
    safe = set()
    seen_stmts = {}
    handings = {}  # id(statement) -> _handing(statement): for _holding
    once = {n for n, k in binding_counts(body).items() if k == 1}
    # Each name's array handed on to another (``b = a``, ``b = a[1:]``).
    # (``a, b = c, 2.0`` hands ``c``'s to ``a``, as ``a = c`` does.)
    handed = [(base, target) for s in walk_stmts(body) if isinstance(s, gast.Assign)
              for target, part in _bindings(s) if part is not None
              for base in [_shared_source(part, scope)]
              if base is not None and base != target]

    def parts(stmt):
        """The names in ``stmt`` and the names it writes into (``b[i] = ...``, ``b += v``), once."""
        found = seen_stmts.get(id(stmt))
        if found is None:
            names, written = [], set()
            for n in T.walk(stmt):
                if isinstance(n, gast.Name):
                    names.append(n)
                elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) \
                        and isinstance(n.value, gast.Name):
                    written.add(n.value.id)
                elif getattr(n, "sg_inplace", False) and isinstance(n.targets[0], gast.Name):
                    written.add(n.targets[0].id)  # ``x += v``: into x's array, if an array
                elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                        and n.func.attr in MUTATORS and isinstance(n.func.value, gast.Name):
                    written.add(n.func.value.id)  # ``t.append(v)``: into t's list
            found = seen_stmts[id(stmt)] = (names, written)
        return found

    blocks = _blocks(body)
    owners = {id(getattr(s, f)): (s, parent) for parent in blocks for s in parent
              for f in ("body", "orelse") if isinstance(s, (gast.If, gast.For, gast.While))}

    def written_after(block, start):
        """Names written into by ``block[start:]`` and whatever runs after the block: the
        rest of the blocks around it, and the whole of each loop around it (next trips)."""
        names = set()
        for t in block[start:]:
            names |= parts(t)[1]
        while id(block) in owners:
            owner, parent = owners[id(block)]
            if isinstance(owner, (gast.For, gast.While)):
                names |= parts(owner)[1]
            names = names.union(*(parts(t)[1] for t in
                                  parent[next(k for k, t in enumerate(parent) if t is owner) + 1:]))
            block = parent
        return names

    for block in blocks:
        followed = {}  # base -> (k, the names holding its array before block[k])
        for i, s in enumerate(block):
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name)):
                continue
            if only is not None and id(s) not in only:
                continue
            base = _shared_source(s.value, scope)
            if base is None:
                continue
            view, total, seen = s.targets[0].id, loads.get(s.targets[0].id, 0), 0
            # (A write into another name of ``base``'s array is a write into it: ``g = a``
            # then ``g[0] = v`` changes what ``view = a`` holds. The names holding it,
            # followed statement by statement through the block: ``_holding``; from where
            # the last view of the same base left off, not from the block's top again.)
            k, bases = followed.get(base, (0, _array_class(base, handed, once)))
            for t in block[k:i]:
                bases = _holding(bases, t, base, scope, handed, once, handings)
            followed[base] = (i, bases)
            bases = bases - {view}
            valued, last = False, i  # a read whose derivative needs the value; the last read
            copied = set()  # names a read binds to the array (``b = view``)
            derived = False  # a view of ``view`` bound to another name (``b = view.T``)
            for j, later in enumerate(block[i + 1:], i + 1):
                if seen == total:
                    break
                names, written = parts(later)
                if view in written or any(
                        n.id == view and isinstance(n.ctx, gast.Store) for n in names):
                    break
                reads = sum(1 for n in names if n.id == view and isinstance(n.ctx, gast.Load))
                compound = isinstance(later, (gast.If, gast.For, gast.While))
                if bases & written and (seen + reads < total or (compound and reads)):
                    break
                bases = _holding(bases, later, base, scope, handed, once, handings) - {view}
                seen += reads
                if reads and _kept(later, view, scope) \
                        and (not backward_reads or bases & written_after(block, j)):
                    seen = -1  # (held on by a container or a call: read later, maybe)
                    break
                if reads:
                    last = j
                    valued = valued or not _reads_no_value(later, view)
                    if isinstance(later, gast.Assign) and isinstance(later.value, gast.Name) \
                            and later.value.id == view:
                        copied |= {n.id for t in later.targets for n in T.walk(t)
                                   if isinstance(n, gast.Name)}
                    elif isinstance(later, gast.Assign):
                        # ``b = view[1:]``: a view of it too; ``b, c = view, 2.0``: it
                        for target, part in _bindings(later):
                            if isinstance(part, gast.Name) and part.id == view:
                                copied.add(target)
                            elif part is not None and view in _shared_sources(part, scope):
                                copied.add(target)
                                derived = True
            if seen == total and (valued or derived) and backward_reads \
                    and bases & written_after(block, last):
                seen = -1  # written into after the last read: changed for the backward pass
            # A read handing the array to another name (``b = view``; ``base = view`` hands
            # it back: one name again): that name written into (``b[0] = 0`` writes into
            # ``base``), or, when ``view`` is the whole array (``view = base``), ``base``
            # written into while the other name holds it. (An item read, ``view =
            # base[1]``, is a copy when ``base`` is a vector; where it may be a view, the
            # write into ``base`` checks it when run.)
            others = handed_on(copied - {base}, handed)
            hit = others | {base} if others and isinstance(s.value, gast.Name) else others
            if seen == total and hit and any(hit & parts(t)[1] for t in block[last:]):
                seen = -1
            if seen == total and others and not _read_before_written(block[i + 1:], others,
                                                                      base, loads, parts):
                seen = -1  # (``b = view``, then ``base`` written, then ``b`` read)
            if seen == total:
                safe.add(id(s))
    return safe


def _holding(held, s, base, scope, handed, once, handings):
    """The names holding ``base``'s array after the statement ``s``, ``held`` those before
    it: a binding to one of them (or a view of it) adds its name, a binding to another
    value removes it (``base`` bound again: its new array, with the names bound once to
    it, ``_array_class``); in a branch or loop only additions count. ``handings``: what
    ``_handing`` found of each statement, kept across calls."""
    found = handings.get(id(s))
    if found is None:
        found = handings[id(s)] = _handing(s, scope)
    if isinstance(found, tuple):
        name, sources, inplace = found
        if sources & held:
            return held | {name}
        if name == base and not inplace:
            return {base} | _array_class(base, handed, once)
        if name in held and not inplace:
            return held - {name}
        return held
    added = set(held)
    for sources, names in found:
        if sources & added:
            added |= names
    return added


def _handing(s, scope):
    """What ``_holding`` reads of ``s``, whatever the names held: for ``name = value``,
    (name, the names whose arrays the value may share, whether it is ``name += ...``);
    for another statement, (those names, the names bound) of each assignment in it, in
    order (a display's items' names counted: ``a, b = x, y``)."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
        return s.targets[0].id, _shared_sources(s.value, scope), getattr(s, "sg_inplace", False)
    found = []
    for t in walk_stmts([s]):
        if isinstance(t, gast.Assign):
            sources = set(_shared_sources(t.value, scope))
            if isinstance(t.value, (gast.Tuple, gast.List)):
                for e in t.value.elts:
                    sources |= _shared_sources(e, scope)
            if sources:
                found.append((sources, {n.id for target in t.targets for n in gast.walk(target)
                                        if isinstance(n, gast.Name)}))
    return found


def _array_class(name, handed, once):
    """``name`` and the names its array was handed to (``b = a``, ``g = a[1:]``),
    transitively, through names bound once (``once``: each holds the one array it was
    handed wherever it is written into; a name bound again is followed by ``_holding``)."""
    pairs = [(a, b) for a, b in handed if a in once and b in once]
    return handed_on({name}, pairs)


def _blocks(body):
    """``body`` and every block nested in it (the bodies and ``else`` blocks of ``if``,
    ``for`` and ``while``)."""
    return [body] + [getattr(s, f) for s in walk_stmts(body) for f in ("body", "orelse")
                     if isinstance(s, (gast.If, gast.For, gast.While))]


def _read_before_written(stmts, holders, base, loads, parts):
    """Is every read of the names in ``holders`` (another name for a view of ``base``) in
    ``stmts``, and before any write into ``base`` (not in a loop that writes it)?"""
    found = {}
    wrote = False
    for s in stmts:
        names, written = parts(s)
        reads = [n.id for n in names if n.id in holders and isinstance(n.ctx, gast.Load)]
        for name in reads:
            found[name] = found.get(name, 0) + 1
        compound = isinstance(s, (gast.If, gast.For, gast.While))
        if reads and (wrote or compound and base in written):
            return False
        wrote = wrote or base in written
    return all(found.get(name, 0) == loads.get(name, 0) for name in holders)


def _kept(stmt, name, scope):
    """Does ``stmt`` put ``name``'s value where it outlives the statement: an item of a
    display, an argument of a call that may keep it, ``xs.append(name)``?"""
    for n in T.walk(stmt):
        if isinstance(n, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
            items = n.values if isinstance(n, gast.Dict) else n.elts
            if any(isinstance(e, gast.Name) and e.id == name for e in items):
                return True
        elif isinstance(n, gast.Call) and any(isinstance(a, gast.Name) and a.id == name
                                              for a in n.args):
            f = n.func
            if isinstance(f, gast.Attribute) and f.attr in MUTATORS or _may_keep(n, scope):
                return True
    return False


def _reads_no_value(stmt, name):
    """Is every read of ``name`` in ``stmt`` one whose derivative does not need its value:
    an operand of ``+``/``-``, the whole value assigned, or copied (``_sg.copy_slot(t)``)?"""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Name):
        return True
    ok = set()
    for n in T.walk(stmt):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in ("copy_slot", "copy") and len(n.args) == 1:
            ok |= {id(n.args[0])}  # (``_sg.copy_slot(t)``, ``np.copy(t)``: a copy)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr == "copy" and not n.args and not n.keywords:
            ok |= {id(n.func.value)}  # (``t.copy()``)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr == "view_places":
            ok |= {id(a) for a in n.args}  # (where a view's items are: no value read)
        if isinstance(n, gast.BinOp) and isinstance(n.op, (gast.Add, gast.Sub)):
            ok |= {id(e) for e in (n.left, n.right) if isinstance(e, gast.Name)}
        elif isinstance(n, gast.UnaryOp) and isinstance(n.op, (gast.USub, gast.UAdd)):
            if isinstance(n.operand, gast.Name):
                ok.add(id(n.operand))
    return all(id(n) in ok for n in T.walk(stmt)
               if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load))


def last_reads(body):
    """id of an assignment -> the names it reads for the last time: no statement written
    after it reads them, no def reads them (a closure reads the variable when called),
    and each loop around it binds them anew, at the top of its body, before anything
    there reads them (each trip's is then a new binding, as an inlined helper's locals
    are). ``b = a`` of such an ``a`` moves its array; so does a tuple display of them."""
    order = []  # (statement, the loops around it), in the order written

    def visit(stmts, loops):
        for s in stmts:
            order.append((s, loops))
            if isinstance(s, gast.FunctionDef):
                continue  # (its reads are the def statement's, below)
            inner = loops + (s,) if isinstance(s, (gast.For, gast.While)) else loops
            visit(s.body if hasattr(s, "body") else [], inner)
            for handler in getattr(s, "handlers", []):
                visit(handler.body, loops)
            visit(getattr(s, "orelse", []), loops)
            visit(getattr(s, "finalbody", []), loops)
    visit(body, ())
    reads = {}  # name -> positions in ``order`` of the statements that read it
    in_defs = set()
    for at, (s, _) in enumerate(order):
        for n in _walk_own(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                reads.setdefault(n.id, []).append(at)
                if isinstance(s, gast.FunctionDef):
                    in_defs.add(n.id)
    out = {}
    bound_first = {}  # id(loop) -> _bound_first(loop), found once a loop
    for at, (s, loops) in enumerate(order):
        if isinstance(s, gast.Assign) and not any(
                isinstance(n, (gast.Lambda, gast.GeneratorExp)) for n in T.walk(s.value)):
            # (A lambda or a generator reads its names later, when it runs.)
            names = {n.id for n in T.walk(s.value)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
            for loop in loops:
                if id(loop) not in bound_first:
                    bound_first[id(loop)] = _bound_first(loop)
            last = {a for a in names if a not in in_defs and max(reads[a]) == at
                    and all(bound_first[id(loop)].get(a, False) for loop in loops)}
            if last:
                out[id(s)] = frozenset(last)
    return out


def _bound_first(loop):
    """For each name ``loop`` mentions: does each trip bind it (a plain assignment at the
    top of its body, reading it not) before anything in the loop reads it?"""
    first = {}
    if isinstance(loop, gast.While):
        first.update((n.id, False) for n in T.walk(loop.test) if isinstance(n, gast.Name))
    for s in loop.body:
        named = {}  # the names this statement is the first to mention -> their nodes
        for n in T.walk(s):
            if isinstance(n, gast.Name) and n.id not in first:
                named.setdefault(n.id, []).append(n)
        targets = {t.id for t in s.targets if isinstance(t, gast.Name)} \
            if isinstance(s, gast.Assign) else ()
        for name, nodes in named.items():
            first[name] = name in targets and all(isinstance(n.ctx, gast.Store) for n in nodes)
    return first


def _walk_own(stmt):
    """The nodes of one statement, not of the blocks nested in it."""
    if isinstance(stmt, (gast.If, gast.For, gast.While)):
        head = stmt.test if not isinstance(stmt, gast.For) else stmt.iter
        return list(T.walk(head))
    return list(T.walk(stmt))


def _walk_value(s):
    """The nodes of ``s``'s value, but not the tuple of ``a, b = b, a``: Python
    unpacks it at once, so it never holds the items where others can see them."""
    value = s.value
    if any(isinstance(t, (gast.Tuple, gast.List)) for t in getattr(s, "targets", [])) \
            and isinstance(value, (gast.Tuple, gast.List)):
        return [n for e in value.elts for n in gast.walk(e)]
    return gast.walk(value)


def _read_twice(value):
    """The names ``value`` reads more than once."""
    seen, twice = set(), set()
    for n in gast.walk(value):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            (twice if n.id in seen else seen).add(n.id)
    return twice


def _bindings(s):
    """(target name, value) pairs of an assignment; a value of None stands for an
    item of a value unpacked into several names (``v, c = pair``)."""
    pairs = []
    for target in getattr(s, "targets", []):
        if isinstance(target, gast.Name):
            pairs.append((target.id, s.value))
        elif isinstance(target, (gast.Tuple, gast.List)):
            value = s.value
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts) \
                    and not any(isinstance(e, gast.Starred) for e in value.elts):
                for t, v in zip(target.elts, value.elts):
                    pairs += _bindings(gast.Assign([t], v))
            else:
                pairs += [(n.id, None) for n in T.walk(target) if isinstance(n, gast.Name)]
    return pairs


def _loaded_names(body):
    return {n.id for s in body for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def bound_only_to(body, accepted):
    """Names every binding of which in ``body`` is a value ``accepted(value)`` takes (an
    item of something unpacked, or a loop's variable, never is)."""
    values = {}
    for s in walk_stmts(body):
        for target, value in _bindings(s) if isinstance(s, gast.Assign) else ():
            values.setdefault(target, []).append(value)
        if isinstance(s, gast.For):  # (bound to items, never a display)
            for n in T.walk(s.target):
                if isinstance(n, gast.Name):
                    values.setdefault(n.id, []).append(None)
    return {name for name, vs in values.items() if all(v is not None and accepted(v) for v in vs)}


def _shared_by(target, value, loads, scope, lists=frozenset(), last_read=False):
    """The names that binding ``target`` to ``value`` may make share one array.
    ``last_read``: nothing reads ``value`` (a name) after this binding (``last_reads``)."""
    if value is None:
        return {target}  # an item of something unpacked: may be anyone's array
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Name) \
            and value.slice.id in lists:
        return set()  # (``a[u_t]``, ``u_t`` a list: advanced indexing makes a new array)
    if isinstance(value, gast.Call) and scope.value(value.func) is copy.deepcopy:
        return set()  # (new arrays all through, as the compiler builds it: calls._copied)
    if isinstance(value, gast.Call) and scope.value(value.func) is copy.copy:
        # a new container holding the argument's own items
        return {target} | set().union(*(_shared_sources(a, scope) for a in value.args))
    if identity_call(value, scope):
        value = value.args[0]  # (``y = stop_gradient(y)``: ``y`` itself)
    if isinstance(value, gast.Call) and _hands_back_held(value, scope):
        # ``d.get(k, y)``, ``stack.pop()``, ``next(iter(ys), y)``: an item held elsewhere,
        # or an argument itself
        args = list(value.args) + [k.value for k in value.keywords]
        return {target}.union(*(_shared_sources(a, scope) for a in args))
    sources = _shared_sources(value, scope)
    if isinstance(value, gast.Name) and (loads.get(value.id) == 1 or last_read
                                         or value.id == target):
        return set()  # the only read of the name: moved, not shared; ``a = a``: nothing
    if sources:
        return {target} | sources
    if isinstance(value, (gast.Attribute, gast.Subscript)):
        return {target}  # an object's attribute or a container's item
    if isinstance(value, gast.Call) and isinstance(scope.value(value.func), _USER_CODE) \
            and _may_keep(value, scope):
        # A user function's result may be an argument's array (``y = ident(h)``): until
        # it is inlined, which shows what it returns, a write into ``y`` waits.
        args = list(value.args) + [k.value for k in value.keywords]
        held = set().union(*(_shared_sources(a, scope) for a in args))
        held |= _free_names(scope.value(value.func))  # (``get()`` returning a captured ``Y``)
        return {target} | held if held else set()
    return set()


# Methods of containers that give back an object they hold (or their default argument).
_HANDING_METHODS = frozenset({"get", "pop", "popitem", "setdefault", "popleft", "__getitem__"})


def identity_call(value, scope):
    """``stop_gradient(y)`` of a name: ``y`` itself when it runs (an array's), as a
    ``stop_recording`` block's code cuts what it changed."""
    return isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords \
        and isinstance(value.args[0], gast.Name) and scope.value(value.func) is rt.stop_gradient


def _hands_back_held(call, scope):
    """Does ``call`` give back an object a container holds, or one of its arguments, as it
    is (a container's ``get``/``pop``/``setdefault``, ``next``, ``operator.getitem``)?"""
    f = call.func
    if isinstance(f, gast.Attribute) and f.attr in _HANDING_METHODS:
        owner = scope.value(f.value)
        return not isinstance(owner, (types.ModuleType, np.ndarray))
    return among(scope.value(f), builtins.next, operator.getitem, operator.itemgetter)


def _free_names(fn):
    """The enclosing variables a nested def (or closure) reads, any of whose arrays it may
    return (hunt 16: ``def get(): return Y.T`` then ``b = get(); Y += 1``)."""
    if isinstance(fn, gast.FunctionDef):
        params = {a.id for a in fn.args.args + fn.args.kwonlyargs}
        bound = {n.id for n in T.walk(fn) if isinstance(n, gast.Name)
                 and not isinstance(n.ctx, gast.Load)}
        return {n.id for n in T.walk(fn) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)} - params - bound
    code = getattr(fn, "__code__", None)
    return set(code.co_freevars) if code is not None else set()


def _shared_source(value, scope):
    """The variable whose array ``value`` may share: ``y`` in ``y``, ``y[1:]``, ``y.T``."""
    sources = _shared_sources(value, scope)
    return next(iter(sources)) if len(sources) == 1 else None


def _shared_sources(value, scope):
    """The variables whose arrays ``value`` may share: ``y`` in ``y``, ``y[1:]``, ``y.T``,
    both ``a`` and ``b`` in ``a if c else b``."""
    if isinstance(value, gast.IfExp):
        return _shared_sources(value.body, scope) | _shared_sources(value.orelse, scope)
    if isinstance(value, gast.BoolOp):  # ``a or b`` is one of its operands
        return set().union(*(_shared_sources(v, scope) for v in value.values))
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, gast.Subscript):
        # Even ``a[0]`` is a view when ``a`` has two dimensions; ``a.T[0]``, ``a[0][1:]``
        # are views of ``a`` (hunt 15). A list of indices makes a copy (``a[[0, 2]]``).
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if any(isinstance(p, gast.List) for p in parts):
            return set()
        return _shared_sources(value.value, scope)
    if isinstance(value, gast.Attribute) and value.attr in table.VIEW_ATTRIBUTES:
        return _shared_sources(value.value, scope)
    if isinstance(value, gast.Call):
        f = value.func
        if _copies_always(value) and _numpy_call(value, scope):
            return set()  # ``np.asarray(x, copy=True)``, ``x.reshape(-1, copy=True)``
        if isinstance(f, gast.Attribute) and (f.attr in table.VIEW_METHODS
                                              or _copies_only_if_needed(value)) \
                and not isinstance(scope.value(f.value), types.ModuleType):
            # (``x.T.ravel()``: through ``x.T``; ``np.transpose(x)`` is a function's, below)
            return _shared_sources(f.value, scope)
        obj = scope.value(f)
        if obj is builtins.max or obj is builtins.min:
            # The largest of its arguments (or of a list's items) is one of them itself.
            args = value.args[0].elts if len(value.args) == 1 \
                and isinstance(value.args[0], (gast.List, gast.Tuple)) else value.args
            return {a.id for a in args if isinstance(a, gast.Name)}
        if among(obj, np.broadcast_arrays, np.lib.stride_tricks.sliding_window_view) \
                or obj is np.meshgrid and _copies_only_if_needed(value):
            # Views of their arguments (srcgrad's own code for them copies: a write into
            # an argument after the call is not seen through its result there).
            return set().union(*(_shared_sources(a.value if isinstance(a, gast.Starred)
                                                 else a, scope) for a in value.args))
        if getattr(obj, "__name__", None) == "einsum":
            # A transposition or a diagonal of one operand is a view of it.
            return {a.id for a in value.args[1:] if isinstance(a, gast.Name)} \
                if einsum_may_view(value) else set()
        if (getattr(obj, "__name__", None) in table.VIEW_FUNCTIONS
                or _copies_only_if_needed(value)) and value.args:
            return _shared_sources(value.args[0], scope)  # (``np.require(x.T)``: ``x``)
    return set()


def einsum_may_view(call):
    """May ``np.einsum(...)`` give a view of its operand (``'ii->i'``, ``'ij->ji'``)? Only
    with one operand; with more it computes a new array."""
    args = call.args
    if args and isinstance(args[0], gast.Constant) and isinstance(args[0].value, str):
        return len(args) == 2
    return len(args) <= 3  # (``np.einsum(a, [0, 0], [0])``)


def _numpy_call(call, scope):
    """A call of NumPy's (a function, or an array's method), not of code that may use
    ``copy=`` to mean something else."""
    f = call.func
    fn = scope.value(f)
    if fn is MISSING:
        return isinstance(f, gast.Attribute) and f.attr in ("astype", "reshape")
    return is_library(fn) and (getattr(fn, "__module__", None) or "").startswith("numpy") \
        or isinstance(getattr(fn, "__self__", None), np.ndarray)


def _copies_always(call):
    """``copy=True`` given to NumPy (``np.asarray``, ``np.array``, ``astype``, NumPy 2's
    ``reshape``): a new array, whatever the argument."""
    return any(k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is True
               for k in call.keywords)


def _copies_only_if_needed(call):
    """``copy=False`` or ``copy=None`` (``x.astype(float, copy=False)``, ``np.array(x,
    copy=None)``): the argument itself where no copy is needed (or anything but the
    constant True: not known to copy)."""
    return any(k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True)
               for k in call.keywords)
