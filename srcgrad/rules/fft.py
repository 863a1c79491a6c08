"""``numpy.fft``: the transforms and the shifts.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Every
transform is linear (the C2R ones, ``irfft*`` and ``hfft``, only R-linear): its
adjoint is a helper of ``runtime/fft.py``, exact for each ``n``/``s``, ``axes`` and
``norm`` NumPy takes, real for a real input. Each helper is itself linear in the
adjoint it is given, and the adjoint of an adjoint is the transform again: that
is the helper's own rule, so a gradient through an FFT is differentiated again.
Complex values follow TensorFlow's convention (``rules/complexes.py``).
"""
import numpy as np

from ..runtime import fft as _rt
from .entry import Rule

_ONE = "a, n=None, axis=-1, norm=None, out=None"
_MANY = "a, s=None, axes=None, norm=None, out=None"
_TWO = "a, s=None, axes=(-2, -1), norm=None, out=None"
_LIKE = frozenset({"a"})


def _transform(signature, helper):
    args = "n, axis" if signature is _ONE else "s, axes"
    # (Rows: the helper's last argument, the number of leading axes of seed rows on g.)
    return Rule(signature, rank="same", a=f"_sg.{helper}(g, a, {args}, norm)",
                rows={"a": f"_sg.{helper}(g, a, {args}, norm, 1)"})


def _adjoint(signature, transform):
    """The rule of an adjoint helper: the transform itself, applied to ``g``."""
    args = "n, axis" if signature is _ONE else "s, axes"
    rows = "n, _sg.row_axes(axis, np.ndim(grad))" if signature is _ONE else \
        "s, _sg.row_axes(axes, np.ndim(grad), s)"
    return Rule("grad, " + signature.replace(", out=None", "") + ", lead=0", rank="same",
                nograd=_LIKE, grad=f"np.fft.{transform}(g, {args}, norm)",
                rows={"grad": f"np.fft.{transform}(g, {rows}, norm)"})


_TRANSFORMS = {
    "fft": _ONE, "ifft": _ONE, "rfft": _ONE, "irfft": _ONE, "hfft": _ONE, "ihfft": _ONE,
    "fftn": _MANY, "ifftn": _MANY, "rfftn": _MANY, "irfftn": _MANY,
    "fft2": _TWO, "ifft2": _TWO, "rfft2": _TWO, "irfft2": _TWO,
}

TABLE = {getattr(np.fft, name): _transform(sig, f"{name}_grad") for name, sig in _TRANSFORMS.items()}
TABLE.update({getattr(_rt, f"{name}_grad"): _adjoint(sig, name) for name, sig in _TRANSFORMS.items()})
TABLE.update({
    # Permutations: the adjoint of one shift is the other.
    np.fft.fftshift: Rule("x, axes=None", rank="same", x="np.fft.ifftshift(g, axes)",
                          rows={"x": "np.fft.ifftshift(g, _sg.row_axes(axes, np.ndim(x)))"}),
    np.fft.ifftshift: Rule("x, axes=None", rank="same", x="np.fft.fftshift(g, axes)",
                           rows={"x": "np.fft.fftshift(g, _sg.row_axes(axes, np.ndim(x)))"}),
})
# Entries only adjoint code calls (the adjoint helpers' own rules).
INTERNAL = {getattr(_rt, f"{name}_grad") for name in _TRANSFORMS}
METHODS = {}
ATTRIBUTES = {}
# (``np.fft.fftfreq``/``rfftfreq`` are differentiable in the spacing ``d``: written out in
# ``rules/transforms.py``.)
NONDIFF = {_rt.row_axes}
