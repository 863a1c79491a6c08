"""A loop iterates the value its iterable had when the loop started (issue 12, class 1).

``for p in a: a = a + p``: Python evaluates ``a`` once; the generated code
indexed ``a`` on every trip and so read the rebound name. Values and
gradients were wrong, silently. The iterable is now read through a copy of
the name bound before the loop whenever the body rebinds it, while ``a += p``
(an in-place update of the array being iterated) still reads it again, as
Python does.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, taped

A = np.array([0.5, -1.0, 2.0])
M = np.array([[0.5, -1.0], [2.0, 0.3], [0.2, 0.1]])


def add_each_item(a):
    for p in a:
        a = a + p
    return np.sum(a)


def scale_by_each_item(a):
    for i, p in enumerate(a):
        a = a * p + i
    return np.sum(a)


def zipped_with_itself(a):
    for p, q in zip(a, a):
        a = a + p * q
    return np.sum(a)


def rows_of_a_matrix(m):
    for row in m:
        m = m - 0.3 * row
    return np.sum(m * m)


def rebound_and_accumulated(a):
    s = 0.0
    for p in a:
        a = a * 2.0
        s = s + p * np.sum(a)
    return s


def rebound_in_a_helper_loop(a):
    return add_each_item(a * 1.5) + np.sum(a)


def updated_in_place(a):
    a = a * 1.0
    for p in a:
        a += p          # the array iterated over changes: later items see it
    return np.sum(a)


def rebound_as_floats(x, y):
    values = np.array([x, y])
    for v in values:
        values = values * v
    return float(np.sum(values))


CASES = [(add_each_item, (A,)), (scale_by_each_item, (A,)), (zipped_with_itself, (A,)),
         (rows_of_a_matrix, (M,)), (rebound_and_accumulated, (A,)),
         (rebound_in_a_helper_loop, (A,)), (updated_in_place, (A,)),
         (rebound_as_floats, (0.7, -1.3))]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_every_form(f, args):
    # (second order refuses ``a += p``: code differentiated again updates nothing in place)
    check_grads(f, args, order=1 if f is updated_in_place else 2)
    wrt = tuple(range(len(args))) if len(args) > 1 else 0
    value, g = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)
    if len(args) == 1 and f is not updated_in_place:  # (a tape refuses its ``+=``)
        np.testing.assert_allclose(taped(f, args[0]), g, rtol=1e-12)
        np.testing.assert_allclose(sg.function(taped)(f, args[0]), g, rtol=1e-12)


def test_the_copy_is_named_after_the_iterable():
    text = sg.adjoint_source(add_each_item)
    assert "a_iterated = a" in text and "p = a_iterated[p_index]" in text
    assert "a_iterated" not in sg.adjoint_source(updated_in_place)


def weighted_by_position(x):
    total = 0.0
    for k, v in enumerate(x, start=1):
        total = total + k * v ** 2
    return total


def damped_from_two(x):
    total = 0.0
    for k, v in enumerate(x, 2):
        total = total + np.sin(v) / k
    return total


def test_enumerate_with_a_start():
    """``enumerate(xs, start=1)`` (realistic-program hunt 2: refused, "creating a
    `enumerate` from differentiable values")."""
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(sg.grad(weighted_by_position)(x), 2 * np.arange(1, 4) * x)
    np.testing.assert_allclose(sg.grad(damped_from_two)(x), np.cos(x) / np.arange(2, 5))
    for f in (weighted_by_position, damped_from_two):
        check_grads(f, (x,), order=2)
        assert_forms_agree(f, (x,), nonzero=True)
