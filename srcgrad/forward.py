"""Directional derivatives: ``jvp``, ``hvp`` and ``ForwardAccumulator``.

``jvp`` runs forward mode (``compiler/tangents.py``: each statement's tangent right
after it) where it applies: real values, not trees, every primitive with a tangent
rule; ``hvp`` runs forward mode over the gradient's own generated code. Elsewhere
they are computed with the reverse-mode compiler, by transposition: for
``y = f(x)`` the adjoint ``u -> J^T u`` is linear in ``u``, so

    J v = d/du <J^T u, v>

(the real inner product, C as R^2: TensorFlow's convention for complex values),
one gradient of a gradient, which srcgrad differentiates like any code; and
``H v = d/dx <grad f(x), v>``. The answers are exact (what ``sg.grad`` computes,
to second order), at the cost of a second derivative.

The functions differentiated by transposition (``s``, ``t``, ``h`` below) are
generated as source, compiled once per function and kind of arguments, and cached
like any gradient.
"""
import functools
import inspect
import types
import weakref

import numpy as np

from . import trees
from .api import _python_function, grad
from .compiler import codegen
from .compiler.cache import _kind, _signature
from .errors import CompileError
from .passes.ranks import size_classes
from .runtime.strong import all_finite

__all__ = ["jvp", "hvp", "hessian", "ForwardAccumulator"]

_TRANSPOSED = weakref.WeakKeyDictionary()  # f -> {structure key: gradient of t}


