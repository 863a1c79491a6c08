"""A loop over a list whose body changes the list's length: Python's loop sees the items
added (or skips some), srcgrad's loop runs over the items the list held when it started.
Refused where the body, once calls are inlined, may change the length (it was a silently
wrong gradient: the appended items never iterated); the while loop with an index that
says what Python does is differentiated."""
import itertools

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.7, -1.3, 0.45])


def appends_while_iterating(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in xs:
        s = s + v * v
        if len(xs) < 4:
            xs.append(v * 0.5)
    return s


def appends_through_a_helper(x):
    xs = [x[0], x[1]]

    def grow(lst, v):
        if len(lst) < 4:
            lst.append(v * 0.5)
    s = 0.0
    for v in xs:
        s = s + v * v
        grow(xs, v)
    return s


def appends_while_chained(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in itertools.chain(xs, [x[2]]):
        s = s + v * v
        if len(xs) < 4:
            xs.append(v * 0.5)
    return s


def pops_while_enumerating(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for i, v in enumerate(xs):
        s = s + (i + 1.0) * v
        if i == 0:
            xs.pop()
    return s


@pytest.mark.parametrize("f", [appends_while_iterating, appends_through_a_helper,
                               appends_while_chained, pops_while_enumerating],
                         ids=lambda f: f.__name__)
def test_changing_the_length_of_the_list_iterated_is_refused(f):
    with pytest.raises(sg.CompileError, match=r"changes the length of a list the loop "
                       r"iterates.*test_loops_over_growing_lists\.py:\d+.*while i < len"):
        sg.grad(f)(X.copy())


def indexed_while_loop(x):
    xs = [x[0], x[1]]
    s = 0.0
    i = 0
    while i < len(xs):
        v = xs[i]
        s = s + v * v
        if len(xs) < 4:
            xs.append(v * 0.5)
        i += 1
    return s


def appends_to_another_list(x):
    xs = [x[0], x[1], x[2]]
    out = []
    for v in xs:
        out.append(v * v)
    return sum(out)


@pytest.mark.parametrize("f", [indexed_while_loop, appends_to_another_list],
                         ids=lambda f: f.__name__)
def test_the_remedy_and_other_lists_are_differentiated(f):
    check_grads(f, (X.copy(),), order=2)
