"""Adjoints of ``numpy.fft``: ``<name>_grad(g, a, ...)`` for each transform ``np.fft.<name>``.

``g`` is the adjoint of the transform's result, ``a`` the input as the user passed it,
and the other parameters are the transform's own, with NumPy's defaults.

Complex values follow TensorFlow's convention: C is treated as R^2 and the adjoint
of ``y`` is ``dL/d(Re y) + 1j * dL/d(Im y)``. With the real inner product
``<u, v> = Re(sum(conj(u) * v))`` the adjoint of a linear map ``M`` is the ``M*`` with
``<g, M(d)> = <M*(g), d>``. That makes ``z -= lr * g`` a gradient descent step as
written, for real and complex ``z`` alike (the other convention, the conjugate,
would step the imaginary part uphill). For a C-linear ``M`` this is ``M^H g``; the
C2R transforms (``irfft*``, ``hfft``) are only R-linear and get their exact adjoint.
A real input gets a real adjoint: only real directions exist there.

Every n-D transform is run as NumPy runs it, a chain of 1-D transforms (see
``_plan_nd``), so the adjoint is the chain of 1-D adjoints in reverse order; that
covers ``s`` padding or truncating, repeated axes and per-axis ``norm`` exactly.
"""
import operator

import numpy as np

__all__ = [
    "fft_grad", "ifft_grad", "rfft_grad", "irfft_grad", "hfft_grad", "ihfft_grad",
    "fftn_grad", "ifftn_grad", "rfftn_grad", "irfftn_grad",
    "fft2_grad", "ifft2_grad", "rfft2_grad", "irfft2_grad", "row_axes",
]

# The unscaled DFT F has adjoint F^H = n * (unscaled-inverse / n), so the adjoint of a
# transform scaled one way is the opposite transform with the scale moved across:
# "backward" (1 forward, 1/n inverse) pairs with "forward" (1/n forward, 1 inverse).
_DUAL_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _dual(norm):
    try:
        return _DUAL_NORM[norm]
    except (KeyError, TypeError):  # TypeError: an unhashable norm
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" '
                         'or "forward".') from None


def _axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def _along(axis, index):
    """An index applying ``index`` along ``axis`` (non-negative) and taking all of the rest."""
    return (slice(None),) * axis + (index,)


def _fit(x, m, axis):
    """``x`` cut or zero-padded to length ``m`` along ``axis``.

    NumPy pads the input with zeros (adjoint: cut the padding off) or truncates it
    (adjoint: the dropped entries had no effect, so zeros), both of which this is.
    """
    n = x.shape[axis]
    if n >= m:
        return x[_along(axis, slice(0, m))]
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, m - n)
    return np.pad(x, widths)


