"""``np.linalg.eig``: eigenvalues and unit eigenvectors of a general matrix, real or
complex, in TensorFlow's convention for complex values; to second order. The
eigenvectors' phases are NumPy's convention, not a function of the matrix: a result that
depends on them is refused, as are eigenvectors of a repeated eigenvalue."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

RNG = np.random.default_rng(3)
C = RNG.normal(size=(3, 3))
c = RNG.normal(size=3)
COMPLEX_EIGENVALUES = RNG.normal(size=(3, 3))
REAL_EIGENVALUES = RNG.normal(size=(3, 3)) + np.diag([3.0, 0.0, -3.0])
COMPLEX_MATRIX = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))


def phase_free(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(v) ** 2 * C) + np.real(np.sum(w * c)) + np.sum(np.abs(w))


def real_vectors(a):
    """Real eigenvalues: real eigenvectors, whose sign NumPy keeps under small steps."""
    w, v = np.linalg.eig(a)
    return np.sum(np.real(v) * C) + np.sum(np.real(w) ** 2)


def phase_dependent(a):
    w, v = np.linalg.eig(a)
    return np.real(np.sum(v * C))


def _numeric(f, a, eps=1e-6):
    g = np.zeros(a.shape, dtype=a.dtype)
    for idx in np.ndindex(a.shape):
        e = np.zeros(a.shape)
        e[idx] = eps
        g[idx] = (f(a + e) - f(a - e)) / (2 * eps)
        if np.iscomplexobj(a):
            g[idx] += 1j * (f(a + 1j * e) - f(a - 1j * e)) / (2 * eps)
    return g


@pytest.mark.parametrize("f, a", [(phase_free, COMPLEX_EIGENVALUES), (phase_free, REAL_EIGENVALUES),
                                  (phase_free, COMPLEX_MATRIX), (real_vectors, REAL_EIGENVALUES)],
                         ids=["real-complex-eigenvalues", "real-real-eigenvalues", "complex",
                              "real-signed-vectors"])
def test_against_central_differences_in_every_form(f, a):
    want = _numeric(f, a.copy())
    value, g = sg.value_and_grad(f)(a.copy())
    assert value == pytest.approx(f(a.copy()), rel=1e-12)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(sg.grad(f)(a.copy()), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(taped(f, a.copy()), want, rtol=1e-6, atol=1e-7)


def test_a_result_that_depends_on_the_phases_is_refused():
    with pytest.raises(NotImplementedError, match="phases of its eigenvectors"):
        sg.grad(phase_dependent)(COMPLEX_MATRIX.copy())


def test_an_eigenvector_of_a_repeated_eigenvalue_is_refused():
    with pytest.raises(NotImplementedError, match="repeated eigenvalue"):
        sg.grad(phase_free)(np.diag([1.0, 1.0, 2.0]) + np.triu(np.ones((3, 3)), 1) * 0.0)


def test_the_second_derivative():
    """(Refused before: eig_grad had a rule of its own that refused; it is differentiated
    as written now, given the eigenvectors. autograd's test_eig_real checks this.)"""
    def first(a):
        return np.sum(np.real(sg.grad(phase_free)(a) * C))
    check_grads(first, (COMPLEX_EIGENVALUES.copy(),), order=1)
    check_grads(phase_free, (COMPLEX_EIGENVALUES.copy(),), order=2)
    for values in (np.abs, np.real):
        def magnitudes(a):
            w, v = np.linalg.eig(a)
            return np.sum(values(w) ** 2) + np.sum(np.abs(v))
        check_grads(magnitudes, (REAL_EIGENVALUES.copy(),), order=2)
