"""Checking gradients against finite differences, for users and for our tests."""
import types

import numpy as np

from . import grad, trees
from .errors import CompileError


def check_grads(f, args, order=2, wrt=None, *, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0):
    """Check ``srcgrad.grad(f)`` at ``args`` against central differences.

    The method is autograd's. For each argument index ``i`` in ``wrt``, with
    ``g = srcgrad.grad(f, wrt=i)(*args)`` and a random direction ``v`` of the
    argument's shape, the directional derivative ``<g, v>`` must match::

        (f(.., x_i + eps * v, ..) - f(.., x_i - eps * v, ..)) / (2 * eps)

    within ``atol + rtol * |numeric|``. One random direction tests every
    component of ``g`` at once: a wrong component is missed only if its error
    happens to be orthogonal to ``v``, which has probability zero.

    The finite differences are evaluated in float64 (float arguments are cast
    to float64 copies), whatever the arguments' dtype, so that rounding in
    ``f`` does not swamp the difference. The analytic gradient is computed on
    the arguments as given: for float32 inputs pass a larger ``rtol``.

    ``g`` must also have the argument's shape (``np.shape``) and, for ndarray
    and NumPy scalar arguments, its dtype.

    Complex arguments are checked in C as R^2, TensorFlow's convention: the
    direction ``v`` has random real and imaginary parts, ``<g, v>`` is
    ``Re(sum(conj(g) * v))``, and a complex result is differentiated as its
    real part.

    For ``order >= 2`` each gradient is checked in turn: with a fixed random
    ``u``, the scalar function ``h(*args) = np.sum(grad(f, wrt=i)(*args) * u)``
    is checked to order ``order - 1``. The same tolerances serve every order:
    each level is a first-order check of a function that is itself computed
    analytically, so its finite-difference error has the same form
    (truncation ``~eps**2``, rounding ``~1e-16 * |h| / eps``) as at order 1.

    Args:
        f: the function, returning a scalar.
        args: its positional arguments (a tuple or list).
        order: how many times to differentiate (1 checks the gradient only).
        wrt: an index or indices of ``args`` to check; by default every
            argument that is a Python float or complex, a NumPy floating or
            complex scalar or ndarray, or a parameter tree (dicts, lists and
            tuples) of them: a tree's directions are trees of the same structure.
        eps: the finite-difference step along the unit-variance direction.
        rtol, atol: the tolerance, as in ``np.allclose``.
        seed: seeds the random directions, so that failures are reproducible.

    Raises:
        AssertionError: a gradient is wrong, naming the function, the
            argument index, and the analytic and numeric values.
        ValueError: there is no argument to check.

    The caller's arrays are never modified: every call of ``f`` gets copies.

    The gradients with respect to all of ``wrt`` come from one
    ``grad(f, wrt=tuple(wrt))`` (one compile; at order two, one per gradient rather
    than one per pair), and from ``grad(f, wrt=i)`` each where that is refused.
    """
    args = tuple(args)
    if wrt is None:
        wrt = [i for i, arg in enumerate(args) if _is_float(arg) or _is_float_tree(arg)]
        if not wrt:
            raise ValueError(
                "check_grads: no float argument to check; pass wrt=[indices]"
            )
    elif isinstance(wrt, (int, np.integer)):
        wrt = [int(wrt)]
    else:
        wrt = [int(i) for i in wrt]
    tolerance = dict(eps=eps, rtol=rtol, atol=atol)
    _check(f, args, order, wrt, np.random.default_rng(seed), _name(f), tolerance)


def _check(f, args, order, wrt, rng, name, tolerance):
    together = _gradients_together(f, args, wrt)
    for i in wrt:
        _check_first_order(f, args, i, rng, name, together.get(i, _MISSING), **tolerance)
    if order < 2:
        return
    if any(_has_record(a) for a in args):
        # Higher orders of the same math, with each record (namedtuple, dataclass) passed
        # as a dict of its fields: sg.grad(f)(p).W of a record gradient is not followed.
        f, args = _plain_records(f, args)
    for i in wrt:
        gf = grad(f, wrt=i)
        if not trees.is_tree(args[i]):
            u = _direction(rng, args[i])
            if np.iscomplexobj(u):
                def h(*args):  # the real inner product of C as R^2
                    return np.real(np.sum(gf(*args) * np.conj(u)))
            else:
                def h(*args):
                    return np.sum(gf(*args) * u)
        else:
            h = _tree_projection(gf, len(args), trees.paths(args[i]),
                                 [_direction(rng, leaf) for leaf in trees.leaves(args[i])])

        _check(h, args, order - 1, wrt, rng, f"d({name})/d(arg {i})", tolerance)


