"""Rule cases of ``srcgrad/rules/ufuncs.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

# Zeros: a product's adjoint is exact there. (Ties of a running extreme are a kink,
# where central differences average two one-sided slopes: checked by value in
# tests/test_ufunc_method_rules.py.)
ZEROS = np.array([[0.0, 1.5, -2.0], [1.1, 0.0, 0.0], [1.2, -0.7, 2.0]])


def cases(t):
    C, R, P, F = t.C, t.R, t.P, t.F
    out = []
    for fn in (np.add.reduce, np.multiply.reduce, np.maximum.reduce, np.minimum.reduce,
               np.logaddexp.reduce, np.logaddexp2.reduce):
        out += [C(fn, R(5)), C(fn, R(3, 4), id="axis0"), C(fn, R(3, 4), 1, id="axis1"),
                C(fn, R(2, 3, 4), axis=-1, keepdims=True, id="keepdims"),
                C(fn, R(2, 3), axis=None, id="all"), C(fn, R(2, 3, 2), (0, 2), id="axes")]
    out.append(C(np.multiply.reduce, ZEROS, id="zeros"))
    out.append(C(np.multiply.reduce, ZEROS, 1, id="zeros-axis1"))
    for fn in (np.add.accumulate, np.multiply.accumulate, np.maximum.accumulate,
               np.minimum.accumulate):
        out += [C(fn, R(5)), C(fn, R(3, 4), id="axis0"), C(fn, R(3, 4), axis=1, id="axis1"),
                C(fn, R(2, 3, 4), -1, id="last")]
    out.append(C(np.multiply.accumulate, ZEROS, id="zeros"))
    for fn in (np.add.outer, np.subtract.outer, np.multiply.outer):
        out += [C(fn, R(3), R(4)), C(fn, R(2, 3), R(4), id="matrix-vector"),
                C(fn, R(3), R(2, 2), id="vector-matrix"), C(fn, F, R(3), id="float-first"),
                C(fn, R(3), F, id="float-second")]
    out += [C(np.divide.outer, R(3), P(4)), C(np.divide.outer, R(2, 3), P(2), id="matrix"),
            C(np.divide.outer, F, P(3), id="float-first")]
    return out
