"""Helpers of forward mode's explicit tangents (``rules/tangents.py``), reached as ``_sg.<name>``.

Each returns the tangent of a primitive's result from its operands, their tangents
(``*_dot``) and the result. Forward-mode code is never differentiated again, so
these need not be readable by the compiler (unlike the adjoint helpers).

Each is the derivative of the function the reverse rule transposes, so that the two
modes agree exactly: the same triangle read (``cholesky``, ``eigh``, ``hermitian=True``),
the same ties (``sort``), the same refusals. Where the reverse rule refuses the call
itself (``pinv``/``lstsq`` of deficient rank, ``qr`` of a wide matrix, ``period``,
``return_sign``) the tangent refuses too. Where it refuses a nonzero adjoint of one
item only (an eigenvector of a repeated eigenvalue, a singular vector of a repeated
or, for a non-square matrix, zero singular value, a column of a full factor past
``min(m, n)``) forward mode cannot know whether that item is used: its tangent is
NaN there, and the other items' tangents (the eigenvalues) stay exact.
"""
import numpy as np

from .adjoints import nonzero, not_differentiable
from .decompositions import close_pairs, factor_is_lower, lstsq_pinv, near_zero, \
    pinv_truncates, reads_lower, repeated, transposes

__all__ = [
    "symmetric_part", "solve_tangent", "cholesky_tangent", "cho_factor_tangent",
    "cho_solve_tangent", "qr_any_tangent", "solve_triangular_tangent", "slogdet_tangent",
    "eigh_tangent", "eigvalsh_tangent",
    "svd_tangent", "qr_tangent", "pinv_tangent", "lstsq_tangent", "matrix_power_tangent",
    "multi_dot_tangent", "einsum_list_tangent", "permute_tangent", "cumprod_tangent",
    "extreme_tangent", "hypot_tangent", "nan_to_num_tangent", "interp_tangent",
    "logsumexp_tangent", "cast_tangent", "pad_tangent",
]


def _t(x):
    return np.matrix_transpose(x)


def _result(ans, items):
    """``items`` as the kind of tuple ``ans`` is (NumPy's named results: ``.Q``, ``.S``)."""
    return type(ans)(*items) if hasattr(ans, "_fields") else tuple(items)


def _inverse_gaps(values):
    """``F[..., i, j] = 1 / (values_j - values_i)``, 0 where they are equal to rounding."""
    close = close_pairs(values)
    gaps = np.expand_dims(values, -2) - np.expand_dims(values, -1)
    return np.where(close, 0.0, 1.0 / np.where(close, 1.0, gaps))


def _undefined_columns(x, which):
    """``x`` with NaN in the columns ``which`` (a boolean over its last axis) marks."""
    return np.where(np.expand_dims(which, -2), np.nan, x)


def symmetric_part(a_dot, lower):
    """The perturbation of the symmetric matrix seen by a function that reads one triangle
    of its operand (``lower`` or upper): the other triangle is never read."""
    part = np.tril(a_dot, -1) if lower else np.triu(a_dot, 1)
    return part + _t(part) + a_dot * np.eye(np.shape(a_dot)[-1])


def cholesky_tangent(a_dot, ans, upper):
    """``L Phi(L^-1 dA L^-T)`` for ``A = L L^T``, ``Phi`` the lower triangle with the
    diagonal halved (``ans = L^T`` and the upper triangle read for ``upper``)."""
    low = _t(ans) if upper else ans
    inner = np.linalg.solve(low, _t(np.linalg.solve(low, symmetric_part(a_dot, not upper))))
    phi = np.tril(inner, -1) + 0.5 * inner * np.eye(np.shape(low)[-1])
    out = np.matmul(low, phi)
    return _t(out) if upper else out


def cho_factor_tangent(a_dot, ans, lower, overwrite_a):
    """``scipy.linalg.cho_factor``: the factor's tangent in its triangle, ``a``'s own in
    the other (SciPy leaves ``a``'s entries there); the flag has none."""
    if overwrite_a:
        return not_differentiable("scipy.linalg.cho_factor with overwrite_a=True (it may "
                                  "write into a)")
    c = ans[0]
    if lower:
        return np.tril(cholesky_tangent(a_dot, np.tril(c), False)) + np.triu(a_dot, 1), 0.0
    return np.triu(cholesky_tangent(a_dot, np.triu(c), True)) + np.tril(a_dot, -1), 0.0


