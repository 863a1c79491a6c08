"""scipy.special's functions in differentiated code (issue 13, section 2): each in a
realistic loss, checked against central differences to second order, in the
functional API and on a tape. SciPy is in the test extra (optional for users)."""
import math

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


# Issue 13's second list: beta to Box-Cox.
def betas(x):
    return np.sum(sp.beta(x, 1.5 * x + 0.2) + sp.betaln(x + 0.3, 2.0 - 0.4 * x) * x
                  + sp.betainc(2.5, 1.5, 0.3 * x) + sp.betainc(1.0, 3.0, x / 3.0) * x)


def bessels_k(x):
    return np.sum(sp.k0(x) * sp.k1(x) + sp.k0e(x) - sp.k1e(x) * x + sp.kv(1.5, x * x)
                  + sp.kve(0.5, x) + sp.kv(np.array([0.0, 1.0, 2.5, -0.3]), x))


def exponentials(x):
    return np.sum(0.1 * sp.erfi(x) + sp.dawsn(x) * x + sp.exprel(x) + sp.exprel(1e-3 * x)
                  + sp.exp10(0.5 * x) + sp.exp2(x) * x + sp.cbrt(x + 3.0))


def degrees(x):
    return np.sum(sp.sindg(30.0 * x) * sp.cosdg(50.0 * x) + sp.tandg(20.0 * x)
                  + sp.cotdg(40.0 * x + 100.0) + sp.radian(x, 30.0 * x, x * x))


def divergences_and_losses(p):
    return np.sum(sp.rel_entr(p, 1.0 - p) + sp.kl_div(p * p, p + 0.1)
                  + sp.huber(p + 0.2, 3.0 * p - 1.0) + sp.pseudo_huber(0.5 + p, 2.0 * p - 0.8))


def pochhammer_and_hypergeometric(x):
    return np.sum(sp.poch(x + 0.5, x * x) + sp.poch(2.5, x) + sp.hyp1f1(1.5, 2.3, x) * x
                  + sp.hyp2f1(0.5, 1.5, 2.5, 0.9 * x) + sp.hyp1f1(np.array([-1.5, 0.5, 2.0,
                                                                            1.0]), 3.1, -x))


def elliptic_and_spence(x):
    # (Through the series near m == 0 (x == 0, -0.03, 0.02) and near z == 1 (x == 0.5).)
    return np.sum(sp.ellipk(x) + sp.ellipe(x * x) * x + sp.ellipe(0.9 - x)
                  + sp.spence(x + 0.5) + sp.spence(1.0 + x) * x)


def distributions(x):
    return np.sum(sp.owens_t(x, 0.5 + x * x) + sp.owens_t(1.2, x) + sp.stdtr(4.5, x)
                  + sp.chdtr(3.0, x * x + 0.1) - sp.chdtrc(1.5, np.exp(x))
                  + sp.gdtr(1.0 + x * x, 2.5, 1.3) + sp.gdtrc(0.7, 1.8, np.exp(x)))


def box_cox(x):
    # (x == 1.0: boxcox at lmbda == 0, SciPy's log branch.)
    return np.sum(sp.boxcox(x, x - 1.0) + sp.boxcox(x, 0.0) * x + sp.boxcox1p(x - 0.5, 0.3 * x)
                  + sp.inv_boxcox(x - 1.0, 0.25) + sp.inv_boxcox1p(x, -0.2)
                  + sp.inv_boxcox(x, 0.0) + sp.inv_boxcox1p(x * 0.1, 0.0))


ISSUE_13 = [
    (betas, RNG.uniform(0.5, 2.0, size=4)),
    (bessels_k, np.array([0.3, 0.9, 1.6, 3.2])),
    (exponentials, np.array([-1.3, -0.05, 0.0, 0.4, 1.7])),
    (degrees, np.array([-1.1, -0.4, 0.3, 0.9, 1.6])),
    (divergences_and_losses, np.array([0.1, 0.3, 0.45, 0.65, 0.85])),  # (off |r| == delta)
    (pochhammer_and_hypergeometric, np.array([0.3, 0.5, 0.65, 0.8])),
    (elliptic_and_spence, np.array([-0.03, 0.0, 0.02, 0.5, 0.8])),
    (distributions, np.array([-1.2, -0.3, 0.0, 0.4, 1.5])),
    (box_cox, np.array([0.6, 1.0, 1.4, 1.9])),
]
if hasattr(sp, "betaincc"):  # (SciPy 1.11)
    def betaincc_forms(x):
        return np.sum(sp.betaincc(1.5, 2.0, x / 3.0) * x + sp.betaincc(3.0, 1.0, x * x / 5.0))

    ISSUE_13.append((betaincc_forms, RNG.uniform(0.5, 2.0, size=4)))

CASES = ISSUE_13 + [
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
    digamma_polygamma, normal_cdf_loss, poisson_nll)] + ISSUE_13


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


