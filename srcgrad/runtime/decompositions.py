"""Helpers of the ``decompositions`` rules (``rules/decompositions.py``), reached as ``_sg.<name>``.

Each differentiable helper is plain Python over NumPy functions that have
rules, so that adjoint code calling it can be differentiated again
(``tests/test_rule_table.py`` reads them). They only use the last two axes
of a matrix, so stacks of matrices and the leading axis of seed rows of
``tape.jacobian`` broadcast through them.

Where a derivative does not exist or is not unique (eigenvectors of repeated
eigenvalues, singular vectors of repeated singular values, a pseudo-inverse
that dropped singular values) the helpers raise through ``not_differentiable``
rather than return a number.
"""
import numpy as np

from .adjoints import not_differentiable
from .complexes import conj
from .selection import complex_input

# scipy.linalg's, for its matrix functions' helpers: bound when a program has imported it
# (from_scipy.py), as these helpers are reached only through its entries.
_expm = _logm = _sqrtm = solve_sylvester = None

__all__ = [
    # differentiable
    "fold_symmetric", "fold_hermitian", "cholesky_grad", "eigh_grad", "eigvals_grad",
    "eig_grad", "svd_grad", "singular_norm_grad", "singular_norm_rows", "qr_grad", "pinv_grad",
    "lstsq_pinv", "lstsq_grad_a", "lstsq_grad_b", "matrix_power_grad", "multi_dot_grad",
    "qr_parts", "qr_square_grad", "qr_wide_grad", "triangle", "solve_triangular_grad_a",
    "solve_triangular_grad_b", "cho_factor_grad", "cho_solve_upper", "cho_solve_grad_b",
    "cho_solve_grad_c", "frechet_block_matrix", "expm_frechet_block", "sqrtm_frechet_block",
    "matrix_function_tangent", "repeated_on_the_cut",
    "logm_frechet_block", "matrix_function_grad", "sylvester_rows",
    # planning (non-differentiable)
    "is_singular_norm", "singular_weights", "nuclear_axes", "reads_lower", "close_pairs",
    "phase_dependent", "repeated", "near_zero", "pinv_truncates", "transposes",
    "factor_is_lower",
]


def fold_symmetric(grad, lower):
    """The adjoint of a function that reads one triangle of its matrix (``lower`` or
    upper), from ``grad``, its adjoint with respect to the symmetric matrix that
    triangle stands for (symmetric perturbations only: ``grad`` need not be symmetric).

    An off-diagonal entry of the triangle read stands for two entries of the
    symmetric matrix, so it gets both adjoints; the other triangle is never read.
    """
    both = grad + np.matrix_transpose(grad)
    diagonal = grad * np.eye(np.shape(grad)[-1])
    if lower:
        return np.tril(both, -1) + diagonal
    return np.triu(both, 1) + diagonal


def fold_hermitian(grad, lower):
    """``fold_symmetric`` for a function reading one triangle of a real symmetric or
    complex Hermitian matrix (LAPACK's ``eigh``): the triangle read stands for the
    other one conjugated, and the diagonal for its real part only.

    An off-diagonal entry ``a_ij`` read stands for ``a_ij`` and ``conj(a_ji)``:
    its adjoint is ``grad_ij + conj(grad_ji)``; a diagonal one, ``Re grad_ii``
    (the imaginary part of the diagonal is never read). For real ``grad``,
    ``fold_symmetric``.
    """
    both = grad + conj(np.matrix_transpose(grad))
    diagonal = np.real(grad) * np.eye(np.shape(grad)[-1])
    if lower:
        return np.tril(both, -1) + diagonal
    return np.triu(both, 1) + diagonal


def cholesky_grad(grad, ans, upper):
    """Adjoint of ``np.linalg.cholesky(a, upper=upper)`` (Murray 2016, eq. 10).

    With ``a = L L^T``: ``L^-T Phi(L^T gL) L^-1``, ``Phi`` taking the lower
    triangle with the diagonal halved, folded onto the triangle LAPACK reads
    (the lower one; the upper one for ``upper=True``, where ``ans = L^T``).
    ``grad`` above the diagonal (where ``L`` is always 0) drops out by itself:
    the lower triangle of ``L^T gL`` only reads ``gL``'s lower triangle. Complex
    Hermitian ``a = L L^H``: ``^H`` for ``^T`` (TensorFlow's convention), folded as
    LAPACK reads it (``fold_hermitian``: not the imaginary part of the diagonal).
    """
    if upper:
        low = conj(np.matrix_transpose(ans))
        g = conj(np.matrix_transpose(grad))
    else:
        low = ans
        g = grad
    low_t = conj(np.matrix_transpose(low))
    inner = np.matmul(low_t, g)
    phi = np.tril(inner, -1) + 0.5 * inner * np.eye(np.shape(low)[-1])
    left = np.linalg.solve(low_t, phi)
    full = conj(np.matrix_transpose(np.linalg.solve(low_t, conj(np.matrix_transpose(left)))))
    return fold_hermitian(full, not upper)


def eigvals_grad(grad, a):
    """Adjoint of ``np.linalg.eigvals(a)``: ``V^-H diag(g) V^H`` with ``V`` the
    eigenvectors, as ``d w = diag(V^-1 dA V)``; its real part is a real matrix's
    (``_sg.fit``). Defined where ``a`` is diagonalizable (distinct eigenvalues)."""
    vh = np.conj(np.matrix_transpose(np.linalg.eig(a)[1]))
    return np.matmul(np.linalg.inv(vh), np.expand_dims(grad, -1) * vh)


