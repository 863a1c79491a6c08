"""Which rules hold for complex values, and how: code that may compute with complex
numbers is compiled with these forms (``passes/reverse.py``, ``Reverse.complex``).

The convention is TensorFlow's (``runtime/complexes.py``): C is R^2 and the
adjoint of ``z = x + iy`` is ``dL/dx + i dL/dy``. Under it, a rule written for
real values is right for complex ones in one of three ways:

- ``AS_IS``: the real formula already is the R^2 adjoint. Linear maps with
  real coefficients (sums, reshapes, indexing, FFTs), and ``abs``/``var``/``norm``,
  whose gradient in R^2 is ``z / |z|`` and ``2 (z - mean)`` as written.
- ``HOLOMORPHIC``: for ``w = f(z)`` holomorphic the adjoint is
  ``g * conj(f'(z))``; every rule here is ``g`` times an expression in the
  primal values with real coefficients, so conjugating those values
  (``_sg.conj``) conjugates the derivative. Products are holomorphic in each
  operand.
- ``EXPLICIT``: the complex forms written out (``real``, ``imag``, ``conj``,
  ``angle``, the general power).

Everything else is for real values only: in code compiled for complex values
its adjoint checks, when it runs, that the input was real
(``_sg.real_rule``), and a complex one is refused, never guessed.
"""
import builtins

import numpy as np

from ..runtime import adjoints as _h
from ..runtime import complexes as _rt
from . import fft, helpers, polynomials, special
from .entry import Rule
from .elementwise import POWER_BELOW_ONE, POWER_CONSTANT_EXPONENT

# Linear maps with real coefficients (forward mode applies them to tangents too:
# rules/tangents.py).
LINEAR = frozenset({
    np.negative, np.positive, np.add, np.subtract, np.where,
    np.sum, np.mean, np.cumsum, np.trace, _h.add_reduce,
    np.reshape, np.ravel, _h.flatten, np.transpose, np.matrix_transpose, np.swapaxes,
    np.moveaxis, np.expand_dims, np.squeeze, np.broadcast_to, np.flip, np.triu, np.tril,
    np.concatenate, np.hstack, np.vstack, _h.join_r, _h.join_c, np.stack, np.copy,
    np.array, np.asarray, _h.arrayed, _h.item, np.full, np.full_like,
    np.repeat, np.tile, np.roll, np.split, np.array_split, np.hsplit, np.vsplit,
    np.dsplit, np.diag, np.diagonal, np.atleast_1d, np.atleast_2d, np.atleast_3d,
    np.flipud, np.fliplr, np.rot90, np.rollaxis, np.column_stack, np.dstack, np.append,
    np.take, np.take_along_axis, np.diff, np.gradient, np.pad, _h.broadcast_to, builtins.sum,
}) | frozenset(fft.TABLE)  # their helpers give real inputs real adjoints

AS_IS = LINEAR | {
    _h.astype,  # (a cast: real_grad passes the adjoint, fitted to the input's dtype)
    np.var, np.std,
    np.linalg.eigvals, np.linalg.eig, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd,
    # (their helpers are written in the convention: runtime/decompositions.py; eigh and
    # svd refuse a loss that depends on the phases of complex vectors)
    np.linalg.norm,  # (abs and sign of complex values: z/|z|, their gradient in C as R^2)
    np.vdot,  # (its rule is written in the convention: rules/products.py)
    # (runtime/decompositions.py: conjugate transposes; issue 13)
    np.linalg.pinv, np.linalg.qr, np.linalg.cholesky, np.linalg.lstsq,
}

_HOLOMORPHIC = frozenset({
    np.square, np.sqrt, np.exp, np.exp2, np.expm1, np.log, np.log1p, np.log2, np.log10,
    np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
    np.arcsinh, np.arccosh, np.arctanh, np.reciprocal, np.multiply, np.true_divide,
    np.matmul, np.dot, np.outer, np.inner, np.tensordot, np.einsum, _h.einsum_list,
    np.prod, np.cumprod, np.kron, np.cross, np.linalg.solve, np.linalg.inv, np.linalg.det,
    _h.singular_cofactors, np.linalg.matrix_power, np.linalg.multi_dot,
}) | polynomials.HOLOMORPHIC


def build():
    """``HOLOMORPHIC``: this module's and scipy.special's (where SciPy computes them for
    complex values): at import, and again when SciPy's entries are added
    (rules/optional.py)."""
    global HOLOMORPHIC
    HOLOMORPHIC = _HOLOMORPHIC | frozenset(special.HOLOMORPHIC)


