"""Rule cases of ``srcgrad/rules/sequences.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

# One, two and three zeros on a slice: cumprod's adjoint must stay exact.
WITH_ZEROS = np.array([[0.0, 1.5, -2.0, 0.7], [1.1, 0.0, 0.0, 3.0], [1.2, -0.7, 2.0, 0.9],
                       [0.0, 0.0, 0.0, 0.5]])


def cases(t):
    C, R, F = t.C, t.R, t.F
    out = [
        C(np.cumprod, R(5)), C(np.cumprod, R(3, 4), axis=0, id="axis0"),
        C(np.cumprod, R(2, 3, 4), -1, id="last"), C(np.cumprod, R(3, 4), id="flat"),
        C(np.cumprod, np.array([2.0, 0.0, 3.0, -1.5, 0.5]), id="zero"),
        C(np.cumprod, np.array([0.0, 2.0, 0.0, 0.5]), id="two-zeros"),
        C(np.diff, R(5)), C(np.diff, R(6), 2, id="n2"), C(np.diff, R(3, 4), axis=0, id="axis0"),
        C(np.diff, R(3, 5), 3, -1, id="n3"),
        C(np.diff, R(4), prepend=F, append=R(2), id="prepend-append"),
        C(np.diff, R(3, 4), 2, 0, prepend=R(1, 4), append=F, id="arrays-axis0"),
        C(np.diff, R(2, 3), prepend=R(2, 2), id="prepend"),
        C(np.diff, R(3), 0, prepend=F, append=R(1), id="n0"),
        C(np.sinc, R(3, 4)), C(np.sinc, F, id="pyfloat"),
        C(np.sinc, np.array([0.0, 1e-3, -0.02, 0.05, -0.5, 1.0, 2.5]), id="near-zero"),
        C(np.kron, R(2, 3), R(3, 2)), C(np.kron, R(3), R(2), id="vectors"),
        C(np.kron, R(2), R(2, 3), id="ranks"), C(np.kron, F, R(2, 2), id="scalar"),
        C(np.kron, R(2, 1, 2), R(3, 2), id="3d"),
        C(np.cross, R(3), R(3)), C(np.cross, R(4, 3), R(3), id="broadcast"),
        C(np.cross, R(3, 4), R(4, 3), axisa=0, axisc=0, id="axes"),
        C(np.cross, R(3, 2), R(2, 2), axis=0, id="axis-3-2"),
        C(np.cross, R(2), R(3), id="2-3"), C(np.cross, R(4, 2), R(2), id="planar"),
        C(np.cross, R(2, 3), R(5, 2, 3), axisa=0, axisb=1, axisc=-1, id="planar-axes"),
        C(np.gradient, R(5)), C(np.gradient, R(4), 0.5, id="spacing"),
        C(np.gradient, R(3, 4), id="2d"), C(np.gradient, R(3, 4), 2.0, 0.5, id="spacings"),
        C(np.gradient, R(3, 4, 2), axis=1, id="axis"),
        C(np.gradient, R(3, 4), axis=(1, 0), id="axes"), C(np.gradient, R(2), id="two"),
    ]
    # convolve and correlate: every mode, either operand longer, odd and even lengths
    for n, m in ((5, 3), (3, 5), (4, 4), (6, 2), (2, 6), (1, 3)):
        for mode in ("full", "same", "valid"):
            out.append(C(np.convolve, R(n), R(m), mode, id=f"{n}-{m}-{mode}"))
            out.append(C(np.correlate, R(n), R(m), mode=mode, id=f"{n}-{m}-{mode}"))
    return out
