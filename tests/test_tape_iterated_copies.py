"""A GradientTape block (or a helper or method it calls) looping over a copy of a
container holding the watched arrays: ``list(params.values())``, ``tuple(self.layers)``,
``ws.copy()``, ``ws + []``. The loop was not known to read sources, so it was not
unrolled: the gradients were None, silently (``sg.grad`` was right). A method picked
before the block (``f = getattr(net, name)``, then ``f(x)`` in it) reaching the watched
arrays through a call srcgrad cannot follow was taken as reading none (None); it is
refused as the direct call is. Checked against central differences in plain code and in
``@sg.function``."""
import functools

import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.7, -0.4])
W1 = np.array([[0.5, -0.3], [0.2, 0.9]])
W2 = np.array([[0.1, 0.4], [-0.6, 0.3]])


def _ref(w1, w2):
    return np.sum(np.tanh(w2 @ np.tanh(w1 @ X)) ** 2)


def _fd(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


def _expected():
    return _fd(lambda a: _ref(a, W2), W1), _fd(lambda a: _ref(W1, a), W2)


def over_dict_values(params, x):
    h = x
    for w in list(params.values()):
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_list_copy(ws, x):
    h = x
    for w in ws.copy():
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_concatenation(ws, x):
    h = x
    for w in ws + []:
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_tuple(ws, x):
    h = x
    for w in tuple(ws):
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_splat(ws, x):
    h = x
    for w in [*ws]:
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_splat_tuple(ws, x):
    h = x
    for w in (*ws,):
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def over_repeated_once(ws, x):
    h = x
    for w in ws * 1:
        h = np.tanh(w @ h)
    return np.sum(h ** 2)


def _taped(helper, as_dict):
    w1, w2 = W1.copy(), W2.copy()
    held = {"a": w1, "b": w2} if as_dict else [w1, w2]
    with sg.GradientTape() as tape:
        tape.watch(w1)
        tape.watch(w2)
        y = helper(held, X)
    return tape.gradient(y, [w1, w2])


CASES = [(over_dict_values, True), (over_list_copy, False), (over_concatenation, False),
         (over_tuple, False), (over_splat, False), (over_splat_tuple, False),
         (over_repeated_once, False)]


@pytest.mark.parametrize("helper,as_dict", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("compiled", [False, True])
def test_helper_loops_over_a_copy(helper, as_dict, compiled):
    run = sg.function(_taped) if compiled else _taped
    g1, g2 = run(helper, as_dict)
    e1, e2 = _expected()
    np.testing.assert_allclose(g1, e1, rtol=1e-6)
    np.testing.assert_allclose(g2, e2, rtol=1e-6)


def test_inline_loop_over_list_of_values():
    w1, w2 = W1.copy(), W2.copy()
    params = {"a": w1, "b": w2}
    with sg.GradientTape() as tape:
        tape.watch(params)
        h = X
        for w in list(params.values()):
            h = np.tanh(w @ h)
        y = np.sum(h ** 2)
    g = tape.gradient(y, params)
    e1, e2 = _expected()
    np.testing.assert_allclose(g["a"], e1, rtol=1e-6)
    np.testing.assert_allclose(g["b"], e2, rtol=1e-6)


class Dense:
    def __init__(self, w):
        self.w = w

    def call(self, h):
        return np.tanh(self.w @ h)


class Net:
    def __init__(self, ws):
        self.layers = [Dense(w) for w in ws]

    def by_tuple(self, x):
        h = x
        for layer in tuple(self.layers):
            h = layer.call(h)
        return np.sum(h ** 2)

    def by_reduce(self, x):
        h = functools.reduce(lambda acc, layer: layer.call(acc), self.layers, x)
        return np.sum(h ** 2)


def _method_picked_before(name):
    w1, w2 = W1.copy(), W2.copy()
    f = getattr(Net([w1, w2]), name)
    with sg.GradientTape() as tape:
        tape.watch(w1)
        tape.watch(w2)
        y = f(X)
    return tape.gradient(y, [w1, w2])


def test_method_picked_before_the_block():
    g1, g2 = _method_picked_before("by_tuple")
    e1, e2 = _expected()
    np.testing.assert_allclose(g1, e1, rtol=1e-6)
    np.testing.assert_allclose(g2, e2, rtol=1e-6)


def test_method_picked_before_the_block_reaching_sources_unknown_refused():
    """``functools.reduce`` of a lambda calling each layer's method: which function it
    calls is not known when compiling (it was taken as reading no watched value)."""
    with pytest.raises(sg.CompileError, match="cannot tell"):
        _method_picked_before("by_reduce")


class Single:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(np.tanh(self.w @ x) ** 2)


def test_dict_of_bound_methods_made_before_the_block():
    """``fs = {"main": net.loss}`` then ``fs["main"](x)`` in the block, the method reading
    the watched ``self.w``: None before."""
    x = np.array([0.7, -0.4])
    w = W1.copy()
    fs = {"main": Single(w).loss}
    with sg.GradientTape() as t:
        t.watch(w)
        y = fs["main"](x)
    want = _fd(lambda a: np.sum(np.tanh(a @ x) ** 2), W1)
    np.testing.assert_allclose(t.gradient(y, w), want, rtol=1e-6)
