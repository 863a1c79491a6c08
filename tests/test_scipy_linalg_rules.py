"""The rules of ``srcgrad/rules/scipy_linalg.py``: scipy.linalg's matrix functions ``expm``,
``sqrtm``, ``logm`` (their adjoint the Fréchet derivative at ``A^T``, from the block
matrix ``[[A, E], [0, A]]``), ``expm_frechet`` written out over ``expm``, and
``np.linalg.qr`` of a wide matrix (issue 13). Each in every form (``assert_every_form``:
to second order against central differences, forward mode, the tape), as a Jacobian,
its value against SciPy's, and what is refused. (Named ``*_rules.py``: the end-to-end
functions ``tests/test_primitives.py`` looks for.)
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form, fd_jacobian

sl = pytest.importorskip("scipy.linalg")

X = np.array([[1.05, 0.15, -0.2], [0.35, 0.8, 0.1], [-0.25, 0.45, 1.4]])
W = np.random.default_rng(11).standard_normal((3, 3))
WIDE = np.array([[1.3, 0.4, -0.2, 0.7], [0.1, 0.9, 0.5, -1.1]])
W24 = np.random.default_rng(12).standard_normal((2, 4))
W22 = np.random.default_rng(13).standard_normal((2, 2))


def expm_sum(x):
    return np.sum(W * sl.expm(x))

def expm_nonlinear(x):
    e = sl.expm(x * x[0, 0] - x.T)
    return np.sum(e @ e * W) + np.trace(sl.expm(np.stack([x, 0.5 * x]))[1])

def sqrtm_sum(x):
    return np.sum(W * sl.sqrtm(x)) + np.sum(sl.sqrtm(x @ x.T) ** 2)

def logm_sum(x):
    return np.sum(W * sl.logm(x)) + np.trace(sl.logm(x + x.T) @ W)

def expm_frechet_both(x):
    e, f = sl.expm_frechet(x, W * x[1, 2])
    return np.sum(W * e) + np.sum(f * f) + np.sum(sl.expm_frechet(x.T, x, compute_expm=False))

def qr_wide_reduced(x):
    q, r = np.linalg.qr(WIDE * x[0, 0] + x[:2, :1])
    return np.sum(W22 * q) + np.sum(W24 * r)

def qr_wide_modes(x):
    a = np.concatenate([x[:2], x[:2, :2] ** 2], axis=1)
    r = np.linalg.qr(a, mode="r")
    q, r2 = np.linalg.qr(a, mode="complete")
    return np.sum(W24[:, :] * np.concatenate([r, q], axis=1)[:, :4]) + np.sum(r2 ** 2)

def qr_wide_scipy(x):
    q, r = sl.qr(x[:2])
    (r2,) = sl.qr(x[:2], mode="r")
    q3, r3, p = sl.qr(x[:2], pivoting=True)
    return np.sum(W22 * q) + np.sum(W[:2] * r) + np.sum(r2 * W[1:]) + np.sum(W22 * q3 * r3[:, :2])


CASES = [expm_sum, expm_nonlinear, sqrtm_sum, logm_sum, expm_frechet_both, qr_wide_reduced,
         qr_wide_modes, qr_wide_scipy]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X.copy(), nonzero=True)


@pytest.mark.parametrize("fn", [sl.expm, sl.sqrtm, sl.logm,
                                lambda a: np.linalg.qr(a[:2])[1]],
                         ids=["expm", "sqrtm", "logm", "qr-wide"])
def test_jacobian(fn):
    def f(x):
        return fn(x * 1.0)

    with sg.GradientTape() as tape:
        x = X.copy()
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(f, X.copy()), rtol=1e-6,
                               atol=1e-8)


def test_values_are_scipys():
    from srcgrad.rules.rewrites import rewrite

    e, f = rewrite(sl.expm_frechet)(X, W)
    want_e, want_f = sl.expm_frechet(X, W)
    np.testing.assert_allclose(e, want_e, rtol=1e-12)
    np.testing.assert_allclose(f, want_f, rtol=1e-10)
    np.testing.assert_allclose(rewrite(sl.expm_frechet)(X, W, compute_expm=False), want_f,
                               rtol=1e-10)
    # The gradient of expm at A along G is the Fréchet derivative at A^T (SciPy's own).
    np.testing.assert_allclose(sg.grad(expm_sum)(X.copy()),
                               sl.expm_frechet(X.T, W, compute_expm=False), rtol=1e-10)


def test_refused():
    neg = np.diag([-1.0, 2.0, 3.0])
    # (Code that shows no complex value is compiled for real ones: the complex square
    # root of a negative eigenvalue then meets np.real's rule for real values, which
    # refuses it; in code compiled for complex values sqrtm's adjoint takes it,
    # tests/test_matrix_functions_complex.py.)
    with pytest.raises(sg.CompileError, match="complex"):
        sg.grad(lambda x: np.sum(np.real(sl.sqrtm(x))))(neg)
    with pytest.raises(sg.CompileError, match="logm with disp= or blocksize="):
        sg.grad(lambda x: np.sum(sl.logm(x, disp=True)))(X.copy())
    with pytest.raises(sg.CompileError, match="leading square block is singular"):
        sg.grad(lambda x: np.sum(np.linalg.qr(x)[1]))(np.array([[1.0, 2.0, 3.0],
                                                                 [2.0, 4.0, 1.0]]))
    with pytest.raises(sg.CompileError, match="mode='raw'"):
        sg.grad(lambda x: np.sum(np.linalg.qr(x, mode="raw")[1]))(WIDE.copy())


# --- complex values through np.linalg's rules (issue 13: refused "for real values") ----
# TensorFlow's convention: for a real loss of z = x + iy the gradient is dL/dx + i dL/dy,
# checked against central differences along x and along y, component by component
# (tests/test_complex_issue13.py's assert_every_form), in every form, to second order.

_rng = np.random.default_rng(5)
Z = _rng.standard_normal((3, 3)) + 1j * _rng.standard_normal((3, 3)) + 2.0 * np.eye(3)
CW = _rng.standard_normal((3, 3)) + 1j * _rng.standard_normal((3, 3))
ZH = Z @ Z.conj().T + np.eye(3) + 0.3 * CW  # positive definite where it is read, noise elsewhere

COMPLEX = {
    "matrix_power": (lambda z: np.real(np.sum(CW * np.linalg.matrix_power(z, 3)))
                     + np.abs(np.sum(np.linalg.matrix_power(z, -2))), Z),
    "multi_dot": (lambda z: np.real(np.sum(CW * np.linalg.multi_dot([z, z.T, CW, z])))
                  + np.abs(np.linalg.multi_dot([z[0], z, z[:, 1]])), Z),
    "slogdet": (lambda z: np.linalg.slogdet(z)[1] + np.real(np.linalg.slogdet(z)[0] * CW[0, 0]),
                Z),
    "slogdet_as_det": (lambda z: np.real(np.linalg.slogdet(z)[0]
                                         * np.exp(np.linalg.slogdet(z)[1]) * CW[0, 1]), Z),
    "pinv": (lambda z: np.real(np.sum(CW * np.linalg.pinv(z)))
             + np.sum(np.abs(np.linalg.pinv(z[:2])) ** 2), Z),
    "pinv_hermitian": (lambda z: np.real(np.sum(CW * np.linalg.pinv(z, hermitian=True))), ZH),
    "qr": (lambda z: np.sum(np.abs(np.linalg.qr(z)[0] * CW) ** 2)
           + np.real(np.sum(CW * np.linalg.qr(z)[1])), Z),
    "qr_r": (lambda z: np.real(np.sum(np.linalg.qr(z, "r") * CW)), Z),
    "qr_wide": (lambda z: np.sum(np.abs(np.linalg.qr(z[:2])[0]) ** 2 * np.real(CW[:2, :2]))
                + np.real(np.sum(CW[:2] * np.linalg.qr(z[:2])[1])), Z),
    "qr_tall": (lambda z: np.real(np.sum(np.linalg.qr(np.vstack([z, z[:1] ** 2]))[1] * CW))
                + np.real(np.sum(np.linalg.qr(np.vstack([z, z[:1] ** 2]))[0][:3] * CW)), Z),
    "cholesky": (lambda z: np.real(np.sum(CW * np.linalg.cholesky(z))), ZH),
    "cholesky_upper": (lambda z: np.real(np.sum(CW * np.linalg.cholesky(z, upper=True))), ZH),
    "lstsq": (lambda z: np.real(np.sum(CW[0] * np.linalg.lstsq(np.vstack([z, CW[:1]]),
                                                              np.r_[CW[1], 1.0])[0]))
              + np.sum(np.linalg.lstsq(np.vstack([z, CW[:1]]), np.r_[CW[1], 1.0])[1]), Z),
    "lstsq_singular_values": (lambda z: np.sum(np.linalg.lstsq(np.vstack([z, CW[:1]]),
                                                               np.r_[CW[2], 2.0])[3] ** 2), Z),
    "lstsq_b": (lambda z: np.real(np.sum(CW[0] * np.linalg.lstsq(CW[:, :2], z[:, :1] * z[0, 0])[0]))
                + np.sum(np.linalg.lstsq(CW[:, :2], z[:, :2])[1]), Z),
    "lstsq_wide": (lambda z: np.real(np.sum(CW[0] * np.linalg.lstsq(z[:2], CW[1, :2])[0])), Z),
    "scipy_solve_her": (lambda z: np.real(np.sum(CW[0] * sl.solve(z, CW[1], assume_a="her"))), ZH),
    "scipy_cholesky_solve": (lambda z: np.real(np.sum(CW[0] * sl.solve(z, CW[1], assume_a="pos",
                                                                       lower=True))), ZH),
}


@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_values_along_both_axes(name):
    from test_complex_issue13 import assert_every_form as assert_complex_forms

    f, z = COMPLEX[name]
    assert_complex_forms(f, (z.copy(),))


def test_jvp_by_transposition_keeps_lstsq_singular_values():
    """sg.jvp of code forward mode does not compile (here: an FFT, complex inside) is the
    adjoint differentiated at a zero seed; lstsq's adjoint branched on its seed being
    nonzero and dropped the singular values' term (a wrong jvp on real inputs)."""
    rng = np.random.default_rng(5)
    z, c, t = rng.standard_normal((3, 3)) + 2.0 * np.eye(3), rng.standard_normal((3, 3)), \
        rng.standard_normal((3, 3))

    def f(z):
        s = np.linalg.lstsq(np.vstack([z, c[:1]]), np.r_[c[2], 2.0])[3]
        return np.sum(s ** 2) + np.sum(np.real(np.fft.fft(z[0])) ** 2)

    _, jvp = sg.jvp(f, (z.copy(),), (t,))
    eps = 1e-5
    numeric = (f(z + eps * t) - f(z - eps * t)) / (2 * eps)
    assert jvp == pytest.approx(numeric, rel=1e-7)
    assert jvp == pytest.approx(np.sum(sg.grad(f)(z.copy()) * t), rel=1e-10)


