"""Arithmetic of polynomials given as coefficients (highest power first), written out over
functions with rules (as ``rewrites.py``): the compiler inlines them as the user's code,
so the adjoint, tangent, tape and second derivatives follow. Each is NumPy's own
computation, its recursions written as loops.

- ``np.polyadd``/``np.polysub``: the shorter operand given leading zeros of its own
  dtype; nothing trimmed.
- ``np.polyder(p, m)``/``np.polyint(p, m, k)``: ``m`` times NumPy's step (``k`` the
  constants of integration: None, a scalar or one item for all, else one each; it may be
  differentiated too).
- ``np.polymul``: NumPy makes each operand a ``poly1d``, which drops leading zeros (all
  zeros become ``[0]``), then convolves them: the dropped zeros get no gradient.
- ``np.polydiv``: NumPy's long division, the leading coefficient's reciprocal times each
  step's first remainder coefficient, then the remainder's leading coefficients within
  ``1e-8`` of zero dropped (NumPy's ``allclose`` test, run on the same values, so the
  same shape): the dropped ones get no gradient. They are zero but for rounding where
  the division cancels them, so their derivative is zero too; a remainder coefficient
  that is small but not cancelled is dropped by NumPy as well, its gradient with it.
- ``np.poly``: of 1-d real zeros (integers as float64, as ``np.mintypecode`` makes them),
  ``1.0`` of none. The zeros of a square matrix (its eigenvalues) and complex zeros are
  refused when the code runs.

A ``np.poly1d`` operand is refused when the code runs: NumPy's result would be a
``poly1d`` too.
"""
import numpy as np

from .. import runtime as _sg


def _refuse_poly1d(name, a1, a2=None):
    if isinstance(a1, np.poly1d) or isinstance(a2, np.poly1d):
        _sg.not_differentiable(f"np.{name} of a np.poly1d (use its coefficients, p.coeffs)")


def _padded(a1, a2):
    """Both operands at least 1-d, the shorter given leading zeros of its own dtype."""
    a1 = np.atleast_1d(a1)
    a2 = np.atleast_1d(a2)
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = np.concatenate((np.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = np.concatenate((np.zeros(-diff, a2.dtype), a2))
    return a1, a2


def polyadd(a1, a2):
    """``np.polyadd``: the coefficients added, the shorter padded with leading zeros."""
    _refuse_poly1d("polyadd", a1, a2)
    a1, a2 = _padded(a1, a2)
    return a1 + a2


def polysub(a1, a2):
    """``np.polysub``: the coefficients of ``a2`` subtracted, as ``polyadd`` pads them."""
    _refuse_poly1d("polysub", a1, a2)
    a1, a2 = _padded(a1, a2)
    return a1 - a2


def polyder(p, m=1):
    """``np.polyder``: the ``m``-th derivative's coefficients."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    _refuse_poly1d("polyder", p)
    p = np.asarray(p)
    if np.ndim(p) == 0:  # (NumPy takes len(p) before looking at m, so even for m=0)
        raise TypeError("len() of unsized object")
    for _ in range(m):
        p = p[:-1] * np.arange(len(p) - 1, 0, -1)
    return p


def polyint(p, m=1, k=None):
    """``np.polyint``: the ``m``-th antiderivative's coefficients, ``k[i]`` the constant
    term added at step ``i``."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = np.zeros(m, float)
    k = np.atleast_1d(k)
    if len(k) == 1 and m > 1:
        k = k[0] * np.ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    _refuse_poly1d("polyint", p)
    p = np.asarray(p)
    for i in range(m):
        p = np.concatenate((p / np.arange(len(p), 0, -1), k[i:i + 1]))
    return p


def _poly1d_coefficients(c):
    """The coefficients ``np.poly1d(c)`` keeps: at least 1-d, leading zeros dropped."""
    c = np.atleast_1d(c)
    if np.ndim(c) > 1:
        raise ValueError("Polynomial must be 1d only.")
    c = c[_sg.trim_zeros_slice(c, "f", None)]
    if len(c) == 0:
        return np.zeros(1, c.dtype)
    return c


def polymul(a1, a2):
    """``np.polymul``: the convolution of the coefficients, leading zeros dropped first."""
    _refuse_poly1d("polymul", a1, a2)
    return np.convolve(_poly1d_coefficients(a1), _poly1d_coefficients(a2))


def polydiv(u, v):
    """``np.polydiv``: quotient and remainder by NumPy's long division, the remainder's
    leading coefficients dropped as NumPy drops them."""
    _refuse_poly1d("polydiv", u, v)
    u = np.atleast_1d(u) + 0.0  # (integers and bools as float64, as NumPy's)
    v = np.atleast_1d(v) + 0.0
    if np.ndim(u) > 1 or np.ndim(v) > 1:
        _sg.not_differentiable("np.polydiv of coefficients with more than one axis")
    w = u[0] + v[0]  # (its dtype is the common one)
    m = len(u) - 1
    n = len(v) - 1
    scale = 1.0 / v[0]
    # (NumPy writes q[k] and r[k:k + n + 1] in place; the same operations joined
    # instead, so the code stays differentiable to any order. No cast is lost: d * v
    # has r's dtype already.)
    q = np.zeros((0,), w.dtype) if m >= n else np.zeros((1,), w.dtype)
    r = u.astype(w.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q = np.concatenate((q, np.reshape(d, (1,))))
        r = np.concatenate((r[:k], r[k:k + n + 1] - d * v, r[k + n + 1:]))
    # (NumPy's tolerance test on the computed values: the same coefficients dropped.)
    while np.allclose(r[0], 0, rtol=1e-14) and np.shape(r)[-1] > 1:
        r = r[1:]
    return q, r


def poly(seq_of_zeros):
    """``np.poly`` of 1-d real zeros: ``(x - z0)(x - z1)...``, one convolution a zero."""
    if np.ndim(seq_of_zeros) == 0:  # (NumPy's dispatcher iterates over its argument)
        raise TypeError("dispatcher for __array_function__ did not return an iterable")
    zeros = np.atleast_1d(seq_of_zeros)
    shape = np.shape(zeros)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        _sg.not_differentiable("np.poly of a square matrix (the polynomial of its "
                               "eigenvalues)")
    elif len(shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if np.iscomplexobj(zeros) or zeros.dtype == object:
        _sg.not_differentiable("np.poly of complex or object zeros")
    dtype = _sg.poly_zeros_dtype(zeros)
    zeros = zeros.astype(dtype)
    if len(zeros) == 0:
        return 1.0
    a = np.ones((1,), dtype=dtype)
    for zero in zeros:
        a = np.convolve(a, np.array([1, -zero], dtype=dtype), mode="full")
    return a


REWRITES = {np.polyadd: polyadd, np.polysub: polysub, np.polyder: polyder,
            np.polyint: polyint, np.polymul: polymul, np.poly: poly,
            np.polydiv: polydiv}