def eig_grad(grad, ans, a):
    """Adjoint of ``w, v = np.linalg.eig(a)`` from ``grad = [gw, gv]``, in TensorFlow's
    convention (the real part of it is a real matrix's, ``_sg.fit``)::

        V^-H (diag(gw) + conj(F) * (V^H gv')) V^H,   gv' = gv - V diag(Re diag(V^H gv))

    with ``F_ij = 1 / (w_j - w_i)`` off the diagonal: the transpose of ``dw =
    diag(V^-1 dA V)``, ``dV = V (F * (V^-1 dA V))`` kept at unit norm as NumPy
    returns the eigenvectors. Their phases are NumPy's convention only, so a result
    that depends on them (``Im diag(V^H gv) != 0``) has no derivative here and is
    refused, as are the eigenvectors of a repeated eigenvalue. Distinct eigenvalues:
    ``eigvals_grad``."""
    w, v = ans[0], ans[1]
    gw, gv = grad[0], grad[1]
    vh = np.conj(np.matrix_transpose(v))
    n = np.shape(w)[-1]
    middle = np.expand_dims(gw, -2) * np.eye(n)
    if np.any(gv != 0):
        if np.any(np.logical_and(repeated(w), np.any(gv != 0, axis=-2))):
            return not_differentiable("an eigenvector of np.linalg.eig of a repeated eigenvalue")
        on_diagonal = np.diagonal(np.matmul(vh, gv), axis1=-2, axis2=-1)
        scale = np.max(np.abs(gv), axis=(-2, -1), keepdims=True)[..., 0]
        if np.any(np.abs(np.imag(on_diagonal)) > 1e-9 * (1.0 + scale)):
            return not_differentiable("a result of np.linalg.eig that depends on the phases of "
                                      "its eigenvectors (NumPy's convention, not a function of "
                                      "the matrix)")
        gv = gv - v * np.expand_dims(np.real(on_diagonal), -2)
        close = close_pairs(w)
        gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # [i, j]: w_j - w_i
        f = np.where(close, 0.0, 1.0 / np.where(close, 1.0, gaps))
        middle = middle + np.conj(f) * np.matmul(vh, gv)
    return np.linalg.solve(vh, np.matmul(middle, vh))


def eigh_grad(grad, ans, UPLO):
    """Adjoint of ``w, v = np.linalg.eigh(a, UPLO)`` from ``grad = [gw, gv]`` (Giles 2008),
    real symmetric or complex Hermitian ``a``.

    ``v (diag(gw) + F * (v^H gv)) v^H`` with ``F_ij = 1 / (w_j - w_i)`` off the
    diagonal, folded onto the triangle ``UPLO`` names, the only one LAPACK reads
    (``fold_hermitian``).

    The eigenvectors of a repeated eigenvalue are not unique: a nonzero adjoint
    of one is refused (those of the other eigenvalues are unique, and their
    ``F`` terms finite). The eigenvalues alone get the gradient through
    LAPACK's eigenvectors: exact for functions symmetric in the repeated
    eigenvalues (trace, log-determinant), one subgradient for others (``w[0]``).

    Complex eigenvectors are unique up to a phase each, which is LAPACK's
    convention, not a function of the matrix: the loss must not depend on it
    (``|v|``, ``v v^H``, ``v^H x``'s modulus...), and a result that does
    (``Im diag(v^H gv) != 0``) is refused. Real ones are unique up to their sign
    (the loss need not be invariant: the sign does not flip under small steps).
    """
    w = ans[0]
    v = ans[1]
    gw = grad[0]
    gv = grad[1]
    if np.any(np.logical_and(repeated(w), np.any(gv != 0, axis=-2))):
        return not_differentiable("an eigenvector of np.linalg.eigh of a repeated eigenvalue")
    v_h = conj(np.matrix_transpose(v))
    vh_gv = np.matmul(v_h, gv)
    if phase_dependent(vh_gv, gv):
        return not_differentiable("a result of np.linalg.eigh of a complex matrix that depends "
                                  "on the phases of its eigenvectors (LAPACK's convention, not "
                                  "a function of the matrix; a loss of |v|, v v^H or |v^H x| "
                                  "does not)")
    close = close_pairs(w)
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    f = np.where(close, 0.0, 1.0 / np.where(close, 1.0, gaps))
    middle = f * vh_gv + np.expand_dims(gw, -2) * np.eye(np.shape(w)[-1])
    return fold_hermitian(np.matmul(v, np.matmul(middle, v_h)), reads_lower(UPLO))


