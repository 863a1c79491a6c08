"""A NaN or infinity masked out after it is computed: hunt 9 met it in realistic programs
(missing targets, Coulomb diagonals), where JAX, TensorFlow and PyTorch give NaN (``0 * inf``
in the backward pass). srcgrad's first derivatives are right (strong zeros, README,
*Semantics worth knowing*; tests/test_strong_zeros.py), and the remedy the README gives
where they are not (mask before the operation) agrees with central differences in every
form, to second order.
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


def test_masked_after_the_operation_agrees_with_masking_before():
    np.testing.assert_allclose(sg.grad(masked_after)(W), sg.grad(masked_before)(W),
                               rtol=1e-12)
    assert_forms_agree(masked_after, (W,), nonzero=True)


def test_masking_before_the_operation_is_right_in_every_form():
    assert masked_before(W) == pytest.approx(masked_after(W), rel=1e-14)
    check_grads(masked_before, (W,), order=2)
    assert_forms_agree(masked_before, (W,), nonzero=True)
