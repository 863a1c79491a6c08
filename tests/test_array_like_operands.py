"""Python lists and tuples as operands of primitives whose grad expressions compute
with them (hunt4 bug_17, bug_19).

NumPy reads a list or tuple as an array: ``x ** [1.0, 2.0]``, ``np.power([1.5, 2.0], x)``,
``np.interp([0.1, 0.5], [0.0, 1.0], fp)``, ``np.polyval(p, [0.5, 1.5])``. The rules
computed with such an operand by Python operators (``x2 - 1``, ``x1 > 0``, ``x2 * x2``,
``xq < xp[0]``, ``0.0 * x``), where a list fails, repeats or compares as a whole. The
grads now read these operands as arrays (``rules/entry.array_operands``,
``_sg.arrayed``), in every rule family that computes with several operands.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees, taped

X = np.array([0.3, -0.8, 1.2])
POS = np.array([0.35, 0.8, 1.3])


def exponent_list(x):
    return np.sum(x ** [1.0, 2.0, 3.0])


def exponent_tuple(x):
    return np.sum(np.power(x, (1.0, 2.0, 3.0)) * x)


def base_list(x):
    return np.sum(np.power([1.5, 2.0, 3.0], x))


def base_list_operator(x):
    return np.sum([1.5, 2.0, 3.0] ** np.sin(x))


def float_power_lists(x):
    return np.sum(np.float_power([1.5, 2.0, 3.0], x) + np.float_power(x * x + 0.5, [0.5, 2.0, 3.0]))


def scalar_to_list_powers(x):
    return np.sum(x[0] ** [1.0, 2.0, 3.0]) + np.sum([1.5, 2.0, 3.0] ** x[1])


def local_list_exponent(x):
    powers = [1.0, 2.0, 3.0]
    return np.sum(np.exp(x) ** powers)


def exponent_list_of_inputs(x):
    # The exponent a list holding a differentiated value: its adjoint is a list.
    return np.sum(np.power(x[1:] + 1.5, [x[0], 2.0]))


def arctan2_lists(x):
    return np.sum(np.arctan2(x, [1.0, 2.0, 3.0]) + np.arctan2([1.0, -2.0, 3.0], x + 2.0))


def extremes_of_lists(x):
    # A list of differentiated values against a constant list: compared elementwise.
    return np.sum(np.maximum([x[0], x[1]], [0.0, 0.5]) ** 2 + np.minimum([0.0, 0.5], x[1:]))


def interp_lists(fp):
    return np.sum(np.interp([0.1, 0.5, 1.7], [0.0, 1.0, 2.0], fp) ** 2)


def interp_list_points(x):
    return np.sum(np.interp(x + 1.0, [0.0, 1.0, 2.5, 3.0], [0.5, -1.0, 2.0, 1.0], left=x[0], right=0.5))


def interp_list_query(fp):
    return np.sum(np.interp([-0.5, 0.1, 0.5, 1.7, 3.0], [0.0, 1.0, 2.0], fp, left=fp[1] * 2.0, right=1.5))


def polyval_list_points(p):
    return np.sum(np.polyval(p, [0.5, 1.5]) ** 2)


def polyval_tuple_points(p):
    return np.sum(np.sin(np.polyval(p * p, (0.5, -1.5, 2.0))))


def clip_list_bounds(x):
    return np.sum(np.clip([0.5, -0.5, 3.0], x[0], x[2] + 1.0) * np.array([1.0, 2.0, 3.0])) + np.sum(np.clip(x, [0.0, -1.0, 0.0], 1.0))


def one_operand_rules_of_lists(x):
    # One-operand rules computing with their operand by operators (``x * x``): a list
    # display of differentiated values there is read as an array (hunt 4: TypeError
    # "can't multiply sequence").
    return np.sum(np.arctan([x[0], x[1]]) + np.arcsin((0.5 * x[0], 0.1)) + np.log2([x[2], 2.0])) \
        + np.sum(np.arctanh([0.5 * x[1], 0.2]) + np.arcsinh([x[0], x[2]]))


def one_operand_rule_of_a_local_list(x):
    points = [x[0], x[1] * 2.0, 0.5]
    return np.sum(np.arctan(points) ** 2 + np.arccos(np.tanh(points)))


CASES = [exponent_list, exponent_tuple, base_list, base_list_operator, float_power_lists,
         scalar_to_list_powers, local_list_exponent, exponent_list_of_inputs, arctan2_lists, extremes_of_lists,
         interp_lists, interp_list_points, interp_list_query, polyval_list_points,
         polyval_tuple_points, clip_list_bounds, one_operand_rules_of_lists,
         one_operand_rule_of_a_local_list]


def _point(f):
    return POS if f in (exponent_tuple, polyval_list_points) else X


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    x = _point(f)
    check_grads(f, (x,), order=2)
    value, g = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    np.testing.assert_allclose(sg.grad(f)(x), g, rtol=1e-14)
    np.testing.assert_allclose(taped(f, x), g, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sg.function(taped)(f, x), g, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_forward_mode(f):
    assert_forward_mode_agrees(f, (_point(f),))


def test_list_exponent_of_float32_keeps_float32():
    """A Python float operand stays a Python float (weak promotion): no float64 adjoint."""
    def f(x, y):
        return np.sum(x ** y)

    x = np.array([0.5, 1.5], dtype=np.float32)
    g = sg.grad(f)(x, 2.5)
    assert g.dtype == np.float32


def test_zero_base_with_list_exponent():
    """The guard of ``0 ** 0`` compares the exponent elementwise (a list compared with 0
    was one ``False``)."""
    def f(x):
        return np.sum(np.power(x, [0.0, 2.0, 1.0]))

    x = np.array([0.0, 0.0, 0.7])
    np.testing.assert_allclose(sg.grad(f)(x), [0.0, 0.0, 1.0])


try:
    import scipy.special as _special
    import scipy.stats as _stats
except ImportError:  # pragma: no cover
    _special = _stats = None


def bessel_list_orders(x):
    return np.sum(_special.jv([0.0, 1.0, 2.5], x + 2.0) + _special.iv((0.5, 1.0, 2.0), x))


def gammainc_list_shape(x):
    return np.sum(_special.gammainc([0.5, 1.5, 2.5], x * x + 0.3))


def xlogy_list(x):
    return np.sum(_special.xlogy([0.0, 1.0, 2.0], x * x + 0.5))


def gamma_logpdf_list_shape(x):
    return np.sum(_stats.gamma.logpdf(x * x + 0.2, [0.5, 1.5, 2.5], scale=2.0))


def norm_cdf_list_points(mu):
    return np.sum(_stats.norm.cdf([0.1, 0.5, 1.7], mu, [1.0, 2.0, 0.5]))


def beta_pdf_list_x(a):
    return np.sum(_stats.beta.pdf([0.2, 0.5, 0.7], a * a + 1.0, [2.0, 3.0, 1.5]))


def poisson_list_counts(mu):
    return np.sum(_stats.poisson.logpmf([0, 2, 3], mu * mu + 0.5))


SCIPY_CASES = [bessel_list_orders, gammainc_list_shape, xlogy_list, gamma_logpdf_list_shape,
               norm_cdf_list_points, beta_pdf_list_x, poisson_list_counts]


@pytest.mark.skipif(_special is None, reason="SciPy is not installed")
@pytest.mark.parametrize("f", SCIPY_CASES, ids=lambda f: f.__name__)
def test_scipy_list_arguments(f):
    check_grads(f, (X,), order=2)
    assert_forward_mode_agrees(f, (X,))
