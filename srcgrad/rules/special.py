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


def _with_special(special):
    """The entries, keyed on ``scipy.special``'s functions: added when a program has
    imported it (``rules/optional.py``), so that ``import srcgrad`` never imports SciPy."""
    unary = dict(rank="elementwise", broadcast=True)
    TABLE.update({
        special.expit: Rule("x", **unary, x="g * ans * (1.0 - ans)"),
        special.log_expit: Rule("x", **unary, x="g * _sg.expit(-x)"),
        special.erf: Rule("x", **unary, x="g * _sg.erf_slope(x)"),
        special.erfc: Rule("x", **unary, x="-g * _sg.erf_slope(x)"),
        special.gammaln: Rule("x", **unary, x="g * _sg.digamma(x)"),
        special.digamma: Rule("x", **unary, x="g * _sg.polygamma_slope(0, x)"),
        # polygamma is Python over the Hurwitz zeta ufunc: slopes go through zeta.
        special.polygamma: Rule("n, x", **unary, nograd={"n"},
                                x="g * _sg.polygamma_slope(n, x)"),
        # (No derivative in the order ``x``: SciPy has no d/ds zeta(s, q). A value
        # differentiated there is refused, not given a zero.)
        special.zeta: Rule("x, q=None", **unary, q="g * _sg.zeta_slope(x, q)"),
        # xlogy(0, y) is 0 for every y: no slope in y where x is 0 (ratio_where).
        special.xlogy: Rule("x, y", **unary, x="g * np.log(y)", y="g * _sg.ratio_where(x, y)"),
        special.xlog1py: Rule("x, y", **unary, x="g * np.log1p(y)",
                              y="g * _sg.ratio_where(x, 1.0 + y)"),
        special.gamma: Rule("x", **unary, x="g * ans * _sg.digamma(x)"),
        special.rgamma: Rule("x", **unary, x="-g * ans * _sg.digamma(x)"),
        special.multigammaln: Rule("a, d", **unary, nograd={"d"},
                                   a="g * _sg.multigammaln_slope(a, d)"),
        # (No closed form in a: a differentiated a is refused.)
        special.gammainc: Rule("a, x", **unary, x="g * _sg.gammainc_slope(a, x)"),
        special.gammaincc: Rule("a, x", **unary, x="-g * _sg.gammainc_slope(a, x)"),
        special.erfinv: Rule("x", **unary, x="g * _sg.erfinv_slope(ans)"),
        special.erfcinv: Rule("x", **unary, x="-g * _sg.erfinv_slope(ans)"),
        special.logit: Rule("x", **unary, x="g / (x * (1.0 - x))"),
        # The normal distribution's function, its logarithm and its inverse; the scaled
        # complementary error function exp(x^2) erfc(x).
        special.ndtr: Rule("x", **unary, x="g * _sg.normal_density(x)"),
        special.log_ndtr: Rule("x", **unary, x="g * _sg.log_ndtr_slope(x, ans)"),
        special.ndtri: Rule("x", **unary, x="g * _sg.ndtri_slope(ans)"),
        special.erfcx: Rule("x", **unary, x="g * (2.0 * x * ans - 2.0 / math.sqrt(math.pi))"),
        # Real x only (complex values are refused): NaN at x <= 0, as its value.
        special.loggamma: Rule("x", **unary, x="g * _sg.loggamma_slope(x)"),
        special.log1p: Rule("x", **unary, x="g / (1.0 + x)"),
        special.expm1: Rule("x", **unary, x="g * (ans + 1.0)"),
        special.cosm1: Rule("x", **unary, x="-g * np.sin(x)"),
        # Bessel functions, in x: the orders v are real (no closed form in v: a
        # differentiated v is refused); yn's n is an integer.
        special.i0: Rule("x", **unary, x="g * _sg.i1(x)"),
        special.i1: Rule("x", **unary, x="g * _sg.i1_slope(x)"),
        special.i0e: Rule("x", **unary, x="g * (_sg.i1e(x) - np.sign(x) * ans)"),
        special.i1e: Rule("x", **unary, x="g * _sg.i1e_slope(x)"),
        special.j0: Rule("x", **unary, x="-g * _sg.j1(x)"),
        special.j1: Rule("x", **unary, x="g * 0.5 * (_sg.j0(x) - _sg.jv(2.0, x))"),
        special.y0: Rule("x", **unary, x="-g * _sg.y1(x)"),
        special.y1: Rule("x", **unary, x="g * 0.5 * (_sg.y0(x) - _sg.yv(2.0, x))"),
        special.iv: Rule("v, x", **unary,
                         x="g * 0.5 * (_sg.iv(v - 1.0, x) + _sg.iv(v + 1.0, x))"),
        special.ive: Rule("v, x", **unary,
                          x="g * (0.5 * (_sg.ive(v - 1.0, x) + _sg.ive(v + 1.0, x)) "
                            "- np.sign(x) * ans)"),
        special.jv: Rule("v, x", **unary,
                         x="g * 0.5 * (_sg.jv(v - 1.0, x) - _sg.jv(v + 1.0, x))"),
        special.yv: Rule("v, x", **unary,
                         x="g * 0.5 * (_sg.yv(v - 1.0, x) - _sg.yv(v + 1.0, x))"),
        special.yn: Rule("n, x", **unary, nograd={"n"},
                         x="g * 0.5 * (_sg.yn(n - 1, x) - _sg.yn(n + 1, x))"),
        special.logsumexp: Rule("a, axis=None, b=None, keepdims=False, return_sign=False",
                                a="_sg.logsumexp_grad(g, ans, a, axis, b, keepdims, "
                                  "return_sign)",
                                b="_sg.logsumexp_b_grad(g, ans, a, axis, b, keepdims, "
                                  "return_sign)",
                                rows={"a": "_sg.logsumexp_rows(g, ans, a, axis, b, keepdims, "
                                           "return_sign)",
                                      "b": "_sg.logsumexp_b_rows(g, ans, a, axis, b, keepdims, "
                                           "return_sign)"}),
        special.softmax: Rule("x, axis=None", rank="same", x="_sg.softmax_grad(g, ans, axis)",
                              rows={"x": "_sg.softmax_rows(g, ans, axis)"}),
        special.log_softmax: Rule("x, axis=None", rank="same",
                                  x="_sg.log_softmax_grad(g, ans, axis)",
                                  rows={"x": "_sg.log_softmax_rows(g, ans, axis)"}),
    })
    # scipy.special.zeta is Python over this ufunc, which the slopes call.
    from scipy.special._ufuncs import _zeta
    TABLE[_zeta] = Rule("x, q", **unary, q="g * _sg.zeta_slope(x, q)")
    # Any argument of these ufuncs may be a list or tuple (an order ``v`` given as
    # ``[0.0, 1.0]``): the grads read them as arrays where they compute with them.
    for fn, rule in list(TABLE.items()):
        if rule.broadcast and len(params(rule)) > 1:
            TABLE[fn] = with_array_operands(rule, helpers=True)
    INTERNAL.add(_zeta)
    # Piecewise constant: the sign of gamma(x).
    NONDIFF.add(special.gammasgn)
    HOLOMORPHIC.update({special.erf, special.erfc, special.gamma, special.rgamma,
                        special.xlogy, special.xlog1py, special.iv, special.jv, special.yv})
    EXPLICIT.update({
        special.softmax: "ans * (x_dot - np.sum(ans * x_dot, axis=axis, keepdims=True))",
        special.log_softmax: "x_dot - np.sum(np.exp(ans) * x_dot, axis=axis, keepdims=True)",
        special.logsumexp: "_sg.logsumexp_sign_tangent(a, a_dot, axis, b, b_dot, keepdims, ans) "
                           "if return_sign else _sg.logsumexp_tangent(a, a_dot, axis, b, b_dot, "
                           "keepdims, return_sign)",
    })


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.special": _with_special}
