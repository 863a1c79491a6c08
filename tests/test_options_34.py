"""Options of supported functions that were refused (hunt 9): ``np.gradient`` with
``edge_order=2`` and with coordinate arrays as spacing (differentiable in the
coordinates too), ``np.interp`` with ``period``, ``np.average`` with weights along
an axis but the last, ``np.polyval`` of complex values.

``gradient`` and ``interp`` with these options are written out over functions with
rules (``rules/sequences.gradient``, ``rules/selection.interp``), ``average`` is
``rules/rewrites.average``, and ``polyval`` is holomorphic (``rules/complexes.py``).
Each option is checked in every form against central differences, to second order,
its values against NumPy's own, and what stays refused is refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.errors import NotDifferentiableError
from srcgrad.rules import rewrites, selection, sequences
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, assert_forms_agree, taped_any

Y = np.array([0.2, 0.9, 0.4, 1.3, 0.8, 0.1])
XS = np.array([0.0, 0.3, 0.7, 1.2, 1.4, 2.0])
M = np.array([[0.3, -1.2, 0.8, 0.5], [1.1, 0.4, -0.6, 0.9], [-0.7, 0.2, 1.5, -0.3],
              [0.6, 1.3, -0.4, 0.2], [0.9, -0.8, 0.1, 1.4]])


def _coords(v):
    """Increasing coordinates from free values (spacings ``exp(v) + 0.2``)."""
    return np.cumsum(np.exp(v) + 0.2)


# -- np.gradient: edge_order=2 and coordinate arrays ------------------------------------

def grad_edge2(x):
    return np.sum(np.gradient(x ** 2, 0.3, edge_order=2) * x)

def grad_edge2_unit(x):
    return np.sum(np.sin(np.gradient(x, edge_order=2)))

def grad_edge1_keyword(x):
    return np.sum(np.gradient(x ** 3, 0.7, edge_order=1) ** 2)

def grad_axis0_edge2(x):
    A = np.reshape(x, (5, 4))
    return np.sum(np.gradient(A * A, 0.5, axis=0, edge_order=2) * A)

def grad_axis1_coords(x):
    A = np.reshape(x, (5, 4))
    return np.sum(np.gradient(np.exp(A), np.array([0.0, 0.2, 0.9, 1.0]), axis=1) ** 2)

def grad_axis_neg_coords_edge2(x):
    A = np.reshape(x, (5, 4))
    return np.sum(np.cos(np.gradient(A, XS[:4], axis=-1, edge_order=2)))

def grad_both_axes_coords(x):
    A = np.reshape(x, (5, 4))
    gy, gx = np.gradient(A ** 2, XS[:5], [0.0, 0.5, 0.6, 1.5], edge_order=2)
    return np.sum(gy * gx) + np.sum(gy)

def grad_both_axes_scalar(x):
    A = np.reshape(x, (5, 4))
    parts = np.gradient(A * A, 0.25, edge_order=2)
    return np.sum(parts[0] ** 2 + parts[1] * A)

def grad_two_spacings(x):
    A = np.reshape(x, (5, 4))
    gy, gx = np.gradient(np.sin(A), 0.5, XS[:4])
    return np.sum(gy * gx)

def grad_coords_differentiated(x):
    y, v = x[:6], x[6:]
    return np.sum(np.gradient(y, _coords(v)) ** 2)

def grad_coords_differentiated_edge2(x):
    y, v = x[:6], x[6:]
    return np.sum(np.gradient(y * y, _coords(v), edge_order=2) * y)

def grad_coords_only(x):
    return np.sum(np.gradient(np.sin(XS), _coords(x[:6]), edge_order=2) ** 2)

def grad_uniform_coords(x):
    # Evenly spaced coordinates: NumPy takes its formula for a scalar spacing; the
    # derivative in the coordinates is still the one along every direction.
    t = np.linspace(0.0, 1.0, 6) * x[6]
    return np.sum(np.gradient(x[:6] ** 2, t, edge_order=2) ** 2)

def grad_spacing_differentiated(x):
    return np.sum(np.gradient(np.sin(x[:5]), x[5] ** 2 + 0.5, edge_order=2) ** 2)

def grad_list_coords(x):
    return np.sum(np.gradient(x[:4] ** 2, [0.0, 1.0, 3.0, 3.5]) * x[:4])

def grad_int_coords(x):
    return np.sum(np.gradient(x[:5] ** 2, np.array([0, 1, 3, 4, 7]), edge_order=2) ** 2)


GRADIENT_1D = [grad_edge2, grad_edge2_unit, grad_edge1_keyword, grad_list_coords,
               grad_int_coords]
GRADIENT_2D = [grad_axis0_edge2, grad_axis1_coords, grad_axis_neg_coords_edge2,
               grad_both_axes_coords, grad_both_axes_scalar, grad_two_spacings]
GRADIENT_COORDS = [grad_coords_differentiated, grad_coords_differentiated_edge2,
                   grad_coords_only, grad_uniform_coords, grad_spacing_differentiated]


# Second order for one case of each kind (the written-out np.gradient is long to compile
# twice); the others in every form to first order (CI time).
SECOND_ORDER = {grad_edge2, grad_axis0_edge2, grad_coords_differentiated}


def _order(f):
    return 2 if f in SECOND_ORDER else 1


@pytest.mark.parametrize("f", GRADIENT_1D, ids=lambda f: f.__name__)
def test_gradient_1d_every_form(f):
    assert_every_form(f, Y.copy(), order=_order(f), nonzero=True)


@pytest.mark.parametrize("f", GRADIENT_2D, ids=lambda f: f.__name__)
def test_gradient_2d_every_form(f):
    assert_every_form(f, M.ravel().copy(), order=_order(f), nonzero=True)


@pytest.mark.parametrize("f", GRADIENT_COORDS, ids=lambda f: f.__name__)
def test_gradient_in_the_coordinates_every_form(f):
    x = np.concatenate([Y, [0.3, -0.4, 0.1, 0.5, -0.2, 0.7]])
    assert_every_form(f, x, order=_order(f), nonzero=True)


def test_gradient_in_the_coordinates_is_not_zero():
    x = np.concatenate([Y, [0.3, -0.4, 0.1, 0.5, -0.2, 0.7]])
    g = sg.grad(grad_coords_differentiated)(x)
    # (the first spacing moves every coordinate alike: a translation, of derivative 0)
    assert np.all(g[7:] != 0) and g[6] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("args, kwargs", [
    ((Y,), {"edge_order": 2}), ((Y, 0.3), {}), ((Y, 0.3), {"edge_order": 2}),
    ((Y, XS), {}), ((Y, XS), {"edge_order": 2}), ((Y, list(XS)), {"edge_order": 1}),
    ((Y, np.linspace(0.0, 1.0, 6)), {"edge_order": 2}),
    ((Y[:3], np.array([0, 2, 5])), {"edge_order": 2}),
    ((np.arange(6) ** 2, XS), {}), ((np.arange(6, dtype=np.uint8), 1.0), {"edge_order": 2}),
    ((M,), {"edge_order": 2}), ((M, 0.5), {"axis": 0, "edge_order": 2}),
    ((M, XS[:4]), {"axis": -1}), ((M, XS[:5], 0.3), {"edge_order": 2}),
    ((M, XS[:4], XS[:5]), {"axis": (1, 0)}), ((M, 2.0, XS[:4]), {}),
    ((M + 1j * M[::-1], XS[:5], XS[:4]), {"edge_order": 2}),
    ((M[:2], 0.5), {}), ((Y.astype(np.float32), XS), {"edge_order": 2}),
    ((M.astype(np.float32), 0.5, XS[:4]), {}), ((np.reshape(np.arange(24.0) ** 1.5, (2, 3, 4)), XS[:3]), {"axis": 1}),
])
def test_gradient_values_are_numpys(args, kwargs):
    want = np.gradient(*args, **kwargs)
    got = sequences.gradient(*args, **kwargs)
    assert type(got) is type(want)
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6 if g.dtype == np.float32 else 1e-12,
                                   atol=1e-12)


def grad_of_complex(x):
    z = np.reshape(x, (5, 4)) * (1.0 + 0.5j) + 1j * np.reshape(x[::-1], (5, 4))
    gy, gx = np.gradient(z * z, XS[:5], 0.5, edge_order=2)
    return np.sum(np.abs(gy) ** 2) + np.real(np.sum(gx * (0.3 + 0.7j)))


def test_gradient_of_complex_values():
    # A linear map with real coefficients: complex values through it (forward mode of
    # complex code transposes reverse mode: sg.jvp, not compiled). (First order: the
    # real cases go to the second; CI time.)
    x = M.ravel().copy()
    check_grads(grad_of_complex, (x,), order=1)
    assert_forms_agree(grad_of_complex, (x,), nonzero=True)
    t = np.cos(np.arange(20.0))
    assert float(sg.jvp(grad_of_complex, (x,), (t,))[1]) == pytest.approx(
        float(np.sum(sg.grad(grad_of_complex)(x) * t)), rel=1e-9)
    z = M[:, :2] + 1j * M[:, 2:]
    check_grads(lambda z: np.sum(np.abs(np.gradient(z, XS[:5], axis=0, edge_order=2)) ** 2),
                (z,), order=1)


def test_gradient_rule_form_unchanged():
    # Without spacings or edge_order the rule is used, as before.
    def f(x):
        return np.sum(np.gradient(np.reshape(x, (5, 4)), axis=1) ** 2)
    assert rewrites.rewrite(np.gradient, {"axis"}, 1) is None
    assert rewrites.rewrite(np.gradient, set(), 2) is sequences.gradient
    assert rewrites.rewrite(np.gradient, {"edge_order"}, 1) is sequences.gradient
    assert_every_form(f, M.ravel().copy(), nonzero=True)


@pytest.mark.parametrize("call, error, message", [
    (lambda y: np.gradient(y, 0.5, edge_order=3), ValueError, "greater than 2"),
    (lambda y: np.gradient(y[:2], 0.5, edge_order=2), ValueError, "too small"),
    (lambda y: np.gradient(y, XS[:4]), ValueError, "must match the length"),
    (lambda y: np.gradient(y, 0.1, 0.2), TypeError, "invalid number of arguments"),
    (lambda y: np.gradient(y, np.ones((6, 1))), ValueError, "scalars or 1d"),
])
def test_gradient_errors_are_numpys(call, error, message):
    def f(y):
        return np.sum(call(y))
    with pytest.raises(error, match=message):
        call(Y)
    with pytest.raises(error, match=message):
        sg.grad(f)(Y.copy())


def test_gradient_edge_order_other_than_1_or_2_refused():
    def f(y):
        return np.sum(np.gradient(y, 0.5, edge_order=0))
    with pytest.raises(NotDifferentiableError, match="np.gradient with edge_order=0"):
        sg.grad(f)(Y.copy())


SPACINGS = (XS[:5], np.array([0.0, 0.5, 0.6, 1.5]))


def grad_unpacked_coords(x):
    A = np.reshape(x, (5, 4))
    gy, gx = np.gradient(A ** 3, *SPACINGS, edge_order=2)
    return np.sum(gy * gx)


def test_gradient_coordinates_unpacked():
    # ``*args`` of a known tuple: spread out as positional arguments, then written out.
    assert_every_form(grad_unpacked_coords, M.ravel().copy(), nonzero=True)


# -- np.interp with period ----------------------------------------------------------------

XP = np.array([0.0, 1.0, 2.0, 4.0])
XQ = np.array([-0.7, 0.4, 1.6, 3.1, 4.8, 7.35, -5.45])


def interp_period_x(x):
    return np.sum(np.interp(x, XP, np.array([0.3, -0.2, 0.9, 0.5]), period=5.0) * np.cos(x))

def interp_period_fp(x):
    return np.sum(np.interp(XQ, XP, x[:4] ** 2, period=5.0) ** 2)

def interp_period_both(x):
    return np.sum(np.interp(x[4:], XP, x[:4], period=4.5) ** 2)

def interp_period_positional(x):
    return np.sum(np.interp(x[4:], XP, np.sin(x[:4]), None, None, 6.0) * x[4:])

def interp_period_unsorted(x):
    # NumPy sorts the knots modulo the period (and ignores left and right).
    xp = np.array([3.0, -1.0, 0.5, 7.5])
    return np.sum(np.interp(x[4:], xp, x[:4], left=0.0, right=1.0, period=4.0) ** 2)

def interp_period_negative(x):
    return np.sum(np.interp(np.reshape(x[4:10], (2, 3)), XP, x[:4], period=-5.0) ** 2)

def interp_period_none(x):
    return np.sum(np.interp(x[4:], XP, x[:4], period=None) ** 2)


INTERP = [interp_period_fp, interp_period_both, interp_period_positional,
          interp_period_unsorted, interp_period_negative, interp_period_none]


def test_interp_period_in_x_every_form():
    assert_every_form(interp_period_x, XQ.copy(), nonzero=True)


@pytest.mark.parametrize("f", INTERP, ids=lambda f: f.__name__)
def test_interp_period_every_form(f):
    x = np.concatenate([[0.3, -0.2, 0.9, 0.5], XQ + 0.01])
    assert_every_form(f, x, nonzero=True)


@pytest.mark.parametrize("args, kwargs", [
    ((XQ, XP, [0.3, -0.2, 0.9, 0.5]), {"period": 5.0}),
    ((XQ, [3.0, -1.0, 0.5, 7.5], [0.3, -0.2, 0.9, 0.5]), {"period": 4.0, "left": 9.0}),
    ((np.reshape(XQ[:6], (2, 3)), XP, XP ** 2), {"period": -3.0}),
    ((2.5, XP, XP ** 2), {"period": 3.0}), ((XQ, XP, XP ** 2, None, None, 5.5), {}),
    ((np.arange(-4, 9), np.array([0, 2, 3]), [1.0, 2.0, -1.0]), {"period": 4}),
    ((XQ, XP, XP * (1.0 + 2.0j)), {"period": 5.0}), ((XQ, XP, XP ** 2), {"period": None}),
])
def test_interp_values_are_numpys(args, kwargs):
    want = np.interp(*args, **kwargs)
    got = selection.interp(*args, **kwargs)
    assert np.shape(got) == np.shape(want) and np.result_type(got) == np.result_type(want)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def test_interp_errors_are_numpys():
    def f(x):
        return np.sum(np.interp(x, XP, XP ** 2, period=0.0))
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        np.interp(XQ, XP, XP ** 2, period=0.0)
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        sg.grad(f)(XQ.copy())


def test_interp_fp_and_xp_lengths_are_checked():
    def f(x):
        return np.sum(np.interp(x, XP, [1.0, 2.0, 3.0], period=2.0))
    with pytest.raises(ValueError, match="not of the same length"):
        sg.grad(f)(XQ.copy())


def test_interp_differentiated_period_refused():
    # The period moves the knots, and interp is not differentiable in its knots.
    def f(p):
        return np.sum(np.interp(XQ, XP, XP ** 2, period=p))
    with pytest.raises(sg.CompileError, match="xp"):
        sg.grad(f)(5.0)


def test_interp_period_of_complex_values_refused():
    def f(x):
        return np.real(np.sum(np.interp(x, XP, XP * (1.0 + 2.0j), period=5.0)))
    with pytest.raises(NotDifferentiableError, match="np.interp of complex values"):
        sg.grad(f)(XQ.copy())


# -- np.average with weights along any axis -----------------------------------------------

W5 = np.array([0.2, 0.5, 0.1, 0.9, 0.4])
W4 = np.array([1.0, 2.0, 0.5, 1.5])


def average_axis0(x):
    return np.sum(np.average(np.reshape(x, (5, 4)), axis=0, weights=W5) ** 2)

def average_axis0_weights_too(x):
    A, w = np.reshape(x[:20], (5, 4)), x[20:] ** 2 + 0.1
    return np.sum(np.average(A, axis=0, weights=w) * np.std(A, axis=0))

def average_axis_neg2_positional(x):
    A = np.reshape(x, (5, 4))
    return np.sum(np.sin(np.average(A, -2, W5)))

def average_axis1_last(x):
    return np.sum(np.average(np.reshape(x, (5, 4)), axis=1, weights=W4) ** 3)

def average_3d_middle(x):
    A = np.reshape(x, (2, 5, 2))
    return np.sum(np.average(A * A, axis=1, weights=W5, keepdims=True) * A)

def average_returned(x):
    A, w = np.reshape(x[:20], (5, 4)), x[20:] ** 2 + 0.1
    avg, scale = np.average(A, axis=0, weights=w, returned=True)
    return np.sum(avg * scale) + np.sum(scale ** 2)

def average_axes_tuple(x):
    A = np.reshape(x[:20], (5, 2, 2))
    w = np.reshape(x[20:] ** 2 + 0.1, (5, 1))[:, 0] * np.array([[1.0], [2.0]])
    return np.sum(np.average(A, axis=(1, 0), weights=w) ** 2)


AVERAGE = [average_axis0, average_axis_neg2_positional, average_axis1_last,
           average_3d_middle]


@pytest.mark.parametrize("f", AVERAGE, ids=lambda f: f.__name__)
def test_average_every_form(f):
    assert_every_form(f, M.ravel().copy(), nonzero=True)


@pytest.mark.parametrize("f", [average_axis0_weights_too, average_returned,
                               average_axes_tuple], ids=lambda f: f.__name__)
def test_average_in_the_weights_every_form(f):
    assert_every_form(f, np.concatenate([M.ravel(), W5 - 0.3]), nonzero=True)


@pytest.mark.parametrize("args, kwargs", [
    ((M, 0, W5), {}), ((M,), {"axis": -2, "weights": list(W5)}),
    ((M,), {"axis": 1, "weights": W4, "keepdims": True}),
    ((M,), {"axis": 0, "weights": W5, "returned": True}),
    ((np.reshape(M, (5, 2, 2)),), {"axis": (2, 0),
                                   "weights": np.ones((2, 5)) + np.arange(10.0).reshape(2, 5)}),
    ((np.reshape(M, (5, 2, 2)),), {"axis": 1, "weights": [1.0, 3.0], "returned": True}),
    ((M,), {"weights": M ** 2}),
])
def test_average_values_are_numpys(args, kwargs):
    want = np.average(*args, **kwargs)
    got = rewrites.average(*args, **kwargs)
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-13)


def _average_no_axis(x):
    return np.sum(np.average(np.reshape(x, (5, 4)), weights=W5))

def _average_wrong_axis(x):
    return np.sum(np.average(np.reshape(x, (5, 4)), axis=1, weights=W5))

def _average_zero_weights(x):
    return np.sum(np.average(np.reshape(x, (5, 4)), axis=0, weights=np.zeros(5)))


@pytest.mark.parametrize("f, error, message", [
    (_average_no_axis, TypeError, "Axis must be specified"),
    (_average_wrong_axis, ValueError, "consistent with shape of a"),
    (_average_zero_weights, ZeroDivisionError, "Weights sum to zero"),
])
def test_average_errors_are_numpys(f, error, message):
    with pytest.raises(error, match=message):
        f(M.ravel())
    with pytest.raises(error, match=message):
        sg.grad(f)(M.ravel().copy())


# -- np.polyval of complex values -----------------------------------------------------------

P = np.array([1.0 + 0.5j, -0.3 + 0.2j, 0.7 - 0.1j])
Z = np.array([0.3 + 0.4j, -0.5 + 0.1j])


def _fd_complex(f, args, i, eps=1e-6):
    """``dL/dx + i dL/dy`` of ``L = f(*args)`` for argument ``i`` (TensorFlow's convention)."""
    x = np.asarray(args[i])
    out = np.zeros(x.shape, dtype=complex if np.iscomplexobj(x) else float)
    for idx in np.ndindex(x.shape):
        for d in ([1.0, 1j] if np.iscomplexobj(x) else [1.0]):
            def at(t):
                moved = x.astype(out.dtype, copy=True)
                moved[idx] += t * d
                new = list(args)
                new[i] = moved
                return f(*new)
            out[idx] += d * (at(eps) - at(-eps)) / (2 * eps)
    return out


def polyval_both(p, z):
    return np.sum(np.abs(np.polyval(p, z)) ** 2) + np.real(np.sum(np.conj(p) * p[::-1]))

def polyval_phase(p, z):
    return np.sum(np.real(np.polyval(p, z) * (0.3 - 1.1j)))

def polyval_matrix(p, z):
    return np.sum(np.abs(np.polyval(p, np.reshape(np.concatenate([z, z * 1j, z ** 2]),
                                                   (3, 2)))) ** 2)


@pytest.mark.parametrize("f", [polyval_both, polyval_phase, polyval_matrix],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("p, z", [(P, Z), (P.real.copy(), Z), (P, Z.real.copy())],
                         ids=["complex", "real-p", "real-x"])
def test_polyval_complex_every_form(f, p, z):
    want = sg.grad(f, wrt=(0, 1))(p, z)
    for i, g in enumerate(want):
        assert g.dtype == np.asarray((p, z)[i]).dtype
        np.testing.assert_allclose(g, _fd_complex(f, (p, z), i), rtol=1e-6, atol=1e-8)
    value, grads = sg.value_and_grad(f, wrt=(0, 1))(p, z)
    assert value == pytest.approx(f(p, z), rel=1e-12)
    for form in (grads, taped_any(f, [p.copy(), z.copy()]),
                 sg.function(taped_any)(f, [p.copy(), z.copy()])):
        for got, expected in zip(form, want):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    check_grads(f, (p, z), order=2)
    # forward mode: dL = Re <grad, t> along complex (or real) directions
    rng = np.random.default_rng(5)
    tangents = tuple(rng.standard_normal(np.shape(a)) + (1j * rng.standard_normal(np.shape(a))
                                                       if np.iscomplexobj(a) else 0.0)
                     for a in (p, z))
    _, dot = sg.jvp(f, (p, z), tangents)
    assert float(np.real(dot)) == pytest.approx(
        sum(float(np.real(np.sum(np.conj(g) * t))) for g, t in zip(want, tangents)), rel=1e-9)


def polyval_through_complex(x):
    p = x[:3] + 1j * x[3:6]
    z = x[6:8] * (1.0 + 0.5j) - 0.2j
    return np.sum(np.abs(np.polyval(p, z)) ** 2) + np.sum(np.real(np.polyval(p * 1j, x[6:8])))


def test_polyval_real_inputs_through_complex_values_every_form():
    x = np.array([1.0, -0.3, 0.7, 0.5, 0.2, -0.1, 0.3, -0.5])
    check_grads(polyval_through_complex, (x,), order=2)
    g = sg.grad(polyval_through_complex)(x)
    assert g.dtype == np.float64 and np.all(g != 0)
    np.testing.assert_allclose(sg.function(taped_any)(polyval_through_complex, [x.copy()])[0],
                               g, rtol=1e-10)


def test_polyval_poly1d_still_refused_for_complex_values():
    def f(z):
        return np.sum(np.abs(np.polyval(np.poly1d([1.0, 2.0j, 3.0]), z)) ** 2)
    with pytest.raises(NotDifferentiableError, match="poly1d"):
        sg.grad(f)(Z.copy())
