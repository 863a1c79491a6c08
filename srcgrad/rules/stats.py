"""``scipy.stats`` distributions, when SciPy is installed (optional, never required).

The methods are bound methods of the distributions scipy.stats defines once
(``scipy.stats.norm`` is an ``rv_continuous`` instance): the table is keyed on
``scipy.stats.norm.pdf`` and the like, a bound method that equals another only
for the same instance, so a user's own ``rv_continuous`` subclass (or a frozen
``norm(0, 1)``) has no rule and is refused, never given norm's.

- Continuous, with ``loc`` and ``scale``: ``norm``, ``t`` (``df``), ``cauchy``,
  ``logistic``, ``laplace``, ``expon``, ``gamma`` (``a``), ``chi2`` (``df``), ``beta``
  (``a``, ``b``), ``lognorm`` (``s``). Methods ``pdf``, ``logpdf``, ``cdf``, ``logcdf``,
  ``sf``, ``logsf`` in ``x``, ``loc`` and ``scale``, ``ppf`` and ``isf`` in ``q``,
  ``loc`` and ``scale``; ``pdf`` and ``logpdf`` in the shape parameters too. The
  others' derivatives in a shape parameter have no closed form (the incomplete
  gamma and beta functions in their parameters): a differentiated shape there is
  refused at compile time, naming it.
- ``poisson``: ``pmf``, ``logpmf``, ``cdf``, ``logcdf``, ``sf``, ``logsf`` in ``mu``;
  piecewise constant in ``k`` and ``loc``.
- ``multivariate_normal``: ``pdf``, ``logpdf`` in ``x``, ``mean``, ``cov`` (a d x d
  matrix, of which scipy reads the lower triangle), ``entropy`` in ``cov`` (written
  out: ``mvn_entropy``); ``dirichlet``: ``pdf``, ``logpdf`` in ``x`` and ``alpha``.

All grad expressions of a continuous family come from three helpers of its
standard density (``runtime/stats.py``): with ``z = (x - loc) / scale`` and
``pdf(x) = f(z) / scale``, the slopes of ``log pdf`` are ``f'/f (z) / scale`` in
``x``, its negative in ``loc``, ``-(1 + z f'/f (z)) / scale`` in ``scale``; those of
``cdf`` are ``pdf(x)``, ``-pdf(x)`` and ``-pdf(x) z``; ``logcdf``'s are ``cdf``'s over
the cdf, ``sf`` and ``logsf`` the same negated, ``pdf``'s ``logpdf``'s times the pdf.
The ppf's are those of the inverse: ``1 / pdf(ans)`` in ``q``, 1 in ``loc``, ``z`` in
``scale``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
"""
import math

import numpy as np

from .. import runtime as _sg
from ..runtime import stats as _rt
from .entry import Rule, array_operands
from .selection import lead_rule

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
# For forward mode (rules/tangents.py): entries whose grads are elementwise in ``g``,
# and the tangents written out for the others.
ELEMENTWISE = set()
EXPLICIT = {}

_Z = "(x - loc) / scale"

# Continuous families: their shape parameters, and the open support of the
# standard density (None: unbounded), where the scale's slope has its ``1``.
_CONTINUOUS = {
    "norm": ((), None),
    "t": (("df",), None),
    "cauchy": ((), None),
    "logistic": ((), None),
    "laplace": ((), None),
    "expon": ((), (0.0, None)),
    "gamma": (("a",), (0.0, None)),
    "chi2": (("df",), (0.0, None)),
    "beta": (("a", "b"), (0.0, 1.0)),
    "lognorm": (("s",), (0.0, None)),
}


def _continuous(name, shapes, support):
    """The entries of one family's methods, ``{method name: Rule}``."""
    args = ", ".join((_Z,) + shapes)
    score = f"_sg.{name}_score({args})"
    log_pdf = f"(_sg.{name}_log_density({args}) - np.log(scale))"
    one = "1.0" if support is None else f"_sg.within({_Z}, {support[0]}, {support[1]})"

    def log_slopes(g):
        return dict(x=f"{g} * {score} / scale", loc=f"-{g} * {score} / scale",
                    scale=f"-{g} * ({one} + {_Z} * {score}) / scale",
                    **{s: f"{g} * _sg.{name}_score_{s}({args})" for s in shapes})

    def mass_slopes(density, sign):
        """The slopes of a cdf (``sign`` "") or sf ("-"), ``density`` the pdf at x
        (over the probability for their logarithms)."""
        flip = "" if sign == "-" else "-"
        return dict(x=f"{sign}g * {density}", loc=f"{flip}g * {density}",
                    scale=f"{flip}g * {density} * {_Z}")

    def inverse_slopes(sign):
        """The slopes of the ppf (``sign`` "") or isf ("-"): ``ans`` is the quantile."""
        at = ", ".join(("(ans - loc) / scale",) + shapes)
        density = f"np.exp(_sg.{name}_log_density({at}) - np.log(scale))"
        return dict(q=f"{sign}g / {density}", loc="g", scale="g * (ans - loc) / scale")

    signature = ", ".join(("x",) + shapes + ("loc=0.0", "scale=1.0"))
    quantile = signature.replace("x, ", "q, ", 1)
    ratio = f"_sg.density_ratio({log_pdf}, ans)"
    forms = dict(
        logpdf=(signature, log_slopes("g")),
        pdf=(signature, log_slopes("g * ans")),
        cdf=(signature, mass_slopes(f"np.exp({log_pdf})", "")),
        sf=(signature, mass_slopes(f"np.exp({log_pdf})", "-")),
        logcdf=(signature, mass_slopes(ratio, "")),
        logsf=(signature, mass_slopes(ratio, "-")),
        ppf=(quantile, inverse_slopes("")),
        isf=(quantile, inverse_slopes("-")),
    )
    # (Any argument may be a list or tuple, which scipy reads as an array.)
    names = {"x", "q", "loc", "scale", *shapes}
    return {method: Rule(sig, rank="elementwise", broadcast=True,
                         **{p: array_operands(e, names, helpers=True) for p, e in grads.items()})
            for method, (sig, grads) in forms.items()}


