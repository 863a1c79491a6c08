"""Rule cases of ``srcgrad/rules/polynomials.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np


def cases(t):
    C, R, F = t.C, t.R, t.F
    return [
        C(np.polyval, R(4), R(5)), C(np.polyval, R(1), R(3), id="constant"),
        C(np.polyval, R(3), F, id="pyfloat"), C(np.polyval, R(3), R(2, 3), id="matrix"),
        C(np.polyval, R(4), np.array([0.0, 1.0, -2.0]), id="at-zero"),
        C(np.vander, R(4)), C(np.vander, R(3), 5, id="N"),
        C(np.vander, R(4), 3, True, id="increasing"),
        C(np.vander, np.array([0.0, 1.5, -2.0]), id="at-zero"),
        # (Real roots: the rule is holomorphic, evaluated here without the conjugation
        # code for complex values does. Complex roots, lists and leading zeros, whose
        # number of roots jumps under a step: tests/test_polydiv_roots_nextafter.py.)
        C(np.roots, np.poly([0.5, -1.2, 2.0])),
        C(np.roots, np.array([1.0, -1.0, -2.0, 0.0]), id="trailing-zero"),
        C(np.roots, np.array([1.5, -2.0]), id="linear"),
    ]
