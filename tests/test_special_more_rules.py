"""``scipy.special`` functions refused before issue 13 (``srcgrad/rules/special.py``):
``ndtr``, ``log_ndtr``, ``ndtri``, ``erfcx``, ``loggamma`` (real), ``log1p``, ``expm1``,
``cosm1``, ``softplus`` (written out: ``np.logaddexp(0, x)``, as SciPy computes it), and
``logsumexp(..., return_sign=True)`` with weights ``b`` of either sign (``log|sum b e^a|``;
the sign carries no gradient). Each in every form against central differences, to second
order, and its value against SciPy's.
"""
import numpy as np
import pytest

sp = pytest.importorskip("scipy.special")

import srcgrad as sg  # noqa: E402
from tape_forms import assert_every_form  # noqa: E402

X = np.array([0.53, 1.27, -0.71, 0.94, -1.38, 0.22])


def normal_functions(x):
    return np.sum(sp.ndtr(x) ** 2) + np.sum(sp.log_ndtr(x * 3.0) * x) \
        + np.sum(sp.ndtri(sp.expit(x)) ** 2)

def normal_tails(x):
    return np.sum(sp.log_ndtr(x * 20.0 - 25.0)) + np.sum(sp.erfcx(x * 10.0) * x) \
        + np.sum(sp.ndtri(1e-12 * (x * x + 1.0)))

def gamma_and_small_arguments(x):
    return np.sum(sp.loggamma(x * x + 0.3) * x) + np.sum(sp.log1p(x * 0.5) ** 2) \
        + np.sum(sp.expm1(x) * x) + np.sum(sp.cosm1(x * 2.0) ** 2) + np.sum(sp.erfcx(x))

def logsumexp_signs(x):
    m = np.reshape(x, (2, 3))
    b = np.array([[1.0, -4.0, 0.5], [-2.0, 1.0, 0.25]])
    value, sign = sp.logsumexp(m, axis=1, b=b, return_sign=True)
    total, s = sp.logsumexp(x, b=-np.abs(x) - 0.5, return_sign=True)
    kept, ks = sp.logsumexp(m, axis=0, b=x[:3] - 0.2, keepdims=True, return_sign=True)
    return np.sum(value * sign * 1.5) + total * s + np.sum(kept ** 2)

def logsumexp_sign_no_b(x):
    value, sign = sp.logsumexp(x * x, return_sign=True)
    return value * sign


CASES = [normal_functions, normal_tails, gamma_and_small_arguments, logsumexp_signs,
         logsumexp_sign_no_b]
if hasattr(sp, "softplus"):  # (SciPy 1.15)
    def softplus_forms(x):
        return np.sum(sp.softplus(x) ** 2) + np.sum(sp.softplus(np.reshape(x, (2, 3)) * 30.0))

    CASES.append(softplus_forms)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


def test_values_are_scipys():
    for f in CASES:
        value, _ = sg.value_and_grad(f)(X.copy())
        assert value == f(X.copy())


def test_logsumexp_signs_of_negative_sums():
    """``log|s|`` and the sign of a negative sum: d/da_i = b_i e^{a_i} / s, d/db_i = e^{a_i} / s."""
    a = np.array([0.2, 1.1, -0.4])
    b = np.array([1.0, -2.0, 0.5])
    s = np.sum(b * np.exp(a))
    assert s < 0

    def f(a, b):
        value, sign = sp.logsumexp(a, b=b, return_sign=True)
        return value + 10.0 * sign

    value, (ga, gb) = sg.value_and_grad(f, wrt=(0, 1))(a, b)
    assert value == pytest.approx(np.log(-s) - 10.0, rel=1e-14)
    np.testing.assert_allclose(ga, b * np.exp(a) / s, rtol=1e-14)
    np.testing.assert_allclose(gb, np.exp(a) / s, rtol=1e-14)


def test_log_ndtr_and_ndtri_far_out():
    x = np.array([-40.0, -10.0, 0.0, 10.0])
    np.testing.assert_allclose(sg.grad(lambda v: np.sum(sp.log_ndtr(v)))(x),
                               [40.02492, 10.09809, 0.7978845608, 7.6946e-23], rtol=1e-5)
    p = np.array([1e-300, 1e-10, 0.5])
    np.testing.assert_allclose(sg.grad(lambda v: np.sum(sp.ndtri(v)))(p),
                               np.sqrt(2 * np.pi) * np.exp(sp.ndtri(p) ** 2 / 2), rtol=1e-12)


def test_loggamma_is_nan_where_its_value_is():
    x = np.array([-0.5, 2.5])
    value, slope = sg.value_and_grad(lambda v: sp.loggamma(v)[1] + 0.0 * sp.loggamma(v)[0])(x)
    assert np.isnan(value) and np.isnan(slope[0]) and slope[1] == sp.digamma(2.5)
    np.testing.assert_allclose(sg.grad(lambda v: sp.loggamma(v)[1])(x), [0.0, sp.digamma(2.5)])


def loggamma_complex(x):
    return np.real(np.sum(sp.loggamma(x + 1j)))


def test_complex_loggamma_is_refused():
    with pytest.raises((sg.CompileError, NotImplementedError), match="complex"):
        sg.grad(loggamma_complex)(np.abs(X) + 1.0)
