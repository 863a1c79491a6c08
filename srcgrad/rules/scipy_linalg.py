"""scipy.linalg's functions and np.linalg's others (cond, svdvals, tensorinv, tensorsolve, wide qr),
when SciPy is installed (optional, never required) for the scipy ones.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/linalg_plans.py``.

Most of scipy.linalg is np.linalg's math with other arguments: each is written out
over np.linalg's rules, argument by argument. What SciPy reads is what is
differentiated: ``assume_a='sym'``, ``'her'`` and ``'pos'`` read one triangle
(``lower``), ``'diagonal'``, ``'tridiagonal'`` and the triangular ones their part
only, so the matrix solved is built from that part and the gradient falls there.
Where NumPy's eigen- or singular vectors differ from SciPy's by a sign (another
LAPACK driver), a constant change of basis (``_sg.eigh_basis``) makes them SciPy's.
``overwrite_*=True`` is refused (it may write into a differentiated value), as is
every option not modelled, when the code runs.
"""
import numpy as np

from .. import runtime as _sg
from ..runtime import linalg_plans as _plans
from . import complexes
from .entry import Rule

# scipy.linalg, which the functions written out below call: set when a program has
# imported it (``_with_linalg``), never by ``import srcgrad``.
_linalg = None

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = {np.linalg.matrix_rank, _plans.check_finite, _plans.basis_change, _plans.eigh_basis,
           _plans.svd_bases, _plans.qr_pivots, _plans.pinv_rank, _plans.lstsq_rcond,
           _plans.gather_positions, _plans.banded_positions, _plans.positive_definite,
           _plans.structure_of, _plans.cond_singular}
# Forward mode (``rules/tangents.py``; merged last: np.linalg.qr's takes wide matrices).
EXPLICIT = {np.linalg.qr: "_sg.qr_any_tangent(a, a_dot, ans, mode)"}


# ---------------------------------------------------------------------------
# np.linalg
# ---------------------------------------------------------------------------

def cond(x, p=None):
    """``np.linalg.cond``: the ratio of the extreme singular values (``p`` None, 2, -2), or
    ``norm(x, p) * norm(inv(x), p)`` ('fro', 'nuc', 1, -1, inf, -inf). Refused at a
    singular matrix (NumPy's value there is infinite)."""
    if p is None or p == 2 or p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        if _sg.cond_singular(s):
            _sg.not_differentiable("np.linalg.cond of a singular matrix (its value is inf)")
        if p == -2:
            return s[..., -1] / s[..., 0]
        return s[..., 0] / s[..., -1]
    if np.ndim(x) < 2 or np.shape(x)[-1] != np.shape(x)[-2]:
        raise np.linalg.LinAlgError(
            "Last 2 dimensions of the array must be square")
    return np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(np.linalg.inv(x), p,
                                                                axis=(-2, -1))


def svdvals(x):
    """``np.linalg.svdvals`` (NumPy 2): the singular values."""
    return np.linalg.svd(x, compute_uv=False)


