"""Helpers of ``rules/scipy_linalg.py``, reached as ``_sg.<name>``."""
__all__ = []
