"""A nested function that reads a differentiated variable carries it (issue 12, class 7).

Activity analysis asked whether a call's arguments were differentiated, and
looked into a nested def's closure only when the def itself was called. Passed
on (``sg.grad(inner)``, ``map(inner, ...)``), a closure over ``x`` counted as
a constant: ``x * sg.grad(inner)(2.0)`` with ``inner(y) = x * y`` had gradient
``x`` instead of ``2x``, and ``sum(map(inner, ...))`` had gradient 0. Now the
function called is itself a part of the call: ``map`` is refused with the
remedy, which gives the right gradient (since issue 13, ``map(inner, xs)`` is
compiled as the loop calling ``inner``), and ``sg.grad(inner)`` lifts ``inner``
out with ``x`` as an argument (``passes/normalize/closures.py``). Under a tape, a closure
defined before the block over the block's own variables is differentiated
through (its gradient is inlined over those variables).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def gradient_of_a_closure(x):
    def inner(y):
        return x * y
    return x * sg.grad(inner)(2.0)


def closure_mapped(x):
    def inner(y):
        return x * y
    return sum(map(inner, [1.0, 2.0]))


def test_closure_mapped():
    """``map(inner, ...)`` (refused at first) calls ``inner`` on each item, as a loop
    does (issue 13): inlined there, it carries ``x``."""
    from tape_forms import assert_forms_agree, assert_forward_mode_agrees

    check_grads(closure_mapped, (1.5,), order=2)
    assert sg.grad(closure_mapped)(1.5) == pytest.approx(3.0, rel=1e-12)
    assert_forms_agree(closure_mapped, (1.5,), nonzero=True)
    assert_forward_mode_agrees(closure_mapped, (1.5,))


def closure_before_a_tape_block(x):
    def inner(y):
        return x * y

    with sg.GradientTape() as tape:
        tape.watch(x)
        z = x * sg.grad(inner)(2.0)
    return tape.gradient(z, x)


def test_closure_defined_before_a_tape_block():
    # Under a tape the closure is a real function over the block's own ``x``: its
    # gradient is inlined with ``x`` as the block's variable. z = x * x: dz/dx = 2x.
    assert closure_before_a_tape_block(1.5) == pytest.approx(3.0)
    assert sg.function(closure_before_a_tape_block)(1.5) == pytest.approx(3.0)


# The remedy the error gives, and closures that were right, in every form.

def inner_with_x(y, x):
    return np.sum(x * y * y)


def gradient_of_a_module_function(x):
    return x * sg.grad(inner_with_x, wrt=0)(2.0, x)


def gradient_of_a_module_function_on_arrays(x):
    g = sg.grad(inner_with_x, wrt=0)(x, x)
    return np.sum(g * x)


def closure_called(x):
    def inner(y):
        return x * y
    return np.sum(inner(2.0) * x)


CORRECT = [
    (gradient_of_a_module_function, (1.5,)),
    (gradient_of_a_module_function_on_arrays, (np.array([0.5, -1.5, 2.0]),)),
    (closure_called, (1.5,)),
    (closure_called, (np.array([0.5, -1.5]),)),
    # The closure's gradient, lifted out with x as an argument (issue 13, section 4).
    (gradient_of_a_closure, (1.5,)),
]
IDS = ["scalar", "arrays", "closure_float", "closure_array", "gradient_of_a_closure"]


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_grad(f, args):
    check_grads(f, args, order=1)


def test_expected_value():
    # d/dx [x * d/dy (x y^2) at y=2] = d/dx 4x^2 = 8x
    assert sg.grad(gradient_of_a_module_function)(1.5) == pytest.approx(12.0)
    # d/dx [x * d/dy (x y)] = d/dx x^2 = 2x (was x: the closure counted as a constant)
    assert sg.grad(gradient_of_a_closure)(1.5) == pytest.approx(3.0)


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_value_and_grad(f, args):
    value, g = sg.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(g, sg.grad(f)(*args), rtol=1e-12)


def _taped(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_tape_in_plain_code_and_in_function(f, args):
    expected = sg.grad(f)(*args)
    np.testing.assert_allclose(_taped(f, *args), expected, rtol=1e-10)
    np.testing.assert_allclose(sg.function(_taped)(f, *args), expected, rtol=1e-10)