def tensorinv(a, ind=2):
    """``np.linalg.tensorinv``: ``inv`` of ``a`` reshaped to a square matrix."""
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    shape = np.shape(a)
    rows = 1
    for k in shape[:ind]:
        rows = rows * k
    inverse = np.linalg.inv(np.reshape(a, (rows, -1)))
    return np.reshape(inverse, shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    """``np.linalg.tensorsolve``: ``solve`` of ``a`` (its ``axes`` moved last) reshaped to
    a square matrix, with ``b`` raveled."""
    an = np.ndim(a)
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = np.transpose(a, order)
    shape = np.shape(a)[-(an - np.ndim(b)):]
    size = 1
    for k in shape:
        size = size * k
    if np.size(a) != size * size:
        raise np.linalg.LinAlgError(
            "Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
            "prod(a.shape[:b.ndim])")
    return np.reshape(np.linalg.solve(np.reshape(a, (size, size)), np.ravel(b)), shape)


REWRITES = {np.linalg.cond: cond, np.linalg.tensorinv: tensorinv,
            np.linalg.tensorsolve: tensorsolve}
if hasattr(np.linalg, "svdvals"):
    REWRITES[np.linalg.svdvals] = svdvals


# ---------------------------------------------------------------------------
# scipy.linalg
# ---------------------------------------------------------------------------

def _refuse_overwrite(what, *flags):
    for flag in flags:
        if flag:
            _sg.not_differentiable(f"scipy.linalg.{what} with overwrite_a=True or "
                                   "overwrite_b=True (it may write into a differentiated "
                                   "value; leave them False)")


def _conj(z):
    """The complex conjugate, exactly, as ``2 Re z - z`` (no ``np.conjugate`` named: code
    that names it is compiled for complex values, out of forward mode)."""
    return 2.0 * np.real(z) - z


def _from_triangle(a, lower, hermitian):
    """The symmetric (Hermitian) matrix that one triangle of ``a`` stands for, as LAPACK's
    ``sy*``/``he*``/``po*`` routines read it: the other triangle is never read, nor the
    imaginary part of a Hermitian one's diagonal."""
    if lower:
        part = np.tril(a, -1)
    else:
        part = np.triu(a, 1)
    if hermitian and np.iscomplexobj(a):
        return part + _conj(np.matrix_transpose(part)) + np.real(a) * np.eye(np.shape(a)[-1])
    return part + np.matrix_transpose(part) + a * np.eye(np.shape(a)[-1])


_SOLVE_STRUCTURES = {
    None: "general", "general": "general", "gen": "general", "diagonal": "diagonal",
    "tridiagonal": "tridiagonal", "upper triangular": "upper", "lower triangular": "lower",
    "pos": "pos", "positive definite": "pos", "sym": "sym", "symmetric": "sym",
    "her": "her", "hermitian": "her", "banded": "banded",
}
_INV_STRUCTURES = {
    None: "general", "general": "general", "gen": "general", "diagonal": "diagonal",
    "upper triangular": "upper", "lower triangular": "lower", "pos": "pos", "sym": "sym",
    "her": "her",
}


def _structured(what, a, structure, lower):
    """The matrix scipy.linalg solves with (inverts) for ``assume_a``'s ``structure``:
    the part of ``a`` it reads. ``'pos'`` raises SciPy's ``LinAlgError`` where the
    matrix is not positive definite."""
    n = np.shape(a)[-1]
    if structure == "general":
        return a
    if structure == "diagonal":
        return a * np.eye(n)
    if structure == "tridiagonal":
        return a * (np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1))
    if structure == "upper":
        return np.triu(a)
    if structure == "lower":
        return np.tril(a)
    full = _from_triangle(a, lower, structure != "sym")
    if structure == "pos":
        _sg.positive_definite(what, full)
    return full


