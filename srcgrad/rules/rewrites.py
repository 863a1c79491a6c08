"""NumPy and SciPy functions that are short compositions of functions with rules,
written out in Python: the compiler inlines them as it inlines the user's own
functions (their adjoint, tangent and second derivatives follow), instead of each
needing a rule of its own. Each computes what the library computes, argument by
argument; an argument it does not model is refused when the code runs
(``_sg.not_differentiable``), never ignored.
"""
import functools

import numpy as np

from .. import runtime as _sg


def ptp(a, axis=None, out=None, keepdims=False):
    """``np.ptp``: the largest element less the smallest."""
    if out is not None:
        _sg.not_differentiable("np.ptp with out=")
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.nansum``: the sum with NaN taken as zero."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.nansum with dtype= or out=")
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.nanmean``: the mean of the elements that are not NaN (NaN for a slice of
    NaNs only, as NumPy gives with its warning)."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.nanmean with dtype= or out=")
    kept = np.sum(np.logical_not(np.isnan(a)), axis=axis, keepdims=keepdims)
    return nansum(a, axis=axis, keepdims=keepdims) / kept


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """``np.average``: the mean, or with ``weights`` the weighted mean
    ``sum(a * w) / sum(w)`` (weights of ``a``'s shape, or shaped like ``a`` along the
    ``axis`` given, put along those axes as NumPy puts them)."""
    if weights is None:
        mean = np.mean(a, axis=axis, keepdims=keepdims)
        if returned:
            return mean, np.ones_like(mean) * (np.size(a) / np.size(mean))
        return mean
    if np.shape(weights) != np.shape(a):
        order, shape = _sg.average_weights_plan(np.shape(a), np.shape(weights), axis)
        weights = np.reshape(np.transpose(weights, order), shape)
    scale = np.sum(np.broadcast_to(weights, np.shape(a)), axis=axis, keepdims=keepdims)
    if np.any(scale == 0.0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    mean = np.sum(a * weights, axis=axis, keepdims=keepdims) / scale
    if returned:
        return mean, scale
    return mean


def copysign(x1, x2, out=None, where=True, dtype=None):
    """``np.copysign``: the magnitude of ``x1`` with the sign bit of ``x2``."""
    if out is not None or where is not True or dtype is not None:
        _sg.not_differentiable("np.copysign with out=, where= or dtype=")
    return np.abs(x1) * np.where(np.signbit(x2), -1.0, 1.0)


def entr(x):
    """``scipy.special.entr``: ``-x log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below."""
    positive = x > 0
    return np.where(positive, -x * np.log(np.where(positive, x, 1.0)),
                    np.where(x == 0, 0.0, -np.inf))


def vector_norm(x, axis=None, keepdims=False, ord=2):
    """``np.linalg.vector_norm`` (NumPy 2): ``norm`` of ``x`` as one vector, or along an
    axis (a tuple of several is refused)."""
    if axis is None:
        total = np.linalg.norm(np.ravel(x), ord)
        if keepdims:
            return np.reshape(total, np.shape(np.sum(x, keepdims=True)))
        return total
    if isinstance(axis, tuple) and len(axis) > 1:
        _sg.not_differentiable("np.linalg.vector_norm over several axes")
    return np.linalg.norm(x, ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, keepdims=False, ord="fro"):
    """``np.linalg.matrix_norm`` (NumPy 2): ``norm`` over the last two axes."""
    return np.linalg.norm(x, ord, axis=(-2, -1), keepdims=keepdims)


def vecdot(x1, x2, axis=-1):
    """``np.linalg.vecdot`` (NumPy 2): ``sum(conj(x1) * x2)`` along ``axis``."""
    return np.sum(np.conjugate(x1) * x2, axis=axis)


def vecdot_ufunc(x1, x2, out=None, axis=-1, dtype=None):
    """``np.vecdot`` (NumPy 2's gufunc): as ``np.linalg.vecdot``."""
    if out is not None or dtype is not None:
        _sg.not_differentiable("np.vecdot with out= or dtype=")
    return vecdot(x1, x2, axis=axis)


def matvec(x1, x2, out=None, dtype=None):
    """``np.matvec`` (NumPy 2.2): the matrices of ``x1`` times the vectors of ``x2``."""
    if out is not None or dtype is not None:
        _sg.not_differentiable("np.matvec with out= or dtype=")
    return np.sum(x1 * np.expand_dims(x2, -2), axis=-1)


def vecmat(x1, x2, out=None, dtype=None):
    """``np.vecmat`` (NumPy 2.2): the conjugated vectors of ``x1`` times the matrices of
    ``x2``."""
    if out is not None or dtype is not None:
        _sg.not_differentiable("np.vecmat with out= or dtype=")
    return np.sum(np.expand_dims(np.conjugate(x1), -1) * x2, axis=-2)


def sum_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=0, where=True):
    """``np.sum`` with ``where=`` or ``initial=``: the masked elements as zeros, plus the
    start value."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.sum with dtype= or out=")
    return np.sum(np.where(where, a, 0.0), axis=axis, keepdims=keepdims) + initial


def prod_where(a, axis=None, dtype=None, out=None, keepdims=False, initial=1, where=True):
    """``np.prod`` with ``where=`` or ``initial=``: the masked elements as ones, times the
    start value."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.prod with dtype= or out=")
    return np.prod(np.where(where, a, 1.0), axis=axis, keepdims=keepdims) * initial


