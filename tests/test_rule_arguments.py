"""Arguments of NumPy's functions that srcgrad crashed on (hunt 5: every documented
argument of every rule): each in every form, against finite differences.

- ``np.linalg.norm(x, 1)`` of a Python list (and other array_likes passed to rules that
  compute with their operand by operators): NumPy reads them as arrays, so do the rules;
- ``np.linspace(start, stop, num, retstep=True)``: the step's adjoint too;
- ``np.sum/prod/max/cumsum(s, axis=0)`` of a NumPy scalar, which NumPy allows: the
  gradient is a scalar, not an array of one;
- ``x.argmax()``, ``x.round()`` of a watched array in a tape block: no gradient flows.
"""
import numpy as np
import pytest
import scipy.special as sp

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped


def norm_of_a_list(x):
    return np.linalg.norm([x[0], 2.0 * x[1], -x[2]], 1) + np.linalg.norm((x[1], x[2]), np.inf)


def linspace_with_its_step(x):
    samples, step = np.linspace(x[0], x[1], 4, retstep=True)
    more, other = np.linspace(x[2], x[1] * 2.0, 3, endpoint=False, retstep=True)
    return np.sum(samples * np.array([1.0, 2.0, 3.0, 4.0])) + 10.0 * step + np.sum(more) * other


def reductions_of_a_scalar(x):
    s = np.sum(x) * 0.5  # a NumPy scalar
    return np.sum(s, axis=0) * 3.0 + np.prod(s, axis=0) ** 2 + np.max(s, axis=0) \
        + np.cumsum(s, axis=0)[0] * x[1] + np.min(s * x[2], axis=0)


X = np.array([0.7, -1.3, 2.1])
CASES = [norm_of_a_list, linspace_with_its_step, reductions_of_a_scalar]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_every_form(f):
    check_grads(f, (X,), order=2)
    value, g = sg.value_and_grad(f)(X)
    assert value == pytest.approx(f(X), rel=1e-14)
    assert g.shape == X.shape
    np.testing.assert_allclose(taped(f, X.copy()), g, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sg.function(taped)(f, X.copy()), g, rtol=1e-12, atol=1e-14)
    v = np.array([0.3, -0.2, 0.5])
    _, tangent = sg.jvp(f, (X,), (v,))
    assert tangent == pytest.approx(np.dot(g, v), rel=1e-10, abs=1e-12)


def test_the_gradient_of_a_numpy_scalar_is_a_scalar():
    def f(s):
        return np.sum(s, axis=0) * 3.0 + np.prod(s, axis=0) + np.cumsum(s, axis=0)[0]

    g = sg.grad(f)(np.float64(0.7))
    assert np.ndim(g) == 0 and g == pytest.approx(5.0)


def argmax_and_round_in_a_block(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        i = x.argmax()
        y = x[i] * 2.0 + np.sum(x.round(1) * x) + float(x.any()) + float(x.all())
    return tape.gradient(y, x)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_methods_without_a_gradient_on_a_watched_array(placement):
    """They crashed (the method's entry looked up as a rule: AttributeError)."""
    run = argmax_and_round_in_a_block if placement == "plain" \
        else sg.function(argmax_and_round_in_a_block)
    x = np.array([0.31, 0.52, 0.1])
    np.testing.assert_allclose(run(x.copy()), np.array([0.0, 2.0, 0.0]) + np.round(x, 1),
                               rtol=1e-14)


W6 = np.arange(1.0, 7.0)


def ravels_in_memory_order(x):
    return np.sum(np.ravel(x.T, "A") * W6) + np.sum(x.T.flatten("A") * W6 ** 2) \
        + np.sum(np.reshape(np.exp(x.T), -1, order="A") * W6) + np.sum(x.T.ravel("K") * W6)


def test_memory_orders_of_a_fortran_ordered_array():
    """``order='A'`` (and ravel's ``'K'``) read a Fortran-ordered array in Fortran order:
    the gradient was read back in C order, permuted (hunt 5 A2; 'K' crashed)."""
    x = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    check_grads(ravels_in_memory_order, (x,), order=2)
    # (x.T is Fortran-ordered: read in that order, its elements come in x's C order.)
    w = np.reshape(W6, (2, 3))
    want = w + w ** 2 + np.exp(x) * w + w
    np.testing.assert_allclose(sg.grad(ravels_in_memory_order)(x), want, rtol=1e-13)
    np.testing.assert_allclose(taped(ravels_in_memory_order, x.copy()), want, rtol=1e-13)


def ravel_of_an_input(x):
    return np.sum(np.ravel(x, "A") * W6)


def test_a_fortran_ordered_input_in_both_modes():
    """The tangent is reshaped in the primal's memory order too (its own may differ)."""
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3) * 0.1)
    v = np.arange(6.0).reshape(2, 3) + 1.0
    g = sg.grad(ravel_of_an_input)(x)
    np.testing.assert_allclose(g, np.reshape(W6, (3, 2)).T, rtol=1e-14)
    _, tangent = sg.jvp(ravel_of_an_input, (x,), (v,))
    assert tangent == pytest.approx(np.sum(g * v), rel=1e-14)


def test_memory_order_k_of_a_strided_array_is_refused():
    def f(x):
        return np.sum(np.ravel(x[:, ::2], "K") * np.arange(4.0))

    with pytest.raises(sg.CompileError, match="order='K'"):
        sg.grad(f)(np.ones((2, 4)))



def clip_with_crossed_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * np.array([1.0, 2.0, 3.0]))


def clips_both_ways(x, lo, hi):
    return clip_with_crossed_bounds(x, lo, hi) + np.sum(np.clip(x * 2.0, a_min=hi, a_max=lo) ** 2)


def test_clip_with_the_lower_bound_above_the_upper():
    """NumPy gives the upper bound everywhere: d/dhi = 1, d/dlo = d/dx = 0 (srcgrad routed
    the gradient by comparing x with each bound alone; hunt 5 A6)."""
    x, lo, hi = np.array([-1.0, 0.7, 2.0]), np.full(3, 1.0), np.full(3, 0.5)
    check_grads(clips_both_ways, (x, lo, hi), order=2)
    gx, glo, ghi = sg.grad(clip_with_crossed_bounds, wrt=(0, 1, 2))(x, lo, hi)
    np.testing.assert_array_equal(gx, np.zeros(3))
    np.testing.assert_array_equal(glo, np.zeros(3))
    np.testing.assert_array_equal(ghi, [1.0, 2.0, 3.0])


def numpy_integer_axes(m):
    return np.sum(np.linalg.norm(m, axis=np.array(1)) * np.array([1.0, 2.0])) \
        + np.sum(sp.softmax(m, axis=np.int64(1)) * m)


def test_axes_given_as_numpy_integers():
    """``axis=np.int64(1)`` (tape.jacobian of softmax) and ``axis=np.array(1)`` (norm)
    crashed in the helpers (hunt 5 bug_24, bug_25)."""
    m = np.array([[0.6, 0.8], [1.2, -0.6]])
    check_grads(numpy_integer_axes, (m,), order=2)
    with sg.GradientTape() as tape:
        tape.watch(m)
        y = sp.softmax(m, axis=np.int64(1))
    rows = tape.jacobian(y, m)
    h = 1e-6
    e = np.zeros_like(m)
    e[0, 1] = h
    np.testing.assert_allclose(rows[..., 0, 1], (sp.softmax(m + e, axis=1) - sp.softmax(m - e, axis=1)) / (2 * h),
                               rtol=1e-6, atol=1e-9)
