"""scipy.stats' distributions in differentiated code (issue 13, "coverage"): each method
in a realistic loss or a loss mixing all of a family's methods, checked against central
differences to second order, in the functional API, on a tape and in forward mode; loc
and scale as arrays and as Python floats, by position and by keyword. And what is
refused: a shape parameter without a closed-form derivative, a distribution that is not
scipy's own instance. SciPy is in the test extra (optional for users)."""
import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

import srcgrad as sg
from srcgrad.compiler.tangents import compile_tangent
from srcgrad.errors import CompileError, NotDifferentiableError
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees

RNG = np.random.default_rng(13)
X = RNG.normal(size=(8, 3))
Y = X @ np.array([0.5, -1.0, 0.3]) + 0.3 * RNG.normal(size=8)
LABELS = (Y > 0).astype(float)
POSITIVE = np.exp(0.4 * RNG.normal(size=8))  # gamma, lognormal, chi2 samples
UNIT = sp.expit(0.8 * RNG.normal(size=8))  # beta samples
COUNTS = np.array([0.0, 1.0, 3.0, 2.0, 5.0, 1.0, 0.0, 4.0])
CENSORED = Y < -0.2
Q = np.array([0.1, 0.35, 0.6, 0.95])
POINTS = RNG.normal(size=(6, 3))
SIMPLEX = RNG.dirichlet([2.0, 3.0, 1.5], size=5).T  # components along the first axis


# -- realistic losses ---------------------------------------------------------------------

def gaussian_regression(w, log_sigma):
    return -np.sum(st.norm.logpdf(Y, X @ w, np.exp(log_sigma)))


def probit_nll(w):
    z = X @ w
    return -np.sum(LABELS * st.norm.logcdf(z) + (1.0 - LABELS) * st.norm.logsf(z))


def tobit_nll(w, log_sigma):
    """Left-censored at -0.2: the censored points contribute log P(y <= -0.2)."""
    mu, sigma = X @ w, np.exp(log_sigma)
    return -np.sum(np.where(CENSORED, st.norm.logcdf(-0.2, mu, sigma),
                            st.norm.logpdf(Y, loc=mu, scale=sigma)))


def student_t_regression(w, log_df, log_scale):
    df = 1.0 + np.exp(log_df)
    return -np.sum(st.t.logpdf(Y, df, X @ w, np.exp(log_scale)))


def gamma_glm(w, log_shape):
    a = np.exp(log_shape)
    return -np.sum(st.gamma.logpdf(POSITIVE, a, scale=np.exp(0.3 * X @ w) / a))


def beta_regression(w, log_phi):
    mu, phi = sp.expit(X @ w), np.exp(log_phi)
    return -np.sum(st.beta.logpdf(UNIT, mu * phi, (1.0 - mu) * phi))


def chi2_and_lognormal_fit(df, s, log_median):
    return -np.sum(st.chi2.logpdf(POSITIVE, df) + st.lognorm.logpdf(POSITIVE, s,
                                                                     scale=np.exp(log_median)))


def robust_mixture(locs, log_scales):
    """A mixture of a normal, a Cauchy, a logistic and a Laplace component."""
    s = np.exp(log_scales)
    parts = np.stack([st.norm.logpdf(Y, locs[0], s[0]), st.cauchy.logpdf(Y, locs[1], s[1]),
                      st.logistic.logpdf(Y, locs[2], s[2]), st.laplace.logpdf(Y, locs[3], s[3])])
    return -np.sum(sp.logsumexp(parts, axis=0) - np.log(4.0))


def exponential_survival(log_rate):
    """Right-censored lifetimes: the censored contribute log P(T > t)."""
    scale = np.exp(-X @ log_rate)
    t = POSITIVE
    return -np.sum(np.where(CENSORED, st.expon.logsf(t, scale=scale),
                            st.expon.logpdf(t, 0.0, scale)))


def quantile_matching(mu, log_s):
    targets = np.array([-1.2, -0.4, 0.3, 1.9])
    return np.sum((st.norm.ppf(Q, mu, np.exp(log_s)) - targets) ** 2
                  + 0.1 * (st.logistic.isf(Q, loc=mu) - targets) ** 2)


