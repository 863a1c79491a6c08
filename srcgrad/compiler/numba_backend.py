"""``sg.grad(f, backend="numba")``: the generated gradient code compiled with Numba.

The code is the one the default backend runs (specialised on the kinds of the
arguments, ``Compiled.specialised``), rewritten where Numba's Python differs
(``reversed`` loops) and given ``runtime/numba_rt.py`` as ``_sg``. What Numba
cannot type is refused with a ``CompileError`` naming the user's line; nothing
falls back to the default backend silently.

Numba compiles the values of globals and closure cells into the code as
constants. A scalar, a function or a module read that way is checked to be
the same object at every call (rebound: compiled again); an array is refused,
since its items could change in place unseen.
"""
import ast
import inspect
import operator
import os
import re
import types

import numpy as np

from ..errors import CompileError
from ..runtime.core import distinct
from ..runtime.strong import all_finite
from ..trees import is_tree
from . import codegen
from .source import GENERATED_ORIGINS
from .cache import Compiled, _kind
from .pipeline import compile_gradient
from .numba_fast import MISS, fast_path
from .numba_stacks import typed_stacks

_REMEDY = "use the default backend (no backend argument) for this function"


def numba_modules():
    """Numba and the helpers in its forms, imported on first use (an optional extra)."""
    try:
        import numba
    except ImportError:
        raise ImportError("backend='numba' needs Numba: pip install 'srcgrad[numba]'") from None
    from ..runtime import numba_rt
    return numba, numba_rt


class NumbaCompiled:
    """The gradient of ``f`` compiled with Numba, per kind of arguments."""

    def __init__(self, f, wrt, mode, compiled=None):
        self.numba, self.rt = numba_modules()
        self.compiled = Compiled.of(f, wrt, mode) if compiled is None else compiled
        self.mode = mode
        self.entries = {}  # kinds of the arguments -> _Entry
        self.trees = {}  # structure of the parameter trees -> the gradient of their leaves
        self.fast = None  # the last call's fast path (numba_fast.py), if it has one

    @property
    def bound(self):
        return self.compiled.bound

    def generic(self, sample=None, strong=False):
        """(What the compiler reads to differentiate a gradient again: refused.)"""
        raise CompileError(
            f"the gradient of {self.compiled.f.__qualname__}() compiled with backend='numba' "
            "is differentiated again", remedy="differentiate the default backend's gradient "
            "(no backend argument), and give backend='numba' to the outer sg.grad")

    generic_entry = generic

    def _of_leaves(self, compiled):
        """The gradient of a function of parameter trees' leaves (``Compiled._tree_call``),
        compiled with Numba: its code takes arrays and numbers only."""
        return NumbaCompiled(None, None, self.mode, compiled)

    def __call__(self, args, kwargs):
        fast = self.fast
        if fast is not None and not kwargs:
            # Arguments of the last call's kinds (``numba_fast.py``): checked, guarded
            # and cast as below, without the general path's Python.
            out = fast(args)
            if out is not MISS:
                return out
        c = self.compiled
        args, kwargs = c.arguments(args, kwargs)
        if any(i < len(args) and is_tree(args[i]) for i in c.wrt):
            return c._tree_call(args, kwargs, self.trees, self._of_leaves)
        if kwargs:
            raise CompileError(f"keyword-only parameters of {c.f.__qualname__}() with "
                               "backend='numba'", remedy="make them positional parameters")
        key = tuple(map(_kind, args))
        entry = self.entries.get(key)
        if entry is None or not entry.valid():
            entry = self.entries[key] = self._compile(args)
        out, finite = entry.run(args)
        result = self.finish(entry, args, out, finite)
        if entry.fast is None:
            entry.fast = fast_path(self, entry, args) or False
        self.fast = entry.fast or None
        return result

    def finish(self, entry, args, out, finite):
        """What a call returns, given what ``entry``'s code returned for ``args`` and
        whether all its numbers are ``finite``."""
        c = self.compiled
        if not finite and entry.generated.rerunnable:
            value, grads = out if self.mode == "value_and_grad" else (None, out)
            if not all_finite(grads) and all_finite(value):
                # Maybe a masked inf or NaN: the code with strong zeros
                # (runtime/strong.py), compiled the same way.
                if entry.strong is None:
                    entry.strong = self._compile(args, strong=True)
                out, _ = entry.strong.run(args)
        value, grads = out if self.mode == "value_and_grad" else (None, out)
        # (The generated code's ``_sg.distinct`` is Numba's identity: copies made here.)
        return c.returned(value, distinct(grads) if c.multiple else grads, args)

    def _compile(self, args, strong=False):
        c = self.compiled
        c.check_arguments(args)
        if strong:
            generated = compile_gradient(c.f, c.wrt, self.mode, sample=list(args),
                                         as_tuple=c.multiple, strong=True)
        else:
            generated = c.specialised(args[len(c.bound):], sized=False)
        return _Entry(self, generated, args)


