"""A Python number the tape watches where it is stored (``tape.watch(p["s"])``,
``tape.watch(m.s)``, ``tape.watch(lst[0])``) is a source where the block reads it
from that place, also through a helper; read from another place that holds the very
same object (CPython makes equal constants one object) it is refused, never None.
Hunt 12 (one computation written in many styles): the gradient was None.
"""
from dataclasses import dataclass

import numpy as np
import pytest

import srcgrad as sg


def by_item(p):
    with sg.GradientTape() as tape:
        tape.watch(p["s"])
        y = p["s"] * 3.0 + p["t"] ** 2
    return tape.gradient(y, [p["s"], p["t"]])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_dict_item(placement):
    run = by_item if placement == "plain" else sg.function(by_item)
    ds, dt = run({"s": 1.5, "t": 2.0})
    assert float(ds) == 3.0 and dt is None


@dataclass
class Model:
    s: float
    w: np.ndarray

    def loss(self, x):
        return self.s ** 2 * np.sum(self.w * x)


def test_a_dataclass_attribute_read_by_its_method():
    m = Model(2.0, np.array([1.0, 2.0]))
    x = np.array([0.5, 0.25])
    with sg.GradientTape() as tape:
        tape.watch(m.s)
        y = m.loss(x)
    assert float(tape.gradient(y, m.s)) == pytest.approx(2 * 2.0 * 1.0)


def test_a_list_item():
    lst = [1.5, 2.5]
    with sg.GradientTape() as tape:
        tape.watch(lst[0])
        y = lst[0] * lst[1]
    assert float(tape.gradient(y, lst[0])) == 2.5


def test_watched_by_name_and_read_from_a_dict_is_refused():
    s = 1.5
    p = {"s": s}
    with pytest.raises(sg.CompileError, match="very Python number"):
        with sg.GradientTape() as tape:
            tape.watch(s)
            y = p["s"] * 3.0
        tape.gradient(y, s)


def test_hvp_of_a_tuple_of_differently_shaped_leaves():
    def f(params):
        w, s = params
        return np.sum(w ** 2) * s

    hw, hs = sg.hvp(f)((np.array([1.0, 2.0]), 1.5), (np.array([1.0, 0.0]), 0.0))
    np.testing.assert_allclose(hw, [3.0, 0.0])
    assert float(hs) == pytest.approx(2.0)