# Issue 13's second list: limits and edges, by value.
def _exprel(x):
    return sp.exprel(x)


def _spence(z):
    return sp.spence(z)


def _ellipk(m):
    return sp.ellipk(m)


def _ellipe(m):
    return sp.ellipe(m)


def _boxcox_in_lmbda(lmbda, x):
    return sp.boxcox(x, lmbda)


def _boxcox1p_in_lmbda(lmbda, x):
    return sp.boxcox1p(x, lmbda)


def test_series_limits_to_second_order():
    """The slopes' limits where their closed forms are 0 / 0, and their own slopes there
    (a constant limit would make the second derivative 0): exprel'(0) = 1/2,
    exprel''(0) = 1/3; spence'(1) = -1, spence''(1) = 1/2; K'(0) = pi/8, K''(0) =
    9 pi / 64; E'(0) = -pi/8, E''(0) = -3 pi / 64; boxcox at lmbda == 0 (SciPy's log
    branch): d/dlmbda = log(x)^2 / 2, d2/dlmbda2 = log(x)^3 / 3."""
    for f, x, first, second in [(_exprel, 0.0, 0.5, 1.0 / 3.0), (_spence, 1.0, -1.0, 0.5),
                                (_ellipk, 0.0, np.pi / 8, 9 * np.pi / 64),
                                (_ellipe, 0.0, -np.pi / 8, -3 * np.pi / 64)]:
        assert sg.grad(f)(x) == pytest.approx(first, rel=1e-14), f.__name__
        assert sg.grad(sg.grad(f))(x) == pytest.approx(second, rel=1e-12), f.__name__
        value, tangent = sg.jvp(f, (x,), (1.0,))
        assert tangent == pytest.approx(first, rel=1e-14), f.__name__
    for f, log in [(_boxcox_in_lmbda, np.log(2.5)), (_boxcox1p_in_lmbda, np.log1p(2.5))]:
        assert sg.grad(f)(0.0, 2.5) == pytest.approx(log ** 2 / 2, rel=1e-14)
        assert sg.grad(sg.grad(f))(0.0, 2.5) == pytest.approx(log ** 3 / 3, rel=1e-12)


def _exact(terms, x):
    """sum over n of c_n x^n in rationals (``terms``: n -> c_n), rounded once."""
    from fractions import Fraction
    x = Fraction(x)
    return float(sum(c * x ** n for n, c in terms))


def _series(name):
    """The slopes' Taylor series, to far more terms than the helpers' (exact rationals)."""
    from fractions import Fraction
    from math import factorial
    if name == "exprel":  # sum k x^(k - 1) / (k + 1)!
        return [(k - 1, Fraction(k, factorial(k + 1))) for k in range(1, 40)]
    if name == "spence":  # -log1p(w) / w = -sum (-w)^k / (k + 1), in w = z - 1
        return [(k, Fraction(-(-1) ** k, k + 1)) for k in range(60)]
    c, out = Fraction(1), []
    for n in range(1, 80):  # c_n = (2n - 1)!! / (2n)!!
        c *= Fraction(2 * n - 1, 2 * n)
        out.append((n - 1, n * c * c if name == "ellipk" else -n * c * c / (2 * n - 1)))
    return out


@pytest.mark.parametrize("f, name, points", [
    (_exprel, "exprel", [0.0, 1e-3, -0.04, 0.0999, -0.1001, 0.13, -0.3]),
    (_ellipk, "ellipk", [0.0, 1e-3, -0.02, 0.0499, 0.0501, -0.07, 0.1]),
    (_ellipe, "ellipe", [0.0, 1e-3, -0.02, 0.0499, 0.0501, -0.07, 0.1]),
    (_spence, "spence", [1.0, 1.0 + 1e-4, 1.0 - 9.99e-4, 1.0 + 1.001e-3, 0.99, 1.02])])
def test_slopes_on_both_sides_of_their_series_switch(f, name, points):
    """Where a slope switches between its series and its closed form, both sides agree
    with the function's exact Taylor series (rationals, to many more terms) to about
    the rounding of the closed form's difference (a series coefficient off by 1e-3 fails
    here, not in central differences)."""
    scale = (math.pi / 2) if name.startswith("ellip") else 1.0
    for x in points:
        reference = scale * _exact(_series(name), x - 1.0 if name == "spence" else x)
        assert sg.grad(f)(x) == pytest.approx(reference, rel=1e-13, abs=0), (name, x)


def _divergences_sum(x, y):
    return np.sum(sp.rel_entr(x, y) + 2.0 * sp.kl_div(x, y))


def _huber_sum(delta, r):
    return np.sum(sp.huber(delta, r) + 2.0 * sp.pseudo_huber(delta, r))


