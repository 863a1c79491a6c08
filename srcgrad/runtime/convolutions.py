"""Helpers of the ``convolutions`` rules (``rules/convolutions.py``), reached as ``_sg.<name>``.

``scipy.signal.convolve(in1, in2, mode)`` of n-d arrays is their full
convolution cut to ``mode``, and ``correlate`` is the same with ``in2`` reversed
along every axis (``tests/test_convolution_rules.py`` checks both against SciPy).
The adjoints are valid correlations of the adjoint padded back to the full
size; they are computed here with NumPy (sums of shifted slices), exactly, so
that adjoint code calling them can be differentiated again by the table's
rules (``tests/test_rule_table.py`` reads them).

``lead`` is the number of leading axes of seed rows on ``g``: 0, or 1 in the
row forms of ``tape.jacobian``; forward values never have them. The planning
helpers at the end compute shapes and slices and are non-differentiable.
"""
import numpy as np

from .adjoints import not_differentiable
from .selection import complex_input

__all__ = [
    # differentiable
    "signal_conv_grad", "valid_correlate_nd", "convolve2d_tangent",
    # planning (non-differentiable)
    "signal_conv_mode", "signal_conv_padding", "correlate_slices", "trailing_axes",
]


def signal_conv_grad(g, in1, in2, mode, flip, which, lead, name="convolve", axes=None,
                     boundary="fill", fillvalue=0):
    """Adjoint of ``scipy.signal.convolve(in1, in2, mode)`` (``flip`` False) or
    ``correlate`` (True) for ``in1`` (``which`` 0) or ``in2`` (1); ``name`` and the
    options after it: ``fftconvolve``'s, ``oaconvolve``'s or ``convolve2d``'s, which
    compute the same for the defaults (and are refused otherwise).

    With ``w`` the kernel (``in2``, reversed for correlate), the full result is
    ``F[k] = sum_i in1[i] w[k - i]``: ``g`` padded with zeros to ``F``'s shape (``G``)
    gives ``in1`` the valid correlation of ``G`` with ``w``, and ``w`` that of ``G``
    with ``in1``.
    """
    if complex_input(in1) or complex_input(in2):
        return not_differentiable("scipy.signal.convolve/correlate of complex arrays "
                                  "(complex inputs are not supported)")
    mode = signal_conv_mode(mode, name, axes, boundary, fillvalue)
    full = np.pad(g, signal_conv_padding(np.shape(in1), np.shape(in2), mode, lead))
    if which == 0:
        if flip:
            return valid_correlate_nd(full, np.flip(in2), lead)
        return valid_correlate_nd(full, in2, lead)
    out = valid_correlate_nd(full, in1, lead)
    if flip:
        return np.flip(out, trailing_axes(np.ndim(out), lead))
    return out


def valid_correlate_nd(x, w, lead):
    """``out[..., k] = sum_i x[..., k + i] w[i]`` over the last ``ndim(w)`` axes of ``x``
    (after ``lead`` axes of seed rows), ``w`` not longer than ``x`` along any of them.

    A sum of slices of ``x``, one per element of ``w``, or, when ``w`` has more
    elements than the result, one product with ``w`` per element of the result:
    either way the Python loop is over the smaller, the arithmetic exact.
    """
    shape, by_kernel, slices = correlate_slices(np.shape(x), np.shape(w), lead)
    if by_kernel:
        weights = np.ravel(w)
        total = 0.0
        for i in range(len(slices)):
            total = total + weights[i] * x[slices[i]]
        return total
    axes = trailing_axes(np.ndim(x), lead)
    parts = []
    for k in range(len(slices)):
        parts = parts + [np.sum(x[slices[k]] * w, axis=axes)]
    return np.reshape(np.stack(parts, -1), shape)


def convolve2d_tangent(in1, in1_dot, in2, in2_dot, mode, boundary, fillvalue):
    """Tangent of ``scipy.signal.convolve2d(in1, in2, mode, boundary, fillvalue)``: for
    the zero fill its rule takes, the convolution is bilinear in ``in1`` and ``in2``."""
    mode = signal_conv_mode(mode, "convolve2d", None, boundary, fillvalue)
    return np.add(convolve2d(in1_dot, in2, mode), convolve2d(in1, in2_dot, mode))


# ---------------------------------------------------------------------------
# Planning (non-differentiable)
# ---------------------------------------------------------------------------

_MODES = ("full", "same", "valid")


def signal_conv_mode(mode, name, axes, boundary, fillvalue):
    """``mode``, once the options whose gradient the rules do not model are refused:
    another mode, ``axes`` (of ``fftconvolve``/``oaconvolve``), a boundary other than
    a zero fill (``convolve2d``)."""
    if mode not in _MODES:
        not_differentiable(f"scipy.signal.{name} with mode={mode!r}")
    if axes is not None:
        not_differentiable(f"scipy.signal.{name} with axes={axes!r}")
    if boundary not in ("fill", "pad") or fillvalue != 0:
        not_differentiable(f"scipy.signal.{name} with boundary={boundary!r}, "
                           f"fillvalue={fillvalue!r} (only a zero fill)")
    return mode


def signal_conv_padding(shape1, shape2, mode, lead):
    """``np.pad`` widths taking the adjoint of a ``mode`` result of ``scipy.signal.convolve``
    of arrays of these shapes to that of the full result: SciPy's 'same' is ``in1``'s
    shape and 'valid' ``|n - m| + 1``, both centred in the full result (rounded down)."""
    pads = [(0, 0)] * lead
    for n, m in zip(shape1, shape2):
        full = n + m - 1
        if mode == "full":
            size = full
        elif mode == "same":
            size = n
        else:
            size = abs(n - m) + 1
        before = (full - size) // 2
        pads.append((before, full - size - before))
    return pads


def correlate_slices(x_shape, w_shape, lead):
    """For ``valid_correlate_nd``: the result's shape, whether to loop over the kernel's
    elements (else over the result's), and the index of ``x`` for each step: the
    slice shifted by a kernel element, or the window under a result element."""
    rows = tuple(x_shape[:lead])
    out = tuple(n - m + 1 for n, m in zip(x_shape[lead:], w_shape))
    by_kernel = int(np.prod(w_shape)) <= int(np.prod(out))
    steps = w_shape if by_kernel else out
    width = out if by_kernel else w_shape
    lead_slices = (slice(None),) * lead
    slices = [lead_slices + tuple(slice(i, i + n) for i, n in zip(index, width))
              for index in np.ndindex(*steps)]
    return rows + out, by_kernel, slices


def trailing_axes(ndim, lead):
    """The axes after ``lead`` leading ones."""
    return tuple(range(lead, ndim))


# scipy.signal's, for convolve2d's tangent: bound when a program has imported it
# (from_scipy.py).
convolve2d = None
