"""Helpers of the ``sequences`` rules (``rules/sequences.py``), reached as ``_sg.<name>``.

Each is plain Python over NumPy functions that have rules, so that adjoint
code calling it can be differentiated again (``tests/test_rule_table.py``
reads them). The planning helpers at the end compute shapes and offsets and
are listed in the rules' ``NONDIFF``.

``lead`` is the number of leading axes of seed rows on ``g``: 0, or 1 in the
row forms of ``tape.jacobian``; forward values never have them.
"""
import numpy as np

try:
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # NumPy 1.x
    from numpy.core.numeric import normalize_axis_tuple

from .adjoints import axis_slice, not_differentiable
from .selection import complex_input, sum_lead

__all__ = [
    # differentiable
    "cumprod_grad", "cumprod_last_grad", "diff_grad", "conv_grad", "valid_correlate",
    "kron_grad", "cross_grad", "cross_vectors", "sinc_slope", "gradient_grad",
    "gradient_axis_grad",
    # planning (non-differentiable)
    "diff_pieces", "conv_padding", "correlate_windows", "kron_plan", "cross_plan",
    "gradient_plan", "gradient_written_plan", "integer_dtype",
    "gradient_dtype",
]


# ---------------------------------------------------------------------------
# Differentiable helpers
# ---------------------------------------------------------------------------

def cumprod_grad(g, ans, a, axis, lead):
    """Adjoint of ``ans = np.cumprod(a, axis)`` (``a`` flattened for None)."""
    if axis is None:
        out = cumprod_last_grad(g, ans, np.ravel(a))
        return np.reshape(out, np.shape(g)[:lead] + np.shape(a))
    axis = axis % np.ndim(a)
    out = cumprod_last_grad(np.moveaxis(g, lead + axis, -1), np.moveaxis(ans, axis, -1),
                            np.moveaxis(a, axis, -1))
    return np.moveaxis(out, -1, lead + axis)


def cumprod_last_grad(g, ans, a):
    """Adjoint of ``ans = np.cumprod(a, -1)``, exact where ``a`` has zeros.

    Element ``j`` gets ``sum_{i >= j} g_i prod_{k <= i, k != j} a_k``. Where no
    product is 0 (no zero in ``a``, nothing underflowed) nor infinite, that is
    a reversed cumulative sum of ``g * ans`` over ``a``. Otherwise it is
    ``before_j * s_j``, ``before_j`` the product of the elements before ``j`` and
    ``s_j = g_j + a_{j+1} s_{j+1}``: products and sums only, so that its
    derivatives are exact at the zeros too (one step per element).
    """
    if np.all(ans != 0) and np.all(np.isfinite(ans)):
        return np.flip(np.cumsum(np.flip(g * ans, -1), -1), -1) / a
    n = np.shape(a)[-1]
    s = g[..., n - 1]
    later = [s]
    for k in range(n - 1):
        s = g[..., n - 2 - k] + a[..., n - 1 - k] * s
        later = later + [s]
    ones = np.ones(np.shape(a)[:-1] + (1,))
    before = np.cumprod(np.concatenate([ones, a[..., :n - 1]], -1), -1)
    return np.flip(np.stack(later, -1), -1) * before


def diff_grad(g, a, n, axis, prepend, append, which, lead):
    """Adjoint of ``np.diff(a, n, axis, prepend=prepend, append=append)`` for ``prepend``
    (``which`` 0), ``a`` (1) or ``append`` (2); None stands for NumPy's no value.

    One difference's adjoint is minus the difference of ``g`` padded with a 0 at
    both ends; the result is then split as ``prepend``, ``a`` and ``append`` were
    joined.
    """
    start, stop = diff_pieces(a, n, axis, prepend, append, which)
    axis = lead + axis % np.ndim(a)
    for k in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    piece = g[axis_slice(np.ndim(g), axis, start, stop)]
    if which == 0:
        return sum_lead(piece, prepend, lead)
    if which == 2:
        return sum_lead(piece, append, lead)
    return piece


