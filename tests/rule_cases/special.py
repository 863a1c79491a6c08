"""Rule cases of ``srcgrad/rules/special.py`` (see ``tests/rule_cases/__init__.py``).

SciPy is in the test extra; without it the rules are absent, and so are these."""
import numpy as np

try:
    import scipy.special as sp
    from scipy.special._ufuncs import _zeta as zeta_ufunc
except ImportError:
    sp = None


def cases(t):
    if sp is None:
        return []
    C, R, P, U = t.C, t.R, t.P, t.U
    return [
        C(sp.expit, R(3, 4)), C(sp.expit, t.F, id="pyfloat"),
        C(sp.log_expit, R(3, 4)),
        C(sp.erf, R(5)), C(sp.erfc, R(5)),
        C(sp.gammaln, P(4)), C(sp.digamma, P(4)),
        C(sp.polygamma, 1, P(4)), C(sp.polygamma, 2, P(2, 3), id="n2"),
        C(sp.zeta, 3.0, P(4)), C(zeta_ufunc, 2.5, P(3), id="ufunc"),
        C(sp.xlogy, R(3), P(3)), C(sp.xlogy, R(2, 1), P(3), id="broadcast"),
        C(sp.xlog1py, R(3), P(3)),
        C(sp.logsumexp, R(3, 4)), C(sp.logsumexp, R(3, 4), axis=1, id="axis"),
        C(sp.logsumexp, R(3, 4), axis=0, keepdims=True, id="keepdims"),
        C(sp.logsumexp, R(3, 4), axis=1, b=P(3, 4), id="b"),
        C(sp.logsumexp, R(3, 4), axis=1, b=P(4), id="b-broadcast"),
        C(sp.softmax, R(3, 4), axis=-1), C(sp.softmax, R(5), id="all"),
        C(sp.log_softmax, R(3, 4), axis=1), C(sp.log_softmax, R(5), id="all"),
        # (Inside each domain, away from poles and kinks.)
        C(sp.gamma, P(4)), C(sp.gamma, np.array([-0.5, -1.5, -2.7]), id="negative"),
        C(sp.rgamma, P(4)), C(sp.rgamma, np.array([-0.5, -1.5, -2.7]), id="negative"),
        C(sp.multigammaln, np.array([1.6, 2.3, 3.1]), 3),
        C(sp.multigammaln, 2.7, 1, id="d1"),
        C(sp.gammainc, P(4), P(4)), C(sp.gammaincc, P(4), P(4)),
        C(sp.erfinv, U(4)), C(sp.erfcinv, np.array([0.2, 0.7, 1.0, 1.4, 1.8])),
        C(sp.logit, np.array([0.1, 0.35, 0.5, 0.8, 0.95])),
        C(sp.i0, R(4)), C(sp.i1, R(4)), C(sp.i1, np.array([0.0, 1.0]), id="at-0"),
        C(sp.i0e, t.NZ(4)), C(sp.i1e, t.NZ(4)),
        C(sp.j0, R(4)), C(sp.j1, R(4)), C(sp.y0, P(4)), C(sp.y1, P(4)),
        C(sp.iv, 1.5, P(4)), C(sp.iv, 2.0, R(4), id="integer-order"),
        C(sp.ive, 0.5, P(4)), C(sp.ive, 1.0, t.NZ(4), id="integer-order"),
        C(sp.jv, 2.5, P(4)), C(sp.jv, 1.0, R(4), id="integer-order"),
        C(sp.yv, 0.5, P(4)), C(sp.yn, 2, P(4)),
    ]
