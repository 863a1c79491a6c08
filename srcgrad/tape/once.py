"""Running a tape's ``with`` block once, as compiled code, in place of its statements.

On ``__enter__`` the tape runs the block's compiled forward code
(``compiler.recorded``), writes the variables it bound back into the
caller's frame, and arranges for the original statements to be skipped: a
trace function on the caller's frame raises ``SkipBlock`` on the block's
first line, and ``__exit__`` suppresses it and puts back whatever trace
function was there (coverage, a debugger).

Statements between ``tape.__enter__()`` and ``tape.__exit__(...)`` run the
same way; the trace function jumps from the first of them to the
``__exit__`` line. A Variable the block only computes with is passed as its
frozen array (``plain_variables``), unless the compiled code could tell the
two apart. What the record keeps of the user's arrays is ``kept.py``'s.

``why_not`` says which blocks cannot run this way, and ``refuse`` is the
error their entry raises.
"""
import ctypes
import inspect
import re
import sys
import weakref

import gast

from ..compiler import watched_reads
from ..errors import CompileError
from ..ir.names import scope_bound_names, scope_nodes, walk_stmts
from ..passes import tape_blocks
from ..variables import Variable


class SkipBlock(Exception):
    """Raised on the first line of a block the tape has already run."""


# Statements that leave the block or its scope. (A ``try``, ``import``, ``def``,
# ``del`` or another ``with`` runs as written: ``passes/as_written.py``.)
_ESCAPES = (gast.Return, gast.Yield, gast.YieldFrom, gast.Await, gast.Global, gast.Nonlocal,
            gast.AsyncFunctionDef, gast.AsyncWith, gast.AsyncFor)


_STOPS = ("gradient", "jacobian", "batch_jacobian", "__enter__")


def cut(region):
    """Where a top-level statement of the block uses its own tape (TensorFlow allows
    ``grads = tape.gradient(loss, w)``, even ``return tape.gradient(...)``, inside the
    block of a non-persistent tape: recording stops there), the block recorded is the
    statements before it, and from it on the statements run as written:
    ``region.resume`` is that statement (``tape.__enter__()`` there raises
    TensorFlow's ValueError as the tape is still recording)."""
    name = region.tape_name
    for i, s in enumerate(region.statements if name is not None else ()):
        uses = [n.attr for n in gast.walk(s) if isinstance(n, gast.Attribute)
                and n.attr in _STOPS and isinstance(n.value, gast.Name) and n.value.id == name]
        uses += ["__enter__" for n in gast.walk(s) if isinstance(n, gast.With) and any(
            isinstance(t.context_expr, gast.Name) and t.context_expr.id == name
            for t in n.items)]
        if uses and i > 0:
            region.resume, region.resume_stops = s, uses[0] != "__enter__"
            region.statements = region.statements[:i]
        if uses:
            return
    # A ``return`` ending the block leaves it, as the end of the block does: the block
    # is recorded, and the return runs as written from the variables it bound.
    last = region.statements[-1] if region.statements else None
    if isinstance(last, gast.Return) and len(region.statements) > 1 \
            and region.with_stmt is not None:
        region.resume, region.resume_stops, region.resume_returns = last, True, True
        region.statements = region.statements[:-1]


def bound_names(statements):
    """Names the statements bind in the caller's scope, sorted (``ir.names``)."""
    return sorted(scope_bound_names(statements))


def why_not(region):
    """None if ``region`` can run once compiled, or the reason it cannot."""
    w = region.with_stmt
    if w is None:
        if not region.statements:
            return "no statements between __enter__() and __exit__()"
        last = region.statements[-1]
        if getattr(last, "end_lineno", last.lineno) >= region.exit_stmt.lineno:
            return "the block ends on the line of its __exit__()"
    elif len(w.items) != 1 and group_names(w) is None:
        return "a with statement of several items"
    elif len(w.items) != 1 and any(
            isinstance(n, gast.Name) and n.id in group_names(w)
            for s in region.statements for n in scope_nodes(s)):
        return ("a tape of a with statement of several tapes used in the block (they share "
                "one record: a value one of them watches would be the other's source too)")
    elif region.statements[0].lineno == w.lineno:
        return "the block starts on the line of its with"
    elif leading_try_lines(region) is None:
        return ("its first statement is a try whose finally or except clause would run or "
                "catch what skips the block (Python reports the try's line outside the with)")
    if not _WRITE_BACK:
        return "no way to write a frame's variables on this Python"
    for s in walk_stmts(region.statements):
        if isinstance(s, (gast.Break, gast.Continue)) and not _in_loop(s, region.statements):
            return "break or continue out of the block"
    nodes = [n for s in region.statements for n in scope_nodes(s)]
    methods = {id(n.value) for n in nodes if isinstance(n, gast.Attribute)}
    for node in nodes:
        if isinstance(node, gast.Name) and node.id == region.tape_name \
                and id(node) not in methods and region.tape_name is not None:
            return f"`{node.id}` itself used in the block (line {node.lineno})"
        if isinstance(node, _ESCAPES):
            return f"a {type(node).__name__.lower()} statement in the block (line {node.lineno})"
        if isinstance(node, gast.With) and any(
                isinstance(i.context_expr, gast.Name) and i.context_expr.id == region.tape_name
                for i in node.items):
            return f"`{region.tape_name}.__enter__` in the block"  # re-entered: a ValueError
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                and node.value.id == region.tape_name \
                and node.attr not in ("watch", "stop_recording", "reset"):
            return f"`{region.tape_name}.{node.attr}` in the block"
    return None


