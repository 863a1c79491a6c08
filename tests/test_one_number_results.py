"""A function whose result is an array holding one number (``x @ w`` of shape (1, 1),
a sum with ``keepdims``) is differentiated as that number, as autograd does; an
array of more numbers is still refused."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

RNG = np.random.default_rng(3)
A = RNG.normal(size=(3, 1))
X = RNG.normal(size=(1, 3))


def row_times_column(x):
    return x @ A


def sum_over_rows(x):
    return np.sum(np.sin(x), axis=1)


def kept_dims_item(x):
    return np.sum(x * x, axis=0, keepdims=True)[0:1, 1]


def first_column(x):
    return np.tanh(x[:, :1]) * x[0, 2]


def reshaped_quadratic(x):
    y = x.reshape(3, 1)
    return y.T @ (A * y) + np.ones((1, 1))


def helper_style(x):
    def score(row):
        return np.exp(row) @ A
    s = score(x)
    return s * s


FUNCTIONS = [row_times_column, sum_over_rows, kept_dims_item, first_column,
             reshaped_quadratic, helper_style]


def _numeric(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.flat[i] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * h)
    return out


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_and_value(f):
    g = sg.grad(f)(X)
    np.testing.assert_allclose(g, _numeric(f, X), rtol=1e-6, atol=1e-8)
    assert g.shape == X.shape
    value, g2 = sg.value_and_grad(f)(X)
    np.testing.assert_array_equal(value, f(X))  # the array itself, as f returned it
    np.testing.assert_allclose(g2, g)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order(f):
    check_grads(lambda x: np.sum(sg.grad(f)(x) ** 2), (X,), order=2)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_tape_in_a_function(f):
    np.testing.assert_allclose(sg.function(taped)(f, X.copy()), sg.grad(f)(X), rtol=1e-12)


def test_more_numbers_are_still_refused():
    for x in (np.ones((1, 2)), np.ones((2, 1))):
        with pytest.raises(TypeError, match=r"must return a scalar .* an array of shape"):
            sg.grad(lambda x: x * 2.0)(x)
    with pytest.raises(TypeError, match="must return a scalar"):
        sg.value_and_grad(lambda x: x[:0])(np.ones(3))  # no number at all
