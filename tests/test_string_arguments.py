"""Strings passed to the differentiated code are constants of it (``atoms.keyed_constant``).

The cache keys the code on a string argument's value (as on a None), and the
normalizer knows the parameter holds it: ``np.einsum(subscripts, a, b)`` with the
subscripts an argument (refused before: "needs its subscripts known when
compiling"), a branch on a mode's name decided when compiling, and a string passed on
to a gradient the code takes again.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

A = np.array([[0.5, -1.2, 0.3], [0.8, 0.1, -0.4]])
B = np.array([[1.1, 0.2], [-0.3, 0.7], [0.4, -0.9]])


def contract(subscripts, a, b):
    return np.sum(np.sin(np.einsum(subscripts, a, b)))


def penalty(x, kind):
    if kind == "l2":
        return np.sum(x ** 2)
    elif kind == "l1":
        return np.sum(np.abs(x))
    return np.sum(np.log1p(x ** 2))


@pytest.mark.parametrize("subscripts, b", [("ij,jk->ik", B), ("ij,kj->ik", B.T),
                                           ("ij,jk->ki", B), ("ij,jk->", B)])
def test_einsum_subscripts_passed_in(subscripts, b):
    check_grads(contract, (subscripts, A.copy(), b.copy()), order=2, wrt=[1, 2])
    value, grads = sg.value_and_grad(contract, wrt=(1, 2))(subscripts, A, b)
    assert value == pytest.approx(contract(subscripts, A, b), rel=1e-12)


def test_each_string_gets_its_own_code():
    g = sg.grad(contract, wrt=1)
    first = g("ij,jk->ik", A, B)
    second = g("ij,jk->ki", A, B)  # the same kinds of arrays, another contraction
    np.testing.assert_allclose(first, second, rtol=1e-12)  # (sum(sin(M.T)) = sum(sin(M)))
    third = g("ij,kj->ik", A, B.T)
    np.testing.assert_allclose(third, first, rtol=1e-12)
    x = np.array([0.3, -0.8, 1.5])
    p = sg.grad(penalty)
    np.testing.assert_allclose(p(x, "l2"), 2 * x)
    np.testing.assert_allclose(p(x, "l1"), np.sign(x))
    np.testing.assert_allclose(p(x, "log"), 2 * x / (1 + x ** 2))
    np.testing.assert_allclose(p(x, "l2"), 2 * x)  # (the first code, from the cache)


def test_branch_on_a_string_is_decided_when_compiling():
    source = sg.adjoint_source(penalty, args=(np.ones(3), "l1"))
    assert "log1p" not in source and "** 2" not in source


def test_string_passed_on_to_an_inner_gradient():
    def outer(x, kind):
        return np.sum(sg.grad(penalty)(x, kind) * x)

    def outer_einsum(a, subscripts):
        return np.sum(sg.grad(contract, wrt=1)(subscripts, a, B) ** 2)

    x = np.array([0.3, -0.8, 1.5])
    for kind in ("l2", "log"):
        check_grads(outer, (x.copy(), kind), order=1, wrt=[0])
    check_grads(outer_einsum, (A.copy(), "ij,jk->ik"), order=1, wrt=[0])


def test_string_in_a_tape_block():
    x = np.array([0.3, -0.8, 1.5])
    for kind in ("l2", "log"):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = penalty(x, kind)
        np.testing.assert_allclose(tape.gradient(y, x), sg.grad(penalty)(x, kind), rtol=1e-12)


ACTS = {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, "softplus": np.logaddexp}


def table_by_name(x, name):
    act = ACTS[name]
    return np.sum(act(x) * x)


class Layer:
    def __init__(self, W, activation="tanh"):
        self.W, self.act = W, ACTS[activation]

    def __call__(self, x):
        return self.act(x @ self.W)


def layer_by_name(W, x, activation):
    return np.sum(Layer(W, activation)(x) ** 2)


class Branching:
    def __init__(self, activation):
        self.activation = activation

    def __call__(self, z):
        if self.activation == "relu":
            return np.maximum(z, 0.0)
        return np.tanh(z)


def keras_like(W, x, activation):
    return np.sum(Branching(activation)(x @ W) ** 2)


def test_a_table_read_by_a_string_passed_in():
    x = np.array([0.3, -0.8, 1.5])
    W = np.array([[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3]])
    check_grads(table_by_name, (x.copy(), "tanh"), order=2, wrt=[0])
    check_grads(layer_by_name, (W.copy(), x.copy(), "tanh"), order=2, wrt=[0, 1])
    check_grads(keras_like, (W.copy(), x.copy(), "tanh"), order=2, wrt=[0, 1])
    g = sg.grad(keras_like)
    np.testing.assert_allclose(g(W, x, "relu"), sg.grad(
        lambda W, x: np.sum(np.maximum(x @ W, 0.0) ** 2))(W, x), rtol=1e-12)


def test_a_rebound_string_is_not_taken_for_the_one_passed():
    def rebound(x, name):
        name += "h"  # "tan" -> "tanh"
        act = ACTS[name]
        return np.sum(act(x))

    x = np.array([0.3, -0.8, 1.5])
    # (Not ``ACTS["tan"]``, which does not exist: which function the table gives is known
    # only when the code runs, and a name rebound to it is refused.)
    with pytest.raises(sg.CompileError, match="which function `act` is"):
        sg.grad(rebound)(x, "tan")


TABLE_WITH_NONE = {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, None: lambda z: z}


class VariableDense:
    def __init__(self, W, activation=None):
        self.W = sg.Variable(W)
        self.activation = activation

    def __call__(self, x):
        return TABLE_WITH_NONE[self.activation](x @ self.W)


def _tape_step(layers, x):
    with sg.GradientTape() as tape:
        h = x
        for layer in layers:
            h = layer(h)
        loss = np.sum(h ** 2)
    return tape.gradient(loss, [layer.W for layer in layers])


@pytest.mark.parametrize("form", ["plain", "function"])
def test_a_table_with_a_none_key_on_a_tape(form):
    # (A module's table of activations keyed by name, and None for the identity, read by
    # a layer's attribute: refused before for its None key.)
    W1 = np.array([[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3]])
    W2 = np.array([[0.4], [-1.1]])
    x = np.array([[0.3, -0.8, 1.5]])
    layers = [VariableDense(W1, "tanh"), VariableDense(W2)]
    run = _tape_step if form == "plain" else sg.function(_tape_step)
    g1, g2 = run(layers, x)

    def loss(W1, W2):
        return np.sum((np.tanh(x @ W1) @ W2) ** 2)

    want = sg.grad(loss, wrt=(0, 1))(W1, W2)
    np.testing.assert_allclose(g1, want[0], rtol=1e-12)
    np.testing.assert_allclose(g2, want[1], rtol=1e-12)
