"""The derivative table: one entry per NumPy/math/builtin primitive.

Each entry is a ``Rule`` (see ``rules.py`` for the full contract). In a grad
expression these names are in scope:

    g      the adjoint of the primitive's result
    ans    the primitive's result
    <p>    each parameter ``p`` of the rule's signature, bound to the call's argument
           (a ``*p`` parameter is bound to one Python list; its grad is a list too)
    np     numpy          math   the math module
    _sg    srcgrad.runtime (core helpers + adjoint_helpers)

Python operators are differentiated through the ufunc they stand for
(``a + b`` uses the entry of ``np.add``): see ``OPERATORS``.

Conventions, chosen once here:

- Non-smooth points get a subgradient: ``abs``/``sign`` give 0 at 0; ties of
  ``maximum``/``minimum`` split the gradient in halves, ties of ``max``/``min``
  reductions share it equally; the builtin ``max``/``min`` give it all to the
  first extreme argument (the one Python returns); ``clip`` passes the gradient
  at the bounds.
- ``x1 ** x2``: the adjoint of ``x2`` uses ``log(x1)`` where ``x1 > 0`` and is 0
  where ``x1 <= 0`` (TensorFlow's choice: ``x1 ** x2`` is not differentiable in
  ``x2`` for a negative base, and its limit at 0 is 0 for ``x2 > 0``). The
  adjoint of ``x1`` is 0 at ``x1 == x2 == 0``, never ``0 * inf``; the guard is
  that narrow so that second derivatives stay exact at ``x2 == 0``.
- ``prod`` is exact with zeros (see ``adjoint_helpers.prod_grad``).
- A cast to a non-floating dtype (``astype(int)``, ``np.array(x, dtype=int)``)
  has a zero adjoint.
"""
import builtins
import math

import numpy as np

from . import adjoint_helpers as _h
from .rules import Rule

_REDUCE = "a, axis=None, dtype=None, out=None, keepdims=False"
_EXTREME = "a, axis=None, out=None, keepdims=False"
_VAR = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
_CLIP = "a, a_min=None, a_max=None, out=None, *, min=None, max=None"
_CONCAT = "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'"
_STACK_HV = "tup, *, dtype=None, casting='same_kind'"
_ARRAY = "object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0, like=None"
_ASARRAY = "a, dtype=None, order=None, *, device=None, copy=None, like=None"


def _unary(**grads):
    return Rule("x", **grads)


def _binary(**grads):
    return Rule("x1, x2", broadcast=True, **grads)


def _power(base, exp):
    """Grads of ``base ** exp`` for the given parameter names (see the conventions above)."""
    return {
        base: f"g * {exp} * {base} ** np.where(np.logical_and({exp} == 0, {base} == 0), 1.0, "
              f"{exp} - 1)",
        exp: f"g * ans * np.log(np.where({base} > 0, {base}, 1.0))",
    }


_MAXIMUM = dict(
    x1="g * np.where(x1 > x2, 1.0, np.where(x1 == x2, 0.5, 0.0))",
    x2="g * np.where(x2 > x1, 1.0, np.where(x1 == x2, 0.5, 0.0))",
)
_MINIMUM = dict(
    x1="g * np.where(x1 < x2, 1.0, np.where(x1 == x2, 0.5, 0.0))",
    x2="g * np.where(x2 < x1, 1.0, np.where(x1 == x2, 0.5, 0.0))",
)
_INNER = "_sg.einsum_slot_grad(g, _sg.inner_subscripts(np.ndim(a), np.ndim(b)), [a, b], {})"
_TENSORDOT = ("_sg.einsum_slot_grad(g, _sg.tensordot_subscripts(np.ndim(a), np.ndim(b), axes), "
              "[a, b], {})")
_DEG = "g * (180.0 / np.pi)"
_RAD = "g * (np.pi / 180.0)"

