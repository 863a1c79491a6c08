"""Can an expression's value depend on a varied variable? Asked before and after normalizing.

``normalize`` asks it of expressions it is about to split into statements
(only varied ones need one statement per operation); ``activity`` asks the
same question of normalized statements through its flow equations.
"""
import functools
import types

import gast
import numpy as np

from ..rules import table
from . import templates as T
from .names import name_ids
from .resolve import MISSING
from .scopes import free_names


def _nondiff(scope, func):
    obj = scope.value(func)
    return obj is not MISSING and table.nondiff(obj)


_CHOICES = (np.random.Generator.choice, np.random.RandomState.choice)


def _draw_of_constants(node, scope, varied):
    """``rng.choice(4, p=probs)`` (of a Generator or RandomState known when compiling)
    whose population is not varied: an index or an item of constants. A draw has no
    derivative in its probabilities (TensorFlow's categorical neither); the population's
    items, when varied, are what a differentiated choice would read (not taken here)."""
    obj = scope.value(node.func)
    if type(obj) is not types.MethodType or obj.__func__ not in _CHOICES:
        return False
    population = node.args[:1] + [k.value for k in node.keywords if k.arg == "a"]
    return bool(population) and not any(isinstance(a, gast.Starred) for a in node.args) \
        and not expr_varied(population[0], varied, scope)


def _builds_from_index(obj):
    """Is ``obj[...]`` a computation on the index (``np.r_``, ``np.c_``), not a lookup?"""
    return obj is not MISSING and not isinstance(obj, (list, tuple, dict, np.ndarray, str, bytes)) \
        and hasattr(type(obj), "__getitem__") and not isinstance(obj, type)


def _array_method(obj):
    """Unknown when compiling, or a method of an array (one a tape block reads from its
    frame, ``x.argmax`` of a watched ``x``: hunt 5)."""
    return obj is MISSING or isinstance(getattr(obj, "__self__", None), (np.ndarray, np.generic))


_ARRAY_MAKERS = (np.asarray, np.array, np.ascontiguousarray, np.asanyarray)


def _integer_cast(node, scope):
    """``x.astype(int)``, ``np.asarray(x, dtype=np.int32)``: a cast of an array to an
    integer or boolean dtype known when compiling, which carries no gradient."""
    f, dtype = node.func, None
    if isinstance(f, gast.Attribute) and f.attr == "astype" and _array_method(scope.value(f)):
        dtype = node.args[0] if node.args else None
    elif any(scope.value(f) is m for m in _ARRAY_MAKERS):
        dtype = node.args[1] if len(node.args) > 1 else None
    else:
        return False
    dtype = next((k.value for k in node.keywords if k.arg == "dtype"), dtype)
    value = dtype.value if isinstance(dtype, gast.Constant) else \
        scope.value(dtype) if dtype is not None else MISSING
    if value is MISSING or value is None:
        return False
    try:
        return np.dtype(value).kind in "iub"
    except (TypeError, ValueError):
        return False