def conv_grad(g, a, v, mode, flip, which, lead):
    """Adjoint of ``np.convolve(a, v, mode)`` (``flip`` False) or ``np.correlate(a, v,
    mode)`` (True) for ``a`` (``which`` 0) or ``v`` (1).

    Both are the full convolution of ``a`` with ``w`` (``v``, reversed for
    correlate), cut to ``mode``: ``g`` is padded back to the full length, and
    the adjoints of a full convolution are valid correlations with the other
    operand.
    """
    if complex_input(a) or complex_input(v):
        return not_differentiable("np.convolve/np.correlate of complex arrays (complex inputs "
                                  "are not supported)")
    rows = np.shape(g)[:lead]
    before, after = conv_padding(np.size(a), np.size(v), mode, flip)
    full = np.concatenate([np.zeros(rows + (before,)), g, np.zeros(rows + (after,))], -1)
    w = np.ravel(v)
    if flip:
        w = np.flip(w)
    if which == 0:
        return np.reshape(valid_correlate(full, w, lead), rows + np.shape(a))
    out = valid_correlate(full, np.ravel(a), lead)
    if flip:
        out = np.flip(out, -1)
    return np.reshape(out, rows + np.shape(v))


def valid_correlate(x, w, lead):
    """``np.correlate(x, w, 'valid')`` along the last axis of ``x`` (``w`` 1-d, not longer),
    with ``lead`` leading axes on ``x``."""
    if lead == 0:
        return np.correlate(x, w, "valid")
    return np.matmul(x[..., correlate_windows(np.shape(x)[-1], np.size(w))], w)


def kron_grad(g, a, b, which, lead):
    """Adjoint of ``np.kron(a, b)`` for ``a`` (``which`` 0) or ``b`` (1).

    The result is ``a`` and ``b`` with their axes interleaved, multiplied and
    merged pairwise: ``g`` split the same way, times the other operand, summed
    over the other operand's axes.
    """
    rows = np.shape(g)[:lead]
    split, a_shape, b_shape, a_axes, b_axes = kron_plan(np.shape(a), np.shape(b), lead)
    parts = np.reshape(g, rows + split)
    if which == 0:
        return np.reshape(np.sum(parts * np.reshape(b, b_shape), axis=b_axes),
                          rows + np.shape(a))
    return np.reshape(np.sum(parts * np.reshape(a, a_shape), axis=a_axes), rows + np.shape(b))


def cross_grad(g, a, b, axisa, axisb, axisc, axis, which, lead):
    """Adjoint of ``np.cross(a, b, axisa, axisb, axisc, axis)`` for ``a`` (``which`` 0) or
    ``b`` (1): ``b x g`` and ``g x a``, with 2-vectors taken as 3-vectors with a
    zero third component (and a scalar result as the third component)."""
    axisa, axisb, axisc, planar = cross_plan(np.shape(a), np.shape(b), axisa, axisb, axisc,
                                             axis, np.ndim(g) - lead)
    if planar:
        vector = np.stack([np.zeros(np.shape(g)), np.zeros(np.shape(g)), g], -1)
    else:
        vector = np.moveaxis(g, lead + axisc, -1)
    if which == 0:
        like = np.moveaxis(a, axisa, -1)
        out = np.cross(cross_vectors(b, axisb), vector)
        return np.moveaxis(sum_lead(out[..., :np.shape(like)[-1]], like, lead), -1, lead + axisa)
    like = np.moveaxis(b, axisb, -1)
    out = np.cross(vector, cross_vectors(a, axisa))
    return np.moveaxis(sum_lead(out[..., :np.shape(like)[-1]], like, lead), -1, lead + axisb)


def cross_vectors(x, axis):
    """The vectors of ``x`` along ``axis`` moved last, 2-vectors given a zero third component."""
    x = np.moveaxis(x, axis, -1)
    if np.shape(x)[-1] == 3:
        return x
    return np.concatenate([x, np.zeros(np.shape(x)[:-1] + (1,))], -1)


