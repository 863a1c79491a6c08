"""Find the code a tape records: the ``with`` block (or the statements between
``tape.__enter__()`` and ``tape.__exit__(...)``) around the caller's line.

The tape compiles that code like any function: the region's statements
become the body of ``def tape_region(<inputs>)``, whose parameters are the
variables the region reads and that exist when it is entered.
"""
import linecache
import os
from dataclasses import dataclass, field, replace

import gast

from ..compiler.source import PARSE_COUNT, Origin, _last_line, class_of, mangle
from ..errors import CompileError, SourceUnavailableError
from ..ir.names import statement_lists

_TREES = {}
_REGIONS = {}


@dataclass
class Region:
    """A recorded region of user code."""

    filename: str
    lineno: int          # the line of the ``with`` (or ``__enter__()``) statement
    statements: list     # gast statements, positions as in the file
    tape_name: str       # the name the region calls the tape by, or None
    globals: dict
    key: tuple = field(default=())
    inputs: list = None   # filled in by the tape, once
    outputs: list = None
    with_stmt: object = None  # the ``with`` statement (None for ``__enter__()`` by hand)
    runs_once: object = None  # None, or why the block cannot be run once (see tape.once)
    exit_stmt: object = None  # the ``tape.__exit__(...)`` statement of a region entered by hand
    nested_tapes: list = None  # names of the tapes entered inside the region, once found
    variable_uses: set = None  # names whose attributes (other than an array's) it reads
    watched_names: set = None  # names its tape.watch(...) calls watch, once found
    resume: object = None  # the statement from which the block runs as written (once.cut)
    resume_stops: bool = True  # ... where recording stops (its tape's gradient is taken)
    resume_returns: bool = False  # ... a ``return`` ending the block, not using the tape
    last_entry: tuple = None  # (what the code was compiled for, cache key, code): the last used
    next_stmt: object = None  # the statement after the block (None: none in its statement list)
    gradient_next: object = None  # found once: see kept.gradient_next
    watched_from_start: tuple = None  # found once: see once.watched_from_start
    # The variables of the block's function that are cells (a closure may hold them), and
    # whether it is a module's code (its variables the globals): which variable a callee's
    # free name is (context.import_free_names). None: not known.
    frame_cells: frozenset = None
    module_level: bool = None
    frame_code: object = None  # the code object of the block's function (or module)
    global_reads: tuple = None  # the globals its statements read, once found (tape._Cannot)

    def __post_init__(self):
        from ..passes.tape_blocks import watches_first  # (which imports the compiler)

        self.statements = watches_first(self.statements, self.tape_name)

    def origin(self, node):
        lineno = getattr(node, "lineno", self.lineno)
        return Origin(self.filename, lineno, linecache.getline(self.filename, lineno).strip())

    def error(self, message, node, remedy=None):
        return CompileError(message, self.origin(node).short(), None, remedy)

    def nested(self, stmt, statements, tape_name):
        """The region of a tape entered at ``stmt`` inside this one."""
        return Region(self.filename, stmt.lineno, statements, tape_name, self.globals,
                      key=self.key + (stmt.lineno, stmt.col_offset),
                      frame_cells=self.frame_cells, module_level=self.module_level,
                      frame_code=self.frame_code)


def _tree(filename, module_globals, code=None):
    """The parsed file, or with ``code`` (a function's), only the lines of that function.

    A tape in a function of a long script needs the function, not the file;
    blank lines before it keep the line numbers, ``if 1:`` the indentation.
    """
    lines = linecache.getlines(filename, module_globals)
    if code is not None and code.co_name != "<module>" and lines:
        first, last = code.co_firstlineno - 1, _last_line(code)
        if last is not None and 0 < first < last <= len(lines):
            text = "\n" * (first - 1) + "if 1:\n" + "".join(lines[first:last])
            key = (filename, first, hash(text))
            if key not in _TREES:
                try:
                    tree = gast.parse(text)
                except SyntaxError:
                    tree = None
                PARSE_COUNT[0] += 1
                _TREES[key] = tree
            if _TREES[key] is not None:
                return _TREES[key]
    if not lines:
        raise SourceUnavailableError(
            "a GradientTape needs the source code of the block it records, and there is none "
            f"for {filename}",
            remedy="put the code in a file (or a notebook cell) rather than typing it at a bare "
            "python prompt or running exec() on a string, or use @srcgrad.function",
        )
    text = "".join(lines)
    key = (filename, hash(text))
    if key not in _TREES:
        PARSE_COUNT[0] += 1
        _TREES[key] = gast.parse(text)
    return _TREES[key]