def leading_try_lines(region):
    """The lines the skip of a with block waits past: the with statement's own (its
    items may go on over several lines, entered there), and those of the ``try``
    statements the block starts with (``try:`` first, a ``try:`` first in its body...),
    as Python 3.11 reports a ``try`` line outside the with statement's handler. None
    where such a ``try`` has a ``finally`` or catches ``Exception`` (the skip would run
    or be caught by it)."""
    w = region.with_stmt
    if w is None:
        return []
    lines, stmts = list(range(w.lineno, region.statements[0].lineno)), region.statements
    while stmts and isinstance(stmts[0], gast.Try):
        first = stmts[0]
        if first.finalbody or any(_catches_everything(h.type) for h in first.handlers):
            return None
        lines.append(first.lineno)
        stmts = first.body
    return lines


def _catches_everything(kind):
    if kind is None:
        return True
    kinds = kind.elts if isinstance(kind, gast.Tuple) else [kind]
    return any(not isinstance(k, (gast.Name, gast.Attribute))
               or isinstance(k, gast.Name) and k.id in ("Exception", "BaseException")
               for k in kinds)


_REMEDIES = {
    "first statement is a try": "put a statement of the block before the try (or the try "
                                "around the with statement)",
    "on the line of": "put the block's statements on lines of their own",
    "IPython": "put the whole block in one cell, in a with statement",
    "items": "enter the tape in a with statement of its own, with the other context "
             "managers inside it",
    "several tapes used": "make the value a Variable (every tape watches it), or give each "
                          "tape a with statement of its own",
    "return": "end the block before the return (take the gradient after it)",
    "yield": "end the block before the yield (take the gradient after it)",
    "global": "declare the names global or nonlocal before the block",
    "break": "end the block inside the loop, or the loop inside the block",
    "itself used": "call the tape's methods in the block itself (`tape.watch(x)` there, not "
                   "in a helper the tape is passed to)",
}


def refuse(region, reason, remedy=None):
    """The error raised on entering ``region``, which cannot run once (``reason``)."""
    name = region.tape_name
    if name is not None and f"`{name}.__enter__`" in reason:
        return ValueError("Tape is still recording, This can happen if you try to re-enter "
                          "an already-active tape.")
    if name is not None and any(f"`{name}.{m}`" in reason
                                for m in ("gradient", "jacobian", "batch_jacobian")):
        return RuntimeError("GradientTape.gradient was called inside the tape's with block; "
                            "call it after the block ends")
    if remedy is None:
        remedy = next((r for k, r in _REMEDIES.items() if k in reason),
                      "write the block as `with srcgrad.GradientTape() as tape:` with only the "
                      "computation to differentiate inside")
    where = region.origin(region.with_stmt or region)
    return CompileError(f"srcgrad runs a GradientTape block once, as code compiled from its "
                        f"source, and cannot run this one: {reason}", where.short(), None, remedy)


def watched_names(region, skip=()):
    """Names the block's ``tape.watch(...)`` calls name (but those of the statements
    ``skip``)."""
    out = set()
    skipped = {id(s) for s in skip}
    for node in (n for s in region.statements if id(s) not in skipped for n in gast.walk(s)):
        f = getattr(node, "func", None)
        if isinstance(node, gast.Call) and isinstance(f, gast.Attribute) and f.attr == "watch" \
                and isinstance(f.value, gast.Name) and f.value.id == region.tape_name:
            out |= {n.id for a in node.args for n in gast.walk(a) if isinstance(n, gast.Name)}
    return out


