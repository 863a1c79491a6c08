"""scipy.fft's transforms (the DCT and DST families among them) and scipy.signal's 2-d
convolutions with every boundary, when SciPy is installed (optional, never required).

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Functions
written out over functions with rules are in ``REWRITES`` (as ``rewrites.py``);
helpers live in ``runtime/transform_plans.py``.
"""
TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
# Forward mode (``rules/tangents.py``).
EXPLICIT = {}
# Functions written out in Python over functions with rules (``rewrites.rewrite``).
REWRITES = {}
