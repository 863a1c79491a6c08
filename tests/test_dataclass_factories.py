"""Dataclass fields with a ``default_factory`` (``normalize/calls.py``: ``record``).

``Params(w)`` of ``@dataclass class Params: w; hist: list = field(default_factory=list)``
was refused as built "without its field `hist`, which has no default value". The
factory is called where the object is built, as the dataclass's ``__init__`` calls it:
each object gets its own value.
"""
from dataclasses import dataclass, field

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.4, -1.3, 0.9])


def _offsets():
    return np.array([0.5, -0.25, 1.0])


@dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray = field(default_factory=_offsets)
    notes: list = field(default_factory=list)
    scale: float = 2.0


def factory_array(x):
    layer = Layer(x * 0.5)
    return np.sum(np.tanh(layer.w * layer.scale + layer.b) ** 2)


def factory_keyword_and_given(x):
    a = Layer(w=x, notes=["given"])
    b = Layer(np.sin(x), b=x ** 2)
    return np.sum(a.w * a.b + b.w * b.b) * len(a.notes)


@pytest.mark.parametrize("f", [factory_array, factory_keyword_and_given])
def test_default_factories_are_called_where_the_object_is_built(f):
    assert_every_form(f, X.copy())


def test_each_object_gets_its_own_value():
    made = []

    def counted():
        made.append(1)
        return np.zeros(3)

    @dataclass
    class Acc:
        w: np.ndarray
        total: np.ndarray = field(default_factory=counted)

    def f(x):
        a, b = Acc(x), Acc(x * 2.0)
        return np.sum((a.w + a.total) * (b.w + b.total))

    g = sg.grad(f)(X.copy())
    np.testing.assert_allclose(g, 4.0 * X, rtol=1e-12)
    assert len(made) == 2  # once per object, as the dataclass's __init__ calls it
