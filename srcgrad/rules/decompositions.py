"""Decompositions and friends: cholesky, slogdet, eigh, eigvalsh, svd, qr, pinv, lstsq,
matrix_power, multi_dot, and scipy.linalg's triangular and Cholesky solves.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/decompositions.py``.

Real matrices, stacked ``(..., m, n)`` where NumPy stacks them (all but
``lstsq`` and ``multi_dot``). ``eigh``, ``eigvalsh`` and ``svd`` (and ``eig``,
``eigvals``) take complex ones too, in TensorFlow's convention
(``rules/complexes.py``): complex eigen- and singular vectors are unique up to
a phase each (shared by ``u_i`` and ``v_i``), LAPACK's convention, so a loss
must not depend on those phases (``|v|``, ``v v^H``, ``u v^H``); one that does
is refused when the adjoint runs. A function returning a tuple (``slogdet``,
``eigh``, ``svd``, ``qr``, ``lstsq``) has the list of its items' adjoints as
``g``, zeros for the items not used.

What NumPy computes is differentiated, not its ideal: ``cholesky``, ``eigh``,
``eigvalsh`` and ``hermitian=True`` read one triangle of the matrix only, so
their adjoints are zero on the other. Where a derivative does not exist or is
not unique (repeated eigenvalues or singular values for the vectors, rank
deficiency for ``pinv``/``lstsq``, columns past ``min(m, n)`` of full
factors) the helpers refuse when run (``NotImplementedError``).

With SciPy installed: ``scipy.linalg.solve_triangular``, ``cholesky``,
``cho_factor`` and ``cho_solve`` (``overwrite_*=True`` refused: they may
write into a differentiated value), ``solve_sylvester`` (real matrices).
"""
import numpy as np

from .. import runtime as rt
from .entry import Rule


def _rule(signature, rank=None, **grads):
    """A Rule whose row form (``tape.jacobian``) is its grad: every grad here only
    broadcasts over leading axes (matmul, solve and the helpers work on the last two)."""
    return Rule(signature, rank=rank, rows=dict(grads), **grads)


_SLOGDET = "np.expand_dims(g[1], (-2, -1)) * np.matrix_transpose(np.linalg.inv(a))"

TABLE = {
    np.linalg.cholesky: _rule("a, *, upper=False", rank="same",
                              a="_sg.cholesky_grad(g, ans, upper)"),
    # The sign is piecewise constant: only logabsdet has an adjoint.
    np.linalg.slogdet: _rule("a", a=_SLOGDET),
    np.linalg.eigh: _rule("a, UPLO='L'", a="_sg.eigh_grad(g, ans, UPLO)"),
    np.linalg.eigvalsh: _rule("a, UPLO='L'",
                              a="_sg.eigh_grad([g, np.zeros_like(a)], np.linalg.eigh(a, UPLO), "
                                "UPLO)"),
    # Eigenvalues of a general matrix (complex for a real one): TensorFlow's convention.
    np.linalg.eigvals: _rule("a", a="_sg.eigvals_grad(g, a)"),
    # Eigenvalues and unit eigenvectors of a general matrix; its helper (given the
    # eigenvectors, unlike eigvals_grad) is differentiated as written: second order.
    np.linalg.eig: _rule("a", a="_sg.eig_grad(g, ans, a)"),
    np.linalg.svd: _rule("a, full_matrices=True, compute_uv=True, hermitian=False",
                         a="_sg.svd_grad(g, ans, a, full_matrices, compute_uv, hermitian)"),
    np.linalg.qr: _rule("a, mode='reduced'", a="_sg.qr_grad(g, ans, a, mode)"),
    # rcond/rtol move the cutoff of small singular values; the helper refuses
    # any singular value dropped, so they change nothing it computes.
    np.linalg.pinv: _rule("a, rcond=None, hermitian=False, *, rtol=None", rank="same",
                          a="_sg.pinv_grad(g, ans, a, hermitian)"),
    np.linalg.lstsq: _rule("a, b, rcond=None", a="_sg.lstsq_grad_a(g, ans, a, b)",
                           b="_sg.lstsq_grad_b(g, ans, a, b)"),
    np.linalg.matrix_power: _rule("a, n", rank="same", a="_sg.matrix_power_grad(g, a, n)"),
    np.linalg.multi_dot: _rule("arrays, *, out=None", arrays="_sg.multi_dot_grad(g, arrays)"),
}

