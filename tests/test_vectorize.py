"""``np.vectorize``: a Python function of numbers applied to each element (rules/
rewrites.vectorize), built in the code or made by the decorator, of one operand or
of two broadcast together; checked in every form against central differences and
against NumPy's own values. Was refused: "cannot tell at compile time which function
`sv` is"."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.errors import NotDifferentiableError
from tape_forms import assert_every_form


def softplus(v):
    if v > 0:  # (a branch on the element: compiled per element, as Python runs it)
        return v + np.log1p(np.exp(-v))
    return np.log1p(np.exp(v))


def huber(a, b):
    d = a - b
    return 0.5 * d * d if abs(d) < 1.0 else abs(d) - 0.5


@np.vectorize
def decorated(v):
    return np.sin(v) * v if v < 1.0 else np.cos(v)


HUBER = np.vectorize(huber)


def built_in_the_code(x):
    sv = np.vectorize(softplus)
    return np.sum(sv(x) ** 2)


def two_operands(x):
    return np.sum(HUBER(x, 0.25)) + np.sum(HUBER(x[:, None], x[None, :]) * 0.5)


def decorator_and_matrix(x):
    m = np.outer(x, x)
    return np.sum(decorated(m)) + np.sum(decorated(x))


def helper_returning_tuple(x):
    def parts(v):
        sv = np.vectorize(softplus)
        return sv(v), HUBER(v, 2.0 * v[0])

    a, b = parts(x)
    return np.sum(a * b)


X = np.array([0.4, -0.9, 1.3, 2.1])


@pytest.mark.parametrize("f", [built_in_the_code, two_operands, decorator_and_matrix,
                               helper_returning_tuple])
def test_every_form(f):
    assert_every_form(f, X.copy())


def test_values_are_numpys():
    np.testing.assert_allclose(sg.value_and_grad(built_in_the_code)(X.copy())[0],
                               built_in_the_code(X))
    np.testing.assert_allclose(sg.value_and_grad(two_operands)(X.copy())[0], two_operands(X))


def test_a_python_float_operand():
    g = sg.grad(lambda t: float(HUBER(t, 0.25)) + float(np.vectorize(softplus)(t)))(0.7)
    eps = 1e-6
    fd = (huber(0.7 + eps, 0.25) + softplus(0.7 + eps)
          - huber(0.7 - eps, 0.25) - softplus(0.7 - eps)) / (2 * eps)
    assert g == pytest.approx(fd, rel=1e-6)


def test_what_is_not_modelled_is_refused():
    def with_signature(x):
        f = np.vectorize(lambda v: v * 2.0, signature="()->()")
        return np.sum(f(x))

    with pytest.raises(NotDifferentiableError, match="signature"):
        sg.grad(with_signature)(X.copy())

    three = np.vectorize(lambda a, b, c: a * b * c)

    def three_operands(x):
        return np.sum(three(x, x, x))

    with pytest.raises(NotDifferentiableError, match="more than two operands"):
        sg.grad(three_operands)(X.copy())
