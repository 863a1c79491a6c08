"""Helpers of the ``special`` rules (``rules/special.py``), reached as ``_sg.<name>``.

Each is plain Python over functions that have rules, so that adjoint code
calling it can be differentiated again (``tests/test_rule_table.py`` reads
them). Without SciPy the rules are absent and these are never called.
"""
import math

import numpy as np

from .adjoints import not_differentiable, sum_grad, sum_to
from .complexes import is_complex

__all__ = ["erf_slope", "ratio_where", "logsumexp_grad", "logsumexp_b_grad", "softmax_grad", "log_softmax_grad",
           "logsumexp_sign_weights", "b_or_one", "logsumexp_sign_tangent",
           "polygamma_slope", "zeta_slope", "erfinv_slope", "i1_slope", "i1e_slope",
           "gammainc_slope", "multigammaln_slope", "normal_density", "log_ndtr_slope",
           "ndtri_slope", "loggamma_slope", "betainc_slope", "exprel_slope",
           "ellipk_slope", "ellipe_slope", "spence_slope", "student_t_density",
           "huber_r_slope", "huber_delta_slope", "pseudo_huber_r_slope",
           "pseudo_huber_delta_slope", "boxcox_x_slope", "boxcox_lmbda_slope",
           "inv_boxcox_slope"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# scipy.special's functions the helpers call: bound when a program has imported it
# (from_scipy.py; also ``_sg.<name>``), as importing srcgrad imports no SciPy.
digamma = gammaln = i0 = i0e = i1 = i1e = xlogy = zeta = None
betaln = ellipe = ellipk = exprel = xlog1py = None


def erf_slope(x):
    """d erf(x) / dx = 2 / sqrt(pi) exp(-x^2)."""
    return (2.0 / math.sqrt(math.pi)) * np.exp(-(x * x))


def normal_density(x):
    """d ndtr(x) / dx: the standard normal density exp(-x^2 / 2) / sqrt(2 pi)."""
    return np.exp(-0.5 * (x * x) - _LOG_SQRT_2PI)


def log_ndtr_slope(x, y):
    """d log_ndtr(x) / dx = density(x) / ndtr(x), as exp(log density - y), y = log_ndtr(x):
    finite far in the lower tail, where both are tiny."""
    return np.exp(-0.5 * (x * x) - _LOG_SQRT_2PI - y)


def ndtri_slope(y):
    """d ndtri(p) / dp = 1 / density(y), y = ndtri(p)."""
    return np.exp(0.5 * (y * y) + _LOG_SQRT_2PI)


def loggamma_slope(x):
    """d loggamma(x) / dx = digamma(x) for real x > 0; NaN where SciPy's value is NaN
    (x <= 0). Complex values are refused (SciPy's loggamma is the principal branch)."""
    if is_complex(x):
        return not_differentiable("scipy.special.loggamma of complex values")
    return np.where(x > 0, digamma(np.where(x > 0, x, 1.0)), np.nan)


def polygamma_slope(n, x):
    """d polygamma(n, x) / dx = polygamma(n + 1, x) = (-1)^(n + 2) (n + 1)! zeta(n + 2, x).
    SciPy's zeta takes real ``x`` only: a complex one is refused."""
    if is_complex(x):
        return not_differentiable("digamma or polygamma of a complex value (its slope, "
                                  "zeta(n + 2, x), SciPy computes for real values only)")
    # (n + 1)! as exp(gammaln(n + 2)) also for an array of orders, which math.factorial
    # refuses; exact to rounding.
    return (-1.0) ** (n + 2) * np.exp(gammaln(n + 2.0)) * zeta(n + 2.0, x)


def zeta_slope(s, q):
    """d zeta(s, q) / dq = -s zeta(s + 1, q) (the Hurwitz zeta function)."""
    return -s * zeta(s + 1.0, q)


def erfinv_slope(y):
    """d erfinv(x) / dx = sqrt(pi) / 2 exp(y^2), y = erfinv(x) (erfcinv: its negative)."""
    return (0.5 * math.sqrt(math.pi)) * np.exp(y * y)


def i1_slope(x):
    """d i1(x) / dx = i0(x) - i1(x) / x, and its limit 1/2 at x == 0."""
    return np.where(x == 0, 0.5, i0(x) - i1(x) / np.where(x == 0, 1.0, x))


def i1e_slope(x):
    """d i1e(x) / dx = i0e(x) - i1e(x) / x - sign(x) i1e(x), and its limit 1/2 at x == 0
    (i1e(x) = exp(-|x|) i1(x))."""
    return np.where(x == 0, 0.5, i0e(x) - i1e(x) / np.where(x == 0, 1.0, x)
                    - np.sign(x) * i1e(x))


def gammainc_slope(a, x):
    """d gammainc(a, x) / dx = exp(-x) x^(a - 1) / gamma(a) (gammaincc: its negative),
    through logarithms (xlogy: 1 at x == 0 for a == 1)."""
    return np.exp(xlogy(a - 1.0, x) - x - gammaln(a))


def multigammaln_slope(a, d):
    """d multigammaln(a, d) / da = sum over j < d of digamma(a - j / 2)."""
    total = 0.0 * a
    for j in range(int(d)):
        total = total + digamma(a - 0.5 * j)
    return total


def ratio_where(x, y):
    """x / y, and 0 where x == y == 0: d xlogy(x, y) / dy, as xlogy(0, y) is 0 for every y.

    Only the point where both are 0 is masked: at x == 0 the slope's own slope in x is
    still 1 / y (masking every x == 0 made that second derivative 0)."""
    return x / np.where(np.logical_and(x == 0, y == 0), 1.0, y)


def logsumexp_grad(g, ans, a, axis, b, keepdims, return_sign):
    """Adjoint of ``scipy.special.logsumexp(a, axis, b, keepdims)``: the softmax of ``a``
    (times ``b``) weighting ``g`` spread back over the reduced axes.

    With ``return_sign`` (``ans`` and ``g`` pairs: ``log|s|`` and the sign of
    ``s = sum b exp(a)``, piecewise constant: no adjoint), ``d log|s| / da_i = b_i exp(a_i) / s
    = sign b_i exp(a_i - log|s|)``."""
    if return_sign:
        return logsumexp_sign_weights(g[0], ans, a, axis, b, keepdims) * b_or_one(b)
    weights = np.exp(a - sum_grad(ans, a, axis, keepdims))
    if b is not None:
        weights = weights * b
    return sum_grad(g, a, axis, keepdims) * weights


def logsumexp_b_grad(g, ans, a, axis, b, keepdims, return_sign):
    """Adjoint of ``scipy.special.logsumexp(a, axis, b, keepdims)`` in the weights ``b``:
    d/db_i log(sum_j b_j exp(a_j)) = exp(a_i - ans), ``g`` spread back over the reduced
    axes and summed down to ``b``'s shape (with ``return_sign``, times the sign)."""
    if return_sign:
        return sum_to(logsumexp_sign_weights(g[0], ans, a, axis, b, keepdims), b)
    return sum_to(sum_grad(g, a, axis, keepdims) * np.exp(a - sum_grad(ans, a, axis, keepdims)), b)


def logsumexp_sign_weights(g, ans, a, axis, b, keepdims):
    """``g`` spread back over the reduced axes times ``sign exp(a - log|s|)`` (``ans`` the pair
    ``log|s|, sign`` of ``logsumexp(..., return_sign=True)``)."""
    if is_complex(a) or is_complex(b):
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True) of complex "
                                  "values")
    scale = np.exp(a - sum_grad(ans[0], a, axis, keepdims)) * sum_grad(ans[1], a, axis, keepdims)
    return sum_grad(g, a, axis, keepdims) * scale


