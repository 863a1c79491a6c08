"""A source the block reads only in a branch not taken, or in a loop that ran no trip,
is not connected to the target: None, as TensorFlow's tape gives (its guide's
*Control flow* example: ``dv1`` is None), not zeros. Hunt 8 (TensorFlow's own tests).
"""
import numpy as np
import pytest

import srcgrad as sg


def _branches(x, v0, v1):
    with sg.GradientTape() as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1 ** 2
    return tape.gradient(result, [v0, v1])


def _loop(n, w, b):
    with sg.GradientTape() as tape:
        tape.watch(w)
        tape.watch(b)
        y = b * 2.0
        for i in range(n):
            y = y + w * i
    return tape.gradient(y, [w, b])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_the_guides_control_flow_example(placement):
    run = _branches if placement == "plain" else sg.function(_branches)
    v0, v1 = sg.Variable(2.0), sg.Variable(2.0)
    dv0, dv1 = run(sg.constant(1.0), v0, v1)
    assert float(dv0) == 1.0 and dv1 is None
    dv0, dv1 = run(sg.constant(-1.0), v0, v1)
    assert dv0 is None and float(dv1) == 4.0


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_loop_that_ran_no_trip(placement):
    run = _loop if placement == "plain" else sg.function(_loop)
    w, b = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    dw, db = run(0, w, b)
    assert dw is None
    np.testing.assert_array_equal(db, [2.0, 2.0])
    dw, db = run(3, w, b)
    np.testing.assert_array_equal(dw, [3.0, 3.0])
    np.testing.assert_array_equal(db, [2.0, 2.0])


def test_zero_for_unconnected_and_a_persistent_tape():
    w = np.array([1.0, 2.0])
    v = np.array([3.0, 4.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(w)
        tape.watch(v)
        y = np.sum(w * 2.0)
        if y < 0:
            y = y + np.sum(v)
    for _ in range(2):
        dw, dv = tape.gradient(y, [w, v])
        np.testing.assert_array_equal(dw, [2.0, 2.0])
        assert dv is None
    dv = tape.gradient(y, v, unconnected_gradients=sg.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(dv, [0.0, 0.0])
    assert tape.jacobian(y, v) is None


def test_a_source_also_read_outside_the_branch_is_connected():
    w = np.array([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = np.sum(w * 0.0)
        if y > 1.0:
            y = y + np.sum(w ** 2)
    np.testing.assert_array_equal(tape.gradient(y, w), [0.0, 0.0])


def test_a_branch_taken_in_a_loop_on_some_trips():
    w = np.array([1.0, 2.0])
    v = np.array([0.5, 0.25])
    with sg.GradientTape() as tape:
        tape.watch(w)
        tape.watch(v)
        y = 0.0
        for i in range(4):
            if i % 2 == 0:
                y = y + np.sum(w * i)
            elif i > 10:
                y = y + np.sum(v)
    dw, dv = tape.gradient(y, [w, v])
    np.testing.assert_array_equal(dw, [2.0, 2.0])
    assert dv is None
