"""The rules of ``srcgrad/rules/nan_reductions.py`` end to end (``np.nanmax``, ``np.nanmin``,
``np.ldexp``, ``np.i0``): each in every form, and as a Hessian by ``tape.jacobian`` (their
row forms). The written-out functions of the family: ``tests/test_nan_reductions.py`` and
``tests/test_float_parts.py``."""
import importlib.util

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form, fd_jacobian

X = np.array([0.53, 1.27, -0.71, 0.94, -1.38, 0.22])
NANS = np.array([0.0, np.nan, 0.0, 0.0, np.nan, 0.0])
M_NANS = np.array([[0.0, np.nan, 0.0], [0.0, 0.0, np.nan]])
EXPONENTS = np.array([1, -2, 0, 3, -1, 2])


def nan_extremes(x):
    m = np.reshape(x * x, (2, 3)) + M_NANS
    return np.nanmax(x + NANS) * np.nanmin(np.sin(x) + NANS) \
        + np.sum(np.nanmax(m, axis=1) ** 2) + np.sum(np.nanmin(m, axis=0, keepdims=True) * x[:3])


def scaled_by_powers_of_two(x):
    return np.sum(np.ldexp(x * x, EXPONENTS) * np.cos(x)) + np.sum(np.ldexp(np.exp(x[0]), 3))


def bessel_i0(x):
    return np.sum(np.i0(x) * x) + np.sum(np.i0(np.reshape(x, (2, 3))) ** 2)


CASES = [nan_extremes, scaled_by_powers_of_two]
if importlib.util.find_spec("scipy") is not None:  # (np.i0's slope is SciPy's i1)
    CASES.append(bessel_i0)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form_and_hessian(f):
    assert_every_form(f, X, nonzero=True)
    gradient = sg.grad(f)
    with sg.GradientTape() as tape:
        x = X.copy()
        tape.watch(x)
        g = gradient(x)
    np.testing.assert_allclose(tape.jacobian(g, x), fd_jacobian(gradient, X), rtol=1e-6,
                               atol=1e-7)
