"""Checking gradients against finite differences, for users and for our tests."""
import numpy as np

from . import grad


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
            argument that is a Python float, a NumPy floating scalar or a
            floating ndarray.
        eps: the finite-difference step along the unit-variance direction.
        rtol, atol: the tolerance, as in ``np.allclose``.
        seed: seeds the random directions, so that failures are reproducible.

    Raises:
        AssertionError: a gradient is wrong, naming the function, the
            argument index, and the analytic and numeric values.
        ValueError: there is no argument to check.

    The caller's arrays are never modified: every call of ``f`` gets copies.
    """
    args = tuple(args)
    if wrt is None:
        wrt = [i for i, arg in enumerate(args) if _is_float(arg)]
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
    for i in wrt:
        _check_first_order(f, args, i, rng, name, **tolerance)
    if order < 2:
        return
    for i in wrt:
        gf = grad(f, wrt=i)
        u = rng.standard_normal(np.shape(args[i]))

        def h(*args):
            return np.sum(gf(*args) * u)

        _check(h, args, order - 1, wrt, rng, f"d({name})/d(arg {i})", tolerance)


def _check_first_order(f, args, i, rng, name, eps, rtol, atol):
    source = args[i]
    g = grad(f, wrt=i)(*_copies(args))
    where = f"check_grads: gradient of {name} with respect to argument {i}"
    if g is None:
        raise AssertionError(f"{where} is None")
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

    v = rng.standard_normal(np.shape(source))
    analytic = float(np.sum(np.asarray(g, dtype=np.float64) * v))
    numeric = _directional_difference(f, args, i, v, eps)
    if not abs(analytic - numeric) <= atol + rtol * abs(numeric):
        raise AssertionError(
            f"{where} is wrong: along a random direction the analytic derivative "
            f"is {analytic!r}, the numeric (central difference) one {numeric!r}; "
            f"difference {abs(analytic - numeric):.3g}, "
            f"tolerance {atol + rtol * abs(numeric):.3g}"
        )


def _directional_difference(f, args, i, v, eps):
    """``(f(x + eps v) - f(x - eps v)) / (2 eps)`` along argument ``i``, in float64."""
    args64 = [_float64(arg) for arg in args]
    x = args64[i]

    def f_at(step):
        shifted = list(args64)
        shifted[i] = _like(x, x + step * v)
        return float(np.asarray(f(*_copies(shifted)), dtype=np.float64))

    return (f_at(eps) - f_at(-eps)) / (2 * eps)


def _is_float(value):
    if isinstance(value, (float, np.floating)):
        return True
    return isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating)


def _float64(value):
    """A float64 copy of a float argument; other arguments as they are."""
    if not _is_float(value):
        return value
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    if isinstance(value, np.generic):
        return np.float64(value)
    return float(value)


def _like(x, shifted):
    # Keep the argument's kind: a Python float stays a Python float, so that
    # f sees the same types as in the analytic call (compiled code may be
    # specialised on them).
    if isinstance(x, np.ndarray):
        return np.asarray(shifted)  # 0-d arithmetic gives a scalar
    if isinstance(x, np.generic):
        return np.float64(shifted)
    return float(shifted)


def _copies(args):
    # f may write into its array arguments (a[i] = v); the caller's arrays,
    # and the ones the next evaluation uses, must not change.
    return tuple(arg.copy() if isinstance(arg, np.ndarray) else arg for arg in args)


def _name(f):
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
