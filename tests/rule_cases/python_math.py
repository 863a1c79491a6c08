"""Rule cases of the ``math`` entries of ``srcgrad/rules/python.py`` beyond the unary ones
that ``tests/test_rule_table.py`` draws from their domains (see ``__init__.py``)."""
import math

from srcgrad.runtime import pymath


def cases(t):
    C, F, FNZ, FP = t.C, t.F, t.FNZ, t.FP
    return [
        # the reflection (x < 1/2), the recurrence, the asymptotic series
        C(math.gamma, -1.7, id="negative"), C(math.gamma, 0.3, id="small"),
        C(math.gamma, 14.5, id="large"), C(math.lgamma, -2.4, id="negative"),
        C(math.lgamma, 0.05, id="small"), C(math.lgamma, 37.0, id="large"),
        C(math.copysign, FNZ, F), C(math.copysign, FNZ, -0.0, id="negative-zero"),
        # the division and power of the rules whose derivative is infinite at a bound
        C(pymath.ieee_divide, F, FNZ), C(pymath.ieee_power, FP, -0.5, wrt=("x",)),
        C(pymath.ieee_power, FP, 0.3, wrt=("x",), id="positive"),
    ]
