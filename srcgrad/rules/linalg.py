"""``np.linalg``: ``solve``, ``inv``, ``det``, ``norm`` (norms of singular values through the SVD).

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
"""
import numpy as np

from .. import runtime as rt
from .entry import Rule

# det's gradient at a (nearly) singular matrix is its cofactors from the SVD, whose
# adjoint is taken from minors (exact: runtime.adjoints.cofactors_grad); a third
# derivative there is refused when run, never silently wrong.
_THIRD = ("_sg.not_differentiable(\"np.linalg.det's third derivative at a nearly singular "
          "matrix\")")
_INV = "-np.matmul(np.swapaxes(ans, -1, -2), np.matmul(g, np.swapaxes(ans, -1, -2)))"

TABLE = {
    # broadcast=True for stacks of matrices; not elementwise, so no rank rule.
    np.linalg.solve: Rule("a, b", broadcast=True,
                          a="_sg.solve_grad_a(g, ans, a, b)", b="_sg.solve_grad_b(g, a, b)"),
    # Already right for seed rows: matmul over the last two axes broadcasts over them.
    np.linalg.inv: Rule("a", a=_INV, rows={"a": _INV}),
    np.linalg.det: Rule("a", a="_sg.det_grad(g, ans, a)"),
    rt.singular_cofactors: Rule("a", a="_sg.cofactors_grad(g, a)",
                                rows={"a": "_sg.cofactors_grad(g, a)"}),
    rt.cofactors_grad: Rule("grad, a", grad=_THIRD, a=_THIRD),
    rt.cofactors_tangent: Rule("a, a_dot", a=_THIRD, a_dot=_THIRD),
    # Matrix ord='nuc', 2, -2: norms of singular values (decompositions.singular_norm_grad).
    np.linalg.norm: Rule("x, ord=None, axis=None, keepdims=False",
                         x="_sg.singular_norm_grad(g, x, axis, keepdims, ord) "
                           "if _sg.is_singular_norm(ord, axis, x) "
                           "else _sg.norm_grad(g, ans, x, ord, axis, keepdims)",
                         rows={"x": "_sg.singular_norm_rows(g, ans, x, axis, keepdims, ord) "
                                    "if _sg.is_singular_norm(ord, axis, x) "
                                    "else _sg.norm_rows(g, ans, x, ord, axis, keepdims)"}),
}