def sinc_slope(x):
    """The derivative of ``np.sinc`` at ``x``: ``(cos(pi x) - sinc(x)) / x``, 0 at 0.

    Near 0 (``|pi x| < 0.1``) its Taylor polynomial, exact there to rounding, so
    that derivatives of the slope are right at 0 too; elsewhere the formula at a
    safe ``x`` (a divisor that is never 0).
    """
    u = np.pi * x
    u2 = u * u
    small = np.abs(u) < 0.1
    series = np.pi * u * (-1.0 / 3.0 + u2 * (1.0 / 30.0 + u2 * (-1.0 / 840.0 + u2 / 45360.0)))
    safe = np.where(small, 1.0, x)
    return np.where(small, series, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)


def gradient_grad(g, f, varargs, axis, edge_order, lead):
    """Adjoint of ``np.gradient(f, *varargs, axis=axis)`` with scalar spacings and
    ``edge_order`` 1: ``g`` is one adjoint, or a list of one per axis. (Called with
    spacings or ``edge_order``, ``np.gradient`` is written out instead:
    ``rules/sequences.gradient``.)"""
    axes, spacings = gradient_plan(np.ndim(f), varargs, axis, edge_order)
    if len(axes) == 1:
        return gradient_axis_grad(g, lead + axes[0], spacings[0])
    out = gradient_axis_grad(g[0], lead + axes[0], spacings[0])
    for k in range(1, len(axes)):
        out = out + gradient_axis_grad(g[k], lead + axes[k], spacings[k])
    return out


def gradient_axis_grad(g, axis, h):
    """Adjoint of ``np.gradient`` along one axis (spacing ``h``, first-order edges): the
    central differences ``(f[i+1] - f[i-1]) / 2h`` inside and the one-sided ones
    ``(f[1] - f[0]) / h``, ``(f[-1] - f[-2]) / h`` at the ends, transposed."""
    moved = np.moveaxis(g, axis, -1)
    n = np.shape(moved)[-1]
    one = np.zeros(np.shape(moved)[:-1] + (1,))
    rest = np.zeros(np.shape(moved)[:-1] + (n - 2,))
    inner = moved[..., 1:n - 1] / (2.0 * h)
    first = moved[..., :1] / h
    last = moved[..., n - 1:] / h
    out = np.concatenate([one, one, inner], -1) - np.concatenate([inner, one, one], -1) \
        + np.concatenate([-first, first, rest], -1) + np.concatenate([rest, -last, last], -1)
    return np.moveaxis(out, -1, axis)


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

def diff_pieces(a, n, axis, prepend, append, which):
    """Where ``prepend`` (``which`` 0), ``a`` (1) or ``append`` (2) lie along ``axis`` of
    what ``np.diff`` joined: ``(start, stop)``. (With ``n=0`` nothing is joined.)"""
    axis = axis % np.ndim(a)

    def length(x):
        if x is None or n == 0:
            return 0
        return 1 if np.ndim(x) == 0 else np.shape(x)[axis]

    sizes = [length(prepend), np.shape(a)[axis], length(append)]
    return sum(sizes[:which]), sum(sizes[:which + 1])


_CONV_MODES = ("full", "same", "valid")


def conv_padding(n, m, mode, flip):
    """How many zeros go before and after the adjoint of ``np.convolve``'s (``flip``
    False) or ``np.correlate``'s result of ``mode``, for operands of lengths ``n``
    and ``m``, to make it that of their full convolution."""
    if mode not in _CONV_MODES:
        not_differentiable(f"np.convolve/np.correlate with mode={mode!r}")
    short = min(n, m)
    full = n + m - 1
    if mode == "full":
        return 0, 0
    if mode == "valid":
        return short - 1, short - 1
    # 'same': length max(n, m), centred as NumPy centres it (it swaps the
    # operands when the second is longer, and correlate then reverses).
    if flip and m > n:
        before = n // 2
    else:
        before = short - 1 - short // 2
    return before, full - max(n, m) - before


