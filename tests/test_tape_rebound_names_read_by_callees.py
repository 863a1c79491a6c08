"""A tape block that binds a name again (``W = W * 2.0``) and calls code that reads
another variable of that name holding the same array when the block started: a closure's
cell (``make_helper(W0)``) or a global read by a helper called from a block in a
function. The compiled block took them for its own variable, so the helper saw the new
array: wrong values and gradients (found by a battery of ports of autograd's and JAX's
examples). Where the helper's variable is the block's own (a cell of the block's
function, a module-level block's global), it is still the same."""
import numpy as np
import pytest

import srcgrad as sg

W0 = np.array([[0.5, -0.3], [0.2, 0.9]])
X = np.array([0.7, -0.4])


def make_helper(W):
    def helper(v):
        return np.tanh(W @ v)  # W0, always
    return helper


HELPER = make_helper(W0)
W = W0


def global_helper(v):
    return np.tanh(W @ v)  # the global W


def rebinding_with_a_closure(W):
    with sg.GradientTape() as tape:
        tape.watch(W)
        W = W * 2.0
        loss = np.sum(HELPER(X)) + np.sum(W ** 2)
    return loss, tape.gradient(loss, W)


def rebinding_with_a_global(W):
    with sg.GradientTape() as tape:
        tape.watch(W)
        W = W * 2.0
        loss = np.sum(global_helper(X)) + np.sum(W ** 2)
    return loss, tape.gradient(loss, W)


def own_cell(W):
    def helper(v):
        return np.tanh(W @ v)  # this function's W: rebound in the block, read new
    with sg.GradientTape() as tape:
        tape.watch(W)
        W = W * 2.0
        loss = np.sum(helper(X)) + np.sum(W ** 2)
    return loss, tape.gradient(loss, W)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [rebinding_with_a_closure, rebinding_with_a_global],
                         ids=lambda f: f.__name__)
def test_the_callee_reads_its_own_variable(form, placement):
    loss, g = (form if placement == "plain" else sg.function(form))(W0)
    assert loss == pytest.approx(np.sum(np.tanh(W0 @ X)) + np.sum((2 * W0) ** 2), rel=1e-12)
    np.testing.assert_allclose(g, 4 * W0)  # d/d(2 W0) of |2 W0|^2; the helper's W0 is not it


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_cell_of_the_blocks_function_is_the_blocks_variable(placement):
    loss, g = (own_cell if placement == "plain" else sg.function(own_cell))(W0)
    new = 2 * W0
    assert loss == pytest.approx(np.sum(np.tanh(new @ X)) + np.sum(new ** 2), rel=1e-12)
    expected = np.outer(1 - np.tanh(new @ X) ** 2, X) + 2 * new
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def not_rebound(W):
    with sg.GradientTape() as tape:
        tape.watch(W)
        loss = np.sum(global_helper(X)) + np.sum(HELPER(X)) + np.sum(W ** 2)
    return tape.gradient(loss, W)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_the_watched_array_read_by_identity_elsewhere(placement):
    """(TensorFlow's semantics: the helpers read the very array watched.)"""
    g = (not_rebound if placement == "plain" else sg.function(not_rebound))(W0)
    np.testing.assert_allclose(g, 2 * np.outer(1 - np.tanh(W0 @ X) ** 2, X) + 2 * W0,
                               rtol=1e-12)
