"""Functions with parameter defaults and with refusals raised at run time, exported
by tests/test_export_defaults.py."""
import numpy as np


def ridge(w, lam=0.1, X=np.array([[1.0, 0.5], [-0.3, 1.2]]), y=np.array([1.0, -1.0]), p=2):
    return np.sum((X @ w - y) ** p) + lam * np.sum(w ** 2)


class Opaque:
    pass


OPAQUE = Opaque()


def with_object_default(w, obj=OPAQUE, lam=0.5):
    return np.sum(np.sin(w)) * lam


def weighted_median(x):
    return np.quantile(x, 0.5, method="inverted_cdf", weights=np.ones(len(x))) * 3.0


def interp_points(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), np.array([0.5, -1.0, 2.0])) ** 2)