def det(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.det``: ``np.linalg.det``."""
    _refuse_overwrite("det", overwrite_a)
    if check_finite:
        _sg.check_finite("scipy.linalg.det", a)
    return np.linalg.det(a)


def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """``scipy.linalg.inv``: ``np.linalg.inv`` of the part of ``a`` that ``assume_a`` reads."""
    _refuse_overwrite("inv", overwrite_a)
    if check_finite:
        _sg.check_finite("scipy.linalg.inv", a)
    structure = _sg.structure_of("scipy.linalg.inv", assume_a, _INV_STRUCTURES)
    if structure == "diagonal":  # (SciPy 1.17 inverts the diagonal and keeps the rest of a)
        n = np.shape(a)[-1]
        return np.where(np.eye(n, dtype=bool), 1.0 / np.where(np.eye(n, dtype=bool), a, 1.0),
                        a)
    return np.linalg.inv(_structured("scipy.linalg.inv", a, structure, lower))


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    """``scipy.linalg.solve``: ``np.linalg.solve`` with the part of ``a`` that ``assume_a``
    reads (``None``: SciPy finds the structure exactly, so the general solve), or its
    transpose; a 1-D ``b`` is one right-hand side."""
    _refuse_overwrite("solve", overwrite_a, overwrite_b)
    if check_finite:
        _sg.check_finite("scipy.linalg.solve", a, b)
    structure = _sg.structure_of("scipy.linalg.solve", assume_a, _SOLVE_STRUCTURES)
    if transposed and np.iscomplexobj(a):
        raise NotImplementedError("scipy.linalg.solve can currently not solve a^T x = b or "
                                  "a^H x = b for complex matrices.")
    if np.ndim(a) < 2 or np.shape(a)[-1] != np.shape(a)[-2]:
        raise ValueError(f"Expected square matrix, got a.shape={np.shape(a)}")
    if np.size(a) == 1 and np.ndim(a) == 2:  # (SciPy divides by a 1 x 1 matrix)
        return b / np.reshape(a, ())
    m = _structured("scipy.linalg.solve", a, structure, lower)
    if transposed:
        m = np.matrix_transpose(m)
    if np.ndim(b) == 1:
        return np.linalg.solve(m, np.expand_dims(b, -1))[..., 0]
    return np.linalg.solve(m, b)


def _eigh_refusals(what, b, type, subset_by_value, overwrite_a, overwrite_b):
    _refuse_overwrite(what, overwrite_a, overwrite_b)
    if b is not None or type != 1:
        _sg.not_differentiable(f"scipy.linalg.{what} of a generalized problem (b=, type=): "
                               "write it through scipy.linalg.cholesky of b and the "
                               "standard problem")
    if subset_by_value is not None:
        _sg.not_differentiable(f"scipy.linalg.{what} with subset_by_value= (use "
                               "subset_by_index=, or select the eigenvalues yourself)")


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """``scipy.linalg.eigh`` of the standard problem: ``np.linalg.eigh`` of the triangle
    ``lower`` names, the eigenvectors turned into SciPy's (a sign each, or a rotation
    within a repeated eigenvalue: a constant), ``subset_by_index`` a slice.

    The signs are a convention, not a function of the matrix: SciPy's default driver
    ('evr') picks them anew under perturbations of the size of rounding, so a loss
    that depends on them (``v[0, 0]``, not ``v[0, 0] ** 2`` or ``v @ diag(f(w)) @
    v.T``) has no derivative; its gradient here is that of the sign kept constant."""
    _eigh_refusals("eigh", b, type, subset_by_value, overwrite_a, overwrite_b)
    if check_finite:
        _sg.check_finite("scipy.linalg.eigh", a)
    if lower:
        uplo = "L"
    else:
        uplo = "U"
    if eigvals_only:
        w = np.linalg.eigvalsh(a, uplo)
    else:
        w, v = np.linalg.eigh(a, uplo)
    if not eigvals_only:
        v = np.matmul(v, _sg.eigh_basis(a, w, v, lower, driver, subset_by_index))
    if subset_by_index is not None:
        first = int(subset_by_index[0])
        last = int(subset_by_index[1])
        w = w[..., first:last + 1]
        if not eigvals_only:
            v = v[..., first:last + 1]
    if eigvals_only:
        return w
    return w, v


def eigvalsh(a, b=None, *, lower=True, overwrite_a=False, overwrite_b=False, type=1,
             check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """``scipy.linalg.eigvalsh``: ``eigh``'s eigenvalues."""
    _eigh_refusals("eigvalsh", b, type, subset_by_value, overwrite_a, overwrite_b)
    return eigh(a, lower=lower, eigvals_only=True, check_finite=check_finite,
                subset_by_index=subset_by_index, driver=driver)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """``scipy.linalg.svd``: ``np.linalg.svd``, the singular vectors turned into SciPy's (a
    sign each, shared by ``u_i`` and ``v_i``: a constant)."""
    _refuse_overwrite("svd", overwrite_a)
    if check_finite:
        _sg.check_finite("scipy.linalg.svd", a)
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f'lapack_driver must be "gesdd" or "gesvd", not "{lapack_driver}"')
    if not compute_uv:
        return np.linalg.svd(a, compute_uv=False)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    bases = _sg.svd_bases(a, s, u, vh, full_matrices, lapack_driver)
    return np.matmul(u, bases[0]), s, np.matmul(bases[1], vh)


