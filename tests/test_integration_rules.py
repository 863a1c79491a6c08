"""``np.trapezoid``, ``np.ediff1d`` and SciPy's ``trapezoid``, ``cumulative_trapezoid`` and
``simpson`` in differentiated code (issue 13: the realistic-program hunt's integrals of
sampled curves were refused): each in a realistic function, in the integrand, the sample
points and the spacing, checked against central differences to second order, in every
form (value_and_grad, tapes in plain code and in @sg.function), by tape.jacobian's row
forms, and in forward mode. Simpson's rule is checked against SciPy's own values for
every number of samples, odd and even (its correction of the last interval)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees, fd_jacobian, taped, \
    taped_three, taped_two

integrate = pytest.importorskip("scipy.integrate")

RNG = np.random.default_rng(13)
T = np.linspace(0.0, 2.0, 9)
T8 = np.linspace(0.0, 2.0, 8)


def energy(y):
    """The integral of a squared signal over fixed sample times."""
    return np.trapezoid(y ** 2, T)


def work_along_path(s):
    """A force integrated along positions that the parameters move (x differentiated)."""
    positions = np.cumsum(np.exp(s))
    return np.trapezoid(np.sin(positions), positions)


def curve_and_grid(y, s):
    return np.trapezoid(np.tanh(y), np.cumsum(np.exp(s))) + np.trapezoid(y * s, dx=0.25)


def uniform_step(y, h):
    """A spacing that is itself a parameter (``dx``, a 0-d array)."""
    return np.trapezoid(np.cos(y), dx=h * h) + np.trapezoid(y, dx=np.sin(h))


def rows_of_curves(m):
    """Integrals of each column (axis 0), then of the results, along an n-d grid."""
    grid = np.cumsum(np.ones((5, 3)) * 0.3, axis=0) + m * 0.1
    return np.sum(np.trapezoid(m ** 3, grid, axis=0) ** 2) + np.trapezoid(np.trapezoid(m))


def scipy_trapezoid(y, s):
    x = np.cumsum(np.exp(s))
    return integrate.trapezoid(y ** 2, x) + integrate.trapezoid(np.sin(y), dx=0.5)


def running_integral(y, s):
    """The cumulative integral, with and without SciPy's ``initial=0``."""
    x = np.cumsum(np.exp(s))
    c = integrate.cumulative_trapezoid(y ** 2, x, initial=0)
    return np.sum(c * np.sin(c)) + np.sum(integrate.cumulative_trapezoid(y, dx=0.3) ** 2)


def running_integral_in_dx(y, h):
    return np.sum(integrate.cumulative_trapezoid(np.exp(y), dx=h, initial=0) ** 2)


def simpson_odd(y, s):
    x = np.cumsum(np.exp(s))
    return integrate.simpson(y ** 2, x=x) + integrate.simpson(np.cos(y), dx=0.2)


def simpson_even(y, s):
    """An even number of samples: SciPy's correction of the last interval."""
    x = np.cumsum(np.exp(s))
    return integrate.simpson(np.sin(y) * x, x=x) ** 2


def simpson_dx(y, h):
    return integrate.simpson(y ** 3, dx=h) + integrate.simpson(y[:5], dx=h * h)


def simpson_grid(m, s):
    """Along axis 0 of a 2-d integrand, on points shared by the columns."""
    x = np.cumsum(np.exp(s))
    return np.sum(integrate.simpson(np.sin(m), x=x, axis=0) ** 2)


def differences(x, a, b):
    """``ediff1d`` of a flattened array, with ends joined before and after."""
    d = np.ediff1d(x, to_end=a * 2.0, to_begin=np.sin(b))
    return np.sum(d ** 3) + np.sum(np.ediff1d(x * x) ** 2)


