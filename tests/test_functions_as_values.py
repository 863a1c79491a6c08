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


# -- a module's table of functions (``functions._global_tables``) ------------------------

ACTIVATIONS = {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, "cube": lambda z: z ** 3}
PIPELINE = [np.sin, lambda v: v * 2.0, np.tanh]
XS = np.array([0.3, -0.5, 0.9])


def activation_by_name(x, name="tanh"):
    return np.sum(ACTIVATIONS[name](x * 2.0) ** 2)


def through_a_module_list(x):
    for step in PIPELINE:
        x = step(x)
    return np.sum(x) + np.sum(ACTIVATIONS["cube"](x))


@pytest.mark.parametrize("name", ["tanh", "relu", "cube"])
def test_a_function_chosen_by_name_from_a_module_dict(name):
    """Refused before ("cannot tell which function `ACTIVATIONS[name]` is"): each of the
    table's functions compiled, the one the name picks when the code runs."""
    check_grads(activation_by_name, (XS, name), wrt=0, order=2)
    np.testing.assert_allclose(sg.grad(activation_by_name)(XS, name),
                               sg.grad(lambda v: activation_by_name(v, name))(XS), rtol=1e-12)


def test_a_module_list_of_functions_looped_over():
    check_grads(through_a_module_list, (XS,), order=2)


def test_a_table_changed_between_calls_compiles_anew():
    grad = sg.grad(activation_by_name)
    before = grad(XS)
    ACTIVATIONS["tanh"] = np.sin
    try:
        np.testing.assert_allclose(grad(XS), 4 * np.sin(2 * XS) * np.cos(2 * XS), rtol=1e-12)
    finally:
        ACTIVATIONS["tanh"] = np.tanh
    np.testing.assert_allclose(grad(XS), before, rtol=1e-12)
    with pytest.raises(KeyError):
        grad(XS, "missing")
