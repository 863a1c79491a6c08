"""Matrix decompositions and friends: cholesky, slogdet, eigh, svd, qr, pinv, lstsq, matrix_power, multi_dot (and scipy.linalg's triangular and Cholesky solves when SciPy is installed).

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/decompositions.py``.
"""
from .entry import Rule  # noqa: F401

TABLE = {}
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = set()
