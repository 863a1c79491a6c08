"""Can a nested tape's block be run again and compute what it computed the first time?

A nested tape asked for several gradients inside the outer block compiles each
``inner.gradient(y, x)`` to the inner block's adjoint code
(``compiler.pipeline.compile_region``), which runs the block's statements
again. That is exact only if the statements that compute nothing
differentiable (kept as written) are repeatable: a random draw would draw
again, a print or an append would happen twice. Those the compiler cannot show
to be free of effects are refused, naming the call. (``tape/once.py`` asks the
same of the statements written after ``tape.__enter__()`` on its line.)
"""
import builtins
import math

import gast
import numpy as np

from ..ir import anno
from ..ir.names import walk_stmts
from ..rules import table

_EFFECTS = {print, builtins.input, builtins.open}
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
    for s in walk_stmts(body):
        if anno.kind(s) != "opaque" or isinstance(s, (gast.If, gast.For, gast.While)):
            continue
        for node in gast.walk(s):
            if isinstance(node, gast.Call) and not _repeatable(ctx.scope.value(node.func)) \
                    and not _reading_method(node.func):
                call = gast.unparse(node.func).strip()
                raise ctx.error(
                    f"`{call}(...)` in a GradientTape block that srcgrad must run again to "
                    f"differentiate ({why}): a random draw would differ and an effect (print, "
                    "append, write) would happen twice", s,
                    "compute it before the block and use its value inside, or take one "
                    "gradient of the nested tape (its block then runs once)")


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
        if fn in _PURE_BUILTINS or table.nondiff(fn) or table.rule(fn) is not None:
            return True
    except TypeError:  # unhashable
        return False
    if isinstance(fn, np.ufunc):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module == "math" and getattr(math, getattr(fn, "__name__", ""), None) is fn
