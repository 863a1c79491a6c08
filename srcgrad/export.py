"""``srcgrad export``: a gradient as a standalone module that needs only NumPy.

The module holds the generated code ``srcgrad show`` prints, and everything it
reads: the runtime helpers it calls (``_sg.sum_grad``...) with the helpers,
constants and classes they read in turn, copied from their source; imports of
the modules it names (NumPy, math...); the values it was compiled with
(numbers, strings, arrays, NumPy functions). What cannot be written into a
module that needs only NumPy (an object of the user's, a Variable) is refused
with a ``CompileError`` naming it, never guessed.

Before/after::

    srcgrad export model.py:loss -o loss_grad.py

    # loss_grad.py: the gradient of loss (model.py:3) with respect to x, exported by
    # srcgrad 0.1.0; needs only NumPy.
    import numpy as np
    ...the helpers...
    def grad_loss(x):
        ...
"""
import ast
import builtins
import importlib
import importlib.util
import inspect
import sys
import textwrap
import types

import numpy as np

from . import __version__, runtime
from .compiler.cache import Compiled
from .errors import CompileError

# srcgrad classes the helpers test values against; exported code never holds one.
_STUBS = {"Variable": "a srcgrad Variable: none exist in exported code"}
# Modules an exported gradient may import: the standard library's, NumPy, and SciPy when
# the function itself calls it.
_ALLOWED_MODULES = frozenset(sys.stdlib_module_names) | {"numpy", "scipy"}


def export_source(fn, wrt=0, args=None, mode="reverse"):
    """The text of a module, importing nothing of srcgrad, whose function is (``mode``)
    ``srcgrad.grad(fn, wrt)`` (``grad_<name>``, "reverse"), ``srcgrad.value_and_grad``
    ("value_and_grad") or the forward-mode code ``jvp_<name>(<args>, <tangents>)``
    returning the value and the directional derivative ("forward"): the generic code,
    for arguments of any kind, or specialised for the kinds of example ``args``."""
    if mode == "forward":
        generated = _tangent_code(fn, wrt, args)
    else:
        compiled = Compiled.of(fn, wrt, "value_and_grad" if mode == "value_and_grad" else "grad")
        # (Not for the example's sizes: the module runs for any, with no cache key.)
        generated = compiled.generic() if args is None \
            else compiled.specialised(args, sized=False).fn
    text = generated.__srcgrad_source__
    module = _Module()
    tree = ast.parse(text)
    values = _closure_values(generated)
    for name in sorted(_free_names(tree.body[-1] if isinstance(tree.body[-1], ast.FunctionDef)
                                   else tree)):
        if name == "_sg":
            continue
        if name in values:
            module.value(name, values[name], f"the gradient of {fn.__qualname__}")
        elif name in generated.__globals__:
            module.value(name, generated.__globals__[name], f"the gradient of {fn.__qualname__}")
        elif not hasattr(builtins, name):
            raise CompileError(f"export: the gradient reads `{name}`, which is not defined")
    text = _with_defaults(text, fn, module, forward=mode == "forward")
    if mode != "forward":
        text = _returned_as_arguments(text, fn, wrt, mode == "value_and_grad")
    helpers = sorted({n.attr for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Attribute)
                      and isinstance(n.value, ast.Name) and n.value.id == "_sg"})
    for name in helpers:
        module.helper(name, getattr(runtime, name))
    origin = (fn.__qualname__, f"{inspect.getsourcefile(fn)}:{fn.__code__.co_firstlineno}")
    params = list(inspect.signature(fn).parameters)
    names = [params[w] if isinstance(w, int) and -len(params) <= w < len(params) else str(w)
             for w in (wrt if isinstance(wrt, (list, tuple)) else [wrt])]
    kind = {"forward": "The value and the directional derivative",
            "value_and_grad": "The value and the gradient"}.get(mode, "The gradient")
    what = ("along " if mode == "forward" else "with respect to ") + ", ".join(names)
    return module.text(text, helpers, origin, kind, what)


