"""Find and parse the source of a function, keeping the way back to user lines."""
import ast
import dis
import inspect
import linecache
import os
import re
import sys
import textwrap
import types
from dataclasses import dataclass, field

import gast

from ..errors import CompileError, SourceUnavailableError
from ..ir import templates as T
from ..passes import deletes, lambdas, loop_else, try_except, walrus

# Counts parses, so tests can prove that a cached call parses nothing.
PARSE_COUNT = [0]

# Generated code's file name -> {its line: the user's Origin of that statement}: a
# refusal while differentiating generated code (second order) names the user's line.
GENERATED_ORIGINS = {}


@dataclass
class Origin:
    """Where a statement came from in the user's code."""

    filename: str
    lineno: int
    text: str

    def short(self):
        return f"{os.path.basename(self.filename)}:{self.lineno}"


@dataclass
class FunctionSource:
    """A parsed function plus what is needed to resolve its names."""

    fn: object
    node: gast.FunctionDef
    filename: str
    line_offset: int  # add to a node's lineno to get the file's line number
    globals: dict
    freevars: dict = field(default_factory=dict)  # name -> cell
    names: tuple = None  # (local names, free names), filled in by the compiler's Context

    def origin(self, node):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return Origin(self.filename, self.line_offset + 1, "")
        real = lineno + self.line_offset
        lines = GENERATED_ORIGINS.get(self.filename)
        mapped = lines.get(real) if lines is not None else None
        if mapped is not None:
            return mapped
        return Origin(self.filename, real, linecache.getline(self.filename, real).strip())

    def error(self, message, node, remedy=None):
        o = self.origin(node)
        return CompileError(message, o.short(), None, remedy)


def _lambda_compiles_to(lam, code):
    """Is the lambda node ``lam`` the one ``code`` was compiled from?"""
    try:
        outer = compile(gast.unparse(lam).strip(), code.co_filename, "eval")
    except SyntaxError:
        return False
    return any(inspect.iscode(c) and _same_code(c, code) for c in outer.co_consts)


def _lambda_to_def(fn, module, line=None):
    """The lambda ``fn`` as a def, found in ``module`` (on source line ``line`` if given).

    Several lambdas with the same parameters (a dict of activations written on
    one line) are told apart by compiling each and comparing with ``fn``'s code.
    """
    code = fn.__code__
    names = list(code.co_varnames[: code.co_argcount])
    found = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
             and [a.id for a in n.args.args] == names
             and (line is None or getattr(n, "lineno", None) == line)]
    if len(found) > 1:
        found = [n for n in found if _lambda_compiles_to(n, code)]
    if len(found) != 1:
        raise CompileError(
            "cannot tell which lambda on this line to differentiate",
            f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}",
            remedy="define the function with def",
        )
    lam = found[0]
    node = gast.FunctionDef(
        name="lambda_", args=lam.args, body=[gast.Return(lam.body)],
        decorator_list=[], returns=None, type_comment=None, type_params=[],
    )
    gast.copy_location(node, lam)
    gast.copy_location(node.body[0], lam)
    return node


_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)
_SKIP = {"COPY_FREE_VARS", "MAKE_CELL", "RESUME", "NOP", "CACHE", "PUSH_NULL", "PRECALL",
         "EXTENDED_ARG"}


