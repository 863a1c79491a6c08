"""A differential random-program fuzzer for srcgrad.

``generator`` writes random, valid Python + NumPy programs ``f(x, ...)``
over the language of SPEC section 4; ``oracle`` checks every public way of
differentiating them against central finite differences; ``shrink`` reduces
a failing program to a small reproducer; ``runner`` and ``__main__`` drive a
batch. See README.md.
"""
