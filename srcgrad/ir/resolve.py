"""Resolve names and attribute chains to the objects they denote at compile time.

The compiled code is specialised on what a call denotes (``np.sin`` gets the
sine rule, ``helper(x)`` is inlined, ``for layer in LAYERS`` is unrolled).
Every value the compiler reads from outside the function is recorded as a
guard (``Guards``); the cache re-checks the guards before each call, so
redefining a function, mutating a configuration dict or reloading a module
never leaves a stale gradient.
"""
import builtins
import operator
import types
import weakref

import gast
import numpy as np

from ..rules import optional
from . import templates

_MISSING = object()
# Modules whose attributes we trust not to be rebound by users.
_STABLE_MODULES = ("numpy", "math", "builtins", "srcgrad")
# Read again by the generated code when it runs: only their type is compiled in.
_DATA = (float, complex, np.floating, np.complexfloating, np.ndarray)
# Values a compile-time decision may depend on (``wrt=CFG["wrt"]``, an axis, a flag).
_VALUES = (int, bool, str, bytes, type(None), np.integer, np.bool_)
# The longest list whose loops are unrolled (normalizer.for_loop): only such a
# list's items may have been compiled in.
UNROLL_MAX = 64
_METHOD = types.MethodType


def _matcher(obj, value, i):
    """A test that ``value`` (an expression) still allows the code compiled when it was ``obj``.

    Returns the test's source and the objects it names (suffixed with ``i``).
    """
    v = f"v{i}"
    if obj is _MISSING:
        return f"{value} is MISSING", {}
    t = type(obj)
    if isinstance(obj, _DATA):
        return f"type({value}) is t{i}", {f"t{i}": t}
    if isinstance(obj, _VALUES):
        return f"(({v} := {value}) is o{i} or type({v}) is t{i} and {v} == o{i})", \
            {f"o{i}": obj, f"t{i}": t}
    if t is _METHOD:  # a new object at each attribute access
        return (f"(type({v} := {value}) is METHOD and {v}.__func__ is f{i} "
                f"and {v}.__self__ is s{i})"), {f"f{i}": obj.__func__, f"s{i}": obj.__self__}
    if t is list and len(obj) <= UNROLL_MAX:
        # (``tk``: ``k`` names the attribute an attribute's check reads)
        return (f"({value} is o{i} and len(o{i}) == {len(obj)} "
                f"and all(map(is_, tokens(o{i}), tk{i})))"), {f"o{i}": obj, f"tk{i}": _tokens(obj)}
    return f"{value} is o{i}", {f"o{i}": obj}


def _tokens(items):
    """What an unrolled loop compiled in of each item: the object, or a data item's type."""
    return tuple(type(v) if isinstance(v, _DATA + _VALUES) else v for v in items)


def _get_item(holder, key):
    try:
        return holder[key]
    except (LookupError, TypeError):
        return _MISSING


def _get_attr(holder, name):
    try:
        return getattr(holder, name)
    except Exception:  # a property may raise anything: it no longer gives what was compiled
        return _MISSING