def _shape(code):
    """A code object's instructions, blind to how names are scoped.

    The def found on disk is compiled on its own, so an enclosing function's
    variables become globals there; loads and stores are compared by name only,
    and jumps by kind only (their offsets shift with the skipped instructions).
    """
    out = []
    closure = False  # after LOAD_CLOSURE: the tuple of cells a nested code object gets
    for ins in dis.get_instructions(code):
        if ins.opname in _SKIP:
            continue
        # (A comprehension or nested def reading the enclosing function's variable gets
        # it as a cell; compiled on its own, the variable is a global: no cells.)
        if ins.opname == "LOAD_CLOSURE" or closure and ins.opname == "BUILD_TUPLE":
            closure = ins.opname == "LOAD_CLOSURE"
            continue
        closure = False
        if ins.opname == "MAKE_FUNCTION":  # (its flag 0x08: with cells)
            out.append(("MAKE_FUNCTION", repr((ins.arg or 0) & ~0x08)))
            continue
        if ins.opname == "SET_FUNCTION_ATTRIBUTE" and ins.arg == 0x08:  # (Python 3.13)
            continue
        op = {"LOAD_METHOD": "LOAD_ATTR", "CALL_METHOD": "CALL"}.get(ins.opname, ins.opname)
        for kind in ("LOAD", "STORE", "DELETE"):
            if op.startswith(kind + "_") and op.split("_")[1] in (
                    "GLOBAL", "NAME", "DEREF", "FAST", "CLOSURE", "CLASSDEREF"):
                op = kind
        jump = ins.opcode in _JUMPS
        arg = None if jump or inspect.iscode(ins.argval) else ins.argval
        out.append((op, repr(arg)))
    return out


def _same_code(a, b, cls=None):
    """Do ``a`` (compiled from the text on disk, outside any class) and ``b`` (the code
    Python runs, of a method of ``cls`` if not None: its private names mangled) match?"""
    shape_b = _shape(b)
    if cls is not None and cls.strip("_"):
        mangled = re.compile(r"'_%s(__\w+)'" % re.escape(cls.lstrip("_")))
        shape_b = [(op, mangled.sub(r"'\1'", arg)) for op, arg in shape_b]
    if _shape(a) != shape_b:
        return False
    ca = [c for c in a.co_consts if inspect.iscode(c)]
    cb = [c for c in b.co_consts if inspect.iscode(c)]
    return len(ca) == len(cb) and all(_same_code(x, y, cls) for x, y in zip(ca, cb))


def class_of(code):
    """The name of the class whose body ``code``'s function was defined in, or None:
    Python mangles its private names (``self.__w`` is ``self._Model__w``)."""
    parts = getattr(code, "co_qualname", "").split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else None


def mangle(node, cls):
    """Private names in the tree ``node`` (gast or ast) as the body of class ``cls``
    compiles them: identifiers and attributes ``__x`` (not ``__x__``) become ``_cls__x``;
    keyword names in calls are left, as Python leaves them."""
    prefix = "_" + cls.lstrip("_") if cls and cls.strip("_") else None

    def mangled(name):
        return prefix + name if prefix and name.startswith("__") and not name.endswith("__") \
            and "." not in name else name
    for n in gast.walk(node) if isinstance(node, gast.AST) else __import__("ast").walk(node):
        for name in ("id", "attr", "arg"):
            value = getattr(n, name, None)
            if isinstance(value, str) and not (name == "arg" and type(n).__name__ == "keyword"):
                setattr(n, name, mangled(value))
    return node


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _own(filename):
    """Is ``filename`` one of srcgrad's own modules (the runtime helpers forward mode and
    inlining read)? Their files are the package's: they do not change under a running
    program, as a user's file edited after its import does, so the comparison with the
    code Python runs (``_matches``: compiling the text again) is skipped for them."""
    return filename.startswith(_PACKAGE)


def _matches(text, code):
    """Is ``text`` (a def found on disk) the source ``code`` was compiled from?"""
    try:
        compiled = compile(text, code.co_filename, "exec")
    except SyntaxError:
        return True  # a lambda cut out of a larger statement: nothing to compare
    if _defines(compiled, code):
        return True
    # pytest compiles the asserts of test modules into its own code: a function with an
    # ``assert`` in a test file is the text as pytest rewrote it.
    rewritten = _as_pytest_compiles(text, code.co_filename)
    return rewritten is not None and _defines(rewritten, code)


def _defines(compiled, code):
    """Is ``code`` (nested at any depth) in the module code ``compiled``?"""
    todo = [compiled]
    while todo:
        c = todo.pop()
        if c.co_name == code.co_name and _same_code(c, code, class_of(code)):
            return True
        todo.extend(k for k in c.co_consts if inspect.iscode(k))
    return False


