"""The sequence rules in differentiated code (``srcgrad/rules/sequences.py``): cumprod
(exact at zeros), diff, convolve, correlate, kron, cross, sinc and gradient, as
functions and methods.

Each program is checked against central differences to second order, its value and
gradient from ``value_and_grad`` and a tape against ``grad``, and ``tape.jacobian``
(the rules' row forms) against central differences. Then values at the special
points (zeros of cumprod, 0 of sinc), and what is refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, fd_jacobian

# np.cross of 2-vectors, deprecated in NumPy 2, still has a rule
pytestmark = pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors")

RNG = np.random.default_rng(9)
W = RNG.normal(size=6)
M = RNG.normal(size=(3, 4))
KERNEL = np.array([0.25, 0.5, -0.75])


def survival(h):
    # the probability of surviving each step: a running product of 1 - hazard
    return np.sum(np.cumprod(1.0 - h) * W)


def cumprod_axis(X):
    return np.sum(np.cumprod(X, axis=0) * M) + np.sum(X.cumprod(axis=-1) ** 2)


def cumprod_flat(X):
    return np.sum(np.cumprod(X) * np.arange(12.0))


def cumprod_zeros(x):
    # x has exact zeros: the adjoint must not divide by them
    return np.sum(np.cumprod(x) * W) + np.sum(x.cumprod() ** 2)


def diff_smoothness(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2 * W[:4])


def diff_keywords(X, edge):
    d = np.diff(X, n=2, axis=0, prepend=X[:1] * edge, append=edge)
    return np.sum(d ** 2 * np.tanh(X[0]))


def convolve_modes(x):
    return np.sum(np.convolve(x, KERNEL) ** 2) + np.sum(np.convolve(KERNEL, x, mode="same") * W) \
        + np.sum(np.convolve(x, x[:4] * 2.0, "valid") ** 2)


def correlate_modes(x):
    return np.sum(np.correlate(x, KERNEL) ** 2) + np.sum(np.correlate(KERNEL, x, "same") * W) \
        + np.sum(np.correlate(x[:4], x, mode="full") ** 2)


def kron_blocks(X):
    return np.sum(np.kron(X, np.eye(2) + X[0, 0]) ** 2) + np.sum(np.kron(X[0], X[:, 1]) * W[:1])


def cross_products(X):
    return np.sum(np.cross(X[:, :3], X[:, 1:]) ** 2) \
        + np.sum(np.cross(X, M.T[:, :3], axisa=0, axisb=1, axisc=0) * M * W[0])


def cross_planar(X):
    # 2-vectors (deprecated by NumPy 2, still computed): a scalar per pair, and
    # a 2-vector with a 3-vector
    z = np.cross(X[:, :2], X[:, 2:])
    v = np.cross(X[:, 1:3], M[:, :3])
    return np.sum(z ** 2) + np.sum(v * X[:, :3])


def sinc_features(x):
    return np.sum(np.sinc(x) ** 2 + np.sinc(2.0 * x) * W)


def spatial_gradient(X):
    gx, gy = np.gradient(X, 0.5)
    return np.sum(gx ** 2 + gx * gy) + np.sum(np.gradient(X, axis=1) * M)


def gradient_1d(x):
    return np.sum(np.gradient(x * x, 2.0) * W) + np.sum(np.gradient(x, 0.5, edge_order=1) ** 2)


CASES = [
    (survival, (RNG.uniform(0.0, 0.5, size=6),)),
    (cumprod_axis, (RNG.normal(size=(3, 4)),)),
    (cumprod_flat, (RNG.normal(size=(3, 4)),)),
    (cumprod_zeros, (np.array([1.5, 0.0, -0.7, 0.0, 2.0, 0.3]),)),
    (diff_smoothness, (RNG.normal(size=6),)),
    (diff_keywords, (RNG.normal(size=(3, 4)), 0.6)),
    (convolve_modes, (RNG.normal(size=6),)),
    (correlate_modes, (RNG.normal(size=6),)),
    (kron_blocks, (RNG.normal(size=(2, 3)),)),
    (cross_products, (RNG.normal(size=(3, 4)),)),
    (cross_planar, (RNG.normal(size=(3, 4)),)),
    (sinc_features, (np.array([0.0, 1e-4, -0.01, 0.3, -1.2, 2.5]),)),
    (spatial_gradient, (RNG.normal(size=(3, 4)),)),
    (gradient_1d, (RNG.normal(size=6),)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_finite_differences_to_second_order(f, args, check_second_order):
    check_second_order(f, args)  # check_grads(order=2), one compile per gradient: conftest.py


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_value_and_grad_and_a_tape_agree_with_grad(f, args):
    assert_forms_agree(f, args)


# -- tape.jacobian: every row at once, through the rules' row forms -----------------

def _rows_products(X):
    return np.concatenate([np.cumprod(X, axis=1).ravel(), np.cumprod(X * (X > 0)).ravel(),
                           np.kron(X[:2, :2], X[1:, 2:]).ravel(),
                           np.cross(X[:, :3], X[:, 1:], axisc=0).ravel()])


def _rows_differences(X):
    return np.concatenate([np.diff(X, 2, axis=1, prepend=X[:, :1], append=1.0).ravel(),
                           np.stack(np.gradient(X, 2.0)).ravel(), np.sinc(X).ravel()])


def _rows_convolutions(X):
    x = X.ravel()
    return np.concatenate([np.convolve(x[:5], x[5:8] * 2.0, "same"),
                           np.correlate(x[:2], x[4:9], "same"), np.convolve(x, KERNEL),
                           np.correlate(x, x[:3], "valid")])


@pytest.mark.parametrize("build", [_rows_products, _rows_differences, _rows_convolutions],
                         ids=lambda f: f.__name__)
def test_jacobian_matches_finite_differences(build):
    X = RNG.normal(size=(3, 4))
    X[1, 2] = 0.0  # an exact zero for cumprod, and sinc at 0
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = build(X)
    np.testing.assert_allclose(tape.jacobian(y, X), fd_jacobian(build, X), rtol=1e-6,
                               atol=1e-8)


# -- special points, by value ----------------------------------------------------------

def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def _cumprod_sum_gradient(x):
    """d/dx_j of sum_i prod_{k <= i} x_k, term by term (no division)."""
    n = len(x)
    return np.array([sum(np.prod([x[k] for k in range(i + 1) if k != j]) for i in range(j, n))
                     for j in range(n)])


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 5.0], [0.0, 0.0, 0.0, 1.5],
                               [1.5, -2.0, 0.5, 3.0]])
def test_cumprod_is_exact_at_zeros(x):
    x = np.array(x)
    with np.errstate(divide="raise", invalid="raise"):
        got = sg.grad(cumprod_sum)(x)
    np.testing.assert_allclose(got, _cumprod_sum_gradient(x), rtol=1e-14, atol=0)


def test_cumprod_is_exact_where_the_running_product_underflows():
    """The running product reaches 0 without a zero element: no division by it."""
    x = np.array([1e-200, 1e-200, 1e200, 3.0])
    assert np.cumprod(x)[1] == 0.0
    np.testing.assert_allclose(sg.grad(cumprod_sum)(x), _cumprod_sum_gradient(x), rtol=1e-14)


def test_cumprod_second_derivatives_are_exact_at_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.0])
    hessian = np.stack([sg.grad(lambda v, i=i: sg.grad(cumprod_sum)(v)[i])(x) for i in range(4)])
    # d2/dx_j dx_m of sum_i prod_{k<=i} x_k: products over k <= i other than j and m
    want = np.array([[sum(np.prod([x[k] for k in range(i + 1) if k not in (j, m)])
                          for i in range(max(j, m), 4)) if j != m else 0.0 for m in range(4)]
                     for j in range(4)])
    np.testing.assert_allclose(hessian, want, rtol=1e-14, atol=0)


def sinc_at(x):
    return np.sinc(x)


def test_sinc_slope_and_curvature_at_zero():
    d = sg.grad(sinc_at)
    assert d(0.0) == 0.0
    assert sg.grad(d)(0.0) == pytest.approx(-np.pi ** 2 / 3.0, rel=1e-12)
    # either side of the switch to the Taylor polynomial, |pi x| = 0.1
    for x in (0.1 / np.pi * (1 - 1e-9), 0.1 / np.pi * (1 + 1e-9), 0.5):
        slope = (np.cos(np.pi * x) - np.sinc(x)) / x
        assert d(x) == pytest.approx(slope, rel=1e-12)


def first_difference(x):
    return np.diff(x, prepend=10.0)[0] + 3.0 * np.diff(x, append=0.0)[-1]


def test_diff_prepend_and_append_by_value():
    # x0 - 10 and 0 - x_last
    assert sg.grad(first_difference)(np.arange(4.0)).tolist() == [1.0, 0.0, 0.0, -3.0]


def no_difference(x, edge):
    # n=0: NumPy returns x itself, ignoring prepend and append
    return np.sum(np.diff(x, 0, prepend=edge, append=edge) * W[:4])


def test_diff_of_order_zero_is_the_identity():
    check_grads(no_difference, (RNG.normal(size=4), 0.5), order=2)
    gx, gedge = sg.grad(no_difference, wrt=(0, 1))(RNG.normal(size=4), 0.5)
    assert gx.tolist() == W[:4].tolist() and gedge == 0.0


def written_difference(x):
    y = x * 2.0
    d = np.diff(y, 0)
    d[0] = 0.0  # writes into y
    return np.sum(y * x)


def test_writing_into_a_difference_writes_into_the_array():
    """``np.diff(y, 0)`` is ``y`` itself: the write is one into ``y``
    (passes/normalize/views.py; it was refused)."""
    x = RNG.normal(size=4)
    check_grads(written_difference, (x.copy(),), order=1)
    assert np.isclose(sg.value_and_grad(written_difference)(x.copy())[0],
                      written_difference(x.copy()))


# -- refused ----------------------------------------------------------------------------

def gradient_second_order_edges(x):
    return np.sum(np.gradient(x, edge_order=2) ** 2)


def gradient_coordinates(x):
    return np.sum(np.gradient(x, np.array([0.0, 0.5, 1.5, 2.0])) ** 2)


def convolve_complex(x):
    return np.sum(np.abs(np.convolve(x * 1j, KERNEL)))


def gradient_spacing_differentiated(x):
    return np.sum(np.gradient(x, x[0] * x[0] + 1.0) ** 2)


@pytest.mark.parametrize("f, match", [
    (convolve_complex, "complex"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_not_handled_exactly_is_refused_when_run(f, match):
    with pytest.raises(NotImplementedError, match=match):
        sg.grad(f)(RNG.normal(size=4))


@pytest.mark.parametrize("f", [gradient_second_order_edges, gradient_coordinates,
                               gradient_spacing_differentiated], ids=lambda f: f.__name__)
def test_options_once_refused_are_written_out(f):
    # (refused before: edge_order=2, coordinates, a differentiated spacing; the written-out
    # np.gradient, rules/sequences.gradient, and tests/test_options_34.py)
    check_grads(f, (RNG.normal(size=4),), order=2)
