"""What adjoint code compiled for complex values calls (``rules/complexes.py`` says when).

The convention is TensorFlow's: C is R^2, and the adjoint of a complex value
``z = x + iy`` is ``dL/dx + i dL/dy``, so that ``z -= lr * grad`` descends as
written. A real value's adjoint stays real: its imaginary part is a direction
the value cannot move in.
"""
import numpy as np

from .adjoints import add_reduce, expand_reduced, not_differentiable

__all__ = ["conj", "fit", "real_rule", "is_complex", "log_of_base", "angle_grad", "imag_grad",
           "real_part_grad", "ordered_extreme_grad", "ordered_pair_grad", "order_ties_checked"]


def is_complex(value):
    """Is ``value`` a complex number or array? (``np.iscomplexobj`` costs 5x more.)"""
    t = type(value)
    if t is float or t is int:
        return False
    if t is complex:
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", "") == "c"


def conj(value):
    """The complex conjugate of a complex ``value`` (items of a list or tuple too);
    anything else as it is, without the copy ``np.conj`` makes of a real array."""
    if type(value) in (list, tuple):
        return [conj(v) for v in value]
    return np.conj(value) if is_complex(value) else value


def fit(grad, like):
    """``grad`` as the adjoint of ``like``: its real part for a real ``like``, complex for
    a complex one (item by item in lists, tuples and dicts)."""
    if type(grad) in (list, tuple) and type(like) in (list, tuple):
        return [fit(g, v) for g, v in zip(grad, like)]
    if type(grad) is dict and type(like) is dict:
        return {k: fit(g, like[k]) for k, g in grad.items()}
    if is_complex(grad):
        if like is None or is_complex(like) or _not_numeric(like):
            return grad
        return np.real(grad) if type(grad) is not complex else grad.real
    if is_complex(like) and grad is not None:
        return np.asarray(grad, dtype=like.dtype) if hasattr(like, "dtype") else complex(grad)
    return grad


def _not_numeric(value):
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return dtype.kind not in "biuf"
    return not isinstance(value, (int, float))


def real_rule(grad, what, *values):
    """``grad``, the adjoint by a rule written for real values, once the operand and
    result ``values`` are known to be real."""
    if any(map(is_complex, values)):
        return not_differentiable(f"{what} of a complex value (the rule srcgrad has for it "
                                  "is for real values)")
    return grad


def log_of_base(base):
    """``log(base)`` in the adjoint of ``base ** exponent`` for its exponent: complex
    bases take the principal logarithm (0 at 0, as for real ones); a real base,
    TensorFlow's choice (0 where ``base <= 0``, see rules/elementwise.py)."""
    if is_complex(base):
        return np.log(np.where(base == 0, 1.0, base))
    return np.log(np.where(np.greater(base, 0), base, 1.0))


def real_part_grad(grad, value):
    """Adjoint of ``np.real(value)``: the real ``grad`` along the real axis."""
    return fit(grad, value)


def imag_grad(grad, value):
    """Adjoint of ``np.imag(value)``: ``grad`` along the imaginary axis (nothing for a
    real ``value``)."""
    return fit(1j * grad, value)


def angle_grad(grad, value, deg):
    """Adjoint of ``np.angle(value, deg)``: the angle moves along ``i z / |z|^2``
    (0 at 0, as ``np.angle``'s value is constant on each ray)."""
    r2 = np.real(value * np.conj(value))
    step = 1j * value / np.where(r2 == 0, 1.0, r2)
    if deg:
        step = step * (180.0 / np.pi)
    return fit(grad * step, value)


def ordered_extreme_grad(grad, ans, a, axis, keepdims):
    """Adjoint of ``np.max``/``np.min`` of values that may be complex: NumPy orders complex
    numbers by their real part, then their imaginary part, and the adjoint goes to the
    selected element(s), as for real values (``extreme_grad``: equal elements share it).

    Where elements' real parts tie but their imaginary parts differ the result jumps
    (the order between them flips as a real part moves): refused."""
    grad = expand_reduced(grad, axis, keepdims, a)
    mask = order_ties_checked(a, expand_reduced(ans, axis, keepdims, a), "np.max/np.min")
    return np.where(mask, grad / add_reduce(mask, axis, True), 0.0)


def ordered_pair_grad(grad, x, other, sign):
    """Adjoint for ``x`` of ``np.maximum(x, other)`` (``sign`` 1) or ``np.minimum`` (-1)
    of values that may be complex, in NumPy's order (real part, then imaginary part):
    ``grad`` where ``x`` is taken, half of it where ``x == other``, as for real values.
    Equal real parts with different imaginary parts are a jump: refused."""
    equal = order_ties_checked(x, other, "np.maximum/np.minimum")
    if sign > 0:
        taken = x > other
    else:
        taken = x < other
    return grad * np.where(taken, 1.0, np.where(equal, 0.5, 0.0))


def order_ties_checked(a, b, what):
    """``a == b`` (broadcast), once complex ``a`` and ``b`` whose real parts are equal where
    the values are not are refused: NumPy's order puts them by imaginary part there, and
    a small move of a real part flips it, so the selected value jumps (no derivative)."""
    equal = a == b
    if (is_complex(a) or is_complex(b)) and bool(np.any(np.logical_and(
            np.real(a) == np.real(b), np.logical_not(equal)))):
        not_differentiable(f"{what} of complex values whose real parts tie and imaginary "
                           "parts differ (NumPy orders complex values by real part, then "
                           "imaginary part: the result jumps there)")
    return equal
