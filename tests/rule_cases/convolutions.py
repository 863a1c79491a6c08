"""Rule cases of ``srcgrad/rules/convolutions.py`` (see ``tests/rule_cases/__init__.py``).

SciPy is in the test extra; without it the rules are absent, and so are these."""
try:
    import scipy.signal as ss
except ImportError:
    ss = None


def cases(t):
    if ss is None:
        return []
    C, R = t.C, t.R
    out = []
    shapes = [((5,), (3,)), ((3,), (5,)), ((4,), (4,)), ((5, 4), (3, 2)), ((2, 3), (4, 5)),
              ((4, 3), (4, 1)), ((3, 4, 2), (2, 2, 2)), ((2, 2), (4, 3))]
    for s1, s2 in shapes:
        for mode in ("full", "same", "valid"):
            if mode == "valid" and not (all(a >= b for a, b in zip(s1, s2))
                                        or all(b >= a for a, b in zip(s1, s2))):
                continue
            name = f"{s1}-{s2}-{mode}"
            out.append(C(ss.convolve, R(*s1), R(*s2), mode, id=name))
            out.append(C(ss.correlate, R(*s1), R(*s2), mode=mode, id=name))
            out.append(C(ss.fftconvolve, R(*s1), R(*s2), mode, id=name))
            out.append(C(ss.oaconvolve, R(*s1), R(*s2), mode, id=name))
            if len(s1) == 2:
                out.append(C(ss.convolve2d, R(*s1), R(*s2), mode, id=name))
    out.append(C(ss.convolve, R(6, 5), R(2, 3), method="direct", id="direct"))
    out.append(C(ss.correlate, R(6, 5), R(2, 3), "valid", "fft", id="fft"))
    return out
