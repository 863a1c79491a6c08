"""Casts to NumPy's scalar types and to integer dtypes (``ir/varied._integer_cast``).

``np.int64(x)`` and ``np.float32(x)`` of a differentiable value were refused as
"creating a `int64` from differentiable values" (a class built from them); an integer
cast by ``x.astype(int)`` or ``np.asarray(x, dtype=np.int32)`` then used as an index
was refused as "an index computed from differentiable values". An integer or boolean
cast carries no gradient (integer-valued, as ``np.floor``): the value is a constant
of the backward code. ``np.float32``/``np.float16`` of an array are casts with the
rule of ``np.float64``'s.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

W = np.array([[0.7, -0.3, 2.3], [0.2, 0.9, 0.6], [-1.1, 0.4, 1.4], [0.5, 0.8, 0.2]])


def glued_int64(W):
    rows = np.int64(W[:, -1])
    return np.sum(W[:, :-1] ** 2) + np.sum(W[rows, 0] * W[:, 1])


def astype_index(W):
    rows = (W[:, -1] * 1.5).astype(int)
    return np.sum(np.sin(W[rows, :2])) + np.sum(rows * W[:, 0])


def asarray_index(W):
    rows = np.asarray(W[:, 2] + 0.5, dtype=np.int32)
    return np.sum(W[rows, 1] ** 3)


def bool_mask(W):
    keep = W[:, 0].astype(bool)
    return np.sum(np.where(keep, W[:, 1], 0.0) ** 2) + np.sum(np.bool_(W[:, 2]) * W[:, 2])


def int_count(x):
    n = np.int32(x[0] * 2)
    return np.sum(x * n) + np.sum(x[:n] ** 2)


def float32_cast(x):
    return np.sum(np.float32(x).astype(np.float64) * np.cos(x))


def float16_scalar(x):
    return np.float16(2.0) * np.sum(x ** 2)


@pytest.mark.parametrize("f", [glued_int64, astype_index, asarray_index, bool_mask])
def test_integer_casts_of_a_matrix(f):
    check_grads(f, (W.copy(),), order=2)
    assert_forms_agree(f, (W.copy(),))


def test_integer_scalar_cast_of_an_item():
    x = np.array([1.3, -0.4, 0.8])  # (x[0] * 2 = 2.6: away from the jumps)
    check_grads(int_count, (x,), order=2)
    assert_forms_agree(int_count, (x,))


def test_float32_cast_is_a_cast():
    x = np.array([0.3, -1.2, 0.7])
    g = sg.grad(float32_cast)(x)
    # d/dx [float32(x) cos(x)] with the cast's derivative 1 (central differences see the
    # float32 rounding: compared with the formula instead).
    want = np.cos(x) - np.float32(x).astype(np.float64) * np.sin(x)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    check_grads(float16_scalar, (x,), order=2)