def watched_from_start(region):
    """What the block watches, for ``compiler/watched_reads.py``: the names and the
    attribute and item chains (``Locator``s from its inputs) its first statements
    watch, and the names its later ``tape.watch`` calls watch. Found once."""
    found = region.watched_from_start
    if found is None:
        # (``tape.reset()`` drops what was watched before it: what counts comes after.)
        resets = [i for i, s in enumerate(region.statements)
                  if tape_blocks.is_tape_call(s, region.tape_name, "reset")]
        before = region.statements[:resets[-1] + 1] if resets else []
        leading = tape_blocks.leading_watches(region.statements[len(before):],
                                              region.tape_name)
        names, chains = set(), []
        for s in leading:
            for arg in s.value.args[:1]:
                _watched_in(arg, names, chains)
        # (A chain watched first, ``tape.watch(p["w"])``, does not watch all of ``p``
        # later: ``p["b"]`` was refused as a read of a value watched further on.)
        found = region.watched_from_start = (names, chains,
                                             watched_names(region, leading + before) - names)
    return found


def _watched_in(expr, names, chains):
    if isinstance(expr, (gast.List, gast.Tuple)):
        for e in expr.elts:
            _watched_in(e, names, chains)
    elif isinstance(expr, gast.Dict):
        for e in expr.values:
            _watched_in(e, names, chains)
    elif isinstance(expr, gast.Name):
        names.add(expr.id)
    else:
        chain = tape_blocks.watch_chain(expr)
        if chain is not None:
            chains.append(watched_reads.Locator(chain[0], chain[1], param=True))


def group_names(w):
    """The names of the tapes ``with GradientTape() as g, GradientTape() as d:`` enters
    (TensorFlow's two tapes of a GAN's step), or None for another with statement."""
    names = [_tape_item(item) for item in w.items]
    return None if None in names or len(set(names)) != len(names) else set(names)


def asked_inside(region, name):
    """Does ``region`` ask the tape ``name`` nested in it for a gradient or Jacobian?"""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
               and isinstance(n.func.value, gast.Name) and n.func.value.id == name
               and n.func.attr in ("gradient", "jacobian", "batch_jacobian")
               for s in region.statements for n in gast.walk(s))


def _nested_tape(s):
    """The name of the tape ``s`` enters: ``with GradientTape() as inner:``."""
    return _tape_item(s.items[0]) if len(s.items) == 1 else None


def _tape_item(item):
    """``inner`` of a with statement's item ``GradientTape(...) as inner``, else None."""
    f = getattr(item.context_expr, "func", None)
    name = getattr(f, "attr", None) or getattr(f, "id", None)
    if name == "GradientTape" and isinstance(item.optional_vars, gast.Name):
        return item.optional_vars.id
    return None


_ARRAY_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "T"}


def plain_variables(region, inputs, values):
    """Inputs holding a Variable that the block's own statements use only as an array
    (no ``v.assign(...)``, ``v.numpy()``, ``v.name``): they can run as its array."""
    if region.variable_uses is None:
        region.variable_uses = {n.value.id for s in region.statements for n in gast.walk(s)
                                if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name)
                                and n.attr not in _ARRAY_ATTRIBUTES}
    return [n for n in inputs if isinstance(values[n], Variable) and n not in region.variable_uses]


_TELLING = re.compile(r"\b(isinstance|type|hasattr|getattr)\(|(?<!_sg)\.(numpy|assign\w*|"
                      r"read_value|trainable|name|value)\b")


def tells_variables_apart(entry):
    """May the compiled code (helpers inlined) behave differently for a Variable than
    for its array (``isinstance(v, sg.Variable)``, ``v.numpy()``)? Then Variables
    are passed as they are. Found once per compiled block."""
    found = getattr(entry, "tells_variables_apart", None)
    if found is None:
        found = entry.tells_variables_apart = _TELLING.search(entry.forward_text) is not None
    return found


def nested_tapes(region):
    """The tapes entered inside ``region`` (with a ``with`` or by hand): name -> whether
    the block makes it persistent."""
    out = {}
    for s in walk_stmts(region.statements):
        name = _nested_tape(s) if isinstance(s, gast.With) else None
        persistent = name is not None and any(
            k.arg == "persistent" and not (isinstance(k.value, gast.Constant) and not k.value.value)
            for k in getattr(s.items[0].context_expr, "keywords", []))
        call = getattr(s, "value", None)
        if isinstance(s, gast.Expr) and isinstance(call, gast.Call) \
                and isinstance(call.func, gast.Attribute) and call.func.attr == "__enter__" \
                and isinstance(call.func.value, gast.Name):
            name = call.func.value.id
        if name is not None:
            out[name] = out.get(name, False) or persistent
    return out


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


_LOCAL_NAMES = weakref.WeakKeyDictionary()  # code -> the names local to it


