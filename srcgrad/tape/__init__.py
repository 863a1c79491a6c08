"""``GradientTape``: the tape object (``tape``), locating its block in the
caller's source (``blocks``), and compiling a block's adjoint (``region``).
"""
