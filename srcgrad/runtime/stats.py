"""Helpers of the ``stats`` rules (``rules/stats.py``), reached as ``_sg.<name>``.

A continuous distribution of ``scipy.stats`` with ``loc`` and ``scale`` is a
standard density ``f(z)`` moved and stretched: ``pdf(x) = f(z) / scale`` with
``z = (x - loc) / scale``. Its rules need three things of ``f``, one helper each:

- ``<name>_log_density(z, shapes)``: ``log f(z)``, ``-inf`` off the support;
- ``<name>_score(z, shapes)``: ``d log f(z) / dz``, 0 off the support;
- ``<name>_score_<shape>(z, shapes)``: ``d log f(z) / d shape``, 0 off the support.

Off the support the density is 0 whatever the arguments, so every slope is 0
there. Each helper evaluates its formula at a safe point off the support and
keeps the result only on it (``np.where`` twice), so that its own derivatives,
taken when a gradient is differentiated again, stay finite there too.

Each helper is plain Python over functions that have rules, so that adjoint
code calling it can be differentiated again (``tests/test_rule_table.py`` reads
them); ``within``, ``mvn_check`` and ``dirichlet_check`` only decide, and are
non-differentiable.
Without SciPy the rules are absent and these are never called.
"""
import math

import numpy as np

from .adjoints import not_differentiable
from .decompositions import fold_symmetric
from .special import ratio_where

__all__ = [
    # differentiable
    "density_ratio",
    "norm_log_density", "norm_score",
    "t_log_density", "t_score", "t_score_df",
    "cauchy_log_density", "cauchy_score",
    "logistic_log_density", "logistic_score",
    "laplace_log_density", "laplace_score",
    "expon_log_density", "expon_score",
    "gamma_log_density", "gamma_score", "gamma_score_a",
    "chi2_log_density", "chi2_score", "chi2_score_df",
    "beta_log_density", "beta_score", "beta_score_a", "beta_score_b",
    "lognorm_log_density", "lognorm_score", "lognorm_score_s",
    "poisson_log_mass", "poisson_score",
    "mvn_logpdf_grad", "mvn_logpdf_tangent", "dirichlet_logpdf_grad",
    "dirichlet_logpdf_tangent", "dirichlet_log_slopes",
    # deciding (non-differentiable)
    "within", "mvn_check", "dirichlet_check", "mvn_entropy_dim",
]

# scipy.special's functions the helpers call: bound when a program has imported
# scipy.stats, which imports scipy.special (from_scipy.py).
digamma = gammaln = xlog1py = xlogy = None

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def within(z, lower, upper):
    """Where ``lower < z < upper`` (None: no bound), the open support of a standard
    density; at its ends the density has a kink or a pole, and slope 0 is taken."""
    inside = np.ones(np.shape(z), dtype=bool)
    if lower is not None:
        inside = inside & (z > lower)
    if upper is not None:
        inside = inside & (z < upper)
    return inside


def density_ratio(log_density, log_mass):
    """``exp(log_density - log_mass)``, a density over a probability (the slope of a
    logcdf or logsf), and 0 where the density is 0 (off the support, where the
    probability may be 0 too)."""
    some = log_density > -np.inf
    return np.where(some, np.exp(np.where(some, log_density, 0.0)
                                 - np.where(some, log_mass, 0.0)), 0.0)


# ---------------------------------------------------------------------------
# Standard densities on the whole line
# ---------------------------------------------------------------------------

def norm_log_density(z):
    """log f(z) of the standard normal: -z^2 / 2 - log(2 pi) / 2."""
    return -0.5 * (z * z) - _HALF_LOG_2PI


def norm_score(z):
    """d log f(z) / dz of the standard normal: -z."""
    return -z


def t_log_density(z, df):
    """log f(z) of Student's t with ``df`` degrees of freedom."""
    return gammaln(0.5 * (df + 1.0)) - gammaln(0.5 * df) - 0.5 * np.log(df * math.pi) \
        - 0.5 * (df + 1.0) * np.log1p(z * z / df)


def t_score(z, df):
    """d log f(z) / dz of Student's t: -(df + 1) z / (df + z^2)."""
    return -(df + 1.0) * z / (df + z * z)