def _mirrored(n, axis):
    """The half-spectrum bins 0 < k < n/2 of a length-``n`` real signal: each stands for
    itself and its conjugate mirror n - k, unlike the zero and (even n) Nyquist bins."""
    return _along(axis, slice(1, (n + 1) // 2))


def _like(g, a):
    """``g`` as the adjoint of ``a``: real for a real ``a`` (only real directions exist)."""
    if np.iscomplexobj(a):
        return np.asarray(g, dtype=np.result_type(g, 1j))
    return np.real(g)


def _not_real(name, complex_name):
    return TypeError(f"np.fft.{name} of a complex array is not differentiable: NumPy discards "
                     f"its imaginary part; use np.fft.{complex_name}")


# Adjoints of the 1-D steps, on ``g`` of the step's output length; the caller fits the
# result back to the step's input length.

def _fft_step(g, n, axis, norm):
    return np.fft.ifft(g, axis=axis, norm=_dual(norm))


def _ifft_step(g, n, axis, norm):
    return np.fft.fft(g, axis=axis, norm=_dual(norm))


def _rfft_step(g, n, axis, norm):
    # rfft = first n//2+1 bins of the DFT of a real signal: the adjoint is Re(F^H pad(g)).
    # irfft computes exactly that once the mirrored bins are halved, as it counts them
    # twice (and it drops Im of bins 0 and n/2, which Re(...) drops too).
    h = np.array(g, dtype=np.result_type(g, 0.5))
    h[_mirrored(n, axis)] *= 0.5
    return np.fft.irfft(h, n, axis, norm=_dual(norm))


def _irfft_step(g, n, axis, norm):
    # irfft(c) = Re(F^H pad(w * c)) / n with w = 2 on mirrored bins, 1 on bins 0 and n/2:
    # R-linear, adjoint w * (first n//2+1 bins of F g) / n = w * rfft(g) / n. The loss
    # sees only the real output, so Im(g) carries nothing.
    r = np.fft.rfft(np.real(g), n, axis, norm=_dual(norm))
    r[_mirrored(n, axis)] *= 2
    return r


# step -> (adjoint, default n from input length m, output length from n), as NumPy has them
_STEPS = {
    "fft": (_fft_step, lambda m: m, lambda n: n),
    "ifft": (_ifft_step, lambda m: m, lambda n: n),
    "rfft": (_rfft_step, lambda m: m, lambda n: n // 2 + 1),
    "irfft": (_irfft_step, lambda m: 2 * (m - 1), lambda n: n),
}


def _trace(shape, steps):
    """NumPy's 1-D ``steps`` (name, n, axis) on an input of ``shape``, with every axis
    and length resolved: (name, n, axis, input length)."""
    shape = list(shape)
    traced = []
    for name, n, axis in steps:
        _, default_n, out_len = _STEPS[name]
        axis = _axis(axis, len(shape))
        m = shape[axis]
        n = default_n(m) if n is None else operator.index(n)
        traced.append((name, n, axis, m))
        shape[axis] = out_len(n)
    return traced


def _backprop(g, a, steps, norm, lead=0):
    """The adjoint of NumPy's chain of 1-D ``steps`` on ``a``: their adjoints in reverse.
    ``lead``: leading axes of ``g`` that ``a`` lacks (the seed rows of ``tape.jacobian``)."""
    g = np.asarray(g)
    for name, n, axis, m in reversed(_trace(np.shape(a), steps)):
        g = _fit(_STEPS[name][0](g, n, axis + lead, norm), m, axis + lead)
    return g


def _cook(shape, s, axes, invreal=False):
    """``s`` and ``axes`` of an n-D transform as NumPy completes them (its deprecated
    forms included: ``s`` without ``axes``, ``None`` in ``s``; -1 in ``s`` is the whole axis)."""
    shapeless = s is None
    if shapeless:
        s = list(shape) if axes is None else [shape[ax] for ax in axes]
    s = list(s)
    axes = list(range(-len(s), 0)) if axes is None else list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (shape[axes[-1]] - 1) * 2
    s = [shape[ax] if n is not None and n == -1 else n for n, ax in zip(s, axes)]
    return s, axes


def _plan_nd(kind, shape, s, axes):
    """The 1-D steps NumPy's ``<kind>n`` runs, in its order (last axis first, except
    that ``irfftn`` does its real last axis last)."""
    s, axes = _cook(shape, s, axes, invreal=kind == "irfft")
    if kind == "rfft":
        return [("rfft", s[-1], axes[-1])] + [("fft", s[i], axes[i]) for i in reversed(range(len(s) - 1))]
    if kind == "irfft":
        return [("ifft", s[i], axes[i]) for i in range(len(s) - 1)] + [("irfft", s[-1], axes[-1])]
    return [(kind, s[i], axes[i]) for i in reversed(range(len(s)))]


def _nd_grad(kind, g, a, s, axes, norm, lead):
    return _like(_backprop(g, a, _plan_nd(kind, np.shape(a), s, axes), norm, lead), a)


def fft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.fft(a, n, axis, norm)``."""
    return _like(_backprop(grad, a, [("fft", n, axis)], norm, lead), a)


def ifft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.ifft(a, n, axis, norm)``."""
    return _like(_backprop(grad, a, [("ifft", n, axis)], norm, lead), a)


def rfft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.rfft(a, n, axis, norm)`` (real ``a`` only)."""
    if np.iscomplexobj(a):
        raise _not_real("rfft", "fft")
    return _like(_backprop(grad, a, [("rfft", n, axis)], norm, lead), a)


def irfft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.irfft(a, n, axis, norm)``: see ``_irfft_step``."""
    return _like(_backprop(grad, a, [("irfft", n, axis)], norm, lead), a)


def hfft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.hfft(a, n, axis, norm)``, which NumPy computes as
    ``irfft(conj(a), n, axis, dual norm)``; conj is its own adjoint."""
    return _like(np.conj(_backprop(grad, a, [("irfft", n, axis)], _dual(norm), lead)), a)


def ihfft_grad(grad, a, n=None, axis=-1, norm=None, lead=0):
    """Adjoint of ``np.fft.ihfft(a, n, axis, norm)``, which NumPy computes as
    ``conj(rfft(a, n, axis, dual norm))`` (real ``a`` only)."""
    if np.iscomplexobj(a):
        raise _not_real("ihfft", "ifft")
    return _like(_backprop(np.conj(grad), a, [("rfft", n, axis)], _dual(norm), lead), a)


def fftn_grad(grad, a, s=None, axes=None, norm=None, lead=0):
    """Adjoint of ``np.fft.fftn(a, s, axes, norm)``."""
    return _nd_grad("fft", grad, a, s, axes, norm, lead)


def ifftn_grad(grad, a, s=None, axes=None, norm=None, lead=0):
    """Adjoint of ``np.fft.ifftn(a, s, axes, norm)``."""
    return _nd_grad("ifft", grad, a, s, axes, norm, lead)


def rfftn_grad(grad, a, s=None, axes=None, norm=None, lead=0):
    """Adjoint of ``np.fft.rfftn(a, s, axes, norm)`` (real ``a`` only)."""
    if np.iscomplexobj(a):
        raise _not_real("rfftn", "fftn")
    return _nd_grad("rfft", grad, a, s, axes, norm, lead)


def irfftn_grad(grad, a, s=None, axes=None, norm=None, lead=0):
    """Adjoint of ``np.fft.irfftn(a, s, axes, norm)``."""
    return _nd_grad("irfft", grad, a, s, axes, norm, lead)


def fft2_grad(grad, a, s=None, axes=(-2, -1), norm=None, lead=0):
    """Adjoint of ``np.fft.fft2(a, s, axes, norm)``."""
    return fftn_grad(grad, a, s, axes, norm, lead)


def ifft2_grad(grad, a, s=None, axes=(-2, -1), norm=None, lead=0):
    """Adjoint of ``np.fft.ifft2(a, s, axes, norm)``."""
    return ifftn_grad(grad, a, s, axes, norm, lead)


def rfft2_grad(grad, a, s=None, axes=(-2, -1), norm=None, lead=0):
    """Adjoint of ``np.fft.rfft2(a, s, axes, norm)`` (real ``a`` only)."""
    if np.iscomplexobj(a):
        raise _not_real("rfft2", "fft2")
    return _nd_grad("rfft", grad, a, s, axes, norm, lead)


def irfft2_grad(grad, a, s=None, axes=(-2, -1), norm=None, lead=0):
    """Adjoint of ``np.fft.irfft2(a, s, axes, norm)``."""
    return irfftn_grad(grad, a, s, axes, norm, lead)


def row_axes(axes, ndim, s=None):
    """``axes`` of a value of ``ndim`` dimensions, for an adjoint with a leading axis of
    seed rows (``tape.jacobian``): non-negative ones shifted; None is every axis (the
    last ``len(s)`` when ``s`` is given, as NumPy reads it)."""
    if axes is None:
        return tuple(range(-len(s), 0)) if s is not None else tuple(range(1, ndim + 1))
    if isinstance(axes, (tuple, list)):
        return tuple(a + 1 if a >= 0 else a for a in axes)
    return axes + 1 if axes >= 0 else axes
