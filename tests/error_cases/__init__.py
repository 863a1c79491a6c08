"""Functions srcgrad must refuse with a CompileError, one per unsupported construct.

Owned by ``tests/test_compile_errors.py``. Each offending line carries a marker
comment ``# MARK: <key>``; the test finds the expected line number by searching
for it, so these files can be edited freely without breaking line numbers.
"""
