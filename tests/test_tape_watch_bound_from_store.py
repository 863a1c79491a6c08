"""``W = p["W"]`` (or ``u = sim.u``, ``W, b = m.W, m.b``) on a block's first lines, then
``tape.watch(W)``: TensorFlow watches the very tensor ``p["W"]`` holds, so a helper or a
method reading ``p["W"]`` (``self.u``) computes with the watched value. srcgrad watched
the name only: those reads were constants, the gradient partial (a ``u = sim.u;
sim.step()`` gave None). Such a watch is now the watch of what the name was bound to
(``tape_blocks.prefix_chain``): as ``tape.watch(p["W"])`` is, from the block's first line.
Checked against central differences, in plain code, in ``@sg.function``, to second order
with nested tapes, and with ``jacobian``."""
import numpy as np
import pytest

import srcgrad as sg

P = {"W": np.array([0.3, 0.7]), "b": np.array(0.2)}


def loss():  # reads the global dict
    return np.sum(np.sin(P["W"]) ** 2) + P["b"] ** 3


def _fd(f, u, eps=1e-6):
    return np.array([(f(u + eps * e) - f(u - eps * e)) / (2 * eps) for e in np.eye(u.size)])


def ref(W, b):
    return np.sum(np.sin(W) ** 2) + b ** 3 + np.sum(W) * b


def expected():
    W, b = P["W"], P["b"]
    return _fd(lambda w: ref(w, b), W), _fd(lambda v: ref(W, v[0]), np.array([float(b)]))[0]


def one_per_line(p):
    with sg.GradientTape() as t:
        W = p["W"]
        b = p["b"]
        t.watch([W, b])
        L = loss() + np.sum(W) * b
    return t.gradient(L, [W, b])


def unpacked(p):
    with sg.GradientTape() as t:
        W, b = p["W"], p["b"]
        t.watch(W)
        t.watch(b)
        L = loss() + np.sum(W) * b
    return t.gradient(L, [p["W"], p["b"]])


@sg.function
def compiled(p):
    with sg.GradientTape() as t:
        W = p["W"]
        t.watch(W)
        b = p["b"]
        t.watch(b)
        L = loss() + np.sum(W) * b
    return t.gradient(L, [W, b])


@pytest.mark.parametrize("form", [one_per_line, unpacked, compiled])
def test_helper_reads_the_watched_item(form):
    gW, gb = form(P)
    eW, eb = expected()
    np.testing.assert_allclose(gW, eW, rtol=1e-6)
    np.testing.assert_allclose(gb, eb, rtol=1e-6)


class Sim:
    def __init__(self, u):
        self.u = u

    def step(self):
        self.u = self.u + 0.1 * np.sin(self.u)


def _sim_ref(u, steps):
    for _ in range(steps):
        u = u + 0.1 * np.sin(u)
    return np.sum(u ** 2)


def test_method_reads_the_watched_attribute():
    """The simulation's state watched by the name it was read into, its method stepping
    it (TensorFlow: the same tensor)."""
    u = np.array([0.3, 0.7])
    sim = Sim(u.copy())
    with sg.GradientTape() as t:
        u0 = sim.u
        t.watch(u0)
        sim.step()
        sim.step()
        L = np.sum(sim.u ** 2)
    np.testing.assert_allclose(t.gradient(L, u0), _fd(lambda v: _sim_ref(v, 2), u), rtol=1e-6)


def test_nested_second_order():
    W = P["W"]
    with sg.GradientTape() as outer:
        Wo = P["W"]
        outer.watch(Wo)
        with sg.GradientTape() as inner:
            Wi = P["W"]
            inner.watch(Wi)
            L = loss()
        g = inner.gradient(L, Wi)
        g0 = g[0]
    h = outer.gradient(g0, Wo)
    f = lambda w: np.sum(np.sin(w) ** 2)  # noqa: E731
    np.testing.assert_allclose(g, _fd(f, W), rtol=1e-6)
    np.testing.assert_allclose(h, _fd(lambda w: _fd(f, w, 1e-4)[0], W, 1e-4), rtol=1e-5,
                               atol=1e-7)