# scipy.linalg.solve_sylvester (the peer suite's test_solve_sylvester): X solves
# A X + X B = Q; its adjoint solves the transposed equation.
SYL_B = np.array([[1.6, -0.3], [0.4, 2.1]])
SYL_Q = np.random.default_rng(14).standard_normal((3, 2))


def sylvester_in_each(x):
    """``x`` (3x3) moves A, a scale of B and Q; a nonlinear function of X."""
    xs = sl.solve_sylvester(x + 2.0 * np.eye(3), SYL_B * x[0, 1], SYL_Q + x[:, :2])
    return np.sum(np.sin(xs)) + np.sum(xs[0] ** 2)


def test_sylvester_in_every_form():
    assert_every_form(sylvester_in_each, X.copy())


def test_sylvester_jacobian_and_value():
    a = X + 2.0 * np.eye(3)
    with sg.GradientTape() as tape:
        tape.watch(a)
        got = sl.solve_sylvester(a, SYL_B, SYL_Q)
    np.testing.assert_allclose(
        tape.jacobian(got, a), fd_jacobian(lambda m: sl.solve_sylvester(m, SYL_B, SYL_Q), a),
        rtol=1e-6, atol=1e-8)
    value, _ = sg.value_and_grad(sylvester_in_each)(X.copy())
    assert value == sylvester_in_each(X.copy())
