"""Rule cases of ``srcgrad/rules/special.py`` (see ``tests/rule_cases/__init__.py``).

SciPy is in the test extra; without it the rules are absent, and so are these."""
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
        C(sp.logsumexp, R(3, 4), axis=1, b=P(3, 4), wrt=("a",), id="b"),
        C(sp.softmax, R(3, 4), axis=-1), C(sp.softmax, R(5), id="all"),
        C(sp.log_softmax, R(3, 4), axis=1), C(sp.log_softmax, R(5), id="all"),
    ]