def _upper_factor(c, lower):
    return _t(np.tril(c)) if lower else np.triu(c)


def _as_columns(b, *values):
    """``values`` with a trailing axis of one column where ``b`` is a vector."""
    if np.ndim(b) == 1:
        return [np.expand_dims(v, -1) for v in values]
    return list(values)


def _as_given(b, x):
    return np.squeeze(x, -1) if np.ndim(b) == 1 else x


def solve_tangent(a, a_dot, b, b_dot, ans):
    """``x = A^-1 b``: ``A^-1 (db - dA x)``, a vector ``b`` as a column (also beside a
    stack of matrices, where ``x`` is a stack of vectors)."""
    x, db = _as_columns(b, ans, b_dot)
    return _as_given(b, np.linalg.solve(a, db - np.matmul(a_dot, x)))


def cho_solve_tangent(c_and_lower, c_and_lower_dot, b, b_dot, ans, overwrite_b):
    """``x = A^-1 b`` with ``A = U^T U``: ``A^-1 (db - dA x)``, ``dU`` the tangent of the
    triangle ``c`` holds the factor in."""
    if overwrite_b:
        return not_differentiable("scipy.linalg.cho_solve with overwrite_b=True (it may "
                                  "write into b)")
    lower = factor_is_lower(c_and_lower)
    up = _upper_factor(c_and_lower[0], lower)
    dup = _upper_factor(c_and_lower_dot[0], lower)
    x, db = _as_columns(b, ans, b_dot)
    da_x = np.matmul(_t(dup), np.matmul(up, x)) + np.matmul(_t(up), np.matmul(dup, x))
    out = np.linalg.solve(up, np.linalg.solve(_t(up), db - da_x))
    return _as_given(b, out)


def solve_triangular_tangent(a, a_dot, b, b_dot, ans, trans, lower, unit_diagonal,
                             overwrite_b):
    """``x = op(T)^-1 b``: ``op(T)^-1 (db - op(dT) x)``, ``dT`` on the triangle read (not
    its diagonal for ``unit_diagonal``)."""
    if overwrite_b:
        return not_differentiable("scipy.linalg.solve_triangular with overwrite_b=True "
                                  "(it may write into b)")
    offset = 1 if unit_diagonal else 0
    op = np.tril(a, -offset) if lower else np.triu(a, offset)
    dop = np.tril(a_dot, -offset) if lower else np.triu(a_dot, offset)
    if unit_diagonal:
        op = op + np.eye(np.shape(a)[-1])
    if transposes(trans):
        op, dop = _t(op), _t(dop)
    x, db = _as_columns(b, ans, b_dot)
    return _as_given(b, np.linalg.solve(op, db - np.matmul(dop, x)))


def slogdet_tangent(a, a_dot, ans):
    """``(0, tr(A^-1 dA))``: the sign is piecewise constant."""
    logdet = np.trace(np.linalg.solve(a, a_dot), axis1=-2, axis2=-1)
    return _result(ans, (np.zeros(np.shape(ans[0])), logdet))


def eigh_tangent(a_dot, ans, UPLO):
    """``w, V = eigh(A)``: with ``X = V^T dA V``, ``dw = diag(X)`` and ``dV = V (F * X)``,
    ``F_ij = 1 / (w_j - w_i)`` off the diagonal."""
    w, v = ans[0], ans[1]
    x = np.matmul(_t(v), np.matmul(symmetric_part(a_dot, reads_lower(UPLO)), v))
    v_dot = _undefined_columns(np.matmul(v, _inverse_gaps(w) * x), repeated(w))
    return _result(ans, (np.diagonal(x, axis1=-2, axis2=-1), v_dot))


def eigvalsh_tangent(a, a_dot, UPLO):
    v = np.linalg.eigh(a, UPLO)[1]
    s = symmetric_part(a_dot, reads_lower(UPLO))
    return np.sum(v * np.matmul(s, v), axis=-2)


