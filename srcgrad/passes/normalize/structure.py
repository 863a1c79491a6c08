"""What the code shows, when compiling, of the lists, tuples and dicts it builds: how
many items, which keys, and an expression for each item.

Read to spread ``f(*args)`` and ``f(**kw)`` into one argument per item, to build
``dict(...)`` and displays holding ``*items`` / ``**mapping`` as the display they
make, and to read ``d.get(key)`` of a dict whose keys are known. Part of the
normalize pass: ``Facts`` is made for each round over the function body::

    args = (x, y * 2)                 args = (x, y * 2)
    kw = {"scale": s}         ->      kw = {"scale": s}
    f(*args, **kw)                    f(args[0], args[1], scale=kw["scale"])

A name's structure is trusted only where the name holds one value the whole
time: bound once (a parameter: not rebound) and never written into (an item
stored or deleted, a method that changes it called, on it or on another name for
it). An item is read back from the container when the code runs (``args[0]``),
never copied from the display that built it, whose names may be rebound since.
"""
import builtins
import copy
import dataclasses

import gast

from ... import trees
from ...ir import templates as T
from ...ir.aliasing import MUTATORS
from ...ir.names import walk_stmts
from ...ir.resolve import MISSING

_DISPLAYS = {gast.List: list, gast.Tuple: tuple, gast.Dict: dict, gast.Set: set}
# Keys compiled in as constants (``d.get(KEY)`` with a global ``KEY``): guarded by value.
_KEY_TYPES = (str, int, bool, float, type(None))
_GLOBAL_KEYS_MAX = 64  # (a module's dict spread or merged item by item)


def mutated_containers(body):
    """Names whose container a statement may change: an item stored or deleted, a
    mutating method called, on it or on a name it was copied to (``other = pairs``).
    A change through an item or attribute (``holder[0].append(v)``) counts for the
    name at its root and for every container held in another (which it may be)."""
    out, copies, held = set(), [], set()
    through_items = False
    for node in T.walk(gast.Module(list(body), [])):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Name):
            copies += [(t.id, node.value.id) for t in node.targets if isinstance(t, gast.Name)]
        if isinstance(node, (gast.List, gast.Tuple, gast.Set)):
            held |= {e.id for e in node.elts if isinstance(e, gast.Name)}
        elif isinstance(node, gast.Dict):
            held |= {v.id for v in node.values if isinstance(v, gast.Name)}
        base = None
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, (gast.Store, gast.Del)):
            base = node.value
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in MUTATORS:
            base = node.func.value
            if node.func.attr in ("append", "insert", "extend", "add"):
                held |= {a.id for a in node.args if isinstance(a, gast.Name)}
        if base is None:
            continue
        if not isinstance(base, gast.Name):
            through_items = True
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
        if isinstance(base, gast.Name):
            out.add(base.id)
    if through_items:
        out |= held
    changed = True
    while changed:
        changed = False
        for copy_name, name in copies:
            for a, b in ((copy_name, name), (name, copy_name)):
                if a in out and b not in out:
                    out.add(b)
                    changed = True
    return out