CASES = [
    (energy, (RNG.normal(size=9),)),
    (work_along_path, (RNG.normal(size=6) * 0.3,)),
    (curve_and_grid, (RNG.normal(size=6), RNG.normal(size=6) * 0.3)),
    (uniform_step, (RNG.normal(size=5), np.array(0.7))),
    (rows_of_curves, (RNG.normal(size=(5, 3)),)),
    (scipy_trapezoid, (RNG.normal(size=6), RNG.normal(size=6) * 0.3)),
    (running_integral, (RNG.normal(size=6), RNG.normal(size=6) * 0.3)),
    (running_integral_in_dx, (RNG.normal(size=5), np.array(0.4))),
    (simpson_odd, (RNG.normal(size=7), RNG.normal(size=7) * 0.3)),
    (simpson_even, (RNG.normal(size=6), RNG.normal(size=6) * 0.3)),
    (simpson_dx, (RNG.normal(size=6), np.array(0.6))),
    (simpson_grid, (RNG.normal(size=(4, 3)), RNG.normal(size=4) * 0.3)),
    (differences, (RNG.normal(size=(2, 3)), RNG.normal(size=2), RNG.normal(size=1))),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_central_differences_to_second_order(f, args, check_second_order):
    # check_grads(order=2), one compile per gradient: conftest.py
    check_second_order(f, args, wrt=tuple(range(len(args))))


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_every_form_agrees(f, args):
    assert_forms_agree(f, args, nonzero=True)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_mode(f, args):
    assert_forward_mode_agrees(f, args)


def test_hessian_vector_product_forward_over_reverse():
    y, s = RNG.normal(size=7), RNG.normal(size=7) * 0.3

    def loss(s):
        return simpson_odd(y, s) + work_along_path(s)

    v = RNG.normal(size=7)
    eps = 1e-5
    numeric = (sg.grad(loss)(s + eps * v) - sg.grad(loss)(s - eps * v)) / (2 * eps)
    np.testing.assert_allclose(sg.hvp(loss)(s, v), numeric, rtol=1e-6, atol=1e-8)


def _trapezoid_rows(m):
    return np.trapezoid(m ** 2, np.arange(4.0) ** 1.5, axis=1)


def _cumulative_rows(x):
    return integrate.cumulative_trapezoid(np.sin(x), np.cumsum(np.exp(x)), initial=0)


def _simpson_rows(m):
    return integrate.simpson(m * m, x=np.array([0.0, 0.3, 0.9, 1.2, 2.0]), axis=0)


def _simpson_x_rows(x):
    return integrate.simpson(np.outer(np.arange(1.0, 4.0), np.cos(x)), x=np.cumsum(np.exp(x)))


def _ediff1d_rows(x):
    return np.ediff1d(x ** 2, to_end=x[:2], to_begin=3.0 * x[0])


@pytest.mark.parametrize("build, x", [
    (_trapezoid_rows, RNG.normal(size=(3, 4))), (_cumulative_rows, RNG.normal(size=5) * 0.3),
    (_simpson_rows, RNG.normal(size=(5, 2))), (_simpson_x_rows, RNG.normal(size=6) * 0.3),
    (_ediff1d_rows, RNG.normal(size=4)),
], ids=["trapezoid", "cumulative_trapezoid", "simpson", "simpson-x", "ediff1d"])
def test_jacobians_use_the_row_forms(build, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = build(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(build, x), rtol=1e-6, atol=1e-8)


# ---- SciPy's formula

@pytest.mark.parametrize("n", range(1, 10))
def test_simpson_weights_are_scipys_for_every_count(n):
    """The weights the rules use reproduce SciPy's value for odd and even counts (the last
    interval's correction), on uneven points and on a uniform spacing."""
    from srcgrad.runtime import integration as rt

    x = np.cumsum(RNG.uniform(0.2, 1.5, n))
    y = RNG.normal(size=n)
    weights = rt.simpson_weights(np.diff(x), n)
    assert np.sum(weights * y) == pytest.approx(integrate.simpson(y, x=x), rel=1e-13, abs=1e-15)
    assert 0.3 * np.sum(rt.simpson_unit_weights(n) * y) == pytest.approx(
        integrate.simpson(y, dx=0.3), rel=1e-13, abs=1e-15)
    # d simpson / d y is those weights, and d / dx is checked numerically
    np.testing.assert_allclose(sg.grad(lambda y: integrate.simpson(y, x=x))(y), weights,
                               rtol=1e-13, atol=1e-15)
    if n > 1:
        check_grads(lambda x: integrate.simpson(np.sin(y) * x, x=x), (x,), order=2)


def test_numpy_and_scipy_trapezoid_agree():
    y, x = RNG.normal(size=7), np.cumsum(RNG.uniform(0.1, 1.0, 7))
    g_np = sg.grad(lambda y, x: np.trapezoid(y ** 2, x), wrt=(0, 1))(y, x)
    g_sp = sg.grad(lambda y, x: integrate.trapezoid(y ** 2, x), wrt=(0, 1))(y, x)
    for a, b in zip(g_np, g_sp):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_dx_is_not_read_when_x_is_given():
    y, x = RNG.normal(size=5), np.cumsum(RNG.uniform(0.1, 1.0, 5))

    def f(h):
        return np.trapezoid(y, x, h) + integrate.simpson(y, x=x, dx=h)

    assert sg.grad(f)(np.array(0.5)) == 0.0


# ---- refused

def test_simpson_with_coinciding_samples_is_refused():
    """SciPy sets a ratio of spacings to 0 where a spacing is 0: the value jumps there."""
    y = np.array([0.3, 1.0, -0.5, 2.0, 0.7])
    x = np.array([0.0, 0.5, 0.5, 1.5, 2.0])
    with pytest.raises(NotDifferentiableError, match="coincide"):
        sg.grad(lambda x: integrate.simpson(y, x=x))(x)
    with pytest.raises(NotDifferentiableError, match="coincide"):
        sg.grad(lambda y: integrate.simpson(y, x=x))(y)
    x4 = np.array([0.0, 1.0, 2.0, 1.0])  # (even count: the last two spacings cancel)
    with pytest.raises(NotDifferentiableError, match="cancel"):
        sg.grad(lambda y: integrate.simpson(y, x=x4))(y[:4])


def test_a_differentiated_initial_is_refused():
    def f(y):
        return np.sum(integrate.cumulative_trapezoid(y, initial=y[0] * 0.0))

    with pytest.raises(sg.CompileError, match="initial"):
        sg.grad(f)(RNG.normal(size=4))


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_tapes_inside_sg_function(f, args):
    inputs = [np.asarray(a, dtype=float) for a in args]
    taped_form = {1: taped, 2: taped_two, 3: taped_three}[len(inputs)]
    got = sg.function(taped_form)(f, *inputs)
    got = [got] if len(inputs) == 1 else got
    for g, want in zip(got, sg.grad(f, wrt=tuple(range(len(args))))(*args)):
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_a_list_of_samples():
    def f(x):
        return np.trapezoid([x[0], x[1] ** 2, x[2]], [0.0, 0.5, 1.5]) \
            + integrate.simpson([x[0], np.sin(x[1]), x[2] * x[0]], x=[0.0, 0.5, 1.5])

    check_grads(f, (RNG.normal(size=3),), order=2)
