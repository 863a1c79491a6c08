"""Rule cases of ``srcgrad/rules/selection.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np  # noqa: F401


def cases(t):
    return []
