"""The derivative table: one entry per primitive (``entry.Rule``), grouped by
family in the modules here and merged, with the operator, method and
non-differentiable lists, in ``table``.
"""
