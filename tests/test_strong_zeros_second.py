"""Second derivatives of code that masks a NaN or inf it computed (runtime/strong.py).

``sg.hvp``, ``sg.hessian``, ``sg.jvp`` of a gradient and ``sg.grad`` of code calling
``sg.grad`` differentiate the gradient's code; where a masked entry makes them NaN,
they compute again over the gradient's code with strong zeros, whose zeroed
contributions are constants. Expected: central differences of the first-order
gradient (right at masked points: tests/test_strong_zeros.py), in several styles.
"""
import math
import warnings

import numpy as np
import pytest

import srcgrad as sg
from test_strong_zeros import pair_energy  # (1 / r is inf on the diagonal, masked out)

warnings.filterwarnings("ignore", category=RuntimeWarning)  # the NaNs are the point
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(11)


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * np.arange(1.0, 1.0 + x.size))


def where_xlogx(x):
    # x * log(x) is NaN below 0 and its derivative's derivative is inf at 0
    y = np.where(x > 1e-12, x * np.log(x), 0.0)
    return np.sum(y) + np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def where_xlogx_helper(x):
    def entropy_terms(p):
        return np.where(p > 1e-12, p * np.log(p), 0.0), np.where(p > 0, np.sqrt(p), 0.0)

    a, b = entropy_terms(x)
    return np.sum(a) + np.sum(b)


def where_xlogx_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        xi = x[i]
        total = total + np.where(xi > 1e-12, xi * np.log(xi), 0.0) + \
            np.where(xi > 0, np.sqrt(xi), 0.0)
    return total


def log_barrier(x):
    # the log of the entries outside the domain is NaN, selected away
    inside = x > 0
    return np.sum(np.where(inside, -np.log(np.where(inside, x, np.nan)), 10.0 * x * x))


MIXED = np.array([0.5, -1.0, 2.0, 0.3])  # a negative entry: masked
CASES = [
    (where_sqrt, np.array([-1.0, 0.7, -0.3, 2.0])),
    (where_xlogx, MIXED),
    (where_xlogx_helper, MIXED),
    (where_xlogx_loop, MIXED),
    (pair_energy, RNG.normal(size=(4, 2))),
    (log_barrier, np.array([0.4, -0.6, 1.5, -2.0])),
]
IDS = [f.__name__ for f, _ in CASES]


def _hvp_by_differences(f, x, v, h=1e-6):
    g = sg.grad(f)
    expected = (g(x + h * v) - g(x - h * v)) / (2 * h)
    assert np.all(np.isfinite(expected)) and np.any(expected != 0)
    return expected


def _direction(x):
    return np.linspace(0.5, 1.5, x.size).reshape(x.shape)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_hvp(f, x):
    v = _direction(x)
    expected = _hvp_by_differences(f, x, v)
    np.testing.assert_allclose(sg.hvp(f)(x.copy(), v), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_jvp_of_the_gradient(f, x):
    v = _direction(x)
    expected = _hvp_by_differences(f, x, v)
    gradient, tangent = sg.jvp(sg.grad(f), (x.copy(),), (v,))
    np.testing.assert_allclose(gradient, sg.grad(f)(x.copy()))
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_grad_of_grad(f, x):
    v = _direction(x)
    expected = _hvp_by_differences(f, x, v)
    inner = sg.grad(f)

    def directional(x):
        return np.sum(inner(x) * v)

    np.testing.assert_allclose(sg.grad(directional)(x.copy()), expected, rtol=1e-5, atol=1e-5)
    value, g = sg.value_and_grad(directional)(x.copy())
    assert np.isfinite(value)
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f, x", [c for c in CASES if c[1].ndim == 1],
                         ids=[f.__name__ for f, x in CASES if x.ndim == 1])
