"""A watched array held by an object (``tape.watch(layer.kernel)``), read by the block
through a call srcgrad did not follow: ``super().call(x)``, ``map(lambda r: ...)``,
``functools.reduce`` over a helper reading a watched global, ``type(self).call``, a
layer chosen by ``B if flag else A``, a loop over ``list(self.layers)`` (now unrolled). The call ran as
a constant: the gradient was None, silently (found by a battery of framework-style
programs; with an ``sg.Variable`` the same code was refused). ``super()`` of an object the
code is handed, ``map`` and ``reduce`` of functions reading watched values are
differentiated; a call whose function srcgrad cannot tell is refused."""
import functools

import numpy as np
import pytest

import srcgrad as sg

W = np.array([[0.5, -0.3], [0.2, 0.8]])
X = np.array([[1.0, 2.0]])
EXPECTED = X.T @ (1 - np.tanh(X @ W) ** 2)  # d/dW of sum(tanh(x @ W))


class Dense:
    def __init__(self, W):
        self.kernel = W

    def call(self, x):
        return np.tanh(x @ self.kernel)


class ViaSuper(Dense):
    def call(self, x):
        return 2.0 * super().call(x)


class ViaType(Dense):
    def fwd(self, x):
        return type(self).call(self, x)


def through_super():
    layer = ViaSuper(W.copy())
    with sg.GradientTape() as tape:
        tape.watch(layer.kernel)
        y = np.sum(layer.call(X))
    return tape.gradient(y, layer.kernel), 2 * EXPECTED


def through_super_with_a_variable():
    layer = ViaSuper(sg.Variable(W.copy()))
    with sg.GradientTape() as tape:
        y = np.sum(layer.call(X))
    return tape.gradient(y, layer.kernel), 2 * EXPECTED


def through_map():
    layer = Dense(W.copy())
    with sg.GradientTape() as tape:
        tape.watch(layer.kernel)
        y = sum(map(lambda r: np.sum(layer.call(r[None])), X))
    return tape.gradient(y, layer.kernel), EXPECTED


G = W.copy()


def _helper(r):
    return np.sum(np.tanh(r @ G))


def through_reduce_and_a_helper():
    with sg.GradientTape() as tape:
        tape.watch(G)
        y = functools.reduce(lambda acc, r: acc + _helper(r), X, 0.0)
    return tape.gradient(y, G), EXPECTED


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [through_super, through_super_with_a_variable, through_map,
                                  through_reduce_and_a_helper], ids=lambda f: f.__name__)
def test_read_through_a_call_is_differentiated(form, placement):
    got, expected = (form if placement == "plain" else sg.function(form))()
    assert got is not None
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def through_type_of_self():
    layer = ViaType(W.copy())
    with sg.GradientTape() as tape:
        tape.watch(layer.kernel)
        y = np.sum(layer.fwd(X))
    return tape.gradient(y, layer.kernel)


def chosen_by_a_conditional():
    a, b = Dense(W.copy()), Dense(W.copy() * 2.0)
    use_b = False
    with sg.GradientTape() as tape:
        tape.watch(a.kernel)
        layer = b if use_b else a
        y = np.sum(layer.call(X))
    return tape.gradient(y, a.kernel)


class Lin:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.tanh(x @ self.W)


class Model:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in list(self.layers):
            x = layer(x)
        return x


def a_loop_over_a_copy_of_the_layers():
    m = Model([Lin(W.copy()), Lin(W.copy().T)])
    with sg.GradientTape() as tape:
        tape.watch(m.layers[0].W)
        y = np.sum(m(X))
    return tape.gradient(y, m.layers[0].W)


def a_partial_in_a_dict():
    layer = Dense(W.copy())
    with sg.GradientTape() as tape:
        tape.watch(layer.kernel)
        y = np.sum({"f": functools.partial(Dense.call, layer)}["f"](X))
    return tape.gradient(y, layer.kernel)


@pytest.mark.parametrize("form", [through_type_of_self, chosen_by_a_conditional,
                                  a_partial_in_a_dict],
                         ids=lambda f: f.__name__)
def test_a_call_srcgrad_cannot_tell_is_refused(form):
    with pytest.raises(sg.CompileError, match="cannot tell"):
        form()


def test_a_loop_over_a_copy_of_the_layers():
    """``for layer in list(self.layers)``: unrolled over the same layers (it was refused,
    and where the loop's function was not named, silently None)."""
    g = a_loop_over_a_copy_of_the_layers()
    W2 = W.copy().T

    def loss(w):
        return np.sum(np.tanh(np.tanh(X @ w) @ W2))
    eps = 1e-6
    fd = np.zeros_like(W)
    for i in np.ndindex(W.shape):
        d = np.zeros_like(W)
        d[i] = eps
        fd[i] = (loss(W + d) - loss(W - d)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6)
