"""``np.real_if_close`` of complex values (autograd's test_real_ic): the real part where
every imaginary part is within ``tol``, else the values themselves; either way the
adjoint is the upstream gradient along the value's axes, in TensorFlow's convention.
Was refused ("complex inputs are not supported")."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def real_if_close_loss(z):
    r = np.real_if_close(z * z)
    return np.sum(np.abs(r) ** 2 + np.real(r))


@pytest.mark.parametrize("z", [
    np.array([0.4 + 0.3j, -1.2 + 0.5j]),                       # stays complex
    np.array([0.4 + 1e-18j, -1.2 + 0.0j]),                     # comes out real
    np.array([[0.3 + 0.2j, 0.7 - 0.1j], [1.1 + 0.0j, -0.5 + 0.4j]]),
], ids=["complex", "real", "matrix"])
def test_against_finite_differences(z):
    # (Where the result comes out real, a step off the real axis makes it complex: the
    # program's second derivative jumps there, so the first is checked.)
    order = 1 if np.all(np.abs(np.imag(z * z)) < 1e-12) else 2
    check_grads(real_if_close_loss, (z.copy(),), order=order)
    value, _ = sg.value_and_grad(real_if_close_loss)(z)
    assert value == pytest.approx(real_if_close_loss(z), rel=1e-12)


def test_real_values_keep_their_rule():
    x = np.array([0.4, -1.2, 0.9])
    np.testing.assert_allclose(sg.grad(lambda v: np.sum(np.real_if_close(v) ** 2))(x), 2 * x)