def svd_tangent(a, a_dot, ans, full_matrices, compute_uv, hermitian):
    """``A = U S V^T`` (``k = min(m, n)`` singular values): with ``P = U^T dA V``,
    ``ds = diag(P)``, ``dU = U (F * (P S + S P^T)) + (I - U U^T) dA V S^-1`` and
    ``dV = V (F * (S P + P^T S)) + (I - V V^T) dA^T U S^-1``,
    ``F_ij = 1 / (s_j^2 - s_i^2)`` off the diagonal."""
    da = symmetric_part(a_dot, True) if hermitian else a_dot
    if compute_uv:
        u, s, vh = ans[0], ans[1], ans[2]
    else:
        s = ans
        u, _, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    m, n = np.shape(a)[-2:]
    k = min(m, n)
    u, v = u[..., :k], _t(vh[..., :k, :])
    p = np.matmul(_t(u), np.matmul(da, v))
    s_dot = np.diagonal(p, axis1=-2, axis2=-1)
    if not compute_uv:
        return s_dot
    f = _inverse_gaps(s * s)
    row, column = np.expand_dims(s, -2), np.expand_dims(s, -1)
    du = np.matmul(u, f * (p * row + column * _t(p)))
    dv = np.matmul(v, f * (column * p + _t(p) * row))
    zero = near_zero(s)
    safe = np.expand_dims(np.where(zero, 1.0, s), -2)
    if m > k:
        du = du + (np.matmul(da, v) - np.matmul(u, p)) / safe
    if n > k:
        dv = dv + (np.matmul(_t(da), u) - np.matmul(v, _t(p))) / safe
    undefined = repeated(s) | zero if m != n else repeated(s)
    du, dv = _undefined_columns(du, undefined), _undefined_columns(dv, undefined)
    if full_matrices and m > k:  # any orthonormal completion would do
        du = np.concatenate([du, np.full(np.shape(du)[:-1] + (m - k,), np.nan)], -1)
    if full_matrices and n > k:
        dv = np.concatenate([dv, np.full(np.shape(dv)[:-1] + (n - k,), np.nan)], -1)
    return _result(ans, (du, s_dot, _t(dv)))


def qr_tangent(a, a_dot, ans, mode):
    """``A = QR`` (``m >= n``): with ``X = Q^T dA R^-1`` and ``W`` its strictly lower
    triangle, ``O = W - W^T`` (``Q^T dQ``, antisymmetric): ``dR = (X - O) R`` and
    ``dQ = dA R^-1 - Q (X - O)``."""
    m, n = np.shape(a)[-2:]
    if m < n or mode == "raw":
        return not_differentiable("np.linalg.qr of a matrix with fewer rows than columns, "
                                  "or with mode='raw'")
    if mode == "r":
        q, r = np.linalg.qr(a)[0], ans
    else:
        q, r = ans[0][..., :n], ans[1][..., :n, :]
    da_r = _t(np.linalg.solve(_t(r), _t(a_dot)))
    x = np.matmul(_t(q), da_r)
    below = np.tril(x, -1)
    upper = x - below + _t(below)
    dr = np.matmul(upper, r)
    if mode == "r":
        return dr
    dq = da_r - np.matmul(q, upper)
    if mode == "complete" and m > n:  # Q's columns past n: any orthonormal completion
        dq = np.concatenate([dq, np.full(np.shape(dq)[:-1] + (m - n,), np.nan)], -1)
        dr = np.concatenate([dr, np.zeros(np.shape(dr)[:-2] + (m - n, n))], -2)
    return _result(ans, (dq, dr))


def pinv_tangent(a, a_dot, ans, hermitian):
    """``P = pinv(A)`` of constant rank (Golub and Pereyra 1973):
    ``-P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P``."""
    da = a_dot
    if hermitian:
        a = np.tril(a) + _t(np.tril(a, -1))
        da = symmetric_part(a_dot, True)
    if pinv_truncates(a, ans):
        return not_differentiable(
            "np.linalg.pinv of a matrix whose small singular values it drops (rank below "
            "min(m, n))")
    p, da_t = ans, _t(da)
    rows = np.matmul(np.matmul(p, _t(p)), da_t)
    columns = np.matmul(da_t, np.matmul(_t(p), p))
    return -np.matmul(p, np.matmul(da, p)) + rows - np.matmul(np.matmul(rows, a), p) \
        + columns - np.matmul(p, np.matmul(a, columns))