def jvp(f, primals, tangents):
    """``(f(*primals), J @ tangents)``: the value of ``f`` and its derivative along
    ``tangents`` (one per primal, each of the primal's shape, or tree).

    As ``jax.jvp``: ``primals`` and ``tangents`` are tuples (or lists) of the
    positional arguments and of their directions. Trees (dict, list, tuple,
    namedtuple, dataclass) are taken where ``sg.grad`` takes them; the tangent of a
    tree result has its structure.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give "
                         "one tangent per primal")
    for i, (p, t) in enumerate(zip(primals, tangents)):
        _check_like(p, t, i)
    refusals = []
    if primals and not any(np.iscomplexobj(leaf) for t in tangents for leaf in trees.leaves(t)):
        if any(trees.is_tree(p) for p in primals):
            forward = _forward_tree(f, primals)
            if forward is not None:
                return _gradient_dtypes(f, primals, _tangent_dtypes(*forward(primals,
                                                                              tangents)))
        forward = _forward(f, primals, range(len(primals)), refusals)
        if forward is not None:  # forward mode: one pass computing both
            return _gradient_dtypes(f, primals, _tangent_dtypes(*forward(*primals, *tangents)))
    value = f(*primals)
    if not primals:
        return value, _zeros(value)
    try:
        derivative = _transposed(f, primals, tangents, value)
        # (The derivative in the seed ``u`` is the same at any ``u``: the adjoint is linear
        # in it. At ones, the adjoint's own branches on a zero seed, a term added only where
        # its seed is not 0, a refusal only where it is asked for, go as sg.grad's do.)
        return value, derivative(*primals, _zeros(value, 1), *tangents)
    except CompileError as e:
        if refusals and getattr(e, "sg_in_derivative", False):
            # (Forward mode's is about the user's code; this one, about the gradient's code
            # the transposition differentiates again, would send the user looking there.)
            raise refusals[0] from None
        raise


_FORWARD = weakref.WeakKeyDictionary()  # function -> {kinds of arguments: code, or None}


def _forward(f, args, wrt, refusals=None, tangent_only=False):
    """The forward-mode code of ``f`` along its arguments ``wrt`` (indices) for these
    kinds of arguments, called ``code(*args, *tangents)``; or None where forward mode
    does not apply (trees, complex values, a primitive without a tangent rule): then the
    transposition computes the same. ``refusals``: gets forward mode's CompileError.

    Where the tangent comes out non-finite and the value finite (a zero tangent times
    an infinite derivative: ``sqrt`` of a distance at 0, a masked entry), it is computed
    again with strong zeros (runtime/strong.py), as ``sg.grad`` computes a gradient again,
    unless ``f`` does not run twice alike; for ``f`` a gradient (``sg.hvp``, ``jvp`` of
    ``sg.grad(g)``) whatever the gradient is (NaN where masked too), over its strong code.
    (The usual case pays one finiteness check of the tangent.) ``tangent_only``: the
    code returns None for the value of ``f`` (a gradient, ``sg.hvp``), and computes only
    what the tangent needs."""
    found = _forward_code(f, args, wrt, refusals, tangent_only=tangent_only)
    if found is None:
        return None
    code, rerunnable = found
    of_gradient = hasattr(f, "__srcgrad_compiled__")

    def run(*given):
        value, tangent = code(*given)
        if rerunnable and not all_finite(tangent) and (of_gradient or all_finite(value)):
            strong = _forward_code(f, args, wrt, strong=True, tangent_only=tangent_only)
            if strong is not None:
                value, tangent = strong[0](*given)
        return value, tangent
    return run


_LAST = object()  # (in a function's forward-mode cache: the last call's key)


def _forward_code(f, args, wrt, refusals=None, strong=False, tangent_only=False):
    """(code, does it run twice alike?), or None: ``_forward``'s, with strong zeros or not."""
    for a in args:
        if type(a) is np.ndarray:  # (the usual argument: no call)
            if a.dtype.kind == "c":
                return None
        elif trees.is_tree(a) or np.iscomplexobj(a):
            return None
    found = _bound_call(f, len(args))
    if found is None:
        return None
    code, bound, rest, keywords = found
    sample = list(bound + tuple(args) + rest)
    try:
        per_fn = _FORWARD.setdefault(code, {})
    except TypeError:
        per_fn = {}
    # (Arrays and floats of the last call's shapes and dtypes: the last call's key, as
    # ``_signature`` tells; the key made again only for other arguments.)
    signature = _signature(sample) if not keywords else None
    last = per_fn.get((_LAST, tuple(wrt), strong, tangent_only, len(args)))
    if signature is not None and last is not None and last[0] == signature:
        key = last[1]
    else:
        key = (tuple(wrt), len(rest), tuple(keywords), strong, tangent_only,
               size_classes(sample)) + tuple(
            map(_kind, bound + tuple(args) + rest + tuple(keywords.values())))
        if signature is not None:
            per_fn[(_LAST, tuple(wrt), strong, tangent_only, len(args))] = (signature, key)
    entry = per_fn.get(key, False)
    # (A CompileError kept from the first call is final for this key: it has no guards.)
    if entry is False or entry is not None and not isinstance(entry, CompileError) \
            and not entry.guards.valid():
        from .compiler.tangents import compile_tangent  # (at the first compile, not at import)

        try:
            entry = compile_tangent(code, [len(bound) + i for i in wrt], sample, strong,
                                    sized=True, value=not tangent_only)
        except CompileError as e:
            if _final(e):
                raise
            # No tangent rule for something it computes: transposed instead. (Kept for
            # its message, without the frames of its traceback.)
            entry = e.with_traceback(None)
        per_fn[key] = entry
    if isinstance(entry, CompileError):
        if refusals is not None:
            refusals.append(entry)
        return None
    if entry is None:
        return None
    if not rest and not keywords:
        return (entry.fn if not bound else functools.partial(entry.fn, *bound)), \
            entry.rerunnable
    n = len(args)
    return (lambda *given: entry.fn(*bound, *given[:n], *rest, *given[n:], **keywords)), \
        entry.rerunnable


_BINDINGS = weakref.WeakKeyDictionary()  # f -> {number of arguments: _bound_call's}


