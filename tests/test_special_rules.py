"""scipy.special's functions in differentiated code (issue 13, section 2): each in a
realistic loss, checked against central differences to second order, in the
functional API and on a tape. SciPy is in the test extra (optional for users)."""
import numpy as np
import pytest
import scipy.special as sp
from scipy.special import expit, gammaln, logsumexp

import srcgrad as sg
from srcgrad.compiler.tangents import compile_tangent
from srcgrad.errors import CompileError
from srcgrad.testing import check_grads

RNG = np.random.default_rng(11)
X = RNG.normal(size=(6, 3))
Y = (RNG.random(6) > 0.5).astype(float)
COUNTS = np.array([0.0, 1.0, 3.0, 2.0, 5.0, 1.0])


def logistic_nll(w):
    z = X @ w
    return -np.sum(Y * sp.log_expit(z) + (1.0 - Y) * sp.log_expit(-z))


def logistic_probabilities(w):
    p = expit(X @ w)
    return np.sum((p - Y) ** 2)


def softmax_cross_entropy(W):
    logits = X @ W
    return -np.mean(sp.log_softmax(logits, axis=1)[np.arange(6), (Y > 0).astype(int)])


def softmax_entropy(W):
    p = sp.softmax(X @ W, axis=-1)
    return -np.sum(sp.xlogy(p, p))


def logsumexp_loss(W):
    logits = X @ W
    return np.sum(logsumexp(logits, axis=1) - logits[:, 0])


def weighted_logsumexp(w):
    return logsumexp(X @ w, b=np.abs(Y) + 0.5)


def poisson_nll(log_rate):
    rate = np.exp(log_rate)
    return np.sum(rate - sp.xlogy(COUNTS, rate) + gammaln(COUNTS + 1.0))


def student_t_logpdf(nu):
    x = X[:, 0]
    return np.sum(gammaln((nu + 1.0) / 2.0) - gammaln(nu / 2.0) - 0.5 * np.log(nu * np.pi)
                  - (nu + 1.0) / 2.0 * np.log1p(x * x / nu))


def digamma_polygamma(a):
    # (An array of orders: its slope's factorial was math.factorial's, a TypeError; hunt 4.)
    return np.sum(sp.digamma(a) * a + sp.polygamma(1, a) + sp.zeta(3.0, a)
                  + sp.polygamma(np.array([1, 2, 0, 3]), a))


def normal_cdf_loss(mu):
    return np.sum(0.5 * sp.erfc(-(X[:, 1] - mu) / np.sqrt(2.0)) + sp.erf(mu * X[:, 2]))


def entropy_terms(p):
    return np.sum(sp.xlog1py(p, p) - sp.xlogy(p, p))


def gamma_family(a):
    return np.sum(sp.gamma(a) * sp.rgamma(a + 0.5) + sp.gammasgn(a) * sp.gamma(-a - 0.5)
                  + sp.multigammaln(a + 1.5, 3) + sp.psi(a))


def incomplete_gammas(x):
    return np.sum(sp.gammainc(2.5, x) * x - sp.gammaincc(0.8, x * x))


def inverse_errors(p):
    return np.sum(sp.erfinv(p) ** 2 + sp.erfcinv(1.0 + 0.5 * p) + sp.logit(0.5 + 0.4 * p))


def modified_bessels(x):
    return np.sum(sp.i0(x) * sp.i1(x) + sp.i0e(x) - sp.i1e(x) * x
                  + sp.iv(1.5, x * x) + sp.ive(2.0, x))


def bessels(x):
    return np.sum(sp.j0(x) * sp.j1(x) + sp.y0(x) - sp.y1(x) * x + sp.jv(2.5, x)
                  + sp.yv(0.5, x) * sp.yn(2, x))


