"""``z ** p`` at ``z == p == 0`` in code compiled for complex values: the real rule's
values (0 for both operands: ``0 ** 0 * 0`` for the base, TensorFlow's 0 for the log of a
zero base), not NaN from ``0 * 0 ** -1`` and ``log(0)``."""
import numpy as np

import srcgrad as sg


def powers(z, p):
    return np.real(np.sum(z ** p))


def test_complex_operands_at_zero_match_the_real_rule():
    z, p = np.array([0.0, 1.0, 0.5]), np.array([0.0, 2.0, 1.5])
    real = sg.grad(powers, wrt=(0, 1))(z, p)
    complex_ = sg.grad(powers, wrt=(0, 1))(z + 0j, p + 0j)
    for r, c in zip(real, complex_):
        assert np.all(np.isfinite(c))
        np.testing.assert_allclose(c.real, r, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(c.imag, 0.0, atol=1e-15)
