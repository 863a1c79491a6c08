"""Elementwise primitives of NumPy: one argument, two broadcasting arguments, ``clip``, ``where``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Conventions at non-smooth points, chosen once here:

- ``abs``/``sign`` give 0 at 0; ties of ``maximum``/``minimum`` (and
  ``fmax``/``fmin``) split the gradient in halves; ``clip`` passes the
  gradient at the bounds.
- ``hypot`` gives 0 at ``(0, 0)`` and ``arctan2`` 0 at the origin (divisors
  through ``_sg.nonzero``), not ``0 / 0``; ``sqrt``/``cbrt`` at 0 give ``inf``:
  an infinite derivative is not a kink.
- ``x1 ** x2``: the adjoint of ``x2`` uses ``log(x1)`` where ``x1 > 0`` and is 0
  where ``x1 <= 0`` (TensorFlow's choice: ``x1 ** x2`` is not differentiable in
  ``x2`` for a negative base, and its limit at 0 is 0 for ``x2 > 0``). The
  adjoint of ``x1`` is 0 at ``x1 == x2 == 0``, never ``0 * inf``; the guard is
  that narrow so that second derivatives stay exact at ``x2 == 0``.
"""
import numpy as np

from ..runtime import adjoints as _h
from .entry import Rule, array_operands


def _unary(domain="real", **grads):
    return Rule("x", rank="elementwise", domain={"x": domain}, **grads)


def _binary(d1="real", d2="real", **grads):
    """A broadcasting entry in ``x1, x2``, either of which may be a list or tuple (NumPy
    reads array_likes): the grads read them as arrays where an operator takes them."""
    grads = {p: array_operands(e, {"x1", "x2"}) for p, e in grads.items()}
    return Rule("x1, x2", broadcast=True, rank="elementwise", domain={"x1": d1, "x2": d2}, **grads)


def _arithmetic(d1="real", d2="real", **grads):
    """The entry of a Python operator's function (``*``, ``/``): its grads compute with
    the operands as written (``g * x2``: ``g`` is an array wherever a list operand
    broadcasts)."""
    return Rule("x1, x2", broadcast=True, rank="elementwise", domain={"x1": d1, "x2": d2}, **grads)


def power(base, exp):
    """Grads of ``base ** exp`` for the given parameter names (see the conventions above)."""
    return {
        base: f"g * {exp} * {base} ** np.where(np.logical_and({exp} == 0, {base} == 0), 1.0, "
              f"{exp} - 1)",
        exp: f"g * ans * np.log(np.where({base} > 0, {base}, 1.0))",
    }


_MAXIMUM = dict(
    x1="g * np.where(x1 > x2, 1.0, np.where(x1 == x2, 0.5, 0.0))",
    x2="g * np.where(x2 > x1, 1.0, np.where(x1 == x2, 0.5, 0.0))",
)
_MINIMUM = dict(
    x1="g * np.where(x1 < x2, 1.0, np.where(x1 == x2, 0.5, 0.0))",
    x2="g * np.where(x2 < x1, 1.0, np.where(x1 == x2, 0.5, 0.0))",
)
DEGREES = "g * (180.0 / np.pi)"
RADIANS = "g * (np.pi / 180.0)"
_CLIP = "a, a_min=None, a_max=None, out=None, *, min=None, max=None"