def _tape_name(item):
    """``tape`` in ``with GradientTape() as tape:`` and in ``with tape:``."""
    for node in (item.optional_vars, item.context_expr):
        if isinstance(node, gast.Name):
            return node.id
    return None


def _is_method_call(stmt, name, method):
    value = getattr(stmt, "value", None)
    if not isinstance(value, gast.Call):
        return False
    f = value.func
    return isinstance(f, gast.Attribute) and f.attr == method and (
        name is None or (isinstance(f.value, gast.Name) and f.value.id == name))


def _after(stmts, i):
    return stmts[i + 1] if i + 1 < len(stmts) else None


def locate(frame):
    """The region whose ``with`` or ``__enter__()`` is on the frame's current line.

    Cached per code object and line: entering the same tape block again (a
    training loop) reads no source.
    """
    key = (frame.f_code, frame.f_lineno)
    found = _REGIONS.get(key)
    if found is None:
        found = _REGIONS[key] = _locate(frame)
    elif found.globals is not frame.f_globals:
        # Equal code objects compare equal: the same script run again (runpy)
        # has new globals, which its region must resolve names in.
        found = _REGIONS[key] = replace(found, globals=frame.f_globals, last_entry=None)
    return found


def _frame_facts(code):
    """``Region.frame_cells`` and ``Region.module_level`` of a block in ``code``."""
    return {"frame_cells": frozenset(code.co_cellvars) | frozenset(code.co_freevars),
            "module_level": code.co_name == "<module>", "frame_code": code}


def _locate(frame):
    filename = frame.f_code.co_filename
    lineno = frame.f_lineno
    tree = _tree(filename, frame.f_globals, frame.f_code)
    for stmts in statement_lists(tree):
        for i, s in enumerate(stmts):
            if getattr(s, "lineno", None) != lineno:
                continue
            if isinstance(s, gast.With):
                target = s.items[0].optional_vars
                if target is not None and not isinstance(target, gast.Name):
                    # Python binds it after ``__enter__``, in which the block already runs.
                    raise CompileError(
                        f"`with ... as {gast.unparse(target).strip()}:` binds the "
                        "GradientTape to an attribute or item, which srcgrad cannot bind before "
                        "the block runs (in __enter__)", f"{os.path.basename(filename)}:{lineno}",
                        None, "bind it to a name: `with sg.GradientTape() as tape:`, then "
                        f"`{gast.unparse(target).strip()} = tape` after the block if needed")
                mangle(s, class_of(frame.f_code))  # a method's private names, as Python runs them
                return Region(filename, lineno, s.body, _tape_name(s.items[0]), frame.f_globals,
                              key=(filename, lineno, s.col_offset), with_stmt=s,
                              next_stmt=_after(stmts, i), **_frame_facts(frame.f_code))
            if _is_method_call(s, None, "__enter__"):
                name = s.value.func.value.id if isinstance(s.value.func.value, gast.Name) else None
                for j in range(i + 1, len(stmts)):
                    if _is_method_call(stmts[j], name, "__exit__"):
                        for t in stmts[i + 1:j]:
                            mangle(t, class_of(frame.f_code))
                        return Region(filename, lineno, stmts[i + 1:j], name, frame.f_globals,
                                      key=(filename, lineno, s.col_offset), exit_stmt=stmts[j],
                                      next_stmt=_after(stmts, j), **_frame_facts(frame.f_code))
                raise CompileError(
                    f"`{name}.__enter__()` without a matching `{name}.__exit__(...)` in the same "
                    "block", f"{os.path.basename(filename)}:{lineno}",
                    remedy="call __exit__ in the same block, or use a with statement")
    raise CompileError("cannot find the with statement of this GradientTape in its source",
                       f"{os.path.basename(filename)}:{lineno}",
                       remedy="write the tape as `with srcgrad.GradientTape() as tape:` on one line")
