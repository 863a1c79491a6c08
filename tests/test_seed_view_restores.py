"""A summed loss's adjoint of ``y * x`` is ``x`` itself and ``y`` itself (no product
computed: ``lifetimes._seed_ones``); where the backward code then restores ``y`` in
place (undoing ``y[1] *= 3``), that adjoint changed with it: ``sg.grad`` and
``value_and_grad`` gave 4 x1 instead of 6 x1 (hunt 3, a masked update of a copy).
Checked in every form against central differences."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree


def item_scaled(x):
    y = x.copy()
    y[1] = y[1] * 3.0
    return np.sum(y * x)


def item_scaled_in_place(x):
    y = x.copy()
    y[1] *= 3.0
    return np.sum(x * y)


def masked(x):
    y = x * 1.0
    y[y > 0.5] = 0.5 * y[y > 0.5] ** 2
    y[y < -0.5] *= 3.0
    return np.sum(y * x)


def column_scaled(x):
    Y = np.outer(x, x).copy()
    Y[:, 0] *= 2.0
    return np.sum(np.outer(x, x) * Y)


CASES = [item_scaled, item_scaled_in_place, masked, column_scaled]
X = np.array([0.3, -0.8, 1.2])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_central_differences(f):
    check_grads(f, (X,), order=1)  # (second order through writes: refused)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_every_form_agrees(f):
    assert_forms_agree(f, (X,), nonzero=True)


def test_the_value_found_by_hand():
    np.testing.assert_allclose(sg.grad(item_scaled)(X), [0.6, -4.8, 2.4], rtol=1e-12)
    np.testing.assert_allclose(sg.value_and_grad(item_scaled_in_place)(X)[1], [0.6, -4.8, 2.4],
                               rtol=1e-12)
