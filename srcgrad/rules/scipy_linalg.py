"""scipy.linalg's functions and np.linalg's others (cond, svdvals, tensorinv, tensorsolve, wide qr),
when SciPy is installed (optional, never required) for the scipy ones.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/linalg_plans.py``.
"""
TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
# Forward mode (``rules/tangents.py``).
EXPLICIT = {}
# Functions written out in Python over functions with rules (``rewrites.rewrite``).
REWRITES = {}
