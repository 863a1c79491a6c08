"""Rule cases of ``srcgrad/rules/moments.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np


def cases(t):
    C, R = t.C, t.R
    return [
        C(np.cov, R(3, 6)), C(np.cov, R(7), id="vector"),
        C(np.cov, R(5, 2), rowvar=False, id="columns"),
        C(np.cov, R(2, 5), R(5), bias=True, id="y"),
        C(np.cov, R(4, 3), R(4, 2), rowvar=False, ddof=0, id="y-columns"),
        C(np.cov, R(5), R(1, 5), rowvar=False, id="y-one-row"),
        C(np.cov, R(2, 6), fweights=np.array([1, 3, 1, 2, 1, 1]),
          aweights=np.linspace(0.2, 1.5, 6), id="weights"),
        C(np.cov, R(2, 6), aweights=np.linspace(0.2, 1.5, 6), ddof=0, id="aweights-ddof0"),
        C(np.corrcoef, R(3, 6)), C(np.corrcoef, R(6), R(6), id="pair"),
        C(np.corrcoef, R(5, 3), R(5), rowvar=False, id="columns"),
        C(np.corrcoef, R(6), id="one"),
    ]
