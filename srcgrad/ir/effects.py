"""Effects beyond binding a target: which statements are pure, which calls write.

``cleanup`` drops pure statements when nothing reads their value;
``recompute`` runs them again in the backward pass instead of saving them.
``HiddenWrites`` is the one rule for calls that write into arrays without an
assignment showing it (``out=``, ``np.copyto``, ``a.sort()``, ...) and for
code evaluated from a string: the normalizer asks it about every statement.
"""
import builtins
import operator
import types

import gast
import numpy as np

from . import anno, templates as T
from ..rules import table
from .aliasing import bound_only_to
from .names import own_nodes, root_id
from .resolve import MISSING, is_library


# Statement kinds (anno.py) whose only effect is to bind their target.
_PURE = ("copy", "prim", "getitem", "literal")


def simple(node):
    """An expression of names and constants only: ``0.0``, ``x``, ``i + 1``, ``(a, b)``."""
    if isinstance(node, (gast.Constant, gast.Name)):
        return True
    if isinstance(node, gast.BinOp):
        return simple(node.left) and simple(node.right)
    if isinstance(node, gast.UnaryOp):
        return simple(node.operand)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(simple(e) for e in node.elts)
    return False


def pure_assignment(s):
    """``name = value`` where computing ``value`` has no effect but the result (not one
    that raises for values of the right shapes: a factorization checking its matrix,
    ``math.log(0.0)``, is there for that too)."""
    if not isinstance(s, gast.Assign) or not all(isinstance(t, gast.Name) for t in s.targets):
        return False
    if simple(s.value):
        return True
    if anno.kind(s) not in _PURE:
        return False
    fn = getattr(s, "sg_func", None)
    module = getattr(fn, "__module__", None) or ""
    if _among(fn, _CHECKING) or module == "math" or module.startswith("scipy.linalg"):
        return False
    out = getattr(s, "sg_args", {}).get("out")  # np.add(a, b, out=c) writes to c
    return out is None or isinstance(out, gast.Constant) and out.value is None


# -- writes that assignments do not show ---------------------------------------
#
# srcgrad differentiates by rebinding: the forward pass's values are the ones
# the backward pass reads. A call that writes into an array (``out=``,
# ``np.copyto``, ``a.sort()``, ``np.add.at``) changes a value without a new
# binding, which neither the adjoints nor the values saved for the backward
# pass see; code evaluated from a string is not seen at all. Such a call is
# allowed only where its write cannot reach the gradient (``HiddenWrites``).

_FROM_STRING = {builtins.eval, builtins.exec, builtins.compile}
# Functions that raise for some values of the right shapes (a matrix not positive
# definite, singular): a call whose value nothing reads may be there to check.
_CHECKING = (np.linalg.cholesky, np.linalg.inv, np.linalg.solve, np.linalg.lstsq,
             np.linalg.pinv, np.linalg.eig, np.linalg.eigh, np.linalg.eigvals,
             np.linalg.eigvalsh, np.linalg.svd, np.linalg.qr, np.linalg.matrix_power,
             np.linalg.tensorsolve, np.linalg.tensorinv)


def _among(fn, group):
    """``fn in group`` by identity: a callable may be unhashable (a dataclass with
    ``__call__``) or compare equal to what it is not."""
    return any(fn is g for g in group)

# Functions that write into their first argument.
_WRITES_FIRST = {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal, np.put_along_axis,
                 np.random.shuffle, builtins.setattr, builtins.delattr, operator.setitem,
                 operator.delitem, operator.iadd, operator.isub, operator.imul, operator.imatmul,
                 operator.itruediv, operator.ifloordiv, operator.imod, operator.ipow,
                 operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift,
                 operator.iconcat}

# Methods that write into their receiver, matched by name when the receiver
# is an array, a list, a dict, or unknown at compile time. ``append`` and
# ``pop`` are not here: the normalizer models them on lists of differentiable values.
_WRITING_METHODS = {
    "fill", "sort", "resize", "itemset", "put", "partition", "setfield", "setflags",  # ndarray
    "shuffle",  # np.random.Generator / RandomState
    "reverse", "extend", "insert", "remove", "clear",  # list
    "update", "setdefault", "popitem",  # dict
}

