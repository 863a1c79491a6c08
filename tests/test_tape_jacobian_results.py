"""What ``tape.jacobian`` returns is the caller's own: writable, sharing memory with no
other result, no seed and nothing a persistent tape keeps (it may be the backward
code's array itself, reshaped), with its source's float dtype; in plain code and in
``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg


def jacobians(a, b):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(a)
        tape.watch(b)
        same = a * 1.0
        both = a + b
        cube = np.tanh(b) ** 3
    first = tape.jacobian(same, a)
    pair = tape.jacobian(both, [a, b])
    again = tape.jacobian(same, a)
    return first, pair, again, tape.jacobian(cube, b)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_results_are_independent_and_right(form):
    run = jacobians if form == "plain" else sg.function(jacobians)
    a, b = np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.1, -0.4])
    first, (ja, jb), again, jc = run(a, b)
    eye = np.eye(3)
    for j in (first, ja, jb, again):
        np.testing.assert_array_equal(j, eye)
        assert j.flags.writeable
    first[...] = 7.0
    ja[0, 0] = 99.0
    np.testing.assert_array_equal(again, eye)
    np.testing.assert_array_equal(jb, eye)
    np.testing.assert_allclose(jc, np.diag(3 * np.tanh(b) ** 2 * (1 - np.tanh(b) ** 2)),
                               rtol=1e-13)
    assert not np.shares_memory(ja, jb) and not np.shares_memory(first, again)


def test_float32_source_and_unconnected():
    x = np.array([0.5, -1.0], dtype=np.float32)
    k = np.array([1, 2])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    j = tape.jacobian(y, x)
    assert j.dtype == np.float32
    np.testing.assert_allclose(j, np.diag(2 * x), rtol=1e-6)
    assert tape.jacobian(y, k) is None
    z = tape.jacobian(y, k, unconnected_gradients=sg.UnconnectedGradients.ZERO)
    assert z.shape == (2, 2) and not z.any()