CASES = [
    (logistic_nll, RNG.normal(size=3)),
    (logistic_probabilities, RNG.normal(size=3)),
    (softmax_cross_entropy, RNG.normal(size=(3, 2))),
    (softmax_entropy, RNG.normal(size=(3, 4))),
    (logsumexp_loss, RNG.normal(size=(3, 4))),
    (weighted_logsumexp, RNG.normal(size=3)),
    (poisson_nll, RNG.normal(size=6) * 0.3),
    (student_t_logpdf, 3.5),
    (digamma_polygamma, RNG.uniform(0.8, 2.0, size=4)),
    (normal_cdf_loss, 0.3),
    (entropy_terms, RNG.uniform(0.1, 0.9, size=5)),
    # (Inside each domain, away from poles, branch points and the kinks of the
    # exponentially scaled Bessel functions at 0.)
    (gamma_family, np.array([0.7, 1.1, 1.8, 2.2])),  # (gamma(-a - 0.5): no poles)
    (incomplete_gammas, RNG.uniform(0.3, 2.0, size=4)),
    (inverse_errors, RNG.uniform(-0.8, 0.8, size=5)),
    (modified_bessels, np.array([-1.7, -0.4, 0.6, 1.3, 2.2])),
    (bessels, RNG.uniform(0.5, 4.0, size=5)),
]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_finite_differences_to_second_order(f, x):
    check_grads(f, (x,), order=2)


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_value_and_grad_and_a_tape_agree(f, x):
    value, g = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    x = np.asarray(x, dtype=float)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), g, rtol=1e-10, atol=1e-12)


def test_logsumexp_with_return_sign_is_differentiated_but_not_by_rows():
    """(Differentiated since issue 13: tests/test_special_more_rules.py; the row form of
    ``tape.jacobian`` still refuses it.)"""
    def f(w):
        value, sign = logsumexp(X @ w, return_sign=True)
        return value
    np.testing.assert_allclose(sg.grad(f)(np.ones(3)), sg.grad(lambda w: logsumexp(X @ w))(
        np.ones(3)), rtol=1e-14)
    with sg.GradientTape() as tape:
        w = np.ones(3)
        tape.watch(w)
        value, sign = logsumexp(np.outer(X @ w, w), axis=1, return_sign=True)
    with pytest.raises(NotImplementedError, match="return_sign"):
        tape.jacobian(value, w)


def _rows_of_softmaxes(W):
    logits = X @ W
    return np.stack([sp.softmax(logits, axis=1)[:, 0], sp.log_softmax(logits, axis=0)[:, 1],
                     logsumexp(logits, axis=1), logsumexp(logits, axis=1, b=2.0),
                     sp.softmax(logits)[:, 2], logsumexp(logits, axis=(1,), keepdims=True)[:, 0]])


def test_jacobian_of_every_row_at_once_matches_gradients_row_by_row():
    """``tape.jacobian`` seeds every row at once (the rules' row forms): it must agree
    with one seeded gradient per output."""
    W = RNG.normal(size=(3, 4))
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(W)
        y = _rows_of_softmaxes(W)
    jac = tape.jacobian(y, W)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            seed = np.zeros(y.shape)
            seed[i, j] = 1.0
            np.testing.assert_allclose(jac[i, j], tape.gradient(y, W, output_gradients=seed),
                                       rtol=1e-10, atol=1e-12)


# The functions of issue 13's coverage list: forward mode compiles them (no transposition)
# and agrees with the gradient.
FORWARD_CASES = [(f, x) for f, x in CASES if f in (
    gamma_family, incomplete_gammas, inverse_errors, modified_bessels, bessels,
    digamma_polygamma, normal_cdf_loss, poisson_nll)]


@pytest.mark.parametrize("f, x", FORWARD_CASES, ids=[f.__name__ for f, _ in FORWARD_CASES])
def test_forward_mode_agrees_with_the_gradient(f, x):
    x = np.asarray(x, dtype=float)
    t = np.random.default_rng(3).standard_normal(x.shape)
    code = compile_tangent(f, [0], (x.copy(),))
    value, tangent = code.fn(x.copy(), t)
    assert value == pytest.approx(f(x), rel=1e-12)
    assert float(tangent) == pytest.approx(float(np.sum(sg.grad(f)(x) * t)), rel=1e-9, abs=1e-12)
    eps = 1e-6
    numeric = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
    assert float(tangent) == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    value, jvp = sg.jvp(f, (x,), (t,))
    assert float(jvp) == pytest.approx(float(tangent), rel=1e-12, abs=1e-14)


def _i1(x):
    return np.sum(sp.i1(x))


def _i1e(x):
    return np.sum(sp.i1e(x))


def _i0e(x):
    return np.sum(sp.i0e(x))