def inverse_transform_sampling(v, mu):
    """Samples as quantiles of uniforms u: differentiable in u (the ppf's and isf's q)."""
    u = sp.expit(v)
    draws = st.norm.ppf(u, mu, 1.5) + st.gamma.ppf(u, 2.0, scale=0.5) - st.t.isf(u, 4.0, mu)
    return np.sum(draws ** 2) + np.sum(st.beta.isf(u, 2.0, 3.0) * st.lognorm.ppf(u, 0.7))


def poisson_regression(w):
    rate = np.exp(0.5 * X @ w)
    return -np.sum(st.poisson.logpmf(COUNTS, rate)) + np.sum(
        st.poisson.pmf(COUNTS, rate) + 0.5 * st.poisson.cdf(COUNTS, rate)
        - 0.2 * st.poisson.sf(COUNTS + 0.5, rate) + 0.3 * st.poisson.logcdf(COUNTS, rate)
        + 0.1 * st.poisson.logsf(COUNTS, rate, 0.0))


def mvn_fit(mean, factor):
    cov = factor @ factor.T + 0.5 * np.eye(3)
    return -np.sum(st.multivariate_normal.logpdf(POINTS, mean, cov))


def mvn_entropy_of_a_fit(mean, factor):
    """``multivariate_normal.entropy`` (written out: half of d (log 2 pi + 1) + log det
    of the lower triangle SciPy reads), in ``cov``; ``mean`` only gives the dimension."""
    cov = factor @ factor.T + 0.5 * np.eye(3) + np.triu(factor, 1)
    return st.multivariate_normal.entropy(mean, cov) + st.multivariate_normal.entropy(cov=cov) \
        + np.sum(mean ** 2)  # (so that every argument reaches the value: the forms' test)


def mvn_density(x, mean, cov):
    return np.sum(st.multivariate_normal.pdf(x, mean=mean, cov=cov) * (1.0 + x[..., 0] ** 2))


def dirichlet_fit(log_alpha):
    alpha = np.exp(log_alpha)
    return -np.sum(st.dirichlet.logpdf(SIMPLEX, alpha)) + st.dirichlet.pdf(SIMPLEX[:, 0], alpha)


def dirichlet_in_x(y):
    x = np.exp(y) / np.sum(np.exp(y))  # on the simplex whatever y
    alpha = np.array([1.5, 2.0, 1.0])  # (alpha == 1: a term that is 0, with its slope in x)
    return st.dirichlet.logpdf(x, alpha) + 0.5 * st.dirichlet.pdf(x, alpha)


def dirichlet_last_implied(x, alpha):
    """scipy completes ``x`` given all components but the last."""
    return np.sum(st.dirichlet.logpdf(x, alpha) * np.array([1.0, -0.5]))


# -- every method of every family -----------------------------------------------------------
# (Weights keep cdf and sf from cancelling; the quantile functions at Q.)

def norm_methods(x, loc, scale):
    return np.sum(st.norm.pdf(x, loc, scale) + 0.5 * st.norm.logpdf(x, loc, scale)
                  + 2.0 * st.norm.cdf(x, loc=loc, scale=scale) + 0.7 * st.norm.logcdf(x, loc, scale)
                  - 0.3 * st.norm.sf(x, loc, scale) + 0.4 * st.norm.logsf(x, loc=loc, scale=scale)
                  + 0.1 * st.norm.ppf(Q, loc, scale) - 0.2 * st.norm.isf(Q, loc, scale=scale))


def t_methods(x, loc, scale):
    df = 3.5
    return np.sum(st.t.pdf(x, df, loc, scale) + 0.5 * st.t.logpdf(x, df, loc, scale)
                  + 2.0 * st.t.cdf(x, df, loc=loc, scale=scale) + 0.7 * st.t.logcdf(x, df, loc, scale)
                  - 0.3 * st.t.sf(x, df=df, loc=loc, scale=scale) + 0.4 * st.t.logsf(x, df, loc, scale)
                  + 0.1 * st.t.ppf(Q, df, loc, scale) - 0.2 * st.t.isf(Q, df, loc, scale))


def cauchy_methods(x, loc, scale):
    return np.sum(st.cauchy.pdf(x, loc, scale) + 0.5 * st.cauchy.logpdf(x, loc, scale)
                  + 2.0 * st.cauchy.cdf(x, loc, scale) + 0.7 * st.cauchy.logcdf(x, loc, scale)
                  - 0.3 * st.cauchy.sf(x, loc, scale) + 0.4 * st.cauchy.logsf(x, loc, scale)
                  + 0.1 * st.cauchy.ppf(Q, loc, scale) - 0.2 * st.cauchy.isf(Q, loc, scale))


