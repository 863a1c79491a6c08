"""Models written as PyTorch users write them: layer objects with ``__call__`` and
``parameters()``, built by a list comprehension, their parameters gathered with
``extend``.

``self.layers = [Linear(W, b) for W, b in zip(Ws, bs)]`` was refused ("creating a
`Linear` ... built where the code may not run it (in a comprehension)"), and
``out.extend(layer.parameters())`` was refused ("writes into `out` ... through
calls"), and so was ``for i in range(len(layers)): h = layers[i](h)``. A comprehension
making objects over items the code shows how many is the display of them
(``unroll._objects_made``), a ``range`` loop reading such a list by its index is
unrolled (``unroll.object_index_loops``), and ``lst.extend(seq)`` of a list with known
items is the appends it makes (``Normalizer._extend_as_appends``).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from test_record_call import Dense  # (a dataclass layer with __call__)

H = np.array([[0.5, -0.2], [0.1, 0.3]])


class Linear:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, h):
        return h @ self.W + self.b

    def parameters(self):
        return [self.W, self.b]


class MLP:
    def __init__(self, Ws, bs):
        self.layers = [Linear(W, b) for W, b in zip(Ws, bs)]

    def __call__(self, h):
        for i, layer in enumerate(self.layers):
            h = layer(h)
            if i < len(self.layers) - 1:
                h = np.tanh(h)
        return h

    def parameters(self):
        out = []
        for layer in self.layers:
            out.extend(layer.parameters())
        return out


def loss(Ws, bs):
    net = MLP(Ws, bs)
    reg = sum(np.sum(p ** 2) for p in net.parameters())
    return np.mean(net(H) ** 2) + 0.01 * reg


def loss_of_records(Ws, bs):
    layers = [Dense(Ws[i], bs[i] * (i + 1)) for i in range(len(Ws))]
    h = H
    for layer in layers:
        h = layer(h)
    return np.sum(h ** 2)


def loss_enumerated(Ws, bs):
    layers = [Linear(W * (k + 1.0), bs[k]) for k, W in enumerate(Ws)]
    return np.sum(np.tanh(layers[-1](layers[0](H))) ** 2)


def loss_indexed(Ws, bs):
    layers = [Linear(W, b) for W, b in zip(Ws, bs)]
    h = H
    for i in range(len(layers)):
        h = np.tanh(layers[i](h))
    for k in range(1, 3):
        h = h * layers[k].b
    return np.sum(h)


def _params(kind):
    rng = np.random.default_rng(0)
    Ws = kind(rng.standard_normal((2, 2)) for _ in range(3))
    bs = kind(rng.standard_normal(2) for _ in range(3))
    return Ws, bs


@pytest.mark.parametrize("kind", [tuple, list])
@pytest.mark.parametrize("f", [loss, loss_of_records, loss_enumerated, loss_indexed])
def test_layers_made_by_a_comprehension(f, kind):
    Ws, bs = _params(kind)
    check_grads(f, (Ws, bs), order=2 if kind is tuple else 1)
    value, (gW, gb) = sg.value_and_grad(f, wrt=(0, 1))(Ws, bs)
    assert value == pytest.approx(f(Ws, bs), rel=1e-12)
    want = sg.grad(f, wrt=(0, 1))(Ws, bs)
    for got, expected in zip(gW + gb, want[0] + want[1]):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_the_tape_agrees():
    Ws, bs = _params(tuple)
    want = sg.grad(loss, wrt=(0, 1))(Ws, bs)

    def taped(Ws, bs):
        with sg.GradientTape() as tape:
            tape.watch(Ws)
            tape.watch(bs)
            y = loss(Ws, bs)
        return tape.gradient(y, [Ws, bs])
    for got in (taped(Ws, bs), sg.function(taped)(Ws, bs)):
        for g, w in zip(list(got[0]) + list(got[1]), list(want[0]) + list(want[1])):
            np.testing.assert_allclose(g, w, rtol=1e-10)


def gathered(x):
    out = [x[0]]
    more = [x[1] ** 2, x[0] * 3.0]
    out.extend(more)
    out.extend((x[1], np.sin(x[0])))
    return sum(v * (i + 1) for i, v in enumerate(out))


def test_extend_by_a_list_with_known_items():
    check_grads(gathered, (np.array([0.3, 0.7]),))