def _as_pytest_compiles(text, filename):
    """``text`` compiled with its asserts rewritten as pytest's import hook rewrites a
    test module's, or None (pytest not running, no assert)."""
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    if rewrite is None or "assert" not in text:
        return None
    try:
        tree = ast.parse(text)
        rewrite.rewrite_asserts(tree, text.encode(), filename, None)
        return compile(tree, filename, "exec")
    except Exception:  # another pytest's internals: then the text does not match
        return None


_DEF_LINE = re.compile(r"^\s*(@|def\s|async\s+def\s)")


def _last_line(code):
    """The last line any instruction of ``code`` (nested code included) comes from, or None."""
    if not hasattr(code, "co_positions"):  # Python 3.10
        return None
    last, todo = code.co_firstlineno, [code]
    while todo:
        c = todo.pop()
        for _, end, _, _ in c.co_positions():
            if end is not None and end > last:
                last = end
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return last


def _source_lines(fn):
    """``inspect.getsourcelines(fn)`` without its first-call cost.

    ``inspect`` finds the module of the function by scanning ``sys.modules``,
    and the end of its block with ``tokenize``, whose regular expressions are
    compiled on first use: milliseconds, the first time. ``fn.__globals__`` is
    the module's namespace already, and the code object knows its last line;
    lines after it that compile to nothing (trailing comments) are left out.
    Lambdas go through ``inspect``, and so does a block that does not parse
    (``parse_function``).
    """
    code = fn.__code__
    lnum = code.co_firstlineno - 1
    if fn.__name__ != "<lambda>":
        lines = linecache.getlines(code.co_filename, fn.__globals__)
        last = _last_line(code)
        if last is not None and 0 <= lnum < last <= len(lines) and _DEF_LINE.match(lines[lnum]) \
                and not (last == lnum + 1 and lines[lnum].rstrip().endswith(":")):
            # (A body that is a docstring only compiles to no line of its own.)
            return lines[lnum:last], lnum + 1
    # (Of the code object: ``inspect`` would follow a ``functools.wraps`` wrapper's
    # ``__wrapped__`` to the function it wraps, whose code is not what runs.)
    return inspect.getsourcelines(code)


def _imports_as_cells(node, fn, freevars):
    """``import scipy.linalg as sl`` / ``from scipy.special import gammaln`` in the body:
    imported now (what running the line does) and the names bound to what they import
    as closure cells, the statements dropped, where nothing else binds those names.
    Any other import stays, for the fence to refuse naming its line."""
    bindings = {}
    for n in gast.walk(node):
        for target in _bound_by(n):
            bindings[target] = bindings.get(target, 0) + 1
    imported = {}
    for n in gast.walk(node):
        if isinstance(n, (gast.Import, gast.ImportFrom)):
            found = _imported(n, fn)
            if found is None or any(bindings.get(name) != 1 for name in found):
                return
            imported[id(n)] = found
    if not imported:
        return
    for n in gast.walk(node):
        for field_name in ("body", "orelse"):
            body = getattr(n, field_name, None)
            if isinstance(body, list) and any(id(s) in imported for s in body):
                kept = [s for s in body if id(s) not in imported]
                setattr(n, field_name, kept or [gast.Pass()])
    for found in imported.values():
        freevars.update((name, types.CellType(value)) for name, value in found.items())


