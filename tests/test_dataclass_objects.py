"""Dataclass objects the code changes (``normalize/dataclass_objects.py``).

A dataclass object built in differentiated code was always a record, a value made of
its fields: ``state.v = state.v + dt * a`` (in the code or in a method), an attribute
list appended to, or a ``__post_init__`` computing a field were refused. Such objects
are now kept as their attributes, like a plain class's, with the ``__init__`` that
``dataclasses`` generates written out (defaults and ``default_factory`` values passed
for the fields a call leaves out). Dataclass objects the code only reads stay records.
"""
from dataclasses import dataclass, field

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.4, -1.3, 0.9])


@dataclass
class Oscillator:
    x: np.ndarray
    v: np.ndarray = field(default_factory=lambda: np.zeros(3))
    t: float = 0.0
    k: float = 1.5
    trace: list = field(default_factory=list)

    def step(self, dt):
        a = -self.k * np.sin(self.x)
        self.v = self.v + dt * a
        self.x = self.x + dt * self.v
        self.t += dt
        self.trace.append(np.sum(self.x ** 2))

    @property
    def energy(self):
        return 0.5 * np.sum(self.v ** 2) + self.k * np.sum(1.0 - np.cos(self.x))


def stepped_by_methods(x):
    osc = Oscillator(x)
    for _ in range(4):
        osc.step(0.1)
    return osc.energy + osc.t * np.sum(osc.x) + sum(osc.trace)


def updated_by_the_code(x):
    osc = Oscillator(x * 2.0, k=0.5)
    for _ in range(3):
        osc.v = osc.v - 0.1 * osc.k * osc.x
        osc.x += 0.1 * osc.v
    return np.sum(osc.x ** 2)


@dataclass
class Normalized:
    raw: np.ndarray
    scale: float = 2.0

    def __post_init__(self):
        self.unit = self.raw / np.sqrt(np.sum(self.raw ** 2))


def computed_in_post_init(x):
    n = Normalized(x * 3.0)
    return np.sum(n.unit * x) * n.scale


@dataclass
class Counter:
    total: np.ndarray
    factor: float = field(default=2.0, kw_only=True)
    calls: int = field(default=0, init=False)

    def add(self, v):
        self.total = self.total * self.factor + v
        self.calls += 1


def keyword_only_and_not_in_init(x):
    c = Counter(x, factor=0.5)
    c.add(x ** 2)
    c.add(np.tanh(x))
    return np.sum(c.total) * c.calls


@dataclass
class Doubled:
    x: np.ndarray
    y: np.ndarray = field(init=False)  # (no default: set by __post_init__)

    def __post_init__(self):
        self.y = self.x * 2.0

    def bump(self):
        self.y = self.y + np.tanh(self.x)


def field_set_after_init(x):
    d = Doubled(x)
    d.bump()
    return np.sum(d.y ** 2)


@dataclass
class Smoother:
    level: np.ndarray

    def run(self, v):
        for _ in range(3):
            self.level = self.level * 0.5 + v
        return np.sum(self.level ** 2)


def built_in_the_call(x):
    return Smoother(x * 2.0).run(np.sin(x))  # (the object named first, then run)


@pytest.mark.parametrize("f", [stepped_by_methods, updated_by_the_code,
                               computed_in_post_init, keyword_only_and_not_in_init,
                               field_set_after_init, built_in_the_call])
def test_dataclass_objects_the_code_changes(f):
    assert_every_form(f, X.copy())


def test_the_object_in_a_tape_block():
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        osc = Oscillator(x)
        for _ in range(4):
            osc.step(0.1)
        e = osc.energy + osc.t * np.sum(osc.x) + sum(osc.trace)
    np.testing.assert_allclose(tape.gradient(e, x), sg.grad(stepped_by_methods)(X.copy()),
                               rtol=1e-12)
    assert osc.t == pytest.approx(0.4) and len(osc.trace) == 4  # (the user's object after)


def changed_and_returned(x):
    osc = Oscillator(x)
    osc.step(0.1)
    return np.sum(osc.x), osc


def test_a_changed_object_used_as_a_value_is_refused():
    with pytest.raises(sg.CompileError, match="Oscillator"):
        sg.grad(lambda x: changed_and_returned(x)[0])(X.copy())