class _Entry:
    def __init__(self, owner, generated, args):
        self.generated = generated
        self.strong = None
        fn = generated.fn
        origins = _origins(fn)
        text = _for_numba(generated.text, owner.rt.HELPERS, origins)
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        constants = _constants(text, fn, cells, origins)
        cells["_sg"] = types.CellType(owner.rt)
        loaded = codegen.load(text, fn.__name__, fn.__globals__, cells,
                              f"numba {fn.__name__}")
        # Stacks of numbers as arrays, placeholders typed (numba_stacks.py), as Numba
        # types the code for these arguments.
        typed = typed_stacks(text, loaded, args)
        if typed != text:
            text = typed
            loaded = codegen.load(text, fn.__name__, fn.__globals__, cells,
                                  f"numba {fn.__name__}")
        self.text, self.origins = text, origins
        self.loaded, self.cells = loaded, cells  # (numba_fast.py's variant writing in place)
        self.fast = None  # its fast path (numba_fast.py): None until made, False for none
        self.inner = owner.numba.njit(loaded)
        # What runs: the code, and whether every number it returns is finite (read
        # there, not by a second call).
        self.jitted = owner.numba.njit(_with_finiteness(self.inner, owner.rt, loaded))
        self.numba_errors = (owner.numba.core.errors.NumbaError,)
        self.refusal = owner.rt.Refusal
        self.checked = 0  # how many of Numba's compilations are checked (integer growth)
        guards = generated.guards
        guards.valid()  # (compiles the check: ``guards.valid`` is then that function)
        # Is the code still what the user's code means: its guards hold, and every
        # value Numba compiled in is still the one it read.
        self.valid = guards.valid if not constants else (
            lambda: guards.valid() and all(read() is value for read, value in constants))

    def run(self, args):
        try:
            out = self.jitted(*args)
        except self.numba_errors as error:
            raise _refusal(error, self.text, self.origins) from None
        except self.refusal as error:
            raise CompileError(f"srcgrad's Numba backend does not model {error}",
                               *self.origins(None), remedy=_REMEDY) from None
        except Exception as error:
            # Numba's lowering raises other errors too (``NotImplementedError`` for a
            # ufunc's ``out=``): an error before the code was compiled is a refusal; one
            # the compiled code raised is the user's code's.
            if tuple(map(self.jitted.typeof_pyval, args)) in self.jitted.overloads:
                raise
            raise _refusal(error, self.text, self.origins) from None
        if len(self.inner.overloads) != self.checked:
            # Numba typed the code for new argument types (a first call, or an array
            # of another layout): its integer arithmetic is checked before its result
            # is used.
            for compiled in self.inner.overloads.values():
                _check_integer_growth(compiled, self.text, self.origins)
            self.checked = len(self.inner.overloads)
        return out


def _with_finiteness(inner, rt, fn):
    """A function of ``fn``'s parameters returning ``(inner(...), all finite?)``."""
    code = fn.__code__
    params = ", ".join([f"a{i}" for i in range(code.co_argcount)]
                       + (["*rest"] if code.co_flags & inspect.CO_VARARGS else []))
    scope = {"inner": inner, "finite": rt.finite_of}
    exec(f"def checked({params}):\n"
         f"    out = inner({params})\n"
         f"    return out, finite(out)\n", scope)
    return scope["checked"]


# Integer operations whose result outgrows its operands: Numba's int64 wraps where
# Python's int grows, so these are refused unless a factor is a small constant.
_GROWING = {operator.pow: "**", operator.ipow: "**=", operator.lshift: "<<",
            operator.ilshift: "<<=", operator.mul: "*", operator.imul: "*="}
_SMALL = 1 << 16


def _check_integer_growth(compiled, text, origins):
    """Refuse integer products and powers Numba typed as int64 (they wrap silently past
    2**63, where Python's integers grow): a wrong number, never an error."""
    from numba.core import ir, types as nb_types

    annotation = compiled.type_annotation
    constants = {}
    for block in annotation.blocks.values():
        for statement in block.body:
            if isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Const):
                constants[statement.target.name] = statement.value.value
    for expr, signature in annotation.calltypes.items():
        if not (isinstance(expr, ir.Expr) and expr.op in ("binop", "inplace_binop")
                and expr.fn in _GROWING and signature is not None
                and isinstance(signature.return_type, nb_types.Integer)):
            continue
        small = [isinstance(constants.get(v.name), int) and abs(constants[v.name]) <= _SMALL
                 for v in (expr.lhs, expr.rhs)]
        if expr.fn in (operator.mul, operator.imul) and any(small):
            continue
        lines = text.splitlines()
        line = lines[expr.loc.line - 1].strip() if 0 < expr.loc.line <= len(lines) else ""
        raise CompileError(
            f"integer `{_GROWING[expr.fn]}` in `{line}`: Numba computes it in 64 bits, which "
            "wrap where Python's integers grow", *origins(expr.loc.line),
            remedy="make an operand a float (`float(n)`), or " + _REMEDY)


