"""scipy.fft's transforms (the DCT and DST families among them), scipy.fftpack's, and
scipy.signal's 2-d convolutions with every boundary and its convolutions along
``axes``, when SciPy is installed (optional, never required); also ``np.fft.fftfreq``
and ``rfftfreq``, differentiable in the sample spacing ``d``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/transform_plans.py``, every one a planning helper
(``NONDIFF``) that reads shapes and options only.

- ``scipy.fft``'s complex transforms are NumPy's (``np.fft`` has rules), with
  ``overwrite_x=True`` and a ``plan`` refused, ``workers`` ignored.
- The DCT/DST family and ``scipy.fftpack.rfft``/``irfft`` are real-linear maps
  along axes: each is applied as the matrix of its 1-D map, which the library
  computes on the identity with the call's options (``_sg.linear_plan``).
- ``convolve2d``/``correlate2d``: ``in1`` extended by its boundary (``np.pad`` with
  the fill value, or wrapped, or mirrored), then a 'valid' ``scipy.signal.convolve``
  (checked against SciPy on every small shape, tests/test_transforms.py).
- ``fftconvolve``/``oaconvolve`` with ``axes``: ``scipy.signal.convolve`` of each
  pair of slices along the axes not convolved, which broadcast.
"""
import numpy as np

from .. import runtime as _sg

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = {_sg.fft_options, _sg.fft_axes, _sg.fftpack_axes, _sg.fft_bins, _sg.freq_options,
           _sg.linear_plan, _sg.conv2d_plan, _sg.conv_axes_plan, _sg.swapped_norm,
           _sg.real_only}
# Forward mode (``rules/tangents.py``).
EXPLICIT = {}


# ---------------------------------------------------------------------------
# Frequencies (NumPy's and SciPy's)
# ---------------------------------------------------------------------------

def fftfreq(n, d=1.0, device=None):
    """``np.fft.fftfreq``: the integer bins times ``1 / (n * d)``, as NumPy computes them
    (differentiable in ``d``)."""
    return _sg.fft_bins(n, False) * (1.0 / (n * d))


def rfftfreq(n, d=1.0, device=None):
    """``np.fft.rfftfreq``: the non-negative bins times ``1 / (n * d)``."""
    return _sg.fft_bins(n, True) * (1.0 / (n * d))


def scipy_fftfreq(n, d=1.0, *, xp=None, device=None):
    """``scipy.fft.fftfreq`` (NumPy's for NumPy arrays)."""
    _sg.freq_options("fftfreq", xp, device)
    return _sg.fft_bins(n, False) * (1.0 / (n * d))


def scipy_rfftfreq(n, d=1.0, *, xp=None, device=None):
    """``scipy.fft.rfftfreq`` (NumPy's for NumPy arrays)."""
    _sg.freq_options("rfftfreq", xp, device)
    return _sg.fft_bins(n, True) * (1.0 / (n * d))


def fftshift(x, axes=None):
    """``scipy.fft.fftshift``: NumPy's."""
    return np.fft.fftshift(x, axes)


def ifftshift(x, axes=None):
    """``scipy.fft.ifftshift``: NumPy's."""
    return np.fft.ifftshift(x, axes)


# ---------------------------------------------------------------------------
# scipy.fft's discrete Fourier transforms: NumPy's
# ---------------------------------------------------------------------------

def fft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fft``: ``np.fft.fft``."""
    _sg.fft_options("scipy.fft.fft", overwrite_x, plan)
    return np.fft.fft(x, n, axis, norm)


def ifft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifft``: ``np.fft.ifft``."""
    _sg.fft_options("scipy.fft.ifft", overwrite_x, plan)
    return np.fft.ifft(x, n, axis, norm)


def rfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfft``: ``np.fft.rfft`` (SciPy refuses complex values)."""
    _sg.fft_options("scipy.fft.rfft", overwrite_x, plan)
    _sg.real_only("scipy.fft.rfft", x)
    return np.fft.rfft(x, n, axis, norm)


def irfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfft``: ``np.fft.irfft``."""
    _sg.fft_options("scipy.fft.irfft", overwrite_x, plan)
    return np.fft.irfft(x, n, axis, norm)


def hfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfft``: ``np.fft.hfft``."""
    _sg.fft_options("scipy.fft.hfft", overwrite_x, plan)
    return np.fft.hfft(x, n, axis, norm)


def ihfft(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfft``: ``np.fft.ihfft`` (SciPy refuses complex values)."""
    _sg.fft_options("scipy.fft.ihfft", overwrite_x, plan)
    _sg.real_only("scipy.fft.ihfft", x)
    return np.fft.ihfft(x, n, axis, norm)


def fftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fftn``: ``np.fft.fftn`` (``s`` without ``axes``: the last axes)."""
    _sg.fft_options("scipy.fft.fftn", overwrite_x, plan)
    return np.fft.fftn(x, s, _sg.fft_axes(s, axes), norm)


def ifftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifftn``: ``np.fft.ifftn``."""
    _sg.fft_options("scipy.fft.ifftn", overwrite_x, plan)
    return np.fft.ifftn(x, s, _sg.fft_axes(s, axes), norm)


def rfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfftn``: ``np.fft.rfftn`` (SciPy refuses complex values)."""
    _sg.fft_options("scipy.fft.rfftn", overwrite_x, plan)
    _sg.real_only("scipy.fft.rfftn", x)
    return np.fft.rfftn(x, s, _sg.fft_axes(s, axes), norm)


def irfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfftn``: ``np.fft.irfftn``."""
    _sg.fft_options("scipy.fft.irfftn", overwrite_x, plan)
    return np.fft.irfftn(x, s, _sg.fft_axes(s, axes), norm)


def hfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfftn``: ``irfftn`` of the conjugate, in the opposite norm (as SciPy)."""
    _sg.fft_options("scipy.fft.hfftn", overwrite_x, plan)
    return np.fft.irfftn(np.conjugate(x), s, _sg.fft_axes(s, axes), _sg.swapped_norm(norm))


def ihfftn(x, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfftn``: the conjugate of ``rfftn`` in the opposite norm (as SciPy)."""
    _sg.fft_options("scipy.fft.ihfftn", overwrite_x, plan)
    _sg.real_only("scipy.fft.ihfftn", x)
    return np.conjugate(np.fft.rfftn(x, s, _sg.fft_axes(s, axes), _sg.swapped_norm(norm)))