def mean_where(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    """``np.mean`` with ``where=``: the mean of the elements the mask keeps."""
    if dtype is not None or out is not None:
        _sg.not_differentiable("np.mean with dtype= or out=")
    kept = np.sum(np.broadcast_to(where, np.shape(a)), axis=axis, keepdims=keepdims)
    return sum_where(a, axis=axis, keepdims=keepdims, where=where) / kept


def max_where(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """``np.max`` with ``initial=`` (and ``where=``, which NumPy takes only with it): the
    largest of the kept elements and the start value."""
    if out is not None or initial is None:
        _sg.not_differentiable("np.max with out=, or where= without initial=")
    if np.size(a) == 0:  # (np.max of no element has no value: only the start value)
        return np.full(np.shape(np.sum(np.zeros(np.shape(a)), axis=axis, keepdims=keepdims)),
                       initial)
    return np.maximum(np.max(np.where(where, a, initial), axis=axis, keepdims=keepdims), initial)


def min_where(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """``np.min`` with ``initial=`` (and ``where=``): as ``max_where``, the smallest."""
    if out is not None or initial is None:
        _sg.not_differentiable("np.min with out=, or where= without initial=")
    if np.size(a) == 0:
        return np.full(np.shape(np.sum(np.zeros(np.shape(a)), axis=axis, keepdims=keepdims)),
                       initial)
    return np.minimum(np.min(np.where(where, a, initial), axis=axis, keepdims=keepdims), initial)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``np.meshgrid``: each input raveled along its own axis of the grid (the first two
    axes swapped for ``indexing='xy'``), broadcast to the whole grid unless ``sparse``."""
    shapes, grid = _sg.meshgrid_shapes(tuple(np.size(x) for x in xi), indexing)
    axes = [np.reshape(x, shape) for x, shape in zip(xi, shapes)]
    if not sparse:
        axes = [np.broadcast_to(a, grid) for a in axes]
    if copy:
        axes = [np.array(a) for a in axes]
    return tuple(axes) if _MESHGRID_TUPLES else axes


_MESHGRID_TUPLES = isinstance(np.meshgrid(np.zeros(1)), tuple)  # (NumPy 2; 1.x: lists)


def insert(arr, obj, values, axis=None):
    """``np.insert`` as a gather from ``arr``'s items followed by ``values``'s: which item
    goes where is NumPy's own insert, of the positions (``_sg.insert_index``)."""
    index = _sg.insert_index(np.shape(arr), obj, np.shape(values), axis)
    joined = np.concatenate([np.ravel(arr), np.ravel(values)])
    return joined[index].astype(np.asarray(arr).dtype)


def delete(arr, obj, axis=None):
    """``np.delete`` as a gather of the items kept: which they are is NumPy's own delete,
    of the positions (``_sg.delete_index``)."""
    return np.ravel(arr)[_sg.delete_index(np.shape(arr), obj, axis)]


def resize(a, new_shape):
    """``np.resize``: ``a``'s items repeated in order and cut to ``new_shape`` (zeros for
    an empty ``a``), as a gather (``_sg.resize_index``)."""
    if np.size(a) == 0:
        return np.zeros(new_shape, np.asarray(a).dtype)
    return np.ravel(a)[_sg.resize_index(np.size(a), new_shape)]


def broadcast_arrays(*args, subok=False):
    """``np.broadcast_arrays``: each array broadcast to the shape of all of them."""
    shape = _sg.broadcast_shape_of(args)
    out = [np.broadcast_to(a, shape) for a in args]
    return tuple(out) if _BROADCAST_TUPLES else out


_BROADCAST_TUPLES = isinstance(np.broadcast_arrays(np.zeros(1)), tuple)  # (NumPy 2)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """``np.unwrap``: NumPy's values, and ``p``'s derivative (the multiples of ``period``
    it adds are constant between jumps): ``p - stop_gradient(p)`` adds an exact 0."""
    return _sg.unwrapped(p, discont, axis, period) + (p - _sg.stop_gradient(p))


def arange(start, stop=None, step=None, dtype=None, **kwargs):
    """``np.arange``: NumPy's values ``start + i * step``, and their derivatives in
    ``start`` and ``step`` (``v - stop_gradient(v)`` adds an exact 0); ``stop``, and a lone
    ``stop``, only set how many there are: piecewise constant."""
    grid = _sg.arange_values(start, stop, step, dtype, kwargs)
    if stop is None or not np.issubdtype(grid.dtype, np.floating):
        return grid
    grid = grid + (start - _sg.stop_gradient(start))
    if step is None:
        return grid
    return grid + np.arange(len(grid)) * (step - _sg.stop_gradient(step))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``np.polyfit`` without ``full`` or ``cov``: NumPy's least squares, its columns of
    the Vandermonde matrix scaled to unit norm as NumPy scales them."""
    if full or cov:
        _sg.not_differentiable("np.polyfit with full= or cov=")
    lhs = np.vander(x, int(deg) + 1)
    rhs = y
    if w is not None:
        weights = np.asarray(w)
        lhs = lhs * weights[:, np.newaxis]
        rhs = rhs * weights if np.ndim(rhs) == 1 else rhs * weights[:, np.newaxis]
    if rcond is None:
        rcond = len(x) * np.finfo(np.result_type(x, 0.0)).eps
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    c = np.linalg.lstsq(lhs / scale, rhs, rcond=rcond)[0]
    return (c.T / scale).T


def linalg_trace(x, *, offset=0, dtype=None):
    """NumPy 2's ``np.linalg.trace``: the trace over the last two axes."""
    return np.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def linalg_diagonal(x, *, offset=0):
    """NumPy 2's ``np.linalg.diagonal``: the diagonal over the last two axes."""
    return np.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def linalg_cross(x1, x2, *, axis=-1):
    """NumPy 2's ``np.linalg.cross``: ``np.cross`` of 3-vectors along ``axis``."""
    if np.shape(x1)[axis] != 3 or np.shape(x2)[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         "but they are not.")
    return np.cross(x1, x2, axis=axis)


def linalg_outer(x1, x2):
    """NumPy 2's ``np.linalg.outer``: the outer product of two vectors."""
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional")
    return np.outer(x1, x2)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """``np.lib.stride_tricks.sliding_window_view`` as a gather: the windows' positions
    are NumPy's own windows over the positions of ``x`` (a copy, where NumPy gives a
    read-only view: the values are the same)."""
    if writeable:
        _sg.not_differentiable("sliding_window_view with writeable=True")
    positions = np.lib.stride_tricks.sliding_window_view(
        np.reshape(np.arange(np.size(x)), np.shape(x)), window_shape, axis)
    return np.ravel(x)[positions]


def reduce(function, iterable, *initial):
    """``functools.reduce``: ``function`` folded over the items, from the left."""
    items = list(iterable)
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    if not initial and not items:
        raise TypeError("reduce() of empty iterable with no initial value")
    total = initial[0] if initial else items[0]
    for item in items[0 if initial else 1:]:
        total = function(total, item)
    return total


class partial:  # (named as the user wrote it: messages name the class)
    """``functools.partial`` built in differentiated code: an object of a plain class,
    which the compiler keeps as its attributes and whose call it inlines
    (passes/normalize/objects.py)."""

    def __init__(self, func, *args, **keywords):
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **keywords):
        return self.func(*self.args, *args, **{**self.keywords, **keywords})


class vectorize:  # (named as the user wrote it: messages name the class)
    """``np.vectorize(f)`` built in differentiated code (or given, as a decorator makes
    it): ``f`` called on each element of its operands broadcast together, and the
    results gathered into an array of their shape, as NumPy's loop does.
    Compiled as ``f`` is: its branches on the element and all (``passes/normalize/
    objects.py`` keeps the object as its attributes and inlines the call)."""

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        if excluded or signature is not None:
            _sg.not_differentiable("np.vectorize with excluded= or signature=")
        self.pyfunc = pyfunc

    def __call__(self, *args):  # (the number of operands is known compiling)
        if len(args) == 1:
            x = np.asarray(args[0])
            return np.array([self.pyfunc(v) for v in x.ravel()]).reshape(x.shape)
        if len(args) == 2:
            a = args[0] + np.zeros_like(args[1])  # (broadcast, differentiably)
            b = args[1] + np.zeros_like(args[0])
            return np.array([self.pyfunc(u, v) for u, v in zip(a.ravel(), b.ravel())]
                            ).reshape(a.shape)
        return _sg.not_differentiable("np.vectorize of a function of more than two operands")


def var_given(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
              mean=None, correction=None):
    """``np.var`` with NumPy 2's ``mean=`` (the mean, as with ``keepdims=True``, not
    computed again: the gradient flows through it as given) or ``correction=`` (``ddof``)."""
    if dtype is not None or out is not None or where is not True:
        _sg.not_differentiable("np.var with dtype=, out= or where=")
    if correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    if np.iscomplexobj(a) or np.iscomplexobj(mean):
        _sg.not_differentiable("np.var or np.std of complex values with mean= or correction=")
    if mean is None:
        mean = np.mean(a, axis=axis, keepdims=True)
    d = a - mean
    total = np.sum(d * d, axis=axis, keepdims=keepdims)
    return total / (_sg.reduced_size(np.shape(a), axis) - ddof)


def std_given(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
              mean=None, correction=None):
    """``np.std`` with ``mean=`` or ``correction=``: the root of ``var_given``."""
    return np.sqrt(var_given(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                             correction=correction))


# Reductions called with ``where=`` or ``initial=``, which their rules do not take.
_WITH_WHERE = {np.sum: sum_where, np.prod: prod_where, np.mean: mean_where, np.max: max_where,
               np.amax: max_where, np.min: min_where, np.amin: min_where}

# Functions written out here (``REWRITES`` adds the families').
_REWRITES = {np.ptp: ptp, np.nansum: nansum, np.nanmean: nanmean, np.average: average,
             np.copysign: copysign, np.meshgrid: meshgrid, np.insert: insert,
             np.delete: delete, np.resize: resize, np.broadcast_arrays: broadcast_arrays,
             np.unwrap: unwrap, np.polyfit: polyfit, np.arange: arange,
             functools.reduce: reduce,
             np.lib.stride_tricks.sliding_window_view: sliding_window_view}
# NumPy 2's array-API functions, where this NumPy has them.
for _fn, _written in ((getattr(np.linalg, "vector_norm", None), vector_norm),
                      (getattr(np.linalg, "matrix_norm", None), matrix_norm),
                      (getattr(np.linalg, "vecdot", None), vecdot),
                      (getattr(np, "vecdot", None), vecdot_ufunc),
                      (getattr(np, "matvec", None), matvec),
                      (getattr(np, "vecmat", None), vecmat),
                      (getattr(np.linalg, "trace", None), linalg_trace),
                      (getattr(np.linalg, "diagonal", None), linalg_diagonal),
                      (getattr(np.linalg, "cross", None), linalg_cross),
                      (getattr(np.linalg, "outer", None), linalg_outer)):
    if _fn is not None:
        _REWRITES[_fn] = _written
# ``np.var`` and ``np.std`` called with ``mean=`` or ``correction=``.
_WITH_MEAN = {np.var: var_given, np.std: std_given}


def _with_special(special):
    """scipy.special's ``entr``, written out: added when a program has imported it
    (``rules/optional.py``; ``betaln`` has a rule, rules/special.py)."""
    _REWRITES[special.entr] = entr


def _with_stats(scipy_stats):
    """``multivariate_normal.entropy``, written out in ``rules/stats.py``."""
    _REWRITES[scipy_stats.multivariate_normal.entropy] = stats.mvn_entropy


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.special": _with_special, "scipy.stats": _with_stats}

# The families whose functions are written out (rules/<family>.py).
from . import (builders, iteration, nan_reductions, picking,  # noqa: E402
               polynomial_arithmetic, scipy_linalg, selection, sequences, stats, transforms)


def build():
    """The lookups ``rewrite`` reads, from this module's entries and the families': at
    import, and again when SciPy's entries are added (``rules/optional.py``)."""
    global REWRITES, WITH_OPTIONS, WITH_WHERE, WITH_MEAN
    rewrites = dict(_REWRITES)
    for family in (scipy_linalg, transforms, nan_reductions, builders, polynomial_arithmetic,
                   picking, iteration):
        rewrites.update(family.REWRITES)
    # Functions with a rule, written out when called with one of some options.
    WITH_OPTIONS = {**transforms.WITH_OPTIONS, **sequences.WITH_OPTIONS,
                    **selection.WITH_OPTIONS, **iteration.WITH_OPTIONS}
    WITH_WHERE = {**_WITH_WHERE, **nan_reductions.WITH_WHERE}
    WITH_MEAN = {**_WITH_MEAN, **nan_reductions.WITH_MEAN}
    REWRITES = rewrites


build()
# How many arguments a reduction takes before ``initial``, which it may be given by
# position (``np.max(x, 1, None, False, 0.0)``): more of them call ``WITH_WHERE``'s.
BEFORE_INITIAL = {np.sum: 5, np.prod: 5, np.max: 4, np.amax: 4, np.min: 4, np.amin: 4}


def is_iterator(fn):
    """Is ``fn`` an iterator written out as the list of what it gives?"""
    try:
        return fn in iteration.ITERATORS
    except TypeError:  # an unhashable callable
        return False


def rewrite(fn, keywords=(), positional=0):
    """The Python function written for ``fn`` (called with ``keywords`` and ``positional``
    arguments, the receiver of a method counted), or None."""
    try:
        # (A function written out whatever its options, ``accumulate(xs, initial=x)``,
        # takes them itself.)
        if ("mean" in keywords or "correction" in keywords) \
                and (fn in WITH_MEAN or fn not in REWRITES):
            return WITH_MEAN.get(fn)
        if ("where" in keywords or "initial" in keywords
                or positional > BEFORE_INITIAL.get(fn, positional)) \
                and (fn in WITH_WHERE or fn not in REWRITES):
            return WITH_WHERE.get(fn)
        extreme = iteration.EXTREMES.get(fn)
        if extreme is not None:
            if not {"key", "default"} & set(keywords):
                return None
            return extreme[0].get(positional, extreme[1])
        optional = WITH_OPTIONS.get(fn)
        if optional is not None:
            written, options, before = optional
            return written if positional > before or set(options) & set(keywords) else None
        return REWRITES.get(fn)
    except TypeError:  # an unhashable callable
        return None
