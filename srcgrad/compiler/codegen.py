"""Print and load generated code.

``gast.unparse`` prints no comments, so comments travel as marked string
statements and become ``#`` lines here. Loading goes through ``linecache`` so
tracebacks, ``inspect`` and debuggers show the generated lines.
"""
import ast
import builtins
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
from ..passes import try_except
from .source import GENERATED_ORIGINS

_COUNTER = itertools.count(1)
_FREE = []  # numbers of generated files whose code is gone: a heap, reused smallest first
_PENDING = {}  # printed text -> its line origins, until the text is loaded
_MARK = re.compile(r"^(\s*)('__comment__.*'|\"__comment__.*\")$")
# Printed text -> {alias: object} for srcgrad's own names it had to rename (``_own``),
# and -> builtins it reads that the module's globals must not shadow.
_ALIASES = {}
_BUILTINS_READ = {}
# -> (the code, its header, builtins it reads by its own names and the user's code by the
# same names): printed again, with the own ones renamed, where the module shadows them
# (until the text is loaded).
_SHARED = {}
# The objects srcgrad's own names (``templates.own_name``) mean, and what they are
# called when the user's code has a variable of that name.
_CELLS = {"_sg": "_srcgrad", "_np": "_numpy", "_math": "_math_module"}
_MODULES = {"np": "_numpy", "math": "_math_module"}


_BINDING = (gast.Store, gast.Param, gast.Del)


def _own(module, shadowed=()):
    """``module`` with srcgrad's own names renamed where the user's code has a variable of
    the same name (``_sg = 3.0``, a local ``len``, a closure's ``_sg``, and the builtins
    ``shadowed`` by the module's globals); {alias: (name, object)} for them; the builtins
    the generated code reads by its own names only, and those the user's code reads too.

    The generated code reaches the runtime through ``_sg``, the builtins by their names
    (``range(len(x))`` for ``for v in x``, ``reversed`` in the backward pass) and NumPy as
    ``np``/``_np``: a template's names (``sg_own``) mean these, the user's names their
    own values."""
    own, user, bound, reads = set(), set(), set(shadowed), set()
    runtime_reads = set()  # ``_sg.<a runtime helper>`` read in code srcgrad generated earlier
    for n in T.walk(module):
        cls = n.__class__
        if cls is gast.Name:
            binds = isinstance(n.ctx, _BINDING)
            if getattr(n, "sg_own", False) and not binds:
                if T.is_own(n.id):
                    own.add(n.id)
            elif id(n) not in runtime_reads:
                user.add(n.id)
                if binds:
                    bound.add(n.id)
                else:
                    reads.add(n.id)
        elif cls is gast.Attribute:
            # (A gradient's own code, differentiated again, says ``_sg.sum_grad``: its
            # ``_sg`` is the runtime too; a user's ``_sg`` is not a module of them.)
            v = n.value
            if v.__class__ is gast.Name and v.id in _CELLS and isinstance(v.ctx, gast.Load) \
                    and hasattr(T.own_object(v.id), n.attr):
                runtime_reads.add(id(v))
        elif cls in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
            user.add(n.name)
            bound.add(n.name)
        elif cls is gast.alias:
            bound.add((n.asname or n.name).split(".")[0])
        elif cls in (gast.Global, gast.Nonlocal):
            bound.update(n.names)
    user |= bound
    clash = {n for n in own if n in bound or n in _CELLS and n in user}
    # Builtins the code reads, by its own names and maybe by the user's too: which the
    # module's globals shadow is known when loading.
    builtins_read = {n for n in own - bound if n not in _CELLS and n not in _MODULES}
    only, too = frozenset(builtins_read - reads), frozenset(builtins_read & reads)
    if not clash:
        return module, {}, only, too
    taken = user | own
    aliases, rename = {}, {}
    for n in sorted(clash):
        base = _CELLS.get(n) or _MODULES.get(n) or f"_builtin_{n}"
        alias, k = base, 2
        while alias in taken:
            alias, k = f"{base}_{k}", k + 1
        taken.add(alias)
        rename[n], aliases[alias] = alias, (n, T.own_object(n))
    module = T.clone(module)
    for n in T.walk(module):
        if n.__class__ is gast.Name and n.id in rename and getattr(n, "sg_own", False) \
                and not isinstance(n.ctx, _BINDING):
            n.id = rename[n.id]
    return module, aliases, only, too


def unparse(fn_node, header, shadowed=()):
    """The text of a generated function (or of a list of them), below a ``header`` comment.

    ``shadowed``: builtins the code calls that the user's module has globals of."""
    module = gast.Module(list(fn_node) if isinstance(fn_node, list) else [fn_node], [])
    try_except.emit(module)  # (branches that were try statements: try statements again)
    module, aliases, builtins_only, user_too = _own(module, shadowed)
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
    for table, value in ((_ALIASES, aliases), (_BUILTINS_READ, builtins_only),
                         (_SHARED, (fn_node, header, user_too) if user_too else None)):
        if value:
            table[text] = value
            while len(table) > (64 if table is _SHARED else 256):  # (printed, not loaded)
                table.pop(next(iter(table)))
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
    shared = _SHARED.pop(text, None)  # (the code is not kept alive past loading)
    if shared is not None:
        nodes, header, names = shared
        shadowed = {n for n in names if _shadows(globals_, n)}
        if shadowed:
            text = unparse(nodes, header, shadowed)
            _SHARED.pop(text, None)
            lines = text.splitlines(True)
            linecache.cache[filename] = (len(text), None, lines, filename)
            if text in _PENDING:
                GENERATED_ORIGINS[filename] = _PENDING.pop(text)
    # srcgrad's own names renamed away from the user's (``_own``) are cells too; so are
    # the builtins it reads where the user's module has a global of that name.
    # (A user's name that was srcgrad's cell, ``_sg``, then means what it means in the
    # user's code: a global, unless the user's closure has it.)
    extra = {}
    for alias, (name, obj) in _ALIASES.get(text, {}).items():
        extra[alias] = types.CellType(obj)
        if name in cells and _contents(cells[name]) is obj:
            cells = {k: v for k, v in cells.items() if k != name}
    for n in _BUILTINS_READ.get(text, ()):
        if _shadows(globals_, n) and n not in cells:
            extra[n] = types.CellType(getattr(builtins, n))
    if extra:
        cells = {**cells, **extra}
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


def _shadows(globals_, name):
    return name in globals_ and globals_[name] is not getattr(builtins, name)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # (empty)
        return None


def runtime_cell():
    return types.CellType(runtime)
