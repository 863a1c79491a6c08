"""A loop's ``else`` (``passes/loop_else.py``): run when the loop ends without ``break``.

It was refused; it becomes an ``if`` after the loop on a flag set right before each
of the loop's own breaks, so the break taken, the break not taken, breaks of inner
loops and a ``break`` in an inner loop's ``else`` (the outer loop's) each give
Python's value and gradient in every form.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])


def search(x):
    t = 0.0
    for v in x:
        if v < 0:
            t = t + v * 3.0
            break
        t = t + v * v
    else:
        t = t * 100.0
    return t


def search_not_found(x):
    t = 0.0
    for v in x[:3]:
        if v < 0:
            break
        t = t + v * v
    else:
        t = t * 10.0
    return t


def counted(x):
    i = 0
    t = 1.0
    while i < 4:
        t = t * x[i]
        i += 1
    else:
        t = t + x[5]
    return t


def while_broken(x):
    i = 0
    t = 1.0
    while i < 6:
        if x[i] < 0:
            break
        t = t * (1.0 + x[i])
        i += 1
    else:
        t = t - 50.0
    return t * x[4]


def inner_breaks_only(x):
    # The inner loop's break is its own: the outer loop ends normally, its else runs.
    t = 0.0
    for i in range(2):
        for j in range(3):
            if j > i:
                break
            t = t + x[3 * i + j] ** 2
    else:
        t = np.sin(t)
    return t


def break_in_inner_else(x):
    # ``for j ... else: break``: the break belongs to the outer loop.
    t = 0.0
    for i in range(3):
        for j in range(2):
            if x[2 * i + j] < 0:
                break
            t = t + x[2 * i + j] * (j + 1)
        else:
            t = t * 1.5
            continue
        t = t - 7.0 * x[0]
        break
    else:
        t = t + 1000.0
    return t


def _first_negative(x):
    for k in range(x.shape[0]):
        if x[k] < 0:
            return_value = x[k] * 2.0
            break
    else:
        return_value = np.sum(x)
    return return_value


def through_a_helper(x):
    return _first_negative(x) * x[1] + _first_negative(x[:3])


@pytest.mark.parametrize("f", [search, search_not_found, counted, while_broken,
                               inner_breaks_only, break_in_inner_else, through_a_helper])
def test_a_loop_else_in_every_form(f):
    assert_every_form(f, X.copy())


def taped_search(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        t = 0.0
        for v in x:
            if v < 0:
                t = t + v * 3.0
                break
            t = t + v * v
        else:
            t = t * 100.0
    return tape.gradient(t, x)


@pytest.mark.parametrize("x", [X, np.abs(X)], ids=["break", "no_break"])
def test_a_loop_else_written_in_a_tape_block(x):
    want = sg.grad(search)(x.copy())
    np.testing.assert_allclose(taped_search(x.copy()), want, rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped_search)(x.copy()), want, rtol=1e-12)
    assert np.any(want != 0)


def test_the_else_runs_as_python_decides():
    # (The two inputs take the two ways: the gradients differ by the else's factor.)
    g_break = sg.grad(search)(X.copy())
    g_none = sg.grad(search)(np.abs(X))
    np.testing.assert_allclose(g_break[:4], 2 * X[:4])
    np.testing.assert_allclose(g_none, 200 * np.abs(X))


def test_the_flag_is_named_after_the_loop_variable():
    source = sg.adjoint_source(search)
    assert "v_broke = True" in source and "not v_broke" in source