def test_divergences_and_losses_at_zero():
    """rel_entr(0, y) = 0 and kl_div(0, y) = y for every y >= 0: slopes 0 and 1 in y
    (also at y == 0), and the one-sided -inf of x log x in x. huber and pseudo_huber at
    delta == 0 (inf below): slope |r| in delta from above, 0 in r (the value is 0 for
    every r); NaN where delta < 0, where the value is inf."""
    x, y = np.array([0.0, 0.0, 0.4]), np.array([1.5, 0.0, 0.8])
    with np.errstate(divide="ignore", invalid="ignore"):
        gx, gy = sg.grad(_divergences_sum, wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(gy[:2], [2.0, 2.0])
    assert gx[0] == -np.inf
    np.testing.assert_allclose(gy[2], -0.5 + 2.0 * (1.0 - 0.5), rtol=1e-14)
    delta, r = np.array([0.0, 0.0, -1.0]), np.array([-1.5, 0.0, 0.5])
    gd, gr = sg.grad(_huber_sum, wrt=(0, 1))(delta, r)
    np.testing.assert_array_equal(gd[:2], [3.0 * 1.5, 0.0])
    np.testing.assert_array_equal(gr[:2], [0.0, 0.0])
    assert np.isnan(gd[2]) and np.isnan(gr[2])


def _boxcox_at_domain_edges(x):
    return np.sum(sp.boxcox(x, 1.0) + sp.boxcox1p(x - 1.0, 1.0) + sp.boxcox(x, 2.5))


def _inv_boxcox_edge(y, lmbda):
    return np.sum(sp.inv_boxcox(y, lmbda))


def _betainc_edges(x):
    return np.sum(sp.betainc(1.0, 2.5, x) + sp.betainc(3.0, 1.0, 1.0 - x))


def test_box_cox_and_betainc_at_the_ends_of_their_domains():
    """boxcox(x, 1) = x - 1 has slope 1 at x == 0 (boxcox1p at x == -1), x^1.5 slope 0;
    inv_boxcox's slope where 1 + lmbda y == 0 is 0^(1 / lmbda - 1): 1 at lmbda == 1, 0
    below, inf above; betainc(1, b, x)' = b at x == 0, betainc(a, 1, x)' = a at x == 1."""
    assert sg.grad(_boxcox_at_domain_edges)(np.array([0.0]))[0] == 2.0
    lmbda = np.array([1.0, 0.5, 2.0])
    with np.errstate(divide="ignore"):
        g = sg.grad(_inv_boxcox_edge)(-1.0 / lmbda, lmbda)
    np.testing.assert_array_equal(g, [1.0, 0.0, np.inf])
    np.testing.assert_allclose(sg.grad(_betainc_edges)(np.array([0.0])), [2.5 - 3.0],
                               rtol=1e-14)


def _rounded(x):
    return np.sum(sp.round(3.0 * x) * x)


def test_round_is_piecewise_constant():
    x = np.array([-1.2, 0.1, 0.7])
    np.testing.assert_array_equal(sg.grad(_rounded)(x), sp.round(3.0 * x))


def _betainc_in_a(a):
    return np.sum(sp.betainc(a, 2.0, 0.4))


def _betainc_in_b(b):
    return np.sum(sp.betainc(1.5, b, 0.4))


def _kv_in_order(v):
    return np.sum(sp.kv(v, 1.5) + sp.kve(1.0, 1.5))


def _hyp1f1_in_a(a):
    return np.sum(sp.hyp1f1(a, 2.0, 0.5))


def _hyp2f1_in_c(c):
    return np.sum(sp.hyp2f1(0.5, 1.0, c + 2.0, 0.5))


def _stdtr_in_df(df):
    return np.sum(sp.stdtr(df, 0.5))


def _chdtr_in_v(v):
    return np.sum(sp.chdtr(v, 1.5))


def _gdtr_in_b(b):
    return np.sum(sp.gdtr(1.0, b, 1.5))


def _inv_boxcox_in_lmbda(lmbda):
    return np.sum(sp.inv_boxcox(0.5, lmbda))


@pytest.mark.parametrize("f, param", [
    (_betainc_in_a, "a"), (_betainc_in_b, "b"), (_kv_in_order, "v"), (_hyp1f1_in_a, "a"),
    (_hyp2f1_in_c, "c"), (_stdtr_in_df, "df"), (_chdtr_in_v, "v"), (_gdtr_in_b, "b"),
    (_inv_boxcox_in_lmbda, "lmbda")])
def test_issue_13_parameters_without_a_derivative_are_refused(f, param):
    """No closed form (the incomplete beta's a and b, the orders, the hypergeometric
    parameters, the degrees of freedom, gdtr's shape) or none derived (inv_boxcox's
    lmbda): refused at compile time, in reverse and forward mode, never a silent zero."""
    with pytest.raises(CompileError, match=f"`{param}`"):
        sg.grad(f)(np.array([1.2, 2.3]))
    with pytest.raises(CompileError, match=f"`{param}`"):
        compile_tangent(f, [0], (np.array([1.2, 2.3]),))