TABLE = {
    # ---- one argument
    np.negative: _unary(x="-g"),
    np.positive: _unary(x="g"),
    np.square: _unary(x="2.0 * g * x"),
    np.sqrt: _unary("pos", x="g * 0.5 / ans"),
    np.cbrt: _unary("nonzero", x="g / (3.0 * ans * ans)"),
    np.exp: _unary(x="g * ans"),
    np.exp2: _unary(x="g * ans * np.log(2.0)"),
    np.expm1: _unary(x="g * (ans + 1.0)"),
    np.log: _unary("pos", x="g / x"),
    np.log1p: _unary("pos", x="g / (1.0 + x)"),
    np.log2: _unary("pos", x="g / (x * np.log(2.0))"),
    np.log10: _unary("pos", x="g / (x * np.log(10.0))"),
    np.sin: _unary(x="g * np.cos(x)"),
    np.cos: _unary(x="-g * np.sin(x)"),
    np.tan: _unary("unit", x="g * (1.0 + ans * ans)"),
    np.arcsin: _unary("unit", x="g / np.sqrt(1.0 - x * x)"),
    np.arccos: _unary("unit", x="-g / np.sqrt(1.0 - x * x)"),
    np.arctan: _unary(x="g / (1.0 + x * x)"),
    np.sinh: _unary(x="g * np.cosh(x)"),
    np.cosh: _unary(x="g * np.sinh(x)"),
    np.tanh: _unary(x="g * (1.0 - ans * ans)"),
    np.arcsinh: _unary(x="g / np.sqrt(x * x + 1.0)"),
    np.arccosh: _unary("gt1", x="g / np.sqrt(x * x - 1.0)"),
    np.arctanh: _unary("unit", x="g / (1.0 - x * x)"),
    np.absolute: _unary("nonzero", x="g * np.sign(x)"),
    np.fabs: _unary("nonzero", x="g * np.sign(x)"),
    np.reciprocal: _unary("nonzero", x="-g * ans * ans"),
    np.deg2rad: _unary(x=RADIANS),
    np.radians: _unary(x=RADIANS),
    np.rad2deg: _unary(x=DEGREES),
    np.degrees: _unary(x=DEGREES),
    # ---- two arguments (broadcasting)
    np.add: _arithmetic(x1="g", x2="g"),
    np.subtract: _arithmetic(x1="g", x2="-g"),
    np.multiply: _arithmetic(x1="g * x2", x2="g * x1"),
    np.true_divide: _arithmetic("real", "nonzero", x1="g / x2", x2="-g * x1 / (x2 * x2)"),
    np.power: _binary("pos", "real", **power("x1", "x2")),
    np.float_power: _binary("pos", "real", **power("x1", "x2")),
    np.maximum: _binary(**_MAXIMUM),
    np.fmax: _binary(**_MAXIMUM),
    np.minimum: _binary(**_MINIMUM),
    np.fmin: _binary(**_MINIMUM),
    np.arctan2: _binary("nonzero", "nonzero", x1="g * x2 / _sg.nonzero(x1 * x1 + x2 * x2)",
                        x2="-g * x1 / _sg.nonzero(x1 * x1 + x2 * x2)"),
    np.hypot: _binary("nonzero", "nonzero", x1="g * x1 / _sg.nonzero(ans)",
                      x2="g * x2 / _sg.nonzero(ans)"),
    np.logaddexp: _binary(x1="g * _sg.sigmoid(x1, x2)", x2="g * _sg.sigmoid(x2, x1)"),
    np.logaddexp2: _binary(x1="g * np.exp2(x1 - ans)", x2="g * np.exp2(x2 - ans)"),
    np.mod: _binary("real", "pos", x1="g", x2="-g * np.floor_divide(x1, x2)"),
    np.fmod: _binary("real", "pos", x1="g", x2="-g * np.trunc(x1 / x2)"),
    np.clip: Rule(_CLIP, broadcast=True, rank="elementwise",
                  a="_sg.clip_grad(g, a, a_min, a_max, min, max)",
                  # (Through maximum(a, low) for the upper bound: with low > high the
                  # result is high everywhere; hunt 5 A6.)
                  **{p: f"_sg.clip_bound_grad(g, a, a_min, a_max, min, max, {which})"
                     for p, which in (("a_min", 0), ("a_max", 1), ("min", 0), ("max", 1))}),
    # x1 plus or minus one spacing of x1, a step constant between powers of two: slope 1
    # in x1; only the side of x2 matters, piecewise constant (no gradient).
    np.nextafter: Rule("x1, x2", broadcast=True, rank="elementwise", nograd={"x2"},
                       domain={"x1": "real", "x2": "real"}, x1="g"),
    np.where: Rule("condition, x, y", broadcast=True, rank="elementwise", nograd={"condition"},
                   x="np.where(condition, g, 0.0)", y="np.where(condition, 0.0, g)"),
    _h.sigmoid: Rule("a, b", broadcast=True, rank="elementwise",
                     a="g * ans * (1.0 - ans)", b="-g * ans * (1.0 - ans)"),
}

# ``x ** c`` for a number c != 0 known at compile time: the general rule's
# guards for a zero base and the exponent's own adjoint are not needed.
POWER_CONSTANT_EXPONENT = Rule("x1, x2", broadcast=True, rank="elementwise",
                               x1="g * x2 * x1 ** (x2 - 1)")
# ... for 0 < c < 1, whose derivative is infinite at 0 (``x ** 0.5``): ``inf`` there, as
# NumPy's power gives, where a Python float's ``0.0 ** -0.5`` raises.
POWER_BELOW_ONE = Rule("x1, x2", broadcast=True, rank="elementwise",
                       x1="g * x2 * _sg.ieee_power(x1, x2 - 1)")
