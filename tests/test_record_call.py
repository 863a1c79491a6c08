"""``layer(h)`` of a dataclass or namedtuple with ``__call__``: a module, as Equinox
and hand-rolled NumPy networks write one.

It was refused ("cannot tell at compile time which function `layer` is") for records,
built in the code or passed (a list of them, a tree), while ``layer.forward(h)`` and a
plain class's ``__call__`` compiled: the call is the class's ``__call__`` inlined on
the record, as its other methods are.
"""
import collections
import dataclasses

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

H = np.array([[0.5, -0.2], [0.1, 0.3]])
X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])


@dataclasses.dataclass
class Dense:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, h):
        return np.tanh(h @ self.W + self.b)


class Affine(collections.namedtuple("Affine", "A c")):
    def __call__(self, h, scale=1.0):
        return scale * (h @ self.A) + self.c


@dataclasses.dataclass
class Chain:
    layers: list

    def __call__(self, h):
        for layer in self.layers:
            h = layer(h)
        return h


def built_here(x):
    W, b = x[:4].reshape(2, 2), x[4:]
    net = [Dense(W, b), Dense(W.T, b * 0.5)]
    h = H
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2)


def one_record(x):
    first = Dense(x[:4].reshape(2, 2), x[4:])
    second = Affine(x[:4].reshape(2, 2) * 2.0, x[4:])
    return np.sum(second(first(H), scale=0.5) * first(H[::-1]))


def nested_modules(x):
    net = Chain([Dense(x[:4].reshape(2, 2), x[4:]), Dense(np.eye(2) * x[0], x[4:] ** 2)])
    return np.sum(net(H))


@pytest.mark.parametrize("f", [built_here, one_record, nested_modules])
def test_a_record_called_in_every_form(f):
    assert_every_form(f, X.copy())


def run(net, h):
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2)


def test_a_list_of_records_passed():
    net = [Dense(X[:4].reshape(2, 2), X[4:]), Dense(X[:4].reshape(2, 2).T, X[4:] * 0.5)]
    # (First order: check_grads' second order passes records rebuilt from dicts, which
    # an inner gradient is not specialised on; `layer.forward(h)` is refused there too.)
    check_grads(run, (net, H), order=1)
    g = sg.grad(run)(net, H)
    assert isinstance(g[0], Dense)
    np.testing.assert_allclose(sg.grad(built_here)(X.copy())[4:],
                               g[0].b + 0.5 * g[1].b, rtol=1e-12)
