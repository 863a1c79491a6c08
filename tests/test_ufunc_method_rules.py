"""Methods of ufuncs in differentiated code (issue 13, section 2: ``np.add.reduce``,
``np.maximum.accumulate``, ``np.subtract.outer``, ...): each in a realistic
function, checked against central differences to second order, on tapes, and in
forward mode. They were refused (``no derivative rule for ufunc.reduce``)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

RNG = np.random.default_rng(5)
X = RNG.normal(size=(6, 2))
PRICES = np.array([1.0, 1.3, 0.9, 1.6, 1.2, 2.0, 1.7])


def mixture_loglik(means):
    """log sum_k exp(log N(x | mu_k)) per point, components combined by logaddexp.reduce."""
    d2 = np.sum((X[:, None, :] - means[None, :, :]) ** 2, axis=2)
    return np.sum(np.logaddexp.reduce(-0.5 * d2, axis=1))


def max_drawdown(returns):
    """The worst fall from a running peak of a price path."""
    path = np.multiply.accumulate(1.0 + returns)
    peak = np.maximum.accumulate(path)
    return np.max(1.0 - path / peak) + 0.1 * np.sum(path)


def rbf_kernel_energy(points, scale):
    """A Gaussian kernel matrix from pairwise differences (subtract.outer per coordinate)."""
    d2 = np.subtract.outer(points[:, 0], points[:, 0]) ** 2 \
        + np.subtract.outer(points[:, 1], points[:, 1]) ** 2
    return np.sum(np.exp(-d2 / scale))


def polynomial_features(x, w):
    """Features x**k by multiply.outer of a vector and its powers, a linear model on them."""
    powers = np.multiply.outer(x, np.ones(3)) ** np.arange(3.0)
    return np.sum((powers @ w - np.sin(x)) ** 2)


def reductions_and_scans(a):
    rows = np.add.reduce(a) * np.multiply.reduce(a, axis=1, keepdims=True)
    low = np.minimum.reduce(a, axis=None) + np.maximum.reduce(a, 1)
    soft = np.logaddexp2.reduce(a, axis=0)
    scans = np.add.accumulate(a, axis=1) * np.minimum.accumulate(a)
    return np.sum(rows ** 2) + np.sum(low) + np.sum(soft) + np.sum(scans * scans)


def outer_forms(a, b):
    return np.sum(np.add.outer(a, b) ** 2) + np.sum(np.divide.outer(a, b ** 2 + 1.0)) \
        + np.sum(np.sin(np.multiply.outer(2.0, b)))


CASES = [
    (mixture_loglik, (RNG.normal(size=(3, 2)),), (0,)),
    (max_drawdown, (np.array([0.3, -0.31, 0.78, -0.25, 0.67, -0.15]),), (0,)),
    (rbf_kernel_energy, (X.copy(), 1.5), (0, 1)),
    (polynomial_features, (RNG.normal(size=5), RNG.normal(size=3)), (0, 1)),
    (reductions_and_scans, (RNG.uniform(0.5, 1.5, size=(3, 4)),), (0,)),
    (outer_forms, (RNG.normal(size=3), RNG.normal(size=4)), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_against_central_differences_to_second_order(f, args, wrt):
    check_grads(f, args, wrt=wrt, order=2)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_form_agrees(f, args, wrt):
    assert_forms_agree(f, args, nonzero=True)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args, wrt):
    assert_forward_mode_agrees(f, args)


def running_peak(prices):
    return np.sum(np.maximum.accumulate(prices))


def test_a_running_extreme_at_a_tie_keeps_its_first_element():
    """At a tie the result is a kink; the gradient goes to the element where the running
    maximum first took its value (one of the one-sided derivatives)."""
    prices = np.array([1.0, 2.0, 2.0, 1.5, 3.0])
    g = sg.grad(running_peak)(prices)
    np.testing.assert_array_equal(g, [1.0, 3.0, 0.0, 0.0, 1.0])


def test_other_ufunc_methods_are_refused():
    def f(x):
        return np.sum(np.hypot.reduce(x))

    with pytest.raises(sg.CompileError, match="no derivative rule"):
        sg.grad(f)(np.ones(3))


def test_initial_and_where_are_refused():
    def f(x):
        return np.add.reduce(x, initial=1.0)

    with pytest.raises((sg.CompileError, TypeError)):
        sg.grad(f)(np.ones(3))
