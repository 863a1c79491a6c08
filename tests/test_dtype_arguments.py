"""A primitive asked for an integer result (``np.sum(x, dtype=int)``,
``np.cumprod(x, dtype=int)``) is piecewise constant: its gradient is zero. The rules
of reductions and running sums ignored ``dtype=`` and gave the float gradient (a
silent wrong gradient, found by the forward-mode rule tests). A floating dtype
changes nothing; one known only when the code runs is checked then."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([1.7, 2.2, 3.1])


def cumprod_int(x):
    return np.sum(np.cumprod(x, dtype=int) * 1.0) + np.sum(x * x)


def cumsum_int(x):
    return np.sum(np.cumsum(x, dtype=np.int64) * 1.0) + np.sum(x)


def sum_int(x):
    return np.sum(x, dtype=int) * 1.0 + np.sum(np.sin(x))


def prod_int(x):
    return np.prod(x, dtype="int32") * 1.0 + np.prod(x)


def mean_int(x):
    return np.mean(x, dtype=np.int64) * 1.0 + np.mean(x * x)


def trace_int(x):
    return np.trace(np.outer(x, x), dtype=int) * 1.0 + np.trace(np.outer(x, x))


def sum_float32(x):
    return np.sum(np.cumsum(x, dtype=np.float64) * x, dtype=np.float64)


def sum_dtype_from_an_argument(x, kind):
    return np.sum(np.cumsum(x, dtype=kind) * 1.0) + np.sum(x * x)


@pytest.mark.parametrize("f", [cumprod_int, cumsum_int, sum_int, prod_int, mean_int, trace_int,
                               sum_float32], ids=lambda f: f.__name__)
def test_a_dtype_argument_is_differentiated_as_numpy_computes(f):
    check_grads(f, (X.copy(),), order=2)
    assert_forms_agree(f, (X.copy(),), nonzero=True)


@pytest.mark.parametrize("kind, want", [(int, 2 * X), (float, 2 * X + np.array([3.0, 2.0, 1.0]))],
                         ids=["int", "float"])
def test_a_dtype_known_when_the_code_runs(kind, want):
    np.testing.assert_allclose(sg.grad(sum_dtype_from_an_argument)(X.copy(), kind), want)
