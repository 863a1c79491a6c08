"""``scipy.special``, when SciPy is installed (optional, never required): logsumexp
(``return_sign=True`` too: the sign has no gradient), expit, log_expit, logit, softmax,
log_softmax, ndtr, log_ndtr, ndtri, erfcx, loggamma (real x), log1p, expm1, cosm1,
gamma, rgamma, gammaln, digamma (psi),
polygamma, multigammaln, gammainc, gammaincc, erf, erfc, erfinv, erfcinv, xlogy, xlog1py,
the Bessel functions i0, i1, i0e, i1e, j0, j1, y0, y1, iv, ive, jv, yv, yn, k0, k1,
k0e, k1e, kv, kve (in ``x``); beta, betaln, betainc and betaincc (in ``x``), erfi, dawsn,
exprel, exp10, exp2, cbrt, sindg, cosdg, tandg, cotdg, radian, rel_entr, kl_div, huber,
pseudo_huber, poch, hyp1f1 and hyp2f1 (in ``x``, ``z``), ellipk, ellipe, spence,
owens_t, stdtr (in ``t``), chdtr and chdtrc (in ``x``), gdtr and gdtrc (in ``a``, ``x``),
boxcox, boxcox1p, inv_boxcox and inv_boxcox1p (in ``y``: ``_add_issue_13``); of complex
values too erfi, dawsn, kv, kve, hyp1f1, hyp2f1, spence (``HOLOMORPHIC``);
gammasgn and round are piecewise constant (NONDIFF).

Left out: ``binom`` (SciPy switches to a product formula for integer ``k`` and is finite
at gamma's poles, where a digamma formula is NaN), and ``comb``, ``perm``, ``factorial``
(Python functions of integer counts: 0 outside 0 <= k <= N, ``exact=`` branches): a
differentiated value reaching them is refused at compile time.

Not differentiated: the orders of the Bessel functions, ``gammainc``'s ``a`` and the
other parameters ``_add_issue_13`` names, whose derivatives have no closed form (a
differentiated value there is refused at compile time), and the integers
``polygamma``'s ``n``, ``yn``'s ``n``, ``multigammaln``'s ``d``.

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
    _add_issue_13(special, unary)
    # scipy.special.zeta is Python over this ufunc, which the slopes call.
    from scipy.special._ufuncs import _zeta
    TABLE[_zeta] = Rule("x, q", **unary, q="g * _sg.zeta_slope(x, q)")
    # Any argument of these ufuncs may be a list or tuple (an order ``v`` given as
    # ``[0.0, 1.0]``): the grads read them as arrays where they compute with them.
    for fn, rule in list(TABLE.items()):
        if rule.broadcast and len(params(rule)) > 1:
            TABLE[fn] = with_array_operands(rule, helpers=True)
    INTERNAL.add(_zeta)
    # Piecewise constant: the sign of gamma(x), and rounding to the nearest integer.
    NONDIFF.add(special.gammasgn)
    NONDIFF.add(special.round)
    HOLOMORPHIC.update({special.erf, special.erfc, special.gamma, special.rgamma,
                        special.xlogy, special.xlog1py, special.iv, special.jv, special.yv})
    EXPLICIT.update({
        special.softmax: "ans * (x_dot - np.sum(ans * x_dot, axis=axis, keepdims=True))",
        special.log_softmax: "x_dot - np.sum(np.exp(ans) * x_dot, axis=axis, keepdims=True)",
        special.logsumexp: "_sg.logsumexp_sign_tangent(a, a_dot, axis, b, b_dot, keepdims, ans) "
                           "if return_sign else _sg.logsumexp_tangent(a, a_dot, axis, b, b_dot, "
                           "keepdims, return_sign)",
    })


def _add_issue_13(special, unary):
    """Beta and incomplete beta, the Bessel functions K, exponentials, degrees,
    divergences and losses, the Pochhammer symbol, hypergeometric and elliptic functions,
    Spence's and Owen's, the distributions' functions and Box-Cox: each keyed where this
    SciPy has it (``getattr``: a function newer than the installed SciPy is skipped).

    A parameter without a grad here (the incomplete beta's ``a`` and ``b``, the orders
    ``v``, ``hyp1f1``'s ``a, b``, ``stdtr``'s ``df``, ``inv_boxcox``'s ``lmbda``...) has
    no closed-form derivative, or none derived and tested: a differentiated value there is
    refused at compile time (it is not ``nograd``, which would pass a silent zero)."""
    deg = "(math.pi / 180.0)"
    rules = {
        # beta = gamma(a) gamma(b) / gamma(a + b) (negative non-integers too: through
        # gamma, whose poles are beta's); betaln = log|beta|, the slopes of its logarithm.
        "beta": Rule("a, b", **unary, a="g * ans * (_sg.digamma(a) - _sg.digamma(a + b))",
                     b="g * ans * (_sg.digamma(b) - _sg.digamma(a + b))"),
        "betaln": Rule("a, b", **unary, a="g * (_sg.digamma(a) - _sg.digamma(a + b))",
                       b="g * (_sg.digamma(b) - _sg.digamma(a + b))"),
        # (In x only: no closed form in a or b.)
        "betainc": Rule("a, b, x", **unary, x="g * _sg.betainc_slope(a, b, x)"),
        "betaincc": Rule("a, b, x", **unary, x="-g * _sg.betainc_slope(a, b, x)"),
        # Modified Bessel functions of the second kind, in x > 0 (NaN below, as their
        # values); the scaled ones are e^x K: their slopes have the extra e^x K term.
        "k0": Rule("x", **unary, x="-g * _sg.k1(x)"),
        "k1": Rule("x", **unary, x="-g * (_sg.k0(x) + ans / x)"),
        "k0e": Rule("x", **unary, x="g * (ans - _sg.k1e(x))"),
        "k1e": Rule("x", **unary, x="g * (ans * (1.0 - 1.0 / x) - _sg.k0e(x))"),
        "kv": Rule("v, x", **unary,
                   x="-g * 0.5 * (_sg.kv(v - 1.0, x) + _sg.kv(v + 1.0, x))"),
        "kve": Rule("v, x", **unary,
                    x="g * (ans - 0.5 * (_sg.kve(v - 1.0, x) + _sg.kve(v + 1.0, x)))"),
        "erfi": Rule("x", **unary, x="g * (2.0 / math.sqrt(math.pi)) * np.exp(x * x)"),
        # Dawson's integral D' = 1 - 2 x D.
        "dawsn": Rule("x", **unary, x="g * (1.0 - 2.0 * x * ans)"),
        # (e^x - 1) / x: its slope written where each form keeps its digits (1/2 at 0).
        "exprel": Rule("x", **unary, x="g * _sg.exprel_slope(x, ans)"),
        "exp10": Rule("x", **unary, x="g * ans * math.log(10.0)"),
        "exp2": Rule("x", **unary, x="g * ans * math.log(2.0)"),
        # As np.cbrt: inf at 0 (an infinite derivative, not a kink).
        "cbrt": Rule("x", **unary, x="g / (3.0 * ans * ans)"),
        # Degrees: SciPy's are exact at multiples of 90; their slopes read them too.
        "sindg": Rule("x", **unary, x=f"g * {deg} * _sg.cosdg(x)"),
        "cosdg": Rule("x", **unary, x=f"-g * {deg} * _sg.sindg(x)"),
        "tandg": Rule("x", **unary, x=f"g * {deg} * (1.0 + ans * ans)"),
        "cotdg": Rule("x", **unary, x=f"-g * {deg} * (1.0 + ans * ans)"),
        # Degrees, minutes and seconds to radians: linear.
        "radian": Rule("d, m, s", **unary, d=f"g * {deg}", m="g * (math.pi / 10800.0)",
                       s="g * (math.pi / 648000.0)"),
        # x log(x / y) (kl_div: - x + y). At x == 0 < y the value is 0 (y) for every y:
        # no slope in y there (ratio_where, as xlogy's; also at x == y == 0, where the
        # value is 0 along y >= 0); in x the one-sided slope log(0) = -inf, as x log x has.
        # At x == y == 0 the slope in x is NaN (log(0 / 0)): from above it is +inf (the
        # value is inf at y == 0 < x). Where SciPy's value is inf (y == 0 < x, x < 0) the
        # slopes are the formula's (inf, or NaN).
        "rel_entr": Rule("x, y", **unary, x="g * (np.log(x / y) + 1.0)",
                         y="-g * _sg.ratio_where(x, y)"),
        "kl_div": Rule("x, y", **unary, x="g * np.log(x / y)",
                       y="g * (1.0 - _sg.ratio_where(x, y))"),
        # Both continuously differentiable in r and delta; NaN where delta < 0 (inf).
        "huber": Rule("delta, r", **unary, delta="g * _sg.huber_delta_slope(delta, r)",
                      r="g * _sg.huber_r_slope(delta, r)"),
        "pseudo_huber": Rule("delta, r", **unary,
                             delta="g * _sg.pseudo_huber_delta_slope(delta, r)",
                             r="g * _sg.pseudo_huber_r_slope(delta, r)"),
        # poch(z, m) = gamma(z + m) / gamma(z) (NaN where z is a pole of gamma's: digamma's
        # value there).
        "poch": Rule("z, m", **unary, z="g * ans * (_sg.digamma(z + m) - _sg.digamma(z))",
                     m="g * ans * _sg.digamma(z + m)"),
        # (In x, z only: no closed form in the parameters.)
        "hyp1f1": Rule("a, b, x", **unary,
                       x="g * (a / b) * _sg.hyp1f1(a + 1.0, b + 1.0, x)"),
        "hyp2f1": Rule("a, b, c, z", **unary,
                       z="g * (a * b / c) * _sg.hyp2f1(a + 1.0, b + 1.0, c + 1.0, z)"),
        "ellipk": Rule("m", **unary, m="g * _sg.ellipk_slope(m)"),
        "ellipe": Rule("m", **unary, m="g * _sg.ellipe_slope(m)"),
        # Real z >= 0 (NaN below, as SciPy's value), and complex z (HOLOMORPHIC below:
        # log(z) / (1 - z) there too).
        "spence": Rule("z", **unary, z="g * _sg.spence_slope(z)"),
        # Owen's T: dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)),
        # dT/dh = -phi(h) erf(a h / sqrt 2) / 2.
        "owens_t": Rule("h, a", **unary,
                        h="-g * 0.5 * _sg.normal_density(h) * _sg.erf(a * h / math.sqrt(2.0))",
                        a="g * np.exp(-0.5 * (h * h) * (1.0 + a * a)) "
                          "/ (2.0 * math.pi * (1.0 + a * a))"),
        # Distribution functions, in the point (no closed form in df, v, or gdtr's b).
        "stdtr": Rule("df, t", **unary, t="g * _sg.student_t_density(df, t)"),
        "chdtr": Rule("v, x", **unary, x="g * 0.5 * _sg.gammainc_slope(0.5 * v, 0.5 * x)"),
        "chdtrc": Rule("v, x", **unary, x="-g * 0.5 * _sg.gammainc_slope(0.5 * v, 0.5 * x)"),
        # gdtr(a, b, x) = gammainc(b, a x): in the rate a and in x.
        "gdtr": Rule("a, b, x", **unary, a="g * x * _sg.gammainc_slope(b, a * x)",
                     x="g * a * _sg.gammainc_slope(b, a * x)"),
        "gdtrc": Rule("a, b, x", **unary, a="-g * x * _sg.gammainc_slope(b, a * x)",
                      x="-g * a * _sg.gammainc_slope(b, a * x)"),
        # Box-Cox: lmbda == 0 (SciPy's log branch) is the same smooth function's point.
        "boxcox": Rule("x, lmbda", **unary, x="g * _sg.boxcox_x_slope(x, lmbda)",
                       lmbda="g * _sg.boxcox_lmbda_slope(np.log(x), lmbda)"),
        "boxcox1p": Rule("x, lmbda", **unary, x="g * _sg.boxcox_x_slope(1.0 + x, lmbda)",
                         lmbda="g * _sg.boxcox_lmbda_slope(np.log1p(x), lmbda)"),
        # (In y only: the slope in lmbda is not derived here.)
        "inv_boxcox": Rule("y, lmbda", **unary, y="g * _sg.inv_boxcox_slope(y, lmbda, ans)"),
        "inv_boxcox1p": Rule("y, lmbda", **unary,
                             y="g * _sg.inv_boxcox_slope(y, lmbda, _sg.inv_boxcox(y, lmbda))"),
    }
    for name, rule in rules.items():
        fn = getattr(special, name, None)
        if fn is not None:
            TABLE[fn] = rule
    # SciPy computes these for complex x (z) too, holomorphic there (kve is kv e^z for
    # complex z, not e^|Re z|), and their slopes above are holomorphic expressions with
    # real coefficients (orders and parameters real): checked against complex
    # differences by tests/test_complex_issue13.py. Not spence's real-only neighbours.
    HOLOMORPHIC.update(getattr(special, name) for name in (
        "erfi", "dawsn", "kv", "kve", "hyp1f1", "hyp2f1", "spence") if hasattr(special, name))


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.special": _with_special}
