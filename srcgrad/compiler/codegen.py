"""Print and load generated code.

``gast.unparse`` prints no comments, so comments travel as marked string
statements and become ``#`` lines here. Loading goes through ``linecache`` so
tracebacks, ``inspect`` and debuggers show the generated lines.
"""
import ast
import heapq
import itertools
import linecache
import re
import types
import weakref

import gast

from .. import runtime
from ..ir import anno, templates as T
from ..ir.names import walk_stmts
from .source import GENERATED_ORIGINS

_COUNTER = itertools.count(1)
_FREE = []  # numbers of generated files whose code is gone: a heap, reused smallest first
_PENDING = {}  # printed text -> its line origins, until the text is loaded
_MARK = re.compile(r"^(\s*)('__comment__.*'|\"__comment__.*\")$")


def unparse(fn_node, header):
    """The text of a generated function (or of a list of them), below a ``header`` comment."""
    module = gast.Module(list(fn_node) if isinstance(fn_node, list) else [fn_node], [])
    for n in T.walk(module):
        if isinstance(n, (gast.stmt, gast.expr)):
            # Generated nodes have no position; the unparser looks for one.
            if not hasattr(n, "lineno"):
                n.lineno = n.end_lineno = 1
                n.col_offset = n.end_col_offset = 0
    text = gast.unparse(module)
    lines = []
    for line in text.splitlines():
        m = _MARK.match(line)
        if m:
            lines.append(f"{m.group(1)}# {ast.literal_eval(m.group(2))[len('__comment__'):]}")
        else:
            lines.append(line)
    text = f"# {header}\n" + "\n".join(lines) + "\n"
    _PENDING[text] = _LineOrigins(text, [anno.origin(s) for s in _printed(module)])
    while len(_PENDING) > 64:  # printed but never loaded (forward_text, srcgrad show)
        _PENDING.pop(next(iter(_PENDING)))
    return text


def _statements(module):
    """The generated functions and their statements, in printed order."""
    for fn in module.body:
        yield fn
        yield from walk_stmts(fn.body)


def _printed(module):
    """The statements of ``module`` as they are printed (comments are ``#`` lines)."""
    return [s for s in _statements(module) if not (
        isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant)
        and isinstance(s.value.value, str) and s.value.value.startswith("__comment__"))]


class _LineOrigins:
    """{line of a generated text: the user's origin of the statement printed there},
    worked out (by parsing the text again) only when an error asks for it."""

    def __init__(self, text, origins):
        self.text, self.origins, self.lines = text, origins, None

    def get(self, line):
        if self.lines is None:
            try:
                parsed = list(_statements(gast.parse(self.text)))
            except SyntaxError:
                parsed = []
            self.lines = {p.lineno: o for p, o in zip(parsed, self.origins) if o is not None} \
                if len(parsed) == len(self.origins) else {}
            self.text = None
        return self.lines.get(line)


def free_names(fn_node):
    """Names the function reads but neither binds nor receives."""
    local = {a.id for a in fn_node.args.args + fn_node.args.posonlyargs + fn_node.args.kwonlyargs}
    loads = set()
    for n in gast.walk(fn_node):
        if isinstance(n, gast.Name):
            if isinstance(n.ctx, (gast.Store, gast.Param)):
                local.add(n.id)
            else:
                loads.add(n.id)
        elif isinstance(n, gast.FunctionDef) and n is not fn_node:
            local.add(n.name)
    return loads - local


def load(text, fn_name, globals_, cells, label):
    """Compile generated ``text`` into a function (a tuple of them for a tuple of names).

    ``cells`` maps free names to closure cells: ``_sg``, objects the compiler
    injected, and the user's own closure cells (kept live, not copied).
    """
    number = heapq.heappop(_FREE) if _FREE else next(_COUNTER)
    filename = f"<srcgrad {label} #{number}>"
    lines = text.splitlines(True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    if text in _PENDING:
        GENERATED_ORIGINS[filename] = _PENDING.pop(text)
    names = sorted(cells)
    # Line 1 of ``text`` is a comment: the factory's def takes its place so
    # that line numbers match the text users see.
    body = "".join("    " + line if line.strip() else line for line in lines[1:])
    wanted = fn_name if isinstance(fn_name, tuple) else (fn_name,)
    factory = f"def __srcgrad_factory__({', '.join(names)}):\n{body}    return {wanted[0]}\n"
    code = compile(factory, filename, "exec")
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    fns = []
    for name in wanted:
        inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
        closure = tuple(cells[free] for free in inner.co_freevars)
        fn = types.FunctionType(inner, globals_, name, None, closure)
        fn.__srcgrad_source__ = text
        fns.append(fn)
    # The cache forgets code it evicts: its lines go with it, and its number is
    # reused (Python keeps every file name it compiled code from, for good).
    owner = _Lines()
    for fn in fns:
        fn.__srcgrad_lines__ = owner  # the lines go when the last function using them does
    weakref.finalize(owner, _release, filename, number)
    return tuple(fns) if isinstance(fn_name, tuple) else fns[0]


class _Lines:
    """Held by the functions loaded from one text."""


def _release(filename, number):
    linecache.cache.pop(filename, None)
    GENERATED_ORIGINS.pop(filename, None)
    heapq.heappush(_FREE, number)


def runtime_cell():
    return types.CellType(runtime)