def _bound_call(f, nargs):
    """(function, its bound ``self``, the defaults of the parameters after ``nargs``
    positional arguments, the keyword-only ones' defaults), or None if the call cannot
    bind; remembered per ``f`` while its code and defaults are the same objects (a
    Hessian-vector product in a loop binds it once)."""
    try:
        cached = _BINDINGS.get(f, {}).get(nargs)
    except TypeError:
        cached = None
    if cached is not None:
        code, text, defaults, kwdefaults, found = cached
        if code.__code__ is text and code.__defaults__ is defaults \
                and code.__kwdefaults__ is kwdefaults:
            return found
    given = ()
    if isinstance(f, functools.partial) and not f.keywords:
        # (``functools.partial(f, a)``: its arguments go first, as a method's object does)
        f, given = f.func, tuple(f.args)
    fn = _python_function(f, "jvp")
    bound = ((fn.__self__,) if inspect.ismethod(fn) else ()) + given
    code = fn.__func__ if inspect.ismethod(fn) else fn
    # Parameters left to their defaults are arguments of the tangent code too (it takes
    # every parameter, then the tangents): their defaults are passed.
    try:
        call = inspect.signature(code).bind_partial(*bound, *([None] * nargs))
    except (TypeError, ValueError):
        return None
    call.apply_defaults()
    found = code, bound, tuple(call.args[len(bound) + nargs:]), dict(call.kwargs)
    if not bound and isinstance(code, types.FunctionType):  # (a method: its object's)
        try:
            _BINDINGS.setdefault(f, {})[nargs] = (code, code.__code__, code.__defaults__,
                                                  code.__kwdefaults__, found)
        except TypeError:
            pass
    return found


def _final(error):
    """A forward-mode refusal that no fallback answers, raised as it is: the
    transposition would fail too, naming srcgrad's own generated code (forward mode
    through a custom_gradient). Others are answered by the transposition."""
    return getattr(error, "sg_final", False)


def _forward_tree(f, primals):
    """Forward mode for parameter trees: the code of the function of the trees' leaves
    that ``sg.grad`` differentiates (``Compiled._of_leaves``), along every leaf; called
    ``run(primals, tangents) -> (value, tangent)``. None where forward mode does not apply."""
    from .compiler.cache import Compiled
    from .compiler.tangents import compile_tangent
    from .errors import CompileError

    if any(np.iscomplexobj(leaf) for p in primals for leaf in trees.leaves(p)):
        return None
    compiled = Compiled.of(_python_function(f, "jvp"), tuple(range(len(primals))), "grad")
    args, kwargs = compiled._bind(tuple(primals), {})
    parts = {i: trees.flatten(args[i], compiled._name(i)) for i in compiled.wrt
             if trees.is_tree(args[i])}
    # The function of the leaves takes every parameter: the primals' leaves, then the
    # parameters left to their defaults (keyword-only ones by keyword), then the tangents.
    nbound = len(compiled.bound)
    rest = tuple(args[nbound + len(primals):])
    key = ("tree", len(rest), tuple(kwargs)) + tuple((i, t) for i, (_, t) in parts.items()) + \
        tuple(_kind(leaf) for p in primals for leaf in trees.leaves(p)) + \
        tuple(map(_kind, rest + tuple(kwargs.values())))
    try:
        per_fn = _FORWARD.setdefault(compiled.f, {})
    except TypeError:
        per_fn = {}
    entry = per_fn.get(key, False)
    if entry is False or entry is not None and not entry[0].guards.valid():
        leaves_fn, _ = compiled._of_leaves(args, kwargs, parts)
        sample = list(args[:nbound]) + [
            leaf for p in primals for leaf in trees.leaves(p)] + list(rest)
        try:  # (no leaves at all: nothing to run forward mode on)
            entry = None if leaves_fn is None else \
                (compile_tangent(leaves_fn.f, list(leaves_fn.wrt), sample), leaves_fn)
        except CompileError as e:
            if _final(e):
                raise
            entry = None
        per_fn[key] = entry
    if entry is None:
        return None
    code, leaves_fn = entry
    bound = list(args[:nbound])

    def run(primals, tangents):
        for p, t in zip(primals, tangents):
            if trees.is_tree(p) and (not trees.is_tree(t) or _paths_key(p) != _paths_key(t)):
                raise ValueError("jvp: a tangent does not have the structure of its primal")
        leaves = [leaf for p in primals for leaf in trees.leaves(p)]
        dots = [leaf for t in tangents for leaf in trees.leaves(t)]
        return code.fn(*bound, *leaves, *rest, *dots, **kwargs)
    return run


