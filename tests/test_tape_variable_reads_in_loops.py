"""A Variable read from where it is stored (a global, a closure's cell) inside a ``for``
loop of a helper the block calls: the reverse loop made the read again instead of saving
it, and the copy was then propagated into the tape's report, which is matched by the
read's name: the report was dropped (None, or a gradient missing the loop's terms),
silently. Found by a battery of numerical-methods programs. Plain code and
``@sg.function``, scalar and array Variables."""
import numpy as np
import pytest

import srcgrad as sg

k = sg.Variable(1.7)
w = sg.Variable(np.array([1.7, 2.0]))


def power_for():
    x = 1.0
    for _ in range(2):
        x = x * k
    return x


def power_of_array():
    x = np.ones(2)
    for i in range(3):
        x = x * w + i
    return np.sum(x)


def generator_sum():
    return sum(k * i for i in range(3))


def make_sim(kv):
    def sim():
        x = 1.0
        for _ in range(2):
            x = x * kv
        return x
    return sim


SIM = make_sim(k)


def taped_k(f):
    with sg.GradientTape() as tape:
        y = f()
    return tape.gradient(y, k)


def taped_w(f):
    with sg.GradientTape() as tape:
        y = f()
    return tape.gradient(y, w)


def plus_a_direct_read():
    with sg.GradientTape() as tape:
        y = k * k + power_for()
    return tape.gradient(y, k)


def _central(f, var, eps=1e-6):
    base = var.numpy().copy()
    out = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        d = np.zeros_like(base)
        d[i] = eps
        var.assign(base + d)
        up = f()
        var.assign(base - d)
        down = f()
        out[i] = (up - down) / (2 * eps)
    var.assign(base)
    return out


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f", [power_for, generator_sum, SIM], ids=["for", "generator", "closure"])
def test_a_scalar_variable(f, placement):
    run = taped_k if placement == "plain" else sg.function(taped_k)
    np.testing.assert_allclose(run(f), _central(f, k), rtol=1e-6)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_an_array_variable(placement):
    run = taped_w if placement == "plain" else sg.function(taped_w)
    np.testing.assert_allclose(run(power_of_array), _central(power_of_array, w), rtol=1e-6)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_with_a_read_outside_the_loop(placement):
    run = plus_a_direct_read if placement == "plain" else sg.function(plus_a_direct_read)
    assert run() == pytest.approx(4 * 1.7, rel=1e-12)


def test_a_variable_the_target_does_not_reach_is_none():
    with sg.GradientTape() as tape:
        unused = power_for()
        y = np.sum(w * 2.0)
    assert tape.gradient(y, k) is None
    assert unused > 0
