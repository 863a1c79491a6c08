"""What a block run once keeps for its backward code, as the block left it.

The backward code reads the block's record when ``gradient`` is called, after
the user's code has gone on. ``keep_as_computed`` copies, when the block
ends, the arrays of the record the user can reach (which names those are is
``ir/escapes.py``'s finding), so that writing into them afterwards does not
change the gradient (TensorFlow's is at the values the block computed with).
``pristine`` gives each backward run of a persistent tape its own copy of
what that code restores in place (stacks it pops, slots it writes back).

No copy is needed when nothing can write into those arrays before the backward
code has read them: the tape is not persistent and the statement right after
the block takes its gradient, its arguments read without running the user's
code (``gradient_next``, ``quiet_until_gradient``). The gradient then checks
that it is that statement which asks (``unkept``).

Copies keep the record's own sharing: a view the record holds of an array it
also holds (``c_row = np.squeeze(c)`` before ``c[-1] = ...``) is a view of
the copy, so that the backward code's restoring a slot of ``c`` restores it
in the view too, as it does in the arrays the block computed with.
"""
import inspect
import types

import gast
import numpy as np

_SCALARS = frozenset({float, int, bool, complex, type(None), np.float64, np.float32, np.int64,
                      np.bool_, range})


_CONTAINERS = frozenset({list, tuple, dict})
_HOLDERS = _CONTAINERS | {np.ndarray}


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _arrays(value, out):
    """The arrays in ``value`` (an array, or lists, tuples and dicts of them)."""
    kind = type(value)
    if kind is np.ndarray:
        out.append(value)
    elif (kind is list or kind is tuple) and not _SCALARS.issuperset(map(type, value)):
        for v in value:
            _arrays(v, out)
    elif kind is dict:
        for v in value.values():
            _arrays(v, out)
    return out


class _Copier:
    """Copies of arrays that share memory where the originals did."""

    def __init__(self, arrays):
        groups = {}
        for a in arrays:
            groups.setdefault(id(_root(a)), {})[id(a)] = a
        self.roots = {}  # id(root) -> (root, its copy), for roots of two or more arrays
        for members in groups.values():
            root = _root(next(iter(members.values())))
            if len(members) > 1 and (root.flags.c_contiguous or root.flags.f_contiguous):
                twin = root.copy(order="K")  # the same layout: the views' strides fit it
                self.roots[id(root)] = (root, twin, twin.ravel(order="K"))
        self.memo = {}

    def copy(self, a):
        c = self.memo.get(id(a))
        if c is not None:
            return c
        shared = self.roots.get(id(_root(a)))
        if shared is None:
            c = a.copy()
        elif a is shared[0]:
            c = shared[1]
        else:
            root, _, memory = shared
            offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            c = np.ndarray(a.shape, a.dtype, buffer=memory, offset=offset, strides=a.strides)
            if not a.flags.writeable:
                c.flags.writeable = False
        self.memo[id(a)] = c
        return c


def _copied(value, copy, always, memo=None):
    """``value`` with its arrays replaced by ``copy(array)`` (or left, where ``copy``
    returns the array itself); containers are new where an item changed, or always.
    ``memo`` (id -> copy): a container met again, under another name of the record
    (``vals`` and ``vals_prev``: the backward code appends to one and pops from the
    other) or as an item twice, is the same copy, as it was one object."""
    kind = type(value)
    if kind is np.ndarray:
        return copy(value)
    if kind is not list and kind is not tuple and kind is not dict:
        return value
    if memo is not None and id(value) in memo:
        return memo[id(value)]
    if kind is dict:
        items = {k: _copied(v, copy, always, memo) for k, v in value.items()}
        out = value if not always and all(items[k] is v for k, v in value.items()) else items
    else:
        if _SCALARS.issuperset(map(type, value)):
            items = list(value)  # a stack of numbers: nothing to copy in it
        else:
            items = [_copied(v, copy, always, memo) for v in value]
        if not always and all(a is b for a, b in zip(items, value)):
            out = value
        else:
            out = items if kind is list else tuple(items)
    if memo is not None:
        memo[id(value)] = out
    return out