def _poisson():
    """``poisson``'s entries: slopes in ``mu`` only (counts are piecewise constant)."""
    score = "_sg.poisson_score(k - loc, mu)"
    # d P(K <= k) / d mu = -P(K = floor(k)): the sum of the masses telescopes.
    last = "_sg.poisson_log_mass(np.floor(k - loc), mu)"
    ratio = f"_sg.density_ratio({last}, ans)"
    grads = dict(logpmf=f"g * {score}", pmf=f"g * ans * {score}",
                 cdf=f"-g * np.exp({last})", sf=f"g * np.exp({last})",
                 logcdf=f"-g * {ratio}", logsf=f"g * {ratio}")
    return {method: Rule("k, mu, loc=0", rank="elementwise", broadcast=True,
                         nograd={"k", "loc"}, mu=array_operands(mu, {"k", "mu", "loc"}, True))
            for method, mu in grads.items()}


def _vector_densities(stats):
    """``multivariate_normal`` and ``dirichlet``: ``{bound method: Rule}`` and their
    tangents. The pdfs' slopes are the logpdfs' times the pdf (``g * ans``)."""
    mvn, dirichlet = stats.multivariate_normal, stats.dirichlet
    table, tangents = {}, {}
    for method, g in (("logpdf", "g"), ("pdf", "g * ans")):
        grad = f"_sg.mvn_logpdf_grad({g}, x, mean, cov, allow_singular, {{which}}, {{{{lead}}}})"
        table[getattr(mvn, method)] = lead_rule(
            "x, mean=None, cov=1, allow_singular=False",
            x=grad.format(which=0), mean=grad.format(which=1), cov=grad.format(which=2))
        grad = f"_sg.dirichlet_logpdf_grad({g}, x, alpha, {{which}}, {{{{lead}}}})"
        table[getattr(dirichlet, method)] = lead_rule(
            "x, alpha", x=grad.format(which=0), alpha=grad.format(which=1))
        times = "" if method == "logpdf" else "ans * "
        tangents[getattr(mvn, method)] = times + (
            "_sg.mvn_logpdf_tangent(x, x_dot, mean, mean_dot, cov, cov_dot, allow_singular, ans)")
        tangents[getattr(dirichlet, method)] = times + (
            "_sg.dirichlet_logpdf_tangent(x, x_dot, alpha, alpha_dot, ans)")
    return table, tangents


def mvn_entropy(mean=None, cov=1):
    """``multivariate_normal.entropy``, written out (``rewrites.py``): half of
    ``d (log 2 pi + 1) + log det cov``, of the matrix scipy reads (its lower triangle)."""
    d = _sg.mvn_entropy_dim(mean, cov)
    full = np.tril(cov) + np.transpose(np.tril(cov, -1))
    return 0.5 * (d * (math.log(2.0 * math.pi) + 1.0) + np.linalg.slogdet(full)[1])


def _with_stats(stats):
    """The entries, keyed on ``scipy.stats``' distributions: added when a program has
    imported it (``rules/optional.py``), so that ``import srcgrad`` never imports SciPy."""
    for name, (shapes, support) in _CONTINUOUS.items():
        dist = getattr(stats, name)
        for method, rule in _continuous(name, shapes, support).items():
            TABLE[getattr(dist, method)] = rule
    for method, rule in _poisson().items():
        TABLE[getattr(stats.poisson, method)] = rule
    ELEMENTWISE.update(TABLE)
    table, tangents = _vector_densities(stats)
    TABLE.update(table)
    EXPLICIT.update(tangents)
    NONDIFF.update({_rt.within, _rt.mvn_check, _rt.dirichlet_check, _rt.mvn_entropy_dim})


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.stats": _with_stats}
