"""Polynomials: ``np.polyval`` (in the coefficients and in ``x``), ``np.vander`` and
``np.roots``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Helpers
live in ``runtime/polynomials.py``. Coefficients are an array or a list, highest
power first, as NumPy takes them; a ``np.poly1d`` (whose items count from the
constant term up) raises when the gradient runs rather than be read the wrong way.
``polyval`` is holomorphic in ``p`` and in ``x``: complex values take the same rule
with the operands conjugated (``rules/complexes.py``).

``np.roots``: NumPy's values (the companion matrix's eigenvalues, leading zeros dropped,
trailing ones giving roots at 0). Its adjoint is the implicit function's,
``dr = -dP(r) / P'(r)`` for each simple root (``runtime/polynomials.roots_jacobian``), not
that of NumPy's eigenvalue computation: that one would miss how a trailing zero
coefficient moves the roots (NumPy drops it before the eigenvalues), and has no
check for repeated roots, which are refused here. Holomorphic, and complex in general:
code calling it is compiled for complex values (``compiler/pipeline.may_be_complex``),
which conjugates the operands. First order only (as ``np.linalg.eigvals``), and no
tangent: ``sg.jvp`` transposes it (``srcgrad/forward.py``), as forward mode does not run
on complex values.
"""
import numpy as np

from ..runtime import polynomials as _rt
from .entry import Rule

_NO_SECOND_ROOTS = "_sg.not_differentiable('the second derivative of np.roots')"
# (Linear in g: sg.jvp, which transposes it, differentiates it in g only.)
_ROOTS = "np.matmul(g, _sg.roots_jacobian(p, ans))"
_VANDER = "np.sum(g * _sg.vander_slopes(x, N, increasing), axis=-1)"
_POLYVAL_X = "_sg.sum_to(g * _sg.polyval_slope(p, x), x)"

TABLE = {
    np.polyval: Rule("p, x", p="_sg.polyval_grad_p(g, p, x, 0)", x=_POLYVAL_X,
                     rows={"p": "_sg.polyval_grad_p(g, p, x, 1)"}),
    np.vander: Rule("x, N=None, increasing=False", x=_VANDER, rows={"x": _VANDER}),
    np.roots: Rule("p", p=_ROOTS, rows={"p": _ROOTS}),
    # (The derivative of the Jacobian: the roots' second derivatives, not modelled.)
    _rt.roots_jacobian: Rule("p, roots", p=_NO_SECOND_ROOTS, roots=_NO_SECOND_ROOTS),
}
# Entries only adjoint code calls (no user-level test of their own).
INTERNAL = {_rt.roots_jacobian}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = {_rt.roots_repeated}

# Holomorphic in each operand: complex values use these rules conjugated (complexes.py).
HOLOMORPHIC = frozenset({np.polyval, np.roots})

# Forward mode (``rules/tangents.py``).
EXPLICIT = {
    np.polyval: "np.polyval(p_dot, x) + x_dot * _sg.polyval_slope(p, x)",
    np.vander: "np.expand_dims(x_dot, -1) * _sg.vander_slopes(x, N, increasing)",
}