def t_score_df(z, df):
    """d log f(z) / d df of Student's t."""
    zz = z * z
    return 0.5 * (digamma(0.5 * (df + 1.0)) - digamma(0.5 * df) - 1.0 / df
                  - np.log1p(zz / df) + (df + 1.0) * zz / (df * (df + zz)))


def cauchy_log_density(z):
    """log f(z) of the standard Cauchy: -log(pi (1 + z^2))."""
    return -math.log(math.pi) - np.log1p(z * z)


def cauchy_score(z):
    """d log f(z) / dz of the standard Cauchy: -2 z / (1 + z^2)."""
    return -2.0 * z / (1.0 + z * z)


def logistic_log_density(z):
    """log f(z) of the standard logistic: -z - 2 log(1 + exp(-z)), without overflow."""
    return -z - 2.0 * np.logaddexp(0.0, -z)


def logistic_score(z):
    """d log f(z) / dz of the standard logistic: -tanh(z / 2)."""
    return -np.tanh(0.5 * z)


def laplace_log_density(z):
    """log f(z) of the standard Laplace: -|z| - log 2."""
    return -np.abs(z) - math.log(2.0)


def laplace_score(z):
    """d log f(z) / dz of the standard Laplace: -sign(z), 0 at its kink z == 0."""
    return -np.sign(z)


# ---------------------------------------------------------------------------
# Standard densities on a half-line or an interval
# ---------------------------------------------------------------------------

def expon_log_density(z):
    """log f(z) of the standard exponential: -z for z > 0."""
    inside = within(z, 0.0, None)
    return np.where(inside, -np.where(inside, z, 1.0), -np.inf)


def expon_score(z):
    """d log f(z) / dz of the standard exponential: -1 for z > 0."""
    return np.where(within(z, 0.0, None), -1.0, 0.0)


def gamma_log_density(z, a):
    """log f(z) of the standard gamma: (a - 1) log z - z - log Gamma(a), z > 0."""
    inside = within(z, 0.0, None)
    safe = np.where(inside, z, 1.0)
    return np.where(inside, xlogy(a - 1.0, safe) - safe - gammaln(a), -np.inf)


def gamma_score(z, a):
    """d log f(z) / dz of the standard gamma: (a - 1) / z - 1."""
    inside = within(z, 0.0, None)
    return np.where(inside, (a - 1.0) / np.where(inside, z, 1.0) - 1.0, 0.0)


def gamma_score_a(z, a):
    """d log f(z) / da of the standard gamma: log z - digamma(a)."""
    inside = within(z, 0.0, None)
    return np.where(inside, np.log(np.where(inside, z, 1.0)) - digamma(a), 0.0)


def chi2_log_density(z, df):
    """log f(z) of chi-squared: (df/2 - 1) log z - z/2 - (df/2) log 2 - log Gamma(df/2)."""
    inside = within(z, 0.0, None)
    safe = np.where(inside, z, 1.0)
    half = 0.5 * df
    return np.where(inside, xlogy(half - 1.0, safe) - 0.5 * safe - half * math.log(2.0)
                    - gammaln(half), -np.inf)


def chi2_score(z, df):
    """d log f(z) / dz of chi-squared: (df/2 - 1) / z - 1/2."""
    inside = within(z, 0.0, None)
    return np.where(inside, (0.5 * df - 1.0) / np.where(inside, z, 1.0) - 0.5, 0.0)


def chi2_score_df(z, df):
    """d log f(z) / d df of chi-squared: (log(z / 2) - digamma(df / 2)) / 2."""
    inside = within(z, 0.0, None)
    return np.where(inside, 0.5 * (np.log(0.5 * np.where(inside, z, 1.0)) - digamma(0.5 * df)),
                    0.0)


def beta_log_density(z, a, b):
    """log f(z) of the beta: (a - 1) log z + (b - 1) log(1 - z) - log B(a, b), 0 < z < 1."""
    inside = within(z, 0.0, 1.0)
    safe = np.where(inside, z, 0.5)
    return np.where(inside, xlogy(a - 1.0, safe) + xlog1py(b - 1.0, -safe)
                    - (gammaln(a) + gammaln(b) - gammaln(a + b)), -np.inf)


