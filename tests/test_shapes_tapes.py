"""Shapes in tape blocks, and of the Variables objects hold (``passes/ranks.py``).

A tape's code is cached by ``ranks.size_classes`` of the values its block
reads, as ``sg.grad``'s is by its arguments', and the sizes of the Variables
an argument's objects hold count too (to the depth the cache key describes
those objects): a bias broadcast over a batch gets its ``.sum(axis=0)``
written out, an operand of the result's shape nothing. Each test checks the
gradients against central differences, and that values whose sizes relate
otherwise (a bias of one element, layers held in a list, objects deeper than
the key looks) get code that is right for them.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.passes.ranks import OBJECT_DEPTH, size_classes
from srcgrad.tape import tape as tape_module


def _fd(f, arrays, k, eps=1e-6):
    """Central differences of the scalar ``f(*arrays)`` with respect to ``arrays[k]``."""
    x = arrays[k]
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        saved = x[i]
        x[i] = saved + eps
        up = f(*arrays)
        x[i] = saved - eps
        down = f(*arrays)
        x[i] = saved
        out[i] = (up - down) / (2 * eps)
    return out


def _layer(W, b, X):
    return np.sum(np.tanh(X @ W + b) ** 2)


def _args(batch, width, out, bias=None, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(width, out)), rng.normal(size=out if bias is None else bias),
            rng.normal(size=(batch, width)))


class Dense:
    def __init__(self, W, b):
        self.W = sg.Variable(W, name="W")
        self.b = sg.Variable(b, name="b")


def _model_step(model, X):
    with sg.GradientTape() as tape:
        loss = np.sum(np.tanh(X @ model.W + model.b) ** 2)
    return tape.gradient(loss, [model.W, model.b])


@sg.function
def _model_step_function(model, X):
    with sg.GradientTape() as tape:
        loss = np.sum(np.tanh(X @ model.W + model.b) ** 2)
    return tape.gradient(loss, [model.W, model.b])


def _variables_step(W, b, X):
    with sg.GradientTape() as tape:
        loss = np.sum(np.tanh(X @ W + b) ** 2)
    return tape.gradient(loss, [W, b])


def _watched_step(W, b, X):
    with sg.GradientTape() as tape:
        tape.watch([W, b])
        loss = np.sum(np.tanh(X @ W + b) ** 2)
    return tape.gradient(loss, [W, b])


def _texts(marker):
    return [e.text for e in tape_module._COMPILED.values()
            if hasattr(e, "text") and marker in e.text]


def _check(grads, W, b, X):
    for k, g in enumerate(grads):
        expected = _fd(_layer, [W, b, X], k)
        assert g.shape == expected.shape
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)


STYLES = {
    "model": lambda W, b, X: _model_step(Dense(W, b), X),
    "model in @sg.function": lambda W, b, X: _model_step_function(Dense(W, b), X),
    "Variables": lambda W, b, X: _variables_step(sg.Variable(W), sg.Variable(b), X),
    "watched arrays": lambda W, b, X: _watched_step(W, b, X),
}


@pytest.mark.parametrize("style", STYLES)
def test_a_tape_block_knows_its_shapes_in_every_style(style):
    tape_module._COMPILED.clear()
    W, b, X = _args(6, 5, 7)
    _check(STYLES[style](W, b, X), W, b, X)
    texts = _texts("np.tanh(")
    assert texts
    assert all("unbroadcast" not in t and ".sum(axis=0)" in t for t in texts), texts
    # Other sizes relating the same way share the code; other relations get their own.
    for batch, width, out, bias in [(9, 8, 11, None), (3, 6, 8, None), (6, 5, 7, (1,)),
                                    (7, 7, 7, None), (1, 5, 6, None), (6, 5, 7, (1, 7))]:
        W, b, X = _args(batch, width, out, bias, seed=batch)
        _check(STYLES[style](W, b, X), W, b, X)


class Layers:
    """Layers held in a list: the key holds their classes, not their Variables' sizes."""

    def __init__(self, W, b):
        self.layers = [Dense(W, b)]


def _list_step(model, X):
    with sg.GradientTape() as tape:
        layer = model.layers[0]
        loss = np.sum(np.tanh(X @ layer.W + layer.b) ** 2)
    return tape.gradient(loss, [layer.W, layer.b])


class Deep:
    """A Variable further down than the cache key describes objects."""

    def __init__(self, W, b, depth):
        self.W = sg.Variable(W)
        inner = self
        for _ in range(depth - 1):
            inner.inner = type(self).__new__(type(self))
            inner = inner.inner
        inner.b = sg.Variable(b)


def _deep_step(model, X):
    with sg.GradientTape() as tape:
        loss = np.sum(np.tanh(X @ model.W + model.inner.inner.inner.b) ** 2)
    return tape.gradient(loss, [model.W, model.inner.inner.inner.b])


@pytest.mark.parametrize("make, step", [
    (lambda W, b: Layers(W, b), _list_step),
    (lambda W, b: Deep(W, b, OBJECT_DEPTH + 1), _deep_step),
])
def test_variables_the_key_does_not_size_keep_their_broadcasts(make, step):
    """A bias of 7, then one of 1 under the same kinds: the second call must reduce its
    gradient (no code assuming the first bias's size)."""
    for bias in [None, (1,), None]:
        W, b, X = _args(6, 5, 7, bias, seed=3)
        _check(step(make(W, b), X), W, b, X)


def test_size_classes_walk_objects_as_deep_as_the_key():
    W, b, _ = _args(6, 5, 7)
    deep = Deep(W, b, OBJECT_DEPTH)
    deeper = Deep(W, b, OBJECT_DEPTH + 1)
    assert size_classes([deep]) == (0, 1, 1)  # W (5, 7) and b (7,)
    assert size_classes([deeper]) == (0, 1)   # only W
    assert size_classes([Layers(W, b)]) == ()
    assert size_classes([sg.Variable(W), 1.0, {"b": b}]) == (0, 1)


def _dense_value(W, b, X):
    return np.tanh(X @ W + b)


@pytest.mark.parametrize("seed_shape", [(7,), (1, 7), (6, 1), (), (2, 6, 7), (3, 1, 1)])
def test_output_gradients_of_another_shape_weigh_the_target(seed_shape):
    """``gradient(y, x, output_gradients=s)`` is the gradient of ``sum(y * s)``, ``s``
    broadcast as NumPy broadcasts it."""
    W, b, X = _args(6, 5, 7)
    s = np.random.default_rng(1).normal(size=seed_shape)
    model = Dense(W, b)
    with sg.GradientTape() as tape:
        y = np.tanh(X @ model.W + model.b)
    grads = tape.gradient(y, [model.W, model.b], output_gradients=s)
    for k, g in enumerate(grads):
        expected = _fd(lambda *a: np.sum(_dense_value(*a) * s), [W, b, X], k)
        assert g.shape == expected.shape
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)


def test_output_gradients_that_do_not_broadcast_are_an_error():
    W, b, X = _args(6, 5, 7)
    model = Dense(W, b)
    with sg.GradientTape() as tape:
        y = np.tanh(X @ model.W + model.b)
    with pytest.raises(ValueError, match=r"seed of shape \(3,\) for a target of shape \(6, 7\)"):
        tape.gradient(y, [model.W, model.b], output_gradients=np.ones(3))
