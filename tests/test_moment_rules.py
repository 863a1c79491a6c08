"""``np.cov`` and ``np.corrcoef`` in differentiated code (issue 13: refused with "no
derivative rule"): each in a realistic function, checked against central differences
to second order, on tapes, in forward mode and by ``tape.jacobian``; then refusals."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees, fd_jacobian

RNG = np.random.default_rng(21)
SAMPLES = RNG.normal(size=(3, 8))  # 3 variables, 8 observations
TARGET = np.eye(3) * 0.8 + 0.1
FREQUENCIES = np.array([1, 2, 1, 3, 1, 1, 2, 1])
RELIABILITY = np.linspace(0.5, 2.0, 8)


def covariance_matching(x):
    """Fit the samples' covariance to a target (moment matching)."""
    return np.sum((np.cov(x) - TARGET) ** 2)


def observations_as_rows(x):
    return np.sum(np.cov(x.T, rowvar=False, ddof=0) * np.arange(9.0).reshape(3, 3))


def with_a_second_set(x):
    return np.sum(np.sin(np.cov(x, x[0] ** 2, bias=True)))


def weighted(x):
    return np.sum(np.cov(x, fweights=FREQUENCIES, aweights=RELIABILITY, ddof=2) ** 2)


def variance_of_a_vector(x):
    return np.cov(x[0] * x[1]) ** 2 + np.corrcoef(x[0], x[2] ** 3)[0, 1]


def decorrelation_penalty(x):
    r = np.corrcoef(x)
    return np.sum((r - np.eye(3)) ** 2)


def correlation_of_columns(x):
    return np.sum(np.corrcoef(x.T, np.tanh(x.T[:, :1]), rowvar=False) ** 3)


CASES = [
    (covariance_matching, (SAMPLES,)),
    (observations_as_rows, (SAMPLES,)),
    (with_a_second_set, (SAMPLES,)),
    (weighted, (SAMPLES,)),
    (variance_of_a_vector, (SAMPLES,)),
    (decorrelation_penalty, (SAMPLES,)),
    (correlation_of_columns, (SAMPLES,)),
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


@pytest.mark.parametrize("build", [
    lambda x: np.cov(x, x[1] * x[2]), lambda x: np.corrcoef(x, rowvar=False),
], ids=["cov", "corrcoef"])
def test_jacobians_use_the_row_forms(build):
    x = SAMPLES[:, :4].copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = build(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(build, x), rtol=1e-6, atol=1e-8)


def test_the_correlation_of_one_variable_is_constant():
    assert sg.grad(lambda v: np.corrcoef(v) * 3.0)(SAMPLES[0]).tolist() == pytest.approx(
        [0.0] * 8, abs=1e-12)


def test_differentiated_weights_are_refused_when_compiled():
    def f(x):
        return np.sum(np.cov(x, aweights=x[0] ** 2))

    with pytest.raises(sg.CompileError, match="`aweights`"):
        sg.grad(f)(SAMPLES)


def test_complex_samples_are_refused():
    def f(x):
        return np.abs(np.sum(np.cov(x * (1.0 + 1.0j))))

    with pytest.raises((sg.CompileError, NotImplementedError), match="complex"):
        sg.grad(f)(SAMPLES)
