"""``a[index] = value`` as a new array, in code that is differentiated again
(``passes/functional.py``): the statements ``a_at = _sg.place(a, index)`` and
``a_new = _sg.with_item(a, a_at, value)``, and the helpers of ``with_item``'s rule.

A store into an array of integers or booleans truncates the value: piecewise
constant, no gradient (as ``stored_grad`` says of a store in place). ``place`` says
so in the index it gives, so that the rule needs no copy of the array itself (a
loop's backward code would otherwise keep every version of it).
"""
import numpy as np

from .adjoints import written
from .core import zero_at, zeros_like
from .rows import take_rows, written_rows, zero_at_rows

__all__ = ["IntegerStore", "place", "with_item", "store_base_grad", "store_value_grad", "store_base_rows",
           "store_value_rows"]


class IntegerStore:
    """The index of a store into an array of integers or booleans."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def place(base, index):
    """``index`` as the store into ``base`` takes it (``IntegerStore`` where it truncates)."""
    if isinstance(base, np.ndarray) and base.dtype.kind in "biu":
        return IntegerStore(index)
    return index


def with_item(base, index, value):
    """A copy of ``base`` with ``value`` written at ``[index]`` (``base`` stays as it was
    for whatever else reads it: views, saved values)."""
    index = _index_of(index)
    if isinstance(base, (np.ndarray, list, dict)):
        out = base.copy()  # (a list or dict: private to the code, no one else sees it)
    else:
        raise TypeError(f"'{type(base).__name__}' object does not support item assignment")
    out[index] = value
    return out


def _index_of(index):
    """The index ``place`` gave, as NumPy takes it."""
    return index.index if type(index) is IntegerStore else index


def store_base_grad(grad, index):
    """The adjoint of ``base`` in ``with_item``: ``grad`` with the written slots cleared."""
    return zero_at(grad, _index_of(index))


def store_value_grad(grad, index):
    """The adjoint of ``value`` in ``with_item`` (before ``unbroadcast``)."""
    if type(index) is IntegerStore:
        return zeros_like(grad[index.index])
    return written(grad, index)


def store_base_rows(grad, index):
    return zero_at_rows(grad, _index_of(index))


def store_value_rows(grad, index):
    if type(index) is IntegerStore:
        return np.zeros(np.shape(take_rows(grad, index.index)))
    return written_rows(grad, index)