def _gammainc_a1(x):
    return np.sum(sp.gammainc(1.0, x))


def _gammasgn_only(x):
    return np.sum(sp.gammasgn(x) * x)


def test_limits_at_zero():
    """i1'(0) = i1e'(0) = 1/2 (i1(x) / x has that limit); i0e has a kink at 0, where its
    slope is the abs kink's 0; d gammainc(1, x) / dx = exp(-x) is 1 at x == 0."""
    x = np.array([0.0, 1.0])
    np.testing.assert_allclose(sg.grad(_i1)(x), [0.5, sp.i0(1.0) - sp.i1(1.0)], rtol=1e-14)
    np.testing.assert_allclose(sg.grad(_i1e)(x)[0], 0.5, rtol=1e-14)
    np.testing.assert_allclose(sg.grad(_i0e)(x)[0], 0.0)
    np.testing.assert_allclose(sg.grad(_gammainc_a1)(x), np.exp(-x), rtol=1e-14)


def test_gammasgn_is_piecewise_constant():
    x = np.array([-2.5, -0.5, 1.5])
    np.testing.assert_array_equal(sg.grad(_gammasgn_only)(x), sp.gammasgn(x))


def _differentiated_shape(a):
    return np.sum(sp.gammainc(a, 1.5))


def _differentiated_order(v):
    return np.sum(sp.jv(v, 1.5))


def _weighted_logsumexp(a, b):
    return sp.logsumexp(a, b=b) + np.sum(sp.logsumexp(a[None, :] * b[:, None], axis=1, b=b))


def test_logsumexp_weights_are_differentiated():
    """d/db_i log(sum_j b_j exp(a_j)) = exp(a_i - logsumexp(a, b)): ``b`` was marked as taking
    no derivative, a silent zero (hunt 5)."""
    a, b = np.array([0.3, -1.2, 0.8]), np.array([0.5, 1.5, 0.25])
    check_grads(_weighted_logsumexp, (a, b), order=2)
    np.testing.assert_allclose(sg.grad(lambda b: sp.logsumexp(a, b=b))(b),
                               np.exp(a - sp.logsumexp(a, b=b)), rtol=1e-12)


def _differentiated_integer_order(x):
    return np.sum(sp.yn(2, x) + sp.multigammaln(x + 2.0, 2))


def _differentiated_zeta_order(s):
    # (Its order had no derivative and was marked as taking none: a silent zero; hunt 5.)
    return np.sum(sp.zeta(s + 2.0, 1.5) + sp.zeta(s + 2.0))


@pytest.mark.parametrize("f, param", [(_differentiated_shape, "a"),
                                      (_differentiated_order, "v"),
                                      (_differentiated_zeta_order, "x")])
def test_parameters_without_a_closed_form_derivative_are_refused(f, param):
    """gammainc's derivative in a, and the Bessel functions' in a real order, have no
    closed form: a differentiated value there is refused at compile time, not given a
    silent zero."""
    with pytest.raises(CompileError, match=f"`{param}`"):
        sg.grad(f)(np.array([1.2, 2.3]))
    with pytest.raises(CompileError, match=f"`{param}`"):
        compile_tangent(f, [0], (np.array([1.2, 2.3]),))


def test_integer_orders_and_dimensions_are_constants():
    check_grads(_differentiated_integer_order, (np.array([1.2, 2.3]),), order=2)


def _xlogy_slope_in_y(x, y):
    return np.sum(sg.grad(lambda x, y: np.sum(sp.xlogy(x, y) + sp.xlog1py(x, y)), wrt=1)(x, y))


def test_xlogy_slope_in_y_has_a_slope_in_x_at_zero():
    """d xlogy(x, y) / dy = x / y is 0 at x == 0 for every y, but its slope in x there is
    1 / y (and 1 / (1 + y) for xlog1py), not 0."""
    x, y = np.array([0.0, 0.5, 0.0]), np.array([2.0, 2.0, 0.5])
    np.testing.assert_allclose(sg.grad(_xlogy_slope_in_y, wrt=0)(x, y),
                               1.0 / y + 1.0 / (1.0 + y), rtol=1e-12)
    assert sg.grad(lambda y: np.sum(sp.xlogy(0.0, y)))(np.array([0.0, 1.0]))[0] == 0.0