def beta_score(z, a, b):
    """d log f(z) / dz of the beta: (a - 1) / z - (b - 1) / (1 - z)."""
    inside = within(z, 0.0, 1.0)
    safe = np.where(inside, z, 0.5)
    return np.where(inside, (a - 1.0) / safe - (b - 1.0) / (1.0 - safe), 0.0)


def beta_score_a(z, a, b):
    """d log f(z) / da of the beta: log z - digamma(a) + digamma(a + b)."""
    inside = within(z, 0.0, 1.0)
    return np.where(inside, np.log(np.where(inside, z, 0.5)) - digamma(a) + digamma(a + b), 0.0)


def beta_score_b(z, a, b):
    """d log f(z) / db of the beta: log(1 - z) - digamma(b) + digamma(a + b)."""
    inside = within(z, 0.0, 1.0)
    return np.where(inside, np.log1p(-np.where(inside, z, 0.5)) - digamma(b) + digamma(a + b),
                    0.0)


def lognorm_log_density(z, s):
    """log f(z) of the log-normal of shape ``s``: -log(s z sqrt(2 pi)) - log(z)^2 / (2 s^2)."""
    inside = within(z, 0.0, None)
    log_z = np.log(np.where(inside, z, 1.0))
    return np.where(inside, -np.log(s) - log_z - _HALF_LOG_2PI - log_z * log_z / (2.0 * s * s),
                    -np.inf)


def lognorm_score(z, s):
    """d log f(z) / dz of the log-normal: -(1 + log(z) / s^2) / z."""
    inside = within(z, 0.0, None)
    safe = np.where(inside, z, 1.0)
    return np.where(inside, -(1.0 + np.log(safe) / (s * s)) / safe, 0.0)


def lognorm_score_s(z, s):
    """d log f(z) / ds of the log-normal: -1/s + log(z)^2 / s^3."""
    inside = within(z, 0.0, None)
    log_z = np.log(np.where(inside, z, 1.0))
    return np.where(inside, -1.0 / s + log_z * log_z / (s * s * s), 0.0)


# ---------------------------------------------------------------------------
# Poisson (in its mean; counts are piecewise constant)
# ---------------------------------------------------------------------------

def poisson_log_mass(j, mu):
    """log P(K = j) for a Poisson of mean ``mu``: j log mu - mu - log j!, and ``-inf``
    where ``j`` is not a count (negative or not whole)."""
    count = np.logical_and(j >= 0, j == np.floor(j))
    safe = np.where(count, j, 0.0)
    return np.where(count, xlogy(safe, mu) - mu - gammaln(safe + 1.0), -np.inf)


def poisson_score(j, mu):
    """d log P(K = j) / d mu = j / mu - 1 where ``j`` is a count (0 elsewhere, where the
    mass is 0 whatever ``mu``); ``j / mu`` is 0 for j == 0, also at mu == 0."""
    count = np.logical_and(j >= 0, j == np.floor(j))
    return np.where(count, ratio_where(np.where(count, j, 0.0), mu) - 1.0, 0.0)


# ---------------------------------------------------------------------------
# Multivariate normal and Dirichlet (log densities of vectors)
# ---------------------------------------------------------------------------

def mvn_check(x, mean, cov, allow_singular):
    """The dimension of ``multivariate_normal.logpdf(x, mean, cov)`` in the forms its
    rule takes (``cov`` a d x d matrix, d >= 2, ``mean`` a d-vector, a scalar or None,
    ``x`` one point or points along its last axis), refusing the others."""
    what = "scipy.stats.multivariate_normal.logpdf/pdf"
    if np.ndim(cov) != 2 or np.shape(cov)[0] < 2:
        not_differentiable(f"{what} with cov other than a d x d matrix (d >= 2)")
    d = np.shape(cov)[0]
    if np.ndim(x) == 0 or np.shape(x)[-1] != d:
        not_differentiable(f"{what} with x not of shape (..., {d})")
    if mean is not None and np.shape(mean) != (d,):
        not_differentiable(f"{what} with mean not of shape ({d},)")
    if allow_singular:
        # scipy then drops the eigenvalues at or below this cutoff (pseudo-inverse and
        # pseudo-determinant); with none dropped it computes the plain density.
        eigenvalues, cutoff = _read_eigenvalues(cov)
        if np.min(eigenvalues) <= cutoff:
            not_differentiable(f"{what} with allow_singular=True and a singular cov")
    return d


