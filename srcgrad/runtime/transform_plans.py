"""Helpers of ``rules/transforms.py``, reached as ``_sg.<name>``.

Every one is a planning helper, listed in ``NONDIFF``: it reads shapes, dtypes and
options, never a differentiable value, so what it returns is a constant of the
differentiated code. The transforms themselves are written out in
``rules/transforms.py`` over functions with rules (``np.fft``, ``np.matmul``,
``np.pad``, ``scipy.signal.convolve``).

The DCT/DST family (and ``scipy.fftpack.rfft``/``irfft``, whose real packing is
another real-linear map) is applied as the matrix of the map along each axis: the
matrix is computed by the library itself, on the identity, with the call's own
options (``n``, ``type``, ``norm``, ``orthogonalize``), so it is the library's map
whatever its conventions; truncation and zero-padding are in its columns.
"""
import functools
import operator

import numpy as np

from .adjoints import not_differentiable

__all__ = [
    "fft_options", "fft_axes", "fftpack_axes", "fft_bins", "freq_options",
    "linear_plan", "conv2d_plan", "conv_axes_plan", "swapped_norm", "real_only",
]


def fft_options(name, overwrite_x, plan=None):
    """Refuse the options of ``scipy.fft.<name>`` whose effect the rewrite does not model:
    ``overwrite_x=True`` (SciPy may destroy the input the gradient reads) and a
    precomputed ``plan`` (``workers`` only changes the speed)."""
    if overwrite_x:
        not_differentiable(f"{name} with overwrite_x=True (the input may be overwritten; "
                           "pass overwrite_x=False)")
    if plan is not None:
        not_differentiable(f"{name} with plan= (pass plan=None)")


def fft_axes(s, axes):
    """``axes`` of an n-d transform, as SciPy reads them: with ``s`` given and no ``axes``,
    the last ``len(s)`` axes (NumPy 2 wants them spelled out)."""
    if s is not None and axes is None:
        return tuple(range(-len(s), 0))
    return axes


def fftpack_axes(ndim, shape, axes):
    """``(s, axes)`` of ``scipy.fftpack.fftn(x, shape, axes)``: a ``shape`` without ``axes``
    must name every axis; an int is one axis."""
    if shape is None:
        return None, axes
    if np.ndim(shape) == 0:
        shape = (operator.index(shape),)
    shape = tuple(shape)
    if axes is None:
        if len(shape) != ndim:
            raise ValueError("when given, axes and shape arguments have to be of the same length")
        axes = tuple(range(ndim))
    elif np.ndim(axes) == 0:
        axes = (operator.index(axes),)
    if len(shape) != len(axes):
        raise ValueError("when given, axes and shape arguments have to be of the same length")
    return shape, tuple(axes)