def svd_grad(grad, ans, a, full_matrices, compute_uv, hermitian):
    """Adjoint of ``np.linalg.svd(a, full_matrices, compute_uv, hermitian)`` (Townsend 2016;
    complex matrices as Wan and Zhang 2019), real or complex ``a``.

    With ``a = U diag(s) V^H`` (``k = min(m, n)`` singular values),
    ``F_ij = 1 / (s_j^2 - s_i^2)`` off the diagonal and ``J = U^H gU``,
    ``K = V^H gV`` (``gV = gVh^H``)::

        U [(F * (J - J^H)) S + diag(gs) + S (F * (K - K^H))
           + i diag((Im diag J - Im diag K) / 2s)] V^H
          + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H)

    (the imaginary diagonal term is 0 for real matrices). Singular vectors are
    unique only for a distinct singular value, nonzero if ``a`` is not square (or
    complex), and only the first ``k``: a nonzero adjoint of any other is
    refused. Complex singular vectors are unique up to a phase shared by ``u_i``
    and ``v_i``, LAPACK's convention: a loss that depends on it
    (``Im diag(J + K) != 0``) is refused. ``hermitian=True`` reads the lower
    triangle only (NumPy goes through ``eigh``): the adjoint is folded onto it.
    """
    if compute_uv:
        u = ans[0]
        s = ans[1]
        vh = ans[2]
        gu = grad[0]
        gs = grad[1]
        gvh = grad[2]
    else:
        s = ans
        gs = grad
        factors = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        u = factors[0]
        vh = factors[2]
        gu = np.zeros_like(u)
        gvh = np.zeros_like(vh)
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    k = min(m, n)
    complex_values = complex_input(u)
    if np.any(gu[..., k:] != 0) or np.any(gvh[..., k:, :] != 0):
        return not_differentiable(
            "np.linalg.svd's singular vectors past min(m, n) (full_matrices=True; any "
            "orthonormal completion would do)")
    u = u[..., :k]
    gu = gu[..., :k]
    vh = vh[..., :k, :]
    gvh = gvh[..., :k, :]
    zero = near_zero(s)
    used = np.logical_or(np.any(gu != 0, axis=-2), np.any(gvh != 0, axis=-1))
    if m != n or complex_values:
        ambiguous = np.logical_or(repeated(s), zero)
    else:
        ambiguous = repeated(s)
    if np.any(np.logical_and(ambiguous, used)):
        return not_differentiable(
            "a singular vector of np.linalg.svd of a repeated singular value (or of a zero "
            "one of a non-square or complex matrix)")
    v = conj(np.matrix_transpose(vh))
    u_gu = np.matmul(conj(np.matrix_transpose(u)), gu)
    v_gv = np.matmul(vh, conj(np.matrix_transpose(gvh)))
    if phase_dependent(u_gu + v_gv, gu):
        return not_differentiable(
            "a result of np.linalg.svd of a complex matrix that depends on the phases of its "
            "singular vectors (LAPACK's convention, not a function of the matrix; a loss of "
            "|u|, u u^H, u v^H or |u^H x| does not)")
    close = close_pairs(s)
    squares = s * s
    gaps = np.expand_dims(squares, -2) - np.expand_dims(squares, -1)
    f = np.where(close, 0.0, 1.0 / np.where(close, 1.0, gaps))
    middle = (f * (u_gu - conj(np.matrix_transpose(u_gu)))) * np.expand_dims(s, -2) \
        + np.expand_dims(gs, -2) * np.eye(k) \
        + np.expand_dims(s, -1) * (f * (v_gv - conj(np.matrix_transpose(v_gv))))
    safe = np.where(zero, 1.0, s)  # where s is 0, gU and gV are 0 there (refused above)
    # i (Im diag J - Im diag K) / 2s, as (q - conj(q)) / 4s with q = diag(J - K): 0 for
    # real matrices (no complex literal, which would keep real code out of forward mode)
    q = np.diagonal(u_gu - v_gv, axis1=-2, axis2=-1)
    middle = middle + np.expand_dims((q - conj(q)) / (4.0 * safe), -2) * np.eye(k)
    out = np.matmul(u, np.matmul(middle, vh))
    if m > k:
        out = out + np.matmul((gu - np.matmul(u, u_gu)) / np.expand_dims(safe, -2), vh)
    if n > k:
        rest = gvh - np.matmul(np.matmul(gvh, v), vh)
        out = out + np.matmul(u, rest / np.expand_dims(safe, -1))
    if hermitian:
        return fold_hermitian(out, True)
    return out


def singular_norm_grad(grad, x, axis, keepdims, ord="nuc"):
    """Adjoint of ``np.linalg.norm(x, ord, axis, keepdims)`` for the norms of the singular
    values of the matrices over ``axis`` (the last two for a matrix): ``'nuc'`` their sum,
    ``2`` the largest, ``-2`` the smallest. That of ``np.sum(w * s, -1)``, ``s`` the
    singular values and ``w`` the weights ``ord`` gives them (``singular_weights``):
    ``U diag(w) V^H`` (``svd_grad``), real or complex. Unique where the singular values
    weighted are not 0 and (for 2 and -2) not repeated; otherwise a subgradient (ties
    share it equally; at a zero one, LAPACK's ``u_i v_i^H``)."""
    axes = nuclear_axes(axis, np.ndim(x), 0)
    if not keepdims:
        grad = np.expand_dims(grad, axes)
    y = np.moveaxis(x, axes, (-2, -1))
    g = np.squeeze(np.moveaxis(grad, axes, (-2, -1)), -1)
    s = np.linalg.svd(y, compute_uv=False)
    out = svd_grad(g * singular_weights(s, ord), s, y, False, False, False)
    return np.moveaxis(out, (-2, -1), axes)


def singular_norm_rows(grad, ans, x, axis, keepdims, ord="nuc"):
    """``singular_norm_grad`` on every row of ``grad`` (``tape.jacobian``)."""
    if not keepdims:
        grad = np.expand_dims(grad, nuclear_axes(axis, np.ndim(x), 1))
    return grad * singular_norm_grad(np.ones(np.shape(ans)), x, axis, keepdims, ord)


