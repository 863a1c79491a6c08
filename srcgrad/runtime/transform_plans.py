"""Helpers of ``rules/transforms.py``, reached as ``_sg.<name>``."""
__all__ = []
