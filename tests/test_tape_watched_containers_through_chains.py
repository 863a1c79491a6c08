"""A watched dict or list reached through an attribute or an item (``tape.watch(m.params)``,
``tape.watch(box["ws"])``) and read whole by the code: ``np.stack(self.ws)``,
``p = self.params`` in ``if p is None:`` (an inlined ``p=None`` default), a callee
rebinding its parameter (``p = p["inner"]``), ``p.get("w")``. The whole-container read
was a constant: None, or the gradient of the other reads only. A container watched at
the start is a source where it is read whole too (``watched_reads.Watched.containers``);
a constant ``p = None`` rebound before any read is dropped (``_drop_dead_constants``).
Checked against central differences in plain code and ``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg

W = np.array([0.3, -0.7])
W0, W1 = np.array([0.3, -0.7]), np.array([1.1, 0.2])


def _fd(f, w, eps=1e-6):
    return np.array([(f(w + e) - f(w - e)) / (2 * eps) for e in np.eye(w.size) * eps])


class Model:
    def __init__(self):
        self.params = {"w": W.copy()}
        self.ws = [W0.copy(), W1.copy()]

    def loss(self, p=None):
        if p is None:
            p = self.params
        return np.sum(p["w"] ** 2) + np.sum(np.sin(self.params["w"]))

    def stacked(self):
        return np.sum(np.sin(np.concatenate(self.ws)) * np.array([1.0, 1.0, 2.0, 2.0]))


def _default_params(m):
    with sg.GradientTape() as tape:
        tape.watch(m.params)
        y = m.loss()
    return tape.gradient(y, m.params)["w"]


@pytest.mark.parametrize("compiled", [False, True])
def test_default_none_then_self_params(compiled):
    m = Model()
    got = (sg.function(_default_params) if compiled else _default_params)(m)
    np.testing.assert_allclose(got, _fd(lambda w: np.sum(w ** 2) + np.sum(np.sin(w)), W),
                               rtol=1e-6)


def test_list_attribute_read_whole_in_a_method():
    m = Model()
    with sg.GradientTape() as tape:
        tape.watch(m.ws)
        y = m.stacked()
    g0, g1 = tape.gradient(y, m.ws)
    np.testing.assert_allclose(g0, np.cos(W0), rtol=1e-12)
    np.testing.assert_allclose(g1, 2 * np.cos(W1), rtol=1e-12)


def test_list_item_read_whole_inline():
    box = {"ws": [W0.copy(), W1.copy()]}
    with sg.GradientTape() as tape:
        tape.watch(box["ws"])
        y = np.sum(np.sin(np.stack(box["ws"])) * np.array([[1.0], [2.0]]))
    g0, g1 = tape.gradient(y, box["ws"])
    np.testing.assert_allclose(g0, np.cos(W0), rtol=1e-12)
    np.testing.assert_allclose(g1, 2 * np.cos(W1), rtol=1e-12)


def _rebinds(p):
    p = p["inner"]
    return np.sum(p["w"] ** 3)


def _gets(p):
    w = p.get("w")
    return np.sum(w ** 2) + np.sum(np.sin(p["w"]))


def test_callee_rebinding_its_parameter():
    m = Model()
    m.params = {"inner": {"w": W.copy()}}
    with sg.GradientTape() as tape:
        tape.watch(m.params)
        y = _rebinds(m.params)
    np.testing.assert_allclose(tape.gradient(y, m.params)["inner"]["w"], 3 * W ** 2,
                               rtol=1e-12)


def test_callee_reading_with_get():
    m = Model()
    with sg.GradientTape() as tape:
        tape.watch(m.params)
        y = _gets(m.params)
    np.testing.assert_allclose(tape.gradient(y, m.params)["w"], 2 * W + np.cos(W), rtol=1e-12)


class _Net:
    def __init__(self, x):
        self.ws = [x.copy(), x * 2.0]


def test_nested_tapes_watching_a_list_attribute_read_whole():
    """The inner gradient and the outer one were zeros (the list read whole was matched
    against the list's items, not the list)."""
    net = _Net(np.array([0.5, -0.2, 0.9]))
    with sg.GradientTape() as outer:
        outer.watch(net.ws)
        with sg.GradientTape() as inner:
            inner.watch(net.ws)
            y = np.sum(np.stack(net.ws) ** 3)
        g = inner.gradient(y, net.ws)
        s = np.sum(g[0] * g[1])
    h = outer.gradient(s, net.ws)
    w0, w1 = net.ws
    np.testing.assert_allclose(g[0], 3 * w0 ** 2)
    np.testing.assert_allclose(g[1], 3 * w1 ** 2)
    np.testing.assert_allclose(h[0], 18 * w0 * w1 ** 2)
    np.testing.assert_allclose(h[1], 18 * w0 ** 2 * w1)


class _Layer:
    def __init__(self, activation=None):
        self.activation = activation

    def __call__(self, x):
        h = x * 2.0
        if self.activation is not None:
            h = self.activation(h)
        return np.sum(h ** 2)


def test_a_none_attribute_is_no_watched_container():
    """(``None`` read from an object was taken for a watched container's read, the branch
    on it not decided: ``no derivative rule for None``.)"""
    x = np.array([0.5, -1.0])
    with sg.GradientTape() as t:
        t.watch(x)
        y = _Layer()(x)
    np.testing.assert_allclose(t.gradient(y, x), 8.0 * x)
