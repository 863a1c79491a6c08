"""scipy.special's functions in differentiated code (issue 13, section 2): each in a
realistic loss, checked against central differences to second order, in the
functional API and on a tape. SciPy is in the test extra (optional for users)."""
import numpy as np
import pytest
import scipy.special as sp
from scipy.special import expit, gammaln, logsumexp

import srcgrad as sg
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
    return np.sum(sp.digamma(a) * a + sp.polygamma(1, a) + sp.zeta(3.0, a))


def normal_cdf_loss(mu):
    return np.sum(0.5 * sp.erfc(-(X[:, 1] - mu) / np.sqrt(2.0)) + sp.erf(mu * X[:, 2]))


def entropy_terms(p):
    return np.sum(sp.xlog1py(p, p) - sp.xlogy(p, p))


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


def test_logsumexp_with_return_sign_is_refused_when_differentiated():
    def f(w):
        value, sign = logsumexp(X @ w, return_sign=True)
        return value
    with pytest.raises(NotImplementedError, match="return_sign"):
        sg.grad(f)(np.ones(3))


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
