"""A NaN or infinity masked out after it is computed gives a NaN gradient (README,
*Semantics worth knowing*; JAX, TensorFlow and PyTorch alike: ``0 * inf`` is NaN in the
backward pass). Hunt 9 met it in realistic programs (missing targets, Coulomb diagonals).
What the README says holds, and the remedy it gives (mask before the operation) agrees
with central differences in every form.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([[1.0, 0.5], [0.2, -1.0], [0.7, 0.3], [-0.4, 0.9]])
Y = np.array([0.3, np.nan, -0.2, 0.8])
W = np.array([0.6, -0.4])


def masked_after(w):
    return np.nanmean((X @ w - Y) ** 2)


def masked_before(w):
    missing = np.isnan(Y)
    r = np.where(missing, 0.0, X @ w - Y)
    return np.sum(r ** 2) / np.sum(~missing)


def test_masked_after_the_operation_is_nan_as_documented():
    assert np.isnan(sg.grad(masked_after)(W)).any()


def test_masking_before_the_operation_is_right_in_every_form():
    assert masked_before(W) == pytest.approx(masked_after(W), rel=1e-14)
    check_grads(masked_before, (W,), order=2)
    assert_forms_agree(masked_before, (W,), nonzero=True)