def logistic_methods(x, loc, scale):
    return np.sum(st.logistic.pdf(x, loc, scale) + 0.5 * st.logistic.logpdf(x, loc, scale)
                  + 2.0 * st.logistic.cdf(x, loc, scale) + 0.7 * st.logistic.logcdf(x, loc, scale)
                  - 0.3 * st.logistic.sf(x, loc, scale) + 0.4 * st.logistic.logsf(x, loc, scale)
                  + 0.1 * st.logistic.ppf(Q, loc, scale) - 0.2 * st.logistic.isf(Q, loc, scale))


def laplace_methods(x, loc, scale):
    return np.sum(st.laplace.pdf(x, loc, scale) + 0.5 * st.laplace.logpdf(x, loc, scale)
                  + 2.0 * st.laplace.cdf(x, loc, scale) + 0.7 * st.laplace.logcdf(x, loc, scale)
                  - 0.3 * st.laplace.sf(x, loc, scale) + 0.4 * st.laplace.logsf(x, loc, scale)
                  + 0.1 * st.laplace.ppf(Q, loc, scale) - 0.2 * st.laplace.isf(Q, loc, scale))


def expon_methods(x, loc, scale):
    return np.sum(st.expon.pdf(x, loc, scale) + 0.5 * st.expon.logpdf(x, loc, scale)
                  + 2.0 * st.expon.cdf(x, loc, scale) + 0.7 * st.expon.logcdf(x, loc, scale)
                  - 0.3 * st.expon.sf(x, loc, scale) + 0.4 * st.expon.logsf(x, loc, scale)
                  + 0.1 * st.expon.ppf(Q, loc, scale) - 0.2 * st.expon.isf(Q, loc, scale))


def gamma_methods(x, loc, scale):
    a = 2.5
    return np.sum(st.gamma.pdf(x, a, loc, scale) + 0.5 * st.gamma.logpdf(x, a, loc, scale)
                  + 2.0 * st.gamma.cdf(x, a, loc, scale) + 0.7 * st.gamma.logcdf(x, a, loc, scale)
                  - 0.3 * st.gamma.sf(x, a, loc, scale) + 0.4 * st.gamma.logsf(x, a, loc, scale)
                  + 0.1 * st.gamma.ppf(Q, a, loc, scale) - 0.2 * st.gamma.isf(Q, a, loc, scale))


def chi2_methods(x, loc, scale):
    df = 3.0
    return np.sum(st.chi2.pdf(x, df, loc, scale) + 0.5 * st.chi2.logpdf(x, df, loc, scale)
                  + 2.0 * st.chi2.cdf(x, df, loc, scale) + 0.7 * st.chi2.logcdf(x, df, loc, scale)
                  - 0.3 * st.chi2.sf(x, df, loc, scale) + 0.4 * st.chi2.logsf(x, df, loc, scale)
                  + 0.1 * st.chi2.ppf(Q, df, loc, scale) - 0.2 * st.chi2.isf(Q, df, loc, scale))


def lognorm_methods(x, loc, scale):
    s = 0.8
    return np.sum(st.lognorm.pdf(x, s, loc, scale) + 0.5 * st.lognorm.logpdf(x, s, loc, scale)
                  + 2.0 * st.lognorm.cdf(x, s, loc, scale)
                  + 0.7 * st.lognorm.logcdf(x, s, loc, scale)
                  - 0.3 * st.lognorm.sf(x, s, loc, scale) + 0.4 * st.lognorm.logsf(x, s, loc, scale)
                  + 0.1 * st.lognorm.ppf(Q, s, loc, scale) - 0.2 * st.lognorm.isf(Q, s, loc, scale))


def beta_methods(x, loc, scale):
    a, b = 2.0, 3.5
    return np.sum(st.beta.pdf(x, a, b, loc, scale) + 0.5 * st.beta.logpdf(x, a, b, loc, scale)
                  + 2.0 * st.beta.cdf(x, a, b, loc, scale)
                  + 0.7 * st.beta.logcdf(x, a, b, loc, scale)
                  - 0.3 * st.beta.sf(x, a, b, loc, scale)
                  + 0.4 * st.beta.logsf(x, a, b, loc, scale)
                  + 0.1 * st.beta.ppf(Q, a, b, loc, scale)
                  - 0.2 * st.beta.isf(Q, a, b, loc=loc, scale=scale))