def _read_eigenvalues(cov):
    """The eigenvalues of the symmetric matrix scipy reads of ``cov`` (its lower
    triangle), and the cutoff at or below which scipy takes one for zero."""
    eigenvalues = np.linalg.eigvalsh(np.tril(cov) + np.tril(cov, -1).T)
    return eigenvalues, 1e6 * np.finfo(float).eps * np.max(np.abs(eigenvalues))


def mvn_entropy_dim(mean, cov):
    """The dimension of ``multivariate_normal.entropy(mean, cov)`` for a d x d ``cov``
    (scipy reads its lower triangle), raising as scipy does where that is not positive
    semidefinite; refused where it is singular (scipy's entropy then counts the
    eigenvalues above its cutoff only, a rank no derivative follows)."""
    what = "scipy.stats.multivariate_normal.entropy"
    if np.ndim(cov) != 2 or np.shape(cov)[0] != np.shape(cov)[1]:
        not_differentiable(f"{what} with cov other than a d x d matrix")
    d = np.shape(cov)[0]
    if mean is not None and np.size(mean) not in (1, d):
        raise ValueError(f"Array 'mean' must be a vector of length {d}.")
    eigenvalues, cutoff = _read_eigenvalues(cov)
    if np.min(eigenvalues) < -cutoff:
        raise ValueError("the input matrix must be symmetric positive semidefinite")
    if np.min(eigenvalues) <= cutoff:
        not_differentiable(f"{what} of a singular cov")
    return d


def mvn_logpdf_grad(g, x, mean, cov, allow_singular, which, lead):
    """Adjoint of ``scipy.stats.multivariate_normal.logpdf(x, mean, cov)`` for ``x``
    (``which`` 0), ``mean`` (1) or ``cov`` (2); ``g`` has the result's shape (scipy
    squeezes it: ``x``'s shape but its last axis, with axes of size 1 dropped) after
    ``lead`` axes of seed rows.

    ``logpdf = -(d log 2 pi + log det cov + r^T cov^-1 r) / 2`` per point, ``r = x - mean``:
    with ``s = cov^-1 r``, the slopes are ``-s`` in ``x``, ``s`` in ``mean`` and
    ``(s s^T - cov^-1) / 2`` in ``cov``, folded onto the lower triangle, the one
    scipy reads (``fold_symmetric``).
    """
    d = mvn_check(x, mean, cov, allow_singular)
    rows = np.shape(g)[:lead]
    sym = np.tril(cov) + np.matrix_transpose(np.tril(cov, -1))
    if mean is None:
        r = x
    else:
        r = x - mean
    points = np.reshape(r, (-1, d))
    weights = np.reshape(g, rows + (np.shape(points)[0],))
    solved = np.matrix_transpose(np.linalg.solve(sym, np.matrix_transpose(points)))
    if which == 0:
        return np.reshape(-np.expand_dims(weights, -1) * solved, rows + np.shape(x))
    if which == 1:
        return np.einsum("...i,ij->...j", weights, solved)
    outer = np.einsum("...i,ij,ik->...jk", weights, solved, solved)
    spread = np.reshape(np.sum(weights, axis=-1), rows + (1, 1)) * np.linalg.inv(sym)
    return fold_symmetric(0.5 * (outer - spread), True)


def mvn_logpdf_tangent(x, x_dot, mean, mean_dot, cov, cov_dot, allow_singular, ans):
    """Tangent of ``multivariate_normal.logpdf`` (shaped like its result, ``ans``):
    ``-s . (x_dot - mean_dot) + (s^T C s - tr(cov^-1 C)) / 2`` per point, ``C`` the
    symmetric matrix ``cov_dot``'s lower triangle stands for."""
    d = mvn_check(x, mean, cov, allow_singular)
    sym = np.tril(cov) + np.matrix_transpose(np.tril(cov, -1))
    if mean is None:
        r = x
    else:
        r = x - mean
    points = np.reshape(r, (-1, d))
    solved = np.matrix_transpose(np.linalg.solve(sym, np.matrix_transpose(points)))
    if mean is None:
        moved = x_dot + np.zeros(np.shape(x))
    else:
        moved = x_dot - mean_dot + np.zeros(np.shape(x))
    moved = np.reshape(moved, (-1, d))
    stretch = np.tril(cov_dot) + np.matrix_transpose(np.tril(cov_dot, -1))
    per_point = -np.sum(solved * moved, axis=-1) + 0.5 * (
        np.einsum("ij,jk,ik->i", solved, stretch, solved)
        - np.trace(np.linalg.solve(sym, stretch)))
    return np.reshape(per_point, np.shape(ans))


