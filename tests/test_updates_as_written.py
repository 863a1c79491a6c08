"""Augmented assignments no gradient flows through run as Python runs them.

``g -= d`` updates ``g``'s array in place, so a view's base and every other
name of the array see it; the compiled code once made it ``g = g - d`` (a
new array) where the statement touched no watched value: a wrong value
(fuzzer 35050:860). Now it runs as written (``_sg.update``), or is refused
where the backward pass reads that array afterwards.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped


def through_a_view(x):  # fuzzer 35050:860, shrunk
    b = np.zeros((3,))
    b[1] = 0.25
    c = b.reshape(-1)
    d = c.copy()
    g = b.reshape(-1)
    g -= d
    h = d
    return np.mean(b) + np.mean(h) + np.sum(x * x)


def through_another_name(x):
    a = np.ones(3)
    b = a
    b *= 4.0
    return np.sum(x * a)


def item_of_a_list(x):
    a = np.zeros(3)
    held = [a, 1.0]
    held[0] += 3.0
    return np.sum(x * a)


def a_number(x):
    n = 2.0
    m = n
    n *= 3.0
    return np.sum(x * m) + n


def a_clock(x):
    """``t += h``: the backward pass reads ``t``, a number the update rebinds."""
    t = 0.0
    s = 0.0
    for _ in range(3):
        s = s + np.sum(np.sin(x * t + x))
        t += 0.5
    return s


CASES = [through_a_view, through_another_name, item_of_a_list, a_number, a_clock]
X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_value_and_gradient_in_every_form(f):
    want_value = f(X.copy())
    value, grad = sg.value_and_grad(f)(X.copy())
    assert value == pytest.approx(want_value, rel=1e-12)
    h = 1e-6
    fd = np.array([(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.grad(f)(X.copy()), grad, rtol=1e-12)
    np.testing.assert_allclose(taped(f, X.copy()), grad, rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(f, X.copy()), grad, rtol=1e-12)


def reads_then_writes(x):
    b = np.ones(3)
    y = np.sum(x * b)
    c = b.reshape(-1)
    c -= 1.0
    return y + np.sum(b)


def test_an_update_of_an_array_the_backward_pass_reads_is_refused():
    # (Known when it runs: ``c`` could have held a number, which ``-=`` rebinds.)
    with pytest.raises(sg.CompileError, match=r"in-place update `c -= \.\.\.` of an array"):
        sg.grad(reads_then_writes)(X.copy())


def squared_through_a_view(x, c):
    b = c * 1.0
    g = b.reshape(-1)
    g *= c  # no gradient flows with respect to x: runs as written, b = c * c
    return np.sum(x * b)


def _gradient_summed(x, c):
    return np.sum(sg.grad(squared_through_a_view, wrt=0)(x, c))


def test_differentiated_again_the_update_is_the_users_statement_again():
    """The first gradient runs ``g *= c`` as written (``_sg.update``); differentiated
    again with respect to ``c`` a gradient flows through it. It was read as a function
    with no derivative, a silent wrong answer (1 where 2c is right), then refused as an
    in-place update of a shared array; now it is the user's ``g *= c`` again, a write of
    all of the view ``g`` into ``b`` (``views.py``), differentiated."""
    x, c = np.array([0.5, 1.5]), np.array([2.0, 3.0])
    np.testing.assert_allclose(sg.grad(squared_through_a_view, wrt=0)(x, c), c * c)
    np.testing.assert_allclose(sg.grad(_gradient_summed, wrt=1)(x, c), 2.0 * c)
    check_grads(squared_through_a_view, (x, c), order=2)
    # With respect to x again no gradient flows through it: as written, and right (0).
    np.testing.assert_allclose(sg.grad(_gradient_summed, wrt=0)(x, c), np.zeros(2))