def fft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.fft2``: ``np.fft.fft2``."""
    _sg.fft_options("scipy.fft.fft2", overwrite_x, plan)
    return np.fft.fftn(x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ifft2``: ``np.fft.ifft2``."""
    _sg.fft_options("scipy.fft.ifft2", overwrite_x, plan)
    return np.fft.ifftn(x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.rfft2``: ``np.fft.rfft2`` (SciPy refuses complex values)."""
    _sg.fft_options("scipy.fft.rfft2", overwrite_x, plan)
    _sg.real_only("scipy.fft.rfft2", x)
    return np.fft.rfftn(x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.irfft2``: ``np.fft.irfft2``."""
    _sg.fft_options("scipy.fft.irfft2", overwrite_x, plan)
    return np.fft.irfftn(x, s, axes, norm)


def hfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.hfft2``: ``hfftn`` over two axes."""
    _sg.fft_options("scipy.fft.hfft2", overwrite_x, plan)
    return np.fft.irfftn(np.conjugate(x), s, axes, _sg.swapped_norm(norm))


def ihfft2(x, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None):
    """``scipy.fft.ihfft2``: ``ihfftn`` over two axes."""
    _sg.fft_options("scipy.fft.ihfft2", overwrite_x, plan)
    _sg.real_only("scipy.fft.ihfft2", x)
    return np.conjugate(np.fft.rfftn(x, s, axes, _sg.swapped_norm(norm)))


# ---------------------------------------------------------------------------
# scipy.fftpack's complex transforms: NumPy's too (no norm)
# ---------------------------------------------------------------------------

def fftpack_fft(x, n=None, axis=-1, overwrite_x=False):
    """``scipy.fftpack.fft``: ``np.fft.fft``."""
    _sg.fft_options("scipy.fftpack.fft", overwrite_x)
    return np.fft.fft(x, n, axis)


def fftpack_ifft(x, n=None, axis=-1, overwrite_x=False):
    """``scipy.fftpack.ifft``: ``np.fft.ifft``."""
    _sg.fft_options("scipy.fftpack.ifft", overwrite_x)
    return np.fft.ifft(x, n, axis)


def fftpack_fftn(x, shape=None, axes=None, overwrite_x=False):
    """``scipy.fftpack.fftn``: ``np.fft.fftn`` (a ``shape`` without ``axes`` names every axis)."""
    _sg.fft_options("scipy.fftpack.fftn", overwrite_x)
    plan = _sg.fftpack_axes(np.ndim(x), shape, axes)
    return np.fft.fftn(x, plan[0], plan[1])


def fftpack_ifftn(x, shape=None, axes=None, overwrite_x=False):
    """``scipy.fftpack.ifftn``: ``np.fft.ifftn``."""
    _sg.fft_options("scipy.fftpack.ifftn", overwrite_x)
    plan = _sg.fftpack_axes(np.ndim(x), shape, axes)
    return np.fft.ifftn(x, plan[0], plan[1])


def fftpack_fft2(x, shape=None, axes=(-2, -1), overwrite_x=False):
    """``scipy.fftpack.fft2``: ``np.fft.fft2``."""
    _sg.fft_options("scipy.fftpack.fft2", overwrite_x)
    plan = _sg.fftpack_axes(np.ndim(x), shape, axes)
    return np.fft.fftn(x, plan[0], plan[1])


def fftpack_ifft2(x, shape=None, axes=(-2, -1), overwrite_x=False):
    """``scipy.fftpack.ifft2``: ``np.fft.ifft2``."""
    _sg.fft_options("scipy.fftpack.ifft2", overwrite_x)
    plan = _sg.fftpack_axes(np.ndim(x), shape, axes)
    return np.fft.ifftn(x, plan[0], plan[1])


# ---------------------------------------------------------------------------
# Real-linear maps along axes, as the library's own matrices
# ---------------------------------------------------------------------------

def _along_axes(x, steps):
    """``x`` times each step's matrix along its axis, in turn."""
    for step in steps:
        x = np.moveaxis(np.matmul(np.moveaxis(x, step[0], -1), step[1]), -1, step[0])
    return x


def _linear(name, x, type, n, axis, norm, orthogonalize, nd, overwrite_x):
    x = np.asarray(x)
    steps = _sg.linear_plan(name, np.shape(x), np.result_type(x), type, n, axis, norm,
                            orthogonalize, nd, overwrite_x)
    return _along_axes(x, steps)


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """``scipy.fft.dct``."""
    return _linear("scipy.fft.dct", x, type, n, axis, norm, orthogonalize, False, overwrite_x)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """``scipy.fft.idct``."""
    return _linear("scipy.fft.idct", x, type, n, axis, norm, orthogonalize, False, overwrite_x)


def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """``scipy.fft.dst``."""
    return _linear("scipy.fft.dst", x, type, n, axis, norm, orthogonalize, False, overwrite_x)


def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """``scipy.fft.idst``."""
    return _linear("scipy.fft.idst", x, type, n, axis, norm, orthogonalize, False, overwrite_x)


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         orthogonalize=None):
    """``scipy.fft.dctn``: ``dct`` along each axis."""
    return _linear("scipy.fft.dctn", x, type, s, axes, norm, orthogonalize, True, overwrite_x)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          orthogonalize=None):
    """``scipy.fft.idctn``: ``idct`` along each axis."""
    return _linear("scipy.fft.idctn", x, type, s, axes, norm, orthogonalize, True, overwrite_x)


