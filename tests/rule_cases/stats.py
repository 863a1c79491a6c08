"""Rule cases of ``srcgrad/rules/stats.py`` (see ``tests/rule_cases/__init__.py``).

Inputs inside each support, away from its ends. SciPy is in the test extra; without
it the rules are absent, and so are these."""
import numpy as np

try:
    import scipy.stats as st
except ImportError:
    st = None

QUANTILES = np.array([0.05, 0.3, 0.55, 0.9])
UNIT = np.array([0.15, 0.4, 0.6, 0.85])
SPD = np.array([[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.2]])


def _family(t, name, shapes, x, bounded):
    """Every method of one continuous family: arrays broadcasting, Python floats. A
    ``bounded`` support gets a loc and scales that keep ``(x - loc) / scale`` inside."""
    C, R, P = t.C, t.R, t.P
    dist = getattr(st, name)
    loc, scale = (-0.1, np.array([[1.2], [1.5], [2.0]])) if bounded else (R(4), P(3, 1))
    out = []
    for method in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"):
        fn = getattr(dist, method)
        out.append(C(fn, x, *shapes, id=f"{name}"))
        out.append(C(fn, x, *shapes, loc, scale, id=f"{name}-loc-scale"))
        out.append(C(fn, x, *shapes, loc=-0.1 if bounded else 0.1, scale=1.3,
                     id=f"{name}-keywords"))
    for method in ("ppf", "isf"):
        fn = getattr(dist, method)
        out.append(C(fn, QUANTILES, *shapes, id=name))
        out.append(C(fn, QUANTILES, *shapes, loc=R(4), scale=P(3, 1), id=f"{name}-loc-scale"))
    return out


def cases(t):
    if st is None:
        return []
    C, R, P = t.C, t.R, t.P
    positive = np.array([0.4, 1.1, 1.9, 3.2])
    out = []
    out += _family(t, "norm", (), R(4), False)
    out += _family(t, "t", (P(4),), R(4), False)
    out += _family(t, "cauchy", (), R(4), False)
    out += _family(t, "logistic", (), R(4), False)
    out += _family(t, "laplace", (), t.NZ(4), False)
    out += _family(t, "expon", (), positive, True)
    out += _family(t, "gamma", (P(4),), positive, True)
    out += _family(t, "chi2", (np.array([1.5, 2.0, 3.0, 5.5]),), positive, True)
    out += _family(t, "lognorm", (P(4),), positive, True)
    out += _family(t, "beta", (P(4), P(4)), UNIT, True)
    # Off the support: no slope (the density is 0 whatever the arguments).
    off = np.array([-1.5, -0.3, 0.7, 2.0])
    # (Where the log is -inf central differences are nan: those are tests/test_stats_rules.py's.)
    for method in ("pdf", "cdf", "sf", "logsf"):
        out.append(C(getattr(st.gamma, method), off, P(4), id="off-support"))
    counts = np.array([0.0, 1.0, 3.0, 7.0])
    for method in ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"):
        fn = getattr(st.poisson, method)
        out.append(C(fn, counts, P(4)))
        out.append(C(fn, np.array([[1.0, 2.0, 5.0], [4.0, 3.0, 2.0]]), P(2, 1), id="broadcast"))
        out.append(C(fn, counts + 1.0, t.FP, 1.0, id="loc"))
        if method in ("pmf", "cdf", "sf", "logsf"):
            # (Not a count, or below 0: the mass, or the cdf, is 0 whatever mu.)
            out.append(C(fn, np.array([-1.0, 2.5, -0.5, 3.0]), P(4), id="not-counts"))
    for method in ("pdf", "logpdf"):
        mvn, dirichlet = getattr(st.multivariate_normal, method), getattr(st.dirichlet, method)
        out.append(C(mvn, R(5, 3), R(3), SPD.copy()))
        out.append(C(mvn, R(3), R(3), SPD.copy(), id="one-point"))
        out.append(C(mvn, R(2, 4, 3), R(3), SPD.copy(), id="3d"))
        out.append(C(mvn, R(5, 3), cov=SPD.copy(), id="no-mean"))
        # All components given: x stays on the simplex only unmoved (alpha alone).
        out.append(C(dirichlet, np.array([0.2, 0.3, 0.5]), P(3), wrt=("alpha",)))
        out.append(C(dirichlet, np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]]), P(3),
                     wrt=("alpha",), id="points"))
        # All but the last: scipy completes it, so x moves freely.
        out.append(C(dirichlet, np.array([0.2, 0.3]), P(3), id="last-implied"))
        out.append(C(dirichlet, np.array([[0.2, 0.1], [0.3, 0.6]]), np.array([1.0, 2.5, 0.7]),
                     id="points-last-implied"))
    return out
