"""A name bound to a list and, elsewhere, to an array (``hs = []; hs.append(...);
hs = np.stack(hs)``, or the ``y``/``y_prev`` pairs of a first derivative's code): the
compiler takes ``y * n`` and ``a + b`` of such a name for list repetition and
concatenation, and their adjoints now look at what the operand is when the code runs.
Second derivatives were silently wrong (halved; realistic-program hunt 2, an IIR
filter): ``2 * y`` of the array read as ``[..] * 2``."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree


def rebound_to_an_array(a):
    y = [a]
    y = np.array(y)
    return np.sum(y ** 2)


def stacked_under_the_same_name(x):
    hs = []
    for v in x:
        hs.append(np.sin(v) * x)
    hs = np.stack(hs)
    return np.sum(hs ** 2)


def rebound_to_a_list(x):
    y = x * 2
    y = [y[0], y[1]]
    return y[0] * y[1] * y[0]


def doubled_after_the_stack(x):
    ys = [x[0], x[1] * x[0]]
    ys = np.stack(ys)
    return np.sum(2.0 * ys + ys * 3.0)


@pytest.mark.parametrize("f, args", [
    (rebound_to_an_array, (0.7,)), (stacked_under_the_same_name, (np.array([0.3, -0.8]),)),
    (rebound_to_a_list, (np.array([0.6, -1.1]),)),
    (doubled_after_the_stack, (np.array([0.6, -1.1]),))],
    ids=lambda v: getattr(v, "__name__", ""))
def test_second_order_against_central_differences(f, args):
    check_grads(f, args, order=2)
    assert_forms_agree(f, args, nonzero=True)


def test_the_second_derivative_of_the_hunt_repro():
    assert sg.grad(sg.grad(rebound_to_an_array))(0.7) == pytest.approx(2.0, rel=1e-12)


def listed_under_the_same_name(x):
    y = x * 2.0
    y = list(y)
    return y[0] * y[1]


def comprehension_over_itself(x):
    y = np.sin(x)
    y = [v * v for v in y]
    return sum(y) + y[0] * y[1]


@pytest.mark.parametrize("f, order", [(listed_under_the_same_name, 2),
                                      (comprehension_over_itself, 1)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_list_built_from_the_name_it_is_bound_to(f, order):
    """``y = list(y)`` was compiled as ``y = []`` then a loop over ``y``: it iterated the
    new, empty list (realistic-program hunt 2: IndexError). (The second derivative of
    ``comprehension_over_itself`` is refused: its first derivative multiplies an adjoint
    that is a list in one place and an array in another by a differentiated value.)"""
    x = np.array([0.5, -1.2])
    assert sg.value_and_grad(f)(x)[0] == pytest.approx(f(x), rel=1e-12)
    check_grads(f, (x,), order=order)
    assert_forms_agree(f, (x,), nonzero=True)


def test_jacobian_of_an_array_built_from_a_slice_of_a_list():
    """``tape.jacobian`` of ``np.array(vals[::-1])``: the rows' adjoint of the slice was
    concatenated to the list's, not added item by item (hunt 2: ValueError)."""
    x = np.array([0.7, -0.4, 0.3])
    for part, expected in ((slice(None, None, -1), [[0, 0, 4], [0, 3, 0], [2, 0, 0]]),
                           (slice(1, None), [[0, 3, 0], [0, 0, 4]]),
                           (slice(None, None, 2), [[2, 0, 0], [0, 0, 4]])):
        with sg.GradientTape(persistent=True) as tape:
            tape.watch(x)
            vals = [x[0] * 2.0, x[1] * 3.0, x[2] * 4.0]
            y = np.array(vals[part])
        np.testing.assert_allclose(tape.jacobian(y, x), expected)
        np.testing.assert_allclose(tape.gradient(y, x), np.sum(expected, axis=0))


def reversed_list(x):
    vals = [x[i] * 1.0 for i in range(2)]
    vals = vals[::-1]
    return vals[0] * vals[1]


def mapped_twice(x):
    out = x
    for it in range(2):
        parts = []
        for v in out:
            parts.append(np.sin(v) * 2)
        out = np.array(parts)
    return np.sum(out ** 2)


@pytest.mark.parametrize("f", [reversed_list, mapped_twice], ids=lambda f: f.__name__)
def test_hessian_of_list_code(f):
    """sg.hessian differentiates the gradient's code on a tape, whose record keeps a list
    under two names (``vals`` and ``vals_prev``): the copies of the record were two lists,
    the backward code appended to one and popped from the other (hunt 2: IndexError)."""
    x = np.array([0.7, -0.4])
    h = sg.hessian(f)(x)
    gradient = sg.grad(f)
    eps = 1e-6
    numeric = np.stack([(gradient(x + eps * e) - gradient(x - eps * e)) / (2 * eps)
                        for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-8)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        g = gradient(x)
    after = 0  # (not the gradient next: the record is copied)
    np.testing.assert_allclose(tape.jacobian(g, x), numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(tape.gradient(g, x, output_gradients=np.array([1.0, 0.0])),
                               numeric[0], rtol=1e-6, atol=1e-8)


def appended_then_stacked(s):
    traj = []
    for i in range(3):
        s = s * 1.1
        traj.append(np.sin(s))
    traj = np.array(traj)  # the list's name, now the array
    return np.sum(traj ** 2)


def test_persistent_tape_gradient_twice_after_a_list_became_an_array():
    """The backward code pops the list under the name it had before (``traj_prev``), which
    the record's copy for a second run did not cover: the second gradient raised
    ValueError (hunt 3)."""
    s = np.array([1.0, 1.2, 2.0])
    want = sg.grad(appended_then_stacked)(s)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(s)
        y = appended_then_stacked(s)
    for _ in range(3):
        np.testing.assert_allclose(tape.gradient(y, s), want, rtol=1e-12)
    np.testing.assert_allclose(tape.jacobian(y, s), want, rtol=1e-12)