def b_or_one(b):
    """The weights ``b`` of ``logsumexp``, 1.0 for none."""
    if b is None:
        return 1.0
    return b


def logsumexp_sign_tangent(a, a_dot, axis, b, b_dot, keepdims, ans):
    """Forward mode's tangent of ``logsumexp(a, axis, b, keepdims, return_sign=True)``:
    ``(sum sign exp(a - log|s|) (b da + db), 0)``; the sign is piecewise constant."""
    if is_complex(a) or is_complex(b):
        return not_differentiable("scipy.special.logsumexp(..., return_sign=True) of complex "
                                  "values")
    scale = np.exp(a - sum_grad(ans[0], a, axis, keepdims)) * sum_grad(ans[1], a, axis, keepdims)
    t = np.sum(scale * (b_or_one(b) * a_dot + b_dot), axis=axis, keepdims=keepdims)
    return t, np.zeros(np.shape(ans[1]))


def softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.softmax(x, axis)``: s * (g - sum(g * s))."""
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


def log_softmax_grad(g, ans, axis):
    """Adjoint of ``scipy.special.log_softmax(x, axis)``: g - softmax * sum(g)."""
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)


def betainc_slope(a, b, x):
    """d betainc(a, b, x) / dx = x^(a - 1) (1 - x)^(b - 1) / B(a, b) (betaincc: its
    negative), through logarithms (xlogy, xlog1py: 1 at x == 0 for a == 1 and at x == 1
    for b == 1); NaN outside [0, 1], where SciPy's value is NaN."""
    inside = np.logical_and(x >= 0, x <= 1)
    return np.where(inside, np.exp(xlogy(a - 1.0, x) + xlog1py(b - 1.0, -x) - betaln(a, b)),
                    np.nan)


