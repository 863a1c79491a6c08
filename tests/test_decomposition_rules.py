"""The decomposition rules (``rules/decompositions.py``) through the compiler, in user code.

Each loss is written as a user would (module level: the compiler reads its
source) and checked against central differences to second order
(``check_grads``), and where a second route to the same number exists (the
normal equations for a least-squares fit, eigenvalues for a PCA residual,
a loop of products for a matrix power) against the gradient of that route.
Refusals (repeated eigenvalues, rank deficiency...) are asserted by message.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # the scipy.linalg rules exist only with SciPy installed
    scipy_linalg = None

needs_scipy = pytest.mark.skipif(scipy_linalg is None, reason="SciPy is not installed")


def rng(seed=0):
    return np.random.default_rng(seed)


def spd(n, seed=0):
    x = rng(seed).standard_normal((n, n))
    return x @ x.T + n * np.eye(n)


# ---------------------------------------------------------------- user functions

def gp_nll(x, y, log_scale, log_noise):
    """Negative log likelihood of a Gaussian process with a squared-exponential kernel."""
    n = np.shape(x)[0]
    d = np.expand_dims(x, 1) - np.expand_dims(x, 0)
    K = np.exp(-0.5 * d ** 2 / np.exp(2.0 * log_scale)) + np.exp(log_noise) * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L, y)
    half_logdet = np.sum(np.log(np.sum(L * np.eye(n), axis=1)))
    return 0.5 * np.sum(alpha ** 2) + half_logdet + 0.5 * n * np.log(2.0 * np.pi)


def kernel_nll_numpy(K, y):
    L = np.linalg.cholesky(K)
    z = np.linalg.solve(L, y)
    return 0.5 * np.sum(z ** 2) + np.sum(np.log(np.sum(L * np.eye(4), axis=1)))


def kernel_nll_cho(K, y):
    c, lower = scipy_linalg.cho_factor(K, lower=True)
    alpha = scipy_linalg.cho_solve((c, lower), y)
    return 0.5 * np.sum(y * alpha) + np.sum(np.log(np.sum(c * np.eye(4), axis=1)))


def kernel_nll_cho_upper(K, y):
    factor = scipy_linalg.cho_factor(K)
    alpha = scipy_linalg.cho_solve(factor, y)
    return 0.5 * np.sum(y * alpha) + np.sum(np.log(np.abs(np.sum(factor[0] * np.eye(4), axis=1))))


def kernel_nll_triangular(K, y):
    L = scipy_linalg.cholesky(K, lower=True)
    z = scipy_linalg.solve_triangular(L, y, lower=True)
    return 0.5 * np.sum(z ** 2) + np.sum(np.log(np.sum(L * np.eye(4), axis=1)))


def triangular_solves(A, B):
    X = scipy_linalg.solve_triangular(A, B, trans=1, lower=True, unit_diagonal=True)
    Y = scipy_linalg.solve_triangular(A, X, trans="N")
    return np.sum(Y ** 2) + np.sum(scipy_linalg.cholesky(A @ A.T + np.eye(3)))


def overwriting_solve(A, b):
    return np.sum(scipy_linalg.solve_triangular(A, b, lower=True, overwrite_b=True))


def upper_cholesky_trace(A):
    U = np.linalg.cholesky(A, upper=True)
    return np.sum(U ** 3)


def log_abs_det(A):
    sign, logabs = np.linalg.slogdet(A)
    return logabs


def det_by_slogdet(A):
    sign, logabs = np.linalg.slogdet(A)
    return sign * np.exp(logabs)


def weighted_log_dets(A, w):
    return np.sum(np.linalg.slogdet(A)[1] * w)


def pca_residual(X):
    """Squared error of projecting the rows of X onto its top-2 principal directions."""
    w, V = np.linalg.eigh(X.T @ X)
    top = V[:, 2:]
    return np.sum((X - X @ top @ top.T) ** 2)


def small_eigenvalues(X):
    return np.sum(np.linalg.eigvalsh(X.T @ X)[:2])


def top_eigenvalue_upper(A):
    return np.linalg.eigvalsh(A, UPLO="U")[-1]


def eigenvalue_sum(A):
    return np.sum(np.linalg.eigvalsh(A))


def first_eigenvector(A):
    w, V = np.linalg.eigh(A)
    return np.sum(V[:, 0] ** 3) + w[0]


def top_direction(X):
    w, V = np.linalg.eigh(X.T @ X)
    return np.sum(V[:, -1] ** 4) * w[-1]


def top_left_vector(X):
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    return np.sum(U[:, 0] ** 4) + np.sum(Vh[0] ** 4)


def rank2_error(X):
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    approx = (U[:, :2] * s[:2]) @ Vh[:2, :]
    return np.sum((X - approx) ** 2)


def trailing_singular_values(X):
    return np.sum(np.linalg.svd(X, compute_uv=False)[2:] ** 2)


def nuclear_norm(X):
    U, s, Vh = np.linalg.svd(X)
    return np.sum(s)


def last_left_vector(X):
    U, s, Vh = np.linalg.svd(X)
    return np.sum(U[:, -1] * X[:, 0])


def first_left_vector(X):
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    return np.sum(U[:, 0] ** 3)


def qr_loss(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q[:, 0] * A[:, 1]) + np.sum(np.log(np.abs(np.sum(R * np.eye(3), axis=0))))


def log_volume_r(A):
    """log |det R| = 0.5 log det(A^T A), from R alone."""
    R = np.linalg.qr(A, mode="r")
    return np.sum(np.log(np.abs(np.sum(R * np.eye(3), axis=0))))


def r_squares(A):
    return np.sum(np.linalg.qr(A)[1] ** 2)


def log_volume_normal(A):
    return 0.5 * np.linalg.slogdet(A.T @ A)[1]


def lstsq_fit(A, b):
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    return np.sum(x ** 2) + np.sum(np.sin(x))


def pinv_fit(A, b):
    x = np.linalg.pinv(A) @ b
    return np.sum(x ** 2) + np.sum(np.sin(x))


def normal_fit(A, b):
    x = np.linalg.solve(A.T @ A, A.T @ b)
    return np.sum(x ** 2) + np.sum(np.sin(x))


def min_norm_fit(A, b):
    x = A.T @ np.linalg.solve(A @ A.T, b)
    return np.sum(x ** 2) + np.sum(np.sin(x))


def lstsq_residual(A, b):
    x, residuals, rank, sv = np.linalg.lstsq(A, b, rcond=None)
    return residuals[0]


def explicit_residual(A, b):
    x = np.linalg.solve(A.T @ A, A.T @ b)
    return np.sum((A @ x - b) ** 2)


def lstsq_condition(A, b):
    x, residuals, rank, sv = np.linalg.lstsq(A, b, rcond=None)
    return sv[0] / sv[-1] + np.sum(x)


def svd_condition(A, b):
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] / s[-1] + np.sum(np.linalg.solve(A.T @ A, A.T @ b))


def markov(T, p):
    q = p @ np.linalg.matrix_power(T, 5)
    return np.sum(q ** 2)


def markov_loop(T, p):
    q = p
    for _ in range(5):
        q = q @ T
    return np.sum(q ** 2)


def power_recurrence(A, h):
    for k in range(4):
        h = np.tanh(np.linalg.matrix_power(A, k) @ h)
    return np.sum(h ** 2) + np.sum(np.linalg.matrix_power(A, -2))


def power_recurrence_by_hand(A, h):
    power = np.eye(3)
    for k in range(4):
        h = np.tanh(power @ h)
        power = power @ A
    inverse = np.linalg.inv(A)
    return np.sum(h ** 2) + np.sum(inverse @ inverse)


def chain(u, A, B, v):
    return np.linalg.multi_dot([u, A, B, v])


def chain_by_hand(u, A, B, v):
    return u @ A @ B @ v


def chain_matrices(A, B, C):
    return np.sum(np.linalg.multi_dot([A, B, C]) ** 2)


def stacked(S):
    """Every stacked decomposition at once, on a stack of (lower-triangle) SPD matrices."""
    L = np.linalg.cholesky(S)
    w, V = np.linalg.eigh(S)
    U, s, Vh = np.linalg.svd(S)
    Q, R = np.linalg.qr(S)
    return (np.sum(L ** 2) + np.sum(np.log(w)) + np.sum(V[:, :, -1] ** 4) + np.sum(s ** 3)
            + np.sum(U[:, 0, :] ** 3) + np.sum(Q[:, :, 0] * R[:, 0, :])
            + np.sum(np.linalg.pinv(S) ** 2) + np.sum(np.linalg.matrix_power(S, 2))
            + np.sum(np.linalg.slogdet(S)[1]))


def many_features(A, b):
    """A vector of every rule's results, for tape.jacobian (adjoints with rows). No
    slices, nor slogdet (whose adjoint does not read its result): a tape block with
    them runs its Jacobian one row at a time (the forward code differs with rows)."""
    S = A @ A.T + 3.0 * np.eye(3)
    U, s, Vh = np.linalg.svd(A)
    Q, R = np.linalg.qr(A)
    w, V = np.linalg.eigh(S)
    x, residuals, rank, sv = np.linalg.lstsq(np.concatenate([A, A ** 2]), np.concatenate([b, b]),
                                             rcond=None)
    return np.concatenate([
        np.ravel(np.linalg.cholesky(S)), w, np.ravel(V), np.linalg.eigvalsh(A, "U"), s,
        np.ravel(U), np.ravel(Vh), np.linalg.svd(A, compute_uv=False), np.ravel(Q), np.ravel(R),
        np.linalg.pinv(A) @ b, x, residuals, sv, np.linalg.matrix_power(A, -2) @ b,
        np.ravel(np.linalg.matrix_power(A, 3)), np.linalg.multi_dot([b, A, A]),
        np.linalg.multi_dot([A, A, b]), np.ravel(np.linalg.multi_dot([A, S, A])),
        np.reshape(np.linalg.multi_dot([b, A, b]), (1,))])


def scipy_features(A, b):
    S = A @ A.T + 3.0 * np.eye(3)
    c, lower = scipy_linalg.cho_factor(S, lower=True)
    return np.concatenate([scipy_linalg.solve_triangular(A, b, trans=1),
                           scipy_linalg.solve_triangular(A, b, lower=True, unit_diagonal=True),
                           scipy_linalg.cho_solve((c, lower), b), np.ravel(c),
                           np.ravel(scipy_linalg.cholesky(S))])


def eigen_features(A):
    w, V = np.linalg.eigh(A)
    return np.concatenate([w * 2.0, V[0, :]])


# ---------------------------------------------------------------- tests

def test_gaussian_process_likelihood(check_second_order):
    x = np.linspace(-1.0, 1.0, 5) + 0.1 * rng().standard_normal(5)
    y = rng(1).standard_normal(5)
    args = (x, y, np.log(0.7), np.log(0.3))
    check_second_order(gp_nll, args)
    value, (gy, gnoise) = sg.value_and_grad(gp_nll, wrt=(1, 3))(*args)
    assert value == pytest.approx(gp_nll(*args), rel=1e-12)
    # d/dtheta = 0.5 tr((K^-1 - alpha alpha^T) dK/dtheta), alpha = K^-1 y; dK/dlog_noise = noise I
    K = np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / 0.49) + 0.3 * np.eye(5)
    alpha = np.linalg.solve(K, y)
    np.testing.assert_allclose(gy, alpha, rtol=1e-10)
    expected = 0.5 * 0.3 * (np.trace(np.linalg.inv(K)) - alpha @ alpha)
    assert gnoise == pytest.approx(expected, rel=1e-10)


@needs_scipy
def test_gaussian_process_with_scipy(check_second_order):
    K = spd(4) + np.triu(rng(5).standard_normal((4, 4)), 1)  # the lower triangle is K
    y = rng(6).standard_normal(4)
    want = sg.grad(kernel_nll_numpy, wrt=(0, 1))(K, y)
    for f, k in ((kernel_nll_cho, K), (kernel_nll_triangular, K), (kernel_nll_cho_upper, K.T)):
        check_second_order(f, (k, y))
        assert f(k, y) == pytest.approx(kernel_nll_numpy(K, y), rel=1e-12)
        got = sg.grad(f, wrt=(0, 1))(k, y)
        expected = want[0].T if k is not K else want[0]
        np.testing.assert_allclose(got[0], expected, atol=1e-12)
        np.testing.assert_allclose(got[1], want[1], atol=1e-12)


@needs_scipy
def test_triangular_solves(check_second_order):
    A = rng().standard_normal((3, 3)) + 3 * np.eye(3)
    check_second_order(triangular_solves, (A, rng(1).standard_normal((3, 2))))
    with pytest.raises(NotImplementedError, match="overwrite_b=True"):
        sg.grad(overwriting_solve)(A, rng(2).standard_normal(3))


def test_cholesky_reads_one_triangle():
    A = spd(4) + np.triu(rng(2).standard_normal((4, 4)), 1)  # noise NumPy never reads
    g = sg.grad(upper_cholesky_trace)(A.T)
    assert not np.tril(g, -1).any()
    check_grads(upper_cholesky_trace, (A.T,), order=2)


def test_log_determinant(check_second_order):
    A = np.array([[0.5, 2.0, 0.1], [1.5, -0.3, 0.4], [0.2, 0.7, 1.9]])  # det < 0
    assert np.linalg.det(A) < 0
    np.testing.assert_allclose(sg.grad(log_abs_det)(A), np.linalg.inv(A).T, rtol=1e-12)
    np.testing.assert_allclose(sg.grad(det_by_slogdet)(A), np.linalg.det(A) * np.linalg.inv(A).T,
                               rtol=1e-10)
    check_grads(log_abs_det, (A,), order=2)
    stack = rng().standard_normal((3, 4, 4)) + 4 * np.eye(4)
    check_second_order(weighted_log_dets, (stack, np.array([1.0, -2.0, 0.5])))


def test_pca_by_eigenvectors_and_by_eigenvalues():
    X = rng().standard_normal((8, 4))
    check_grads(pca_residual, (X,), order=2)
    # The residual is the sum of the two small eigenvalues of X^T X: 2 X V_low V_low^T.
    low = np.linalg.eigh(X.T @ X)[1][:, :2]
    np.testing.assert_allclose(sg.grad(pca_residual)(X), 2 * X @ low @ low.T, atol=1e-10)
    np.testing.assert_allclose(sg.grad(small_eigenvalues)(X), 2 * X @ low @ low.T, atol=1e-10)
    value, g = sg.value_and_grad(pca_residual)(X)
    assert value == pytest.approx(pca_residual(X), rel=1e-12)


def test_eigh_reads_one_triangle():
    A = spd(4) + np.tril(rng(3).standard_normal((4, 4)), -1)  # the upper triangle is the matrix
    g = sg.grad(top_eigenvalue_upper)(A)
    v = np.linalg.eigh(A, UPLO="U")[1][:, -1]
    np.testing.assert_allclose(g, np.triu(2 * np.outer(v, v), 1) + np.diag(v * v), atol=1e-12)
    check_grads(top_eigenvalue_upper, (A,), order=2)


def test_repeated_eigenvalues():
    A = np.diag([1.0, 1.0, 2.0])
    # A function symmetric in the repeated eigenvalues has a gradient: the trace's.
    np.testing.assert_allclose(sg.grad(eigenvalue_sum)(A), np.eye(3), atol=1e-12)
    with pytest.raises(NotImplementedError, match="eigenvector of np.linalg.eigh of a repeated"):
        sg.grad(first_eigenvector)(A)
    check_grads(first_eigenvector, (A + np.diag([0.0, 0.5, 0.0]),), order=2)


def test_top_eigenvector_beside_repeated_ones():
    """More features than samples: X^T X has repeated (zero) eigenvalues, its top
    eigenvector is still unique. Its second derivative goes through the others: refused."""
    X = rng().standard_normal((2, 5))
    assert np.sum(np.linalg.eigvalsh(X.T @ X) < 1e-12) == 3
    check_grads(top_direction, (X,), order=1)
    with pytest.raises(NotImplementedError, match="eigenvector of np.linalg.eigh of a repeated"):
        check_grads(top_direction, (X,), order=2)


def test_low_rank_approximation_by_svd():
    X = rng().standard_normal((6, 4))
    check_grads(rank2_error, (X,), order=2)
    check_grads(trailing_singular_values, (X,), order=2)
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    expected = 2 * (U[:, 2:] * s[2:]) @ Vh[2:]
    np.testing.assert_allclose(sg.grad(rank2_error)(X), expected, atol=1e-10)
    np.testing.assert_allclose(sg.grad(trailing_singular_values)(X), expected, atol=1e-10)
    wide = rng(4).standard_normal((3, 5))
    check_grads(first_left_vector, (wide,), order=2)


def test_svd_with_full_matrices():
    X = rng().standard_normal((5, 3))
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    np.testing.assert_allclose(sg.grad(nuclear_norm)(X), U @ Vh, atol=1e-12)
    check_grads(nuclear_norm, (X,), order=2)
    # U's last two columns are any orthonormal completion: no derivative.
    with pytest.raises(NotImplementedError, match="past min"):
        sg.grad(last_left_vector)(X)


def test_svd_refuses_repeated_singular_values():
    X = np.array([[2.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    with pytest.raises(NotImplementedError, match="singular vector of np.linalg.svd of a repeated"):
        sg.grad(first_left_vector)(X)
    np.testing.assert_allclose(sg.grad(nuclear_norm)(X), [[1, 0], [0, 1], [0, 0]], atol=1e-12)
    # The vectors of a distinct singular value beside repeated or zero ones are unique.
    right = np.linalg.qr(rng(1).standard_normal((4, 4)))[0]
    for m, s in ((5, [3.0, 1.0, 1.0, 0.5]), (5, [3.0, 1.0, 1.0, 0.0]), (4, [3.0, 1.0, 1.0, 0.0])):
        left = np.linalg.qr(rng(m).standard_normal((m, 4)))[0]
        Y = (left * s) @ right.T
        assert np.allclose(np.linalg.svd(Y, compute_uv=False), s)
        check_grads(top_left_vector, (Y,), order=1)


def test_qr():
    A = rng().standard_normal((5, 3))
    check_grads(qr_loss, (A,), order=2)
    check_grads(log_volume_r, (A,), order=2)
    np.testing.assert_allclose(sg.grad(log_volume_r)(A), sg.grad(log_volume_normal)(A),
                               atol=1e-12)
    np.testing.assert_allclose(sg.grad(log_volume_r)(A), A @ np.linalg.inv(A.T @ A), atol=1e-12)
    # Fewer rows than columns (issue 13): [X | Y] with R_Y = Q^T Y, X square.
    check_grads(r_squares, (rng(1).standard_normal((3, 4)),), order=2)
    with pytest.raises(NotImplementedError, match="leading square block is singular"):
        sg.grad(r_squares)(np.array([[1.0, 2.0, 0.5, 1.0], [2.0, 4.0, 0.1, 3.0]]))
    check_grads(r_squares, (A,), order=2)


def test_least_squares_by_lstsq_and_pinv(check_second_order):
    A, b = rng().standard_normal((7, 3)), rng(1).standard_normal(7)
    check_second_order(lstsq_fit, (A, b))
    check_second_order(pinv_fit, (A, b))
    want = sg.grad(normal_fit, wrt=(0, 1))(A, b)
    for f in (lstsq_fit, pinv_fit):
        got = sg.grad(f, wrt=(0, 1))(A, b)
        np.testing.assert_allclose(got[0], want[0], atol=1e-10)
        np.testing.assert_allclose(got[1], want[1], atol=1e-10)
    # Underdetermined: the minimum-norm solution.
    wide, c = rng(2).standard_normal((3, 6)), rng(3).standard_normal(3)
    check_second_order(lstsq_fit, (wide, c))
    want = sg.grad(min_norm_fit, wrt=(0, 1))(wide, c)
    got = sg.grad(lstsq_fit, wrt=(0, 1))(wide, c)
    np.testing.assert_allclose(got[0], want[0], atol=1e-10)
    np.testing.assert_allclose(got[1], want[1], atol=1e-10)


def test_lstsq_residuals_and_singular_values(check_second_order):
    A, b = rng().standard_normal((7, 3)), rng(1).standard_normal(7)
    check_second_order(lstsq_residual, (A, b))
    for f, reference in ((lstsq_residual, explicit_residual), (lstsq_condition, svd_condition)):
        got = sg.grad(f, wrt=(0, 1))(A, b)
        want = sg.grad(reference, wrt=(0, 1))(A, b)
        np.testing.assert_allclose(got[0], want[0], atol=1e-10)
        np.testing.assert_allclose(got[1], want[1], atol=1e-10)


def test_rank_deficiency_is_refused():
    A = rng().standard_normal((6, 3))
    A = np.concatenate([A, A[:, :1] + A[:, 1:2]], axis=1)  # rank 3 of 4 columns
    b = rng(1).standard_normal(6)
    with pytest.raises(NotImplementedError, match="rank-deficient"):
        sg.grad(lstsq_fit)(A, b)
    with pytest.raises(NotImplementedError, match="pinv of a matrix whose small singular"):
        sg.grad(pinv_fit)(A, b)


def test_matrix_power_in_a_recurrence(check_second_order):
    T = rng().uniform(0.0, 1.0, (4, 4))
    T = T / np.sum(T, axis=1, keepdims=True)
    p = np.array([0.7, 0.1, 0.1, 0.1])
    check_second_order(markov, (T, p))
    got, want = sg.grad(markov, wrt=(0, 1))(T, p), sg.grad(markov_loop, wrt=(0, 1))(T, p)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    A, h = rng(1).standard_normal((3, 3)) + 3 * np.eye(3), rng(2).standard_normal(3)
    check_second_order(power_recurrence, (A, h))
    got = sg.grad(power_recurrence, wrt=(0, 1))(A, h)
    want = sg.grad(power_recurrence_by_hand, wrt=(0, 1))(A, h)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)


def test_multi_dot(check_second_order):
    r = rng()
    args = (r.standard_normal(3), r.standard_normal((3, 4)), r.standard_normal((4, 2)),
            r.standard_normal(2))
    check_second_order(chain, args)
    got = sg.grad(chain, wrt=(0, 1, 2, 3))(*args)
    want = sg.grad(chain_by_hand, wrt=(0, 1, 2, 3))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    check_second_order(chain_matrices, (r.standard_normal((2, 3)), r.standard_normal((3, 4)),
                                        r.standard_normal((4, 2))))


def test_stacked_matrices():
    x = rng().standard_normal((2, 3, 3))
    S = x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)
    check_grads(stacked, (S,), order=2)


def test_tape_gradient_is_grad():
    X = rng().standard_normal((8, 4))
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = pca_residual(X)
    np.testing.assert_allclose(tape.gradient(y, X), sg.grad(pca_residual)(X), rtol=1e-12)

    x = np.linspace(-1.0, 1.0, 5)
    targets = np.cos(3.0 * x)
    noise = np.log(0.2)
    with sg.GradientTape() as tape:
        tape.watch(noise)
        nll = gp_nll(x, targets, 0.0, noise)
    np.testing.assert_allclose(tape.gradient(nll, noise),
                               sg.grad(gp_nll, wrt=3)(x, targets, 0.0, noise), rtol=1e-12)

    A, b = rng(1).standard_normal((6, 3)), rng(2).standard_normal(6)
    with sg.GradientTape() as tape:
        tape.watch(A)
        fit = np.linalg.lstsq(A, b, rcond=None)[0]
        loss = np.sum(fit ** 2) + np.sum(np.sin(fit))
    np.testing.assert_allclose(tape.gradient(loss, A), sg.grad(lstsq_fit)(A, b), rtol=1e-12)


def jacobian_fd(f, args, j, eps=1e-6):
    x = args[j]
    out = []
    for idx in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[idx] = eps
        plus, minus = list(args), list(args)
        plus[j], minus[j] = x + step, x - step
        out.append((f(*plus) - f(*minus)) / (2 * eps))
    return np.stack(out, axis=-1).reshape(np.shape(f(*args)) + x.shape)


def check_jacobians(tape, y, f, A, b):
    np.testing.assert_allclose(tape.jacobian(y, A), jacobian_fd(f, (A, b), 0), atol=1e-6)
    np.testing.assert_allclose(tape.jacobian(y, b), jacobian_fd(f, (A, b), 1), atol=1e-6)


def test_jacobian_of_every_rule():
    """Seed rows (``tape.jacobian``) through every rule, in one backward pass."""
    A, b = rng().standard_normal((3, 3)) + 2.0 * np.eye(3), rng(1).standard_normal(3)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(A)
        tape.watch(b)
        y = many_features(A, b)
    check_jacobians(tape, y, many_features, A, b)


@needs_scipy
def test_jacobian_of_every_scipy_rule():
    A, b = rng().standard_normal((3, 3)) + 2.0 * np.eye(3), rng(1).standard_normal(3)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(A)
        tape.watch(b)
        y = scipy_features(A, b)
    check_jacobians(tape, y, scipy_features, A, b)


def test_jacobian_through_eigh():
    """Seed rows (``tape.jacobian``) go through the tuple of eigh's results in one pass."""
    x = rng().standard_normal((4, 4))
    A = x + x.T
    with sg.GradientTape() as tape:
        tape.watch(A)
        y = eigen_features(A)
    jac = tape.jacobian(y, A)
    eps = 1e-6
    expected = np.zeros((8, 4, 4))
    for i in range(4):
        for j in range(4):
            step = np.zeros((4, 4))
            step[i, j] = eps
            expected[:, i, j] = (eigen_features(A + step) - eigen_features(A - step)) / (2 * eps)
    np.testing.assert_allclose(jac, expected, atol=1e-7)


