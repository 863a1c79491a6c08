"""The parts of floats (``srcgrad/rules/nan_reductions.py``): ``np.ldexp`` (``x1 * 2**x2``, no
gradient in the integers ``x2``), ``np.frexp`` (the mantissa ``x / 2**e``, the exponent
integers), ``np.modf`` (the fractional part of slope 1, the integral part 0), ``np.divmod``
(NumPy's floor_divide and remainder) and ``np.i0`` (its slope SciPy's ``i1``). They were
refused ("no derivative rule"; issue 13). Each in every form against central differences to
second order (away from the jumps), and its values against NumPy's, bit for bit.
"""
import importlib.util

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71, 2.94, -5.38, 0.22])
EXPONENTS = np.array([1, -2, 0, 3, -1, 2])


def ldexp_forms(x):
    return np.sum(np.ldexp(x, EXPONENTS) ** 2) + np.sum(np.ldexp(np.reshape(x, (2, 3)), 2) * x[:3])

def frexp_mantissa(x):
    mantissa, exponent = np.frexp(x * 3.0)
    return np.sum(mantissa ** 2 * exponent) + np.sum(np.frexp(x)[0] * x)

def modf_parts(x):
    fraction, whole = np.modf(x * 2.5)
    return np.sum(fraction ** 2 + whole * fraction) + np.sum(np.modf(x)[0] * np.cos(x))

def divmod_parts(x):
    q, r = np.divmod(x * 3.0, 0.7)
    q2, r2 = np.divmod(2.5, x[:3] + 2.0)
    q3, r3 = np.divmod(x, x[::-1] + 7.0)
    return np.sum(q * r ** 2) + np.sum(r2 * q2 + r2 ** 2) + np.sum(r3 ** 2 + q3)

def i0_values(x):
    return np.sum(np.i0(x) ** 2) + np.sum(np.i0(x * x))


CASES = [ldexp_forms, frexp_mantissa, modf_parts, divmod_parts]
HAS_SCIPY = importlib.util.find_spec("scipy") is not None
if HAS_SCIPY:
    CASES.append(i0_values)


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


EDGES = np.array([0.0, -0.0, 2.0, -2.0, 0.5, -3.75, 1e300, -1e-310, 2.0 ** 60 + 2.0 ** 9,
                  np.inf, -np.inf, np.nan, 7.0 / 3.0, -1e-5])


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_values_are_numpys_bit_for_bit():
    from srcgrad.rules import nan_reductions as nr

    for got, want in zip(nr.modf(EDGES), np.modf(EDGES)):
        same_bits(got, want)
    for got, want in zip(nr.frexp(EDGES), np.frexp(EDGES)):
        same_bits(got, want)
    with np.errstate(divide="ignore", invalid="ignore"):
        for b in (0.7, -1.5, 0.0, np.inf):
            for got, want in zip(nr.divmod_(EDGES, b), np.divmod(EDGES, b)):
                same_bits(got, want)


def test_compiled_values_are_numpys():
    def f(x):
        fraction, whole = np.modf(x)
        mantissa, exponent = np.frexp(x)
        q, r = np.divmod(x, 0.75)
        return fraction, whole, mantissa, exponent, q, r, np.ldexp(x, 3)

    x = EDGES[np.isfinite(EDGES)]
    with sg.GradientTape() as tape:
        y = x.copy()
        tape.watch(y)
        parts = f(y)
        total = np.sum(parts[0] + parts[2] + parts[5] + parts[6])
    want = f(x)
    for got, w in zip(parts, want):
        same_bits(got, w)
    slopes = tape.gradient(total, y)
    e = np.frexp(x)[1]
    np.testing.assert_array_equal(slopes, 1.0 + np.ldexp(1.0, -e) + 1.0 + 8.0)


def test_slopes_at_the_jumps_and_infinities():
    # modf: slope 1 at an integer (NumPy's fraction there, either side's slope), 0 at
    # an infinity; frexp: 2**-e of the e NumPy gives (at 2.0: 0.5 = 2**1 * 1.0 ... e = 2).
    x = np.array([2.0, -3.0, 0.0, np.inf, -np.inf, 0.75])
    np.testing.assert_array_equal(sg.grad(lambda v: np.sum(np.modf(v)[0]))(x),
                                  [1.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(sg.grad(lambda v: np.sum(np.modf(v)[1] * v))(x[[0, 5]]),
                                  [2.0, 0.0])
    y = np.array([2.0, 0.75, -4.0, 0.0])
    np.testing.assert_array_equal(sg.grad(lambda v: np.sum(np.frexp(v)[0]))(y),
                                  [0.25, 1.0, 0.125, 1.0])
    # divmod: the remainder's slope in the divisor is -floor_divide.
    np.testing.assert_array_equal(
        sg.grad(lambda d: np.sum(np.divmod(np.array([7.0, -7.0]), d)[1]))(np.array([2.0, 2.0])),
        [-3.0, 4.0])


@pytest.mark.skipif(not HAS_SCIPY, reason="np.i0's slope is SciPy's i1")
def test_i0_slope_is_i1_and_values_numpys():
    import scipy.special as sp

    x = np.array([0.0, 0.5, -2.0, 7.5])
    value, slope = sg.value_and_grad(lambda v: np.sum(np.i0(v)))(x)
    assert value == np.sum(np.i0(x))
    np.testing.assert_allclose(slope, sp.i1(x), rtol=1e-15)


def frexp_out(x):
    m, e = np.frexp(x, out=(np.zeros(6), np.zeros(6, dtype=int)))
    return np.sum(m)

def modf_where(x):
    return np.sum(np.modf(x, where=x > 0)[0])

def ldexp_float_exponent(x):
    return np.sum(np.ldexp(2.0, x))


REFUSED = [(frexp_out, "out="), (modf_where, "np.modf with out=, where= or dtype="),
           (ldexp_float_exponent, "has no derivative with respect to `x2`")]


@pytest.mark.parametrize("f, message", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_options_not_modelled_are_refused(f, message):
    with pytest.raises(sg.CompileError, match=message):
        sg.grad(f)(X.copy())
