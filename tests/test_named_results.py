"""NumPy 2's named results of the linear-algebra functions: ``np.linalg.eigh(s).eigenvalues``,
``svd(a).S``, ``qr(a).R``, ``slogdet(s).logabsdet``. A field read was refused ("attribute
of a differentiable value has no derivative rule", hunt 5); it is the item at the field's
position, checked when the code runs (``qr(a, 'r')`` is an array: AttributeError, as
Python gives).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees, taped

A = np.array([[0.5, 1.2, -0.3], [0.2, -0.7, 1.1], [1.3, 0.4, 0.6]])


def fields_of_results(a):
    s = a @ a.T + np.eye(3)
    r = np.linalg.eigh(s)
    u = np.linalg.svd(a)
    q = np.linalg.qr(a)
    return np.sum(r.eigenvalues ** 2) + np.sum(u.S) + np.sum(q.R ** 2) \
        + np.linalg.slogdet(s).logabsdet + np.sum(np.linalg.svd(a).S * 2.0) \
        + np.sum(r.eigenvectors[:, -1] ** 4)


def test_every_form():
    check_grads(fields_of_results, (A,), order=2)
    value, g = sg.value_and_grad(fields_of_results)(A)
    assert value == pytest.approx(fields_of_results(A), rel=1e-13)
    np.testing.assert_allclose(taped(fields_of_results, A.copy()), g, rtol=1e-10)
    np.testing.assert_allclose(sg.function(taped)(fields_of_results, A.copy()), g, rtol=1e-10)
    assert_forward_mode_agrees(fields_of_results, (A,))


def test_a_field_the_result_does_not_have_is_an_attribute_error():
    def f(a):
        r = np.linalg.qr(a, "r")  # an array, not a named result
        return np.sum(r.R)

    with pytest.raises(AttributeError, match="'R'"):
        sg.grad(f)(A)
