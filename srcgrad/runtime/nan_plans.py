"""Helpers of ``rules/nan_reductions.py``, reached as ``_sg.<name>``."""
__all__ = []