def expr_varied(node, varied, scope):
    """Can the value of expression ``node`` depend on a varied variable?"""
    if node is None or isinstance(node, (gast.Constant, gast.JoinedStr, gast.Compare)):
        return False
    if scope.is_source(node):
        return True
    if isinstance(node, gast.Name):
        # A nested function reads its enclosing variables: a closure over a varied
        # value is varied, called or passed on (``sg.grad(inner)``). Under a tape, the
        # function may be a real one, defined before the block, over the block's variables.
        if node.id in varied:
            return True
        if node.id in scope.local_defs:
            # (or an object holding what a tape watches, ``lambda r: layer.call(r)``, or
            # user code that may read one, ``lambda acc, r: acc + helper(r)``)
            return any(n in varied or scope.holds_sources(T.name(n))
                       for n in closure_reads(node.id, scope)) \
                or any(isinstance(c, gast.Call) and scope.calls_user_code(c)
                       for c in gast.walk(scope.local_defs[node.id]))
        fn = scope.static.get(node.id)
        return isinstance(fn, types.FunctionType) and fn.__closure__ is not None \
            and any(n in varied for n in fn.__code__.co_freevars)
    if isinstance(node, gast.Attribute):
        if node.attr in table.NONDIFF_ATTRIBUTES or isinstance(node.value, gast.Name) \
                and node.value.id in scope.mirrored_names:
            return False  # (a mirrored object's differentiable attributes: read as locals)
        return expr_varied(node.value, varied, scope)
    if isinstance(node, gast.Subscript):
        # An index carries no gradient into a container, but an object whose
        # ``[]`` builds a value (``np.r_[x, y]``) is varied through it.
        return expr_varied(node.value, varied, scope) or (
            _builds_from_index(scope.value(node.value)) and expr_varied(node.slice, varied, scope))
    if isinstance(node, gast.UnaryOp) and not isinstance(node.op, (gast.USub, gast.UAdd)):
        return False  # not, ~: booleans and bits carry no gradient
    if isinstance(node, gast.BinOp):
        if isinstance(node.op, gast.Mod) and (
                isinstance(node.left, gast.JoinedStr) or isinstance(node.left, gast.Constant)
                and isinstance(node.left.value, str)):
            return False  # ``"loss=%.3f" % s``: a string formatted, no gradient
        fn = table.OPERATORS.get(type(node.op).__name__)
        if fn is not None and table.nondiff(fn):
            return False  # //: integer-valued
        # (&, |, ^, <<, >> of varied operands stay varied: ``d1 | d2`` merges dicts of
        # differentiable values, a class may define ``__and__``; the normalizer models
        # those and refuses the rest, never a silent constant.)
    if isinstance(node, gast.Call):
        if _nondiff(scope, node.func) or _integer_cast(node, scope) \
                or _draw_of_constants(node, scope, varied):
            return False
        f = node.func
        if isinstance(f, gast.Attribute) and f.attr in table.METHODS \
                and table.nondiff(table.METHODS[f.attr][0]) and _array_method(scope.value(f)):
            return False  # x.argmax(), x.round(): array methods without a gradient
        if scope.calls_user_code(node):
            return True
        if isinstance(f, gast.Call) and any(scope.calls_user_code(gast.Call(a, [], []))
                                            for a in f.args):
            return True  # ``sg.grad(f)(x)`` under a tape: ``f``'s code may read Variables
        if isinstance(scope.value(f), functools.partial) and scope.calls_user_code(
                gast.Call(gast.Attribute(f, "func", gast.Load()), [], [])):
            return True  # ``functools.partial(f, k)(x)``: the same
        # The function called may carry varied values too: a closure, a method
        # of a varied object, or a function made here (``sg.grad(inner)(2.0)``).
        parts = list(node.args) + [k.value for k in node.keywords] + [node.func]
        if not any(scope.value(node.func) is f for f in _LOOKS_ONLY) and any(
                scope.holds_sources(n) for p in parts[:-1] for n in _handed(p)):
            # ``functools.reduce(f, [layer], 0.0)``: handed an object holding what a tape
            # watches, it may read it (or have it read)
            return True
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                and f.value.id in scope.mirrored_names:
            return True  # (a method of an object keeping differentiable attributes)
        return any(expr_varied(p, varied, scope) for p in parts)
    if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
        inner = set(varied)
        for gen in node.generators:
            if expr_varied(gen.iter, inner, scope) or scope.iterates_sources(gen.iter):
                inner |= name_ids(gen.target)
        parts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
        return any(expr_varied(p, inner, scope) for p in parts)
    if isinstance(node, gast.IfExp):
        return expr_varied(node.body, varied, scope) or expr_varied(node.orelse, varied, scope)
    # (gast's Slice is no expr: ``np.r_[a, 0.0:L:4j]`` is varied through ``L``.)
    return any(expr_varied(c, varied, scope) for c in gast.iter_child_nodes(node)
               if isinstance(c, (gast.expr, gast.Slice)))


# Builtins that read no value of an object they are handed.
_LOOKS_ONLY = (isinstance, hasattr, callable, id, type, len, print, repr, str, format, hash)


def _handed(node):
    """The names an argument hands over as they are: itself, or the items of a display."""
    if isinstance(node, gast.Name):
        return [node]
    if isinstance(node, gast.Starred):
        return _handed(node.value)
    if isinstance(node, (gast.List, gast.Tuple, gast.Set)):
        return [n for e in node.elts for n in _handed(e)]
    if isinstance(node, gast.Dict):
        return [n for e in node.values for n in _handed(e)]
    return []


def closure_reads(name, scope):
    """Enclosing variables a nested def reads, directly or through nested defs it calls."""
    seen, todo, reads = set(), [name], set()
    while todo:
        fn = scope.local_defs.get(todo.pop())
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        free = free_names(fn)
        reads |= free
        todo.extend(free & set(scope.local_defs))
    return reads
