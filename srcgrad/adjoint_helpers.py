"""Plain-NumPy helpers that grad expressions in ``derivatives.py`` call as ``_sg.<name>``.

Written only with constructs and primitives the compiler itself supports, so
the compiler can read and differentiate them again for higher derivatives.
"""
import numpy as np

__all__ = ["sum_grad"]


def sum_grad(grad, a, axis, keepdims):
    """Adjoint of ``np.sum(a, axis, keepdims=keepdims)``: spread ``grad`` back over ``a``."""
    shape = np.shape(a)
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return np.broadcast_to(grad, shape)
