"""Indices made from a differentiable array's shape: ``K[np.diag_indices_from(K)] +=
noise`` (the Gaussian process's jitter as often written), ``np.ix_``, ``np.mask_indices``.

They return integers; the index was refused as "computed from differentiable values".
Every form, against central differences.
"""
import numpy as np
import pytest

from tape_forms import assert_every_form

XS = np.linspace(0.0, 1.0, 4)


def gp_logdet_with_jitter(th):
    K = np.exp(-(XS[:, None] - XS[None, :]) ** 2 / th[0])
    K[np.diag_indices_from(K)] += th[1]
    return np.linalg.slogdet(K)[1]


def gp_logdet_named_index(th):
    K = th[0] * np.exp(-(XS[:, None] - XS[None, :]) ** 2)
    d = np.diag_indices_from(K)
    K[d] = K[d] + th[1] ** 2
    return np.linalg.slogdet(K)[1] + np.sum(K[np.ix_([0, 2], [1, 3])])


def upper_by_mask(th):
    A = np.outer(th, th) + np.diag(th)
    return np.sum(A[np.mask_indices(2, np.triu)] ** 2)


@pytest.mark.parametrize("f", [gp_logdet_with_jitter, gp_logdet_named_index, upper_by_mask])
def test_every_form(f):
    assert_every_form(f, np.array([0.3, 0.1]))
