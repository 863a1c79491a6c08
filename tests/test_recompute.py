"""Reverse loops recompute cheap scalars instead of saving them (``passes/recompute.py``).

Every case is checked against finite differences, most to second order (the
recomputed statements are differentiated again); the generated code is read
to see which values were saved and which recomputed.
"""
import re

import numpy as np

import srcgrad as sg
from srcgrad.testing import check_grads


def _text(f, *args):
    return sg.grad(f).__srcgrad_compiled__.entry(args).text


def rosenbrock(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


def test_values_of_the_index_and_inputs_are_recomputed_and_the_forward_loop_goes():
    x = np.linspace(-1.2, 1.1, 7)
    check_grads(rosenbrock, (x,), order=2)
    text = _text(rosenbrock, x)
    assert "_stack" not in text and "recomputed, not saved" in text
    assert len(re.findall(r"^ +for i in", text, re.M)) == 1  # only the reverse loop is left


def product(x):
    p = 1.0
    for i in range(len(x)):
        p = p * (x[i] + 2.0)
    return p


def test_loop_carried_values_are_saved():
    x = np.array([0.3, -0.4, 1.1])
    check_grads(product, (x,), order=2)
    assert "p_stack" in _text(product, x)  # the running product depends on the last iteration


def changed_in_loop(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        s = s + y[i] ** 2
        y[i] = 0.5 * s  # the reverse loop must not read y[i] again: it has changed
    return s + np.sum(y)


def test_arrays_changed_in_place_are_not_read_again():
    x = np.array([0.5, -1.5, 2.0])
    check_grads(changed_in_loop, (x,), order=1)
    assert "recomputed" not in _text(changed_in_loop, x)
    assert "y_slots.pop()" in _text(changed_in_loop, x)  # its slots come back from saves


def matrix_rows(W, x):
    s = 0.0
    for i in range(W.shape[0]):
        row = W[i] * x      # a vector: saved, not recomputed
        s = s + np.tanh(np.sum(row))
    return s


def test_only_scalars_are_recomputed():
    rng = np.random.default_rng(0)
    W, x = rng.standard_normal((3, 4)), rng.standard_normal(4)
    check_grads(matrix_rows, (W, x), order=2)
    text = sg.grad(matrix_rows, wrt=(0, 1)).__srcgrad_compiled__.entry((W, x)).text
    # The vectors are saved (only the shape of ``row``, which is all the backward pass reads)
    assert "row_W_item_stack" in text and "row_like_stack" in text
    assert "recomputed, not saved" not in text


def tape_loop(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        s = 0.0
        for i in range(len(x) - 1):
            s = s + (x[i + 1] - x[i] ** 2) ** 2
    return tape.gradient(s, x)


def _plain(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + (x[i + 1] - x[i] ** 2) ** 2
    return s


def test_tape_blocks_recompute_too():
    """Also of a watched value: ``tape.watch(x)`` does not change ``x``."""
    import srcgrad.tape.tape as tape_module

    x = np.array([0.2, -0.7, 1.3, 0.4])
    np.testing.assert_allclose(tape_loop(x), sg.grad(_plain)(x), rtol=1e-12)
    check_grads(_plain, (x,), order=2)
    text = [e.text for e in tape_module._COMPILED.values() if "def tape_region(x" in e.text
            and "x[i + 1] - x[i] ** 2" in e.text][-1]
    assert "# recomputed, not saved:" in text and "_stack" not in text, text


def param_rebound_after(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 3
    x = x * 0.0  # the reverse loop must read the x the loop read
    return s + np.sum(x)


def test_a_parameter_assigned_after_the_loop_is_not_read_again():
    x = np.array([0.5, -1.5, 2.0])
    check_grads(param_rebound_after, (x,), order=2)
