"""NumPy's NaN-ignoring reductions and cumulations (nanmax, nanmin, nanprod, nanvar,
nanstd, nancumsum, nancumprod, ...) and NumPy 2's cumulative_sum/cumulative_prod.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/nan_plans.py``.
"""
TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
# Forward mode (``rules/tangents.py``).
EXPLICIT = {}
# Functions written out in Python over functions with rules (``rewrites.rewrite``).
REWRITES = {}
