"""Silent non-answers become answers or errors (issue 12, class 9).

- A function that returns None (a forgotten ``return``) had a zero gradient:
  it is the TypeError of any non-scalar result.
- A ``custom_gradient`` whose ``grad_fn`` returns None for an input gave NaN:
  None means no gradient through that input (TensorFlow's convention).
- ``np.ma`` masked arrays passed the float check with their mask ignored;
  ndarray subclasses and object arrays are now a TypeError saying what to
  pass instead, for ``sg.grad``, ``value_and_grad`` and the tape.
"""
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def forgets_return(x):
    np.sum(x * x)


def returns_on_one_path(x):
    if x > 0.0:
        return x * x


def bare_return(x):
    x * x
    return


@pytest.mark.parametrize("f, arg", [(forgets_return, np.ones(3)), (forgets_return, 2.0),
                                    (returns_on_one_path, -2.0), (bare_return, 2.0)])
def test_a_none_result_is_a_type_error(f, arg):
    for make in (sg.grad, sg.value_and_grad):
        with pytest.raises(TypeError, match=rf"{f.__name__}\(\) must return a scalar to be "
                                            r"differentiated with grad, but it returned None"):
            make(f)(arg)


def test_a_path_that_returns_a_value_still_has_its_gradient():
    assert sg.grad(returns_on_one_path)(2.0) == pytest.approx(4.0)


@sg.custom_gradient
def scaled(x, c):
    def grad_fn(g):
        return g * 2.0 * c, None  # no gradient through c
    return x * 2.0 * c, grad_fn


@sg.custom_gradient
def clipped(x):
    def grad_fn(g):
        return None
    return np.clip(x, -1.0, 1.0), grad_fn


def through_custom(x, c):
    return np.sum(scaled(x, c) * c)


def only_the_unconnected_input(x, c):
    return np.sum(scaled(x, c))


def single_input_none(x):
    return np.sum(clipped(x) * x)


def in_a_loop(x, c):
    total = 0.0
    for k in range(3):
        c = c * 1.5
        total = total + np.sum(scaled(x, c))
    return total


X = np.array([0.3, -0.5, 1.2])
C = np.array([1.5, 2.0, -0.5])


def test_none_from_grad_fn_means_no_gradient_through_that_input():
    # d/dc counts only the explicit use of c outside the custom function.
    gx, gc = sg.grad(through_custom, wrt=(0, 1))(X, C)
    np.testing.assert_allclose(gx, 2.0 * C * C)
    np.testing.assert_allclose(gc, 2.0 * X * C)
    np.testing.assert_allclose(sg.grad(only_the_unconnected_input, wrt=1)(X, C), np.zeros(3))
    assert not np.isnan(sg.grad(only_the_unconnected_input, wrt=1)(X, C)).any()
    np.testing.assert_allclose(sg.grad(single_input_none)(X), np.clip(X, -1.0, 1.0))
    value, (gx, gc) = sg.value_and_grad(in_a_loop, wrt=(0, 1))(X, C)
    assert value == pytest.approx(in_a_loop(X, C))
    np.testing.assert_allclose(gx, 2.0 * C * (1.5 + 1.5 ** 2 + 1.5 ** 3))
    np.testing.assert_allclose(gc, np.zeros(3))


def test_the_connected_input_matches_finite_differences():
    # With respect to x the custom gradient is the true one.
    check_grads(through_custom, (X, C), order=1, wrt=0)
    check_grads(in_a_loop, (X, C), order=1, wrt=0)


def tape_custom(x, c):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = np.sum(scaled(x, c))
    return tape.gradient(y, [x, c]), tape.jacobian(y, c)


def test_the_tape_gives_zero_for_none():
    for run in (tape_custom, sg.function(tape_custom)):
        (gx, gc), jc = run(X.copy(), C.copy())
        np.testing.assert_allclose(gx, 2.0 * C)
        np.testing.assert_allclose(gc, np.zeros(3))
        np.testing.assert_allclose(jc, np.zeros(3))


def square_sum(x):
    return np.sum(x * x)


def weighted(x, w):
    return np.sum(x * w)


MASKED = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
with warnings.catch_warnings():  # NumPy discourages np.matrix: the point of the test
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0, 3.0]])
OBJECTS = np.array([1.0, 2.0, 3.0], dtype=object)


@pytest.mark.parametrize("value, remedy", [
    (MASKED, r"x.filled\(fill_value\)"),
    (MATRIX, r"np.asarray\(x\)"),
    (OBJECTS, r"np.asarray\(x, dtype=float\)"),
], ids=["masked", "matrix", "object"])
def test_array_subclasses_and_object_arrays_are_refused(value, remedy):
    for make in (sg.grad, sg.value_and_grad):
        with pytest.raises(TypeError, match=remedy):
            make(square_sum)(value)
        # Also as data the function does not differentiate: the rules would
        # read it as a plain array (np.matrix's * is a matrix product).
        with pytest.raises(TypeError, match=remedy):
            make(weighted)(np.ones(3), value)


def tape_watching(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * 2.0)
    return tape.gradient(y, x)


def tape_reading(w, data):
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = np.sum(w * np.asarray(data).sum() + data[0])
    return tape.gradient(y, w)


def test_the_tape_refuses_them_too():
    for run in (tape_watching, sg.function(tape_watching)):
        with pytest.raises(TypeError, match=r"the watched value is a numpy.ma.MaskedArray"):
            run(MASKED.copy())
        with pytest.raises(TypeError, match=r"numpy.matrix"):
            run(MATRIX.copy())
    for run in (tape_reading, sg.function(tape_reading)):
        with pytest.raises(TypeError, match=r"`data`, which the recorded block reads, is a "
                                            r"numpy.ma.MaskedArray"):
            run(np.ones(3), MASKED.copy())


def test_what_to_pass_instead_works():
    filled = MASKED.filled(0.0)
    check_grads(square_sum, (filled,), order=2)
    np.testing.assert_allclose(sg.grad(square_sum)(filled), 2.0 * filled)
    np.testing.assert_allclose(sg.grad(square_sum)(np.asarray(MATRIX)), 2.0 * np.asarray(MATRIX))
    np.testing.assert_allclose(tape_watching(filled), 2.0 * np.ones(3))
