"""``scipy.special``, when SciPy is installed (optional, never required): logsumexp,
expit, log_expit, softmax, log_softmax, gammaln, digamma, polygamma, erf, erfc,
xlogy, xlog1py.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/special.py``; they reach
SciPy through ``_sg`` (grad expressions see ``np``, ``math`` and ``_sg``).
"""
from .entry import Rule

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()

try:
    import scipy.special as _special
except ImportError:  # SciPy absent: these rules are simply not there
    _special = None

if _special is not None:
    _UNARY = dict(rank="elementwise", broadcast=True)
    TABLE = {
        _special.expit: Rule("x", **_UNARY, x="g * ans * (1.0 - ans)"),
        _special.log_expit: Rule("x", **_UNARY, x="g * _sg.expit(-x)"),
        _special.erf: Rule("x", **_UNARY, x="g * _sg.erf_slope(x)"),
        _special.erfc: Rule("x", **_UNARY, x="-g * _sg.erf_slope(x)"),
        _special.gammaln: Rule("x", **_UNARY, x="g * _sg.digamma(x)"),
        _special.digamma: Rule("x", **_UNARY, x="g * _sg.polygamma_slope(0, x)"),
        # polygamma is Python over the Hurwitz zeta ufunc: slopes go through zeta.
        _special.polygamma: Rule("n, x", **_UNARY, nograd={"n"},
                                 x="g * _sg.polygamma_slope(n, x)"),
        _special.zeta: Rule("x, q=None", **_UNARY, nograd={"x"},
                            q="g * _sg.zeta_slope(x, q)"),
        # xlogy(0, y) is 0 for every y: no slope in y where x is 0 (ratio_where).
        _special.xlogy: Rule("x, y", **_UNARY, x="g * np.log(y)", y="g * _sg.ratio_where(x, y)"),
        _special.xlog1py: Rule("x, y", **_UNARY, x="g * np.log1p(y)",
                               y="g * _sg.ratio_where(x, 1.0 + y)"),
        _special.logsumexp: Rule("a, axis=None, b=None, keepdims=False, return_sign=False",
                                 nograd={"b"},
                                 a="_sg.logsumexp_grad(g, ans, a, axis, b, keepdims, "
                                   "return_sign)",
                                 rows={"a": "_sg.logsumexp_rows(g, ans, a, axis, b, keepdims, "
                                            "return_sign)"}),
        _special.softmax: Rule("x, axis=None", rank="same", x="_sg.softmax_grad(g, ans, axis)",
                               rows={"x": "_sg.softmax_rows(g, ans, axis)"}),
        _special.log_softmax: Rule("x, axis=None", rank="same",
                                   x="_sg.log_softmax_grad(g, ans, axis)",
                                   rows={"x": "_sg.log_softmax_rows(g, ans, axis)"}),
    }
    # scipy.special.zeta is Python over this ufunc, which the slopes call.
    from scipy.special._ufuncs import _zeta
    TABLE[_zeta] = Rule("x, q", **_UNARY, nograd={"x"}, q="g * _sg.zeta_slope(x, q)")
    INTERNAL = {_zeta}  # called by the rules' helpers, not by users
