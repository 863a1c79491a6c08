"""Functions passed as values (issue 13): the ``operator`` module's functions and
NumPy's ufuncs, called by name or through a variable or parameter, checked against
central differences to second order."""
import operator

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

A = np.array([1.0, 2.0, -0.5])
B = np.array([0.5, 1.5, 2.5])


def operators_by_name(a, b):
    return np.sum(operator.mul(a, b) + operator.truediv(a, b) - operator.neg(b)
                  + operator.pow(a, 2.0) + operator.sub(a, operator.pos(b)))


def a_ufunc_in_a_variable(a, b):
    f = np.multiply
    g = operator.add
    return np.sum(g(f(a, b), a))


def _apply(f, x, y):
    return f(x, y)


def functions_as_arguments(a, b):
    return np.sum(_apply(operator.mul, a, b) + _apply(np.hypot, a, b) + _apply(operator.matmul, a, b))


def operator_add_joins_lists(a, b):
    parts = operator.add([a], [b, a])  # a list of three arrays, as ``[a] + [b, a]``
    return np.sum(parts[0] * parts[1] * parts[2])


@pytest.mark.parametrize("f", [operators_by_name, a_ufunc_in_a_variable, functions_as_arguments,
                               operator_add_joins_lists])
def test_against_finite_differences_to_second_order(f):
    check_grads(f, (A, B), order=2)


def test_operator_add_on_lists_is_concatenation_not_addition():
    ga, gb = sg.grad(operator_add_joins_lists, (0, 1))(A, B)
    np.testing.assert_allclose(ga, 2.0 * A * B)
    np.testing.assert_allclose(gb, A * A)