def densities_in_shapes(df, a, b, s):
    """pdf and logpdf in the shape parameters (t, gamma, chi2, beta, lognorm)."""
    x = POSITIVE[:4]
    return np.sum(st.t.logpdf(Y[:4], df, 0.2, 1.5) + st.t.pdf(Y[:4], df=df)
                  + st.gamma.logpdf(x, a) + st.gamma.pdf(x, a, scale=1.5)
                  + st.chi2.logpdf(x, df) + st.chi2.pdf(x, df, -0.1, 2.0)
                  + st.beta.logpdf(UNIT[:4], a, b) + st.beta.pdf(UNIT[:4], a, b=b)
                  + st.lognorm.logpdf(x, s) + st.lognorm.pdf(x, s, scale=0.7))


X4 = Y[:4]
CASES = [
    (gaussian_regression, (RNG.normal(size=3), 0.2)),
    (probit_nll, (0.5 * RNG.normal(size=3),)),
    (tobit_nll, (RNG.normal(size=3), -0.3)),
    (student_t_regression, (RNG.normal(size=3), 0.8, -0.5)),
    (gamma_glm, (0.5 * RNG.normal(size=3), 0.7)),
    (beta_regression, (0.5 * RNG.normal(size=3), 1.2)),
    (chi2_and_lognormal_fit, (3.2, 0.6, 0.1)),
    (robust_mixture, (0.3 * RNG.normal(size=4), 0.2 * RNG.normal(size=4))),
    (exponential_survival, (0.3 * RNG.normal(size=3),)),
    (quantile_matching, (0.2, 0.1)),
    (inverse_transform_sampling, (RNG.normal(size=5), 0.3)),
    (poisson_regression, (0.4 * RNG.normal(size=3),)),
    (mvn_fit, (0.2 * RNG.normal(size=3), RNG.normal(size=(3, 3)))),
    (mvn_entropy_of_a_fit, (0.2 * RNG.normal(size=3), RNG.normal(size=(3, 3)))),
    (mvn_density, (RNG.normal(size=(4, 3)), 0.3 * RNG.normal(size=3),
                   np.array([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.2]]))),
    (dirichlet_fit, (0.3 * RNG.normal(size=3),)),
    (dirichlet_in_x, (RNG.normal(size=3),)),
    (dirichlet_last_implied, (np.array([[0.2, 0.3], [0.5, 0.1]]), np.array([1.3, 2.0, 0.8]))),
    # loc and scale as Python floats, then as arrays that broadcast against x
    (norm_methods, (X4, 0.3, 1.4)),
    (norm_methods, (X4, RNG.normal(size=4), np.array([[0.8], [1.3], [2.0]]))),
    (t_methods, (X4, -0.2, 1.1)),
    (t_methods, (X4, RNG.normal(size=4), np.array([[0.8], [1.5]]))),
    (cauchy_methods, (X4, 0.1, 0.9)),
    (logistic_methods, (X4, RNG.normal(size=4), np.array([0.7, 1.2, 1.9, 1.0]))),
    (laplace_methods, (X4 + 0.05, 0.0, 1.3)),
    (expon_methods, (POSITIVE[:4], -0.1, 1.2)),
    (expon_methods, (POSITIVE[:4], np.array([-0.2, 0.1, 0.0, -0.1]), np.array([[0.9], [1.6]]))),
    (gamma_methods, (POSITIVE[:4], -0.1, 0.8)),
    (chi2_methods, (POSITIVE[:4], -0.1, np.array([0.6, 1.1, 0.9, 1.4]))),
    (lognorm_methods, (POSITIVE[:4], -0.05, 1.3)),
    (beta_methods, (UNIT[:4], -0.1, 1.3)),
    (densities_in_shapes, (4.5, 2.2, 1.7, 0.9)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_finite_differences_to_second_order(f, args, check_second_order):
    check_second_order(f, args)  # check_grads(order=2), one compile per gradient: conftest.py


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_value_and_grad_and_a_tape_agree(f, args):
    wrt = tuple(range(len(args)))
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    sources = [np.asarray(a, dtype=float) for a in args]
    # (One block per arity: a block is compiled as written, every call in it.)
    if len(sources) == 1:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0])
    elif len(sources) == 2:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0], sources[1])
    elif len(sources) == 3:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0], sources[1], sources[2])
    else:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0], sources[1], sources[2], sources[3])
    for got, want in zip(tape.gradient(y, sources), grads):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_mode_agrees_with_differences_and_the_gradient(f, args):
    """Forward mode compiles every rule (no transposition) and agrees with the gradient."""
    assert_forward_mode_agrees(f, args)