# -- eigenvalues of a general matrix (complex for a real one) ----------------------------

RNG = np.random.default_rng(31)

def spectral_energy(a):
    """Symmetric in the eigenvalues: independent of the order LAPACK returns them in."""
    w = np.linalg.eigvals(a)
    return np.sum(np.abs(w) ** 2) + np.real(np.prod(w)) + np.real(np.sum(w ** 3))


@pytest.mark.parametrize("a", [
    RNG.normal(size=(3, 3)),                                     # real; maybe complex pairs
    np.array([[0.0, -2.0, 0.5], [2.0, 0.1, 0.0], [0.3, 0.0, 1.0]]),  # a complex pair
    RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)),      # complex
    RNG.normal(size=(2, 3, 3)),                                  # stacked
], ids=["real", "complex-pair", "complex", "stacked"])
def test_eigvals_of_a_general_matrix(a):
    check_grads(spectral_energy, (a,), order=1)
    g = sg.grad(spectral_energy)(a)
    assert g.dtype == a.dtype  # a real matrix's gradient is real


@pytest.mark.parametrize("a", [
    RNG.normal(size=(3, 3)),                                     # complex pairs likely
    RNG.normal(size=(3, 3)) + np.diag([3.0, 0.0, -3.0]),         # real
], ids=["general", "real"])
def test_eigvals_second_derivative(a):
    """(Refused before: the helper's rule refused; differentiated as written now, through
    np.linalg.eig's rule, to second order.)"""
    check_grads(spectral_energy, (a.copy(),), order=2)
