"""``np.polyval``, ``np.vander`` and ``np.roots`` in differentiated code (issue 13: the realistic-program
hunt's polynomial fits were refused): each in a realistic function, checked against
central differences to second order, on tapes, and in forward mode."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

RNG = np.random.default_rng(9)
T = np.linspace(-1.0, 1.0, 7)
Y = np.cos(2.0 * T)


def polyfit_loss(coeffs):
    """Least squares of a polynomial fit, evaluated by np.polyval."""
    return np.mean((np.polyval(coeffs, T) - Y) ** 2)


def polyfit_loss_vander(coeffs):
    """The same fit through the Vandermonde matrix."""
    return np.mean((np.vander(T, len(coeffs)) @ coeffs - Y) ** 2)


def curve_in_x(x):
    """A polynomial potential of the positions themselves."""
    return np.sum(np.polyval(np.array([0.5, -1.0, 0.25, 2.0]), x)) \
        + np.sum(np.vander(x, 3, increasing=True) ** 2)


def both(coeffs, x):
    return np.sum(np.sin(np.polyval(coeffs, x))) + np.sum(np.vander(x) * 0.1)


def root_radii(coeffs):
    """How far a characteristic polynomial's roots are from the origin (first order only:
    tests/test_polydiv_roots_nextafter.py has the other forms)."""
    return np.sum(np.abs(np.roots(coeffs)) ** 2)


def test_root_radii_against_central_differences():
    check_grads(root_radii, (np.array([1.0, -0.5, 2.0, 0.3]),), order=1)


CASES = [
    (polyfit_loss, (RNG.normal(size=4),)),
    (polyfit_loss_vander, (RNG.normal(size=4),)),
    (curve_in_x, (RNG.normal(size=5),)),
    (both, (RNG.normal(size=3), RNG.normal(size=4))),
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


def test_the_two_fits_agree():
    c = RNG.normal(size=4)
    np.testing.assert_allclose(sg.grad(polyfit_loss)(c), sg.grad(polyfit_loss_vander)(c),
                               rtol=1e-12)


def test_a_poly1d_is_refused_when_the_gradient_runs():
    def f(x):
        return np.sum(np.polyval(np.poly1d([1.0, 2.0, 3.0]), x))

    with pytest.raises((sg.CompileError, NotImplementedError)):
        sg.grad(f)(np.array([0.5, 1.5]))


def test_coefficient_arrays_are_refused_when_the_gradient_runs():
    """``p`` of shape (n, k): each coefficient an array broadcast with ``x``. Not modelled."""
    def f(p):
        return np.sum(np.polyval(p, np.array([0.5, 1.5])))

    with pytest.raises(NotImplementedError, match="np.polyval of coefficients"):
        sg.grad(f)(np.ones((3, 2)))
