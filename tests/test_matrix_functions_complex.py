"""``scipy.linalg.sqrtm``/``logm``/``expm`` where complex values come in (a complex
matrix, or a real one with a negative eigenvalue, whose square root and logarithm are
complex; autograd's test_sqrtm): TensorFlow's convention, ``conj(L(a^T, conj(g)))``.
Was refused. A second derivative where eigenvalues sit on the branch cut is refused
(SciPy's value of the Fréchet block matrix there is not accurate)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

spla = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(0)
R = RNG.normal(size=(3, 3))
POSITIVE = R @ R.T + np.eye(3)
NEGATIVE = 0.5 * (R + R.T) - 0.5 * np.eye(3)          # eigenvalues -2.1, -0.8, 0.4
COMPLEX = R + 1j * RNG.normal(size=(3, 3)) + 3 * np.eye(3)


def square_root_parts(a):
    s = spla.sqrtm(a.astype(complex))  # (complex values the code shows: compiled for them)
    return np.sum(np.real(s) ** 2 + np.imag(s) * 0.7)


def logarithm_parts(a):
    s = spla.logm(a + 0j)
    return np.sum(np.real(s) * 0.3 + np.imag(s) ** 2)


def exponential_magnitude(a):
    return np.sum(np.abs(spla.expm(a * 0.3)))


def real_root_of_a_real_matrix(a):
    return np.sum(np.imag(spla.sqrtm(a)))


def test_code_that_shows_no_complex_value_refuses_a_complex_root():
    # (compiled for real values: np.imag's rule for them meets the complex root)
    with pytest.raises(sg.CompileError, match="complex"):
        sg.grad(real_root_of_a_real_matrix)(NEGATIVE.copy())
    np.testing.assert_allclose(sg.grad(real_root_of_a_real_matrix)(POSITIVE.copy()), 0.0)


@pytest.mark.parametrize("f", [square_root_parts, logarithm_parts, exponential_magnitude],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("a, order", [(POSITIVE, 2), (NEGATIVE, 1), (COMPLEX, 2)],
                         ids=["positive", "negative", "complex"])
def test_against_finite_differences(f, a, order):
    check_grads(f, (a.copy(),), order=order)


@pytest.mark.parametrize("f", [square_root_parts, logarithm_parts], ids=lambda f: f.__name__)
def test_second_order_on_the_branch_cut_is_refused(f):
    def first(a):
        return np.sum(sg.grad(f)(a) * R)
    with pytest.raises(NotImplementedError, match="repeated eigenvalue on the negative real"):
        sg.grad(first)(NEGATIVE.copy())