def _for_numba(text, helpers, origins):
    """The generated code in Numba's Python, line for line (errors keep their lines):
    ``reversed(...)`` as ``_sg.reversed_of(...)``, a ``del`` (it frees memory early;
    Numba's IR does not take it) as ``pass``, every helper checked to have a Numba form."""
    tree = ast.parse(text)
    lines = text.splitlines()
    edits = []  # (line, start column, end column, replacement), applied last first
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):  # (Numba compiles no handler of a differentiated body)
            raise CompileError("try statement is not supported by srcgrad's Numba backend",
                               *origins(node.lineno), remedy=_REMEDY)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "_sg" and node.attr not in helpers:
            raise CompileError(
                f"`_sg.{node.attr}` has no Numba form: srcgrad's Numba backend does not "
                f"compile `{lines[node.lineno - 1].strip()}`", *origins(node.lineno),
                remedy=_REMEDY)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "reversed":
            f = node.func
            edits.append((f.lineno, f.col_offset, f.end_col_offset, "_sg.reversed_of"))
        elif isinstance(node, ast.Delete):
            edits.append((node.lineno, node.col_offset, len(lines[node.lineno - 1]), "pass"))
            for extra in range(node.lineno + 1, node.end_lineno + 1):
                edits.append((extra, 0, len(lines[extra - 1]), ""))
    for lineno, start, stop, new in sorted(edits, reverse=True):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + new + line[stop:]
    return "\n".join(lines) + "\n"


def _constants(text, fn, cells, origins):
    """What Numba will compile in as constants, as (read it now, the object) pairs.

    An array is refused: Numba copies it into the code, and a change to its
    items later would not be seen.
    """
    tree = ast.parse(text)
    code = tree.body[0]
    local = {a.arg for a in code.args.args} | {
        n.id for n in ast.walk(code) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    read = []
    seen = set()
    for node in ast.walk(code):
        if not isinstance(node, ast.Name) or node.id in local or node.id in seen \
                or node.id == "_sg":
            continue
        seen.add(node.id)
        name = node.id
        if name in cells:
            cell = cells[name]
            value = cell.cell_contents
            read.append(((lambda cell=cell: cell.cell_contents), value))
        elif name in fn.__globals__:
            value = fn.__globals__[name]
            read.append(((lambda g=fn.__globals__, n=name: g.get(n)), value))
        else:
            continue  # a builtin, or unbound (Numba's own error names it)
        if isinstance(value, np.ndarray) or hasattr(value, "__array__") and not isinstance(
                value, (np.generic, types.ModuleType, type)) and not callable(value):
            raise CompileError(
                f"`{name}`, an array read from outside the function: Numba compiles it in "
                f"as a constant, and a later change to its items would not be seen",
                *origins(node.lineno), remedy="pass it as an argument, or " + _REMEDY)
    return read


_NUMBA_LINE = re.compile(r'File "<srcgrad numba [^"]*>", line (\d+)')


def _origins(fn):
    """line of ``fn``'s generated text -> (file, line) of the user's statement it was
    written for (the function's own line where none is known)."""
    lines = GENERATED_ORIGINS.get(fn.__code__.co_filename)
    header = re.search(r"\(([^()]+):(\d+)\)", fn.__srcgrad_source__.split("\n", 1)[0])
    default = (header.group(1), int(header.group(2))) if header else (None, None)

    def origin(lineno):
        found = lines.get(lineno) if lines is not None else None
        return (os.path.basename(found.filename), found.lineno) if found else default
    return origin


def _refusal(error, text, origins):
    """The ``CompileError`` for an error Numba raised compiling ``text``: its reason, the
    generated line it names and the user's line that was written for (the function's
    own line when Numba names none)."""
    message = str(error)
    lines = text.splitlines()
    at = _NUMBA_LINE.findall(message)
    lineno = int(at[-1]) if at else None
    ours = re.search(r"srcgrad's Numba backend has no form of [^\n]*", message)
    if ours:
        reason = ours.group(0)
    else:
        body = [ln.strip() for ln in message.splitlines() if ln.strip()
                and not ln.startswith("Failed in") and not ln.startswith("During:")]
        reason = body[0] if body else type(error).__name__
    construct = "the gradient's code"
    if lineno is not None and 0 < lineno <= len(lines):
        construct = f"`{lines[lineno - 1].strip()}`"
    where = origins(lineno)
    return CompileError(f"Numba cannot compile {construct} ({reason})", *where, remedy=_REMEDY)
