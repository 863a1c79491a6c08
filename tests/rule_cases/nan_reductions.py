"""Rule cases of ``srcgrad/rules/nan_reductions.py`` (see ``tests/rule_cases/__init__.py``).

(NaN elements are checked in ``tests/test_nan_reductions.py``: central differences of a
rule are NaN there.)"""
import importlib.util

import numpy as np

has_scipy = importlib.util.find_spec("scipy") is not None  # (np.i0's rule needs it)


def cases(t):
    C, R = t.C, t.R
    out = [
        C(np.nanmax, R(3, 4)), C(np.nanmax, R(3, 4), axis=1, id="axis"),
        C(np.nanmax, R(3, 4), axis=0, keepdims=True, id="keepdims"),
        C(np.nanmin, R(5)), C(np.nanmin, R(2, 3, 4), axis=(0, 2), id="axes"),
        C(np.ldexp, R(4), np.array([1, -2, 0, 5])),
        C(np.ldexp, R(2, 3), np.array([3, -1, 2]), id="broadcast"),
        C(np.ldexp, t.F, 4, id="pyfloat"),
    ]
    if has_scipy:
        import scipy.special as sp

        P, U = t.P, t.U
        out += [C(np.i0, R(5)), C(np.i0, np.array([0.0, -2.5, 4.0]), id="at-0"),
                # (scipy.special's rules added for issue 13: rules/special.py.)
                C(sp.ndtr, R(5)), C(sp.log_ndtr, R(5)),
                C(sp.log_ndtr, np.array([-30.0, -8.0, 6.0]), id="tails"),
                C(sp.ndtri, np.array([0.01, 0.3, 0.5, 0.8, 0.999])),
                C(sp.erfcx, R(5)), C(sp.erfcx, np.array([-3.0, 8.0, 30.0]), id="tails"),
                C(sp.loggamma, P(4)), C(sp.loggamma, np.array([0.05, 7.5, 40.0]), id="wide"),
                C(sp.log1p, U(4)), C(sp.expm1, R(4)), C(sp.cosm1, R(4)),
                C(sp.logsumexp, R(3, 4), axis=1, b=np.array([1.0, -2.0, 0.5, 3.0]),
                  return_sign=True, id="sign"),
                C(sp.logsumexp, R(5), b=R(5), return_sign=True, id="sign-b")]
    return out