def _returned_as_arguments(text, fn, wrt, with_value):
    """``text`` with each ``return`` of its function handing its gradients to
    ``_sg.as_arguments``: the generated code computes a tuple's adjoint as a list, as it
    does every container's; ``sg.grad`` puts it back into the argument's structure.
    Spliced into the text, so that its comments stay."""
    tree = ast.parse(text)
    node = tree.body[-1] if tree.body else None
    if not isinstance(node, ast.FunctionDef):
        return text
    multiple = isinstance(wrt, (list, tuple))
    params = [a.arg for a in node.args.args]
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return text
    positions = [names.index(w) if isinstance(w, str) and w in names else w
                 for w in (wrt if multiple else [wrt])]
    if not all(isinstance(w, int) and -len(params) <= w < len(params) for w in positions):
        return text
    args = "(" + ", ".join(params[w] for w in positions) + ("," if len(positions) == 1 else "") + ")"
    returns = [n for n in _own_nodes(node) if isinstance(n, ast.Return) and n.value is not None]
    lines = text.splitlines(True)
    for ret in sorted(returns, key=lambda r: (r.value.lineno, r.value.col_offset), reverse=True):
        v = ret.value
        first = lines[v.lineno - 1].encode()
        last = lines[v.end_lineno - 1].encode()
        head = first[:v.col_offset].decode()
        tail = last[v.end_col_offset:].decode()
        inner = ast.get_source_segment(text, v)
        lines[v.lineno - 1:v.end_lineno] = [
            f"{head}_sg.as_arguments({inner}, {args}, {multiple}, {with_value}){tail}"]
    return "".join(lines)