def _bound_by(n):
    """The names a node binds (as assignment targets, imports, defs, parameters)."""
    if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param)):
        return [n.id]
    if isinstance(n, (gast.Import, gast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in n.names]
    if isinstance(n, gast.FunctionDef):
        return [n.name]
    return []


def _imported(n, fn):
    """``{name: value}`` an import statement binds, imported now; None where it cannot
    be (a ``*`` import, a module that does not import)."""
    import importlib

    found = {}
    try:
        if isinstance(n, gast.Import):
            for a in n.names:
                module = importlib.import_module(a.name)
                if a.asname:
                    found[a.asname] = module
                else:
                    found[a.name.split(".")[0]] = importlib.import_module(a.name.split(".")[0])
            return found
        package = fn.__globals__.get("__package__")
        module = importlib.import_module("." * n.level + (n.module or ""), package)
        for a in n.names:
            if a.name == "*":
                return None
            if hasattr(module, a.name):
                value = getattr(module, a.name)
            else:  # a submodule not imported by its package
                value = importlib.import_module(f"{module.__name__}.{a.name}")
            found[a.asname or a.name] = value
    except (ImportError, TypeError, ValueError):
        return None
    return found


def parse_function(fn):
    """Parse ``fn``'s source into a gast FunctionDef."""
    generated = getattr(fn, "__srcgrad_source__", None)
    code = fn.__code__
    filename = code.co_filename
    try:
        if generated is not None:
            lines, start = generated.splitlines(True), 1
        else:
            linecache.checkcache(filename)  # read the file as it is now, then compare below
            lines, start = _source_lines(fn)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot find the source code of {fn.__qualname__!r}",
            filename,
            remedy="put the code in a file (or a notebook cell) rather than typing it at "
            "a bare python prompt or running exec() on a string, or use @srcgrad.function",
        ) from exc
    text = textwrap.dedent("".join(lines))
    PARSE_COUNT[0] += 1
    key = (code, code.co_filename, code.co_qualname, text)
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = _PARSED[key] = _parsed_def(fn, text, start, generated)
        if len(_PARSED) > _PARSED_MAX:
            del _PARSED[next(iter(_PARSED))]
    node_template, start, has_imports = parsed
    node = T.clone(node_template)
    freevars = {}
    if code.co_freevars:
        freevars = dict(zip(code.co_freevars, fn.__closure__ or ()))
    if has_imports:
        _imports_as_cells(node, fn, freevars)
    return FunctionSource(
        fn=fn, node=node, filename=filename, line_offset=start - 1,
        globals=fn.__globals__, freevars=freevars,
    )


# (code object, its file and name, source text) -> the def parsed, mangled and with its lambdas and walrus
# hoisted, its first line, whether it imports. A function is compiled again for each
# kind of arguments, each order and each form; parsing, and comparing with the code
# Python runs, is most of reading it. Each compilation gets its own clone.
_PARSED = {}
_PARSED_MAX = 512


def _parsed_def(fn, text, start, generated):
    code = fn.__code__
    filename = code.co_filename
    line = None
    try:
        try:
            module = gast.parse(text)
        except SyntaxError:
            if generated is not None:
                raise
            if fn.__name__ == "<lambda>":
                # A lambda inside a larger expression (a dict of activations, a call
                # over several lines): the lines inspect cuts out do not parse alone.
                text = "".join(linecache.getlines(filename, fn.__globals__))
                start, line = 1, code.co_firstlineno
            else:
                lines, start = inspect.getsourcelines(code)  # the block as inspect finds it
                text = textwrap.dedent("".join(lines))
            module = gast.parse(text)
    except SyntaxError as exc:
        # A decorated one-liner or a lambda in the middle of an expression.
        raise SourceUnavailableError(
            f"cannot parse the source of {fn.__qualname__!r}: {exc.msg}", filename
        ) from exc
    if fn.__name__ == "<lambda>":
        node = _lambda_to_def(fn, module, line)
    else:
        defs = [n for n in module.body if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))]
        if not defs:
            raise SourceUnavailableError(f"no function definition found for {fn.__qualname__!r}", filename)
        node = defs[0]
    if generated is None and not _own(filename) and not _matches(text, code):
        raise SourceUnavailableError(
            f"the source of {fn.__qualname__!r} in {os.path.basename(filename)} has changed since "
            "the function was defined, so srcgrad cannot read the code Python runs",
            f"{os.path.basename(filename)}:{code.co_firstlineno}",
            remedy="reload the module (importlib.reload) or re-run the cell, and take the "
            "gradient of the new function",
        )
    node.decorator_list = []
    mangle(node, class_of(code))
    lambdas.hoist(node)
    walrus.hoist(node)
    loop_else.lower(node)
    deletes.lower(node)
    try_except.lower(node)
    has_imports = any(isinstance(n, (gast.Import, gast.ImportFrom)) for n in T.walk(node))
    return node, start, has_imports