def scipy_svdvals(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.svdvals``: the singular values."""
    return svd(a, compute_uv=False, overwrite_a=overwrite_a, check_finite=check_finite)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """``scipy.linalg.qr``: ``np.linalg.qr`` ('full' is NumPy's 'complete', 'economic'
    its 'reduced'; 'r' a 1-tuple of the full ``R``); ``pivoting=True`` the QR of the
    columns gathered in LAPACK's pivot order (piecewise constant), returned with it."""
    _refuse_overwrite("qr", overwrite_a)
    if check_finite:
        _sg.check_finite("scipy.linalg.qr", a)
    if mode not in ("full", "qr", "r", "economic", "raw"):
        raise ValueError("Mode argument should be one of ['full', 'r', 'economic', 'raw']")
    if mode == "raw":
        _sg.not_differentiable("scipy.linalg.qr with mode='raw' (Householder reflectors; "
                               "use mode='full' or 'economic')")
    if np.ndim(a) != 2:
        _sg.not_differentiable("scipy.linalg.qr of a stack of matrices (call it on each one)")
    if pivoting:
        order = _sg.qr_pivots(a)
        a = a[:, order]
    if mode == "economic":
        q, r = np.linalg.qr(a, "reduced")
    elif mode == "r":
        r = np.linalg.qr(a, "complete")[1]
    else:
        q, r = np.linalg.qr(a, "complete")
    if mode == "r":
        if pivoting:
            return r, order
        return (r,)
    if pivoting:
        return q, r, order
    return q, r


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    """``scipy.linalg.pinv`` where it keeps every singular value (otherwise refused, as
    ``np.linalg.pinv``): ``np.linalg.pinv`` with no cutoff."""
    if check_finite:
        _sg.check_finite("scipy.linalg.pinv", a)
    rank = _sg.pinv_rank("scipy.linalg.pinv", np.linalg.svd(a, compute_uv=False), np.shape(a),
                         atol, rtol)
    out = np.linalg.pinv(a, rtol=0.0)
    if return_rank:
        return out, rank
    return out


def pinvh(a, atol=None, rtol=None, lower=True, return_rank=False, check_finite=True):
    """``scipy.linalg.pinvh`` where it keeps every eigenvalue (otherwise refused): the
    inverse of the symmetric (Hermitian) matrix its triangle ``lower`` stands for."""
    if check_finite:
        _sg.check_finite("scipy.linalg.pinvh", a)
    full = _from_triangle(a, lower, True)
    rank = _sg.pinv_rank("scipy.linalg.pinvh", np.abs(np.linalg.eigvalsh(full)), np.shape(a),
                         atol, rtol)
    out = np.linalg.inv(full)
    if return_rank:
        return out, rank
    return out


def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    """``scipy.linalg.norm``: ``np.linalg.norm``."""
    if check_finite:
        _sg.check_finite("scipy.linalg.norm", a)
    return np.linalg.norm(a, ord, axis, keepdims)


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True,
          lapack_driver=None):
    """``scipy.linalg.lstsq``: ``x, residues, rank, s`` from ``np.linalg.lstsq`` at SciPy's
    cutoff (residues a number for a 1-D ``b``, none unless ``m > n`` at full rank;
    ``s`` None for 'gelsy'). A rank-deficient ``a`` is refused (np.linalg.lstsq's rule)."""
    _refuse_overwrite("lstsq", overwrite_a, overwrite_b)
    if check_finite:
        _sg.check_finite("scipy.linalg.lstsq", a, b)
    if lapack_driver not in (None, "gelsd", "gelsy", "gelss"):
        raise ValueError(f'LAPACK driver "{lapack_driver}" is not found')
    if np.ndim(a) != 2 or np.ndim(b) > 2:
        _sg.not_differentiable("scipy.linalg.lstsq of a stack of matrices (call it on each "
                               "one)")
    x, residues, rank, s = np.linalg.lstsq(a, b, rcond=_sg.lstsq_rcond(a, b, cond))
    if np.ndim(b) == 1 and np.size(residues) == 1:
        residues = residues[0]
    if lapack_driver == "gelsy":
        return x, residues, int(rank), None
    return x, residues, int(rank), s


def _gather(build, arrays):
    """``build(*arrays)`` for a SciPy function that only places entries (and zeros): a
    gather from the arrays' entries, in SciPy's own layout."""
    index = _sg.gather_positions(build, [np.shape(x) for x in arrays])
    flat = np.concatenate([np.zeros(1)] + [np.ravel(x) for x in arrays])
    return flat[index]


def block_diag(*arrs):
    """``scipy.linalg.block_diag``: the arrays on the diagonal of a matrix of zeros."""
    if len(arrs) == 0:
        return _linalg.block_diag()
    return _gather(_linalg.block_diag, arrs)


def toeplitz(c, r=None):
    """``scipy.linalg.toeplitz``: first column ``c``, first row ``r`` (``conj(c)`` by
    default)."""
    if r is None and np.iscomplexobj(c):
        r = _conj(c)
    elif r is None:
        r = c
    return _gather(_linalg.toeplitz, [c, r])


def hankel(c, r=None):
    """``scipy.linalg.hankel``: first column ``c``, last row ``r`` (zeros by default)."""
    if r is None:
        return _gather(_linalg.hankel, [c])
    return _gather(_linalg.hankel, [c, r])


def circulant(c):
    """``scipy.linalg.circulant``: the shifts of ``c``."""
    return _gather(_linalg.circulant, [c])


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """``scipy.linalg.solve_banded``: ``np.linalg.solve`` of the dense matrix the band
    storage ``ab`` stands for (a gather)."""
    _refuse_overwrite("solve_banded", overwrite_ab, overwrite_b)
    if check_finite:
        _sg.check_finite("scipy.linalg.solve_banded", ab, b)
    if np.ndim(ab) != 2:
        _sg.not_differentiable("scipy.linalg.solve_banded of a stack of bands")
    place = _sg.banded_positions(l_and_u, np.shape(ab))
    dense = np.where(place[1], np.ravel(ab)[place[0]], 0.0)
    if np.ndim(b) == 1:
        return np.linalg.solve(dense, np.expand_dims(b, -1))[..., 0]
    return np.linalg.solve(dense, b)