def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
         orthogonalize=None):
    """``scipy.fft.dstn``: ``dst`` along each axis."""
    return _linear("scipy.fft.dstn", x, type, s, axes, norm, orthogonalize, True, overwrite_x)


def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *,
          orthogonalize=None):
    """``scipy.fft.idstn``: ``idst`` along each axis."""
    return _linear("scipy.fft.idstn", x, type, s, axes, norm, orthogonalize, True, overwrite_x)


def fftpack_dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False):
    """``scipy.fftpack.dct``."""
    return _linear("scipy.fftpack.dct", x, type, n, axis, norm, None, False, overwrite_x)


def fftpack_idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False):
    """``scipy.fftpack.idct``."""
    return _linear("scipy.fftpack.idct", x, type, n, axis, norm, None, False, overwrite_x)


def fftpack_dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False):
    """``scipy.fftpack.dst``."""
    return _linear("scipy.fftpack.dst", x, type, n, axis, norm, None, False, overwrite_x)


def fftpack_idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False):
    """``scipy.fftpack.idst``."""
    return _linear("scipy.fftpack.idst", x, type, n, axis, norm, None, False, overwrite_x)


def fftpack_dctn(x, type=2, shape=None, axes=None, norm=None, overwrite_x=False):
    """``scipy.fftpack.dctn``."""
    return _linear("scipy.fftpack.dctn", x, type, shape, axes, norm, None, True, overwrite_x)


def fftpack_idctn(x, type=2, shape=None, axes=None, norm=None, overwrite_x=False):
    """``scipy.fftpack.idctn``."""
    return _linear("scipy.fftpack.idctn", x, type, shape, axes, norm, None, True, overwrite_x)


def fftpack_dstn(x, type=2, shape=None, axes=None, norm=None, overwrite_x=False):
    """``scipy.fftpack.dstn``."""
    return _linear("scipy.fftpack.dstn", x, type, shape, axes, norm, None, True, overwrite_x)


def fftpack_idstn(x, type=2, shape=None, axes=None, norm=None, overwrite_x=False):
    """``scipy.fftpack.idstn``."""
    return _linear("scipy.fftpack.idstn", x, type, shape, axes, norm, None, True, overwrite_x)


def fftpack_rfft(x, n=None, axis=-1, overwrite_x=False):
    """``scipy.fftpack.rfft``: its packing ``[y0, Re y1, Im y1, ...]`` is a real-linear
    map of a real ``x`` (SciPy refuses complex values)."""
    return _linear("scipy.fftpack.rfft", x, None, n, axis, None, None, False, overwrite_x)


def fftpack_irfft(x, n=None, axis=-1, overwrite_x=False):
    """``scipy.fftpack.irfft``: the inverse of that packing, real-linear too."""
    return _linear("scipy.fftpack.irfft", x, None, n, axis, None, None, False, overwrite_x)


# ---------------------------------------------------------------------------
# scipy.signal: 2-d convolutions with a boundary, convolutions along axes
# ---------------------------------------------------------------------------