def qr_grad(grad, ans, a, mode):
    """Adjoint of ``np.linalg.qr(a, mode)`` (``m < n``: ``qr_wide_grad``): modes
    ``'reduced'``, ``'r'`` (``Q`` then has no adjoint) and ``'complete'`` (only ``Q``'s
    first ``n`` columns are unique: a nonzero adjoint of the others is refused).

    With ``M = R gR^T - gQ^T Q``: ``(gQ + Q copyltu(M)) R^-T``, ``copyltu``
    mirroring the lower triangle onto the upper one. ``gR`` below the diagonal
    (where ``R`` is always 0) drops out by itself: the lower triangle of
    ``R gR^T`` only reads ``gR``'s upper triangle.
    """
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if mode == "raw":
        return not_differentiable("np.linalg.qr with mode='raw' (Householder reflectors; use "
                                  "mode='reduced')")
    if m < n:
        return qr_wide_grad(grad, ans, a, mode)
    q, r, gq, gr = qr_parts(grad, ans, a, mode)
    if np.any(gq[..., n:] != 0):
        return not_differentiable(
            "np.linalg.qr's columns of Q past n (mode='complete'; any orthonormal "
            "completion would do)")
    return qr_square_grad(gq[..., :n], gr[..., :n, :], q[..., :n], r[..., :n, :])


def qr_parts(grad, ans, a, mode):
    """``(Q, R, gQ, gR)`` of ``np.linalg.qr(a, mode)``'s result and its adjoint (``'r'``
    mode: Q computed again, its adjoint 0)."""
    if mode == "r":
        q = np.linalg.qr(a)[0]
        return q, ans, np.zeros_like(q), grad
    return ans[0], ans[1], grad[0], grad[1]


def qr_square_grad(gq, gr, q, r):
    """``qr_grad``'s formula for ``Q`` (``m x n``) and a square ``R`` (``n x n``), real or
    complex (LAPACK's ``R`` has a real diagonal, which makes the factors unique up to
    signs): with ``M = gR R^H - Q^H gQ`` and ``S = triu(M) + triu(M)^H - Re diag(M)``,
    ``(gQ + Q S) R^-H``."""
    n = np.shape(r)[-1]
    mixed = np.matmul(gr, conj(np.matrix_transpose(r))) - np.matmul(conj(np.matrix_transpose(q)),
                                                                  gq)
    upper = np.triu(mixed)
    mirrored = upper + conj(np.matrix_transpose(upper)) - np.real(mixed) * np.eye(n)
    right = gq + np.matmul(q, mirrored)
    return conj(np.matrix_transpose(np.linalg.solve(r, conj(np.matrix_transpose(right)))))


def qr_wide_grad(grad, ans, a, mode):
    """Adjoint of ``np.linalg.qr(a, mode)`` for ``m < n``: with ``a = [X | Y]``, ``X`` square,
    ``Q, R_X = qr(X)`` and ``R_Y = Q^T Y`` (what Householder QR computes). ``Y`` gets
    ``Q gR_Y``; ``X`` the square adjoint at ``gQ + Y gR_Y^T``. Where ``X`` is singular
    ``Q`` is not unique: refused."""
    m = np.shape(a)[-2]
    q, r, gq, gr = qr_parts(grad, ans, a, mode)
    if np.any(near_zero(np.abs(np.diagonal(r, axis1=-2, axis2=-1)))):
        return not_differentiable("np.linalg.qr of a matrix with fewer rows than columns whose "
                                  "leading square block is singular (Q is not unique there)")
    y = a[..., m:]
    gy = gr[..., m:]
    square = qr_square_grad(gq + np.matmul(y, conj(np.matrix_transpose(gy))), gr[..., :m], q,
                            r[..., :m])
    return np.concatenate([square, np.matmul(q, gy)], axis=-1)


def pinv_grad(grad, ans, a, hermitian):
    """Adjoint of ``p = np.linalg.pinv(a, ..., hermitian)`` (Golub and Pereyra 1973)::

        -p^T g p^T + (I - a p) g^T p p^T + p^T p g^T (I - p a)

    the derivative of a pseudo-inverse of constant rank (complex: ``^H`` for ``^T``, in
    TensorFlow's convention). Only where ``p`` kept
    every singular value (rank ``min(m, n)``): where it dropped some, ``p`` jumps
    as they cross the cutoff, and almost every perturbation raises the rank
    (the dropped singular values, 0 to rounding, grow past NumPy's default
    cutoff at once), so ``pinv`` has no derivative there; the formula holds
    along matrices of that rank only (``pinv(x.T @ x)``), which the adjoint
    cannot tell from ``a``. Refused, with the full-rank rewrite to use.
    ``hermitian=True`` reads the lower triangle only (through ``eigh``): the
    adjoint is folded onto it.
    """
    if hermitian:
        below = np.tril(a, -1)
        a = below + conj(np.matrix_transpose(below)) + np.real(a) * np.eye(np.shape(a)[-1])
    if pinv_truncates(a, ans):
        return not_differentiable(
            "np.linalg.pinv of a matrix whose small singular values it drops (rank below "
            "min(m, n): it jumps as a perturbation raises the rank, and has a derivative "
            "only along matrices of that same rank, which srcgrad cannot tell from the "
            "matrix; write it through full-rank factors, e.g. pinv(x.T @ x) as "
            "pinv(x) @ pinv(x).T, whose gradient srcgrad computes)")
    p_t = conj(np.matrix_transpose(ans))
    g_t = conj(np.matrix_transpose(grad))
    rows = np.matmul(np.matmul(g_t, ans), p_t)
    columns = np.matmul(np.matmul(p_t, ans), g_t)
    out = -np.matmul(np.matmul(p_t, grad), p_t) \
        + rows - np.matmul(a, np.matmul(ans, rows)) \
        + columns - np.matmul(np.matmul(columns, ans), a)
    if hermitian:
        return fold_hermitian(out, True)
    return out


