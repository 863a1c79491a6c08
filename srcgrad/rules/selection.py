"""Choosing and ordering elements: take, take_along_axis, select, sort, partition, nan_to_num, real/imag/conj on real values, interp.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/selection.py``.
"""
from .entry import Rule  # noqa: F401

TABLE = {}
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = set()
