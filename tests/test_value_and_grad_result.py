"""The value ``value_and_grad`` reports is the function's result (issue 12, class 2).

The result variable of generated code is a variable like any other: an early
``return`` or a rebinding is undone by the backward pass, which restores what
the name held before. The value used to be read after the backward pass:
``None`` for any function with an early return, the previous binding's value
for a result rebound in a loop. It is now kept before the backward pass runs.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.5, -1.0, 2.0])


def early_return(x):
    if np.sum(x) > 0:
        return np.sum(x * x)
    return np.sum(x)


def early_return_of_a_float(x):
    s = float(np.sum(x))
    if s > 10.0:
        return 0.0
    return s * s


def return_inside_a_loop(x):
    total = 0.0
    for i in range(4):
        total = total + np.sum(np.sin(x * i))
        if i == 2:
            return total
    return -total


def return_from_a_while(x):
    y = x
    while np.sum(y * y) < 50.0:
        y = y * 1.7
        if np.max(y) > 5.0:
            return np.sum(y)
    return np.sum(y * y)


def rebound_in_a_branch(x):
    y = np.sum(x * x)
    if y > 1.0:
        y = y * 2.0
    return y


def helper_with_early_return(v):
    if v[0] > 0:
        return np.sum(v) * 2.0, v[0]
    return np.sum(v), v[1]


def unpacked_from_a_helper(x):
    total, first = helper_with_early_return(x)
    return total * first


CASES = [early_return, early_return_of_a_float, return_inside_a_loop, return_from_a_while,
         rebound_in_a_branch, unpacked_from_a_helper]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X, -X], ids=["x", "-x"])
def test_value_is_the_result(f, x):
    value, g = sg.value_and_grad(f)(x)
    assert value == f(x)
    g2, value2 = sg.grad(f, preserve_result=True)(x)
    assert value2 == f(x)
    np.testing.assert_array_equal(g, g2)
    np.testing.assert_array_equal(g, sg.grad(f)(x))
    check_grads(f, (x,), order=2)


def test_value_is_kept_only_where_the_backward_pass_would_change_it():
    text = sg.value_and_grad(early_return).__srcgrad_compiled__.entry((X,)).text
    assert "result_value = result" in text and "return (result_value, dx)" in text
    plain = sg.value_and_grad(rebound_in_a_branch).__srcgrad_compiled__.entry((X,)).text
    assert "y_value" not in plain and "return (y, dx)" in plain
