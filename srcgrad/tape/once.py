"""Running a tape's ``with`` block once, as compiled code, in place of its statements.

On ``__enter__`` the tape runs the block's compiled forward code
(``compiler.recorded``), writes the variables it bound back into the
caller's frame, and arranges for the original statements to be skipped: a
trace function on the caller's frame raises ``SkipBlock`` on the block's
first line, and ``__exit__`` suppresses it and puts back whatever trace
function was there (coverage, a debugger).

``why_not`` says which blocks cannot run this way (they are recorded by the
rerun design until the tape issue's remaining work lands).
"""
import ctypes
import sys

import gast

from ..ir.names import walk_stmts


class SkipBlock(Exception):
    """Raised on the first line of a block the tape has already run."""


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda, gast.ListComp,
           gast.SetComp, gast.DictComp, gast.GeneratorExp)
_ESCAPES = (gast.Return, gast.Yield, gast.YieldFrom, gast.Await, gast.Global, gast.Nonlocal,
            gast.Import, gast.ImportFrom, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
            gast.Delete, gast.Try, gast.AsyncWith, gast.AsyncFor)


def bound_names(statements):
    """Names the statements bind in the caller's scope (not in comprehensions or lambdas)."""
    out = []

    def visit(node):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            if node.id not in out:
                out.append(node.id)
            return
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, _SCOPES):
                visit(child)
    for s in statements:
        visit(s)
    return sorted(out)


def why_not(region):
    """None if ``region`` can run once compiled, or the reason it cannot."""
    w = region.with_stmt
    if w is None:
        return "entered by hand"
    if len(w.items) != 1:
        return "a with statement of several items"
    if region.statements[0].lineno == w.lineno:
        return "the block starts on the line of its with"
    if not _WRITE_BACK:
        return "no way to write a frame's variables on this Python"
    for s in walk_stmts(region.statements):
        if isinstance(s, (gast.Break, gast.Continue)) and not _in_loop(s, region.statements):
            return "break or continue out of the block"
        if isinstance(s, gast.With):
            f = getattr(s.items[0].context_expr, "func", None)
            if not (isinstance(f, gast.Attribute) and f.attr == "stop_recording"):
                return "a with statement in the block"
    for node in (n for s in region.statements for n in gast.walk(s)):
        if isinstance(node, _ESCAPES):
            return f"a {type(node).__name__} statement in the block"
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                and node.value.id == region.tape_name \
                and node.attr not in ("watch", "stop_recording", "reset"):
            return f"`{region.tape_name}.{node.attr}` in the block"
    return None


def _in_loop(stmt, statements):
    for s in walk_stmts(statements):
        if isinstance(s, (gast.For, gast.While)) and any(x is stmt for x in walk_stmts(s.body)):
            return True
    return False


def _locals_to_fast():
    api = getattr(ctypes.pythonapi, "PyFrame_LocalsToFast", None)
    if api is None:
        return None
    api.argtypes = [ctypes.py_object, ctypes.c_int]
    api.restype = None
    return api


if sys.version_info >= (3, 13):
    def _write_back(frame, values):
        frame.f_locals.update(values)  # a write-through proxy since PEP 667
    _WRITE_BACK = True
else:
    _TO_FAST = _locals_to_fast()
    _WRITE_BACK = _TO_FAST is not None

    def _write_back(frame, values):
        local = frame.f_locals
        local.update(values)
        if local is not frame.f_globals:
            _TO_FAST(frame, 0)


def write_back(frame, values):
    """Bind ``values`` (name -> value) in ``frame`` as the block's statements would have."""
    if values:
        _write_back(frame, values)


def _no_calls(frame, event, arg):
    return None  # other frames are not traced


class Skipper:
    """Skips the statements of the block whose ``with`` is on ``frame``'s current line."""

    def __init__(self, frame):
        self.frame = frame
        self.line = frame.f_lineno
        self.previous = sys.gettrace(), frame.f_trace

    def arm(self):
        def local(frame, event, arg):
            if event == "line" and frame.f_lineno != self.line:
                raise SkipBlock()
            return local
        self.frame.f_trace = local
        if self.previous[0] is None:
            sys.settrace(_no_calls)

    def disarm(self):
        """Put back the trace functions there were (Python unsets them when one raises)."""
        sys.settrace(self.previous[0])
        self.frame.f_trace = self.previous[1]
        self.frame = None