_REMEDIES = {
    "sort": "use `a = np.sort(a)`", "fill": "use `a = np.full_like(a, value)`",
    "copyto": "bind a new array: `dst = np.where(mask, src, dst)`",
    "put": "build a new array, e.g. with np.where", "place": "use `a = np.where(mask, v, a)`",
    "putmask": "use `a = np.where(mask, v, a)`",
    "fill_diagonal": "use `a = np.where(np.eye(n, dtype=bool), v, a)`",
    "at": "build the array without writing into it (np.bincount(idx, weights=v, minlength=n) "
          "sums repeated indices as np.add.at does)",
    "setattr": "keep the value in a local variable",
}


def _is_method_of_data(fn):
    """A builtin method bound to an array, list, dict or random generator (not a module's)."""
    owner = getattr(fn, "__self__", None)
    return isinstance(fn, types.BuiltinMethodType) and owner is not None \
        and not isinstance(owner, (types.ModuleType, type, np.ufunc))


def hidden_write(call, scope):
    """What ``call`` writes without binding it: ``(what, written)``, or None.

    ``written`` is the expression written into, or None for code evaluated
    from a string (it may write anything). ``what`` names the kind of write,
    for messages and remedies.
    """
    f = call.func
    fn = scope.value(f)
    if _among(fn, _FROM_STRING):
        return fn.__name__, None
    library = fn is MISSING or is_library(fn) or isinstance(fn, np.ufunc)
    for kw in call.keywords:
        if kw.arg == "out" and library and not (isinstance(kw.value, gast.Constant)
                                                and kw.value.value is None):
            return "out=", kw.value
    if isinstance(fn, np.ufunc) and len(call.args) > fn.nin:
        return "out=", call.args[fn.nin]  # np.add(a, b, c) writes into c
    if isinstance(getattr(fn, "__self__", None), np.ufunc) and fn.__name__ == "at" and call.args:
        return "at", call.args[0]  # np.add.at(a, idx, v)
    if _among(fn, _WRITES_FIRST) and call.args:
        return fn.__name__, call.args[0]
    if isinstance(f, gast.Attribute) and f.attr in _WRITING_METHODS \
            and (fn is MISSING or _is_method_of_data(fn)):
        if f.attr == "shuffle" and call.args:
            return f.attr, call.args[0]  # rng.shuffle(x) writes into x
        return f.attr, f.value
    if isinstance(f, gast.Attribute) and f.attr == "byteswap" and (call.args or call.keywords) \
            and (fn is MISSING or _is_method_of_data(fn)):
        return f.attr, f.value  # byteswap(True): in place
    return None


_NEW_ARRAYS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like,
               np.full_like}


def _store_root(target):
    """The name ``y`` of a store target ``y[i]`` (``y[i][j]``), else the target."""
    while isinstance(target, gast.Subscript):
        target = target.value
    return target


def _root_name(node):
    """``root_id``, also of a starred target (``*rest``: a Starred only ever leads a chain)."""
    return root_id(node.value if isinstance(node, gast.Starred) else node)


def _parts(s, scope):
    """Sets of names a statement may make share one array (or hold one another's):
    a binding's target with what its value may be a view of, or contain."""
    if isinstance(s, gast.Assign):
        value, parts = s.value, []
        for target in s.targets:
            if isinstance(target, (gast.Tuple, gast.List)) \
                    and isinstance(value, (gast.Tuple, gast.List)) \
                    and len(target.elts) == len(value.elts) \
                    and not any(isinstance(e, gast.Starred) for e in value.elts):
                parts += [_targets(t) | _shares(v, scope) for t, v in zip(target.elts, value.elts)]
            else:
                parts.append(_targets(target) | _shares(value, scope))
        return parts
    if isinstance(s, gast.For):
        return [_targets(s.target) | _shares(s.iter, scope)]
    if isinstance(s, gast.Expr):
        # ``l.append(a)``, ``setattr(o, "w", a)``: a call may keep references anywhere.
        return [{n.id for n in T.walk(s) if isinstance(n, gast.Name)}]
    return []


