"""Forward mode's rules: how each primitive's tangent follows from its entry
(``passes/tangent.py`` reads ``form``).

No second table: the tangent of most primitives is already in the first one.

- ``ELEMENTWISE``: the derivative is diagonal, so a grad expression (``g * cos(x)``)
  with the operand's tangent for ``g`` is the tangent; the terms of several operands add.
- ``LINEAR``: the primitive is linear in its differentiable operands together
  (sums, reshapes, indexing, joins, FFTs): its tangent is the primitive applied to
  their tangents (zeros for an operand without one).
- ``BILINEAR``: products: the product of each operand's tangent with the others.
- ``EXPLICIT``: tangents written out (``solve``, ``inv``, the decompositions), most
  through helpers of their own (``runtime/tangents.py``). The names in scope are a
  grad expression's but ``g``: the operands, their tangents ``<param>_dot`` (zeros
  for an operand without one) and ``ans``.

Anything else has no tangent rule yet: forward mode refuses it (``sg.jvp`` then
computes by transposition, srcgrad/forward.py). Complex values: the grad
expressions are not the tangents of non-holomorphic functions (``abs``), so code
that may compute with complex numbers is not compiled in forward mode.
"""
import builtins
import math

import numpy as np

from ..runtime import adjoints as _h
from ..runtime import complexes as _rt
from ..runtime import pymath
from ..runtime import core as _sg_core
from ..runtime import strong as _sg_strong
from . import complexes, convolutions, decompositions, elementwise, helpers, layout, \
    moments, order_stats, polynomials, python, special, stats, ufuncs
from . import integration, nan_reductions, scipy_linalg, transforms
from .elementwise import POWER_BELOW_ONE, POWER_CONSTANT_EXPONENT
from .entry import params

