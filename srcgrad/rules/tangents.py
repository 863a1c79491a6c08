"""Forward mode's rules: how each primitive's tangent follows from its entry
(``passes/tangent.py`` reads ``form``).

No second table: the tangent of most primitives is already in the first one.

- ``ELEMENTWISE``: the derivative is diagonal, so a grad expression (``g * cos(x)``)
  with the operand's tangent for ``g`` is the tangent; the terms of several operands add.
- ``LINEAR``: the primitive is linear in its differentiable operands together
  (sums, reshapes, indexing, joins, FFTs): its tangent is the primitive applied to
  their tangents (zeros for an operand without one).
- ``BILINEAR``: products: the product of each operand's tangent with the others.
- ``EXPLICIT``: tangents written out (``solve``, ``inv``).

Anything else has no tangent rule yet: forward mode refuses it (``sg.jvp`` then
computes by transposition, srcgrad/forward.py). Complex values: the grad
expressions are not the tangents of non-holomorphic functions (``abs``), so code
that may compute with complex numbers is not compiled in forward mode.
"""
import builtins
import math

import numpy as np

from . import complexes, elementwise, helpers, python, special
from .elementwise import POWER_CONSTANT_EXPONENT
from .entry import params

ELEMENTWISE = frozenset(elementwise.TABLE) | frozenset(
    f for f in python.TABLE if getattr(f, "__module__", None) == "math" or f in (
        builtins.abs, builtins.pow, builtins.float)) - {math.fsum} | frozenset(
    f for f in special.TABLE if getattr(f, "__name__", "") in (
        "expit", "log_expit", "erf", "erfc", "gammaln", "psi", "xlogy", "xlog1py"))

LINEAR = complexes.LINEAR | frozenset(helpers.TABLE) | {np.real, np.imag, np.conjugate}

BILINEAR = frozenset({np.matmul, np.dot, np.outer, np.inner, np.tensordot, np.kron, np.cross,
                      np.vdot})

# Reductions (over ``axis``, or all): each result depends on its slice alone, and the
# adjoint is the result's seed spread over the slice times weights, so the tangent is
# the slice's sum of weights times the operand's tangent, the weights being the
# adjoint of ones (``passes/tangent.py``).
REDUCTIONS = frozenset({np.max, np.amax, np.min, np.amin, np.prod, np.var, np.std,
                        np.linalg.norm})

EXPLICIT = {
    np.linalg.solve: "np.linalg.solve(a, b_dot - a_dot @ ans)",
    np.linalg.inv: "-(ans @ a_dot @ ans)",
}

_SEQUENCES = (helpers.SEQUENCE_CONCAT, helpers.SEQUENCE_REPEAT, helpers.SEQUENCE_COPY)


def form(func, rule):
    """"elementwise", "linear", "bilinear", an explicit expression (operands' tangents
    named ``<param>_dot``), or None (no tangent rule)."""
    if rule is POWER_CONSTANT_EXPONENT:
        return "elementwise"
    if any(p.variadic and p.name in rule.grads for p in params(rule)) \
            and func not in LINEAR and func is not np.einsum:
        return None  # (math.hypot(*coordinates): a list of grads, not one per operand)
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
        return EXPLICIT.get(func)
    except TypeError:  # an unhashable callable
        return None