TABLE = {
    # ---- elementwise, one argument
    np.negative: _unary(x="-g"),
    np.positive: _unary(x="g"),
    np.square: _unary(x="2.0 * g * x"),
    np.sqrt: _unary(x="g * 0.5 / ans"),
    np.cbrt: _unary(x="g / (3.0 * ans * ans)"),
    np.exp: _unary(x="g * ans"),
    np.exp2: _unary(x="g * ans * np.log(2.0)"),
    np.expm1: _unary(x="g * (ans + 1.0)"),
    np.log: _unary(x="g / x"),
    np.log1p: _unary(x="g / (1.0 + x)"),
    np.log2: _unary(x="g / (x * np.log(2.0))"),
    np.log10: _unary(x="g / (x * np.log(10.0))"),
    np.sin: _unary(x="g * np.cos(x)"),
    np.cos: _unary(x="-g * np.sin(x)"),
    np.tan: _unary(x="g * (1.0 + ans * ans)"),
    np.arcsin: _unary(x="g / np.sqrt(1.0 - x * x)"),
    np.arccos: _unary(x="-g / np.sqrt(1.0 - x * x)"),
    np.arctan: _unary(x="g / (1.0 + x * x)"),
    np.sinh: _unary(x="g * np.cosh(x)"),
    np.cosh: _unary(x="g * np.sinh(x)"),
    np.tanh: _unary(x="g * (1.0 - ans * ans)"),
    np.arcsinh: _unary(x="g / np.sqrt(x * x + 1.0)"),
    np.arccosh: _unary(x="g / np.sqrt(x * x - 1.0)"),
    np.arctanh: _unary(x="g / (1.0 - x * x)"),
    np.absolute: _unary(x="g * np.sign(x)"),
    np.fabs: _unary(x="g * np.sign(x)"),
    np.reciprocal: _unary(x="-g * ans * ans"),
    np.deg2rad: _unary(x=_RAD),
    np.radians: _unary(x=_RAD),
    np.rad2deg: _unary(x=_DEG),
    np.degrees: _unary(x=_DEG),
    # ---- elementwise, two arguments (broadcasting)
    np.add: _binary(x1="g", x2="g"),
    np.subtract: _binary(x1="g", x2="-g"),
    np.multiply: _binary(x1="g * x2", x2="g * x1"),
    np.true_divide: _binary(x1="g / x2", x2="-g * x1 / (x2 * x2)"),
    np.power: _binary(**_power("x1", "x2")),
    np.float_power: _binary(**_power("x1", "x2")),
    np.maximum: _binary(**_MAXIMUM),
    np.fmax: _binary(**_MAXIMUM),
    np.minimum: _binary(**_MINIMUM),
    np.fmin: _binary(**_MINIMUM),
    np.arctan2: _binary(x1="g * x2 / (x1 * x1 + x2 * x2)", x2="-g * x1 / (x1 * x1 + x2 * x2)"),
    np.hypot: _binary(x1="g * x1 / ans", x2="g * x2 / ans"),
    np.logaddexp: _binary(x1="g * _sg.sigmoid(x1, x2)", x2="g * _sg.sigmoid(x2, x1)"),
    np.logaddexp2: _binary(x1="g * np.exp2(x1 - ans)", x2="g * np.exp2(x2 - ans)"),
    np.mod: _binary(x1="g", x2="-g * np.floor_divide(x1, x2)"),
    np.fmod: _binary(x1="g", x2="-g * np.trunc(x1 / x2)"),
    np.clip: Rule(_CLIP, broadcast=True,
                  a="_sg.clip_grad(g, a, a_min, a_max, min, max)",
                  a_min="g * np.where(a < a_min, 1.0, 0.0)",
                  a_max="g * np.where(a > a_max, 1.0, 0.0)",
                  min="g * np.where(a < min, 1.0, 0.0)",
                  max="g * np.where(a > max, 1.0, 0.0)"),
    np.where: Rule("condition, x, y", broadcast=True,
                   x="np.where(condition, g, 0.0)", y="np.where(condition, 0.0, g)"),
    # ---- reductions
    np.sum: Rule(_REDUCE, a="_sg.sum_grad(g, a, axis, keepdims)"),
    np.mean: Rule(_REDUCE, a="_sg.mean_grad(g, a, axis, keepdims)"),
    np.prod: Rule(_REDUCE, a="_sg.prod_grad(g, a, axis, keepdims)"),
    np.max: Rule(_EXTREME, a="_sg.extreme_grad(g, ans, a, axis, keepdims)"),
    np.amax: Rule(_EXTREME, a="_sg.extreme_grad(g, ans, a, axis, keepdims)"),
    np.min: Rule(_EXTREME, a="_sg.extreme_grad(g, ans, a, axis, keepdims)"),
    np.amin: Rule(_EXTREME, a="_sg.extreme_grad(g, ans, a, axis, keepdims)"),
    np.var: Rule(_VAR, a="_sg.var_grad(g, a, axis, ddof, keepdims)"),
    np.std: Rule(_VAR, a="_sg.var_grad(g / (2.0 * ans), a, axis, ddof, keepdims)"),
    np.cumsum: Rule("a, axis=None, dtype=None, out=None", a="_sg.cumsum_grad(g, a, axis)"),
    np.trace: Rule("a, offset=0, axis1=0, axis2=1, dtype=None, out=None",
                   a="_sg.trace_grad(g, a, offset, axis1, axis2)"),
    # ---- products
    np.matmul: Rule("x1, x2", broadcast=True,
                    x1="_sg.matmul_grad_x1(g, x1, x2)", x2="_sg.matmul_grad_x2(g, x1, x2)"),
    np.dot: Rule("a, b, out=None", broadcast=True,
                 a="_sg.dot_grad(g, a, b, 0)", b="_sg.dot_grad(g, a, b, 1)"),
    np.outer: Rule("a, b, out=None",
                   a="_sg.reshape_like(np.matmul(g, np.ravel(b)), a)",
                   b="_sg.reshape_like(np.matmul(np.ravel(a), g), b)"),
    np.inner: Rule("a, b", a=_INNER.format(0), b=_INNER.format(1)),
    np.tensordot: Rule("a, b, axes=2", a=_TENSORDOT.format(0), b=_TENSORDOT.format(1)),
    np.einsum: Rule("subscripts, *operands, out=None, dtype=None, order='K', casting='safe', "
                    "optimize=False",
                    operands="_sg.einsum_grad(g, subscripts, operands)"),
    _h.broadcast_to: Rule("array, shape", array="_sg.sum_to(g, array)"),
    _h.add_reduce: Rule("a, axis, keepdims", a="_sg.sum_grad(g, a, axis, keepdims)"),
    _h.sigmoid: Rule("a, b", broadcast=True,
                     a="g * ans * (1.0 - ans)", b="-g * ans * (1.0 - ans)"),
    _h.einsum_list: Rule("subscripts, operands",
                         operands="_sg.einsum_grad(g, subscripts, operands)"),
    # ---- linear algebra
    np.linalg.solve: Rule("a, b", broadcast=True,
                          a="_sg.solve_grad_a(g, ans, a, b)", b="_sg.solve_grad_b(g, a, b)"),
    np.linalg.inv: Rule("a", a="-np.matmul(np.swapaxes(ans, -1, -2), "
                               "np.matmul(g, np.swapaxes(ans, -1, -2)))"),
    np.linalg.det: Rule("a", a="_sg.det_grad(g, ans, a)"),
    np.linalg.norm: Rule("x, ord=None, axis=None, keepdims=False",
                         x="_sg.norm_grad(g, ans, x, ord, axis, keepdims)"),
    # ---- shape
    np.reshape: Rule("a, shape=None, order='C', *, copy=None",
                     a="np.reshape(g, np.shape(a), order=order)"),
    np.ravel: Rule("a, order='C'", a="np.reshape(g, np.shape(a), order=order)"),
    _h.flatten: Rule("a, order='C'", a="np.reshape(g, np.shape(a), order=order)"),
    np.transpose: Rule("a, axes=None", a="_sg.transpose_grad(g, axes)"),
    np.matrix_transpose: Rule("x", x="np.matrix_transpose(g)"),
    np.linalg.matrix_transpose: Rule("x", x="np.matrix_transpose(g)"),
    np.swapaxes: Rule("a, axis1, axis2", a="np.swapaxes(g, axis1, axis2)"),
    np.moveaxis: Rule("a, source, destination", a="np.moveaxis(g, destination, source)"),
    np.expand_dims: Rule("a, axis", a="np.reshape(g, np.shape(a))"),
    np.squeeze: Rule("a, axis=None", a="np.reshape(g, np.shape(a))"),
    np.broadcast_to: Rule("array, shape, subok=False", array="_sg.sum_to(g, array)"),
    np.flip: Rule("m, axis=None", m="np.flip(g, axis)"),
    np.triu: Rule("m, k=0", m="np.triu(g, k)"),
    np.tril: Rule("m, k=0", m="np.tril(g, k)"),
    np.concatenate: Rule(_CONCAT, arrays="_sg.split_grad(g, arrays, axis, 'concatenate')"),
    np.hstack: Rule(_STACK_HV, tup="_sg.split_grad(g, tup, None, 'hstack')"),
    np.vstack: Rule(_STACK_HV, tup="_sg.split_grad(g, tup, None, 'vstack')"),
    np.stack: Rule("arrays, axis=0, out=None, *, dtype=None, casting='same_kind'",
                   arrays="_sg.stack_grad(g, arrays, axis)"),
    # ---- copies, conversions, constructors
    np.copy: Rule("a, order='K', subok=False", a="g"),
    np.array: Rule(_ARRAY, object="_sg.array_grad(_sg.real_grad(g, ans), object)"),
    np.asarray: Rule(_ASARRAY, a="_sg.array_grad(_sg.real_grad(g, ans), a)"),
    _h.astype: Rule("a, dtype, order='K', casting='unsafe', subok=True, copy=True",
                    a="_sg.reshape_like(_sg.real_grad(g, ans), a)"),
    _h.item: Rule("a", a="_sg.reshape_like(g, a)"),
    np.float64: Rule("x=0.0", x="_sg.reshape_like(g, x)"),
    np.full: Rule("shape, fill_value, dtype=None, order='C', *, device=None, like=None",
                  fill_value="_sg.sum_to(_sg.real_grad(g, ans), fill_value)"),
    np.full_like: Rule("a, fill_value, dtype=None, order='K', subok=True, shape=None, *, "
                       "device=None",
                       fill_value="_sg.sum_to(_sg.real_grad(g, ans), fill_value)"),
    np.linspace: Rule("start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, "
                      "device=None",
                      start="_sg.linspace_grad(g, start, num, endpoint, axis, 0)",
                      stop="_sg.linspace_grad(g, stop, num, endpoint, axis, 1)"),
    # ---- math module (Python floats)
    math.sin: _unary(x="g * math.cos(x)"),
    math.cos: _unary(x="-g * math.sin(x)"),
    math.tan: _unary(x="g * (1.0 + ans * ans)"),
    math.asin: _unary(x="g / math.sqrt(1.0 - x * x)"),
    math.acos: _unary(x="-g / math.sqrt(1.0 - x * x)"),
    math.atan: _unary(x="g / (1.0 + x * x)"),
    math.sinh: _unary(x="g * math.cosh(x)"),
    math.cosh: _unary(x="g * math.sinh(x)"),
    math.tanh: _unary(x="g * (1.0 - ans * ans)"),
    math.asinh: _unary(x="g / math.sqrt(x * x + 1.0)"),
    math.acosh: _unary(x="g / math.sqrt(x * x - 1.0)"),
    math.atanh: _unary(x="g / (1.0 - x * x)"),
    math.exp: _unary(x="g * ans"),
    math.exp2: _unary(x="g * ans * math.log(2.0)"),
    math.expm1: _unary(x="g * (ans + 1.0)"),
    math.log: Rule("x, base=None", x="_sg.log_grad(g, x, base)",
                   base="-g * ans / (base * math.log(base))"),
    math.log2: _unary(x="g / (x * math.log(2.0))"),
    math.log10: _unary(x="g / (x * math.log(10.0))"),
    math.log1p: _unary(x="g / (1.0 + x)"),
    math.sqrt: _unary(x="g * 0.5 / ans"),
    math.cbrt: _unary(x="g / (3.0 * ans * ans)"),
    math.fabs: _unary(x="g * np.sign(x)"),
    math.erf: _unary(x="g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)"),
    math.erfc: _unary(x="-g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)"),
    math.degrees: _unary(x=_DEG),
    math.radians: _unary(x=_RAD),
    math.atan2: Rule("y, x", y="g * x / (x * x + y * y)", x="-g * y / (x * x + y * y)"),
    math.pow: Rule("x, y", **_power("x", "y")),
    math.hypot: Rule("*coordinates", coordinates="_sg.hypot_grad(g, ans, coordinates)"),
    math.fsum: Rule("seq", seq="_sg.builtin_sum_grad(g, seq)"),
    # ---- Python builtins
    builtins.abs: _unary(x="g * np.sign(x)"),
    builtins.float: Rule("x=0.0", x="_sg.reshape_like(g, x)"),
    builtins.pow: Rule("base, exp, mod=None", broadcast=True, **_power("base", "exp")),
    builtins.sum: Rule("iterable, start=0", iterable="_sg.builtin_sum_grad(g, iterable)",
                       start="_sg.sum_to(g, start)"),
    builtins.max: Rule("*args", args="_sg.builtin_max_grad(g, args)"),
    builtins.min: Rule("*args", args="_sg.builtin_min_grad(g, args)"),
}