def exprel_slope(x, y):
    """d exprel(x) / dx = (e^x - exprel(x)) / x, y = exprel(x).

    Three forms, each where it keeps its digits: near 0 (|x| < 0.1) the series
    sum k x^(k - 1) / (k + 1)! (1/2 at 0; the difference loses 1 / |x| ulps there),
    above 1 ``y (1 - 1 / x) + 1 / x`` (e^x = x y + 1: no overflow of e^x where y is
    still finite), and the difference between. Every branch reads its operand masked,
    so that none overflows where it is not taken."""
    small = np.abs(x) < 0.1
    big = x > 1.0
    xs = np.where(small, x, 0.0)
    series = 0.5 + xs * (1.0 / 3.0 + xs * (0.125 + xs * (1.0 / 30.0 + xs * (
        1.0 / 144.0 + xs * (1.0 / 840.0 + xs * (1.0 / 5760.0 + xs * (1.0 / 45360.0 + xs * (
            1.0 / 403200.0 + xs * (1.0 / 3991680.0 + xs * (1.0 / 43545600.0))))))))))
    xb = np.where(big, x, 2.0)
    xm = np.where(np.logical_or(small, big), 1.0, x)
    return np.where(small, series,
                    np.where(big, y * (1.0 - 1.0 / xb) + 1.0 / xb, (np.exp(xm) - y) / xm))


def ellipk_slope(m):
    """d ellipk(m) / dm = (E(m) - (1 - m) K(m)) / (2 m (1 - m)); near m == 0 (|m| < 0.05,
    where the difference loses 1 / |m| ulps) the series pi / 2 sum n c_n^2 m^(n - 1),
    c_n = (2n - 1)!! / (2n)!! (pi / 8 at 0); +inf at m == 1, where K is."""
    small = np.abs(m) < 0.05
    ms = np.where(small, m, 0.0)
    series = (0.5 * math.pi) * (0.25 + ms * (0.28125 + ms * (0.29296875 + ms * (
        0.299072265625 + ms * (0.3028106689453125 + ms * (0.30533409118652344 + ms * (
            0.30715155601501465 + ms * (0.3085227683186531 + ms * (0.30959402793087065 + ms * (
                0.31045401134178974 + ms * (0.3111595886402938 + ms * (0.31174890604302163 + ms * (
                    0.3122485036488598 + ms * 0.31267741642859725)))))))))))))
    one = m == 1
    mm = np.where(np.logical_or(small, one), 0.5, m)
    return np.where(small, series, np.where(
        one, np.inf, (ellipe(mm) - (1.0 - mm) * ellipk(mm)) / (2.0 * mm * (1.0 - mm))))


def ellipe_slope(m):
    """d ellipe(m) / dm = (E(m) - K(m)) / (2 m); near m == 0 (|m| < 0.05) the series
    -pi / 2 sum n c_n^2 m^(n - 1) / (2n - 1) (-pi / 8 at 0); -inf at m == 1."""
    small = np.abs(m) < 0.05
    ms = np.where(small, m, 0.0)
    series = (-0.5 * math.pi) * (0.25 + ms * (0.09375 + ms * (0.05859375 + ms * (
        0.042724609375 + ms * (0.0336456298828125 + ms * (0.027757644653320312 + ms * (
            0.023627042770385742 + ms * (0.020568184554576874 + ms * (0.018211413407698274 + ms * (
                0.016339684807462618 + ms * (0.01481712326858542 + ms * (0.013554300262740071 + ms * (
                    0.012489940145954392 + ms * 0.01158064505291101)))))))))))))
    mm = np.where(small, 0.5, m)
    return np.where(small, series, (ellipe(mm) - ellipk(mm)) / (2.0 * mm))


def spence_slope(z):
    """d spence(z) / dz = log(z) / (1 - z) = -log1p(w) / w, w = z - 1 (exact for z in
    [1/2, 2]); near z == 1 (|w| < 1e-3) its series -(1 - w/2 + w^2/3 - ...), -1 at
    z == 1, so that the second derivative there is 1/2, not the 0 of a constant."""
    w = z - 1.0
    small = np.abs(w) < 1e-3
    ws = np.where(small, w, 0.0)
    wm = np.where(small, 1.0, w)
    series = -(1.0 + ws * (-0.5 + ws * (1.0 / 3.0 + ws * (-0.25 + ws * (0.2 + ws * (
        -1.0 / 6.0))))))
    return np.where(small, series, -np.log1p(wm) / wm)


