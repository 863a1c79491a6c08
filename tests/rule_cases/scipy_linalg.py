"""Rule cases of ``srcgrad/rules/scipy_linalg.py`` (see ``tests/rule_cases/__init__.py``).

Its rewrites are checked through the compiler (``tests/test_scipy_linalg.py``); the
rules here are the matrix functions, at well-conditioned matrices (``M``: near the
identity, so ``sqrtm`` and ``logm`` are real) and stacks of them.
"""
import numpy as np

try:
    import scipy.linalg as scipy_linalg
except ImportError:  # SciPy is optional: its rules exist only when it is installed
    scipy_linalg = None


def cases(t):
    if scipy_linalg is None:
        return []
    C, R, M = t.C, t.R, t.M
    sl = scipy_linalg
    wide = np.array([[1.3, 0.4, -0.2, 0.7], [0.1, 0.9, 0.5, -1.1]])
    return [
        C(sl.expm, R(3, 3)), C(sl.expm, R(2, 3, 3), id="batched"), C(sl.expm, R(1, 1), id="1x1"),
        C(sl.sqrtm, M(3, 3)), C(sl.sqrtm, M(2, 2, 2), id="batched"),
        C(sl.logm, M(3, 3)), C(sl.logm, M(4, 4), id="4x4"),
        C(np.linalg.qr, wide, id="wide"), C(np.linalg.qr, wide, "r", id="wide-r"),
        C(np.linalg.qr, wide, "complete", id="wide-complete"),
        C(np.linalg.qr, R(2, 2, 3), id="wide-batched"),
    ]