def lstsq_pinv(ans, a):
    """``pinv(a)``, through which ``np.linalg.lstsq``'s solution ``x = pinv(a) b`` is
    differentiated. Only for ``a`` of full rank (``ans[2]``, lstsq's own rank,
    is ``min(m, n)``): a rank-deficient solution jumps as singular values cross
    ``rcond``, and that is refused. Then no singular value is 0 and
    ``rtol=0`` drops none.
    """
    if ans[2] < min(np.shape(a)):
        return not_differentiable(
            "np.linalg.lstsq of a rank-deficient matrix (rank below min(m, n) at its rcond)")
    return np.linalg.pinv(a, rtol=0.0)


def lstsq_grad_a(grad, ans, a, b):
    """Adjoint for ``a`` of ``x, residuals, rank, sv = np.linalg.lstsq(a, b, rcond)``,
    ``grad`` the list of the four adjoints (``rank`` has none).

    ``x = p b`` with ``p = pinv(a)``: the adjoint of ``p`` (``pinv_grad``) at
    ``gx b^T``, which with ``r = b - a x`` is ``-p^T gx x^T + r gx^T p p^T +
    p^T x gx^T (I - p a)``. The residuals ``|r|^2`` (full column rank, ``m > n``,
    where ``a^T r = 0``) add ``-2 r gres x^T``; the singular values, ``svd_grad``.
    """
    p = lstsq_pinv(ans, a)
    p_t = conj(np.matrix_transpose(p))
    gx = grad[0]
    x = ans[0]
    columns = b
    if np.ndim(b) == 1:
        gx = np.expand_dims(gx, -1)
        x = np.expand_dims(x, -1)
        columns = np.expand_dims(b, -1)
    r = columns - np.matmul(a, x)
    x_t = conj(np.matrix_transpose(x))
    gx_t = conj(np.matrix_transpose(gx))
    out = -np.matmul(np.matmul(p_t, gx), x_t) + np.matmul(np.matmul(r, gx_t), np.matmul(p, p_t)) \
        + np.matmul(np.matmul(p_t, x), gx_t - np.matmul(np.matmul(gx_t, p), a))
    if np.size(grad[1]) > 0:
        out = out - 2.0 * np.matmul(r * np.expand_dims(grad[1], -2), x_t)
    # The singular values' term, always: sg.jvp differentiates this code with respect to
    # the seed at a zero seed (forward.py, transposition), where a branch on
    # ``grad[3] != 0`` would drop the term (a wrong directional derivative).
    return out + svd_grad(grad[3], ans[3], a, False, False, False)


def lstsq_grad_b(grad, ans, a, b):
    """Adjoint for ``b`` of ``np.linalg.lstsq(a, b, rcond)`` (see ``lstsq_grad_a``):
    ``p^T gx``, plus ``2 r gres`` for the residuals."""
    p = lstsq_pinv(ans, a)
    gx = grad[0]
    x = ans[0]
    columns = b
    if np.ndim(b) == 1:
        gx = np.expand_dims(gx, -1)
        x = np.expand_dims(x, -1)
        columns = np.expand_dims(b, -1)
    out = np.matmul(conj(np.matrix_transpose(p)), gx)
    if np.size(grad[1]) > 0:
        out = out + 2.0 * (columns - np.matmul(a, x)) * np.expand_dims(grad[1], -2)
    if np.ndim(b) == 1:
        return np.squeeze(out, -1)
    return out


def matrix_power_grad(grad, a, n):
    """Adjoint of ``np.linalg.matrix_power(a, n)``: ``sum_k (B^T)^k g (B^T)^(m-1-k)`` for
    ``B^m``, with ``B = a, m = n`` for ``n >= 0`` and ``B = inv(a), m = -n`` (then
    through ``inv``: ``-B^T (...) B^T``) below.
    """
    if n < 0:
        base = np.linalg.inv(a)
    else:
        base = a
    m = abs(n)
    base_t = np.matrix_transpose(base)
    powers = [np.eye(np.shape(a)[-1])]
    for k in range(1, m):
        powers = powers + [np.matmul(powers[k - 1], base_t)]
    out = np.zeros_like(grad)
    for k in range(m):
        out = out + np.matmul(powers[k], np.matmul(grad, powers[m - 1 - k]))
    if n < 0:
        return -np.matmul(base_t, np.matmul(out, base_t))
    return out


