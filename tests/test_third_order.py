"""Third derivatives: the second-order code differentiated again (autograd's suite
checks ``np.tensordot`` to order 3; it crashed there).

The third-order compile reads the second-order code, which pops the lists its
comprehensions built (restoring them) under one name while another name of the same
list is read later: the restore is needed for that name too
(``pipeline._needed``), and no shape stand-in is taken of such a list
(``lifetimes._mutated_in_place``).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

RNG = np.random.default_rng(0)
A, B = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
U, V, W = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))


def tensordot_loss(a, b):
    return np.sum(np.tensordot(a, b, axes=1) * U)


def cubic_loss(a, b):
    return np.sum(np.tensordot(a * a, b, axes=1) * U)


def _second(f):
    def along_v(a, b):
        return np.sum(sg.grad(f, wrt=0)(a, b) * V)

    def along_w(a, b):
        return np.sum(sg.grad(along_v, wrt=1)(a, b) * W)
    return along_w


@pytest.mark.parametrize("f", [tensordot_loss, cubic_loss], ids=lambda f: f.__name__)
def test_third_derivative_through_tensordot(f):
    third = sg.grad(_second(f), wrt=0)(A, B)
    if f is tensordot_loss:  # bilinear: every third derivative is zero
        np.testing.assert_allclose(third, np.zeros_like(A), atol=1e-12)
    else:  # d/da of sum(2 a V * (W U^T)-ish): compare with central differences
        check_grads(_second(f), (A, B), order=1, wrt=(0,))


def test_third_order_check_grads():
    check_grads(tensordot_loss, (A, B), order=3)
