"""Rule cases of ``srcgrad/rules/integration.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

try:
    import scipy.integrate as integrate
except ImportError:  # (SciPy's rules are absent then)
    integrate = None

# Sample points with no two equal and no two neighbouring spacings cancelling.
X = {n: np.cumsum(np.linspace(0.3, 1.1, n)) - 0.7 for n in range(1, 9)}


def cases(t):
    C, R, P, F, FP = t.C, t.R, t.P, t.F, t.FP
    out = []
    for fn, scipy_form in [(np.trapezoid, False)] + (
            [(integrate.trapezoid, True)] if integrate is not None else []):
        tag = "scipy-" if scipy_form else ""
        out += [
            C(fn, R(5), id=tag + "y"), C(fn, R(5), R(5), id=tag + "x"),
            C(fn, R(3, 5), R(5), id=tag + "x-1d"), C(fn, R(4, 3), R(4), axis=0, id=tag + "axis0"),
            C(fn, R(3, 5), R(3, 5), id=tag + "x-nd"), C(fn, R(3, 5), R(1, 5), id=tag + "x-row"),
            C(fn, R(4, 3), R(4, 3), axis=0, id=tag + "x-nd-axis0"),
            C(fn, R(2, 3, 4), dx=FP, axis=1, id=tag + "dx"),
            C(fn, R(3, 5), dx=P(3, 1), id=tag + "dx-array"),
            C(fn, R(5), dx=P(4), id=tag + "dx-spacings"),
            C(fn, R(5), R(5), FP, id=tag + "x-and-dx"),
            C(fn, R(1), R(1), id=tag + "one-sample"), C(fn, R(3, 1), dx=FP, id=tag + "one-sample-dx"),
        ]
    out += [C(np.trapezoid, R(5), R(3, 5), id="x-wider")]
    out += [
        C(np.ediff1d, R(5)), C(np.ediff1d, R(2, 3), id="flattened"),
        C(np.ediff1d, R(4), R(2), F, id="both-ends"),
        C(np.ediff1d, R(4), to_begin=R(1, 2), id="to-begin"),
        C(np.ediff1d, R(3, 1), to_end=F, id="to-end"), C(np.ediff1d, R(1), R(2), R(2), id="one"),
    ]
    if integrate is None:
        return out
    ct, simpson = integrate.cumulative_trapezoid, integrate.simpson
    out += [
        C(ct, R(5)), C(ct, R(5), R(5), id="x"), C(ct, R(5), R(5), initial=0, id="initial"),
        C(ct, R(3, 5), R(5), id="x-1d"), C(ct, R(4, 3), R(4), axis=0, initial=0, id="axis0"),
        C(ct, R(4, 3), R(4, 3), axis=0, id="x-nd"), C(ct, R(2, 3, 4), dx=FP, axis=1, id="dx"),
        C(ct, R(3, 5), dx=P(3, 1), initial=0, id="dx-array"),
        C(ct, R(5), R(5), FP, id="x-and-dx"), C(ct, R(1), initial=0, id="one-sample"),
    ]
    for n in range(1, 9):
        out += [C(simpson, R(n), X[n].copy(), id=f"x-{n}"),
                C(simpson, R(n), dx=FP, id=f"dx-{n}")]
    out += [
        C(simpson, R(3, 6), X[6].copy(), id="x-1d-even"),
        C(simpson, R(3, 7), X[7].copy(), id="x-1d-odd"),
        C(simpson, R(6, 2), X[6].copy(), axis=0, id="axis0"),
        C(simpson, R(2, 6), np.stack([X[6], 2.0 * X[6] + 1.0]), id="x-nd"),
        C(simpson, R(3, 5), X[5][None].copy(), id="x-row"),
        C(simpson, R(2, 4), np.stack([X[4], -X[4]]), id="x-decreasing"),
        C(simpson, R(3, 6), dx=P(3), id="dx-array-even"),
        C(simpson, R(3, 5), dx=P(3), id="dx-array-odd"),
        C(simpson, R(2, 5, 4), dx=FP, axis=1, id="dx-axis1"),
        C(simpson, R(5), X[5].copy(), dx=FP, id="x-and-dx"),
    ]
    return out