def multi_dot_grad(grad, arrays):
    """Adjoints of ``np.linalg.multi_dot(arrays)``, a list: ``L_i^T g R_i^T`` with ``L_i``
    and ``R_i`` the products of the matrices before and after ``arrays[i]``. A
    1-D first (last) array is a row (column), as ``multi_dot`` takes it.
    """
    count = len(arrays)
    first = np.ndim(arrays[0]) == 1
    last = np.ndim(arrays[count - 1]) == 1
    g = grad
    if first and last:
        g = np.expand_dims(g, (-2, -1))
    elif first:
        g = np.expand_dims(g, -2)
    elif last:
        g = np.expand_dims(g, -1)
    mats = []
    for i in range(count):
        mat = arrays[i]
        if i == 0 and first:
            mat = np.expand_dims(mat, 0)
        if i == count - 1 and last:
            mat = np.expand_dims(mat, -1)
        mats = mats + [mat]
    # before[i]: mats[0] @ ... @ mats[i]; after[j]: mats[count - 1 - j] @ ... @ mats[-1]
    before = [mats[0]]
    after = [mats[count - 1]]
    for i in range(1, count - 1):
        before = before + [np.matmul(before[i - 1], mats[i])]
        after = after + [np.matmul(mats[count - 1 - i], after[i - 1])]
    out = []
    for i in range(count):
        piece = g
        if i > 0:
            piece = np.matmul(np.matrix_transpose(before[i - 1]), piece)
        if i < count - 1:
            piece = np.matmul(piece, np.matrix_transpose(after[count - 2 - i]))
        if i == 0 and first:
            piece = np.squeeze(piece, -2)
        if i == count - 1 and last:
            piece = np.squeeze(piece, -1)
        out = out + [piece]
    return out


# ---------------------------------------------------------------------------
# scipy.linalg (rules only when SciPy is installed; the helpers need NumPy only,
# so that the table's tests can trace them)
# ---------------------------------------------------------------------------

def triangle(a, lower, unit_diagonal):
    """The triangular matrix that ``scipy.linalg.solve_triangular`` reads from ``a``."""
    if lower:
        part = np.tril(a, -1)
    else:
        part = np.triu(a, 1)
    if unit_diagonal:
        return part + np.eye(np.shape(a)[-1])
    return part + a * np.eye(np.shape(a)[-1])


def solve_triangular_grad_b(grad, a, b, trans, lower, unit_diagonal, overwrite_b):
    """Adjoint for ``b`` of ``x = scipy.linalg.solve_triangular(a, b, trans, lower,
    unit_diagonal)``, ``x = op(T)^-1 b``: ``op(T)^-T g``."""
    if overwrite_b:
        return not_differentiable("scipy.linalg.solve_triangular with overwrite_b=True "
                                  "(it may write into b)")
    op = triangle(a, lower, unit_diagonal)
    if transposes(trans):
        op = np.matrix_transpose(op)
    if np.ndim(b) == 1:
        return np.squeeze(np.linalg.solve(np.matrix_transpose(op), np.expand_dims(grad, -1)), -1)
    return np.linalg.solve(np.matrix_transpose(op), grad)


def solve_triangular_grad_a(grad, ans, a, b, trans, lower, unit_diagonal, overwrite_b):
    """Adjoint for ``a`` of ``scipy.linalg.solve_triangular`` (see ``..._grad_b``):
    ``-gb x^T`` (transposed for ``trans``) on the triangle read, the diagonal
    too unless ``unit_diagonal``."""
    gb = solve_triangular_grad_b(grad, a, b, trans, lower, unit_diagonal, overwrite_b)
    if np.ndim(b) == 1:
        gop = -(np.expand_dims(gb, -1) * np.expand_dims(ans, -2))
    else:
        gop = -np.matmul(gb, np.matrix_transpose(ans))
    if transposes(trans):
        gop = np.matrix_transpose(gop)
    if unit_diagonal:
        offset = 1
    else:
        offset = 0
    if lower:
        return np.tril(gop, -offset)
    return np.triu(gop, offset)


def cho_factor_grad(grad, ans, lower, overwrite_a):
    """Adjoint of ``c, lower = scipy.linalg.cho_factor(a, lower)``. ``c`` holds the factor
    in one triangle (``cholesky_grad``) and ``a``'s own entries in the other
    (SciPy leaves them there): those pass their adjoint through."""
    if overwrite_a:
        return not_differentiable("scipy.linalg.cho_factor with overwrite_a=True (it may "
                                  "write into a)")
    c = ans[0]
    gc = grad[0]
    if lower:
        return cholesky_grad(gc, np.tril(c), False) + np.triu(gc, 1)
    return cholesky_grad(gc, np.triu(c), True) + np.tril(gc, -1)


def cho_solve_upper(c_and_lower):
    """``U`` with ``U^T U = A`` from the ``(c, lower)`` of ``scipy.linalg.cho_factor``."""
    if factor_is_lower(c_and_lower):
        return np.matrix_transpose(np.tril(c_and_lower[0]))
    return np.triu(c_and_lower[0])


def cho_solve_grad_b(grad, c_and_lower, b, overwrite_b):
    """Adjoint for ``b`` of ``x = scipy.linalg.cho_solve((c, lower), b)``, ``x = A^-1 b``
    with ``A = U^T U``: ``A^-1 g`` (``A`` is symmetric)."""
    if overwrite_b:
        return not_differentiable("scipy.linalg.cho_solve with overwrite_b=True (it may "
                                  "write into b)")
    up = cho_solve_upper(c_and_lower)
    g = grad
    if np.ndim(b) == 1:
        g = np.expand_dims(grad, -1)
    out = np.linalg.solve(up, np.linalg.solve(np.matrix_transpose(up), g))
    if np.ndim(b) == 1:
        return np.squeeze(out, -1)
    return out