_TRIANGULAR = {
    "a": "_sg.solve_triangular_grad_a(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b)",
    "b": "_sg.solve_triangular_grad_b(g, a, b, trans, lower, unit_diagonal, overwrite_b)",
}

# scipy.linalg.solve_sylvester's adjoint equation: A^T Y + Y B^T = G.
_SYLVESTER = "_sg.solve_sylvester(np.transpose(a), np.transpose(b), g)"
_SYLVESTER_ROWS = "_sg.sylvester_rows(np.transpose(a), np.transpose(b), g)"

# Forward mode's tangents written out here (rules/tangents.py has np.linalg's).
EXPLICIT = {}


def _with_linalg(linalg):
    """The entries keyed on ``scipy.linalg``'s functions: added when a program has
    imported it (``rules/optional.py``), so that ``import srcgrad`` never imports SciPy."""
    TABLE.update({
        # broadcast=True for stacks of matrices, as np.linalg.solve.
        linalg.solve_triangular: Rule(
            "a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, "
            "check_finite=True", broadcast=True, rows=_TRIANGULAR, **_TRIANGULAR),
        linalg.cholesky: _rule(
            "a, lower=False, overwrite_a=False, check_finite=True", rank="same",
            a="_sg.cholesky_grad(g, ans, not lower) if not overwrite_a else "
              "_sg.not_differentiable('scipy.linalg.cholesky with overwrite_a=True')"),
        linalg.cho_factor: _rule(
            "a, lower=False, overwrite_a=False, check_finite=True",
            a="_sg.cho_factor_grad(g, ans, lower, overwrite_a)"),
        linalg.cho_solve: _rule(
            "c_and_lower, b, overwrite_b=False, check_finite=True",
            c_and_lower="_sg.cho_solve_grad_c(g, ans, c_and_lower, b, overwrite_b)",
            b="_sg.cho_solve_grad_b(g, c_and_lower, b, overwrite_b)"),
        # X solves A X + X B = Q; with Y solving A^T Y + Y B^T = G (the same equation
        # transposed): dQ = Y, dA = -Y X^T, dB = -X^T Y. (Two-dimensional only, as SciPy.)
        linalg.solve_sylvester: Rule(
            "a, b, q", a=f"-({_SYLVESTER} @ np.transpose(ans))",
            b=f"-(np.transpose(ans) @ {_SYLVESTER})", q=_SYLVESTER,
            rows={"a": f"-({_SYLVESTER_ROWS} @ np.transpose(ans))",
                  "b": f"-(np.transpose(ans) @ {_SYLVESTER_ROWS})", "q": _SYLVESTER_ROWS}),
    })
    EXPLICIT.update({
        linalg.solve_sylvester: "_sg.solve_sylvester(a, b, q_dot - a_dot @ ans - ans @ b_dot)",
        linalg.solve_triangular: "_sg.solve_triangular_tangent(a, a_dot, b, b_dot, ans, trans, "
                                 "lower, unit_diagonal, overwrite_b)",
        linalg.cholesky: "_sg.cholesky_tangent(a_dot, ans, not lower) if not overwrite_a else "
                         "_sg.not_differentiable('scipy.linalg.cholesky with overwrite_a=True')",
        linalg.cho_factor: "_sg.cho_factor_tangent(a_dot, ans, lower, overwrite_a)",
        linalg.cho_solve: "_sg.cho_solve_tangent(c_and_lower, c_and_lower_dot, b, b_dot, ans, "
                          "overwrite_b)",
    })


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.linalg": _with_linalg}

# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
# Entries only adjoint code calls (no user-level test of their own).
INTERNAL = set()  # (eig_grad, eigvals_grad: differentiated as written)
METHODS = {}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = {rt.is_singular_norm, rt.singular_weights, rt.nuclear_axes, rt.reads_lower,
           rt.close_pairs, rt.phase_dependent, rt.repeated, rt.repeated_on_the_cut, rt.near_zero,
           rt.pinv_truncates, rt.transposes, rt.factor_is_lower}