def _targets(target):
    """The names a binding target binds, or whose object it writes into (an index is only
    read: ``a[idx[i]] = v`` makes ``a`` hold ``v``, not ``idx`` or ``i``)."""
    if isinstance(target, (gast.Subscript, gast.Attribute)):
        root = _root_name(target)
        return {root} if root else set()
    if isinstance(target, (gast.Tuple, gast.List)):
        return set().union(set(), *(_targets(e) for e in target.elts))
    if isinstance(target, gast.Starred):
        return _targets(target.value)
    return {n.id for n in T.walk(target) if isinstance(n, gast.Name)}


def _shares(value, scope):
    """The names whose arrays ``value`` may be, be a view of, or hold."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, (gast.Attribute, gast.Subscript, gast.Starred)):
        root = _root_name(value)
        return {root} if root else set()
    if isinstance(value, gast.IfExp):
        return _shares(value.body, scope) | _shares(value.orelse, scope)
    if isinstance(value, gast.BoolOp):
        return set().union(*(_shares(v, scope) for v in value.values))
    if isinstance(value, (gast.Tuple, gast.List, gast.Set)):
        return set().union(set(), *(_shares(e, scope) for e in value.elts))
    if isinstance(value, gast.Dict):
        return set().union(set(), *(_shares(v, scope) for v in value.values))
    if isinstance(value, (gast.ListComp, gast.GeneratorExp)):
        return {n.id for n in T.walk(value) if isinstance(n, gast.Name)}
    if isinstance(value, gast.Call):
        return _call_shares(value, scope)
    return set()  # arithmetic, comparisons, constants: new values


def _call_shares(call, scope):
    f = call.func
    fn = scope.value(f)
    receiver = f.value if isinstance(f, gast.Attribute) else None
    if (getattr(fn, "__module__", None) or "").startswith("srcgrad.runtime"):
        # Generated code's helpers (``_sg.add_at(g, idx, v)``) return their first
        # argument or a new array; indices and shapes are only read.
        return _shares(call.args[0], scope) if call.args else set()
    if fn is not MISSING and (is_library(fn) or isinstance(fn, np.ufunc)) \
            and not _is_method_of_data(fn):
        if isinstance(fn, np.ufunc) or getattr(fn, "__name__", None) not in table.VIEW_FUNCTIONS:
            return set()  # NumPy's functions make new arrays, but for views
        return _shares(call.args[0], scope) if call.args else set()
    if receiver is not None and (fn is MISSING or _is_method_of_data(fn)):
        if f.attr in table.VIEW_METHODS or f.attr == "copy":  # a list's copy holds its items
            return _shares(receiver, scope)
        if f.attr in table.METHODS or f.attr in ("astype", "tolist", "item"):
            return set()  # an array's own methods make new arrays, but for views
    # User code, or anything unknown: its result may be any argument, or hold it.
    found = _shares(receiver, scope) if receiver is not None else set()
    for a in list(call.args) + [k.value for k in call.keywords]:
        found |= _shares(a, scope)
    return found


class HiddenWrites:
    """Refuse calls that write where the gradient may read (``hidden_write``).

    Built over one function body and its varied names. A write into ``a`` is
    allowed when ``a`` is not varied and no statement that involves a varied
    value and any name ``a``'s array may be reachable from (a name bound in
    the same statement as ``a``, transitively: views, copies, containers)
    runs before the write, or at all if the write is in a loop. Then every
    value the backward pass reads from that array is read after the write,
    as the forward pass did. Code evaluated from a string is always refused.
    """

    def __init__(self, body, varied, scope):
        self.scope = scope
        self.varied = varied
        self._parent = {}
        self._order = {}
        self._loop = {}  # statement -> the outermost loop around it
        self._readers = []  # (position, loop, names read) of statements involving varied values
        self._loops = {}  # statement -> the loops around it, outermost first
        self._ends = {}  # loop -> the position of the last statement in it
        self._loop_start = {}  # loop -> its own position
        self._fresh = {}  # name -> (position, loops) of statements binding it to a new array
        # Names only ever bound to a new float array (``A = np.zeros(n)``): a store into
        # one copies the values in (``A[i] = h[i]`` makes ``A`` hold nothing of ``h``).
        self._arrays = bound_only_to(body, self._new_array)
        self._index(body, None, (), True)

    def _index(self, body, loop, loops, in_loop_body):
        for s in body:
            self._order[id(s)] = len(self._order)
            self._loop[id(s)] = loop
            self._loops[id(s)] = loops
            if loops and in_loop_body and self._binds_new_array(s):
                self._fresh.setdefault(s.targets[0].id, []).append((self._order[id(s)], loops))
            root = _store_root(s.targets[0]) if isinstance(s, gast.Assign) \
                and len(s.targets) == 1 and isinstance(s.targets[0], gast.Subscript) else None
            stored = isinstance(root, gast.Name) and root.id in self._arrays
            for names in [] if stored else _parts(s, self.scope):
                names = [n for n in names if not self._is_code(n)]
                for a in names:
                    self._union(names[0], a)
            names = [n for n in own_nodes(s) if isinstance(n, gast.Name)]
            if any(n.id in self.varied for n in names):
                # (The array a store writes into is not read by it: ``y[0] = np.floor(p)``
                # reads ``p``; ``y[0] = y[1] * p`` reads ``y`` in its value.)
                written = {id(_store_root(t)) for t in getattr(s, "targets", ())}
                loads = {n.id for n in names
                         if not isinstance(n.ctx, gast.Store) and id(n) not in written}
                self._readers.append((self._order[id(s)], loop, loads))
            if isinstance(s, (gast.If, gast.For, gast.While)):
                inner = loop if loop is not None or isinstance(s, gast.If) else id(s)
                is_loop = not isinstance(s, gast.If)
                inside = loops + (id(s),) if is_loop else loops
                self._index(s.body, inner, inside, is_loop)
                self._index(s.orelse, inner, loops, False)
                if is_loop:
                    self._ends[id(s)] = len(self._order) - 1
                    self._loop_start[id(s)] = self._order[id(s)]

    def _new_array(self, value):
        """``np.zeros(n)`` and the like, of floats (no ``dtype=``: an object array holds
        references)."""
        return isinstance(value, gast.Call) and not value.keywords \
            and _among(self.scope.value(value.func), _NEW_ARRAYS - {np.full, np.full_like})

    def _binds_new_array(self, s):
        """``a = np.zeros(n)`` (``ones``, ``empty``, ``full`` and their ``_like`` forms,
        ``b.copy()``): a statement binding one name to an array no other name holds."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
            return False
        f = s.value.func
        if isinstance(f, gast.Attribute) and f.attr == "copy" and not s.value.args:
            return True
        return _among(self.scope.value(f), _NEW_ARRAYS)

    def _is_code(self, name):
        """A name denoting a module, function or class (``np``, ``_sg``): no array to share.

        Looked up without guards: this only makes the analysis less coarse."""
        scope = self.scope
        if name in scope.locals and name not in scope.static and name not in scope.local_defs:
            return False
        obj = scope.static.get(name, scope.local_defs.get(name, MISSING))
        if obj is MISSING and name in scope.freevars:
            try:
                obj = scope.freevars[name].cell_contents
            except ValueError:
                return False
        if obj is MISSING:
            obj = scope.globals.get(name, getattr(builtins, name, MISSING))
        if isinstance(obj, gast.FunctionDef):
            return True
        return isinstance(obj, (types.ModuleType, type, types.FunctionType,
                                types.BuiltinFunctionType, np.ufunc))

    def _find(self, name):
        parent = self._parent.setdefault(name, name)
        while parent != name:
            name, parent = parent, self._parent.setdefault(parent, parent)
        return name

    def _union(self, a, b):
        self._parent[self._find(a)] = self._find(b)

    def check(self, s, error):
        """Raise ``error(message, remedy)`` for the first refused call in statement ``s``."""
        for node in own_nodes(s):
            if isinstance(node, gast.Call):
                found = hidden_write(node, self.scope)
                if found is not None and not self.harmless(s, *found):
                    raise error(*self._message(node, *found))

    def harmless(self, s, what, written):
        """May ``s`` write into ``written``'s array without the gradient seeing it?"""
        if written is None or id(s) not in self._order:
            # Code from a string may write anything. A statement made in this round
            # of normalizing is checked in the next one, over the body it is part of.
            return written is not None
        root = _root_name(written)
        if root is None or root in self.varied:
            return False
        group = self._find(root)
        here, loop = self._order[id(s)], self._loop[id(s)]
        if self._fresh_in_each_trip(root, group, here, self._loops[id(s)]):
            return True
        for position, reader_loop, names in self._readers:
            if any(self._find(n) == group for n in names) and (
                    position <= here or loop is not None and reader_loop == loop):
                return False
        return True

    def _fresh_in_each_trip(self, root, group, here, loops):
        """Is the array written into at ``here`` (in ``loops``) one each trip of a loop
        around it binds ``root`` to anew (``deg = np.zeros(n)`` then ``deg[d] += 1.0``
        in an inner loop), read by the gradient computation only before that binding
        or after the write's own inner loops? (Only names bound after the binding can
        hold that array, and a reader of any name that may share it counts: reads of
        earlier trips' arrays, under other names, are of other arrays.)"""
        for start, fresh_loops in self._fresh.get(root, ()):
            if not (start < here and fresh_loops and loops[:len(fresh_loops)] == fresh_loops):
                continue
            inner = loops[len(fresh_loops):]  # loops around the write, not the binding
            end = self._ends[fresh_loops[-1]]
            if not any(self._find(n) == group for position, _, names in self._readers
                       if start < position <= end for n in names
                       if position <= here or any(self._loop_start[i] < position <= self._ends[i]
                                                  for i in inner)):
                return True
        return False

    def store_harmless(self, s, base):
        """May ``s`` write into ``base``'s array (a value that does not depend on the
        inputs) without the backward pass reading that array as it was before?"""
        return self.harmless(s, "setitem", base)

    def check_store(self, s, base, error):
        """``base[i] = v`` storing a value that does not depend on the inputs: refused
        where the backward pass may read ``base``'s array as it was before."""
        if not self.harmless(s, "setitem", base):
            target = gast.unparse(s.targets[0]).strip()
            call = getattr(s, "sg_call", None)  # a call written as this store (stores.py)
            raise error(f"{f'`{call}`, ' if call else ''}writing into `{target}` after the "
                        "gradient computation has read "
                        f"`{gast.unparse(base).strip()}`'s array (under this name or another "
                        "that shares it) is not supported: the backward pass would read the new "
                        "values",
                        "write into a copy: `b = a.copy(); b[i] = v`, and use `b` from then on")

    def _message(self, call, what, written):
        text = gast.unparse(call).strip()
        if written is None:
            return (f"`{text}` evaluates code from a string, which srcgrad cannot read or "
                    "differentiate", "write the code out in the function")
        target = gast.unparse(written).strip()
        if what == "out=":
            return (f"`{text}` writes its result into `{target}` (out=), which the gradient "
                    "may depend on; srcgrad does not model writes into existing arrays",
                    f"drop out= and bind the result to a name: `{target} = ...`")
        remedy = _REMEDIES.get(what, "return or bind a new array instead of changing this one")
        return (f"`{text}` writes into `{target}`, which the gradient may depend on; srcgrad "
                "does not model writes into existing arrays through calls",
                f"{remedy}, or move the call outside the differentiated code")
