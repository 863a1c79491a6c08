"""The one derivative table: every primitive's entry, and how Python syntax maps onto them.

``PRIMITIVES`` merges the families (``elementwise``, ``reductions``,
``products``, ``linalg``, ``shapes``, ``python``); ``TABLE`` adds the rules of
srcgrad's own helpers (``helpers``), and is the one lookup the passes use.
Python operators, ndarray methods and attributes are differentiated through
the entry of the function they stand for (``OPERATORS``, ``METHODS``,
``ATTRIBUTES``). ``NONDIFF`` lists what is called freely and never
differentiated; a call with neither a rule nor a place there is a
``CompileError`` naming the user's line.
"""
import builtins
import contextlib
import logging
import math
import types
import warnings

import numpy as np

from ..runtime import adjoints as _h
from . import complexes, convolutions, decompositions, elementwise, fft, helpers, layout, linalg, \
    moments, order_stats, polynomials, products, python, reductions, selection, sequences, shapes, \
    special, stats, ufuncs
from . import integration, nan_reductions, scipy_linalg, transforms

_FAMILIES = (layout, selection, sequences, decompositions, special, complexes, fft, stats,
             convolutions, ufuncs, polynomials, order_stats, moments, integration,
             scipy_linalg, transforms, nan_reductions)
POWER_CONSTANT_EXPONENT = elementwise.POWER_CONSTANT_EXPONENT
POWER_BELOW_ONE = elementwise.POWER_BELOW_ONE

# Python operators -> the primitive whose rule they use (or a NONDIFF function).
OPERATORS = {
    "Add": np.add, "Sub": np.subtract, "Mult": np.multiply, "Div": np.true_divide,
    "Pow": np.power, "MatMult": np.matmul, "Mod": np.mod, "FloorDiv": np.floor_divide,
    "USub": np.negative, "UAdd": np.positive, "Invert": np.invert,
    "Eq": np.equal, "NotEq": np.not_equal, "Lt": np.less, "LtE": np.less_equal,
    "Gt": np.greater, "GtE": np.greater_equal,
}

# ndarray methods -> (function, how the receiver and arguments map onto it).
# "plain": x.m(*args, **kw) == f(x, *args, **kw)
# "shape": x.m(*dims) == f(x, dims) where dims may be given unpacked (reshape, transpose)
_METHODS = {
    "sum": (np.sum, "plain"),
    "mean": (np.mean, "plain"),
    "prod": (np.prod, "plain"),
    "max": (np.max, "plain"),
    "min": (np.min, "plain"),
    "var": (np.var, "plain"),
    "std": (np.std, "plain"),
    "cumsum": (np.cumsum, "plain"),
    "trace": (np.trace, "plain"),
    "reshape": (np.reshape, "shape"),
    "transpose": (np.transpose, "shape"),
    "swapaxes": (np.swapaxes, "plain"),
    "squeeze": (np.squeeze, "plain"),
    "ravel": (np.ravel, "plain"),
    "flatten": (_h.flatten, "plain"),
    "copy": (np.copy, "plain"),
    "dot": (np.dot, "plain"),
    "clip": (np.clip, "plain"),
    "astype": (_h.astype, "plain"),
    "item": (_h.item, "plain"),
    # non-differentiable
    "argmax": (np.argmax, "plain"),
    "argmin": (np.argmin, "plain"),
    "argsort": (np.argsort, "plain"),
    "nonzero": (np.nonzero, "plain"),
    "round": (np.round, "plain"),
    "all": (np.all, "plain"),
    "any": (np.any, "plain"),
}

# Attributes of arrays: differentiable ones map to a function of the array.
_ATTRIBUTES = {"T": np.transpose, "mT": np.matrix_transpose}

# Called freely, never differentiated: their results carry no gradient
# (integer/boolean-valued, piecewise constant, shape queries, constructors of constants).
_NONDIFF = {
    # shapes, types, printing and logging
    np.shape, np.ndim, np.size, len, range, int, bool, str, isinstance, type, print,
    logging.debug, logging.info, logging.warning, logging.error, logging.critical,
    logging.exception, logging.log, warnings.warn,
    # (and a logger's: ``log.info("loss %s", loss)``, looked up by the method's function)
    logging.Logger.debug, logging.Logger.info, logging.Logger.warning, logging.Logger.error,
    logging.Logger.critical, logging.Logger.exception, logging.Logger.log,
    logging.LoggerAdapter.debug, logging.LoggerAdapter.info, logging.LoggerAdapter.warning,
    logging.LoggerAdapter.error, logging.LoggerAdapter.critical,
    logging.LoggerAdapter.exception, logging.LoggerAdapter.log,
    np.result_type, np.issubdtype, np.broadcast_shapes, np.iinfo, np.finfo,
    # constants of a given shape
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
    np.eye, np.identity, np.tri, np.indices,  # (np.arange: rewrites.py)
    # integer-valued and piecewise-constant functions
    np.argmax, np.argmin, np.argsort, np.argwhere, np.nonzero, np.flatnonzero,
    np.searchsorted, np.digitize, np.lexsort, np.ravel_multi_index, np.unravel_index,
    np.tril_indices, np.triu_indices, np.diag_indices, np.tril_indices_from,
    np.triu_indices_from, np.diag_indices_from, np.mask_indices, np.ix_, np.can_cast,
    np.gcd, np.lcm, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift,
    np.right_shift,
    np.count_nonzero, np.sign, np.heaviside, np.floor, np.ceil,
    np.round, np.around, np.rint, np.trunc, np.fix, np.floor_divide, builtins.round,
    math.floor, math.ceil, math.trunc, math.factorial, math.comb,
    # predicates and logic
    np.isfinite, np.isnan, np.isinf, np.signbit, np.isclose, np.allclose, np.array_equal, np.iscomplexobj,
    np.isposinf, np.isneginf, np.isin, np.array_equiv, np.isscalar, np.isfortran,
    np.may_share_memory, np.shares_memory,
    np.isrealobj, np.iscomplex, np.isreal,
    np.all, np.any, np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.invert, np.equal, np.not_equal, np.less, np.less_equal, np.greater,
    np.greater_equal, math.isfinite, math.isnan, math.isinf, math.isclose,
    # random numbers (RANDOM below)
    # planning helpers in runtime/adjoints.py
    _h.einsum_slot_plan, _h.dot_subscripts, _h.inner_subscripts, _h.tensordot_subscripts,
    _h.inverse_axes, _h.concat_offsets, _h.inexact, _h.flat_scalars, _h.reduced_size,
    _h.axis_slice, _h.norm_plan, _h.linspace_weights, _h.survivors, _h.memory_order,
    _h.item_mask, _h.shape_of, _h.einsum_subscripts, _h.einsum_sublists,
    _h.not_differentiable,
}
# Functions called freely, as those above, where no argument is differentiable; written
# out where one is (``np.arange``'s start and step: rewrites.arange).
CONSTANT_UNLESS_VARIED = frozenset({np.arange})
# Random draws: no gradient, and a different value each call (a tape block that
# must run again cannot hold one, passes/repeatable.py).
RANDOM = frozenset({np.random.seed, np.random.rand, np.random.randn, np.random.random,
                    np.random.random_sample, np.random.randint, np.random.standard_normal,
                    np.random.default_rng})