def _tree_projection(gf, nargs, paths, us):
    """``h(*args) = sum over leaves of np.sum(leaf of gf(*args) * u)``, as source srcgrad
    can differentiate: each leaf read by constant keys (generated code, like sg.grad's
    own function of a tree's leaves)."""
    from .compiler import codegen

    params = ", ".join(f"a{k}" for k in range(nargs))
    terms = " + ".join(f"np.real(np.sum(g{''.join(f'[{key!r}]' for key in path)} * np.conj(u{k})))"
                       if np.iscomplexobj(us[k]) else
                       f"np.sum(g{''.join(f'[{key!r}]' for key in path)} * u{k})"
                       for k, path in enumerate(paths)) or "0.0"
    text = (f"# the gradient's leaves along fixed directions; generated by srcgrad.testing\n"
            f"def h({params}):\n    g = gf({params})\n    return {terms}\n")
    cells = {"gf": gf, "np": np, **{f"u{k}": u for k, u in enumerate(us)}}
    return codegen.load(text, "h", {"__builtins__": __builtins__},
                        {n: types.CellType(v) for n, v in cells.items()}, "check_grads")


def _has_record(value):
    if type(value) is dict:
        return any(map(_has_record, value.values()))
    if type(value) in (list, tuple):
        return any(map(_has_record, value))
    return trees.record_fields(type(value)) is not None


