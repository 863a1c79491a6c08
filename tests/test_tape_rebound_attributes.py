"""An object's attribute holding a watched value (or a Variable) when the block starts,
and bound again in the block (``self.W = self.W * 2.0``, ``self.total = self.total + v``,
an RNN's ``self.h = self.h0`` then ``self.h = tanh(... self.h ...)``, a pruned layer's
``self.W_eff = self.W * mask`` where ``W_eff`` started as ``W``). The attribute's local
started from it as a constant, and each read of it stayed a source by its value at the
start: the gradient stopped there, None (found by a battery of framework-style
programs). What the attribute holds when the block starts is the source now; reads of it
after the block binds it are of what it was bound to. Plain code and ``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([1.0, 2.0])


def _central(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


class Doubler:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        self.W = self.W * 2.0
        return np.sum(x * self.W)


class Plain:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.sum(x * self.W)


def doubled_in_place_of_the_watched():
    W = np.array([0.5, -0.3])
    p = Doubler(W)
    with sg.GradientTape() as tape:
        tape.watch(W)
        y = p(X)
    return tape.gradient(y, W), 2 * X


def shared_by_two_objects_one_rebinding():
    W = np.array([0.5, -0.3])
    p, q = Doubler(W), Plain(W)
    with sg.GradientTape() as tape:
        tape.watch(W)
        y = p(X) + q(X)
    return tape.gradient(y, W), 3 * X


class Acc:
    def __init__(self, start):
        self.total = start

    def add(self, v):
        self.total = self.total + v


def accumulator():
    s = np.array([0.5, 0.5])
    x = X.copy()
    a = Acc(s)
    with sg.GradientTape() as tape:
        tape.watch(s)
        tape.watch(x)
        a.add(x * 2.0)
        y = np.sum(a.total ** 2)
    total = s + 2 * x
    return tape.gradient(y, [s, x]), [2 * total, 4 * total]


class Cell:
    def __init__(self):
        self.h0 = sg.Variable(np.array([0.3, -0.2]))
        self.Wh = sg.Variable(np.array([[0.5, 0.1], [0.2, -0.3]]))
        self.h = self.h0  # (the initial state is the Variable itself)

    def reset(self):
        self.h = self.h0

    def step(self, x):
        self.h = np.tanh(x + self.h @ self.Wh)


XS = np.array([[1.0, 2.0], [0.5, -1.0]])


def _rnn(h0, Wh):
    h = h0
    for x in XS:
        h = np.tanh(x + h @ Wh)
    return np.sum(h ** 2)


def learned_initial_state():
    cell = Cell()
    with sg.GradientTape() as tape:
        cell.reset()
        for x in XS:
            cell.step(x)
        y = np.sum(cell.h ** 2)
    h0, Wh = cell.h0.numpy(), cell.Wh.numpy()
    return tape.gradient(y, [cell.h0, cell.Wh]), [_central(lambda a: _rnn(a, Wh), h0),
                                                  _central(lambda a: _rnn(h0, a), Wh)]


def first_step_without_reset():
    cell = Cell()
    with sg.GradientTape() as tape:
        cell.step(XS[0])
        y = np.sum(cell.h ** 2)
    h0, Wh = cell.h0.numpy(), cell.Wh.numpy()

    def one(h0, Wh):
        return np.sum(np.tanh(XS[0] + h0 @ Wh) ** 2)
    return tape.gradient(y, [cell.h0, cell.Wh]), [_central(lambda a: one(a, Wh), h0),
                                                  _central(lambda a: one(h0, a), Wh)]


MASK = np.array([[1.0, 0.0], [1.0, 1.0]])
W0 = np.array([[0.5, -0.3], [0.2, 0.8]])
XB = np.array([[1.0, 2.0], [0.3, -0.4]])


class Pruned:
    def __init__(self):
        self.W = sg.Variable(W0.copy())
        self.mask = MASK
        self.W_eff = self.W

    def __call__(self, x):
        self.W_eff = self.W * self.mask
        return np.tanh(x @ self.W_eff)


def pruned_layer():
    layer = Pruned()
    with sg.GradientTape() as tape:
        y = np.sum(layer(XB) ** 2)
    return tape.gradient(y, layer.W), _central(
        lambda a: np.sum(np.tanh(XB @ (a * MASK)) ** 2), W0)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [doubled_in_place_of_the_watched,
                                  shared_by_two_objects_one_rebinding, accumulator,
                                  learned_initial_state, first_step_without_reset,
                                  pruned_layer], ids=lambda f: f.__name__)
def test_rebound_attribute(form, placement):
    got, expected = (form if placement == "plain" else sg.function(form))()
    got = got if isinstance(got, list) else [got]
    expected = expected if isinstance(expected, list) else [expected]
    for g, e in zip(got, expected):
        assert g is not None
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9)


def test_the_value_the_attribute_holds_after_the_block_is_an_intermediate():
    W = np.array([0.5, -0.3])
    p = Doubler(W)
    with sg.GradientTape() as tape:
        tape.watch(p.W)
        y = p(X)
    # (``p.W`` is now the doubled array, computed in the block: d y / d it is x)
    np.testing.assert_allclose(tape.gradient(y, p.W), X)


class O:
    def __init__(self, x):
        self.x = x

    def step(self):
        y = self.x * 3.0  # read into a local first
        self.x = y


def read_into_a_local_then_rebound():
    o = O(np.array(0.5))
    x_init = o.x
    with sg.GradientTape() as tape:
        tape.watch(o.x)
        o.step()
        E = o.x * 1.0
    return tape.gradient(E, x_init), 3.0  # (was 6.0: counted at two watch points)


class Osc:
    def __init__(self, x, v):
        self.x = x
        self.v = v

    def step(self):
        a = -2.0 * self.x
        self.v = self.v + a
        self.x = self.x + self.v


def two_attributes():
    o = Osc(np.array(0.5), np.array(0.1))
    x_init, v_init = o.x, o.v
    with sg.GradientTape() as tape:
        tape.watch([o.x, o.v])
        o.step()
        E = o.x ** 2
    x1 = 0.1 - 0.5
    return tape.gradient(E, [x_init, v_init]), [-2 * x1, 2 * x1]


class P:
    def __init__(self, x):
        self.x = x

    def step(self):
        self.x = self.x * 3.0


def objects_in_a_list():
    xs = [np.array(0.5), np.array(1.5)]
    ps = [P(xs[0]), P(xs[1])]
    with sg.GradientTape() as tape:
        tape.watch(xs)
        for p in ps:
            p.step()
        E = ps[0].x + ps[1].x * 2.0
    return tape.gradient(E, xs), [3.0, 6.0]


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [read_into_a_local_then_rebound, two_attributes,
                                  objects_in_a_list], ids=lambda f: f.__name__)
def test_rebound_attribute_found_by_a_physics_battery(form, placement):
    test_rebound_attribute(form, placement)


def list_item_rebound():
    x = np.array(0.5)
    state = [x, 1.0]
    with sg.GradientTape() as tape:
        tape.watch(x)
        state[0] = state[0] * 3.0
        E = state[0] * 1.0
    return tape.gradient(E, x)


def dict_state_in_a_loop():
    x = np.array(0.5)
    state = {"x": x, "v": 0.1}
    with sg.GradientTape() as tape:
        tape.watch(x)
        for _ in range(3):
            state["v"] = state["v"] - 0.1 * state["x"]
            state["x"] = state["x"] + 0.1 * state["v"]
        E = state["x"] ** 2
    return tape.gradient(E, x)


def watched_through_the_dict():
    x = np.array(0.5)
    state = {"x": x, "v": 0.1}
    with sg.GradientTape() as tape:
        tape.watch(state["x"])
        state["x"] = state["x"] * 3.0
        E = state["x"] * 1.0
    return tape.gradient(E, x)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [list_item_rebound, dict_state_in_a_loop,
                                  watched_through_the_dict], ids=lambda f: f.__name__)
def test_a_watched_item_of_a_container_the_block_stores_into_is_refused(form, placement):
    """(The gradient was None: each read of the item was taken for the watched value.)"""
    with pytest.raises(sg.CompileError, match="also stores into there"):
        (form if placement == "plain" else sg.function(form))()


def test_other_items_of_the_container_may_be_stored():
    x = np.array(0.5)
    state = {"x": x, "v": 0.1}
    with sg.GradientTape() as tape:
        tape.watch(x)
        state["v"] = state["x"] * 3.0
        E = state["v"] * state["x"]
    np.testing.assert_allclose(tape.gradient(E, x), 6 * 0.5)
