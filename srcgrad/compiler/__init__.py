"""The compiler driver: the pipeline's steps in order (``pipeline``), the state
they share (``context``), where source comes from (``source``), printing and
loading generated code (``codegen``), names (``naming``), the cache (``cache``).
"""
