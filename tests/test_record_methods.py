"""Dataclasses built in differentiated code, used as Python uses them (hunt 4).

Operators their class defines (``__matmul__``, ``__mul__``/``__rmul__``, ``__neg__``,
``__abs__``, ``__getitem__``) were taken for the NumPy primitive: crashes, and a forward
mode that returned a ``Vec`` for a number. ``super().energy()`` in a dataclass's
method crashed ('__class__ cell not found'). A keyword-only parameter with a default,
passed in one call and left out in the next, was refused ('missing argument').
Checked against central differences to second order, in every form."""
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

X = np.array([0.6, -0.4, 1.2])


def check_every_form(f, args=(X,)):
    check_grads(f, args, order=2, wrt=list(range(len(args))))
    assert_forms_agree(f, args, nonzero=True)
    assert_forward_mode_agrees(f, args)


@dataclass
class Vec:
    a: np.ndarray

    def __matmul__(self, o):
        return np.dot(self.a, o.a)

    def __abs__(self):
        return np.sqrt(np.dot(self.a, self.a))

    def __getitem__(self, i):
        return self.a[i] * 2.0

    def __mul__(self, s):
        return Vec(self.a * s)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec(-self.a)

    def energy(self):
        return np.sum(self.a ** 2)


@dataclass
class Tilted(Vec):
    def energy(self):
        return super().energy() + np.sum(self.a)


def products(x):
    u = Vec(x)
    return u @ u + abs(u) * u[1]


def scaled(x):
    u = Vec(x)
    w = 2.0 * u
    v = -(u * 3.0)
    return w @ v + abs(w)


def inherited(x):
    return Tilted(x).energy() * Tilted(x[::-1]).energy()


@pytest.mark.parametrize("f", [products, scaled, inherited])
def test_methods_python_calls_for_a_dataclass(f):
    check_every_form(f)


@dataclass
class Bare:
    a: np.ndarray


def no_operator(x):
    return np.sum(Bare(x) @ Bare(x))


def test_an_operator_the_class_does_not_define_is_refused():
    with pytest.raises(sg.CompileError) as e:
        sg.grad(no_operator)(X)
    assert "`Bare` defines no `__matmul__`" in str(e.value)


def layer(x, *, training=False):
    return x * (0.5 if training else 1.0)


def keyword_default_then_omitted(x):
    return np.sum(layer(x, training=True) ** 2) + np.sum(layer(x))


def test_keyword_only_default_in_a_second_call():
    check_every_form(keyword_default_then_omitted)


@dataclass
class Affine:  # eq=True: unhashable, which crashed on entering the block
    W: object

    def __call__(self, x):
        return x @ self.W


AFFINE = Affine(np.array([[0.5, -0.2], [0.1, 0.3], [0.2, 0.4]]))


def call_global_affine(x):
    return np.sum(AFFINE(x) ** 2)


def test_unhashable_callable_objects():
    W = AFFINE.W
    np.testing.assert_allclose(sg.grad(call_global_affine)(X), 2 * (X @ W) @ W.T, rtol=1e-12)
    a = Affine(sg.Variable(W.copy()))
    with sg.GradientTape() as tape:
        y = np.sum(a(X) ** 2)
    np.testing.assert_allclose(tape.gradient(y, a.W), 2 * np.outer(X, X @ W), rtol=1e-12)


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


@dataclass
class MLP:
    layers: list
    scale: float


def weight_decay(model):
    """(It was refused, 'attribute `.W` of a differentiable value has no derivative rule':
    the records in a record's field were not known as records.)"""
    return model.scale * sum(np.sum(l.W ** 2) for l in model.layers)


def forward_loop(model):
    h = np.array([0.5, -1.0])
    for layer in model.layers:
        h = np.tanh(layer.W @ h + layer.b)
    return np.sum(h ** 2) + weight_decay(model)


def test_records_in_a_records_field():
    model = MLP([Layer(np.array([[0.3, -0.2], [0.1, 0.4]]), np.array([0.1, -0.1])),
                 Layer(np.array([[0.5, 0.2], [-0.3, 0.1]]), np.array([0.0, 0.2]))], 0.1)
    for f in (weight_decay, forward_loop):
        check_grads(f, (model,), order=2)
        g = sg.grad(f)(model)
        assert isinstance(g, MLP) and isinstance(g.layers[1], Layer)


# -- a record replaced: ``p._replace(b=...)``, ``dataclasses.replace(c, shift=...)`` ----

class Line(NamedTuple):
    w: np.ndarray
    b: float


@dataclass(frozen=True)
class Config:
    scale: float
    shift: float


def replaced_namedtuple(p, x):
    q = p._replace(b=p.b * 2.0)
    return np.sum(q.w * x) + q.b ** 2


def replaced_dataclass(x, s):
    c = Config(s, 0.5)
    c2 = replace(c, shift=s * 2.0)
    return np.sum((x * c2.scale + c2.shift) ** 2)


def test_a_namedtuple_replaced():
    """Refused before ("attribute `.w` of a differentiable value has no derivative
    rule"): the record built anew from the old one's fields and the new values."""
    check_grads(replaced_namedtuple, (Line(X.copy(), 0.5), X), order=2)


def test_a_dataclass_replaced():
    check_grads(replaced_dataclass, (X, 0.7), order=2)
    check_every_form(lambda x: replaced_dataclass(x, 0.7))