class Facts:
    """The structure of the containers a function body builds, for one round of the
    normalizer (``norm``: its scope, context and counts of bindings)."""

    def __init__(self, norm, fn):
        self.norm = norm
        a = fn.args
        self.params = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
        self.params |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
        self.mutated = mutated_containers(fn.body)
        self._body = fn.body
        self.bound = {}  # name -> the value of its one binding
        self.values = {}  # name -> the values of its bindings by ``name = value``
        for s in walk_stmts(fn.body):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name):
                self.bound[s.targets[0].id] = s.value
                self.values.setdefault(s.targets[0].id, []).append(s.value)
        self._seen = set()

    def record_class(self, name):
        """The dataclass or namedtuple class of every object ``name`` holds, where each of
        its bindings builds one (``p = Particle(x0, v0)``) or replaces fields of the one it
        holds (``p = dataclasses.replace(p, v=...)``, ``p = p._replace(v=...)``); or None.
        (``p`` built from constants first is an object the compiler does not read by
        fields: a replacement reads them from it.)"""
        values = self.values.get(name, ())
        if not values or len(values) != self.norm.counts.get(name) or name in self.params:
            return None
        classes = set()
        for v in values:
            if not isinstance(v, gast.Call):
                return None
            fn = self.norm.scope.value(v.func)
            if isinstance(fn, type) and trees.record_fields(fn) is not None:
                classes.add(fn)
            elif not (fn is dataclasses.replace and v.args and _is_name(v.args[0], name)
                      or isinstance(v.func, gast.Attribute) and v.func.attr == "_replace"
                      and _is_name(v.func.value, name)):
                return None
        return classes.pop() if len(classes) == 1 else None

    # -- names ------------------------------------------------------------------
    def stable(self, name):
        """Does ``name`` hold one container the whole time, never written into?"""
        count = self.norm.counts.get(name, 0)
        if name in self.mutated:
            return False
        return count == 0 if name in self.params else count == 1

    def _binding(self, name):
        """The value ``name`` is bound to, if it is stable; else None."""
        if not self.stable(name) or name in self.params:
            return None
        return self.bound.get(name)

    def bound_call(self, name):
        """The call a name bound once is bound to (``dfdx = sg.grad(f)``), or None."""
        value = self._binding(name)
        return value if isinstance(value, gast.Call) else None

    def _follow(self, node, fn, default=None):
        """``fn`` of the value a stable name is bound to (guarding against cycles)."""
        if not isinstance(node, gast.Name) or node.id in self._seen:
            return default
        value = self._binding(node.id)
        if value is None:
            return default
        self._seen.add(node.id)
        try:
            return fn(value)
        finally:
            self._seen.discard(node.id)

    def constant(self, node):
        """The value of a key known when compiling (a literal, a name bound once to one,
        a global or attribute holding a string or number), or MISSING."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Name) and node.id in self.norm.scope.locals:
            known = self.norm.known_constants().get(node.id, MISSING)
            if type(known) in _KEY_TYPES:  # (a parameter passed a string: keyed on it)
                return known
            return self._follow(node, self.constant, MISSING)
        if isinstance(node, (gast.Name, gast.Attribute)) \
                and not (isinstance(node, gast.Name) and node.id in self.norm.varied):
            value = self.norm.scope.value(node)
            if type(value) in _KEY_TYPES:
                return value
        return MISSING

    def _function(self, node):
        return self.norm.scope.value(node.func) if isinstance(node, gast.Call) else MISSING

    def container_type(self, node):
        """``list``, ``tuple``, ``dict`` or ``set`` if ``node`` is a display of one, or a
        name the code binds once to one (a parameter tree rebuilt from its leaves, ``p =
        (W, b)``), or a parameter holding a list, tuple or dict that the code never
        rebinds (the code is compiled for its type: ``cache._kind``); else None."""
        if isinstance(node, (gast.List, gast.Tuple, gast.Dict, gast.Set)):
            return _DISPLAYS[type(node)]
        if isinstance(node, gast.Name) and node.id in self.params:
            if not self.stable(node.id):
                return None
            ctx = self.norm.ctx
            value = getattr(ctx, "param_values", {}).get(
                node.id, getattr(ctx, "arg_values", {}).get(node.id))
            return type(value) if type(value) in (list, tuple, dict) else None
        return self._follow(node, self.container_type)

    # -- sequences ----------------------------------------------------------------
    def length(self, node):
        """How many items the list or tuple ``node`` holds, if the code shows it."""
        if isinstance(node, (gast.List, gast.Tuple)):
            total = 0
            for e in node.elts:
                n = self.length(e.value) if isinstance(e, gast.Starred) else 1
                if n is None:
                    return None
                total += n
            return total
        if isinstance(node, gast.Name):
            own = self.norm.ctx.tuples.get(node.id)  # the function's own ``*args``
            if own is not None and self.stable(node.id):
                return len(own)
            if node.id in self.params and self.stable(node.id):
                # A tuple passed in: the code is compiled for its length (cache._kind).
                ctx = self.norm.ctx
                value = ctx.param_values.get(node.id, ctx.arg_values.get(node.id))
                if type(value) is tuple:
                    return len(value)
            held = self.norm.scope.value(node)
            if type(held) is tuple:
                # A global's or a closure's tuple: the code's guards hold it, immutable.
                return len(held)
            return self._follow(node, self.length)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int:
            # ``params[0]`` of a tuple of tuples (``(W1, b1), (W2, b2) = params``)
            k = node.slice.value
            if node.value.id in self.params and self.stable(node.value.id):
                # (of a tuple passed in: the code is compiled for its structure)
                ctx = self.norm.ctx
                value = ctx.param_values.get(node.value.id, ctx.arg_values.get(node.value.id))
                if type(value) is tuple and -len(value) <= k < len(value) \
                        and type(value[k]) is tuple:
                    return len(value[k])
            item = self._display_item(node)
            return None if item is None else self.length(item)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
            cut = self._constant_slice(node.slice)
            n = self.length(node.value) if cut is not None else None
            return None if n is None else len(range(n)[cut])
        if isinstance(node, gast.Call) and not node.keywords and len(node.args) == 1 \
                and self._function(node) in (builtins.list, builtins.tuple):
            return self.length(node.args[0])
        view = self._dict_view(node)
        if view is not None:
            return len(view)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
            left, right = self.length(node.left), self.length(node.right)
            return None if left is None or right is None else left + right
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for seq, count in ((node.left, node.right), (node.right, node.left)):
                times = self.constant(count) if isinstance(count, gast.Constant) else MISSING
                n = self.length(seq)
                if n is not None and type(times) is int:
                    return n * max(times, 0)
        return None

    def _constant_slice(self, s):
        parts = [s.lower, s.upper, s.step]
        values = [None if p is None else self.constant(p) for p in parts]
        if any(v is MISSING or v is not None and type(v) is not int for v in values) \
                or values[2] == 0:
            return None
        return slice(*values)

    def items(self, node):
        """An expression for each item of the list or tuple ``node`` (what ``*node``
        spreads), reading it when the code runs; None if its length is not known."""
        if isinstance(node, (gast.List, gast.Tuple)):
            out = []
            for e in node.elts:
                inner = self.items(e.value) if isinstance(e, gast.Starred) else [e]
                if inner is None:
                    return None
                out += inner
            return out
        if isinstance(node, gast.Name):
            own = self.norm.ctx.tuples.get(node.id)
            if own is not None and self.stable(node.id):
                return [T.clone(e) for e in own]
            n = self.length(node)
            return None if n is None else [_item(node, i) for i in range(n)]
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) \
                and isinstance(node.value, gast.Name):
            cut = self._constant_slice(node.slice)
            whole = self.items(node.value) if cut is not None else None
            return None if whole is None else whole[cut]
        if isinstance(node, gast.Call) and not node.keywords and len(node.args) == 1 \
                and self._function(node) in (builtins.list, builtins.tuple):
            return self.items(node.args[0])
        return self._dict_view(node)

    def _dict_view(self, node):
        """The items of ``d.keys()``, ``d.values()`` or ``d.items()`` of a dict whose keys
        are known, in its order, or None."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                and node.func.attr in ("keys", "values", "items")
                and not node.args and not node.keywords):
            return None
        pairs = self.mapping(node.func.value)
        if pairs is None:
            return None
        kind = node.func.attr
        return [T.const(k) if kind == "keys" else v if kind == "values" else
                gast.Tuple([T.const(k), v], gast.Load()) for k, v in pairs]

    # -- dicts ----------------------------------------------------------------------
    def keys(self, node):
        """The keys of the dict ``node``, in order, if the code shows them."""
        pairs = self.mapping(node)
        return None if pairs is None else tuple(k for k, _ in pairs)

    def passed(self, node):
        """The value passed for a parameter the code never rebinds, or its item by
        constant keys (``params["l1"]["W"]``): the code is compiled for it (``cache._kind``
        keys a dict by its keys, a nested dict's too); MISSING where not known."""
        if isinstance(node, gast.Name):
            if node.id not in self.params or not self.stable(node.id):
                return MISSING
            ctx = self.norm.ctx
            return ctx.param_values.get(node.id, ctx.arg_values.get(node.id, MISSING))
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            outer = self.passed(node.value)
            key = node.slice.value
            if type(outer) is dict and type(key) in _KEY_TYPES and key in outer:
                return outer[key]
            if type(outer) is tuple and type(key) is int and -len(outer) <= key < len(outer):
                return outer[key]  # (``args[0]`` of ``*args``: compiled for its length)
        return MISSING

    def _display_item(self, node):
        """``t[k]`` of a name bound once to a tuple or list display: the display's item
        (what a helper's ``return a, b`` binds, inlined, read by ``a, b = helper(x)``),
        or ``d["l1"]`` of one bound once to a dict display (a parameter tree rebuilt from
        its leaves, ``W, b = params["l1"].values()``); or None."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and isinstance(node.slice, gast.Constant)
                and type(node.slice.value) in _KEY_TYPES):
            return None
        k = node.slice.value

        def item(display):
            if isinstance(display, gast.Name):  # (``a_params = params``, inlined)
                return self._follow(display, item)
            if type(k) is int and isinstance(display, (gast.Tuple, gast.List)) \
                    and -len(display.elts) <= k < len(display.elts) \
                    and not any(isinstance(e, gast.Starred) for e in display.elts):
                return display.elts[k]
            pairs = self.mapping(display) if isinstance(display, gast.Dict) else None
            return next((v for key, v in pairs if key == k and type(key) is type(k)), None) \
                if pairs is not None else None
        return self._follow(node.value, item)

    def mapping(self, node):
        """(key, expression of its value) for each item of the dict ``node`` (what
        ``**node`` spreads), or None if its keys are not known when compiling."""
        if isinstance(node, gast.Dict):
            pairs = []
            for k, v in zip(node.keys, node.values):
                if k is None:  # ``{**other, ...}``
                    inner = self.mapping(v)
                    if inner is None:
                        return None
                    pairs += inner
                    continue
                key = self.constant(k)
                if key is MISSING:
                    return None
                pairs.append((key, v))
            return _last_wins(pairs)
        if isinstance(node, gast.Name) and node.id not in self.norm.scope.locals:
            # A module's (or closure's) dict, ``DEFAULTS | params``: its keys as they are
            # now, guarded (another set of keys compiles anew); its values read when run.
            held = self.norm.scope.value(node)
            if type(held) is not dict or len(held) > _GLOBAL_KEYS_MAX \
                    or not all(type(k) in _KEY_TYPES for k in held):
                return None
            self.norm.ctx.guards.keys(held)
            return [(k, _item(node, k)) for k in held]
        if isinstance(node, gast.Name):
            if self.stable(node.id):
                keys = self.norm.ctx.dict_keys.get(node.id)
                if keys is None:
                    keys = self._follow(node, self.keys)
            else:
                keys = self._rebound_keys(node.id)
            return None if keys is None else [(k, _item(node, k)) for k in keys]
        if isinstance(node, gast.Call) and self._function(node) is builtins.dict:
            display = self.dict_display(node)
            return None if display is None else self.mapping(display)
        held = self.passed(node)
        if type(held) is dict and all(type(k) in _KEY_TYPES for k in held):
            return [(k, _item(node, k)) for k in held]  # (``params["l1"]`` of one passed)
        item = self._display_item(node)  # (``s, p = helper(x)`` of dicts it returns)
        keys = None if item is None else self.keys(item)
        return None if keys is None else [(k, _item(node, k)) for k in keys]

    def _rebound_keys(self, name):
        """The keys of a dict ``name`` holds where it is bound more than once, each time
        to a dict of the same keys in the same order: a display (or ``dict(...)``) whose
        keys are known, or a comprehension over ``name`` itself that keeps its keys
        (``p = {k: v - lr * g[k] for k, v in p.items()}`` in an optimizer's loop); a
        parameter's first. None where another binding, or a write, may change them."""
        values = self.values.get(name, ())
        if not values or len(values) != self.norm.counts.get(name) or name in self._seen:
            return None
        stored = self._stored_keys(name) if name in self.mutated else ()
        if stored is None:
            return None
        known = [self.norm.ctx.dict_keys.get(name)] if name in self.params else []
        if name in self.params and known[0] is None:
            return None
        self._seen.add(name)
        try:
            for v in values:
                if not _keeps_keys(v, name) and not self._copy_of(v, name):
                    known.append(self.keys(v))
        finally:
            self._seen.discard(name)
        if not known or any(k is None or k != known[0] for k in known) \
                or not set(stored) <= set(known[0]):
            return None
        return known[0]

    def _stored_keys(self, name):
        """The constant keys of the stores ``name[k] = v`` into the container ``name``,
        or None where anything else changes it (another store or mutating call, a
        store through an item, a copy of its name)."""
        keys = []
        for node in T.walk(gast.Module(list(self._body), [])):
            if isinstance(node, gast.Assign) and _is_name(node.value, name):
                return None  # (another name for it)
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, (gast.Store, gast.Del)):
                root = node.value
                while isinstance(root, (gast.Subscript, gast.Attribute)):
                    root = root.value
                if not _is_name(root, name):
                    continue
                if not (_is_name(node.value, name) and isinstance(node.ctx, gast.Store)
                        and isinstance(node.slice, gast.Constant)):
                    return None
                keys.append(node.slice.value)
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and node.func.attr in MUTATORS and _is_name(node.func.value, name):
                return None
        return keys

    def copied(self, value):
        """What ``value`` copies, keys in their order: ``x`` of ``dict(x)``, ``x.copy()``,
        ``copy.copy(x)``, ``copy.deepcopy(x)``; or None."""
        if not isinstance(value, gast.Call) or value.keywords:
            return None
        if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" \
                and not value.args:
            return value.func.value
        return value.args[0] if len(value.args) == 1 \
            and self._function(value) in (dict, copy.copy, copy.deepcopy) else None

    def _copy_of(self, value, name):
        """Is ``value`` a copy of the dict ``name`` holds (``p = copy.copy(p)``)?"""
        return _is_name(self.copied(value), name)

    def dict_display(self, call):
        """``dict(...)`` as the dict display it builds: ``dict(a=x)``, ``dict(other)``,
        ``dict(zip(keys, values))``, ``dict(pairs)``, ``dict(d.items())``,
        ``dict(enumerate(values))``, and keywords or ``**other`` after any of them;
        None if its keys are not known when compiling."""
        if len(call.args) > 1:
            return None
        pairs = self.pairs(call.args[0]) if call.args else []
        if pairs is None:
            return None
        for kw in call.keywords:
            more = [(kw.arg, kw.value)] if kw.arg is not None else self.mapping(kw.value)
            if more is None:
                return None
            pairs += more
        pairs = _last_wins(pairs)
        return gast.Dict([T.const(k) for k, _ in pairs], [v for _, v in pairs])

    def pairs(self, node):
        """(key, value expression) for each pair the iterable ``node`` gives ``dict()``
        (or each item of a mapping), or None."""
        fn = self._function(node)
        if fn is builtins.zip and len(node.args) == 2 and not node.keywords:
            keys = self.constants(node.args[0])
            values = self.items(node.args[1])
            if keys is None or values is None:
                return None
            return list(zip(keys, values))
        if fn is builtins.enumerate and len(node.args) == 1 and not node.keywords:
            values = self.items(node.args[0])
            return None if values is None else list(enumerate(values))
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr == "items" and not node.args and not node.keywords:
            return self.mapping(node.func.value)
        mapping = self.mapping(node)
        if mapping is not None:
            return mapping
        if isinstance(node, (gast.List, gast.Tuple)) or isinstance(node, gast.Name) \
                and self.length(node) is not None:
            out = []
            for i, item in enumerate(self.items(node)):
                pair = self._pair(item, node, i)
                if pair is None:
                    return None
                out.append(pair)
            return out
        return None

    def _pair(self, item, seq, i):
        """(key, value expression) of one item of a sequence of pairs: a 2-item display
        written there, or one a name stands for (its value read back through the name,
        or from ``seq``, a stable name, as ``seq[i][1]``)."""
        if isinstance(item, (gast.Tuple, gast.List)):
            shape, value = item, item.elts[1] if len(item.elts) == 2 else None
        else:
            shape = self.display_of(item)
            if shape is None and isinstance(seq, gast.Name):
                shape = self.display_of(self._follow(seq, lambda v: self._elt(v, i)))
            value = _item(item, 1)
        if shape is None or len(shape.elts) != 2 or any(isinstance(e, gast.Starred)
                                                      for e in shape.elts):
            return None
        key = self.constant(shape.elts[0])
        return None if key is MISSING else (key, value)

    @staticmethod
    def _elt(display, i):
        if isinstance(display, (gast.List, gast.Tuple)) and not any(
                isinstance(e, gast.Starred) for e in display.elts) and i < len(display.elts):
            return display.elts[i]
        return None

    def display_of(self, node):
        """The tuple or list display a stable name (or the display itself) stands for."""
        if isinstance(node, (gast.Tuple, gast.List)):
            return node
        if isinstance(node, gast.Name):
            return self._follow(node, self.display_of)
        return None

    def constants(self, node):
        """The keys of ``zip(keys, ...)``: constants written in a display, a name bound
        once to one, or a tuple or list of strings and numbers known when compiling."""
        display = self.display_of(node)
        if display is not None:
            if any(isinstance(e, gast.Starred) for e in display.elts):
                return None
            values = [self.constant(e) for e in display.elts]
            return None if MISSING in values else values
        if isinstance(node, (gast.Name, gast.Attribute)) and not (
                isinstance(node, gast.Name) and (node.id in self.norm.varied
                                                 or node.id in self.norm.scope.locals)):
            value = self.norm.scope.value(node)
            if isinstance(value, (list, tuple)) and all(type(v) in (str, int) for v in value):
                return list(value)
        return None


def _item(node, key):
    return gast.Subscript(T.clone(node), T.const(key), gast.Load())


def _keeps_keys(value, name):
    """Is ``value`` a dict comprehension over the dict ``name`` giving each of its keys
    once, in its order (``{k: ... for k in name}``, ``.keys()``, ``for k, v in
    name.items()``, no ``if``)?"""
    if not isinstance(value, gast.DictComp) or len(value.generators) != 1:
        return False
    gen = value.generators[0]
    it = gen.iter
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and not it.args \
            and not it.keywords and it.func.attr in ("keys", "items"):
        it, items = it.func.value, it.func.attr == "items"
    else:
        items = False
    target = gen.target.elts[0] if items and isinstance(gen.target, gast.Tuple) \
        and len(gen.target.elts) == 2 else None if items else gen.target
    return _is_name(it, name) and not gen.ifs and isinstance(target, gast.Name) \
        and _is_name(value.key, target.id)


def _last_wins(pairs):
    """Pairs with repeated keys merged as a dict merges them: the first one's place,
    the last one's value."""
    merged = {}
    for k, v in pairs:
        merged[k] = v
    return list(merged.items())


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name