def cho_solve_grad_c(grad, ans, c_and_lower, b, overwrite_b):
    """Adjoint for ``(c, lower)`` of ``scipy.linalg.cho_solve`` (see ``..._grad_b``): a list,
    ``[gc, 0]``. With ``W = z x^T``, ``z = A^-1 g``: ``-U (W + W^T)`` on ``c``'s
    upper triangle (its transpose on the lower one for ``lower``); the other
    triangle is never read.
    """
    z = cho_solve_grad_b(grad, c_and_lower, b, overwrite_b)
    if np.ndim(b) == 1:
        w = np.expand_dims(z, -1) * np.expand_dims(ans, -2)
    else:
        w = np.matmul(z, np.matrix_transpose(ans))
    gup = -np.matmul(cho_solve_upper(c_and_lower), w + np.matrix_transpose(w))
    if factor_is_lower(c_and_lower):
        return [np.tril(np.matrix_transpose(gup)), 0.0]
    return [np.triu(gup), 0.0]


# ---------------------------------------------------------------------------
# scipy.linalg's matrix functions: expm, sqrtm, logm (rules/scipy_linalg.py)
# ---------------------------------------------------------------------------

def frechet_block_matrix(a, e):
    """``[[a, e], [0, a]]`` (over the last two axes; ``a`` broadcast to ``e``'s leading
    axes of seed rows, ``tape.jacobian``'s)."""
    a = a + np.zeros_like(e)
    e = e + np.zeros_like(a)
    top = np.concatenate([a, e], axis=-1)
    bottom = np.concatenate([np.zeros_like(a), a], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def expm_frechet_block(a, e):
    """The Fréchet derivative of ``expm`` at ``a`` in direction ``e``: the top right block
    of ``expm([[a, e], [0, a]])`` (Higham, Functions of Matrices, 3.16), through
    ``expm``'s own rule (so its derivatives follow)."""
    n = np.shape(a)[-1]
    return _expm(frechet_block_matrix(a, e))[..., :n, n:]


def sqrtm_frechet_block(a, e):
    """The Fréchet derivative of ``sqrtm`` at ``a`` in direction ``e`` (the solution ``L``
    of ``X L + L X = e``), as ``expm_frechet_block``."""
    n = np.shape(a)[-1]
    return _sqrtm(frechet_block_matrix(a, e))[..., :n, n:]


def logm_frechet_block(a, e):
    """The Fréchet derivative of ``logm`` at ``a`` in direction ``e``, as
    ``expm_frechet_block``."""
    n = np.shape(a)[-1]
    return _logm(frechet_block_matrix(a, e))[..., :n, n:]


def matrix_function_grad(name, grad, ans, a, disp=None, blocksize=None):
    """Adjoint of ``scipy.linalg.<name>(a)`` (``expm``, ``sqrtm``, ``logm``) at ``grad``: the
    Fréchet derivative at ``a^T`` in direction ``grad`` (their Taylor coefficients are
    real). Where complex values come in (a complex ``a``, or a real one with a negative
    eigenvalue, whose square root or logarithm is complex), TensorFlow's convention:
    ``conj(L(a^T, conj(grad)))``, the adjoint of ``E -> L(a, E)`` also where the principal
    branch does not commute with conjugation (on the negative axis); its real part for a
    real ``a``. ``disp=`` and ``blocksize=`` are refused."""
    if disp is not None or blocksize is not None:
        return not_differentiable(f"scipy.linalg.{name} with disp= or blocksize= (deprecated "
                                  "by SciPy; drop them)")
    if np.ndim(a) < 2:
        return not_differentiable(f"scipy.linalg.{name} of a scalar (its result is a 1 x 1 "
                                  "matrix: pass one, or use np.exp, np.sqrt, np.log)")
    at = np.matrix_transpose(a)
    if np.iscomplexobj(ans) or np.iscomplexobj(a) or np.iscomplexobj(grad):
        if name != "expm" and repeated_on_the_cut(a):
            # (Differentiated again, the Fréchet block matrix repeats each eigenvalue;
            # SciPy's square root or logarithm of it is not accurate where they are on
            # the negative axis, the branch cut: refused rather than a wrong value.)
            return not_differentiable(f"scipy.linalg.{name} of a matrix with a repeated "
                                      "eigenvalue on the negative real axis (as its second "
                                      "derivative has, where its result is complex)")
        # (``conj``, srcgrad's: its name, unlike np.conj's, does not make the code
        # differentiated again be compiled for complex values)
        out = conj(matrix_function_tangent(name, conj(grad), ans, at))
        return out if np.iscomplexobj(a) else np.real(out)
    return matrix_function_tangent(name, grad, ans, at)


def matrix_function_tangent(name, a_dot, ans, a, disp=None, blocksize=None):
    """The tangent of ``scipy.linalg.<name>(a)`` along ``a_dot``: the Fréchet derivative
    ``L(a, a_dot)`` (complex values too: the functions are holomorphic off their branch
    cuts, and SciPy's branch is the block matrix's)."""
    if disp is not None or blocksize is not None:
        return not_differentiable(f"scipy.linalg.{name} with disp= or blocksize= (deprecated "
                                  "by SciPy; drop them)")
    if name == "expm":
        return expm_frechet_block(a, a_dot)
    if name == "sqrtm":
        return sqrtm_frechet_block(a, a_dot)
    return logm_frechet_block(a, a_dot)


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF). Called on traced values in tests/test_rule_table.py:
# only NumPy functions that dispatch (__array_function__), no ``.dtype``.
# ---------------------------------------------------------------------------