def hvp(f):
    """``hvp(f)(*args, v)``: the Hessian of scalar ``f`` (with respect to its first
    argument) times ``v``: forward mode over the gradient's code where it applies, else
    ``d/dx <grad f(x), v>``."""
    gradient = grad(f)
    compiled = {}

    def hessian_vector_product(*args):
        *args, v = args
        if not args:
            raise TypeError("hvp(f)(x, ..., v) needs the arguments of f and a direction v")
        try:  # (f's own message for arguments it does not take, not the generated code's)
            inspect.signature(f).bind(*args)
        except TypeError as e:
            raise TypeError(f"hvp of {getattr(f, '__name__', 'f')}(...): {e}, then the "
                            "direction v") from None
        except ValueError:  # (no signature to read: a builtin's)
            pass
        _check_like(args[0], v, 0)
        if any(map(_holds_record, args)):
            return _records_hvp(f, compiled, args, v)
        if type(v) is np.ndarray and v.dtype.kind == "f" \
                or not any(map(np.iscomplexobj, trees.leaves(v))):  # forward over reverse: the
            # gradient's tangent along v (a tree's leaves: ``(w, s)`` of two shapes)
            forward = _forward(gradient, tuple(args), [0], tangent_only=True)
            if forward is not None:
                return _tangent_dtypes(args[0], forward(*args, v)[1])[1]
        key = (_paths_key(args[0]), _complex_key(args[0], v), len(args))
        h = compiled.get(key)
        if h is None:
            h = compiled[key] = grad(_projection(gradient, len(args), args[0], v, "hvp"))
        return _tangent_dtypes(args[0], h(*args, v))[1]

    hessian_vector_product.__name__ = f"hvp_{getattr(f, '__name__', 'f')}"
    return hessian_vector_product


def _holds_record(value):
    return trees.is_tree(value) and trees.record_kind(value) is not None


def _records_hvp(f, compiled, args, v):
    """``hvp`` where an argument holds records (namedtuples, dataclasses): the gradient
    code that is differentiated again does not read a record's gradient by attribute,
    so the same math is differentiated with each record passed as a dict of its fields
    and built back inside (``testing._plain_records``, as ``check_grads`` does to
    second order); the product is put back into the records' structure."""
    from .testing import _plain, _plain_records

    key = ("records",) + tuple(trees.flatten(a)[1] if trees.is_tree(a) else None
                               for a in args)
    plain = compiled.get(key)
    if plain is None:
        plain = compiled[key] = hvp(_plain_records(f, args)[0])
    product = plain(*[_plain(a) for a in args], _plain(v))
    _, treedef = trees.flatten(args[0])
    return trees.unflatten(treedef, trees.leaves(product))


@functools.lru_cache(maxsize=64)
def _gradient_of(f):
    """One gradient wrapper per function (the last few): the tape's code that
    differentiates it again is compiled for the wrapper, once."""
    return grad(f)


def hessian(f):
    """``hessian(f)(x, *rest)``: the Hessian of scalar ``f`` with respect to its first
    argument (an array or a float), shaped ``x.shape + x.shape``: the Jacobian of
    ``f``'s gradient, in one backward pass over the gradient's code seeded with every
    row of the identity at once (``GradientTape.jacobian``); where that code cannot be
    differentiated again, or where it is not finite, one Hessian-vector product
    (``hvp``) per element."""
    try:
        gradient = _gradient_of(f)
    except TypeError:  # (unhashable)
        gradient = grad(f)
    product = hvp(f)

    def hessian_of(x, *rest):
        from .errors import CompileError

        shape = np.shape(x)
        kind = np.asarray(x).dtype.kind
        if kind not in "fc":  # (a watched int would be ignored: zeros, silently)
            raise TypeError(f"hessian: x must be a float (or complex) value or array, not "
                            f"{np.asarray(x).dtype}; pass e.g. 3.0 instead of 3")
        if kind == "f":
            try:
                rows = _jacobian_of_gradient(gradient, x, rest)
                if all_finite(rows):
                    return rows
                # (Maybe a masked inf or NaN: by columns, each product computed again
                # with strong zeros where it is not finite, runtime/strong.py.)
            except CompileError:
                pass  # (the gradient's code outside the compiler's language: by columns)
        columns = []
        for k in range(int(np.prod(shape, dtype=int))):
            basis = np.zeros(shape)
            basis.flat[k] = 1.0
            columns.append(np.asarray(product(x, *rest, basis if shape else 1.0)))
        return np.stack(columns, axis=-1).reshape(shape + shape) if shape else columns[0]

    hessian_of.__name__ = f"hessian_{getattr(f, '__name__', 'f')}"
    return hessian_of


