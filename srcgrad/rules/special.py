"""scipy.special, when SciPy is installed (optional, never required): logsumexp, expit, log_expit, softmax, log_softmax, gammaln, digamma, erf, erfc, xlogy, xlog1py.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/special.py``.
"""
from .entry import Rule  # noqa: F401

TABLE = {}
# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = set()