def is_singular_norm(ord, axis, x):
    """Whether ``np.linalg.norm(x, ord, axis)`` is a norm of singular values: ``'nuc'``,
    or ``2``/``-2`` of matrices (of a vector, 2 is the Euclidean norm)."""
    if isinstance(ord, str):
        return ord == "nuc"
    if ord is None or ord not in (2, -2):
        return False
    return np.ndim(x) == 2 if axis is None else np.ndim(axis) == 1 and len(axis) == 2


def singular_weights(s, ord):
    """How much each singular value (last axis of ``s``) counts in the norm ``ord``: all
    for ``'nuc'``; the largest for 2, the smallest for -2 (ties equally)."""
    if isinstance(ord, str):
        return np.ones(np.shape(s))
    best = np.max(s, axis=-1, keepdims=True) if ord == 2 else np.min(s, axis=-1, keepdims=True)
    chosen = np.where(s == best, 1.0, 0.0)
    return chosen / np.sum(chosen, axis=-1, keepdims=True)


def nuclear_axes(axis, ndim, lead):
    """The two axes (nonnegative) of the matrices of ``np.linalg.norm(x, 'nuc', axis)``,
    shifted by ``lead`` leading axes (of seed rows)."""
    if axis is None:
        axis = (ndim - 2, ndim - 1)
    if len(axis) != 2:
        not_differentiable(f"np.linalg.norm with ord='nuc' over axes {axis}")
    return (axis[0] % ndim + lead, axis[1] % ndim + lead)


def reads_lower(UPLO):
    """Whether ``np.linalg.eigh``/``eigvalsh`` read the lower triangle (``UPLO`` 'L')."""
    return UPLO.upper() == "L"


def close_pairs(values):
    """``[..., i, j]``: ``values[..., i]`` and ``values[..., j]`` are equal to rounding
    (``size * eps`` times the largest magnitude of the stack); the diagonal is True."""
    scale = np.max(np.abs(values), axis=-1, keepdims=True)
    tol = np.shape(values)[-1] * np.finfo(np.result_type(values)).eps * scale
    gaps = np.abs(np.expand_dims(values, -2) - np.expand_dims(values, -1))
    return gaps <= np.expand_dims(tol, -1)


def phase_dependent(diagonal_of, scale_of):
    """Whether a loss depends on the phases of complex eigen- or singular vectors: the
    diagonal of ``diagonal_of`` (``v^H gv``; ``U^H gU + V^H gV`` for the SVD) is not
    real, to rounding relative to the adjoint ``scale_of``. Real vectors: never."""
    if not complex_input(diagonal_of):
        return False
    parts = np.imag(np.diagonal(diagonal_of, axis1=-2, axis2=-1))
    scale = np.max(np.abs(scale_of)) if np.size(scale_of) > 0 else 0.0
    return bool(np.any(np.abs(parts) > 1e-9 * (1.0 + scale)))


def repeated_on_the_cut(a):
    """Whether the matrix ``a`` (a stack too) has two eigenvalues on (or within ``1e-6`` of
    the largest of) the negative real axis that agree to as much (a Fréchet block
    matrix's are equal in pairs: rounding splits them by about the square root of eps)."""
    w = np.linalg.eigvals(a)
    n = np.shape(w)[-1]
    scale = np.expand_dims(np.max(np.abs(w), axis=-1, keepdims=True), -1)
    on_cut = (np.real(w) < 0) & (np.abs(np.imag(w)) <= 1e-6 * scale[..., 0])
    gaps = np.abs(np.expand_dims(w, -2) - np.expand_dims(w, -1))
    close = (gaps <= 1e-6 * scale) & ~np.eye(n, dtype=bool)
    return bool(np.any(close & np.expand_dims(on_cut, -1) & np.expand_dims(on_cut, -2)))


def repeated(values):
    """Which of ``values`` (along the last axis) equal another one to rounding."""
    n = np.shape(values)[-1]
    return np.any(close_pairs(values) & ~np.eye(n, dtype=bool), axis=-1)


def near_zero(values):
    """Which of the nonnegative ``values`` are 0 to rounding (as ``close_pairs``)."""
    scale = np.max(values, axis=-1, keepdims=True)
    return values <= np.shape(values)[-1] * np.finfo(np.result_type(values)).eps * scale


def transposes(trans):
    """Whether ``scipy.linalg.solve_triangular``'s ``trans`` solves with the transpose
    (1, 2, 'T', 'C': for real matrices the conjugate transpose is the transpose)."""
    return trans not in (0, "N")


def factor_is_lower(c_and_lower):
    """The ``lower`` of a ``(c, lower)`` pair, read through ``np.all`` (so that a traced
    flag in the table's tests is read, not branched on)."""
    return bool(np.all(c_and_lower[1]))


def pinv_truncates(a, p):
    """Whether ``p = np.linalg.pinv(a)`` dropped singular values of ``a``: ``p a`` is the
    projector onto the rank kept, so its trace counts them."""
    kept = np.real(np.trace(np.matmul(p, a), axis1=-2, axis2=-1))
    return bool(np.any(kept < min(np.shape(a)[-2:]) - 0.5))


def sylvester_rows(a, b, g):
    """``scipy.linalg.solve_sylvester(a, b, row)`` for each row along ``g``'s leading
    axis of seed rows (``tape.jacobian``; SciPy's solver takes one right side)."""
    return np.stack([solve_sylvester(a, b, row) for row in g])
