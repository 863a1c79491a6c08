"""Rule cases of ``srcgrad/rules/transforms.py`` (see ``tests/rule_cases/__init__.py``).

The family has no ``Rule`` of its own: every function is written out over functions
with rules (``REWRITES``), checked end to end in ``tests/test_transforms.py``.
"""


def cases(t):
    return []
