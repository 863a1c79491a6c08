"""``sg.hvp`` called again and again with arguments that change between calls: shapes,
ranks, a float for an array, a default parameter given or left (the forward-mode code
is found by the last call's key when the arguments look alike)."""
import numpy as np
import pytest

import srcgrad as sg

SCALE = 2.0


def energy(x, c=1.5):
    return SCALE * np.sum(np.sin(x) * x ** 2) + c * np.sum(x) ** 2


def hessian_times(x, v, c=1.5):
    """The Hessian of ``energy`` written out, times ``v``."""
    x = np.asarray(x, dtype=float)
    diagonal = SCALE * (-np.sin(x) * x ** 2 + 4.0 * x * np.cos(x) + 2.0 * np.sin(x))
    return diagonal * v + 2.0 * c * np.sum(v) * np.ones_like(x)


def by_differences(x, v, c=1.5, eps=1e-5):
    g = sg.grad(energy)
    return (g(x + eps * v, c) - g(x - eps * v, c)) / (2 * eps)


def test_shapes_ranks_and_defaults_change_between_calls():
    product = sg.hvp(energy)
    rng = np.random.default_rng(3)
    calls = [np.array([0.3, -1.0, 2.0]), np.array([0.5, 0.1, -0.7]), rng.normal(size=5),
             rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), np.array([0.2, 0.4, 0.6])]
    for k, x in enumerate(calls):
        v = rng.normal(size=x.shape)
        if k % 2:
            got, want = product(x, 0.25, v), hessian_times(x, v, 0.25)
            np.testing.assert_allclose(got, by_differences(x, v, 0.25), rtol=1e-6, atol=1e-7)
        else:
            got, want = product(x, v), hessian_times(x, v)
        assert got.shape == x.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_a_float_after_arrays_and_a_global_changed():
    global SCALE
    product = sg.hvp(energy)
    x, v = np.array([0.3, -1.0]), np.array([1.0, 0.5])
    np.testing.assert_allclose(product(x, v), hessian_times(x, v), rtol=1e-10)
    got = product(0.7, 1.0)
    assert np.ndim(got) == 0
    assert float(got) == pytest.approx(float(hessian_times(np.array(0.7), 1.0)), rel=1e-10)
    try:
        SCALE = 3.0  # (the code read it as a constant: compiled again)
        np.testing.assert_allclose(product(x, v), hessian_times(x, v), rtol=1e-10)
    finally:
        SCALE = 2.0
    np.testing.assert_allclose(product(x, v), hessian_times(x, v), rtol=1e-10)


def test_float32_after_float64_keeps_its_dtype():
    product = sg.hvp(energy)
    x, v = np.array([0.3, -1.0, 0.2]), np.array([1.0, 0.5, -2.0])
    assert product(x, v).dtype == np.float64
    got = product(x.astype(np.float32), v.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, hessian_times(x, v), rtol=1e-5)


def chain(x):
    """The gradient's own value (``dx``) and its tangent share no late statement: the
    tangent alone skips the value's ``add_at`` chain."""
    return np.sum(np.sin(x) * x ** 2) + np.sum(x[:-1] * x[1:]) ** 2


def test_hvp_runs_the_tangent_of_the_gradient_alone():
    from srcgrad.forward import _forward

    x, v = np.linspace(0.1, 1.0, 6), np.cos(np.arange(6.0))
    run = _forward(sg.grad(chain), (x,), [0], tangent_only=True)
    value, tangent = run(x, v)
    assert value is None
    np.testing.assert_allclose(tangent, sg.hvp(chain)(x, v), rtol=1e-12)
    eps = 1e-6
    g = sg.grad(chain)
    np.testing.assert_allclose(tangent, (g(x + eps * v) - g(x - eps * v)) / (2 * eps),
                               rtol=1e-6, atol=1e-8)
    with_value, same = _forward(sg.grad(chain), (x,), [0])(x, v)  # (sg.jvp's: both)
    np.testing.assert_allclose(with_value, g(x), rtol=1e-12)
    np.testing.assert_allclose(same, tangent, rtol=1e-12)