def keep_as_computed(record, names, containers_only=(), inputs_only=(), inputs=()):
    """Replace the arrays under ``names`` in ``record`` (also inside lists, tuples and
    dicts, which are copied too) by copies, so that writes the user's code makes
    after the block do not change what the backward code reads; under
    ``containers_only``, only the arrays inside containers; under ``inputs_only``,
    only the arrays that are one of ``inputs`` (the block's input values).
    Returns {id(copy): original} for the copies the backward code may report a
    gradient for."""
    input_ids = {id(v) for v in inputs if type(v) is np.ndarray}

    def wanted(a):
        return a.flags.writeable or a.base is not None  # a Variable's array: frozen

    chosen = []  # (name, which arrays of it to copy)
    for name in names:
        # (Most of what a record holds is no array nor container: shape stand-ins,
        # Variables, numbers. Passed over at the cost of a type check: this runs
        # each time a block does.)
        if type(record.get(name)) in _HOLDERS:
            chosen.append((name, wanted, True))
    for name in containers_only:
        if type(record.get(name)) in _CONTAINERS:
            chosen.append((name, wanted, False))
    for name in inputs_only:
        if type(record.get(name)) in _HOLDERS:
            chosen.append((name, lambda a: id(a) in input_ids and wanted(a), False))
    if not chosen:
        return {}
    if all(type(record[name]) is np.ndarray for name, _, _ in chosen):
        plain = _copied_plain(record, chosen)
        if plain is not None:
            return plain
    copier = _Copier([a for name, want, _ in chosen for a in _arrays(record[name], [])
                      if want(a)])
    originals = {}

    def copy(a, want):
        return _noted(copier.copy(a), a, originals) if want(a) else a

    memo = {}  # (``chosen`` lists the names copied always first)
    for name, want, always in chosen:
        value = record[name]
        new = _copied(value, lambda a, want=want: copy(a, want), always, memo)
        if new is not value:
            originals[id(new)] = value
        record[name] = new
    return originals


def _copied_plain(record, chosen):
    """``keep_as_computed`` where every chosen value is an array that owns its memory (no
    view, so no sharing to keep between the copies): each array copied once. None
    if some array is a view."""
    todo = [(name, record[name]) for name, want, _ in chosen if want(record[name])]
    if any(a.base is not None for _, a in todo):
        return None
    copies, originals = {}, {}
    for name, a in todo:
        c = copies.get(id(a))
        if c is None:
            c = copies[id(a)] = a.copy()
            originals[id(c)] = a
        record[name] = c
    return originals


def pristine(record, names):
    """``record`` with the values under ``names`` copied, lists, dicts, tuples and arrays
    in them too, and the arrays of other names that share memory with those made
    views of the copies: the backward code restores a stack by popping it and a
    slot by writing into the array, and a persistent tape runs it again. Returns
    the copy and {id(copy): original}."""
    restored = [a for n in names if n in record for a in _arrays(record[n], [])]
    roots = {id(_root(a)) for a in restored}
    sharing = [n for n in record if n not in names
               and any(id(_root(a)) in roots for a in _arrays(record[n], []))]
    copier = _Copier(restored + [a for n in sharing for a in _arrays(record[n], [])
                                 if id(_root(a)) in roots])
    originals = {}

    def copy(a):
        return _noted(copier.copy(a), a, originals) if id(_root(a)) in roots else a

    out = dict(record)
    memo = {}
    for n in names:
        if n in record:
            out[n] = _copied(record[n], lambda a: _noted(copier.copy(a), a, originals), True,
                             memo)
            if out[n] is not record[n]:
                originals[id(out[n])] = record[n]
    for n in sharing:
        out[n] = _copied(record[n], copy, False)
    # A container restored under one name and held under another is one copy.
    for n, value in record.items():
        if n not in names and type(value) in _CONTAINERS and id(value) in memo:
            out[n] = memo[id(value)]
    return out, originals


