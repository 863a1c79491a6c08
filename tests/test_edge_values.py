"""Edge values JAX's own tests pass through (hunt 11): an operand of ``np.logaddexp`` at
-inf (masked log-probabilities), and ``np.max``/``np.min`` of no element with
``initial=``. Every form agrees with the exact derivative.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_forward_mode_agrees, taped_two

MASK = np.array([True, False, True, False])


def masked_logaddexp(x, y):
    lp = np.where(MASK, x, -np.inf)  # entries 1 and 3 masked out
    return np.sum(np.logaddexp(lp, y) * np.array([1.0, 2.0, 3.0, 4.0]))


def masked_logaddexp_second(x, y):
    lp = np.where(MASK, x, -np.inf)
    return np.sum(np.logaddexp(y, lp) * np.array([1.0, 2.0, 3.0, 4.0]))


@pytest.mark.parametrize("f", [masked_logaddexp, masked_logaddexp_second])
@pytest.mark.parametrize("n", [4, 600])  # (the helper has a code path per size)
def test_logaddexp_with_an_operand_at_minus_infinity(f, n):
    x = np.linspace(-1.0, 1.0, 4)
    y = np.linspace(0.5, -0.5, 4)
    if n != 4:
        x, y = np.resize(x, n), np.resize(y, n)
        mask, w = np.resize(MASK, n), np.resize([1.0, 2.0, 3.0, 4.0], n)
        f = {masked_logaddexp: lambda x, y: np.sum(
                 np.logaddexp(np.where(mask, x, -np.inf), y) * w),
             masked_logaddexp_second: lambda x, y: np.sum(
                 np.logaddexp(y, np.where(mask, x, -np.inf)) * w)}[f]
    else:
        mask, w = MASK, np.array([1.0, 2.0, 3.0, 4.0])
    dx_want = np.where(mask, w / (1.0 + np.exp(y - x)), 0.0)
    dy_want = np.where(mask, w / (1.0 + np.exp(x - y)), w)
    for dx, dy in (sg.grad(f, wrt=(0, 1))(x, y), sg.value_and_grad(f, wrt=(0, 1))(x, y)[1],
                   taped_two(f, x, y), sg.function(taped_two)(f, x, y)):
        np.testing.assert_allclose(dx, dx_want, rtol=1e-12)
        np.testing.assert_allclose(dy, dy_want, rtol=1e-12)
    assert_forward_mode_agrees(f, (x, y))


@pytest.mark.parametrize("reduce", [np.max, np.min])
def test_an_extreme_of_no_element_is_its_start_value(reduce):
    def f(x):
        return reduce(x[:0], initial=0.5) + np.sum(x * x) + np.sum(
            reduce(x.reshape(1, 3)[:0], axis=0, initial=-1.0))

    x = np.array([1.0, -2.0, 3.0])
    assert sg.value_and_grad(f)(x)[0] == pytest.approx(f(x))
    for g in (sg.grad(f)(x), taped_two(lambda a, b: f(a) + b, x, 0.0)[0]):
        np.testing.assert_allclose(g, 2 * x)