# ``x ** c`` for a number c != 0 known at compile time: the general rule's
# guards for a zero base and the exponent's own adjoint are not needed.
POWER_CONSTANT_EXPONENT = Rule("x1, x2", broadcast=True, x1="g * x2 * x1 ** (x2 - 1)")



def _products_by_rank(p1, p2):
    return {
        (2, 2): {p1: f"g @ {p2}.T", p2: f"{p1}.T @ g"},
        (2, 1): {p1: f"np.outer(g, {p2})", p2: f"g @ {p1}"},
        (1, 2): {p1: f"{p2} @ g", p2: f"np.outer({p1}, g)"},
        (1, 1): {p1: f"g * {p2}", p2: f"g * {p1}"},
    }


# Products whose operands' ranks are known at compile time (transforms/ranks.py):
# primitive -> {(rank of first operand, rank of second): {parameter: grad}}.
# Each grad already has its operand's shape (matrices and vectors do not
# broadcast in a product), so it needs no helper and no ``_sg.unbroadcast``:
# the adjoint a careful person writes by hand.
BY_RANK = {np.matmul: _products_by_rank("x1", "x2"), np.dot: _products_by_rank("a", "b")}


def _products_by_rank_rows(p1, p2):
    return {
        (2, 2): {p1: f"g @ {p2}.T", p2: f"{p1}.T @ g"},
        (2, 1): {p1: f"np.expand_dims(g, -1) * {p2}", p2: f"g @ {p1}"},
        (1, 2): {p1: f"g @ {p2}.T", p2: f"np.expand_dims({p1}, -1) * np.expand_dims(g, -2)"},
        (1, 1): {p1: f"np.expand_dims(g, -1) * {p2}", p2: f"np.expand_dims(g, -1) * {p1}"},
    }


