"""Rule cases of ``srcgrad/rules/complexes.py`` (see ``tests/rule_cases/__init__.py``):
here with real values, as the table's harness draws them; their complex forms are
checked through the compiler in ``tests/test_complex.py``."""
import numpy as np

from srcgrad.runtime import complexes as rt


def cases(t):
    C, R, NZ = t.C, t.R, t.NZ
    return [
        C(rt.conj, R(3)), C(rt.conj, [R(2), R(3)], id="list"),
        C(rt.fit, R(3), R(3), wrt=("grad",)),
        C(rt.real_rule, R(2, 3), "np.maximum", R(2, 3), wrt=("grad",)),
        C(np.angle, NZ(4)), C(np.angle, NZ(4), deg=True, id="deg"),
    ]
