"""``scipy.special``, when SciPy is installed (optional, never required): logsumexp
(``return_sign=True`` too: the sign has no gradient), expit, log_expit, logit, softmax,
log_softmax, ndtr, log_ndtr, ndtri, erfcx, loggamma (real x), log1p, expm1, cosm1,
gamma, rgamma, gammaln, digamma (psi),
polygamma, multigammaln, gammainc, gammaincc, erf, erfc, erfinv, erfcinv, xlogy, xlog1py,
the Bessel functions i0, i1, i0e, i1e, j0, j1, y0, y1, iv, ive, jv, yv, yn (in ``x``);
gammasgn is piecewise constant (NONDIFF).

Not differentiated: the orders of the Bessel functions and ``gammainc``'s ``a``, whose
derivatives have no closed form (a differentiated value there is refused at compile
time), and the integers ``polygamma``'s ``n``, ``yn``'s ``n``, ``multigammaln``'s ``d``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/special.py``; they reach
SciPy through ``_sg`` (grad expressions see ``np``, ``math`` and ``_sg``).
"""
from .entry import Rule, params, with_array_operands

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
INTERNAL = set()  # called by the rules' helpers, not by users
# Holomorphic where SciPy computes them for complex arguments (in ``x``; the orders
# ``v`` stay real), their grads ``g`` times expressions with real coefficients:
# ``rules/complexes.py`` conjugates the operands. Not here: ``digamma`` (its slope,
# zeta(2, z), SciPy computes for real z only), ``ive`` (exp(-|Re z|) is not
# holomorphic), and the functions SciPy computes for real arguments only.
HOLOMORPHIC = set()
# Forward mode's tangents written out (rules/tangents.py).
EXPLICIT = {}


