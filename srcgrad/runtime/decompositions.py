"""Helpers of the ``decompositions`` rules (``rules/decompositions.py``), reached as ``_sg.<name>``.

Each is plain Python over NumPy functions that have rules, so that adjoint
code calling it can be differentiated again (``tests/test_rule_table.py``
reads them).
"""
import numpy as np  # noqa: F401

__all__ = []