# scipy.special's functions whose grads are elementwise in ``g`` (by name: their
# entries are added when a program imports it, rules/optional.py).
_SPECIAL_ELEMENTWISE = frozenset({
    "expit", "log_expit", "erf", "erfc", "gammaln", "psi", "polygamma", "zeta", "_zeta",
    "xlogy", "xlog1py", "gamma", "rgamma", "multigammaln", "gammainc", "gammaincc",
    "erfinv", "erfcinv", "logit", "i0", "i1", "i0e", "i1e", "j0", "j1", "y0", "y1", "iv",
    "ive", "jv", "yv", "yn", "ndtr", "log_ndtr", "ndtri", "erfcx", "loggamma", "log1p",
    "expm1", "cosm1", "beta", "betaln", "betainc", "betaincc", "k0", "k1", "k0e", "k1e",
    "kv", "kve", "erfi", "dawsn", "exprel", "exp10", "exp2", "cbrt", "sindg", "cosdg",
    "tandg", "cotdg", "radian", "rel_entr", "kl_div", "huber", "pseudo_huber", "poch",
    "hyp1f1", "hyp2f1", "ellipk", "ellipe", "spence", "owens_t", "stdtr", "chdtr", "chdtrc",
    "gdtr", "gdtrc", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p"})
_ELEMENTWISE = frozenset(elementwise.TABLE) | frozenset(
    f for f in python.TABLE if getattr(f, "__module__", None) == "math" or f in (
        builtins.abs, builtins.pow, builtins.float)) - {math.fsum} | {np.sinc} | {
    pymath.ieee_divide, pymath.ieee_power}

# (Beyond complexes.LINEAR: linear for the real values forward mode runs on, or not
# meant for complex code at all; the complex helpers are linear in the adjoint they move.)
LINEAR = complexes.LINEAR | frozenset(helpers.TABLE) | {
    np.real, np.imag, np.conjugate, np.linalg.matrix_transpose, np.linspace, np.float64,
    np.real_if_close, np.select, np.bincount, math.fsum, _rt.conj, _rt.fit, _rt.real_rule,
} | frozenset(f for f in layout.TABLE if getattr(f, "__name__", "") == "row_stack") \
    | ufuncs.LINEAR

_BILINEAR = frozenset({np.matmul, np.dot, np.outer, np.inner, np.tensordot, np.kron,
                       np.cross, np.vdot, np.convolve, np.correlate}) | ufuncs.BILINEAR

# Reductions (over ``axis``, or all): each result depends on its slice alone, and the
# adjoint is the result's seed spread over the slice times weights, so the tangent is
# the slice's sum of weights times the operand's tangent, the weights being the
# adjoint of ones (``passes/tangent.py``).
REDUCTIONS = frozenset({np.max, np.amax, np.min, np.amin, np.prod, np.var, np.std,
                        np.linalg.norm})

_SORTED = "_sg.permute_tangent(a, a_dot, ans, axis)"

_EXPLICIT = {
    # (``seed_dot``: a parameter without a gradient whose tangent the form reads.)
    _sg_strong.strong_zero: "_sg.strong_zero_tangent(value_dot, value, seed, seed_dot)",
    # (A try body that raised: the value's tangent as it was, off the stack of tangents,
    # which is cut back as the stack is; not off the stack, cut back already.)
    _sg_core.rolled_back: "_sg.rolled_back(stack_dot, length, value_dot)",
    np.linalg.solve: "_sg.solve_tangent(a, a_dot, b, b_dot, ans)",
    np.linalg.inv: "-(ans @ a_dot @ ans)",
    np.linalg.cholesky: "_sg.cholesky_tangent(a_dot, ans, upper)",
    np.linalg.slogdet: "_sg.slogdet_tangent(a, a_dot, ans)",
    np.linalg.eigh: "_sg.eigh_tangent(a_dot, ans, UPLO)",
    np.linalg.eigvalsh: "_sg.eigvalsh_tangent(a, a_dot, UPLO)",
    np.linalg.svd: "_sg.svd_tangent(a, a_dot, ans, full_matrices, compute_uv, hermitian)",
    np.linalg.qr: "_sg.qr_tangent(a, a_dot, ans, mode)",
    _h.singular_cofactors: "_sg.cofactors_tangent(a, a_dot)",
    np.linalg.pinv: "_sg.pinv_tangent(a, a_dot, ans, hermitian)",
    np.linalg.lstsq: "_sg.lstsq_tangent(a, a_dot, b, b_dot, ans)",
    np.linalg.matrix_power: "_sg.matrix_power_tangent(a, a_dot, n)",
    np.linalg.multi_dot: "_sg.multi_dot_tangent(arrays, arrays_dot)",
    _h.einsum_list: "_sg.einsum_list_tangent(subscripts, operands, operands_dot)",
    np.sort: _SORTED,
    np.partition: _SORTED,
    # (A dtype: the tangent cast as the result is, zero for a non-floating one.)
    np.cumprod: "_sg.cast_tangent(_sg.cumprod_tangent(a, a_dot, ans, axis), ans)",
    _h.astype: "_sg.cast_tangent(a_dot, ans)",
    # (In the order the primal's reshape reads ``a``: its memory layout for 'A' and 'K',
    # which the tangent's need not share.)
    np.ravel: "np.ravel(a_dot, order=_sg.memory_order(a, order))",
    _h.flatten: "_sg.flatten(a_dot, _sg.memory_order(a, order))",
    np.reshape: "np.reshape(a_dot, np.shape(ans), order=_sg.memory_order(a, order))",
    np.pad: "_sg.pad_tangent(array, array_dot, pad_width, mode, constant_values_dot, "
            "reflect_type)",
    np.nan_to_num: "_sg.nan_to_num_tangent(x, x_dot, nan_dot, posinf_dot, neginf_dot)",
    np.interp: "_sg.interp_tangent(x, x_dot, xp, fp, fp_dot, left, left_dot, right, right_dot, "
               "period)",
    # (Variadic: the operands' list and its tangent, a list.)
    builtins.max: "_sg.extreme_tangent(args, args_dot, np.argmax)",
    builtins.min: "_sg.extreme_tangent(args, args_dot, np.argmin)",
    math.hypot: "_sg.hypot_tangent(coordinates, coordinates_dot, ans)",
}


def build():
    """``ELEMENTWISE``, ``BILINEAR`` and ``EXPLICIT`` from this module's entries and the
    families': at import, and again when SciPy's entries are added (rules/optional.py)."""
    global ELEMENTWISE, BILINEAR, EXPLICIT
    explicit = dict(_EXPLICIT)
    # (The families' after this module's: scipy_linalg's np.linalg.qr takes wide matrices.)
    for family in (decompositions, special, stats, convolutions, ufuncs, polynomials,
                   order_stats, moments, integration, scipy_linalg, transforms, nan_reductions):
        explicit.update(family.EXPLICIT)
    ELEMENTWISE = _ELEMENTWISE | frozenset(
        f for f in special.TABLE if getattr(f, "__name__", "") in _SPECIAL_ELEMENTWISE) \
        | frozenset(stats.ELEMENTWISE)
    BILINEAR = _BILINEAR | frozenset(convolutions.BILINEAR)
    EXPLICIT = explicit


build()

_SEQUENCES = (helpers.SEQUENCE_CONCAT, helpers.SEQUENCE_REPEAT, helpers.SEQUENCE_COPY)


def form(func, rule):
    """"elementwise", "linear", "bilinear", an explicit expression (operands' tangents
    named ``<param>_dot``), or None (no tangent rule)."""
    if rule is POWER_CONSTANT_EXPONENT or rule is POWER_BELOW_ONE:
        return "elementwise"
    try:
        if func in EXPLICIT:
            return EXPLICIT[func]
    except TypeError:  # an unhashable callable
        return None
    if any(p.variadic and p.name in rule.grads for p in params(rule)) \
            and func not in LINEAR and func is not np.einsum:
        return None  # (a list of grads for the operands spread out: an explicit rule's)
    if rule is helpers.SEQUENCE_REPEAT:
        # ``seq * n``: linear in ``seq`` for a count ``n``; NumPy's product when ``n`` is
        # a differentiated array (``[1.0, 2.0] * x``): one operand's tangent at a time.
        return "bilinear"
    if any(rule is r for r in _SEQUENCES):
        return "linear"
    try:
        if func in ELEMENTWISE:
            return "elementwise"
        if func in LINEAR:
            return "linear"
        if func in BILINEAR or func is np.einsum:
            return "bilinear"  # (einsum: multilinear, one operand at a time)
        if func in REDUCTIONS:
            return "reduction"
        if func is np.linalg.det:
            return "determinant"
        return None
    except TypeError:  # an unhashable callable
        return None