def test_hessian(f, x):
    g, h = sg.grad(f), 1e-6
    expected = np.stack([(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(x.size)], -1)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(sg.hessian(f)(x.copy()), expected, rtol=1e-5, atol=1e-5)


def test_python_floats_and_math():
    def f(a, b):
        s = math.sqrt(a) if a > 0 else 0.0  # (a branch: no NaN computed)
        return s + float(np.where(b > 0, np.sqrt(b), 0.0)) * a

    for b in (-2.0, 0.81):
        expected = (sg.grad(f)(1.3 + 1e-6, b) - sg.grad(f)(1.3 - 1e-6, b)) / 2e-6
        assert sg.hvp(f)(1.3, b, 1.0) == pytest.approx(expected, rel=1e-5)
    g = sg.grad(lambda b: float(np.where(b > 0, np.sqrt(b), 0.0)) * 2.0)
    assert sg.grad(lambda b: g(b))(-2.0) == 0.0
    assert sg.grad(lambda b: g(b))(0.81) == pytest.approx(-0.5 * 0.81 ** -1.5 * 2.0 * 0.5)


def test_parameters_as_a_dict():
    def loss(p):
        return np.sum(np.where(p["w"] > 0, np.sqrt(p["w"]), 0.0)) * p["s"]

    p = {"w": np.array([0.5, -1.0, 2.0]), "s": 1.5}
    v = {"w": np.array([1.0, 2.0, -1.0]), "s": 0.5}
    product = sg.hvp(loss)(p, v)
    g = sg.grad(loss)
    h = 1e-6
    plus = g({"w": p["w"] + h * v["w"], "s": p["s"] + h * v["s"]})
    minus = g({"w": p["w"] - h * v["w"], "s": p["s"] - h * v["s"]})
    np.testing.assert_allclose(product["w"], (plus["w"] - minus["w"]) / (2 * h), rtol=1e-5)
    assert product["s"] == pytest.approx((plus["s"] - minus["s"]) / (2 * h), rel=1e-5)


def test_a_seed_that_moves_off_zero_keeps_its_infinite_derivative():
    """``x * sqrt(x)`` at 0: the adjoint reaching ``sqrt`` is ``x``, 0 there but not
    along the direction: the second derivative, ``0.75 / sqrt(x)``, is infinite, and
    is not zeroed (strong zeros only where the adjoint stays 0)."""
    def f(x):
        return np.sum(x * np.sqrt(x))

    x = np.array([0.0, 1.0])
    product = sg.hvp(f)(x, np.array([1.0, 1.0]))
    assert not np.isfinite(product[0])
    assert product[1] == pytest.approx(0.75)


def test_not_computed_again_when_the_function_prints(capsys):
    """A function that prints does not run twice alike: the usual (NaN) answer."""
    def f(x):
        print("called")
        return np.sum(np.where(x > 0, np.sqrt(x), 0.0))

    product = sg.hvp(f)(np.array([-1.0, 4.0]), np.array([1.0, 1.0]))
    assert capsys.readouterr().out.count("called") == 1
    assert np.isnan(product[0]) and product[1] == pytest.approx(-0.25 * 4.0 ** -1.5)


def _masked(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


_GRADIENT = sg.grad(_masked)
_V = np.linspace(0.5, 1.5, 4)


def _directional(x):
    return np.sum(_GRADIENT(x) * _V)


def _taped(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = _directional(x)
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_a_gradient_called_in_a_tape_block_has_the_value_python_computes(form):
    """The block's code inlines the gradient's; a masked NaN there made the block's
    values NaN where the gradient's own call (computed again, strong) is finite."""
    x = np.array([0.5, -1.0, 2.0, 0.3])
    run = _taped if form == "plain" else sg.function(_taped)
    value, g = run(x)
    assert value == pytest.approx(_directional(x))
    np.testing.assert_allclose(g, _hvp_by_differences(_masked, x, _V), rtol=1e-5, atol=1e-6)


def test_a_gradient_called_in_value_and_grad_and_jvp_has_the_value_python_computes():
    x = np.array([0.5, -1.0, 2.0, 0.3])
    expected = _hvp_by_differences(_masked, x, _V)
    value, g = sg.value_and_grad(_directional)(x)
    assert value == pytest.approx(_directional(x))
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)
    value, tangent = sg.jvp(_directional, (x,), (np.ones(4),))
    assert value == pytest.approx(_directional(x))
    assert tangent == pytest.approx(np.sum(expected), rel=1e-5)


# Forward mode's own strong zeros: a tangent exactly 0 times an infinite derivative is 0
# (``sqrt`` of a squared distance at 0, on a kernel's diagonal), as reverse mode's are.

def matern_kernel(x):
    d2 = (x[:, None] - x[None, :]) ** 2
    r = np.sqrt(d2)  # 0 on the diagonal, where sqrt's derivative is infinite
    return np.sum((1.0 + np.sqrt(3.0) * r) * np.exp(-np.sqrt(3.0) * r))


def distance_helper(x):
    def pair(a, b):
        d = np.sqrt((a - b) ** 2)
        return d, np.exp(-d)

    total = 0.0
    for i in range(x.shape[0]):
        d, k = pair(x[i], x)
        total = total + np.sum(k * (1.0 + d))
    return total


def numpy_scalars(t):
    r = np.sqrt((t - t) ** 2)  # 0 whatever t is: its tangent is 0
    return np.exp(-r) * t * t


@pytest.mark.parametrize("f, x", [(matern_kernel, np.array([0.3, -0.5, 1.2])),
                                  (distance_helper, np.array([0.3, -0.5, 1.2])),
                                  (numpy_scalars, 0.7)],
                         ids=["kernel", "helper_tuple", "scalars"])
def test_forward_mode_strong_zeros(f, x):
    v = np.linspace(0.5, 1.5, np.size(x)).reshape(np.shape(x)) if np.ndim(x) else 1.0
    expected = (f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6
    # (sg.grad agrees where its seed is 0 there; ``np.sqrt((t - t) ** 2)`` reaches sqrt
    # with seed 1 and is NaN in reverse mode, as documented: write np.hypot / np.abs.)
    value, tangent = sg.jvp(f, (x,), (v,))
    assert value == pytest.approx(f(x))
    assert float(tangent) == pytest.approx(float(expected), rel=1e-6, abs=1e-9)
    if f is numpy_scalars:
        return  # (ForwardAccumulator transposes the tape's reverse mode: NaN there, above)
    with sg.ForwardAccumulator(x, v) as acc:
        y = f(x)
    assert float(acc.jvp(y)) == pytest.approx(float(expected), rel=1e-6, abs=1e-9)


def test_forward_mode_not_computed_again_when_the_function_prints(capsys):
    def f(x):
        print("called")
        return matern_kernel(x)

    _, tangent = sg.jvp(f, (np.array([0.3, -0.5]),), (np.ones(2),))
    assert capsys.readouterr().out.count("called") == 1
    assert not np.isfinite(tangent)  # (the usual code's answer: NaN, documented)
