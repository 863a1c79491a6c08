"""A value computed as NaN or inf and then masked out gives no NaN gradient.

The usual adjoint of a masked entry is ``0 * inf`` or ``0 * NaN``, NaN; the
result does not depend on the entry, and central differences give a finite
gradient. srcgrad computes such a gradient again with strong zeros
(``runtime/strong.py``): in every form, in every style of writing it.
"""
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import fd_jacobian, taped

warnings.filterwarnings("ignore", category=RuntimeWarning)  # the NaNs are the point
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(7)
X = RNG.normal(size=(6, 2))
Y = np.array([1.0, np.nan, 2.0, 0.5, np.nan, -1.0])  # missing targets
W = np.array([0.3, -0.2])


def nanmean_loss(w):
    return np.nanmean((X @ w - Y) ** 2)


def nansum_loss(w):
    r = X @ w - Y
    return np.nansum(r * r) / np.sum(~np.isnan(Y))


def where_isnan_loss(w):
    r = X @ w - Y
    return np.sum(np.where(np.isnan(Y), 0.0, r ** 2))


def nan_to_num_loss(w):
    r = X @ w - Y
    return np.sum(np.nan_to_num(r ** 2, nan=0.0))


def where_sqrt(x):
    # sqrt of the negative entries is NaN, and not selected
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * np.arange(1.0, 1.0 + x.size))


def pair_energy(p):
    # Lennard-Jones-like: 1 / r is inf on the diagonal (r == 0), masked out
    d = p[:, None, :] - p[None, :, :]
    r = np.sqrt(np.sum(d ** 2, axis=-1))
    inv = np.where(np.eye(p.shape[0]) > 0, 0.0, 1.0 / r)
    return np.sum(inv ** 6) - np.sum(inv ** 3)


def pair_energy_loops(p):
    n = p.shape[0]
    e = 0.0
    for i in range(n):
        d = p - p[i]
        r = np.sqrt(np.sum(d * d, axis=1))
        inv = np.where(np.arange(n) == i, 0.0, 1.0 / r)
        e = e + np.sum(inv ** 6) - np.sum(inv ** 3)
    return e


CASES = [
    (nanmean_loss, W),
    (nansum_loss, W),
    (where_isnan_loss, W),
    (nan_to_num_loss, W),
    (where_sqrt, np.array([-1.0, 0.7, -0.3, 2.0])),
    (pair_energy, RNG.normal(size=(4, 2))),
    (pair_energy_loops, RNG.normal(size=(4, 2))),
]
IDS = [f.__name__ for f, _ in CASES]


def _expected(f, x):
    expected = fd_jacobian(f, x)
    assert np.all(np.isfinite(expected)) and np.any(expected != 0)
    return expected


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_gradient_is_finite_and_right(f, x):
    expected = _expected(f, x)
    np.testing.assert_allclose(sg.grad(f)(x.copy()), expected, rtol=1e-5, atol=1e-6)
    value, g = sg.value_and_grad(f)(x.copy())
    assert value == pytest.approx(f(x))
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)
    check_grads(f, (x.copy(),), order=1)


# A tape used once whose backward code restores values in place (the stacks of a
# loop) empties its record as it runs: the gradient is not computed again there.
ONCE = [(f, x) for f, x in CASES if f is not pair_energy_loops]


@pytest.mark.parametrize("f, x", ONCE, ids=[f.__name__ for f, _ in ONCE])
def test_tape_in_plain_code_and_in_function(f, x):
    expected = _expected(f, x)
    np.testing.assert_allclose(taped(f, x.copy()), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_persistent_tape_twice(f, x):
    expected = _expected(f, x)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    for _ in range(2):
        np.testing.assert_allclose(tape.gradient(y, x), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_forward_mode(f, x):
    t = np.linspace(0.5, 1.5, x.size).reshape(x.shape)
    _, tangent = sg.jvp(f, (x,), (t,))
    expected = np.sum(_expected(f, x) * t)
    assert float(tangent) == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_parameters_as_a_dict_and_as_arguments():
    def loss_dict(p):
        return np.nanmean((X @ p["w"] + p["b"] - Y) ** 2)

    def loss_args(w, b):
        return np.nanmean((X @ w + b - Y) ** 2)

    p = {"w": W.copy(), "b": 0.4}
    g = sg.grad(loss_dict)(p)
    gw, gb = sg.grad(loss_args, wrt=(0, 1))(W.copy(), 0.4)
    expected_w = fd_jacobian(lambda w: loss_args(w, 0.4), W)
    expected_b = (loss_args(W, 0.4 + 1e-6) - loss_args(W, 0.4 - 1e-6)) / 2e-6
    for w_grad, b_grad in ((g["w"], g["b"]), (gw, gb)):
        np.testing.assert_allclose(w_grad, expected_w, rtol=1e-5)
        assert float(b_grad) == pytest.approx(expected_b, rel=1e-5)


def test_an_infinite_derivative_stays_infinite():
    """Not masked: the adjoint reaching ``sqrt`` at 0 is 1, not 0."""
    g = sg.grad(lambda x: np.sum(np.sqrt(x)))(np.array([0.0, 4.0]))
    assert g[0] == np.inf and g[1] == 0.25


def test_a_nan_value_keeps_its_nan_gradient():
    value, g = sg.value_and_grad(lambda x: np.sum(np.sqrt(x)))(np.array([-1.0, 4.0]))
    assert np.isnan(value) and np.isnan(g[0]) and g[1] == 0.25


def test_a_function_with_an_effect_runs_once():
    """An append to a list it was not given would happen twice: the gradient is the
    first run's (NaN where masked), never a second run's."""
    log = []

    def f(x):
        log.append(1)
        return where_sqrt(x)

    g = sg.grad(f)(np.array([-1.0, 0.7]))
    assert log == [1]
    assert np.isnan(g[0]) and g[1] == pytest.approx(2 * 0.5 / np.sqrt(0.7))


def test_a_function_writing_a_global_array_runs_once():
    counts = np.zeros(1)

    def f(x):
        counts[0] = counts[0] + 1.0
        return where_sqrt(x)

    sg.grad(f)(np.array([-1.0, 0.7]))
    assert counts[0] == 1.0


def test_values_it_made_itself_may_be_written():
    def f(x):
        out = np.zeros(x.size)
        for i in range(x.size):
            out[i] = np.where(x[i] > 0, np.sqrt(x[i]), 0.0)
        return np.sum(out)

    x = np.array([-1.0, 0.7, 2.0])
    np.testing.assert_allclose(sg.grad(f)(x), fd_jacobian(f, x), rtol=1e-5, atol=1e-6)


def masked_sqrt_in_errstate(x):
    with np.errstate(invalid="ignore"):
        y = np.where(x > 0, np.sqrt(x), 0.0)
    return np.sum(y)


def test_masked_values_inside_errstate_get_strong_zeros():
    """Hunt 13: the same code inside ``with np.errstate(...)`` kept its NaN gradient (the
    context manager's call counted as one that might not repeat, so no second run)."""
    x = np.array([2.0, -1.0, 0.5])
    np.testing.assert_allclose(sg.grad(masked_sqrt_in_errstate)(x), [0.5 / np.sqrt(2.0), 0.0,
                                                                       0.5 / np.sqrt(0.5)])
    value, grad = sg.value_and_grad(masked_sqrt_in_errstate)(x)
    assert np.all(np.isfinite(grad)) and value == pytest.approx(np.sqrt(2.0) + np.sqrt(0.5))
