"""Resolve names and attribute chains to the objects they denote at compile time.

The compiled code is specialised on what a call denotes (``np.sin`` gets the
sine rule, ``helper(x)`` is inlined). Every such decision made through a
mutable namespace is recorded as a guard ``(namespace, key, object)``; the
cache re-checks the guards before each call, so redefining a function or
reloading a module never leaves a stale gradient.
"""
import builtins
import types

import gast

_MISSING = object()
# Modules whose attributes we trust not to be rebound by users.
_STABLE_MODULES = ("numpy", "math", "builtins", "srcgrad")


class Guards:
    """Identity checks that decide whether a compiled entry is still valid."""

    def __init__(self):
        self.items = {}

    def add(self, namespace, key, obj):
        self.items[(id(namespace), key)] = (namespace, key, obj)

    def valid(self):
        for namespace, key, obj in self.items.values():
            if namespace.get(key, _MISSING) is not obj:
                return False
        return True


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
        self.globals = globals_
        self.freevars = freevars
        self.guards = guards
        self.static = {}
        self.local_defs = {}
        self.locals = set()
        self.is_source = lambda node: False  # set by tapes: reads of watched Variables
        self.calls_user_code = lambda call: False  # set by tapes: user code may read Variables

    def lookup(self, name):
        """The object ``name`` denotes, or ``_MISSING`` when only known at run time."""
        if name in self.static:
            return self.static[name]
        if name in self.local_defs:
            return self.local_defs[name]
        if name in self.locals:
            return _MISSING
        if name in self.freevars:
            try:
                return self.freevars[name].cell_contents
            except ValueError:
                return _MISSING
        if name in self.globals:
            obj = self.globals[name]
            self.guards.add(self.globals, name, obj)
            return obj
        return getattr(builtins, name, _MISSING)

    def value(self, node):
        """Statically evaluate a Name / Attribute chain / constant subscript."""
        if isinstance(node, gast.Name):
            return self.lookup(node.id)
        if isinstance(node, gast.Attribute):
            base = self.value(node.value)
            if base is _MISSING:
                return _MISSING
            try:
                obj = getattr(base, node.attr)
            except AttributeError:
                return _MISSING
            if isinstance(base, types.ModuleType) and not _stable(base):
                self.guards.add(base.__dict__, node.attr, obj)
            return obj
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            base = self.value(node.value)
            if base is _MISSING or not isinstance(base, (list, tuple, dict)):
                return _MISSING
            try:
                return base[node.slice.value]
            except (LookupError, TypeError):
                return _MISSING
        return _MISSING


MISSING = _MISSING


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
