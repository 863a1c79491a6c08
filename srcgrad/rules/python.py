"""Python's own numerics: the ``math`` module (on Python floats) and the builtins.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. The
builtin ``max``/``min`` give the gradient all to the first extreme argument
(the one Python returns); ``math.hypot`` and ``math.atan2`` give 0 at the
origin, as their NumPy twins, and ``math.copysign`` 0 at ``x == 0``, as ``abs``.
``math.gamma``/``math.lgamma`` need no SciPy (``runtime/pymath.math_digamma``).
Where a derivative is infinite at the edge of the domain (``math.sqrt`` at 0,
``math.asin`` at 1), it is ``inf`` as NumPy's twin gives, not Python's
``ZeroDivisionError`` (``_sg.ieee_divide``).
"""
import builtins
import math

from ..runtime import pymath as _pymath
from .elementwise import DEGREES, RADIANS, power
from .entry import Rule


def _math(domain="real", **grads):
    return Rule("x", rank="scalar", domain={"x": domain}, **grads)


TABLE = {
    # ---- math module (Python floats)
    math.sin: _math(x="g * math.cos(x)"),
    math.cos: _math(x="-g * math.sin(x)"),
    math.tan: _math("unit", x="g * (1.0 + ans * ans)"),
    math.asin: _math("unit", x="_sg.ieee_divide(g, math.sqrt(1.0 - x * x))"),
    math.acos: _math("unit", x="-_sg.ieee_divide(g, math.sqrt(1.0 - x * x))"),
    math.atan: _math(x="g / (1.0 + x * x)"),
    math.sinh: _math(x="g * math.cosh(x)"),
    math.cosh: _math(x="g * math.sinh(x)"),
    math.tanh: _math(x="g * (1.0 - ans * ans)"),
    math.asinh: _math(x="g / math.sqrt(x * x + 1.0)"),
    math.acosh: _math("gt1", x="_sg.ieee_divide(g, math.sqrt(x * x - 1.0))"),
    math.atanh: _math("unit", x="g / (1.0 - x * x)"),
    math.exp: _math(x="g * ans"),
    math.exp2: _math(x="g * ans * math.log(2.0)"),
    math.expm1: _math(x="g * (ans + 1.0)"),
    math.log: Rule("x, base=None", rank="scalar", x="_sg.log_grad(g, x, base)",
                   base="-g * ans / (base * math.log(base))"),
    math.log2: _math("pos", x="g / (x * math.log(2.0))"),
    math.log10: _math("pos", x="g / (x * math.log(10.0))"),
    math.log1p: _math("pos", x="g / (1.0 + x)"),
    math.sqrt: _math("pos", x="_sg.ieee_divide(g * 0.5, ans)"),
    math.cbrt: _math("nonzero", x="_sg.ieee_divide(g, 3.0 * ans * ans)"),
    math.fabs: _math("nonzero", x="g * np.sign(x)"),
    math.erf: _math(x="g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)"),
    math.erfc: _math(x="-g * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)"),
    math.gamma: _math("pos", x="g * ans * _sg.math_digamma(x)"),
    math.lgamma: _math("pos", x="g * _sg.math_digamma(x)"),
    math.degrees: _math(x=DEGREES),
    math.radians: _math(x=RADIANS),
    math.atan2: Rule("y, x", rank="scalar", y="g * x / _sg.nonzero(x * x + y * y)",
                     x="-g * y / _sg.nonzero(x * x + y * y)"),
    math.pow: Rule("x, y", rank="scalar", **power("x", "y")),
    # |x| with the sign of y: piecewise constant in y.
    math.copysign: Rule("x, y", rank="scalar", nograd={"y"},
                        x="g * np.sign(x) * math.copysign(1.0, y)"),
    math.hypot: Rule("*coordinates", rank="scalar",
                     coordinates="_sg.hypot_grad(g, ans, coordinates)"),
    math.fsum: Rule("seq", rank="scalar", seq="_sg.builtin_sum_grad(g, seq)"),
    # (Python floats' division and power where an infinite derivative must not raise)
    _pymath.ieee_divide: Rule("n, d", broadcast=True, rank="elementwise",
                              n="_sg.ieee_divide(g, d)", d="-_sg.ieee_divide(g * ans, d)"),
    _pymath.ieee_power: Rule("x, e", broadcast=True, rank="elementwise", nograd={"e"},
                             x="g * e * _sg.ieee_power(x, e - 1)"),
    # ---- builtins
    builtins.abs: Rule("x", domain={"x": "nonzero"}, x="g * np.sign(x)"),
    builtins.float: Rule("x=0.0", x="_sg.reshape_like(g, x)"),
    builtins.pow: Rule("base, exp, mod=None", broadcast=True, rank="elementwise",
                       **power("base", "exp")),
    builtins.sum: Rule("iterable, start=0", iterable="_sg.builtin_sum_grad(g, iterable)",
                       start="_sg.sum_to(g, start)"),
    builtins.max: Rule("*args", args="_sg.builtin_max_grad(g, args)",
                       rows={"args": "_sg.extreme_args_rows(g, args, np.argmax)"}),
    builtins.min: Rule("*args", args="_sg.builtin_min_grad(g, args)",
                       rows={"args": "_sg.extreme_args_rows(g, args, np.argmin)"}),
}