_NONDIFF |= RANDOM
# NumPy's integer and boolean types called as casts (``np.int64(x)``): integer-valued.
_NONDIFF |= {t for t in set(np.sctypeDict.values()) if issubclass(t, (np.integer, np.bool_))}
# Context managers that change only how events are reported (passes/contexts.py runs
# their blocks as written; running them again repeats nothing: passes/repeatable.py).
REPORTING_CONTEXTS = (np.errstate, warnings.catch_warnings, np.printoptions,
                      contextlib.nullcontext)
# Attributes of arrays that carry no gradient.
NONDIFF_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides"}

# What may return a view of its first argument, for the alias analysis: the
# entries marked ``view``, functions without a rule that return views, the
# methods and attributes standing for view entries, and ``x.view()``/``x.real``.
_VIEWS_WITHOUT_RULE = ()  # (diagonal, atleast_*, real have rules marked as views now)
# ... and what may hand back its argument itself, by name: NumPy's ``as*array``s and
# ``require`` (no copy where none is needed), ``np.float64`` of a float64 array,
# ``matrix_power(a, 1)``, ``stop_gradient``, ``next(iter(x))`` (a row); hunt 5 A1.
_MAY_RETURN_THE_ARGUMENT = {"asanyarray", "ascontiguousarray", "asfortranarray",
                            "asarray_chkfinite", "require", "float64", "matrix_power",
                            "stop_gradient", "next"}


def build():
    """The tables the passes read, from this module's entries and the families': at
    import, and again when SciPy's entries are added (``rules/optional.py``)."""
    global PRIMITIVES, TABLE, METHODS, ATTRIBUTES, NONDIFF, _ALL_NONDIFF
    global VIEW_FUNCTIONS, VIEW_METHODS, VIEW_ATTRIBUTES
    primitives = {**elementwise.TABLE, **reductions.TABLE, **products.TABLE, **linalg.TABLE,
                  **shapes.TABLE, **python.TABLE}
    methods, attributes, nondiff = dict(_METHODS), dict(_ATTRIBUTES), set(_NONDIFF)
    for family in _FAMILIES:
        primitives.update(family.TABLE)
        methods.update(family.METHODS)
        attributes.update(family.ATTRIBUTES)
        nondiff |= family.NONDIFF
    entries = {**primitives, **helpers.TABLE}
    VIEW_FUNCTIONS = frozenset({fn.__name__ for fn, r in primitives.items() if r.view}
                               | {fn.__name__ for fn in _VIEWS_WITHOUT_RULE}
                               | _MAY_RETURN_THE_ARGUMENT)
    VIEW_METHODS = frozenset({m for m, (fn, _) in methods.items()
                              if fn in entries and entries[fn].view} | {"view"})
    VIEW_ATTRIBUTES = frozenset({a for a, fn in attributes.items() if entries[fn].view}
                                | {"real"})
    _ALL_NONDIFF = frozenset(nondiff) | frozenset(helpers.NONDIFF)
    PRIMITIVES, TABLE, METHODS, ATTRIBUTES, NONDIFF = \
        primitives, entries, methods, attributes, nondiff


build()


# NumPy's named results of the functions with rules: a field read is the item at its
# position (``np.linalg.svd(a).S`` is ``[1]``), checked when the code runs.
RESULT_FIELDS = {
    np.linalg.eigh: ("eigenvalues", "eigenvectors"), np.linalg.eig: ("eigenvalues", "eigenvectors"),
    np.linalg.svd: ("U", "S", "Vh"), np.linalg.qr: ("Q", "R"),
    np.linalg.slogdet: ("sign", "logabsdet"),
}

def rule(obj):
    try:
        return TABLE.get(obj)
    except TypeError:  # unhashable callables have no rule
        return None


def nondiff(obj):
    try:
        # (A statement of a tape block run as written, passes/as_written.py.)
        return obj in _ALL_NONDIFF or type(obj) is types.FunctionType \
            and getattr(obj, "__srcgrad_as_written__", False) \
            or type(obj) is types.MethodType and obj.__func__ in _ALL_NONDIFF
    except TypeError:
        return False