def test_hessian_vector_product_through_a_likelihood():
    w = np.array([0.3, -0.2, 0.1])
    v = np.array([1.0, 0.5, -2.0])

    def loss(w):
        return student_t_regression(w, 0.8, -0.5) + gamma_glm(w, 0.7)

    eps = 1e-5
    numeric = (sg.grad(loss)(w + eps * v) - sg.grad(loss)(w - eps * v)) / (2 * eps)
    np.testing.assert_allclose(sg.hvp(loss)(w, v), numeric, rtol=1e-6, atol=1e-8)


# -- conventions, checked by value --------------------------------------------------------

def _gamma_densities(x):
    return np.sum(st.gamma.logpdf(x, 2.0) + st.gamma.pdf(x, 2.0) + st.gamma.logsf(x, 2.0))


def _gamma_logpdf_in_loc_scale(loc, scale):
    return np.sum(st.gamma.logpdf(np.array([-1.0, 0.5]), 2.0, loc, scale))


def _expon_logcdf(x):
    return np.sum(st.expon.logcdf(x, 0.5))


def _beta_logpdf(x):
    return np.sum(st.beta.logpdf(x, 2.0, 3.0))


def test_off_the_support_the_slopes_are_zero():
    """Where the density is 0 (its log -inf, the cdf 0 or 1) whatever x, x has no slope:
    0, not nan (central differences there are nan or 0)."""
    x = np.array([-1.0, -0.2, 1.5])
    got = sg.grad(_gamma_densities)(x)
    np.testing.assert_array_equal(got[:2], 0.0)
    assert got[2] == pytest.approx((2.0 - 1.0) / 1.5 - 1.0 + st.gamma.pdf(1.5, 2.0)
                                   * ((2.0 - 1.0) / 1.5 - 1.0)
                                   - st.gamma.pdf(1.5, 2.0) / st.gamma.sf(1.5, 2.0), rel=1e-12)
    np.testing.assert_array_equal(sg.grad(_expon_logcdf)(np.array([-1.0, 0.2])), 0.0)
    # Only x = 0.5 is inside: d/dloc = -score / scale, d/dscale = -(1 + z score) / scale.
    loc, scale = np.array([0.0, 0.0]), np.array([1.3, 1.3])
    z = 0.5 / 1.3
    score = (2.0 - 1.0) / z - 1.0
    dloc, dscale = sg.grad(_gamma_logpdf_in_loc_scale, wrt=(0, 1))(loc, scale)
    np.testing.assert_allclose(dloc, [0.0, -score / 1.3], rtol=1e-12)
    np.testing.assert_allclose(dscale, [0.0, -(1.0 + z * score) / 1.3], rtol=1e-12)
    np.testing.assert_array_equal(sg.grad(_beta_logpdf)(np.array([-0.5, 1.5])), 0.0)


def _poisson_off_counts(mu):
    k = np.array([-1.0, 2.5, 3.0])
    return np.sum(st.poisson.pmf(k, mu) + st.poisson.cdf(k, mu) + st.poisson.logsf(k, mu))


def test_poisson_off_the_counts():
    """pmf is 0 off the counts; the cdf at 2.5 is the cdf at 2 (d/dmu: -pmf(2))."""
    mu = np.array([1.5, 2.0, 0.7])
    want = [0.0 + 0.0 + 0.0,
            -st.poisson.pmf(2.0, 2.0) + st.poisson.pmf(2.0, 2.0) / st.poisson.sf(2.5, 2.0),
            st.poisson.pmf(3.0, 0.7) * (3.0 / 0.7 - 1.0) - st.poisson.pmf(3.0, 0.7)
            + st.poisson.pmf(3.0, 0.7) / st.poisson.sf(3.0, 0.7)]
    np.testing.assert_allclose(sg.grad(_poisson_off_counts)(mu), want, rtol=1e-12)