def _jacobian_of_gradient(gradient, x, rest):
    from .errors import CompileError

    # (A copy: the tape matches what it watches by identity, and ``x`` may be the very
    # array ``f`` reads elsewhere, ``anchor`` of ``(y - anchor) ** 2`` at ``y = anchor``.)
    x = np.array(x, dtype=float) if not isinstance(x, np.ndarray) else x.copy()
    # (A block per arity: ``gradient(x, *rest)`` of a variable tuple is not compiled.)
    blocks = (_gradient_rows_0, _gradient_rows_1, _gradient_rows_2)
    if len(rest) >= len(blocks):
        raise CompileError("more arguments than the vectorised Hessian spells out")
    h = blocks[len(rest)](gradient, x, *rest)
    return h if np.ndim(x) else float(h)


def _gradient_rows_0(gradient, x):
    from .tape.tape import GradientTape

    with GradientTape() as tape:
        tape.watch(x)
        g = gradient(x)
    return tape.jacobian(g, x, unconnected_gradients="zero")


def _gradient_rows_1(gradient, x, a):
    from .tape.tape import GradientTape

    with GradientTape() as tape:
        tape.watch(x)
        g = gradient(x, a)
    return tape.jacobian(g, x, unconnected_gradients="zero")


def _gradient_rows_2(gradient, x, a, b):
    from .tape.tape import GradientTape

    with GradientTape() as tape:
        tape.watch(x)
        g = gradient(x, a, b)
    return tape.jacobian(g, x, unconnected_gradients="zero")


# -- the generated functions ------------------------------------------------------------

def _transposed(f, primals, tangents, value):
    """The gradient (in ``u``) of ``t(*xs, u, *vs) = sum_i <vjp_i(xs, u), v_i>``."""
    key = (len(primals), tuple(map(_paths_key, primals)), _paths_key(value),
           tuple(_complex_key(p, t) for p, t in zip(primals, tangents)), _complex_key(value))
    try:
        per_fn = _TRANSPOSED.setdefault(f, {})
    except TypeError:  # not weakly referable (a bound method made anew): not cached
        per_fn = {}
    found = per_fn.get(key)
    if found is None:
        n = len(primals)
        xs = [f"x{i}" for i in range(n)]
        vs = [f"v{i}" for i in range(n)]
        s = _load(f"def s({', '.join(xs)}, u):\n    y = f({', '.join(xs)})\n"
                  f"    return {_inner('y', 'u', value, value)}\n", "s", {"f": f}, f)
        vjp = grad(s, wrt=tuple(range(n)))
        terms = " + ".join(_inner(f"g[{i}]", vs[i], p, t)
                           for i, (p, t) in enumerate(zip(primals, tangents)))
        t = _load(f"def t({', '.join(xs)}, u, {', '.join(vs)}):\n"
                  f"    g = vjp({', '.join(xs)}, u)\n    return {terms}\n", "t", {"vjp": vjp}, f)
        found = per_fn[key] = grad(t, wrt=n)
    return found


def _projection(gradient, nargs, x, v, what):
    """``h(*args, v) = <gradient(*args), v>``, as source srcgrad reads."""
    args = [f"a{i}" for i in range(nargs)]
    text = (f"def h({', '.join(args)}, v):\n    g = gradient({', '.join(args)})\n"
            f"    return {_inner('g', 'v', x, v)}\n")
    return _load(text, "h", {"gradient": gradient}, gradient)


