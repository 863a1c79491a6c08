"""Can a nested tape's block be run again and compute what it computed the first time?

A nested tape asked for several gradients inside the outer block compiles each
``inner.gradient(y, x)`` to the inner block's adjoint code
(``compiler.pipeline.compile_region``), which runs the block's statements
again. That is exact only if the statements that compute nothing
differentiable (kept as written) are repeatable: a random draw would draw
again, a print or an append would happen twice. Those the compiler cannot show
to be free of effects are refused, naming the call. (``tape/once.py`` asks the
same of the statements written after ``tape.__enter__()`` on its line.)

``sg.grad`` asks the same of a whole function (``reruns_alike``) before it
computes a non-finite gradient again with strong zeros (``runtime/strong.py``).
"""
import builtins
import math

import gast
import numpy as np

from .. import runtime as rt
from ..ir import anno
from ..ir.names import MUTATORS, walk_stmts
from ..rules import table

_EFFECTS = {print, builtins.input, builtins.open, rt.set_global}
_PURE_BUILTINS = {len, range, int, float, bool, complex, abs, min, max, sum, round, isinstance,
                  type, tuple, list, dict, zip, enumerate, sorted, reversed, str, divmod, pow,
                  any, all, map, filter, slice, hash}

_READING_METHODS = {"astype", "item", "tolist", "copy", "reshape", "flatten", "ravel", "squeeze",
                    "transpose", "conjugate", "get", "keys", "values", "items", "index", "count",
                    "format", "argmax", "argmin", "argsort", "nonzero", "all", "any", "round"}


def check(body, ctx, why):
    """Raise ``CompileError`` at the first call in a kept-as-written statement of
    ``body`` that may not give the same result, or have no effect, when run again.
    ``why``: why the block is run again."""
    found = first_unrepeatable(body, ctx)
    if found is not None:
        s, node = found
        call = gast.unparse(node.func).strip()
        raise ctx.error(
            f"`{call}(...)` in a GradientTape block that srcgrad must run again to "
            f"differentiate ({why}): a random draw would differ and an effect (print, "
            "append, write) would happen twice", s,
            "compute it before the block and use its value inside, or take one "
            "gradient of the nested tape (its block then runs once)")


def first_unrepeatable(body, ctx, own_writes=False):
    """``(statement, call)`` of the first call in a kept-as-written statement of
    ``body`` that may not repeat, or None: then running ``body`` again from the
    same values computes the same and shows nothing more. ``own_writes``: a list's
    or dict's own method that writes into it (``stack.append(v)``) is left to the
    caller, which checks what it writes into (``reruns_alike``)."""
    for s in walk_stmts(body):
        if anno.kind(s) != "opaque" or isinstance(s, (gast.If, gast.For, gast.While)):
            continue
        for node in gast.walk(s):
            if isinstance(node, gast.Call) and not _repeatable(ctx.scope.value(node.func)) \
                    and not _reading_method(node.func) \
                    and not (own_writes and isinstance(node.func, gast.Attribute)
                             and node.func.attr in MUTATORS):
                return s, node
    return None


def _reading_method(func):
    """``x.round()``, ``x.astype(float)``, ``d.get(k)``: methods of arrays and
    containers that only read (a user's object may reuse a name: a risk taken for
    the names of NumPy's own array methods, not for ``append`` or ``random``)."""
    return isinstance(func, gast.Attribute) and (
        func.attr in table.METHODS or func.attr in _READING_METHODS)


def _repeatable(fn):
    try:
        if fn in table.RANDOM or fn in _EFFECTS:
            return False
        if fn in _PURE_BUILTINS or table.nondiff(fn) or table.rule(fn) is not None \
                or fn in table.CONSTANT_UNLESS_VARIED \
                or fn in table.REPORTING_CONTEXTS:  # (``with np.errstate(...)``: hunt 13)
            return True
    except TypeError:  # unhashable
        return False
    if isinstance(fn, np.ufunc):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module == "math" and getattr(math, getattr(fn, "__name__", ""), None) is fn


def reruns_alike(body, ctx):
    """Can a function whose normalized body is ``body`` run a second time from the same
    arguments, compute what it computed and change nothing the first run did not?
    Its calls repeat (``first_unrepeatable``) and it writes only into values it made
    itself (bound only to new arrays, lists or dicts, written one level deep): never
    into an argument, a global or an object it was handed."""
    if first_unrepeatable(body, ctx, own_writes=True) is not None:
        return False
    bindings = {}
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                if isinstance(t, gast.Name):
                    bindings.setdefault(t.id, []).append(s.value)
        elif isinstance(s, (gast.For, gast.AugAssign, gast.AnnAssign)):
            for t in gast.walk(s.target):
                if isinstance(t, gast.Name):
                    bindings.setdefault(t.id, []).append(None)  # (not a value it made)
    for s in walk_stmts(body):
        for root, depth in _written(s):
            values = bindings.get(root)
            if not values or depth > 1 or not all(_made(v, ctx) for v in values):
                return False
    return True


def _written(s):
    """(root name, depth) of each object ``s`` writes into: ``a[i] = v`` is (a, 1),
    ``a[i][j] = v`` (a, 2), ``a.append(v)`` (a, 1); (None, 1) for another root."""
    own = [s] if not isinstance(s, (gast.If, gast.For, gast.While)) else \
        [s.test] if not isinstance(s, gast.For) else [s.iter]
    for node in (n for part in own for n in gast.walk(part)):
        target = None
        if isinstance(node, (gast.Subscript, gast.Attribute)) \
                and isinstance(node.ctx, (gast.Store, gast.Del)):
            target = node.value
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in MUTATORS:
            target = node.func.value
        if target is None:
            continue
        depth = 1
        while isinstance(target, (gast.Subscript, gast.Attribute)):
            target, depth = target.value, depth + 1
        yield (target.id if isinstance(target, gast.Name) else None), depth


def _made(value, ctx):
    """Is ``value`` (a bound expression) a new object, not one the code was handed?"""
    if isinstance(value, (gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp,
                          gast.BinOp, gast.UnaryOp, gast.Compare)):
        return True
    if isinstance(value, gast.Call):
        if any(k.arg in ("out", "copy") for k in value.keywords):
            return False
        f = value.func
        if isinstance(f, gast.Attribute) and f.attr == "copy" and not value.args:
            return True
        obj = ctx.scope.value(f)
        try:
            return isinstance(obj, np.ufunc) or obj in _NEW or (
                obj in (list, dict) and len(value.args) <= 1)
        except TypeError:  # unhashable
            return False
    return False


# Functions whose result is a new array, never one of their arguments or a view of it.
_NEW = {np.zeros, np.ones, np.full, np.empty, np.zeros_like, np.ones_like, np.full_like,
        np.empty_like, np.array, np.copy, np.arange, np.linspace, np.eye, np.identity,
        np.concatenate, np.stack, np.vstack, np.hstack, np.column_stack, np.tile, np.repeat,
        np.where, np.clip, np.dot, np.matmul, np.outer, np.sum, np.cumsum}