class Layer:
    def __init__(self):
        self.W = np.array([0.3, 0.7])
        self.b = np.array(0.1)

    def __call__(self, x):
        return np.tanh(self.W * x + self.b)


def test_jacobian_and_persistent():
    m, x = Layer(), np.array([1.0, -2.0])
    with sg.GradientTape(persistent=True) as t:
        W, b = m.W, m.b
        t.watch([W, b])
        y = m(x)
        L = np.sum(y ** 2)
    gW, gb = t.gradient(L, [W, b])
    J = t.jacobian(y, W)
    np.testing.assert_allclose(gW, _fd(lambda w: np.sum(np.tanh(w * x + 0.1) ** 2), m.W),
                               rtol=1e-6)
    np.testing.assert_allclose(
        gb, _fd(lambda v: np.sum(np.tanh(m.W * x + v[0]) ** 2), np.array([0.1]))[0], rtol=1e-6)
    np.testing.assert_allclose(J, np.diag(x / np.cosh(m.W * x + 0.1) ** 2), rtol=1e-6)


def test_name_bound_again_before_the_watch():
    """``W = p["W"]; W = other`` then ``tape.watch(W)``: the other value, not the item."""
    other = np.array([1.0, 2.0])
    with sg.GradientTape() as t:
        W = P["W"]
        W = other
        t.watch(W)
        L = loss() + np.sum(W ** 2)
    np.testing.assert_allclose(t.gradient(L, W), 2 * other)


def test_written_back_in_the_block_is_refused():
    """The item stored into in the block: a read of it may not be the watched value."""
    p = {"W": np.array([0.3, 0.7])}
    with pytest.raises(sg.CompileError, match="stores into there"):
        with sg.GradientTape() as t:
            W = p["W"]
            t.watch(W)
            p["W"] = p["W"] * 0.9 + np.sin(p["W"])
            L = np.sum(p["W"] ** 2)
        t.gradient(L, W)


def _garch_nll(omega, alpha, beta):
    r = np.array([0.01, -0.02, 0.015, 0.005, -0.01])
    s2, nll = np.var(r), 0.0
    for t in range(1, len(r)):
        s2 = omega + alpha * r[t - 1] ** 2 + beta * s2
        nll += 0.5 * (np.log(s2) + r[t] ** 2 / s2)
    return nll


def test_list_built_in_the_block_then_watched():
    """TensorFlow's idiom ``params = [omega, alpha, beta]; tape.watch(params)`` in the
    block: each was None."""
    omega, alpha, beta = 1e-4, 0.1, 0.8
    with sg.GradientTape() as tape:
        params = [omega, alpha, beta]
        tape.watch(params)
        nll = _garch_nll(omega, alpha, beta)
    got = tape.gradient(nll, params)
    h = [1e-9, 1e-6, 1e-6]
    base = [omega, alpha, beta]
    for i in range(3):
        up = [p + h[i] * (i == j) for j, p in enumerate(base)]
        down = [p - h[i] * (i == j) for j, p in enumerate(base)]
        fd = (_garch_nll(*up) - _garch_nll(*down)) / (2 * h[i])
        np.testing.assert_allclose(got[i], fd, rtol=1e-5)


@sg.function
def _displays_watched(a, b):
    with sg.GradientTape(persistent=True) as tape:
        pair = (a, b)
        named = {"a": a}
        tape.watch(pair)
        tape.watch(named)
        y = np.sum(a * b) + np.sum(a ** 2)
    return tape.gradient(y, pair), tape.gradient(y, named)


def _displays_plain(a, b):
    with sg.GradientTape(persistent=True) as tape:
        pair = (a, b)
        named = {"a": a}
        tape.watch(pair)
        tape.watch(named)
        y = np.sum(a * b) + np.sum(a ** 2)
    return tape.gradient(y, pair), tape.gradient(y, named)