def _with_special(_special):
    """The entries, keyed on ``scipy.special``'s functions: added when a program has
    imported it (``rules/optional.py``), so that ``import srcgrad`` never imports SciPy."""
    _UNARY = dict(rank="elementwise", broadcast=True)
    TABLE.update({
        _special.expit: Rule("x", **_UNARY, x="g * ans * (1.0 - ans)"),
        _special.log_expit: Rule("x", **_UNARY, x="g * _sg.expit(-x)"),
        _special.erf: Rule("x", **_UNARY, x="g * _sg.erf_slope(x)"),
        _special.erfc: Rule("x", **_UNARY, x="-g * _sg.erf_slope(x)"),
        _special.gammaln: Rule("x", **_UNARY, x="g * _sg.digamma(x)"),
        _special.digamma: Rule("x", **_UNARY, x="g * _sg.polygamma_slope(0, x)"),
        # polygamma is Python over the Hurwitz zeta ufunc: slopes go through zeta.
        _special.polygamma: Rule("n, x", **_UNARY, nograd={"n"},
                                 x="g * _sg.polygamma_slope(n, x)"),
        # (No derivative in the order ``x``: SciPy has no d/ds zeta(s, q). A value
        # differentiated there is refused, not given a zero.)
        _special.zeta: Rule("x, q=None", **_UNARY, q="g * _sg.zeta_slope(x, q)"),
        # xlogy(0, y) is 0 for every y: no slope in y where x is 0 (ratio_where).
        _special.xlogy: Rule("x, y", **_UNARY, x="g * np.log(y)", y="g * _sg.ratio_where(x, y)"),
        _special.xlog1py: Rule("x, y", **_UNARY, x="g * np.log1p(y)",
                               y="g * _sg.ratio_where(x, 1.0 + y)"),
        _special.gamma: Rule("x", **_UNARY, x="g * ans * _sg.digamma(x)"),
        _special.rgamma: Rule("x", **_UNARY, x="-g * ans * _sg.digamma(x)"),
        _special.multigammaln: Rule("a, d", **_UNARY, nograd={"d"},
                                    a="g * _sg.multigammaln_slope(a, d)"),
        # (No closed form in a: a differentiated a is refused.)
        _special.gammainc: Rule("a, x", **_UNARY, x="g * _sg.gammainc_slope(a, x)"),
        _special.gammaincc: Rule("a, x", **_UNARY, x="-g * _sg.gammainc_slope(a, x)"),
        _special.erfinv: Rule("x", **_UNARY, x="g * _sg.erfinv_slope(ans)"),
        _special.erfcinv: Rule("x", **_UNARY, x="-g * _sg.erfinv_slope(ans)"),
        _special.logit: Rule("x", **_UNARY, x="g / (x * (1.0 - x))"),
        # The normal distribution's function, its logarithm and its inverse; the scaled
        # complementary error function exp(x^2) erfc(x).
        _special.ndtr: Rule("x", **_UNARY, x="g * _sg.normal_density(x)"),
        _special.log_ndtr: Rule("x", **_UNARY, x="g * _sg.log_ndtr_slope(x, ans)"),
        _special.ndtri: Rule("x", **_UNARY, x="g * _sg.ndtri_slope(ans)"),
        _special.erfcx: Rule("x", **_UNARY, x="g * (2.0 * x * ans - 2.0 / math.sqrt(math.pi))"),
        # Real x only (complex values are refused): NaN at x <= 0, as its value.
        _special.loggamma: Rule("x", **_UNARY, x="g * _sg.loggamma_slope(x)"),
        _special.log1p: Rule("x", **_UNARY, x="g / (1.0 + x)"),
        _special.expm1: Rule("x", **_UNARY, x="g * (ans + 1.0)"),
        _special.cosm1: Rule("x", **_UNARY, x="-g * np.sin(x)"),
        # Bessel functions, in x: the orders v are real (no closed form in v: a
        # differentiated v is refused); yn's n is an integer.
        _special.i0: Rule("x", **_UNARY, x="g * _sg.i1(x)"),
        _special.i1: Rule("x", **_UNARY, x="g * _sg.i1_slope(x)"),
        _special.i0e: Rule("x", **_UNARY, x="g * (_sg.i1e(x) - np.sign(x) * ans)"),
        _special.i1e: Rule("x", **_UNARY, x="g * _sg.i1e_slope(x)"),
        _special.j0: Rule("x", **_UNARY, x="-g * _sg.j1(x)"),
        _special.j1: Rule("x", **_UNARY, x="g * 0.5 * (_sg.j0(x) - _sg.jv(2.0, x))"),
        _special.y0: Rule("x", **_UNARY, x="-g * _sg.y1(x)"),
        _special.y1: Rule("x", **_UNARY, x="g * 0.5 * (_sg.y0(x) - _sg.yv(2.0, x))"),
        _special.iv: Rule("v, x", **_UNARY,
                          x="g * 0.5 * (_sg.iv(v - 1.0, x) + _sg.iv(v + 1.0, x))"),
        _special.ive: Rule("v, x", **_UNARY,
                           x="g * (0.5 * (_sg.ive(v - 1.0, x) + _sg.ive(v + 1.0, x)) "
                             "- np.sign(x) * ans)"),
        _special.jv: Rule("v, x", **_UNARY,
                          x="g * 0.5 * (_sg.jv(v - 1.0, x) - _sg.jv(v + 1.0, x))"),
        _special.yv: Rule("v, x", **_UNARY,
                          x="g * 0.5 * (_sg.yv(v - 1.0, x) - _sg.yv(v + 1.0, x))"),
        _special.yn: Rule("n, x", **_UNARY, nograd={"n"},
                          x="g * 0.5 * (_sg.yn(n - 1, x) - _sg.yn(n + 1, x))"),
        _special.logsumexp: Rule("a, axis=None, b=None, keepdims=False, return_sign=False",
                                 a="_sg.logsumexp_grad(g, ans, a, axis, b, keepdims, "
                                   "return_sign)",
                                 b="_sg.logsumexp_b_grad(g, ans, a, axis, b, keepdims, "
                                   "return_sign)",
                                 rows={"a": "_sg.logsumexp_rows(g, ans, a, axis, b, keepdims, "
                                            "return_sign)",
                                       "b": "_sg.logsumexp_b_rows(g, ans, a, axis, b, keepdims, "
                                            "return_sign)"}),
        _special.softmax: Rule("x, axis=None", rank="same", x="_sg.softmax_grad(g, ans, axis)",
                               rows={"x": "_sg.softmax_rows(g, ans, axis)"}),
        _special.log_softmax: Rule("x, axis=None", rank="same",
                                   x="_sg.log_softmax_grad(g, ans, axis)",
                                   rows={"x": "_sg.log_softmax_rows(g, ans, axis)"}),
    })
    # scipy.special.zeta is Python over this ufunc, which the slopes call.
    from scipy.special._ufuncs import _zeta
    TABLE[_zeta] = Rule("x, q", **_UNARY, q="g * _sg.zeta_slope(x, q)")
    # Any argument of these ufuncs may be a list or tuple (an order ``v`` given as
    # ``[0.0, 1.0]``): the grads read them as arrays where they compute with them.
    for _fn, _rule in list(TABLE.items()):
        if _rule.broadcast and len(params(_rule)) > 1:
            TABLE[_fn] = with_array_operands(_rule, helpers=True)
    INTERNAL.add(_zeta)
    # Piecewise constant: the sign of gamma(x).
    NONDIFF.add(_special.gammasgn)
    HOLOMORPHIC.update({_special.erf, _special.erfc, _special.gamma, _special.rgamma,
                        _special.xlogy, _special.xlog1py, _special.iv, _special.jv, _special.yv})
    EXPLICIT.update({
        _special.softmax: "ans * (x_dot - np.sum(ans * x_dot, axis=axis, keepdims=True))",
        _special.log_softmax: "x_dot - np.sum(np.exp(ans) * x_dot, axis=axis, keepdims=True)",
        _special.logsumexp: "_sg.logsumexp_sign_tangent(a, a_dot, axis, b, b_dot, keepdims, ans) "
                            "if return_sign else _sg.logsumexp_tangent(a, a_dot, axis, b, b_dot, "
                            "keepdims, return_sign)",
    })


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.special": _with_special}