def correlate_windows(n, m):
    """Indices ``i + j`` (``i < n - m + 1``, ``j < m``): the windows of a valid correlation."""
    return np.arange(n - m + 1)[:, None] + np.arange(m)


def kron_plan(shape_a, shape_b, lead):
    """For ``np.kron`` of arrays of these shapes (padded with leading 1s to one rank): the
    result's axes split as ``(a0, b0, a1, b1, ...)``, ``a`` and ``b`` reshaped to
    broadcast into that, and the axes of ``b`` and of ``a`` in it (after ``lead``)."""
    nd = max(len(shape_a), len(shape_b))
    sa = (1,) * (nd - len(shape_a)) + tuple(shape_a)
    sb = (1,) * (nd - len(shape_b)) + tuple(shape_b)
    split = tuple(n for pair in zip(sa, sb) for n in pair)
    a_shape = tuple(n for k in sa for n in (k, 1))
    b_shape = tuple(n for k in sb for n in (1, k))
    a_axes = tuple(lead + 2 * i for i in range(nd))
    b_axes = tuple(lead + 2 * i + 1 for i in range(nd))
    return split, a_shape, b_shape, a_axes, b_axes


def cross_plan(shape_a, shape_b, axisa, axisb, axisc, axis, ndim_c):
    """For ``np.cross``: ``axisa``, ``axisb`` and ``axisc`` (the result's vector axis)
    made non-negative, and whether the result is a scalar per vector pair (both
    2-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    axisa, axisb = axisa % len(shape_a), axisb % len(shape_b)
    planar = shape_a[axisa] == 2 and shape_b[axisb] == 2
    return axisa, axisb, 0 if planar else axisc % ndim_c, planar


def gradient_plan(ndim, varargs, axis, edge_order):
    """For ``np.gradient``: the axes differentiated along and the spacing along each.
    Only scalar spacings and ``edge_order=1``."""
    if edge_order != 1:
        not_differentiable(f"np.gradient with edge_order={edge_order}")
    if axis is None:
        axes = tuple(range(ndim))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(int(ax) % ndim for ax in axis)
    else:
        axes = (int(axis) % ndim,)
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacings = list(varargs) * len(axes)
    else:
        spacings = list(varargs)
    if any(np.ndim(h) != 0 for h in spacings):
        not_differentiable("np.gradient with coordinate arrays as spacing, unpacked from a "
                           "sequence srcgrad cannot count (pass them by position: "
                           "np.gradient(f, x) or np.gradient(f, x, y))")
    return axes, [float(h) for h in spacings]


def gradient_written_plan(shape, spacing_shapes, axis, edge_order):
    """For ``np.gradient`` written out (``rules/sequences.gradient``): the axes, once the
    arguments are checked as NumPy checks them (its errors, word for word)."""
    ndim = len(shape)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = normalize_axis_tuple(axis, ndim)
    n = len(spacing_shapes)
    if n == 1 and len(spacing_shapes[0]) == 0:
        pass
    elif n != 0 and n != len(axes):
        raise TypeError("invalid number of arguments")
    elif n != 0:
        for ax, spacing in zip(axes, spacing_shapes):
            if len(spacing) > 1:
                raise ValueError("distances must be either scalars or 1d")
            if len(spacing) == 1 and spacing[0] != shape[ax]:
                raise ValueError("when 1d, distances must match "
                                 "the length of the corresponding dimension")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if edge_order not in (1, 2):
        not_differentiable(f"np.gradient with edge_order={edge_order!r} (NumPy documents 1 "
                           "and 2: pass one of them)")
    for ax in axes:
        if shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
    return axes


def integer_dtype(value):
    """Is ``value`` (an array, a list, a number) of an integer dtype?"""
    return np.asarray(value).dtype.kind in "iu"


def gradient_dtype(f):
    """The dtype of ``np.gradient(f, ...)``: ``f``'s when floating or complex, else float64."""
    dtype = np.asarray(f).dtype
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)