@pytest.mark.parametrize("form", [_displays_plain, _displays_watched])
def test_tuple_and_dict_built_in_the_block_then_watched(form):
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (ga, gb), named = form(a, b)
    np.testing.assert_allclose(ga, b + 2 * a)
    np.testing.assert_allclose(gb, a)
    np.testing.assert_allclose(named["a"], b + 2 * a)


def test_alias_watched_either_way():
    x = np.array([1.0, 2.0])
    with sg.GradientTape(persistent=True) as tape:
        alias = x
        tape.watch(alias)
        y = np.sum(x ** 3)
    np.testing.assert_allclose(tape.gradient(y, x), 3 * x ** 2)
    np.testing.assert_allclose(tape.gradient(y, alias), 3 * x ** 2)
    with sg.GradientTape() as tape:
        other = x
        tape.watch(x)
        y = np.sum(other ** 3)
    np.testing.assert_allclose(tape.gradient(y, x), 3 * x ** 2)


def test_nested_inner_alias_watched():
    """A gamma through nested tapes, the inner watching an alias of the spot."""
    S = np.float64(2.0)
    with sg.GradientTape() as outer:
        outer.watch(S)
        with sg.GradientTape() as inner:
            Sa = S
            inner.watch(Sa)
            price = Sa ** 3
        delta = inner.gradient(price, Sa)
    gamma = outer.gradient(delta, S)
    np.testing.assert_allclose(delta, 3 * S ** 2)
    np.testing.assert_allclose(gamma, 6 * S)


def test_alias_watched_after_other_statements():
    """``alias = x``, another statement, then ``tape.watch(alias)``: the uses of ``x``
    after the watch count (zeros or None before)."""
    x = np.array([0.3, -0.5])
    with sg.GradientTape(persistent=True) as t:
        alias = x
        y0 = np.sum(alias ** 2)  # (before the watch: not recorded)
        t.watch(alias)
        y = y0 + np.sum(x ** 3)
    np.testing.assert_allclose(t.gradient(y, x), 3 * x ** 2)
    np.testing.assert_allclose(t.gradient(y, alias), 3 * x ** 2)


STORE = {"a": np.array([0.4, -0.3])}


def test_item_watched_the_block_reading_a_name_for_it():
    x = STORE["a"]
    with sg.GradientTape() as t:
        t.watch(STORE["a"])
        E = np.sum(x ** 3)
    np.testing.assert_allclose(t.gradient(E, STORE["a"]), 3 * x ** 2)


def _energy(p):
    return np.sum(p["W"] ** 3)


def _hessian_of_outer_name(p):
    with sg.GradientTape() as outer:
        W = p["W"]
        outer.watch(W)
        with sg.GradientTape() as inner:
            inner.watch(W)
            E = _energy(p)
        g = inner.gradient(E, W)
        s = np.sum(g)
    return g, outer.gradient(s, W)


@pytest.mark.parametrize("compiled", [False, True])
def test_inner_tape_watching_a_name_the_outer_bound(compiled):
    p = {"W": np.array([0.3, -0.6])}
    g, h = (sg.function(_hessian_of_outer_name) if compiled else _hessian_of_outer_name)(p)
    np.testing.assert_allclose(g, 3 * p["W"] ** 2)
    np.testing.assert_allclose(h, 6 * p["W"])


class _WithProperty:
    def __init__(self):
        self.W1 = np.array([0.3, -0.5])

    @property
    def Wp(self):  # (a new array at each read)
        return self.W1 * 1.0


def test_name_bound_to_a_property_then_watched():
    """``W = m.Wp; tape.watch(W)``: the property gives a new array at each read, so the
    watch is of the name (watching the chain gave None)."""
    m = _WithProperty()
    with sg.GradientTape() as t:
        W = m.Wp
        t.watch(W)
        L = np.sum(W ** 2) + np.sum(m.Wp)
    np.testing.assert_allclose(t.gradient(L, W), 2 * m.W1)
