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
    ] + _issue_13(t)


def _issue_13(t):
    """Beta to Box-Cox (issue 13): inside each domain, with negative values, broadcasting,
    and the points where a slope changes form (exprel, ellipk, ellipe and spence switch
    to series near 0 and 1; boxcox at lmbda == 0; huber's two pieces)."""
    C, R, P, U, NZ = t.C, t.R, t.P, t.U, t.NZ
    a = np.array
    out = [
        C(sp.beta, P(4), P(4)), C(sp.beta, P(3, 1), P(4), id="broadcast"),
        C(sp.beta, a([-0.5, -1.5, 2.3]), a([1.2, 0.7, -0.3]), id="negative"),
        C(sp.betaln, P(4), P(4)),
        C(sp.betaln, a([-0.5, -1.5, 2.3]), a([1.2, 0.7, -0.3]), id="negative"),
        C(sp.betainc, P(4), P(4), a([0.1, 0.35, 0.6, 0.9])),
        C(sp.betainc, 1.0, a([1.0, 3.5]), a([[0.2], [0.7]]), id="a1-broadcast"),
        C(sp.k0, P(4)), C(sp.k1, P(4)), C(sp.k0e, P(4)), C(sp.k1e, P(4)),
        C(sp.k0, a([0.01, 5.0, 30.0]), id="wide"), C(sp.k1e, a([0.05, 8.0]), id="wide"),
        C(sp.kv, 1.5, P(4)), C(sp.kv, a([[0.0], [-0.7], [2.0]]), P(4), id="orders"),
        C(sp.kve, 0.5, P(4)), C(sp.kve, a([[0.0], [3.0]]), a([0.2, 4.0, 20.0]), id="orders"),
        C(sp.erfi, R(5)), C(sp.dawsn, R(5)), C(sp.dawsn, a([-6.0, 0.0, 9.0]), id="wide"),
        C(sp.exprel, R(5)),
        C(sp.exprel, a([-0.09, -1e-3, 0.0, 0.05, 0.0999, 0.1001, 0.7, 1.0001, -35.0, 60.0]),
          id="branches"),
        C(sp.exp10, R(4)), C(sp.exp2, R(4)), C(sp.cbrt, NZ(5)),
        C(sp.sindg, a([-200.0, -30.0, 0.0, 45.0, 90.0, 271.0])),
        C(sp.cosdg, a([-200.0, -30.0, 0.0, 45.0, 90.0, 271.0])),
        C(sp.tandg, a([-70.0, -10.0, 0.0, 45.0, 150.0])),
        C(sp.cotdg, a([-100.0, 10.0, 45.0, 90.0, 135.0])),
        C(sp.radian, R(3), R(3), R(3)), C(sp.radian, R(2, 1), 30.0, R(3), id="broadcast"),
        C(sp.rel_entr, P(4), P(4)), C(sp.rel_entr, P(3, 1), P(2), id="broadcast"),
        # (x == 0: the value is 0 along y; x < 0 is inf, so central differences in x
        # cross the domain there: y alone.)
        C(sp.rel_entr, a([0.0, 0.5, 0.0]), a([1.3, 0.7, 2.0]), wrt=("y",), id="x-zero"),
        C(sp.kl_div, P(4), P(4)), C(sp.kl_div, P(3, 1), P(2), id="broadcast"),
        C(sp.kl_div, a([0.0, 0.5, 0.0]), a([1.3, 0.7, 2.0]), wrt=("y",), id="x-zero"),
        C(sp.huber, P(6), R(6)), C(sp.huber, 1.0, a([-3.0, -0.5, 0.2, 2.5]), id="pieces"),
        C(sp.huber, a([[0.5], [2.0]]), a([-1.0, 0.3, 1.7]), id="broadcast"),
        C(sp.pseudo_huber, P(4), R(4)),
        C(sp.pseudo_huber, a([0.3, 5.0, 1e-3, 40.0]), a([2.0, -0.1, 0.5, -1e-4]), id="scales"),
        C(sp.poch, P(4), P(4)),
        C(sp.poch, a([-0.5, -1.3, 2.5, 0.7]), a([0.3, -0.4, -1.7, 0.0]), id="negative"),
        C(sp.hyp1f1, 1.5, 2.3, R(4)),
        C(sp.hyp1f1, a([-1.5, 0.5, 2.0]), a([0.7, 3.1, 1.2]), R(2, 3), id="broadcast"),
        C(sp.hyp2f1, 0.5, 1.5, 2.5, U(4)),
        C(sp.hyp2f1, a([-1.5, 0.5]), 2.0, a([[0.7], [3.1]]), U(2), id="broadcast"),
        C(sp.ellipk, U(5)), C(sp.ellipe, U(5)),
        C(sp.ellipk, a([-3.0, -0.06, -1e-3, 0.0, 1e-4, 0.03, 0.049, 0.051, 0.99]), id="near-0"),
        C(sp.ellipe, a([-3.0, -0.06, -1e-3, 0.0, 1e-4, 0.03, 0.049, 0.051, 0.99]), id="near-0"),
        C(sp.spence, P(4)),
        C(sp.spence, a([0.01, 0.9995, 1.0, 1.0004, 1.002, 30.0]), id="near-1"),
        C(sp.owens_t, R(4), R(4)), C(sp.owens_t, R(3, 1), R(2), id="broadcast"),
        C(sp.owens_t, a([0.0, 0.0, 2.0]), a([0.0, 1.5, 0.0]), id="zeros"),
        C(sp.stdtr, P(4), R(4)), C(sp.stdtr, a([[1.0], [30.0]]), R(3), id="broadcast"),
        C(sp.chdtr, P(4), P(4)), C(sp.chdtrc, P(4), P(4)),
        C(sp.chdtr, a([2.0, 5.0, 11.0]), a([0.1, 4.0, 12.0]), id="wide"),
        C(sp.gdtr, P(4), P(4), P(4)), C(sp.gdtrc, P(4), P(4), P(4)),
        C(sp.gdtr, P(2, 1), 1.0, P(3), id="b1-broadcast"),
        C(sp.boxcox, P(4), R(4)), C(sp.boxcox, P(4), 0.0, id="lmbda-0"),
        C(sp.boxcox, a([0.3, 1.7, 2.5, 1.0, 0.8]), a([0.0, 1e-3, -0.05, 2.0, -1.5]),
          id="lmbdas"),
        C(sp.boxcox1p, U(4), R(4)), C(sp.boxcox1p, U(4), 0.0, id="lmbda-0"),
        C(sp.boxcox1p, a([0.0, -0.5, 3.0]), a([0.5, 0.0, -1.2]), id="x-zero"),
        C(sp.inv_boxcox, U(4), U(4)), C(sp.inv_boxcox, R(4), 0.0, id="lmbda-0"),
        C(sp.inv_boxcox1p, U(4), U(4)), C(sp.inv_boxcox1p, R(4), 0.0, id="lmbda-0"),
        C(sp.inv_boxcox1p, a([1e-12, -0.3, 2.0]), a([0.5, 1e-9, -0.2]), id="small"),
    ]
    # (Each where this SciPy has it: betaincc is SciPy 1.11's.)
    if hasattr(sp, "betaincc"):
        out.append(C(sp.betaincc, P(4), P(4), a([0.1, 0.35, 0.6, 0.9])))
    return out