build()

# (At x1 == x2 == 0 the base's derivative is 0 ** 0 * 0 = 0, as the real rule has it,
# not 0 * 0 ** -1 = nan.)
_POWER = {"x1": "g * np.conj(x2 * x1 ** np.where(np.logical_and(x2 == 0, x1 == 0), 1.0, x2 - 1))",
          "x2": "g * np.conj(ans * _sg.log_of_base(x1))"}

_EXTREME = {"a": "_sg.ordered_extreme_grad(g, ans, a, axis, keepdims)"}


def _pair(sign):
    return {"x1": f"_sg.ordered_pair_grad(g, x1, x2, {sign})",
            "x2": f"_sg.ordered_pair_grad(g, x2, x1, {sign})"}



EXPLICIT = {
    # np.sign is piecewise constant for real values only: z / |z| for complex ones.
    np.absolute: {"x": "g * _sg.unit(x)"},
    builtins.abs: {"x": "g * _sg.unit(x)"},
    np.real: {"val": "_sg.real_part_grad(g, val)"},
    # The real part where every imaginary part is within tol, else the values as they
    # are: either way the adjoint is g along the value's axes (fit).
    np.real_if_close: {"a": "_sg.real_part_grad(g, a)"},
    np.imag: {"val": "_sg.imag_grad(g, val)"},
    np.conjugate: {"x": "np.conj(g)"},
    np.angle: {"z": "_sg.angle_grad(g, z, deg)"},
    np.power: _POWER,
    np.float_power: _POWER,
    # log|det| is real, the sign det/|det| a smooth unit for complex values (issue 13):
    # d log det = tr(A^-1 dA), so A^-H (g_logabsdet - i Im(conj(g_sign) sign)).
    np.linalg.slogdet: {"a": "np.expand_dims(g[1] - 1j * np.imag(np.conj(g[0]) * ans[0]), "
                             "(-2, -1)) * np.conj(np.matrix_transpose(np.linalg.inv(a)))"},
    # NumPy orders complex values by real part, then imaginary part; the selected
    # element gets the adjoint, as for real values (a tie of real parts with different
    # imaginary parts is a jump: refused when run, runtime/complexes.py).
    np.max: _EXTREME, np.amax: _EXTREME, np.min: _EXTREME, np.amin: _EXTREME,
    np.maximum: _pair(1.0), np.fmax: _pair(1.0),
    np.minimum: _pair(-1.0), np.fmin: _pair(-1.0),
}

# Rules of their own: the helpers adjoint code for complex values calls (for a
# second derivative), and ``np.angle``.
TABLE = {
    # (Elementwise, or reading only a dtype: the same with a leading axis of rows.)
    _rt.conj: Rule("value", rank="identity", value="_sg.conj(g)", rows={"value": "_sg.conj(g)"}),
    _rt.fit: Rule("grad, like", rank="same", nograd={"like"}, grad="_sg.fit(g, grad)",
                  rows={"grad": "_sg.fit(g, grad)"}),
    _rt.real_rule: Rule("grad, what, *values", rank="same", nograd={"values"}, grad="g"),
    np.angle: Rule("z, deg=False", rank="elementwise", z="_sg.angle_grad(g, z, deg)",
                   rows={"z": "_sg.angle_grad(g, z, deg)"}),
}
NONDIFF = {_rt.is_complex, _rt.order_ties_checked}
# Entries only adjoint code calls (no user-level test of their own).
INTERNAL = {_rt.conj, _rt.fit, _rt.real_rule}
# Called without derivative as piecewise constant, which they are for real values
# only: in code compiled for complex values, refused on a differentiated value.
CONSTANT_FOR_REALS = frozenset({"sign"})
METHODS = {}
ATTRIBUTES = {}


def form(func, rule):
    """How ``rule`` (the entry used for ``func``) holds for complex values: "as_is",
    "holomorphic", a dict of complex grads, or None (real values only)."""
    if rule is POWER_CONSTANT_EXPONENT or rule is POWER_BELOW_ONE or func in HOLOMORPHIC:
        return "holomorphic"
    if func in EXPLICIT:
        return EXPLICIT[func]
    if func in AS_IS or func in TABLE or func in helpers.TABLE \
            or rule in (helpers.SEQUENCE_CONCAT, helpers.SEQUENCE_REPEAT, helpers.SEQUENCE_COPY):
        return "as_is"  # srcgrad's own helpers: linear in the adjoints they move
    return None