def _inner(a, b, like_a, like_b):
    """Source for the real inner product of trees ``a`` and ``b`` (shaped like
    ``like_a``/``like_b``): C as R^2 where a leaf may be complex."""
    terms = []
    for path, la, lb in zip(trees.paths(like_a), trees.leaves(like_a), trees.leaves(like_b)):
        at = a + "".join(f"[{k!r}]" for k in path)
        bt = b + "".join(f"[{k!r}]" for k in path)
        if np.iscomplexobj(la) or np.iscomplexobj(lb):
            terms.append(f"np.real(np.sum({at} * np.conj({bt})))")
        else:
            terms.append(f"np.sum({at} * {bt})")
    return " + ".join(terms) or "0.0"


def _load(text, name, cells, f):
    label = getattr(f, "__qualname__", None) or getattr(f, "__name__", "f")
    header = f"# {label}: a directional derivative by transposition; generated by srcgrad\n"
    cells = {"np": np, **cells}
    return codegen.load(header + text, name, {"__builtins__": __builtins__},
                        {k: types.CellType(v) for k, v in cells.items()}, f"forward {label}")


# -- trees ------------------------------------------------------------------------------

def _paths_key(value):
    return trees.flatten(value)[1] if trees.is_tree(value) else (type(value), np.ndim(value))


def _complex_key(*values):
    return tuple(any(map(np.iscomplexobj, trees.leaves(v))) for v in values)


def _tangent_dtypes(value, tangent):
    """``(value, tangent)`` with each float leaf of the tangent in its value leaf's float
    dtype (float32 in, float32 out, as gradients are; a constant of the derivative code,
    ``1.0``, would make it float64)."""
    if type(tangent) is np.ndarray and type(value) is np.ndarray and tangent.dtype == value.dtype:
        return value, tangent  # (the usual pair)
    if trees.is_tree(value) and trees.is_tree(tangent):
        values, tangents = trees.leaves(value), trees.leaves(tangent)
        if len(values) != len(tangents):
            return value, tangent
        _, treedef = trees.flatten(tangent)
        cast = [_tangent_dtypes(v, t)[1] for v, t in zip(values, tangents)]
        return value, trees.unflatten(treedef, cast)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.inexact) \
            and isinstance(tangent, (np.ndarray, np.generic)) and tangent.dtype != dtype \
            and np.can_cast(dtype, tangent.dtype) \
            and np.issubdtype(tangent.dtype, np.complexfloating) == \
            np.issubdtype(dtype, np.complexfloating):
        tangent = tangent.astype(dtype) if isinstance(tangent, np.ndarray) else dtype.type(tangent)
    return value, tangent


def _gradient_dtypes(f, primals, out):
    """``(value, tangent)`` of ``f`` a gradient (``sg.grad(g)``) in the dtypes of the
    arguments it is the gradient of, as calling it gives (its forward code stops short
    of that cast)."""
    compiled = getattr(f, "__srcgrad_compiled__", None)
    if compiled is None or compiled.mode != "grad" or compiled.bound:
        return out
    try:
        like = [primals[i] for i in compiled.wrt]
    except IndexError:
        return out
    like = tuple(like) if compiled.multiple else like[0]
    return _tangent_dtypes(like, out[0])[1], _tangent_dtypes(like, out[1])[1]


def _zeros(value, fill=0):
    """A tree shaped like ``value`` of zeros (or of ``fill``: the seed ``u`` the
    transposition starts from)."""
    if trees.is_tree(value):
        pairs, treedef = trees.flatten(value)
        return trees.unflatten(treedef, [_zeros(leaf, fill) for _, leaf in pairs])
    if isinstance(value, (float, int)):
        return float(fill)
    if isinstance(value, complex):
        return complex(fill)
    dtype = np.result_type(value, 1.0)
    return np.full(np.shape(value), fill, dtype) if isinstance(value, np.ndarray) \
        else dtype.type(fill)


