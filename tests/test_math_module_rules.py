"""``math.gamma``, ``math.lgamma`` and ``math.copysign`` in differentiated code (issue 13:
refused with "no derivative rule"), on Python floats taken out of arrays: checked
against central differences to second order, on tapes and in forward mode; the
digamma they use (no SciPy) against SciPy's."""
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad import runtime
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

X = np.array([0.7, -1.3, 2.4, 5.5])


def log_likelihood_of_counts(x):
    """A gamma-function likelihood (a Poisson-gamma mixture) written with the math module."""
    a, b = math.exp(x[0]), x[2] * x[2]
    return math.lgamma(a + b) - math.lgamma(a) + a * math.log(b) + math.lgamma(x[3] * 3.0)


def gamma_products(x):
    return math.gamma(x[2]) * math.gamma(x[0] + 0.5) + math.gamma(x[1]) + math.gamma(x[3] * 4.0)


def signed_magnitudes(x):
    s = math.copysign(x[0], x[1]) + math.copysign(x[2] ** 2, -1.0)
    return s * math.copysign(x[3], x[0] - 1.0) + math.copysign(x[1], x[2]) ** 3


CASES = [
    (log_likelihood_of_counts, (X,)),
    (gamma_products, (X,)),
    (signed_magnitudes, (X,)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_against_central_differences_to_second_order(f, args):
    check_grads(f, args, wrt=tuple(range(len(args))), order=2)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_form_agrees(f, args):
    assert_forms_agree(f, args, nonzero=True)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args):
    assert_forward_mode_agrees(f, args)


def test_third_derivative_of_lgamma():
    d3 = sg.grad(sg.grad(sg.grad(lambda v: math.lgamma(v))))
    special = pytest.importorskip("scipy.special")
    for v in (0.3, 2.5, 11.0, -1.5):
        assert d3(v) == pytest.approx(special.polygamma(2, v), rel=1e-9)


def test_digamma_without_scipy_is_scipys():
    special = pytest.importorskip("scipy.special")
    for v in (1e-3, 0.1, 0.5, 1.0, 2.7, 9.99, 10.0, 12.0, 1e5, -0.5, -1.5, -10.7):
        assert runtime.math_digamma(v) == pytest.approx(special.digamma(v), rel=1e-14, abs=1e-14)


def test_copysign_has_no_gradient_in_the_sign_and_zero_at_zero():
    def f(x, y):
        return math.copysign(x, y) * 2.0

    assert sg.grad(f, wrt=(0, 1))(0.5, -3.0) == (-2.0, 0.0)
    assert sg.grad(f)(0.0, 3.0) == 0.0
