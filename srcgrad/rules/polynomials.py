"""Polynomials: ``np.polyval`` (in the coefficients and in ``x``) and ``np.vander``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Helpers
live in ``runtime/polynomials.py``. Coefficients are an array or a list, highest
power first, as NumPy takes them; a ``np.poly1d`` (whose items count from the
constant term up) raises when the gradient runs rather than be read the wrong way.
``polyval`` is holomorphic in ``p`` and in ``x``: complex values take the same rule
with the operands conjugated (``rules/complexes.py``).
"""
import numpy as np

from .entry import Rule

_VANDER = "np.sum(g * _sg.vander_slopes(x, N, increasing), axis=-1)"
_POLYVAL_X = "_sg.sum_to(g * _sg.polyval_slope(p, x), x)"

TABLE = {
    np.polyval: Rule("p, x", p="_sg.polyval_grad_p(g, p, x, 0)", x=_POLYVAL_X,
                     rows={"p": "_sg.polyval_grad_p(g, p, x, 1)"}),
    np.vander: Rule("x, N=None, increasing=False", x=_VANDER, rows={"x": _VANDER}),
}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()

# Holomorphic in each operand: complex values use these rules conjugated (complexes.py).
HOLOMORPHIC = frozenset({np.polyval})

# Forward mode (``rules/tangents.py``).
EXPLICIT = {
    np.polyval: "np.polyval(p_dot, x) + x_dot * _sg.polyval_slope(p, x)",
    np.vander: "np.expand_dims(x_dot, -1) * _sg.vander_slopes(x, N, increasing)",
}
