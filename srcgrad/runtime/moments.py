"""Helpers of the second-moment rules (``rules/moments.py``), reached as ``_sg.<name>``.

Plain Python over NumPy functions that have rules, so that adjoint code calling
them can be differentiated again; ``cov_plan`` (``NONDIFF``) reads the shapes,
flags and weights as ``np.cov`` does. ``lead`` is the number of leading axes of
seed rows on ``g`` (``tape.jacobian``), 0 otherwise.

With the samples ``X`` (variables as rows, ``m``'s then ``y``'s), sample weights
``w`` and ``fact`` the normalisation, ``np.cov`` is ``C = Xc (w Xc)^T / fact``,
``Xc`` the rows less their weighted means; its adjoint is
``(G + G^T) (w Xc) / fact``, whose rows already have weighted mean 0, so the
centring passes it unchanged.
"""
import numpy as np

try:
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # NumPy 1.x
    from numpy.core.numeric import normalize_axis_tuple

from .adjoints import not_differentiable
from .selection import complex_input

__all__ = [
    # differentiable
    "cov_grad", "cov_tangent", "corrcoef_grad", "corrcoef_tangent", "cov_samples",
    "samples_grad", "centred_samples", "cov_dot",
    # planning (non-differentiable)
    "cov_plan", "average_weights_plan",
]


def cov_grad(g, m, y, rowvar, bias, ddof, fweights, aweights, which, lead):
    """Adjoint of ``np.cov(m, y, rowvar, bias, ddof, fweights, aweights)`` for ``m``
    (``which`` 0) or ``y`` (1)."""
    plan = cov_plan(np.shape(m), y is not None and np.shape(y), rowvar, bias, ddof, fweights,
                    aweights, complex_input(m) or complex_input(y), "np.cov")
    centred = centred_samples(cov_samples(m, y, plan), plan)
    rows = np.shape(g)[:lead]
    p = plan[6]
    return samples_grad(np.reshape(g, rows + (p, p)), centred, m, y, plan, which)


def cov_tangent(m, m_dot, y, y_dot, rowvar, bias, ddof, fweights, aweights, ans):
    """Forward mode's tangent of ``np.cov``: ``(dXc (w Xc)^T + Xc (w dXc)^T) / fact``."""
    plan = cov_plan(np.shape(m), y is not None and np.shape(y), rowvar, bias, ddof, fweights,
                    aweights, complex_input(m) or complex_input(y), "np.cov")
    t = cov_dot(m, m_dot, y, y_dot, plan)
    return np.reshape(t, np.shape(ans))


def corrcoef_grad(g, x, y, rowvar, which, lead):
    """Adjoint of ``np.corrcoef(x, y, rowvar)`` for ``x`` (``which`` 0) or ``y`` (1):
    ``R = C s s^T`` with ``s = 1 / sqrt(diag C)``, through ``C``'s adjoint."""
    plan = cov_plan(np.shape(x), y is not None and np.shape(y), rowvar, False, None, None,
                    None, complex_input(x) or complex_input(y), "np.corrcoef")
    p, fact = plan[6], plan[5]
    centred = centred_samples(cov_samples(x, y, plan), plan)
    c = np.matmul(centred, np.transpose(centred)) / fact
    s = 1.0 / np.sqrt(np.diagonal(c))
    rows = np.shape(g)[:lead]
    gr = np.reshape(g, rows + (p, p))
    d_scale = np.sum((gr + np.swapaxes(gr, -1, -2)) * c * s, axis=-1)
    d_diagonal = -0.5 * d_scale * s * s * s
    gc = gr * np.outer(s, s) + np.expand_dims(d_diagonal, -1) * np.eye(p)
    return samples_grad(gc, centred, x, y, plan, which)


def corrcoef_tangent(x, x_dot, y, y_dot, rowvar, ans):
    """Forward mode's tangent of ``np.corrcoef``: ``dC s s^T + C (ds s^T + s ds^T)``,
    ``ds = -s^3 diag(dC) / 2``."""
    plan = cov_plan(np.shape(x), y is not None and np.shape(y), rowvar, False, None, None,
                    None, complex_input(x) or complex_input(y), "np.corrcoef")
    centred = centred_samples(cov_samples(x, y, plan), plan)
    c = np.matmul(centred, np.transpose(centred)) / plan[5]
    s = 1.0 / np.sqrt(np.diagonal(c))
    dc = cov_dot(x, x_dot, y, y_dot, plan)
    ds = -0.5 * s * s * s * np.diagonal(dc)
    t = dc * np.outer(s, s) + c * (np.outer(ds, s) + np.outer(s, ds))
    return np.reshape(t, np.shape(ans))