def write_back(frame, values):
    """Bind ``values`` (name -> value) in ``frame`` as the block's statements would have:
    in a function, a name it declares ``global`` in the module's globals."""
    code = frame.f_code
    if code.co_flags & inspect.CO_OPTIMIZED:  # a function's frame (not a class body)
        local = _LOCAL_NAMES.get(code)
        if local is None:
            local = _LOCAL_NAMES[code] = frozenset(
                code.co_varnames + code.co_cellvars + code.co_freevars)
        declared = {n: v for n, v in values.items() if n not in local}
        if declared:
            frame.f_globals.update(declared)
            values = {n: v for n, v in values.items() if n in local}
    if values:
        _write_back(frame, values)


def in_code(code, stmt):
    """Is ``stmt``'s line in ``code`` (so that a trace function can jump to it)?"""
    return any(line == stmt.lineno for _, _, line in code.co_lines())


def _no_calls(frame, event, arg):
    return None  # other frames are not traced


def on_its_line(region):
    """The statements of a block entered by hand that follow ``__enter__()`` on its line."""
    return [s for s in region.statements if s.lineno == region.lineno]


def check_on_its_line(region, frame):
    """Statements after ``tape.__enter__()`` on its line run as written after the
    compiled block (no trace event comes between them): only those that compute the
    same values again and have no effect are taken (their values are then replaced
    by the block's). Raises the entry's error otherwise."""
    for s in on_its_line(region):
        for node in gast.walk(s):
            store = isinstance(node, (gast.Subscript, gast.Attribute)) \
                and isinstance(node.ctx, (gast.Store, gast.Del))
            if store or isinstance(node, gast.AugAssign) and not isinstance(node.target, gast.Name):
                raise refuse(region, f"`{gast.unparse(s).strip()}` after __enter__() on its line "
                             "writes into an object, and would do so twice",
                             "put the block's statements on lines of their own")
            if isinstance(node, gast.Call) and not _rerun_safe(node.func, region, frame):
                raise refuse(region, f"`{gast.unparse(node).strip()}` after __enter__() on its "
                             "line would run twice (a random draw would differ, an effect "
                             "happen again)", "put the block's statements on lines of their own")


def _rerun_safe(func, region, frame):
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id == region.tape_name and func.attr == "watch":
        return True  # watching again is watching once
    from ..passes.repeatable import _reading_method, _repeatable

    if _reading_method(func):
        return True
    try:
        fn = eval(compile(gast.gast_to_ast(gast.Expression(func)), "<srcgrad>", "eval"),
                  frame.f_globals, dict(frame.f_locals))
    except Exception:
        return False
    return _repeatable(fn)


class Skipper:
    """Skips the statements of the block whose ``with`` (or ``__enter__()``) is on
    ``frame``'s current line: a ``with`` block by raising ``SkipBlock`` on its
    first line, the statements before ``tape.__exit__(...)`` by jumping to it.
    ``bound``: the block's variables, bound again there (statements on the line of
    ``__enter__()`` ran as written)."""

    def __init__(self, frame, exit_line=None, bound=None, resume=None, wait=()):
        self.frame = frame
        self.line = frame.f_lineno
        self.wait = frozenset(wait)  # lines to pass before skipping (``leading_try_lines``)
        self.exit_line = exit_line
        self.bound = bound
        self.resume = resume  # (line, callback): the statements from there on run as written
        self.previous = sys.gettrace(), frame.f_trace
        self.skipped = False

    def arm(self):
        def local(frame, event, arg):
            if event == "line" and frame.f_lineno != self.line and not self.skipped \
                    and frame.f_lineno not in self.wait:
                self.skipped = True
                if self.resume is not None:
                    line, resumed = self.resume
                    if self.bound:
                        write_back(frame, self.bound)
                    if frame.f_lineno != line:
                        frame.f_lineno = line
                    resumed()
                    previous = self.previous[1]
                    self.disarm()
                    return previous
                if self.exit_line is None:
                    raise SkipBlock()
                if self.bound:
                    write_back(frame, self.bound)
                if frame.f_lineno != self.exit_line:
                    frame.f_lineno = self.exit_line
            return local
        self.frame.f_trace = local
        # A Python-level trace function of ours even when one is set: a tracer written
        # in C (coverage's) does not call frame.f_trace. Coverage's puts itself back
        # the C way on the next call once disarm hands it back through sys.settrace.
        sys.settrace(_no_calls)

    def disarm(self):
        """Put back the trace functions there were (Python unsets them when one raises)."""
        if self.frame is None:
            return  # (disarmed where the block resumed as written)
        sys.settrace(self.previous[0])
        self.frame.f_trace = self.previous[1]
        self.frame = None