def _get_cell(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


def _weak(obj):
    """A reference that does not keep ``obj`` alive, where Python allows one."""
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj


def _same_items(mapping, items):
    mapping = mapping or {}
    return len(mapping) == len(items) and all(mapping.get(k, _MISSING) is v for k, v in items)


_HELPERS = {"MISSING": _MISSING, "METHOD": _METHOD, "is_": operator.is_, "tokens": _tokens,
            "get_item": _get_item, "get_cell": _get_cell,
            "same_items": _same_items}


class Guards:
    """Checks that decide whether a compiled entry is still valid.

    One check per value the compiler read from outside the function: a
    global, a closure cell, an attribute of a module, class or object, a
    constant item of a dict, list or tuple, and the code and defaults of
    each function it inlined. What a check compares is what the code was
    specialised on (``_matcher``): the object itself for functions, modules,
    classes and other objects; also a list's items, when a loop over it may
    have been unrolled; the value of ints, strings and flags; only the type
    of arrays and floats, which the generated code reads again when it runs.

    The checks run before every call that reuses the code, so they are
    compiled into one Python function (``valid``) on first use: one call,
    no interpretation of a list of checks.
    """

    def __init__(self):
        self.items = {}  # what was read -> the source of its check
        self.env = {}  # the objects the checks name
        self.kept = []  # objects made when compiling that checks hold weakly (``keep``)

    def keep(self, obj):
        """Keep ``obj`` alive with these guards: a function made when compiling (a nested
        def lifted out) whose gradient's own guards, which these check, hold it weakly."""
        self.kept.append(obj)

    def _check(self, key, test, env):
        if key not in self.items:
            self.items[key] = test
            self.env.update(env)
            self.__dict__.pop("valid", None)  # compiled without this check

    def add(self, namespace, key, obj):
        """The very object ``obj`` at ``namespace[key]`` (a value compiled into the code)."""
        i = len(self.items)
        self._check((id(namespace), "is", key), f"h{i}.get(k{i}, MISSING) is o{i}",
                    {f"h{i}": namespace, f"k{i}": key, f"o{i}": obj})

    def item(self, holder, key, obj):
        """``holder[key]`` (a namespace, dict, list or tuple) still gives what ``obj`` gave."""
        i = len(self.items)
        if (id(holder), "is", key) in self.items:
            return  # the very object is checked already
        if isinstance(holder, dict):
            read = f"h{i}.get(k{i}, MISSING)"
        else:
            read = f"get_item(h{i}, k{i})" if obj is _MISSING else f"h{i}[k{i}]"
        test, env = _matcher(obj, read, i)
        self._check((id(holder), "item", key), test, dict(env, **{f"h{i}": holder, f"k{i}": key}))

    def keys(self, holder):
        """The dict ``holder`` still has the keys it has now, in this order."""
        i = len(self.items)
        self._check((id(holder), "keys", None), f"tuple(h{i}) == k{i}",
                    {f"h{i}": holder, f"k{i}": tuple(holder)})

    def cell(self, cell, obj):
        i = len(self.items)
        test, env = _matcher(obj, f"get_cell(c{i})" if obj is _MISSING else f"c{i}.cell_contents", i)
        self._check((id(cell), "cell", None), test, dict(env, **{f"c{i}": cell}))

    def attribute(self, base, name, obj):
        """``base.name`` still gives what ``obj`` gave."""
        if isinstance(base, types.ModuleType):
            if not _stable(base):
                self.item(base.__dict__, name, obj)
            return
        if isinstance(base, _DATA + _VALUES) or hasattr(base, "__array__"):
            return  # an array's attributes are data too, read when the code runs
        i = len(self.items)
        key = (id(base), "attr", name)
        if isinstance(base, (type, types.FunctionType)):
            test, env = _matcher(obj, f"getattr(h{i}, k{i}, MISSING)", i)
            self._check(key, test, dict(env, **{f"h{i}": base, f"k{i}": name}))
        else:
            self._check(key, *_instance_attribute(base, name, obj, i))

    def function(self, fn):
        """The code and defaults ``fn`` had: what was inlined from it."""
        inner = getattr(fn, "__srcgrad_guards__", None)
        i = len(self.items)
        if inner is not None:  # a gradient's generated code: valid while what it read is
            self._check((id(inner), "guards", None), f"g{i}.valid()", {f"g{i}": inner})
            return
        f = f"f{i}"
        kwdefaults = f"same_items({f}.__kwdefaults__, w{i})" if fn.__kwdefaults__ else \
            f"not {f}.__kwdefaults__"
        test = (f"(({f} := r{i}()) is not None and {f}.__code__ is c{i} "
                f"and {f}.__defaults__ is d{i} and {kwdefaults})")
        self._check((id(fn), "function", None), test, {
            f"r{i}": _weak(fn), f"c{i}": fn.__code__, f"d{i}": fn.__defaults__,
            f"w{i}": tuple((fn.__kwdefaults__ or {}).items())})

    def valid(self):
        """Compile the checks, then run them; the compiled function replaces this method."""
        self.valid = _compile(list(self.items.values()), self.env)
        return self.valid()


def _compile(tests, env):
    env = dict(_HELPERS, **env)
    names = sorted(env)
    body = " and\n            ".join(tests) or "True"
    text = (f"def make({', '.join(names)}):\n"
            f"    def valid():\n"
            f"        try:\n"
            f"            return bool({body})\n"
            f"        except Exception:  # reading it again failed: compile again\n"
            f"            return False\n"
            f"    return valid\n")
    scope = {}
    exec(compile(text, "<srcgrad guards>", "exec"), scope)
    return scope["make"](**env)


def _instance_attribute(base, name, obj, i):
    """The check of an attribute read from an object.

    The object is held weakly: it may be an argument of the first call, and
    the cache keys calls on their objects' attributes (``cache._structure``);
    once it is gone, what is left to check is its class's attribute (a
    method replaced on the class).
    """
    b = f"b{i}"
    if type(obj) is _METHOD and obj.__self__ is base:
        alive = (f"(type(v{i} := getattr({b}, k{i}, MISSING)) is METHOD and v{i}.__func__ is f{i} "
                 f"and v{i}.__self__ is {b})")
        env = {f"f{i}": obj.__func__}
    else:
        alive, env = _matcher(obj, f"getattr({b}, k{i}, MISSING)", i)
    in_class, class_env = _matcher(_get_attr(type(base), name), f"getattr(cls{i}, k{i}, MISSING)",
                                   f"{i}c")
    test = f"((({b} := r{i}()) is None or {alive}) and ({b} is not None or {in_class}))"
    return test, dict(env, **class_env, **{f"r{i}": _weak(base), f"k{i}": name,
                                           f"cls{i}": type(base)})


def _stable(module):
    name = getattr(module, "__name__", "") or ""
    return name.split(".")[0] in _STABLE_MODULES


class Scope:
    """What the names of one function body denote.

    ``static`` holds names known to denote one object at every call: injected
    objects, parameters bound to objects (not numbers), single-assignment
    locals bound to something static. ``locals`` are all other local names,
    unknown at compile time.
    """

    def __init__(self, globals_, freevars, guards):
        optional.ensure()  # SciPy's entries, if the program has imported SciPy since
        self.globals = globals_
        self.freevars = freevars
        self.guards = guards
        self.static = {}
        self.local_defs = {}
        self.locals = set()
        # names for objects whose attributes the code keeps differentiable values in
        # (passes/normalize/attributes.py): varied as a whole (their methods are
        # compiled), their attributes read through locals
        self.mirrored_names = frozenset()
        self.is_source = lambda node: False  # set by tapes: reads of watched Variables
        self.calls_user_code = lambda call: False  # set by tapes: user code may read Variables
        # set by tapes: ``params.values()`` of a container whose items are sources
        self.iterates_sources = lambda node: False
        # set by tapes: is the value of ``node`` an object holding what a tape watches?
        self.holds_sources = lambda node: False

    def lookup(self, name, guard=True):
        """The object ``name`` denotes, or ``_MISSING`` when only known at run time.
        ``guard=False``: a look only, the code compiled not made to depend on it."""
        if name in self.static:
            return self.static[name]
        if name in self.local_defs:
            return self.local_defs[name]
        if name in self.locals:
            return _MISSING
        if name in self.freevars:
            obj = _get_cell(self.freevars[name])
            if guard:
                self.guards.cell(self.freevars[name], obj)
            return obj
        obj = self.globals.get(name, _MISSING)
        if guard:
            self.guards.item(self.globals, name, obj)  # also a builtin's name: not shadowed since
        return obj if obj is not _MISSING else getattr(builtins, name, _MISSING)

    def value(self, node):
        """Statically evaluate a Name / Attribute chain / constant subscript."""
        if isinstance(node, gast.Name):
            if getattr(node, "sg_own", False) and node.id != "_sg" and templates.is_own(node.id):
                # srcgrad's own ``range(len(x))``: the builtins whatever the user binds
                # (a tape block's input ``range``); (``_sg`` is the context's runtime).
                return templates.own_object(node.id)
            return self.lookup(node.id)
        if isinstance(node, gast.Attribute):
            base = self.value(node.value)
            if base is _MISSING:
                return _MISSING
            obj = _get_attr(base, node.attr)
            self.guards.attribute(base, node.attr, obj)
            if isinstance(base, types.ModuleType):
                optional.ensure()  # (``scipy.special`` may have been imported just now)
            return obj
        if isinstance(node, gast.Subscript) and constant_index(node.slice) is not _MISSING:
            base = self.value(node.value)
            if base is _MISSING or not isinstance(base, (list, tuple, dict)):
                return _MISSING
            key = constant_index(node.slice)
            obj = _get_item(base, key)
            self.guards.item(base, key, obj)
            return obj
        return _MISSING


def constant_index(node):
    """The value of a constant index (``0``, ``"W"``, ``-1``), or MISSING."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) \
            and isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return _MISSING


MISSING = _MISSING


def among(obj, *group):
    """``obj in group`` by identity: an object found for a call may be an array (whose
    ``==`` is elementwise) or compare equal to what it is not."""
    return any(obj is g for g in group)


def is_library(fn):
    """Functions from NumPy, math, builtins...: never inlined, need a rule."""
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return True
    root = module.split(".")[0]
    if module in _SRCGRAD_API:
        return True  # tapes, Variables, sg.grad wrappers: never read as user code
    return root in ("numpy", "math", "builtins", "scipy", "_operator", "operator")


_SRCGRAD_API = ("srcgrad.tape.tape", "srcgrad.variables", "srcgrad.api", "srcgrad.compiler.cache",
                "srcgrad.functions")
