"""Second derivatives of ``np.linalg.det`` at singular and nearly singular matrices.

At a rank-deficient matrix LAPACK's det is rounding noise (``4.8e-16``, not 0): its
gradient ``det * inv(a).T`` is still right, but differentiated again the inverse's huge
entries cancel and the Hessian came out O(1) wrong, silently. Near a singular matrix
det's gradient is the cofactors, whose adjoint comes from minors (exact anywhere).
Checked in every form against central differences (det is a polynomial: they are exact
up to rounding)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


def _rank_deficient(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    a[-1] = a[0] + a[1] if n > 2 else a[0] * 0.5
    return a


MATRICES = {
    "rounded 3x3": _rank_deficient(3, 9),
    "rounded 4x4": _rank_deficient(4, 2),
    "exact 3x3": np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]),
    "2x2": _rank_deficient(2, 5),
    "invertible": np.random.default_rng(3).standard_normal((3, 3)),
}


def det(a):
    return np.linalg.det(a)


def det_in_a_sum(a):
    return np.linalg.det(a) * 2.0 + np.sum(a ** 2) * np.linalg.det(a.T)


@pytest.mark.parametrize("name", MATRICES)
@pytest.mark.parametrize("f", [det, det_in_a_sum], ids=lambda f: f.__name__)
def test_second_order_of_det(f, name):
    a = MATRICES[name]
    check_grads(f, (a,), order=2)
    assert_every_form(f, a)


def test_hessian_vector_product_is_the_cofactors_derivative():
    a = MATRICES["rounded 3x3"]
    v = np.random.default_rng(1).standard_normal((3, 3))

    def cofactors(m):
        return np.array([[np.linalg.det(np.delete(np.delete(m, i, 0), j, 1)) * (-1) ** (i + j)
                          for j in range(3)] for i in range(3)])

    eps = 1e-5
    exact = (cofactors(a + eps * v) - cofactors(a - eps * v)) / (2 * eps)
    np.testing.assert_allclose(sg.hvp(det)(a, v), exact, rtol=1e-7, atol=1e-9)

    def gv(m):
        return np.sum(sg.grad(det)(m) * v)
    np.testing.assert_allclose(sg.grad(gv)(a), exact, rtol=1e-7, atol=1e-9)


def test_a_stack_of_matrices_one_nearly_singular():
    stack = np.stack([MATRICES["rounded 3x3"], MATRICES["invertible"]])

    def total(s):
        return np.sum(np.linalg.det(s) ** 2)
    check_grads(total, (stack,), order=2)


def test_forward_mode_over_the_gradient_near_a_singular_matrix():
    """(``sg.jvp(sg.grad(det))`` was refused as det's "third derivative": the cofactors
    had no tangent.)"""
    a = MATRICES["rounded 3x3"]
    v = np.random.default_rng(2).standard_normal((3, 3))
    np.testing.assert_allclose(sg.jvp(sg.grad(det), (a,), (v,))[1], sg.hvp(det)(a, v),
                               rtol=1e-9, atol=1e-12)
