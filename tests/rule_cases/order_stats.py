"""Rule cases of ``srcgrad/rules/order_stats.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

from srcgrad.runtime import order_stats

HOLED = np.array([[0.4, np.nan, -1.3, 2.2], [np.nan, np.nan, np.nan, 0.7], [1.1, -0.2, 0.9, 3.0]])


def cases(t):
    C, R, F = t.C, t.R, t.F
    return [
        C(np.median, R(7)), C(np.median, R(3, 4), axis=1, id="axis"),
        C(np.median, R(2, 3, 4), axis=(0, 2), keepdims=True, id="axes-keepdims"),
        C(np.quantile, R(6), 0.3), C(np.quantile, R(3, 5), [0.1, 0.5, 0.95], axis=0, id="qs"),
        C(np.quantile, R(2, 3, 4), np.array([[0.2, 0.7]]), axis=-1, keepdims=True,
          id="q-matrix"),
        C(np.quantile, R(9), [0.25, 0.6], method="hazen", id="hazen"),
        C(np.quantile, R(9), 0.4, method="nearest", id="nearest"),
        C(np.quantile, R(9), 0.45, method="inverted_cdf", id="inverted-cdf"),
        C(np.percentile, R(8), 30.0), C(np.percentile, R(3, 4), [10.0, 90.0], axis=None,
                                          id="flat"),
        C(np.percentile, R(4, 5), 62.0, axis=1, method="midpoint", id="midpoint"),
        C(np.nanmedian, R(3, 4), axis=1), C(np.nanmedian, HOLED.copy(), axis=1, id="holes"),
        C(np.nanquantile, HOLED.copy(), [0.3, 0.8], axis=-1, id="holes"),
        C(np.nanquantile, R(5), 0.2),
        C(np.nanpercentile, HOLED.copy(), 40.0, axis=0, id="holes"),
        C(np.nanpercentile, R(2, 3), [5.0, 55.0]),
        C(sorted, R(6)), C(sorted, [F, F, F, F], id="list"),
        C(sorted, (F, F, F), reverse=True, id="tuple-reversed"),
        C(sorted, R(5), key=abs, id="key-abs"),
        C(order_stats.tolist, R(5)), C(order_stats.tolist, R(2, 3), id="2d"),
        C(order_stats.tolist, R(), id="0d"),
    ]
