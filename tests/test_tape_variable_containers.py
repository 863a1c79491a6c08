"""Trainable Variables reached through containers inside a tape block: unpacked from a
tuple, from a namedtuple, through a dict display built in the block or passed to a
helper. Each was a silent ``None`` gradient (the reads were not seen as reads of the
Variables); each is checked against the same loss written on plain arrays."""
import typing

import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, 3))
W0, B0 = RNG.normal(size=(3, 2)), RNG.normal(size=2)
W1, B1 = RNG.normal(size=(2, 2)), RNG.normal(size=2)


class Dense(typing.NamedTuple):
    W: object
    b: object


def _net(W, b, V, c):
    return np.sum(np.tanh(np.tanh(X @ W + b) @ V + c) ** 2)


WANT = sg.grad(_net, (0, 1, 2, 3))(W0, B0, W1, B1)


def _variables():
    return [sg.Variable(W0), sg.Variable(B0), sg.Variable(W1), sg.Variable(B1)]


def unpacked_pairs(vs):
    layers = [(vs[0], vs[1]), (vs[2], vs[3])]
    with sg.GradientTape() as tape:
        (W, b), (V, c) = layers
        loss = _net(W, b, V, c)
    return tape.gradient(loss, vs)


def unpacked_records(vs):
    first, second = Dense(vs[0], vs[1]), Dense(vs[2], vs[3])
    with sg.GradientTape() as tape:
        W, b = first
        loss = _net(W, b, second.W, second.b)
    return tape.gradient(loss, vs)


def _model_loss(model):
    W, b = model["first"]
    second = model["second"]
    return _net(W, b, second.W, second.b)


def dict_passed_to_a_helper(vs):
    first, second = (vs[0], vs[1]), Dense(vs[2], vs[3])
    with sg.GradientTape() as tape:
        loss = _model_loss({"first": first, "second": second})
    return tape.gradient(loss, vs)


def dict_built_in_the_block(vs):
    with sg.GradientTape() as tape:
        model = {"first": (vs[0], vs[1]), "second": Dense(vs[2], vs[3])}
        loss = _net(model["first"][0], model["first"][1], model["second"].W,
                    model["second"].b)
    return tape.gradient(loss, vs)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f", [unpacked_pairs, unpacked_records, dict_passed_to_a_helper,
                               dict_built_in_the_block], ids=lambda f: f.__name__)
def test_variables_in_containers_are_watched(f, placement):
    run = f if placement == "plain" else sg.function(f)
    got = run(_variables())
    for g, want in zip(got, WANT):
        assert g is not None
        np.testing.assert_allclose(g, want, rtol=1e-10)


def test_a_container_the_block_changes_is_not_read_ahead():
    """A list of Variables appended to in the block is not resolved when compiling (its
    items at compile time would not be the ones read): the read is the run's."""
    vs = _variables()
    with sg.GradientTape() as tape:
        pairs = [(vs[0], vs[1])]
        pairs.append((vs[2], vs[3]))
        (W, b), (V, c) = pairs
        loss = _net(W, b, V, c)
    for g, want in zip(tape.gradient(loss, vs), WANT):
        np.testing.assert_allclose(g, want, rtol=1e-10)


def test_appending_through_another_name_is_refused():
    """``alias = pairs; alias.append(...)``: the appended item's adjoint would be read
    apart from ``pairs`` (a silent None before): refused, on a tape and in sg.grad."""
    vs = _variables()
    with pytest.raises(sg.CompileError, match="appending a differentiable value to `alias`"):
        with sg.GradientTape():
            pairs = [(vs[0], vs[1])]
            alias = pairs
            alias.append((vs[2], vs[3]))
            (W, b), (V, c) = pairs
            _net(W, b, V, c)

    def f(x):
        items = [x]
        alias = items
        alias.append(x * 2.0)
        return np.sum(items[1] * 3.0)

    with pytest.raises(sg.CompileError, match="appending a differentiable value to `alias`"):
        sg.grad(f)(B0)


def _numpy_of_a_variable():
    w = sg.Variable(np.array([1.0, 2.0]))
    s = sg.Variable(np.array(3.0))
    history = []
    with sg.GradientTape() as tape:
        y = np.sum(w * w) * s
        history.append(w.numpy())
        z = y + np.sum(w.numpy()) * s.numpy()
        logged = float(s.numpy())
    return tape.gradient(z, [w, s]), history, logged, w


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_numpy_of_a_variable_in_a_block_is_a_constant_copy(placement):
    """``w.numpy()`` in a block (logging, a history) was refused ("no derivative rule");
    as TensorFlow's, it is the value as a new array, through which no gradient flows."""
    run = _numpy_of_a_variable if placement == "plain" else sg.function(_numpy_of_a_variable)
    (gw, gs), history, logged, w = run()
    np.testing.assert_allclose(gw, [6.0, 12.0], rtol=1e-14)  # 2 w s, not 2 w s + s
    np.testing.assert_allclose(gs, 5.0, rtol=1e-14)  # sum(w * w): s.numpy() is a constant
    assert logged == 3.0
    history[0][0] = 100.0  # a copy: the Variable is not changed through it
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