# The same for adjoints with a leading axis of seed rows (``tape.jacobian``,
# see batch_rules.py): written so that ``g``'s extra leading axis broadcasts.
BY_RANK_ROWS = {np.matmul: _products_by_rank_rows("x1", "x2"),
                np.dot: _products_by_rank_rows("a", "b")}

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
METHODS = {
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
ATTRIBUTES = {"T": np.transpose, "mT": np.matrix_transpose}

# Called freely, never differentiated: their results carry no gradient
# (integer/boolean-valued, piecewise constant, shape queries, constructors of constants).
NONDIFF = {
    # shapes, types, printing
    np.shape, np.ndim, np.size, len, range, int, bool, str, isinstance, type, print,
    np.result_type, np.issubdtype, np.broadcast_shapes, np.iinfo, np.finfo,
    # constants of a given shape
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
    np.arange, np.eye, np.identity, np.tri, np.indices,
    # integer-valued and piecewise-constant functions
    np.argmax, np.argmin, np.argsort, np.argwhere, np.nonzero, np.flatnonzero,
    np.searchsorted, np.count_nonzero, np.sign, np.heaviside, np.floor, np.ceil,
    np.round, np.around, np.rint, np.trunc, np.fix, np.floor_divide, builtins.round,
    math.floor, math.ceil, math.trunc, math.factorial, math.comb,
    # predicates and logic
    np.isfinite, np.isnan, np.isinf, np.isclose, np.allclose, np.array_equal,
    np.all, np.any, np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.invert, np.equal, np.not_equal, np.less, np.less_equal, np.greater,
    np.greater_equal, math.isfinite, math.isnan, math.isinf, math.isclose,
    # random numbers
    np.random.seed, np.random.rand, np.random.randn, np.random.random,
    np.random.random_sample, np.random.randint, np.random.standard_normal,
    np.random.default_rng,
    # planning helpers in adjoint_helpers
    _h.einsum_slot_plan, _h.dot_subscripts, _h.inner_subscripts, _h.tensordot_subscripts,
    _h.inverse_axes, _h.concat_offsets, _h.inexact, _h.flat_scalars, _h.reduced_size,
    _h.axis_slice, _h.norm_plan, _h.linspace_weights,
    _h.not_differentiable,
}
# Attributes of arrays that carry no gradient.
NONDIFF_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides"}
