"""Rule cases of ``srcgrad/rules/decompositions.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # SciPy is optional: its rules exist only when it is installed
    scipy_linalg = None


def cases(t):
    class Triangle(t.Gen):
        """A symmetric matrix (``kind`` 'spd': positive definite, 'sym': indefinite) in
        one triangle (``shape[-1]`` names it, 'L' or 'U'), noise in the other: the
        functions that read one triangle must give the other no gradient."""

        def __call__(self, rng):
            *shape, uplo = self.shape
            n = shape[-1]
            x = rng.standard_normal(shape)
            if self.kind == "spd":
                sym = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
            else:  # eigenvalues spread apart: well inside the derivative's domain
                q = np.linalg.qr(x)[0]
                sym = (q * (np.arange(n) - n / 2.0 + 0.3)) @ np.swapaxes(q, -1, -2)
            noise = rng.standard_normal(shape)
            if uplo == "L":
                return np.tril(sym) + np.triu(noise, 1)
            return np.triu(sym) + np.tril(noise, -1)

    def spd(*shape, uplo="L"):
        return Triangle("spd", shape + (uplo,))

    def sym(*shape, uplo="L"):
        return Triangle("sym", shape + (uplo,))

    C, R, M = t.C, t.R, t.M
    negative_det = np.array([[0.5, 2.0, 0.1], [1.5, -0.3, 0.4], [0.2, 0.7, 1.9]])
    return _numpy_cases(C, R, M, spd, sym, negative_det) + _scipy_cases(C, R, M, spd)


def _scipy_cases(C, R, M, spd):
    if scipy_linalg is None:
        return []
    sl = scipy_linalg
    # M: a well-conditioned matrix, so also its triangles; a factor for cho_solve
    # (only the triangle named by lower is read).
    return [
        C(sl.solve_triangular, M(3, 3), R(3), lower=True, id="lower"),
        C(sl.solve_triangular, M(3, 3), R(3, 2), id="upper"),
        C(sl.solve_triangular, M(3, 3), R(3, 2), trans=1, lower=True, id="trans"),
        C(sl.solve_triangular, M(3, 3), R(3), "T", id="trans-upper"),
        C(sl.solve_triangular, M(3, 3), R(3), 2, True, id="conjugate-transpose"),
        C(sl.solve_triangular, M(4, 4), R(4, 2), lower=True, unit_diagonal=True, id="unit"),
        C(sl.solve_triangular, M(4, 4), R(4), trans=1, unit_diagonal=True, id="unit-trans"),
        C(sl.solve_triangular, M(2, 3, 3), R(2, 3, 2), lower=True, id="batched"),
        C(sl.solve_triangular, M(2, 3, 3), R(3), id="batched-vector"),
        C(sl.solve_triangular, M(3, 3), R(2, 3, 2), lower=True, id="broadcast-a"),
        C(sl.cholesky, spd(3, 3, uplo="U")),
        C(sl.cholesky, spd(4, 4), lower=True, id="lower"),
        C(sl.cholesky, spd(2, 3, 3, uplo="U"), id="batched"),
        C(sl.cho_factor, spd(3, 3, uplo="U")),
        C(sl.cho_factor, spd(4, 4), True, id="lower"),
        # The flag gets a (zero) adjoint; perturbed it stays truthy, but False does not.
        C(sl.cho_solve, (M(3, 3), True), R(3), wrt=("c_and_lower", "b"), id="lower"),
        C(sl.cho_solve, (M(4, 4), True), R(4, 2), wrt=("c_and_lower", "b"), id="lower-matrix"),
        C(sl.cho_solve, (M(3, 3), False), R(3, 2), wrt=("b",), id="upper-b"),
        # (M is well conditioned near the identity: A X + X B = Q has one solution.)
        C(sl.solve_sylvester, M(3, 3), M(2, 2), R(3, 2)),
        C(sl.solve_sylvester, M(2, 2), M(2, 2), R(2, 2), id="square"),
    ]


def phase_free(g, ans):
    """A seed of ``np.linalg.eig``'s result with no part along its eigenvectors' phases
    (``Im diag(V^H gv) = 0``), which NumPy fixes by convention only."""
    gw, gv = g
    v = ans[1]
    along = np.imag(np.sum(np.conj(v) * gv, axis=-2, keepdims=True))
    return [gw, gv - 1j * v * along]


def _numpy_cases(C, R, M, spd, sym, negative_det):
    return [
        C(np.linalg.cholesky, spd(3, 3)),
        C(np.linalg.cholesky, spd(2, 3, 3), id="batched"),
        C(np.linalg.cholesky, spd(4, 4, uplo="U"), upper=True, id="upper"),
        C(np.linalg.cholesky, spd(2, 3, 3, uplo="U"), upper=True, id="upper-batched"),
        C(np.linalg.slogdet, M(3, 3)),
        C(np.linalg.slogdet, negative_det, id="negative"),
        C(np.linalg.slogdet, M(2, 3, 3), id="batched"),
        C(np.linalg.eigh, sym(4, 4)),
        C(np.linalg.eigh, sym(4, 4, uplo="U"), "U", id="upper"),
        C(np.linalg.eigh, sym(2, 3, 3), id="batched"),
        C(np.linalg.eigh, spd(3, 3, uplo="U"), UPLO="u", id="lowercase"),
        C(np.linalg.eigvals, M(3, 3)), C(np.linalg.eigvals, M(2, 3, 3), id="batched"),
        C(np.linalg.eig, M(3, 3), cotangent=phase_free),
        C(np.linalg.eig, M(2, 3, 3), cotangent=phase_free, id="batched"),
        C(np.linalg.eigvalsh, sym(4, 4)),
        C(np.linalg.eigvalsh, sym(4, 4, uplo="U"), UPLO="U", id="upper"),
        C(np.linalg.eigvalsh, sym(2, 3, 3), id="batched"),
        C(np.linalg.svd, R(4, 3), full_matrices=False, id="tall"),
        C(np.linalg.svd, R(3, 5), full_matrices=False, id="wide"),
        C(np.linalg.svd, R(3, 3), id="square-full"),
        C(np.linalg.svd, R(2, 4, 3), full_matrices=False, id="batched"),
        C(np.linalg.svd, R(4, 3), compute_uv=False, id="values"),
        C(np.linalg.svd, R(2, 3, 5), False, False, id="values-batched"),
        C(np.linalg.svd, sym(4, 4), hermitian=True, id="hermitian"),
        C(np.linalg.svd, sym(4, 4), compute_uv=False, hermitian=True, id="hermitian-values"),
        # ord='nuc' (its rule is rules/linalg.py's; its helper is here)
        C(np.linalg.norm, R(3, 4), "nuc", id="nuc"),
        C(np.linalg.norm, R(2, 3, 4), "nuc", (2, 0), True, id="nuc-axes-keepdims"),
        C(np.linalg.norm, R(2, 4, 3), ord="nuc", axis=(1, 2), id="nuc-stacked"),
        C(np.linalg.qr, R(4, 3)),
        C(np.linalg.qr, M(3, 3), id="square"),
        C(np.linalg.qr, R(2, 5, 3), id="batched"),
        C(np.linalg.qr, R(4, 3), "r", id="r"),
        C(np.linalg.qr, M(3, 3), mode="complete", id="complete-square"),
        C(np.linalg.pinv, R(4, 3), id="tall"),
        C(np.linalg.pinv, R(3, 5), id="wide"),
        C(np.linalg.pinv, R(2, 4, 3), id="batched"),
        C(np.linalg.pinv, M(3, 3), rtol=1e-10, id="rtol"),
        C(np.linalg.pinv, sym(4, 4), hermitian=True, id="hermitian"),
        C(np.linalg.lstsq, R(5, 3), R(5), id="vector"),
        C(np.linalg.lstsq, R(5, 3), R(5, 2), None, id="matrix"),
        C(np.linalg.lstsq, R(3, 5), R(3), id="underdetermined"),
        C(np.linalg.lstsq, M(3, 3), R(3, 2), rcond=None, id="square"),
        C(np.linalg.matrix_power, M(3, 3), 3),
        C(np.linalg.matrix_power, M(3, 3), 1, id="one"),
        C(np.linalg.matrix_power, M(3, 3), 0, id="zero"),
        C(np.linalg.matrix_power, M(3, 3), -2, id="negative"),
        C(np.linalg.matrix_power, M(2, 3, 3), 2, id="batched"),
        C(np.linalg.multi_dot, [R(2, 3), R(3, 4), R(4, 2)]),
        C(np.linalg.multi_dot, [R(2, 3), R(3, 4)], id="two"),
        C(np.linalg.multi_dot, [R(3), R(3, 4), R(4, 2), R(2)], id="vector-ends"),
        C(np.linalg.multi_dot, [R(3), R(3, 2)], id="row-first"),
        C(np.linalg.multi_dot, [R(2, 3), R(3, 4), R(4)], id="column-last"),
    ]