def lstsq_tangent(a, a_dot, b, b_dot, ans):
    """``x, residuals, rank, sv = lstsq(a, b)``: ``x = pinv(a) b`` (full rank only), the
    residuals ``|b - a x|^2`` per column, the singular values as ``svd_tangent``."""
    p = lstsq_pinv(ans, a)
    x, cols, db = _as_columns(b, ans[0], b, b_dot)
    dx = np.matmul(pinv_tangent(a, a_dot, p, False), cols) + np.matmul(p, db)
    residuals = np.zeros(np.shape(ans[1]))
    if np.size(ans[1]) > 0:
        r = cols - np.matmul(a, x)
        residuals = 2.0 * np.sum(r * (db - np.matmul(a_dot, x) - np.matmul(a, dx)), axis=-2)
    sv = svd_tangent(a, a_dot, ans[3], False, False, False)
    return _result(ans, (_as_given(b, dx), residuals, np.zeros(np.shape(ans[2])), sv))


def matrix_power_tangent(a, a_dot, n):
    """``d(B^m) = sum_k B^k dB B^(m-1-k)`` (``B = inv(a)``, ``dB = -B da B`` for ``n < 0``),
    by the recurrence ``d(B^(j+1)) = d(B^j) B + B^j dB``."""
    if n == 0:
        return np.zeros(np.shape(a))
    base, d_base = a, a_dot
    if n < 0:
        base = np.linalg.inv(a)
        d_base = -np.matmul(base, np.matmul(a_dot, base))
    out, power = d_base, base
    for _ in range(abs(n) - 1):
        out = np.matmul(out, base) + np.matmul(power, d_base)
        power = np.matmul(power, base)
    return out


def _one_at_a_time(product, operands, dots):
    """A multilinear ``product`` of ``operands``: the sum over each operand of the product
    with that operand replaced by its tangent."""
    operands = list(operands)
    total = 0.0
    for i, dot in enumerate(dots):
        total = total + product(operands[:i] + [dot] + operands[i + 1:])
    return total


def multi_dot_tangent(arrays, arrays_dot):
    return _one_at_a_time(np.linalg.multi_dot, arrays, arrays_dot)


def einsum_list_tangent(subscripts, operands, operands_dot):
    return _one_at_a_time(lambda ops: np.einsum(subscripts, *ops), operands, operands_dot)


def permute_tangent(a, a_dot, ans, axis):
    """``np.sort``/``np.partition``: each item's tangent is its source element's, found as
    ``permute_grad`` finds it (stable sorts of both: ties matched in order of position)."""
    if axis is None:
        a, a_dot, axis = np.ravel(a), np.ravel(a_dot), -1
    order = np.argsort(a, axis, kind="stable")
    found = np.argsort(ans, axis, kind="stable")
    source = np.take_along_axis(order, np.argsort(found, axis, kind="stable"), axis)
    return np.take_along_axis(np.broadcast_to(a_dot, np.shape(a)), source, axis)


def cumprod_tangent(a, a_dot, ans, axis):
    """``c_i = c_(i-1) a_i``, so ``dc_i = dc_(i-1) a_i + c_(i-1) da_i``: ``c * cumsum(da / a)``
    where nothing is 0 or infinite, else the recurrence itself (exact at zeros)."""
    if axis is None:
        a, a_dot, ans, axis = np.ravel(a), np.ravel(a_dot), np.ravel(ans), 0
    a_dot = np.broadcast_to(a_dot, np.shape(a))
    if np.all(a != 0) and np.all(np.isfinite(ans)) and np.all(ans != 0):
        return ans * np.cumsum(a_dot / a, axis=axis)
    a, a_dot, c = (np.moveaxis(v, axis, 0) for v in (a, a_dot, ans))
    out = np.empty(np.shape(c))
    out[0] = a_dot[0]
    for i in range(1, len(out)):
        out[i] = out[i - 1] * a[i] + c[i - 1] * a_dot[i]
    return np.moveaxis(out, 0, axis)


def extreme_tangent(args, args_dot, pick):
    """The builtin ``max``/``min``: the tangent of the first extreme argument (``pick``:
    np.argmax/np.argmin), or item of the one iterable argument."""
    if len(args) == 1:
        return args_dot[0][pick(args[0])]
    return args_dot[pick(args)]


def hypot_tangent(coordinates, coordinates_dot, ans):
    """``sum(c dc) / hypot``: 0 at the origin (``hypot_grad``)."""
    return sum(c * d for c, d in zip(coordinates, coordinates_dot)) / nonzero(ans)


