"""Derivatives infinite at the edge of a function's domain, on Python floats.

``math.sqrt(0.0)`` is 0 but its derivative is ``inf``; Python's float division
raises ``ZeroDivisionError`` where NumPy's gives ``inf``, so a gradient of
scalar code at such a point crashed where the same code on NumPy scalars gave
NumPy's answer. Every form gives NumPy's answer now (``_sg.ieee_divide``,
``_sg.ieee_power``), and the rules stay exact (to second order) elsewhere.
"""
import math
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped


def root(x):
    return x ** 0.5


def quarter_power(x):
    return 2.0 * x ** 0.25 + x


def math_sqrt(x):
    return math.sqrt(x)


def math_asin(x):
    return math.asin(x)


def math_acos(x):
    return math.acos(x)


def math_acosh(x):
    return math.acosh(x)


def math_cbrt(x):
    return math.cbrt(x)


def distance(x, y):
    return math.sqrt(x * x + y * y) + 0.0 * x


# (function, the point, the derivative NumPy's twin gives there)
SINGULAR = [
    (root, 0.0, math.inf),
    (quarter_power, 0.0, math.inf),
    (math_sqrt, 0.0, math.inf),
    (math_asin, 1.0, math.inf),
    (math_asin, -1.0, math.inf),
    (math_acos, 1.0, -math.inf),
    (math_acosh, 1.0, math.inf),
    (math_cbrt, 0.0, math.inf),
]


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's divide-by-zero warning)
        return fn(*args)


@pytest.mark.parametrize("f, x, expected", SINGULAR, ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("kind", [float, np.float64])
def test_an_infinite_derivative_is_numpys_inf(f, x, expected, kind):
    assert _quiet(sg.grad(f), kind(x)) == expected
    value, g = _quiet(sg.value_and_grad(f), kind(x))
    assert value == f(x) and g == expected


@pytest.mark.parametrize("f, x, expected", SINGULAR, ids=lambda v: getattr(v, "__name__", None))
def test_tapes_and_forward_mode_give_it_too(f, x, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert taped(f, x) == expected
        assert sg.function(taped)(f, x) == expected
        value, tangent = sg.jvp(f, (x,), (1.0,))
        assert value == f(x) and tangent == expected


def test_a_distance_at_the_origin_is_nan_as_numpys():
    """``sqrt(x*x + y*y)`` at (0, 0): ``0 * inf`` in the chain rule, NaN as NumPy's
    ``np.sqrt`` gives (no error)."""
    numpy_twin = _quiet(sg.grad(lambda x, y: np.sqrt(x * x + y * y), wrt=(0, 1)),
                        np.float64(0.0), np.float64(0.0))
    ours = _quiet(sg.grad(distance, wrt=(0, 1)), 0.0, 0.0)
    assert all(math.isnan(g) for g in numpy_twin) and all(math.isnan(g) for g in ours)


@pytest.mark.parametrize("f, x", [(root, 0.7), (quarter_power, 1.3), (math_sqrt, 2.5),
                                  (math_asin, 0.4), (math_acos, -0.3), (math_acosh, 1.6),
                                  (math_cbrt, -0.8)])
def test_elsewhere_the_rules_are_exact_to_second_order(f, x):
    check_grads(f, (x,), order=2)
    check_grads(f, (np.float64(x),), order=2)
    h = sg.grad(sg.grad(f))(x)
    eps = 1e-4
    fd = (f(x + eps) - 2 * f(x) + f(x - eps)) / eps ** 2
    assert h == pytest.approx(fd, rel=1e-4, abs=1e-6)