def dirichlet_check(x, alpha):
    """Whether ``x`` gives all ``len(alpha)`` components along its first axis (False:
    all but the last, which scipy completes as one minus their sum)."""
    if np.ndim(alpha) != 1 or np.ndim(x) == 0:
        not_differentiable("scipy.stats.dirichlet.logpdf/pdf with alpha not a vector or x "
                           "a scalar")
    return np.shape(x)[0] == np.shape(alpha)[0]


def dirichlet_log_slopes(a, parts):
    """d (a - 1) log x / dx = (a - 1) / x, and 0 where x == 0 (scipy takes x == 0 for
    a == 1, where the term is 0; for a > 1 the log density is -inf there). (Masked
    on x, not on a - 1: the slope's own slope in a is 1 / x, also at a == 1.)"""
    positive = parts > 0
    return np.where(positive, (a - 1.0) / np.where(positive, parts, 1.0), 0.0)


def dirichlet_logpdf_grad(g, x, alpha, which, lead):
    """Adjoint of ``scipy.stats.dirichlet.logpdf(x, alpha)`` for ``x`` (``which`` 0) or
    ``alpha`` (1); the components of ``x`` lie along its first axis, the points along
    the others (``g`` has their shape, squeezed as scipy squeezes the result, after
    ``lead`` axes of seed rows).

    ``logpdf = sum_i (alpha_i - 1) log x_i - log B(alpha)``: the slopes are
    ``(alpha_i - 1) / x_i`` in ``x`` and
    ``log x_i - digamma(alpha_i) + digamma(sum alpha)`` in ``alpha``. Given all but
    the last component, that last is ``1 - sum x`` and its slope is taken off the
    others'.
    """
    full = dirichlet_check(x, alpha)
    rows = np.shape(g)[:lead]
    k = np.shape(alpha)[0]
    a = np.reshape(alpha, (k, 1))
    parts = np.reshape(x, (np.shape(x)[0], -1))
    if not full:
        parts = np.concatenate([parts, 1.0 - np.sum(parts, axis=0, keepdims=True)], axis=0)
    weights = np.reshape(g, rows + (1, np.shape(parts)[1]))
    if which == 0:
        slopes = weights * dirichlet_log_slopes(a, parts)
        if not full:
            slopes = slopes[..., :k - 1, :] - slopes[..., k - 1:, :]
        return np.reshape(slopes, rows + np.shape(x))
    scores = np.log(parts) - digamma(a) + digamma(np.sum(alpha))
    return np.sum(weights * scores, axis=-1)


def dirichlet_logpdf_tangent(x, x_dot, alpha, alpha_dot, ans):
    """Tangent of ``dirichlet.logpdf`` (shaped like its result, ``ans``): the slopes of
    ``dirichlet_logpdf_grad`` summed against the tangents over the components."""
    full = dirichlet_check(x, alpha)
    k = np.shape(alpha)[0]
    a = np.reshape(alpha, (k, 1))
    parts = np.reshape(x, (np.shape(x)[0], -1))
    moved = np.reshape(x_dot + np.zeros(np.shape(x)), np.shape(parts))
    if not full:
        parts = np.concatenate([parts, 1.0 - np.sum(parts, axis=0, keepdims=True)], axis=0)
        moved = np.concatenate([moved, -np.sum(moved, axis=0, keepdims=True)], axis=0)
    scores = np.log(parts) - digamma(a) + digamma(np.sum(alpha))
    stretch = np.reshape(alpha_dot + np.zeros(k), (k, 1))
    total = np.sum(dirichlet_log_slopes(a, parts) * moved + scores * stretch, axis=0)
    return np.reshape(total, np.shape(ans))