def solveh_banded(ab, b, overwrite_ab=False, overwrite_b=False, lower=False,
                  check_finite=True):
    """``scipy.linalg.solveh_banded``: ``np.linalg.solve`` of the symmetric positive
    definite matrix whose one triangle ``ab`` stores (real values only)."""
    _refuse_overwrite("solveh_banded", overwrite_ab, overwrite_b)
    if check_finite:
        _sg.check_finite("scipy.linalg.solveh_banded", ab, b)
    if np.ndim(ab) != 2 or np.iscomplexobj(ab):
        _sg.not_differentiable("scipy.linalg.solveh_banded of a stack of bands or of complex "
                               "values")
    band = np.shape(ab)[0] - 1
    place = _sg.banded_positions((band, band), np.shape(ab), lower)
    dense = np.where(place[1], np.ravel(ab)[place[0]], 0.0)
    _sg.positive_definite("scipy.linalg.solveh_banded", dense)
    if np.ndim(b) == 1:
        return np.linalg.solve(dense, np.expand_dims(b, -1))[..., 0]
    return np.linalg.solve(dense, b)


def _frechet_block(fn, a, e):
    """The Fréchet derivative of the matrix function ``fn`` at ``a`` in direction ``e``: the
    top right block of ``fn([[a, e], [0, a]])`` (Higham, Functions of Matrices, 3.16)."""
    n = np.shape(a)[-1]
    top = np.concatenate([a, e], axis=-1)
    bottom = np.concatenate([np.zeros_like(a), a], axis=-1)
    return fn(np.concatenate([top, bottom], axis=-2))[..., :n, n:]


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """``scipy.linalg.expm_frechet``: ``expm(A)`` and the Fréchet derivative of ``expm`` at
    ``A`` in direction ``E``, from ``expm`` of the block matrix ``[[A, E], [0, A]]``
    (through ``expm``'s rule, so every order follows; equal to SciPy's to rounding)."""
    if check_finite:
        _sg.check_finite("scipy.linalg.expm_frechet", A, E)
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"Unknown implementation {method}")
    if np.ndim(A) != 2 or np.shape(A)[0] != np.shape(A)[1]:
        raise ValueError("expected A to be a square matrix")
    if np.shape(E) != np.shape(A):
        raise ValueError("expected A and E to be the same shape")
    frechet = _frechet_block(_linalg.expm, A, E)
    if compute_expm:
        return _linalg.expm(A), frechet
    return frechet


def _matrix_function(name):
    grad = f"_sg.matrix_function_grad('{name}', g, ans, A)"
    if name != "expm":
        grad = f"_sg.matrix_function_grad('{name}', g, ans, A, disp, blocksize)"
        return Rule("A, disp=None, blocksize=None", rank="same", rows={"A": grad}, A=grad)
    return Rule("A", rank="same", rows={"A": grad}, A=grad)


def _with_linalg(linalg):
    """The entries and functions written out keyed on ``scipy.linalg``'s functions: added
    when a program has imported it (``rules/optional.py``)."""
    global _linalg
    _linalg = linalg
    REWRITES.update({
        linalg.det: det, linalg.inv: inv, linalg.solve: solve, linalg.eigh: eigh,
        linalg.eigvalsh: eigvalsh, linalg.svd: svd, linalg.svdvals: scipy_svdvals,
        linalg.qr: qr, linalg.pinv: pinv, linalg.pinvh: pinvh, linalg.norm: norm,
        linalg.lstsq: lstsq, linalg.block_diag: block_diag, linalg.toeplitz: toeplitz,
        linalg.hankel: hankel, linalg.circulant: circulant,
        linalg.solve_banded: solve_banded, linalg.solveh_banded: solveh_banded,
        linalg.expm_frechet: expm_frechet,
    })
    TABLE.update({linalg.expm: _matrix_function("expm"),
                  linalg.sqrtm: _matrix_function("sqrtm"),
                  linalg.logm: _matrix_function("logm")})
    # Their adjoint's helper is written in TensorFlow's convention for complex values
    # (a real matrix with a negative eigenvalue has a complex square root or logarithm).
    complexes.EXPLICIT.update({f: dict(TABLE[f].grads) for f in (linalg.expm, linalg.sqrtm,
                                                                 linalg.logm)})
    EXPLICIT.update({linalg.expm: "_sg.expm_frechet_block(A, A_dot)",
                     linalg.sqrtm: "_sg.matrix_function_tangent('sqrtm', A_dot, ans, A, "
                                   "disp, blocksize)",
                     linalg.logm: "_sg.matrix_function_tangent('logm', A_dot, ans, A, disp, "
                                  "blocksize)"})


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.linalg": _with_linalg}
