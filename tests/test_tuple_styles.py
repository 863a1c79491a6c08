"""The same math written with Python-float state and helpers returning tuples
(issue 15's first style): ranks pass through ``x, y = (1.0, 1.0)`` and through a
helper's ``return dx, dy`` unpacked, and the tuple's items are known when
compiling. Checked against central differences in every form and to second
order; the generated code keeps no tuple and calls no ``unbroadcast``.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def lotka(x, y, a, b):
    dx = a * x - b * x * y
    dy = b * x * y - a * y
    return dx, dy


def rk4_floats(a, b):
    x, y = 1.0, 0.5
    h = 0.05
    for _ in range(8):
        k1x, k1y = lotka(x, y, a, b)
        k2x, k2y = lotka(x + 0.5 * h * k1x, y + 0.5 * h * k1y, a, b)
        k3x, k3y = lotka(x + 0.5 * h * k2x, y + 0.5 * h * k2y, a, b)
        k4x, k4y = lotka(x + h * k3x, y + h * k3y, a, b)
        x = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    return (x - 1.0) ** 2 + y * y


def rk4_arrays(p):
    state = np.array([1.0, 0.5])
    h = 0.05
    for _ in range(8):
        k1 = np.array(lotka(state[0], state[1], p[0], p[1]))
        s2 = state + 0.5 * h * k1
        k2 = np.array(lotka(s2[0], s2[1], p[0], p[1]))
        s3 = state + 0.5 * h * k2
        k3 = np.array(lotka(s3[0], s3[1], p[0], p[1]))
        s4 = state + h * k3
        k4 = np.array(lotka(s4[0], s4[1], p[0], p[1]))
        state = state + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return (state[0] - 1.0) ** 2 + state[1] ** 2


def item_rebound_after(x):
    """The tuple holds the old ``x``: its item is not the name's new value."""
    pair = (x, 2.0 * x)
    x = x * 3.0
    first, second = pair
    return np.sum(first * x + second)


def mixed_ranks(x):
    v, s = x * 2.0, 3.0
    w, t = (np.sin(v), s * s)
    return np.sum(w * t) + t


def test_float_state_and_tuple_helpers_match_central_differences():
    check_grads(rk4_floats, (1.1, 0.4), wrt=(0, 1), order=2)
    value, grads = sg.value_and_grad(rk4_floats, wrt=(0, 1))(1.1, 0.4)
    assert value == pytest.approx(rk4_floats(1.1, 0.4), rel=1e-12)
    np.testing.assert_allclose(grads, sg.grad(rk4_arrays)(np.array([1.1, 0.4])), rtol=1e-10)


def test_the_generated_code_keeps_no_tuple_and_no_unbroadcast():
    g = sg.grad(rk4_floats, wrt=(0, 1))
    g(1.1, 0.4)
    text = sg.adjoint_source(rk4_floats, wrt=(0, 1))
    assert "= (lotka_dx, lotka_dy)" not in text, text
    from srcgrad.compiler import cache
    texts = [e.text for per in cache._BY_FUNCTION.values() for comp in per.values()
             for e in comp.entries.values() if "rk4_floats" in e.text]
    assert texts and all("unbroadcast" not in t for t in texts), texts


@pytest.mark.parametrize("f", [item_rebound_after, mixed_ranks], ids=lambda f: f.__name__)
def test_tuples_whose_items_change_or_mix_ranks(f):
    x = np.array([0.3, -0.8, 1.5])
    check_grads(f, (x,), order=2)
    value, grad = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
