"""Helpers of ``rules/scipy_linalg.py``, reached as ``_sg.<name>``.

The planning helpers (``NONDIFF``: never differentiated) read shapes, options and
SciPy's own results: where NumPy's factors differ from SciPy's by a sign or phase
per column (eigenvectors from another LAPACK driver), ``basis_change`` gives the
constant matrix that turns one into the other, so that the written-out function
returns exactly SciPy's values and differentiates through NumPy's rules. The
differentiable helpers of the matrix functions (``matrix_function_grad``) are in
``runtime/decompositions.py`` with the other adjoints of decompositions.
"""
import numpy as np

from .adjoints import not_differentiable
from .decompositions import close_pairs

__all__ = [
    # planning (non-differentiable)
    "check_finite", "basis_change", "eigh_basis", "svd_bases", "qr_pivots", "pinv_rank",
    "lstsq_rcond", "gather_positions", "banded_positions", "positive_definite",
    "structure_of", "cond_singular",
]


def check_finite(what, *arrays):
    """SciPy's ``check_finite=True``: a ``ValueError`` for an infinity or NaN, as SciPy
    raises, naming the function ``what``."""
    for a in arrays:
        if a is not None and not np.all(np.isfinite(a)):
            raise ValueError(f"{what}: array must not contain infs or NaNs")


def basis_change(v, ref, same):
    """The constant matrix ``R`` (block-diagonal along ``same``, a boolean ``[..., i, j]``
    of columns that may mix: a repeated eigen- or singular value) with ``v @ R ==
    ref`` for two orthonormal bases of the same spaces, column by column. Columns of
    their own get a sign (a unit phase for complex ones), exactly."""
    inner = np.matmul(np.conj(np.swapaxes(v, -1, -2)), ref)
    alone = np.sum(same, axis=-1, keepdims=True) == 1
    if np.iscomplexobj(inner):
        unit = inner / np.where(inner == 0, 1.0, np.abs(inner))
    else:
        unit = np.where(inner < 0, -1.0, 1.0)
    return np.where(same, np.where(alone, unit, inner), 0.0)


def eigh_basis(a, w, v, lower, driver, subset_by_index=None):
    """``R`` with ``v @ R`` the eigenvectors ``scipy.linalg.eigh(a, lower=lower,
    driver=driver, subset_by_index=...)`` returns (in the columns of the subset),
    ``v`` NumPy's."""
    import scipy.linalg

    ref = scipy.linalg.eigh(np.asarray(a), lower=lower, driver=driver, check_finite=False,
                            subset_by_index=subset_by_index)[1]
    if subset_by_index is not None:
        full = np.array(v)
        full[..., int(subset_by_index[0]):int(subset_by_index[1]) + 1] = ref
        ref = full
    return basis_change(v, ref, close_pairs(w))


def svd_bases(a, s, u, vh, full_matrices, lapack_driver):
    """``(Ru, Rv)`` with ``u @ Ru`` and ``Rv @ vh`` SciPy's singular vectors, ``u, s, vh``
    NumPy's. A repeated singular value's vectors mix within their group; columns
    past ``min(m, n)`` (``full_matrices``) within theirs."""
    import scipy.linalg

    ref_u, _, ref_vh = scipy.linalg.svd(np.asarray(a), full_matrices=full_matrices,
                                        lapack_driver=lapack_driver, check_finite=False)
    return (basis_change(u, ref_u, _groups(s, np.shape(u)[-1])),
            np.conj(np.swapaxes(basis_change(np.conj(np.swapaxes(vh, -1, -2)),
                                             np.conj(np.swapaxes(ref_vh, -1, -2)),
                                             _groups(s, np.shape(vh)[-2])), -1, -2)))


def _groups(s, size):
    """Which of ``size`` columns may mix: those of equal singular values ``s``, and all
    past ``len(s)`` together."""
    k = np.shape(s)[-1]
    same = np.zeros(np.shape(s)[:-1] + (size, size), dtype=bool)
    same[..., :k, :k] = close_pairs(s)
    same[..., k:, k:] = True
    return same