def _plain(value):
    """``value`` with each record a dict of its fields."""
    if type(value) is dict:
        return {k: _plain(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    fields = trees.record_fields(type(value))
    if fields is not None:
        return {k: _plain(getattr(value, k)) for k in fields}
    return value


def _plain_records(f, args):
    """``(g, plain args)``: ``g`` takes each record argument as a dict of its fields
    (``_plain``) and calls ``f`` with the records built back, in source srcgrad reads."""
    from .compiler import codegen

    names = [f"a{k}" for k in range(len(args))]
    classes, calls = {}, []
    for name, a in zip(names, args):
        if not _has_record(a):
            calls.append(name)
            continue
        leaves = [name + "".join(f"[{key!r}]" for key in p) for p in trees.paths(a)]
        calls.append(trees.source(trees.flatten(a)[1], leaves, classes, set(names) | {"f"}))
    text = (f"# f with its records passed as dicts of their fields; generated by srcgrad.testing\n"
            f"def g({', '.join(names)}):\n    return f({', '.join(calls)})\n")
    cells = {"f": f, **classes}
    g = codegen.load(text, "g", {"__builtins__": __builtins__},
                     {n: types.CellType(v) for n, v in cells.items()}, "check_grads")
    return g, [_plain(a) for a in args]


_MISSING = object()


def _gradients_together(f, args, wrt):
    """``{i: gradient}`` for every index of ``wrt``, from one ``grad(f, wrt=<all>)``:
    one compile, where each argument on its own would compile ``f`` again (and at order
    two, each pair ``(i, j)`` the gradient's gradient). Empty for one argument, and where
    the arguments together are refused: then each is taken on its own, as asked."""
    if len(wrt) < 2:
        return {}
    try:
        grads = grad(f, wrt=tuple(wrt))(*_copies(args))
    except CompileError:
        return {}
    return dict(zip(wrt, grads))


def _check_first_order(f, args, i, rng, name, g, eps, rtol, atol):
    source = args[i]
    if g is _MISSING:
        g = grad(f, wrt=i)(*_copies(args))
    where = f"check_grads: gradient of {name} with respect to argument {i}"
    if g is None:
        raise AssertionError(f"{where} is None")
    if trees.is_tree(source) and (type(g) is not type(source) or (
            isinstance(source, dict) and list(g) != list(source))):
        raise AssertionError(f"{where} is a {type(g).__name__}, not a tree like the "
                             f"argument's ({type(source).__name__})")
    pairs = list(zip(trees.leaves(g), trees.leaves(source)))
    if len(pairs) != len(trees.leaves(source)):
        raise AssertionError(f"{where} has {len(trees.leaves(g))} leaves, the argument "
                             f"{len(trees.leaves(source))}")
    for gl, sl in pairs:
        _check_like(gl, sl, where)
    v = [_direction(rng, leaf) for leaf in trees.leaves(source)]
    # <g, v> in C as R^2: Re(sum(conj(g) v)), srcgrad's (TensorFlow's) convention.
    analytic = sum(float(np.real(np.sum(np.conj(np.asarray(gl, dtype=np.result_type(gl, 1.0)))
                                        * vl)))
                   for (gl, _), vl in zip(pairs, v))
    numeric = _directional_difference(f, args, i, v, eps)
    if not abs(analytic - numeric) <= atol + rtol * abs(numeric):
        raise AssertionError(
            f"{where} is wrong: along a random direction the analytic derivative "
            f"is {analytic!r}, the numeric (central difference) one {numeric!r}; "
            f"difference {abs(analytic - numeric):.3g}, "
            f"tolerance {atol + rtol * abs(numeric):.3g}"
        )


def _check_like(g, source, where):
    """``g`` has the shape of ``source`` and, for NumPy values, its dtype."""
    if np.shape(g) != np.shape(source):
        raise AssertionError(
            f"{where} has shape {np.shape(g)}, expected {np.shape(source)} (the argument's)"
        )
    if isinstance(source, (np.ndarray, np.generic)):
        # Compared explicitly: np.dtype("float64") == "float" is True.
        g_dtype = getattr(g, "dtype", None)
        if g_dtype is None or g_dtype != source.dtype:
            got = type(g).__name__ if g_dtype is None else g_dtype
            raise AssertionError(
                f"{where} has dtype {got}, expected {source.dtype} (the argument's)"
            )


def _directional_difference(f, args, i, v, eps):
    """``(f(x + eps v) - f(x - eps v)) / (2 eps)`` along argument ``i`` (``v``: one
    direction per leaf), in float64."""
    args64 = [_float64(arg) for arg in args]
    x = args64[i]

    def f_at(step):
        shifted = list(args64)
        moved = [_like(leaf, leaf + step * vl) for leaf, vl in zip(trees.leaves(x), v)]
        shifted[i] = _rebuild(x, moved)
        # A complex result is differentiated as its real part (TensorFlow's convention).
        # (A value of one element, ``(1, 1)``, as ``sg.grad`` takes it.)
        return float(np.real(np.asarray(f(*_copies(shifted)))).reshape(()))

    return (f_at(eps) - f_at(-eps)) / (2 * eps)


def _rebuild(value, leaves):
    return trees.unflatten(trees.flatten(value)[1], leaves) if trees.is_tree(value) else leaves[0]


def _is_float_tree(value):
    try:
        leaves = trees.leaves(value) if trees.is_tree(value) else []
    except TypeError:  # a namedtuple or dataclass: not a tree srcgrad takes
        return False
    return bool(leaves) and all(_is_float(leaf) for leaf in leaves)


def _is_float(value):
    """A float or complex argument (complex ones are checked along both axes)."""
    if isinstance(value, (float, complex, np.inexact)):
        return True
    return isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.inexact)


def _direction(rng, leaf):
    """A random direction for ``leaf``: with random real and imaginary parts for a
    complex one."""
    v = rng.standard_normal(np.shape(leaf))
    if np.iscomplexobj(leaf):
        v = v + 1j * rng.standard_normal(np.shape(leaf))
    return v


def _float64(value):
    """A float64 copy of a float argument (or of a tree's leaves); others as they are."""
    if _is_float_tree(value):
        return _rebuild(value, [_float64(leaf) for leaf in trees.leaves(value)])
    if not _is_float(value):
        return value
    wide = np.complex128 if np.iscomplexobj(value) else np.float64
    if isinstance(value, np.ndarray):
        return value.astype(wide)
    if isinstance(value, np.generic):
        return wide(value)
    return complex(value) if isinstance(value, complex) else float(value)


def _like(x, shifted):
    # Keep the argument's kind: a Python float stays a Python float, so that
    # f sees the same types as in the analytic call (compiled code may be
    # specialised on them).
    if isinstance(x, np.ndarray):
        return np.asarray(shifted)  # 0-d arithmetic gives a scalar
    if isinstance(x, np.generic):
        return x.dtype.type(shifted)
    return complex(shifted) if isinstance(x, complex) else float(shifted)


def _copies(args):
    # f may write into its array arguments (a[i] = v); the caller's arrays,
    # and the ones the next evaluation uses, must not change.
    return tuple(_copy(arg) for arg in args)


def _copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if type(value) in (list, tuple):
        return type(value)(_copy(v) for v in value)
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    return value


def _name(f):
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