def fft_bins(n, real):
    """The integer frequencies of ``np.fft.fftfreq(n)`` (``rfftfreq`` when ``real``), as
    NumPy builds them before it scales them by ``1 / (n * d)``."""
    n = operator.index(n)
    if real:
        return np.arange(0, n // 2 + 1, dtype=int)
    half = (n - 1) // 2 + 1
    return np.concatenate([np.arange(0, half, dtype=int), np.arange(-(n // 2), 0, dtype=int)])


def freq_options(name, xp, device):
    """Refuse ``xp=``/``device=`` of ``scipy.fft.<name>`` other than NumPy on the CPU."""
    if xp is not None and xp is not np:
        not_differentiable(f"scipy.fft.{name} with xp={xp!r} (only NumPy arrays)")
    if device not in (None, "cpu"):
        not_differentiable(f"scipy.fft.{name} with device={device!r}")


# ---------------------------------------------------------------------------
# Real-linear transforms along axes, as matrices
# ---------------------------------------------------------------------------

def _library():
    import scipy.fft as sfft
    import scipy.fftpack as fftpack

    out = {}
    for kind in ("dct", "idct", "dst", "idst"):
        out[f"scipy.fft.{kind}"] = getattr(sfft, kind)
        out[f"scipy.fft.{kind}n"] = getattr(sfft, kind + "n")
        out[f"scipy.fftpack.{kind}"] = getattr(fftpack, kind)
        out[f"scipy.fftpack.{kind}n"] = getattr(fftpack, kind + "n")
    out["scipy.fftpack.rfft"] = fftpack.rfft
    out["scipy.fftpack.irfft"] = fftpack.irfft
    return out


@functools.lru_cache(maxsize=None)
def _functions():
    return _library()


@functools.lru_cache(maxsize=256)
def _matrix(name, m, options):
    """The matrix (transposed: ``(m, length out)``) of the 1-D map ``name`` with
    ``options`` (keywords, ``axis`` aside) on inputs of length ``m``."""
    fn = _functions()[name]
    matrix = np.asarray(fn(np.eye(m), axis=0, **dict(options)))
    out = np.ascontiguousarray(matrix.T)
    out.setflags(write=False)
    return out


def _keywords(name, type_, norm, orthogonalize):
    if name.endswith("rfft"):  # (scipy.fftpack.rfft/irfft: no type, no norm)
        return ()
    out = [("type", type_), ("norm", norm)]
    if name.startswith("scipy.fft.") and orthogonalize is not None:
        out.append(("orthogonalize", orthogonalize))
    return tuple(out)


def linear_plan(name, shape, dtype, type_, n, axis, norm, orthogonalize=None, nd=False,
                overwrite_x=False):
    """The steps ``[(axis, matrix), ...]`` of the real-linear transform ``name``
    (``scipy.fft.dct``, ``scipy.fftpack.dstn``, ``scipy.fftpack.rfft`` ...) of an input
    of ``shape`` and ``dtype``: ``x @ matrix`` along each ``axis`` in turn.

    ``n``/``axis`` are ``s``/``axes`` for the n-d forms (``nd``), which apply the 1-D map
    along each axis with its own length. The library is run first on zeros of the
    input's shape with every option, so that a call it refuses raises its own error;
    the result's shape is checked against the plan's.
    """
    if overwrite_x:
        not_differentiable(f"{name} with overwrite_x=True (the input may be overwritten; "
                           "pass overwrite_x=False)")
    shape = tuple(shape)
    dtype = np.dtype(dtype)
    fn = _functions()[name]
    keywords = dict(_keywords(name, type_, norm, orthogonalize))
    if dtype.kind == "c":
        if name.startswith("scipy.fftpack.") and name.endswith("rfft"):
            raise TypeError("x must be a real sequence")
        if name.startswith("scipy.fft.") and orthogonalize is not None \
                and bool(orthogonalize) != (norm == "ortho"):
            # (SciPy's own result for complex values is then not its real map applied to
            # the real and imaginary parts: its value is not modelled.)
            not_differentiable(f"{name} of complex values with orthogonalize={orthogonalize!r}"
                               f" and norm={norm!r} (transform x.real and x.imag apart)")
    if dtype.kind not in "biufc":
        not_differentiable(f"{name} of {dtype} values")
    probe = np.zeros(shape)
    if nd:
        expected = np.shape(fn(probe, s=n, axes=axis, **keywords)) if name.startswith("scipy.fft.") \
            else np.shape(fn(probe, shape=n, axes=axis, **keywords))
        lengths, axes = _nd_lengths(name, shape, n, axis)
    else:
        expected = np.shape(fn(probe, n=n, axis=axis, **keywords))
        lengths, axes = [n], [operator.index(axis) % len(shape)]
    steps = []
    out_shape = list(shape)
    for length, ax in zip(lengths, axes):
        options = dict(keywords, n=length)
        matrix = _matrix(name.rstrip("n") if nd else name, shape[ax], tuple(sorted(options.items())))
        if dtype == np.float32 or dtype == np.complex64:
            matrix = matrix.astype(np.float32)
        steps.append((ax, matrix))
        out_shape[ax] = matrix.shape[1]
    if tuple(out_shape) != tuple(expected):  # (never, unless SciPy changes what s means)
        not_differentiable(f"{name} with s/shape={n!r}, axes={axis!r}")
    return steps


def _nd_lengths(name, shape, s, axes):
    """Each axis of an n-d real transform and its length, as SciPy completes them."""
    ndim = len(shape)
    if name.startswith("scipy.fftpack."):
        if s is not None and np.ndim(s) == 0:
            s = (s,)
        if axes is None:
            axes = tuple(range(ndim))
        elif np.ndim(axes) == 0:
            axes = (axes,)
        axes = [operator.index(a) % ndim for a in axes]
        if s is None:
            s = [shape[a] for a in axes]
    else:
        if s is not None and np.ndim(s) == 0:
            s = (s,)
        if axes is not None and np.ndim(axes) == 0:
            axes = (axes,)
        if axes is None:
            axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
        axes = [operator.index(a) % ndim for a in axes]
        if s is None:
            s = [shape[a] for a in axes]
    s = [shape[a] if length == -1 else operator.index(length) for length, a in zip(s, axes)]
    return s, axes


# ---------------------------------------------------------------------------
# scipy.signal's 2-d convolutions and convolutions along axes
# ---------------------------------------------------------------------------

_BOUNDARIES = {"fill": "constant", "pad": "constant", "wrap": "wrap", "circular": "wrap",
               "symm": "symmetric", "symmetric": "symmetric"}


def conv2d_plan(name, in1, in2, mode, boundary, flip, fillvalue=0):
    """For ``scipy.signal.convolve2d`` (``correlate2d`` when ``flip``): the ``np.pad``
    widths and mode that extend ``in1`` by its boundary so that a 'valid' convolution
    of it gives the ``mode`` result (None for 'valid', where no boundary is read).

    'full' reads ``m - 1`` values beyond each side; 'same' keeps the centre of 'full',
    which starts ``(m - 1) // 2`` in for ``convolve2d`` and ``m // 2`` in for
    ``correlate2d`` (SciPy centres them apart for even kernel sizes). Complex arrays
    are refused (``scipy.signal.convolve``'s rule takes real ones).
    """
    if np.iscomplexobj(in1) or np.iscomplexobj(in2) or np.iscomplexobj(fillvalue):
        not_differentiable(f"scipy.signal.{name} of complex arrays (complex inputs are not "
                           "supported)")
    shape1, shape2 = np.shape(in1), np.shape(in2)
    if len(shape1) != 2 or len(shape2) != 2:
        raise ValueError(f"{name} inputs must both be 2-D arrays")
    if mode not in ("full", "same", "valid"):
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")
    if boundary not in _BOUNDARIES:
        raise ValueError("Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), "
                         "and 'symmetric' (or 'symm').")
    if mode == "valid":
        return None, None
    pads = []
    for m in shape2:
        if mode == "full":
            pads.append((m - 1, m - 1))
        else:
            start = m // 2 if flip else (m - 1) // 2
            pads.append((m - 1 - start, start))
    return tuple(pads), _BOUNDARIES[boundary]


def conv_axes_plan(name, shape1, shape2, mode, axes):
    """For ``scipy.signal.fftconvolve(in1, in2, mode, axes)`` (and ``oaconvolve``), as SciPy
    reads ``axes``: the axes convolved are those named (every one by default) where
    neither operand has length 1; along the others the operands broadcast.

    Returns ``(order, inverse, shape1, shape2, batch, crop)``: the transpose that puts
    the broadcast axes first, its inverse, each operand's shape once broadcast there
    (the broadcast axes raveled into one), the broadcast shape, and for 'same' the
    index cutting the broadcast axes to ``in1``'s (SciPy centres the whole result on
    ``in1``'s shape), else None.
    """
    shape1, shape2 = tuple(shape1), tuple(shape2)
    ndim = len(shape1)
    if len(shape2) != ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in ("full", "same", "valid"):
        raise ValueError("acceptable mode flags are 'valid', 'same', or 'full'")
    if ndim == 0 or 0 in shape1 or 0 in shape2:
        not_differentiable(f"{name} of 0-d or empty arrays")
    named = axes is not None
    if axes is None:
        axes = tuple(range(ndim))
    elif np.ndim(axes) == 0:
        axes = (axes,)
    axes = [operator.index(a) for a in axes]
    if named and not axes:
        raise ValueError("when provided, axes cannot be empty")
    if any(not -ndim <= a < ndim for a in axes):
        raise ValueError("axes exceeds dimensionality of input")
    axes = [a % ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError("all axes must be unique")
    axes = sorted(a for a in axes if shape1[a] != 1 and shape2[a] != 1)
    others = [a for a in range(ndim) if a not in axes]
    if not all(shape1[a] == shape2[a] or shape1[a] == 1 or shape2[a] == 1 for a in others):
        raise ValueError(f"incompatible shapes for in1 and in2: {shape1} and {shape2}")
    batch = tuple(max(shape1[a], shape2[a]) for a in others)
    order = tuple(others + axes)
    inverse = tuple(int(i) for i in np.argsort(order))
    size = int(np.prod(batch, dtype=int))
    conv1 = tuple(shape1[a] for a in axes)
    conv2 = tuple(shape2[a] for a in axes)
    crop = None
    if mode == "same":
        crop = [slice(None)] * ndim
        for a, n in zip(others, batch):
            start = (n - shape1[a]) // 2
            crop[a] = slice(start, start + shape1[a])
        crop = tuple(crop)
    return order, inverse, (batch + conv1, (size,) + conv1), (batch + conv2, (size,) + conv2), \
        batch, crop


_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def swapped_norm(norm):
    """The ``norm`` of the opposite direction (SciPy's ``_swap_direction``): ``hfftn`` is
    ``irfftn`` of the conjugate with it, ``ihfftn`` the conjugate of ``rfftn`` with it."""
    try:
        return _SWAPPED_NORM[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm!r}, should be "backward", "ortho" '
                         'or "forward"') from None


def real_only(name, x):
    """SciPy's refusal of a complex input to a transform of real values."""
    if np.iscomplexobj(x):
        raise TypeError(f"x must be a real sequence ({name} of a complex array)")