def _own_nodes(fn):
    """The nodes of ``fn``'s body, not of the defs and lambdas in it."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))


# The default of a tangent parameter after defaulted arguments (forward mode): a call
# that leaves it out is refused, never run with an argument taken for it.
_MISSING = "_MISSING_TANGENT"


def _with_defaults(text, fn, module, forward):
    """``text`` with the defaults of ``fn``'s parameters on the generated function's,
    so that it is called as ``fn`` is (``grad_loss(w)`` for ``loss(w, lam=0.1)``).

    A default that cannot be written into the module (an object of the user's) leaves
    its parameter, and the ones before it, without one. Forward mode's tangents come
    after the arguments: after a default they default to a marker that the function
    refuses, so they must be passed (by keyword when arguments are left out)."""
    tree = ast.parse(text)
    node = tree.body[-1] if tree.body else None
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return text
    if not isinstance(node, ast.FunctionDef) or node.args.vararg or node.args.kwarg \
            or node.args.kwonlyargs or node.args.posonlyargs or any(
                p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY) for p in params) \
            or len(node.args.args) < len(params):
        return text
    names = [a.arg for a in node.args.args]
    written = []
    for i, p in enumerate(params):
        source = None
        if p.default is not inspect.Parameter.empty:
            source = _default_source(p.default, f"{names[i]}_default", module,
                                     f"the default of `{p.name}`")
        written.append(source)
    first = len(written)
    while first > 0 and written[first - 1] is not None:
        first -= 1
    if first == len(params):
        return text
    tangents = names[len(params):] if forward else []
    if not forward and len(names) != len(params):
        return text
    signature = [n if i < first else f"{n}={written[i]}" for i, n in enumerate(names[:len(params)])]
    signature += [f"{t}={_MISSING}" for t in tangents]
    lines = text.splitlines()
    start = node.lineno - 1
    end = next(i for i in range(start, node.body[0].lineno - 1)
               if lines[i].rstrip().endswith(":"))
    head = lines[start][:node.col_offset] + f"def {node.name}({', '.join(signature)}):"
    indent = " " * node.body[0].col_offset
    guards = []
    if tangents:
        module.items.setdefault(_MISSING, f"{_MISSING} = object()  # (a tangent not passed)")
        for t in tangents:
            guards += [f"{indent}if {t} is {_MISSING}:",
                       f"{indent}    raise TypeError(\"{node.name}() missing the tangent "
                       f"'{t}' (pass the tangents by keyword when leaving out defaulted "
                       f"arguments)\")"]
    lines[start:end + 1] = [head] + guards
    return "\n".join(lines) + "\n"


def _default_source(value, name, module, where):
    """The text of a parameter default in the exported module: a literal, or the name of a
    module constant holding it; None when it cannot be written."""
    if value is None or type(value) in (bool, int, float, complex, str) or _plain_tuple(value):
        return repr(value)
    try:
        module.value(name, value, where)
    except CompileError:
        return None
    return name


def _tangent_code(fn, wrt, args):
    from .compiler.tangents import compile_tangent

    compiled = Compiled.of(fn, wrt, "grad")
    sample = None if args is None else list(compiled.bound) + list(args)
    return compile_tangent(compiled.f, list(compiled.wrt), sample).fn


class _Module:
    """The parts of the module being written, each once, in an order that works."""

    def __init__(self):
        self.imports = {}  # alias -> module name
        # name -> the source binding it (an assignment, a def, a class), each after
        # what it reads (None while its own reads are being added)
        self.items = {}
        self.seen = {}     # name -> the object it stands for

    def _claim(self, name, obj, where):
        """Note that ``name`` stands for ``obj``; whether it is written already (or being
        written: a helper that reads itself)."""
        if self.seen.setdefault(name, obj) is not obj:
            raise CompileError(f"export: two different values are named `{name}` ({where})")
        return name in self.imports or name in self.items

    # -- the values the generated code reads ---------------------------------------
    def value(self, name, obj, where):
        if self._claim(name, obj, where):
            return
        if isinstance(obj, types.ModuleType):
            return self._import(name, obj, where)
        if obj is None or type(obj) in (bool, int, float, complex, str) or _plain_tuple(obj):
            self.items[name] = f"{name} = {obj!r}"
            return
        if isinstance(obj, (np.ndarray, np.generic)):
            self.items[name] = f"{name} = {_array_source(obj)}"
            return
        home = _library_home(obj)
        if home is not None:
            self.imports[home] = home  # (``import scipy.special`` binds ``scipy``)
            self.items[name] = f"{name} = {home}.{obj.__name__}"
            return
        raise CompileError(
            f"export: {where} reads `{name}`, {_describe(obj)}, which cannot be written into "
            "a module that needs only NumPy",
            remedy="pass it as an argument of the function instead of reading it from a "
            "global or an object")

    def _import(self, name, module, where):
        root = module.__name__.split(".")[0]
        if root not in _ALLOWED_MODULES:
            raise CompileError(f"export: {where} needs the module `{module.__name__}`, which "
                               "an exported gradient does not import")
        self.imports[name] = module.__name__

    # -- the runtime helpers and what they read --------------------------------------
    def helper(self, name, obj):
        if self._claim(name, obj, "srcgrad's runtime"):
            return
        if isinstance(obj, types.ModuleType):
            return self._import(name, obj, "srcgrad's runtime")
        if inspect.isfunction(obj) or inspect.isclass(obj) and (_in_runtime(obj) or _in_errors(obj)):
            source = textwrap.dedent(inspect.getsource(obj))
            self.items[name] = None  # placeholder: a helper that reads itself is not revisited
            scope = vars(inspect.getmodule(obj))
            source = self._relative_imports(source, obj, scope)
            for free in sorted(_free_names(ast.parse(source).body[0])):
                if free in scope:
                    self._helper_name(free, scope)
                elif free not in self.items and not hasattr(builtins, free):
                    raise CompileError(f"export: srcgrad's `{name}` reads `{free}`, not found")
            del self.items[name]
            self.items[name] = source
            return
        if inspect.isclass(obj) and obj.__name__ in _STUBS:
            self.items[name] = f"class {name}:\n    \"\"\"{_STUBS[obj.__name__]}.\"\"\"\n"
            return
        self.value(name, obj, "srcgrad's runtime")

    def _relative_imports(self, source, obj, scope):
        """``source`` without its imports from srcgrad's own modules (``from ..errors
        import NotDifferentiableError`` in a helper's body): an exported module cannot
        import srcgrad, so what they bind is written into the module (a helper, or an
        error class of ``srcgrad.errors``), and read from there."""
        tree = ast.parse(source)
        found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        if not found:
            return source
        package = inspect.getmodule(obj).__name__.rpartition(".")[0]
        lines = source.splitlines()
        for node in sorted(found, key=lambda n: n.lineno, reverse=True):
            home = importlib.import_module(
                importlib.util.resolve_name("." * node.level + (node.module or ""), package))
            for alias in node.names:
                bound = alias.asname or alias.name
                if bound != alias.name:
                    raise CompileError(f"export: srcgrad's `{obj.__name__}` imports "
                                       f"`{alias.name}` as `{bound}`")
                self._helper_name(alias.name, vars(home))
            indent = lines[node.lineno - 1][:node.col_offset]
            names = ", ".join(a.name for a in node.names)
            lines[node.lineno - 1:node.end_lineno] = [f"{indent}pass  # ({names}: defined above)"]
        return "\n".join(lines) + "\n"

    def _helper_name(self, free, scope):
        """A module-level name a helper reads: another helper, a module, or a constant
        (copied with the statement that binds it, and what that reads)."""
        obj = scope[free]
        if inspect.isfunction(obj) or inspect.isclass(obj) or isinstance(obj, types.ModuleType):
            return self.helper(free, obj)
        if self._claim(free, obj, "srcgrad's runtime"):
            return
        statement = _binding_statement(scope, free)
        if statement is None:
            return self.value(free, obj, "srcgrad's runtime")
        self.items[free] = None
        for name in sorted(_free_names(ast.parse(statement))):
            if name != free and name in scope:
                self._helper_name(name, scope)
        del self.items[free]
        self.items[free] = statement

    def text(self, code, helpers, origin, kind, what):
        head = [f"# {kind} of {origin[0]} {what},",
                f"# from {origin[1]}, exported by srcgrad {__version__}.",
                "# A standalone module: it needs only NumPy (and the modules imported below).",
                "# Export it again when the function changes."]
        imports = sorted({f"import {module}" if alias == module else f"import {module} as {alias}"
                          for alias, module in self.imports.items()} | {"import types"})
        namespace = "_sg = types.SimpleNamespace(\n" + "".join(
            f"    {h}={h},\n" for h in helpers) + ")\n"
        parts = ["\n".join(head), "\n".join(imports)]
        parts += [s.rstrip() for s in self.items.values() if s]
        parts += [namespace.rstrip(), code.rstrip()]
        return "\n\n\n".join(parts) + "\n"


# -- reading code and values ------------------------------------------------------------

def _free_names(node):
    """Names ``node`` (a def, class or statement) reads but does not bind itself."""
    bound, loaded = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n is not node:
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        bound.add(node.name)
    return loaded - bound


def _closure_values(fn):
    cells = fn.__closure__ or ()
    return {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, cells)}


def _binding_statement(scope, name):
    """The source of the module-level statement that binds ``name`` in the module whose
    namespace is ``scope``, or None."""
    module = scope.get("__name__")
    try:
        source = inspect.getsource(__import__(module, fromlist=["_"]))
    except (OSError, TypeError, ImportError):
        return None
    for statement in ast.parse(source).body:
        targets = statement.targets if isinstance(statement, ast.Assign) else \
            [statement.target] if isinstance(statement, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.get_source_segment(source, statement)
    return None


def _in_runtime(obj):
    return getattr(obj, "__module__", "").startswith(runtime.__name__)


def _in_errors(obj):
    """An error class of srcgrad's (``CompileError``...): plain Python, copied as it is."""
    from . import errors

    return getattr(obj, "__module__", None) == errors.__name__


def _library_home(obj):
    """``numpy`` (or ``scipy.special``...) for a function or ufunc found there by name."""
    name = getattr(obj, "__name__", None)
    if name is None:
        return None
    for home in ("numpy", "numpy.linalg", "numpy.fft", "math", "scipy.special", "scipy.linalg"):
        try:
            module = __import__(home, fromlist=["_"])
        except ImportError:
            continue
        if getattr(module, name, None) is obj:
            return home
    return None


def _plain_tuple(obj):
    return isinstance(obj, tuple) and type(obj) is tuple and all(
        o is None or type(o) in (bool, int, float, complex, str) or _plain_tuple(o) for o in obj)


def _array_source(a):
    a = np.asarray(a)
    return f"np.array({a.tolist()!r}, dtype=np.{a.dtype.name})"


def _describe(obj):
    kind = type(obj).__name__
    return f"a {kind}" if not inspect.isclass(obj) else f"the class {obj.__name__}"