def student_t_density(df, t):
    """d stdtr(df, t) / dt: Student's t density with ``df`` degrees of freedom,
    through logarithms."""
    return np.exp(gammaln(0.5 * (df + 1.0)) - gammaln(0.5 * df) - 0.5 * np.log(df * math.pi)
                  - 0.5 * (df + 1.0) * np.log1p(t * t / df))


def huber_r_slope(delta, r):
    """d huber(delta, r) / dr: r where |r| <= delta, delta sign(r) beyond (continuous at
    |r| == delta); NaN where delta < 0, where SciPy's value is inf for every r."""
    inner = np.abs(r) <= delta
    return np.where(delta < 0, np.nan, np.where(inner, r, delta * np.sign(r)))


def huber_delta_slope(delta, r):
    """d huber(delta, r) / d delta: 0 where |r| <= delta, |r| - delta beyond (continuous at
    |r| == delta; at delta == 0 the slope from above, the value being inf below);
    NaN where delta < 0."""
    inner = np.abs(r) <= delta
    return np.where(delta < 0, np.nan, np.where(inner, 0.0, np.abs(r) - delta))


def pseudo_huber_r_slope(delta, r):
    """d pseudo_huber(delta, r) / dr = r / sqrt(1 + (r / delta)^2) = delta r / h,
    h = hypot(delta, r) (0 at delta == 0, where the value is 0 for every r; and at
    delta == r == 0); NaN where delta < 0 (SciPy's value is inf)."""
    return np.where(delta < 0, np.nan, delta * ratio_where(r, np.hypot(delta, r)))


def pseudo_huber_delta_slope(delta, r):
    """d pseudo_huber(delta, r) / d delta = 2 delta (s - 1) - r^2 / (delta s),
    s = sqrt(1 + (r / delta)^2), written without its cancellation as
    r^4 / (h (h + delta)^2) = (r / (h + delta))^2 r (r / h), h = hypot(delta, r);
    |r| at delta == 0 (the slope from above: below, the value is inf), 0 at
    delta == r == 0 (the value is 0 along r == 0); NaN where delta < 0."""
    h = np.hypot(delta, r)
    q = ratio_where(r, h + delta)
    return np.where(delta < 0, np.nan, q * q * r * ratio_where(r, h))


def boxcox_x_slope(x, lmbda):
    """d boxcox(x, lmbda) / dx = x^(lmbda - 1), as exp(xlogy(lmbda - 1, x)) (1 at x == 0
    for lmbda == 1, where boxcox is x - 1); NaN where x < 0 (SciPy's value is NaN).
    boxcox1p's: this at 1 + x."""
    return np.where(x < 0, np.nan, np.exp(xlogy(lmbda - 1.0, x)))


def boxcox_lmbda_slope(log_x, lmbda):
    """d boxcox(x, lmbda) / d lmbda, log_x = log(x) (boxcox1p: log1p(x)).

    boxcox(x, lmbda) = expm1(lmbda L) / lmbda = L exprel(lmbda L), L = log(x), so its
    slope in lmbda is L^2 exprel'(lmbda L): at lmbda == 0 (SciPy's log(x) branch)
    L^2 / 2, and its derivatives there too, from exprel's series. At x == 0 (L = -inf)
    this is NaN: the slope from above, 1 / lmbda^2 for lmbda > 0, is not given, as its
    mixed second derivative there (x^(lmbda - 1) log(x)) would not be either."""
    u = lmbda * log_x
    return log_x * log_x * exprel_slope(u, exprel(u))


def inv_boxcox_slope(y, lmbda, value):
    """d inv_boxcox(y, lmbda) / dy = (1 + lmbda y)^(1 / lmbda - 1) = value / (1 + lmbda y),
    value = inv_boxcox(y, lmbda) (exp(y) at lmbda == 0); inv_boxcox1p's too, with its
    ``inv_boxcox`` for ``value``. Where 1 + lmbda y == 0 (lmbda != 0 there) the power
    itself, 0^(1 / lmbda - 1): 0, 1 or inf, and its slope through the power's rule."""
    base = 1.0 + lmbda * y
    at_zero = base == 0
    zero = np.where(at_zero, base, 0.0)
    lam = np.where(at_zero, lmbda, 1.0)
    return np.where(at_zero, np.power(zero, 1.0 / lam - 1.0),
                    value / np.where(at_zero, 1.0, base))