def _conv2d(name, in1, kernel, mode, boundary, fillvalue, flip):
    plan = _sg.conv2d_plan(name, in1, kernel, mode, boundary, flip, fillvalue)
    if plan[0] is None:  # 'valid' reads no boundary
        return _signal.convolve(in1, kernel, "valid")
    if plan[1] == "constant":
        if np.size(fillvalue) != 1:
            raise ValueError("fillvalue must be scalar or an array with one element.")
        extended = np.pad(in1, plan[0], "constant", constant_values=np.reshape(fillvalue, ()))
    else:
        extended = np.pad(in1, plan[0], plan[1])
    return _signal.convolve(extended, kernel, "valid")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.convolve2d``: ``in1`` extended by its boundary, then a 'valid'
    convolution (differentiable in ``in1``, ``in2`` and a fill value)."""
    return _conv2d("convolve2d", in1, in2, mode, boundary, fillvalue, False)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.correlate2d``: ``convolve2d`` with ``in2`` reversed, centred as SciPy
    centres it for 'same' (real arrays: SciPy also conjugates ``in2``)."""
    return _conv2d("correlate2d", in1, np.flip(in2), mode, boundary, fillvalue, True)


def _conv_along(name, in1, in2, mode, axes):
    plan = _sg.conv_axes_plan(name, np.shape(in1), np.shape(in2), mode, axes)
    a = np.reshape(np.broadcast_to(np.transpose(in1, plan[0]), plan[2][0]), plan[2][1])
    b = np.reshape(np.broadcast_to(np.transpose(in2, plan[0]), plan[3][0]), plan[3][1])
    out = np.stack([_signal.convolve(a[i], b[i], mode) for i in range(len(a))])
    out = np.transpose(np.reshape(out, plan[4] + np.shape(out)[1:]), plan[1])
    if plan[5] is not None:  # 'same': SciPy cuts the broadcast axes to in1's length too
        out = out[plan[5]]
    return out


def fftconvolve(in1, in2, mode="full", axes=None):
    """``scipy.signal.fftconvolve``: ``scipy.signal.convolve`` over ``axes``, broadcast
    along the others."""
    return _conv_along("scipy.signal.fftconvolve", in1, in2, mode, axes)


def oaconvolve(in1, in2, mode="full", axes=None):
    """``scipy.signal.oaconvolve``: as ``fftconvolve``."""
    return _conv_along("scipy.signal.oaconvolve", in1, in2, mode, axes)


# Functions written out in Python over functions with rules (``rewrites.rewrite``).
REWRITES = {np.fft.fftfreq: fftfreq, np.fft.rfftfreq: rfftfreq}
WITH_OPTIONS = {}

# scipy.signal, which the functions written out above call: set when a program has
# imported it (``_with_signal``), never by ``import srcgrad``.
_signal = None


def _with_fft(sfft):
    """scipy.fft's transforms, written out: added when a program has imported it
    (``rules/optional.py``)."""
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn",
                 "irfftn", "hfftn", "ihfftn", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
                 "ihfft2", "fftshift", "ifftshift", "dct", "idct", "dst", "idst", "dctn",
                 "idctn", "dstn", "idstn"):
        REWRITES[getattr(sfft, name)] = globals()[name]
    REWRITES[sfft.fftfreq] = scipy_fftfreq
    REWRITES[sfft.rfftfreq] = scipy_rfftfreq


def _with_fftpack(fftpack):
    """scipy.fftpack's transforms, written out (as ``_with_fft``)."""
    for name in ("fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "rfft", "irfft", "dct",
                 "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"):
        REWRITES[getattr(fftpack, name)] = globals()["fftpack_" + name]


def _with_signal(signal):
    """scipy.signal's ``correlate2d``, and its convolutions called with the options their
    rules do not take (rules/convolutions.py, added in the same step: the zero fill,
    ``axes=None``), which ``rewrites.rewrite`` picks by keyword or position: (function,
    the options, how many arguments come before the first)."""
    global _signal
    _signal = signal
    REWRITES[signal.correlate2d] = correlate2d
    WITH_OPTIONS.update({signal.convolve2d: (convolve2d, ("boundary", "fillvalue"), 3),
                         signal.fftconvolve: (fftconvolve, ("axes",), 3),
                         signal.oaconvolve: (oaconvolve, ("axes",), 3)})


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.fft": _with_fft, "scipy.fftpack": _with_fftpack, "scipy.signal": _with_signal}