def _mvn_allow_singular(mean, cov):
    return np.sum(st.multivariate_normal.logpdf(POINTS, mean, cov, allow_singular=True))


def test_mvn_with_allow_singular_and_a_regular_cov_is_the_plain_density():
    cov = np.array([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.2]])
    check_grads(_mvn_allow_singular, (np.zeros(3), cov), order=2)


def test_mvn_reads_the_lower_triangle_of_cov():
    """scipy reads cov's lower triangle: the upper one has no gradient, the lower one
    counts twice (both entries of the symmetric matrix)."""
    cov = np.array([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.2]])
    g = sg.grad(_mvn_allow_singular, wrt=1)(np.zeros(3), cov)
    np.testing.assert_array_equal(np.triu(g, 1), 0.0)
    assert np.all(np.tril(g, -1)[np.tril_indices(3, -1)] != 0.0)


# -- refused ----------------------------------------------------------------------------

def _t_cdf_in_df(df):
    return np.sum(st.t.cdf(Y, df))


def _gamma_sf_in_a(a):
    return np.sum(st.gamma.sf(POSITIVE, a))


def _beta_logcdf_in_b(b):
    return np.sum(st.beta.logcdf(UNIT, 2.0, b))


def _chi2_ppf_in_df(df):
    return np.sum(st.chi2.ppf(Q, df))


def _lognorm_logsf_in_s(s):
    return np.sum(st.lognorm.logsf(POSITIVE, s))


def _poisson_in_k(k):
    return np.sum(st.poisson.pmf(k, 2.0))


@pytest.mark.parametrize("f, param", [
    (_t_cdf_in_df, "df"), (_gamma_sf_in_a, "a"), (_beta_logcdf_in_b, "b"),
    (_chi2_ppf_in_df, "df"), (_lognorm_logsf_in_s, "s")])
def test_shape_parameters_without_a_closed_form_derivative_are_refused(f, param):
    """The cdf's derivative in a shape parameter is that of an incomplete gamma or beta
    function in its parameter: refused at compile time, naming it, never a zero."""
    with pytest.raises(CompileError, match=f"`{param}`"):
        sg.grad(f)(2.5)
    with pytest.raises(CompileError, match=f"`{param}`"):
        compile_tangent(f, [0], (np.array(2.5),))
    with pytest.raises(CompileError, match=f"`{param}`"):
        x = np.array(2.5)
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        tape.gradient(y, x)


def test_poisson_counts_are_piecewise_constant():
    np.testing.assert_array_equal(sg.grad(_poisson_in_k)(np.array([1.0, 2.0])), 0.0)


class HalfNormal(st.rv_continuous):
    """A user's own distribution: scipy's machinery around the user's density."""

    def _pdf(self, x):
        return np.sqrt(2.0 / np.pi) * np.exp(-0.5 * x * x)


HALF_NORMAL = HalfNormal(a=0.0, name="half_normal")
ANOTHER_NORMAL = type(st.norm)(name="another_normal")  # norm's class, not norm


def _own_distribution(x):
    return np.sum(HALF_NORMAL.logpdf(x))


def _another_instance(x):
    return np.sum(ANOTHER_NORMAL.logpdf(x))


def _frozen(x):
    return np.sum(st.norm(0.0, 2.0).logpdf(x))


@pytest.mark.parametrize("f", [_own_distribution, _another_instance, _frozen])
def test_other_distributions_are_refused(f):
    """Rules are keyed on scipy's own instances: a subclass instance, another instance of
    norm's class or a frozen distribution is refused, never given norm's rule."""
    x = np.array([0.5, 1.5])
    with pytest.raises(CompileError):
        sg.grad(f)(x)
    with pytest.raises(CompileError):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        tape.gradient(y, x)


def _mvn_scalar_cov(x):
    return np.sum(st.multivariate_normal.logpdf(x, np.zeros(2), 1.5))


def _mvn_singular(x):
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    return np.sum(st.multivariate_normal.logpdf(x, np.zeros(2), cov, allow_singular=True))


@pytest.mark.parametrize("f, what", [(_mvn_scalar_cov, "d x d matrix"),
                                     (_mvn_singular, "singular")])
def test_mvn_forms_outside_the_rule_raise_when_differentiated(f, what):
    with pytest.raises(NotDifferentiableError, match=what):
        sg.grad(f)(np.array([[0.3, 0.3], [1.0, 1.0]]))