def qr_pivots(a):
    """The column order of ``scipy.linalg.qr(a, pivoting=True)`` (LAPACK's geqp3)."""
    import scipy.linalg

    return scipy.linalg.qr(np.asarray(a), mode="r", pivoting=True, check_finite=False)[1]


def pinv_rank(what, s, shape, atol, rtol):
    """The rank ``scipy.linalg.pinv`` keeps (singular or eigenvalue magnitudes ``s`` above
    ``atol + rtol * max``, its defaults): refused below ``min(m, n)``."""
    atol = 0.0 if atol is None else atol
    rtol = max(shape[-2:]) * np.finfo(np.result_type(s)).eps if rtol is None else rtol
    if atol < 0.0 or rtol < 0.0:
        raise ValueError("atol and rtol values must be positive.")
    cut = atol + np.max(s, axis=-1, keepdims=True, initial=0.0) * rtol
    ranks = np.sum(s > cut, axis=-1)
    if np.any(ranks < min(shape[-2:])):
        not_differentiable(
            f"{what} of a matrix whose small singular values it drops (rank below "
            "min(m, n): it jumps as a perturbation raises the rank; write it through "
            "full-rank factors)")
    return int(np.min(ranks)) if np.ndim(ranks) == 0 else ranks


def lstsq_rcond(a, b, cond):
    """``rcond`` for ``np.linalg.lstsq`` that cuts where ``scipy.linalg.lstsq``'s ``cond``
    does (its default: the machine precision of the result's type)."""
    if cond is None:
        return float(np.finfo(np.result_type(a, b, 1.0)).eps)
    return cond


def gather_positions(build, shapes):
    """Where each entry of ``build(*arrays)`` comes from, for arrays of ``shapes``: the
    index into ``[0] + ravel(array 0) + ravel(array 1) + ...``, 0 for a built zero.
    ``build`` is SciPy's own function, run on the positions (so the layout is its)."""
    positions = []
    start = 1
    for shape in shapes:
        size = int(np.prod(shape, dtype=int))
        positions.append(np.reshape(np.arange(start, start + size), shape))
        start = start + size
    return np.asarray(build(*positions))


def banded_positions(l_and_u, shape_ab, lower_only=None):
    """``(index, mask)`` of the dense matrix of a banded one stored as ``ab`` of
    ``shape_ab`` (LAPACK's band storage: ``a[i, j] = ab[u + i - j, j]``): ``index``
    into ``ravel(ab)``, ``mask`` where the band is. ``lower_only``: ``solveh_banded``'s
    one triangle (``True`` lower, ``False`` upper), mirrored onto the other."""
    low, up = l_and_u
    n = shape_ab[-1]
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if lower_only is None:
        row = up + i - j
        inside = (i - j <= low) & (j - i <= up)
    elif lower_only:
        row = np.where(i >= j, i - j, j - i)
        inside = np.abs(i - j) <= low
        j = np.where(i >= j, j, i)
    else:
        row = np.where(i <= j, up + i - j, up + j - i)
        inside = np.abs(i - j) <= up
        j = np.where(i <= j, j, i)
    row = np.where(inside, row, 0)
    col = np.broadcast_to(j, (n, n))
    return row * n + col, inside


def positive_definite(what, s):
    """SciPy's ``LinAlgError`` for a matrix that is not positive definite (``assume_a=
    'pos'``, ``solveh_banded``), from the Cholesky factorization SciPy runs."""
    try:
        np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(f"{what}: the matrix is not positive definite") from None


def structure_of(what, assume_a, names):
    """The structure name of ``assume_a`` in ``names`` (SciPy's spellings), or SciPy's
    ``ValueError``; ``'banded'`` is refused."""
    if assume_a == "banded":
        not_differentiable(f"{what} with assume_a='banded' (it reads a band it finds in the "
                           "matrix; pass the band to scipy.linalg.solve_banded)")
    if assume_a not in names:
        raise ValueError(f"{assume_a} is not a recognized matrix structure")
    return names[assume_a]


def cond_singular(s):
    """Whether ``np.linalg.cond`` meets a singular matrix (a zero singular value), where
    its value is infinite and it has no derivative."""
    return bool(np.any(s[..., -1] == 0))