def cov_samples(m, y, plan):
    """The samples ``X`` of ``np.cov(m, y, rowvar)``: one row per variable."""
    m2, flip_m, y2, flip_y = plan[0], plan[1], plan[2], plan[3]
    x = np.reshape(m, m2)
    if flip_m:
        x = np.transpose(x)
    if y is not None:
        rows_y = np.reshape(y, y2)
        if flip_y:
            rows_y = np.transpose(rows_y)
        x = np.concatenate([x, rows_y], axis=0)
    return x


def samples_grad(gc, centred, m, y, plan, which):
    """From the adjoint ``gc`` of ``C`` (leading seed rows allowed) to that of ``m`` (``which``
    0) or ``y`` (1)."""
    w, fact, p, pm = plan[4], plan[5], plan[6], plan[7]
    gx = np.matmul(gc + np.swapaxes(gc, -1, -2), centred * w) / fact
    part = np.take(gx, np.arange(0, pm) if which == 0 else np.arange(pm, p), axis=-2)
    flip = plan[1] if which == 0 else plan[3]
    if flip:
        part = np.swapaxes(part, -1, -2)
    like = m if which == 0 else y
    return np.reshape(part, np.shape(gx)[:-2] + np.shape(like))


def centred_samples(x, plan):
    """The samples less their weighted means (one per row)."""
    w = plan[4]
    return x - np.sum(x * w, axis=1, keepdims=True) / np.sum(w)


def cov_dot(m, m_dot, y, y_dot, plan):
    """The tangent of ``C`` (a matrix) along ``m_dot`` and ``y_dot``."""
    w, fact = plan[4], plan[5]
    centred = centred_samples(cov_samples(m, y, plan), plan)
    moved = centred_samples(cov_samples(m_dot, None if y is None else y_dot, plan), plan)
    half = np.matmul(moved, np.transpose(centred * w)) / fact
    return half + np.transpose(half)


# ---------------------------------------------------------------------------
# Planning helpers (NONDIFF)
# ---------------------------------------------------------------------------

def cov_plan(m_shape, y_shape, rowvar, bias, ddof, fweights, aweights, complex, name):
    """How ``np.cov`` reads its arguments (``y_shape`` False for no ``y``): ``m``'s shape
    as 2-d and whether it is transposed, the same for ``y`` (None without it), the
    weight of each sample, the normalisation ``fact``, the number of variables,
    and how many of them are ``m``'s. As NumPy's own code does, quirks included (a
    1-d ``m`` is never transposed; a ``y`` of one row neither)."""
    if complex:
        not_differentiable(f"{name} of complex values")
    m2 = (1,) * (2 - len(m_shape)) + tuple(m_shape)
    flip_m = not rowvar and len(m_shape) != 1
    pm, n = (m2[1], m2[0]) if flip_m else m2
    y2 = flip_y = None
    p = pm
    if y_shape is not False:
        y2 = (1,) * (2 - len(y_shape)) + tuple(y_shape)
        flip_y = not rowvar and y2[0] != 1
        p = pm + (y2[1] if flip_y else y2[0])
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = np.asarray(fweights, dtype=float)
    if aweights is not None:
        w = np.asarray(aweights, dtype=float) if w is None else w * aweights
    if w is None:
        fact = n - ddof
    elif ddof == 0:
        fact = np.sum(w)
    elif aweights is None:
        fact = np.sum(w) - ddof
    else:
        fact = np.sum(w) - ddof * np.sum(w * aweights) / np.sum(w)
    if fact <= 0:  # (NumPy warns and divides by 0)
        fact = 0.0
    weights = np.ones(n) if w is None else w
    return m2, flip_m, y2, flip_y, weights, float(fact), p, pm


def average_weights_plan(a_shape, w_shape, axis):
    """For ``np.average(a, axis, weights)`` with weights not of ``a``'s shape: how NumPy
    transposes them and the shape it gives them to broadcast along ``axis`` (its errors
    when it refuses them)."""
    if axis is None:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    axes = normalize_axis_tuple(axis, len(a_shape), argname="axis")
    if tuple(w_shape) != tuple(a_shape[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with "
                         "shape of a along specified axis.")
    order = tuple(int(k) for k in np.argsort(axes))
    return order, tuple(s if ax in axes else 1 for ax, s in enumerate(a_shape))
