"""Helpers of the rules of ufunc methods (``rules/ufuncs.py``), reached as ``_sg.<name>``.

``outer_grad`` is plain Python over NumPy functions that have rules, so that
adjoint code calling it can be differentiated again; ``accumulate_source``
computes indices only (the rules' ``NONDIFF``). ``lead`` is the number of
leading axes of seed rows on ``g`` (``tape.jacobian``), 0 otherwise.
"""
import numpy as np

__all__ = ["outer_grad", "accumulate_source", "axes_between"]


def outer_grad(g, A, B, op, which, lead):
    """Adjoint of operand ``which`` (0: ``A``, 1: ``B``) of ``np.<op>.outer(A, B)``, whose
    result has ``A``'s axes then ``B``'s: the adjoint sums over the other operand's."""
    nb = np.ndim(B)
    if which == 0:
        over = axes_between(np.ndim(g) - nb, np.ndim(g))  # B's axes, the last ones
        if op == "multiply":
            return np.sum(g * B, axis=over)
        if op == "divide":
            return np.sum(g / B, axis=over)
        return np.sum(g, axis=over)
    over = axes_between(lead, lead + np.ndim(A))  # A's axes, after the seed rows
    spread = np.reshape(A, np.shape(A) + (1,) * nb)  # A, aligned with the result
    if op == "multiply":
        return np.sum(g * spread, axis=over)
    if op == "divide":
        return -np.sum(g * spread, axis=over) / (B * B)
    if op == "subtract":
        return -np.sum(g, axis=over)
    return np.sum(g, axis=over)


def accumulate_source(array, ans, axis):
    """For ``ans = np.maximum.accumulate(array, axis)`` (or ``minimum``): the index
    along ``axis`` of the element each result is, the first one at which the running
    extreme took its value (a NaN stays the result from where it appears)."""
    array, ans = np.asarray(array), np.asarray(ans)
    moved = np.moveaxis(ans, axis, -1)
    n = moved.shape[-1]
    changed = np.ones(moved.shape, dtype=bool)
    if n > 1:
        before, now = moved[..., :-1], moved[..., 1:]
        same = (now == before) | (np.isnan(now) & np.isnan(before))
        changed[..., 1:] = ~same
    positions = np.where(changed, np.arange(n), 0)
    return np.moveaxis(np.maximum.accumulate(positions, axis=-1), -1, axis)


def axes_between(start, stop):
    """The axes ``start`` .. ``stop - 1``, a tuple for ``axis=``."""
    return tuple(range(start, stop))