def _noted(copy, original, originals):
    originals[id(copy)] = original
    return copy


_TAKES = ("gradient", "jacobian", "batch_jacobian")


def gradient_next(region):
    """If the statement after ``region``'s block takes its tape's gradient and evaluates
    nothing else than names, constants, displays of them and attributes of names:
    those attributes (each a tuple of names, ``("model", "variables")``), read
    quietly or not (``quiet_until_gradient``) when the block ends. Else False."""
    found = region.gradient_next
    if found is None:
        found = region.gradient_next = _gradient_next(region)
    return found


def _gradient_next(region):
    s = region.next_stmt
    if region.resume is not None:
        return False  # statements of the block run as written after its record is made
    if region.tape_name is None or not isinstance(s, (gast.Expr, gast.Assign, gast.AnnAssign,
                                                       gast.Return)):
        return False  # (an augmented assignment reads its target first)
    call = s.value
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr in _TAKES and isinstance(call.func.value, gast.Name)
            and call.func.value.id == region.tape_name):
        return False
    chains = []
    if any(k.arg is None for k in call.keywords):
        return False  # (``**options``: a mapping's keys() runs)
    if not all(_quiet(arg, chains) for arg in call.args + [k.value for k in call.keywords]):
        return False
    return tuple(chains)


def _quiet(node, chains):
    """Does evaluating ``node`` run none of the user's code (attribute reads aside,
    collected in ``chains`` and checked when the block ends)?"""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, (gast.List, gast.Tuple)):
        return all(_quiet(e, chains) for e in node.elts)
    if isinstance(node, gast.Dict):  # (keys hashed: constants only)
        return all(isinstance(k, gast.Constant) for k in node.keys) \
            and all(_quiet(v, chains) for v in node.values)
    chain = []
    while isinstance(node, gast.Attribute):
        chain.append(node.attr)
        node = node.value
    if chain and isinstance(node, gast.Name):
        chains.append((node.id,) + tuple(reversed(chain)))
        return True
    return False


def quiet_until_gradient(region, frame, bound, read):
    """Does nothing run between the end of ``region``'s block and the backward code
    reading its record (``gradient_next``)? ``bound``: the variables the block binds;
    ``read``: those it read when it started (what the others still hold);
    ``frame``: where it runs."""
    chains = gradient_next(region)
    if chains is False:
        return False
    if not chains:
        return True
    code = frame.f_code
    for root, *attributes in chains:
        if root in bound:
            obj = bound[root]
        elif root in read and code.co_flags & inspect.CO_OPTIMIZED \
                and root in code.co_varnames and root not in code.co_cellvars:
            # A function's own local the block does not bind: what the block found (no
            # callee can rebind it), without building the dict of the frame's locals.
            obj = read[root]
        else:
            for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
                if root in scope:
                    obj = scope[root]
                    break
            else:
                return False
        for name in attributes:
            obj = _read_quietly(obj, name)
            if obj is _NOISY:
                return False
    return True


_NOISY = object()


def _read_quietly(obj, name):
    """``obj.name`` if Python reads it from a dictionary, running no code of the user's
    (an instance's own attribute, a class's plain one, a module's); else ``_NOISY``
    (a property, a method, ``__getattr__``)."""
    kind = type(obj)
    if isinstance(obj, types.ModuleType):
        return obj.__dict__.get(name, _NOISY)
    if kind.__getattribute__ is not object.__getattribute__:
        return _NOISY
    for klass in kind.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            if hasattr(type(found), "__get__"):
                return _NOISY  # a descriptor's code runs (an instance's own would not be
                # read past a property; functions make methods)
            break
    else:
        found = _NOISY
    own = getattr(obj, "__dict__", None)
    if type(own) is dict and name in own:
        return own[name]
    return found