def _check_like(primal, tangent, i):
    """A tangent has its primal's structure and shapes, and float (or complex) leaves."""
    if type(primal) is np.ndarray and type(tangent) is np.ndarray \
            and primal.shape == tangent.shape and primal.dtype.kind in "fc" \
            and tangent.dtype.kind in "fc":
        return  # (the usual pair, checked without the tree's walk)
    a, b = trees.leaves(primal), trees.leaves(tangent)
    if len(a) != len(b) or (trees.is_tree(primal) and _paths_key(primal) != _paths_key(tangent)):
        raise ValueError(f"jvp: tangent {i} does not have the structure of primal {i}")
    for p, t in zip(a, b):
        if np.shape(p) != np.shape(t):
            raise ValueError(f"jvp: tangent {i} has shape {np.shape(t)}, its primal "
                             f"{np.shape(p)}")
        for value, what in ((p, "primal"), (t, "tangent")):
            kind = np.asarray(value).dtype.kind
            if kind not in "fc":
                raise TypeError(f"jvp: {what} {i} must be a float (or complex) value or array, "
                                f"not {np.asarray(value).dtype}; pass e.g. 3.0 instead of 3")


class ForwardAccumulator:
    """``tf.autodiff.ForwardAccumulator``: the derivatives of values computed in its
    ``with`` block along ``tangents`` of ``primals``::

        with sg.ForwardAccumulator(x, v) as acc:
            with sg.GradientTape() as tape:
                y = f(x)
            g = tape.gradient(y, x)
        hvp = acc.jvp(g)          # the Hessian of f times v

    The block is recorded by a tape of the accumulator's own; ``jvp(target)`` is the
    Jacobian of ``target`` (``tape.jacobian``, one backward pass for all its rows)
    contracted with the tangents. Targets are real; a complex target is refused.
    """

    __srcgrad_recorder__ = True  # not a value the block computes with (tape._is_data)

    def __init__(self, primals, tangents):
        from .tape.tape import GradientTape, _flatten

        self._primals, _ = _flatten(primals)
        self._tangents, _ = _flatten(tangents)
        if len(self._primals) != len(self._tangents):
            raise ValueError("ForwardAccumulator: primals and tangents must have the same "
                             "structure")
        for i, (p, t) in enumerate(zip(self._primals, self._tangents)):
            _check_like(p, t, i)
        self._tape = GradientTape(persistent=True)
        self._tape.watch(self._primals)

    def __enter__(self):
        import sys

        self._tape._enter(sys._getframe(1))
        return self

    def __exit__(self, exc_type, exc, tb):
        return self._tape._exit(exc_type, exc)

    def watch(self, primals, tangents):
        raise NotImplementedError("ForwardAccumulator.watch: give every primal and tangent "
                                  "when the accumulator is made")

    def jvp(self, primals, unconnected_gradients="none"):
        """The derivative of ``primals`` (a value, or a structure of values, computed in
        the block) along the tangents; None where it does not depend on the primals
        (zeros with ``unconnected_gradients="zero"``)."""
        from .tape.tape import _flatten
        from .variables import UnconnectedGradients

        unconnected = UnconnectedGradients.parse(unconnected_gradients)
        targets, rebuild = _flatten(primals)
        out = []
        for target in targets:
            if np.iscomplexobj(target):
                raise TypeError("ForwardAccumulator.jvp of a complex target is not supported; "
                                "take its real and imaginary parts apart")
            total = None
            for p, t, J in zip(self._primals, self._tangents,
                               self._tape.jacobian(target, list(self._primals))):
                if J is None:
                    continue
                axes = tuple(range(np.ndim(target), np.ndim(J)))
                part = np.real(np.sum(np.conj(J) * t, axis=axes)) if np.iscomplexobj(J) \
                    else np.sum(J * np.asarray(t), axis=axes)
                total = part if total is None else total + part
            if total is None and unconnected is UnconnectedGradients.ZERO:
                total = np.zeros(np.shape(target))
            out.append(total)
        return rebuild(out)


def tangent_source(f, wrt=0, args=None):
    """The forward-mode code of ``f`` along ``wrt``, as ``srcgrad show --mode forward``
    prints it (for arguments of any kind, or of the kinds of example ``args``); a
    CompileError where forward mode does not apply."""
    from .compiler.cache import Compiled
    from .compiler.tangents import compile_tangent

    compiled = Compiled.of(_python_function(f, "tangent_source"), wrt, "grad")
    sample = None if args is None else list(compiled.bound) + list(args)
    return compile_tangent(compiled.f, list(compiled.wrt), sample).text
