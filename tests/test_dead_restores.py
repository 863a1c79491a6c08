"""What the forward pass saves for the backward pass, and no more (issue 12, memory).

A loop that rebinds a name saves one value per trip when the backward pass
reads that name; the backward pass puts each back (``x = x_stack.pop()``).
Where nothing reads the name after such a restore (``x = 2.0 * x + 1.0``:
its adjoint is ``dx * 2.0``), neither the save nor the restore is made
(``cleanup.dead_restores``). Each case is checked against central
differences and in every form; the cases where the restore *is* read must
keep it.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree


def affine_steps(x):
    for i in range(3):
        x = 2.0 * x + 1.0
    return np.sum(x ** 2)


def halving_while(x):
    y = x * 1.0
    k = 0
    while np.max(np.abs(y)) > 0.1 and k < 6:
        y = y * 0.5
        k = k + 1
    return np.sum(y * y)


def read_before_the_loop(x):
    """The backward code of ``s = a * x`` reads ``a`` as it was before the loop rebinds it:
    the loop's restores are read."""
    a = np.sin(x)
    s = a * x
    for i in range(2):
        a = a * 2.0
    return np.sum(s * a)


def restored_each_trip(x):
    y = x * 1.0
    for i in range(3):
        z = y * 2.0
        y = np.sin(z)
    return np.sum(y)


def nested_loops(x):
    y = x * 1.0
    for i in range(2):
        for j in range(2):
            y = np.tanh(y) * 0.5
        y = y + 1.0
    return np.sum(y)


def branch_reads_it(x, c):
    y = x * 1.0
    for i in range(2):
        y = y * 3.0
    if c > 0.0:
        return np.sum(y * x)
    return np.sum(x)


def rebinds_unwatched(x, w):
    """``w`` reaches nothing; the loop gives it another shape."""
    for i in range(2):
        w = np.ones(5)
    return np.sum(x * 2.0)


CASES = [
    (affine_steps, (np.array([0.3, -1.2, 2.0]),)),
    (halving_while, (np.array([3.0, -1.5]),)),
    (read_before_the_loop, (np.array([0.4, 1.1, -0.7]),)),
    (restored_each_trip, (np.array([0.2, -0.5]),)),
    (nested_loops, (np.array([0.1, 0.9, -2.0]),)),
    (branch_reads_it, (np.array([1.5, -0.5]), 1.0)),
    (branch_reads_it, (np.array([1.5, -0.5]), -1.0)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_against_central_differences(f, args):
    check_grads(f, args, order=2, wrt=0)


@pytest.mark.parametrize("f, args", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_every_form_agrees(f, args):
    if len(args) == 1:
        assert_forms_agree(f, args, nonzero=True)
    else:  # (a flag argument: the tape watches arrays)
        value, grad = sg.value_and_grad(f)(*args)
        assert value == pytest.approx(f(*args), rel=1e-12)
        np.testing.assert_allclose(grad, sg.grad(f)(*args), rtol=1e-12)


def test_nothing_saved_where_nothing_is_restored():
    text = sg.adjoint_source(affine_steps)
    assert "_stack" not in text and ".pop()" not in text
    text = sg.adjoint_source(halving_while)
    assert "y_stack" not in text


def test_saved_where_the_restore_is_read():
    assert "a_stack" in sg.adjoint_source(read_before_the_loop)
    assert "z_stack" in sg.adjoint_source(restored_each_trip)


def test_an_argument_no_gradient_reaches_gets_zeros_of_its_own_shape():
    x, w = np.ones(3), np.ones(3)
    for form in (sg.grad(rebinds_unwatched, wrt=(0, 1)),
                 lambda *a: sg.value_and_grad(rebinds_unwatched, wrt=(0, 1))(*a)[1]):
        dx, dw = form(x, w)
        np.testing.assert_array_equal(dx, 2.0 * np.ones(3))
        assert dw.shape == (3,) and not np.any(dw)