def nan_to_num_tangent(x, x_dot, nan_dot, posinf_dot, neginf_dot):
    """The tangent of the value written where ``x`` is NaN or infinite, else ``x``'s."""
    return np.where(np.isnan(x), nan_dot, np.where(
        x == np.inf, posinf_dot, np.where(x == -np.inf, neginf_dot, x_dot)))


def interp_tangent(x, x_dot, xp, fp, fp_dot, left, left_dot, right, right_dot, period):
    """``np.interp`` is linear in ``fp``, ``left`` and ``right`` together; in ``x`` its slope
    is ``interp_grad_x``'s (the segment to the right at a knot)."""
    from .selection import interp_grad_x

    along_x = interp_grad_x(x_dot, x, xp, fp, period)
    ends = [None if v is None else d for v, d in ((left, left_dot), (right, right_dot))]
    return along_x + np.interp(x, xp, fp_dot, ends[0], ends[1])


def logsumexp_tangent(a, a_dot, axis, b, b_dot, keepdims, return_sign):
    """``sum(w da + e db)`` over the reduced axes, ``e = exp(a - logsumexp(a, b))``,
    ``w = b e``."""
    import scipy.special

    if return_sign:
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True)")
    scale = np.exp(a - scipy.special.logsumexp(a, axis=axis, b=b, keepdims=True))
    weights = scale if b is None else scale * b
    return np.sum(weights * a_dot + scale * b_dot, axis=axis, keepdims=keepdims)


def pad_tangent(array, array_dot, pad_width, mode, constant_values_dot, reflect_type):
    """Tangent of ``np.pad(array, pad_width, mode, ...)``: the tangent padded alike where the
    padded places copy the array's (``edge``, ``reflect``, ``symmetric``, ``wrap``), with
    the constant values' tangents (``constant``); other modes are refused, as the adjoint
    refuses them (the tangent of a maximum or a ramp to constant end values is not the
    tangent padded so)."""
    from .layout import pad_maps, pad_pairs

    pairs = pad_pairs(np.ndim(array), pad_width)
    if mode == "constant":
        return np.pad(array_dot, pairs, mode="constant", constant_values=constant_values_dot)
    pad_maps(np.shape(array), pairs, mode, reflect_type)  # (refuses the other modes)
    if mode in ("reflect", "symmetric"):
        return np.pad(array_dot, pairs, mode=mode, reflect_type=reflect_type)
    return np.pad(array_dot, pairs, mode=mode)


def cast_tangent(dot, ans):
    """The tangent of a value cast to ``ans``'s dtype: cast alike where it is inexact, 0 for
    an integer or boolean one (piecewise constant: the reverse rule's ``real_grad``)."""
    if np.asarray(ans).dtype.kind in "fc":
        return np.asarray(dot).astype(np.asarray(ans).dtype)
    return np.zeros(np.shape(ans))


def qr_any_tangent(a, a_dot, ans, mode):
    """Tangent of ``np.linalg.qr(a, mode)`` for any shape: ``m < n`` as in
    ``qr_wide_grad`` (``[X | Y]``: the square tangent of ``qr(X)``, and ``dR_Y = dQ^T Y +
    Q^T dY``); otherwise ``qr_tangent``."""
    m = np.shape(a)[-2]
    n = np.shape(a)[-1]
    if m >= n or mode == "raw":
        return qr_tangent(a, a_dot, ans, mode)
    if mode == "r":
        q = np.linalg.qr(a)[0]
        r = ans
    else:
        q = ans[0]
        r = ans[1]
    if np.any(near_zero(np.abs(np.diagonal(r, axis1=-2, axis2=-1)))):
        return not_differentiable("np.linalg.qr of a matrix with fewer rows than columns whose "
                                  "leading square block is singular (Q is not unique there)")
    square = qr_tangent(a[..., :m], a_dot[..., :m], (q, r[..., :m]), "reduced")
    dq = square[0]
    dr_y = np.matmul(np.matrix_transpose(dq), a[..., m:]) \
        + np.matmul(np.matrix_transpose(q), a_dot[..., m:])
    dr = np.concatenate([square[1], dr_y], axis=-1)
    if mode == "r":
        return dr
    if hasattr(ans, "_fields"):
        return type(ans)(dq, dr)
    return (dq, dr)
