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
    with pytest.raises(sg.CompileError, match="sqrtm of complex values"):
        sg.grad(lambda x: np.sum(np.abs(sl.sqrtm(x))))(neg)
    with pytest.raises(sg.CompileError, match="logm with disp= or blocksize="):
        sg.grad(lambda x: np.sum(sl.logm(x, disp=True)))(X.copy())
    with pytest.raises(sg.CompileError, match="leading square block is singular"):
        sg.grad(lambda x: np.sum(np.linalg.qr(x)[1]))(np.array([[1.0, 2.0, 3.0],
                                                                 [2.0, 4.0, 1.0]]))
    with pytest.raises(sg.CompileError, match="mode='raw'"):
        sg.grad(lambda x: np.sum(np.linalg.qr(x, mode="raw")[1]))(WIDE.copy())
    with pytest.raises(sg.CompileError, match="complex"):  # (no complex rule yet)
        sg.grad(lambda z: np.real(np.sum(sl.expm(z))))(X + 1j * W)
