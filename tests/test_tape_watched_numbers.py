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


def _power(x, p):
    return np.sum(x ** p)


def star_args_of_a_watched_list(x, p):
    args = [x, p]
    sources = [p]
    with sg.GradientTape() as tape:
        tape.watch(sources)
        y = _power(*args)
    return tape.gradient(y, sources)


def item_of_another_list(x, p):
    args = [x, p]
    sources = [p]
    with sg.GradientTape() as tape:
        tape.watch(sources)
        y = _power(x, args[1])
    return tape.gradient(y, sources)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("form", [star_args_of_a_watched_list, item_of_another_list],
                         ids=lambda f: f.__name__)
def test_a_number_in_a_watched_list_read_from_elsewhere_is_refused(form, placement):
    """The number watched in a list, read from another list holding the same object: the
    gradient was [None], silently (a number watched by name was refused already)."""
    run = form if placement == "plain" else sg.function(form)
    with pytest.raises(sg.CompileError, match="holds the very Python number"):
        run(np.array([0.5, 1.3, 2.0]), 2.5)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_numbers_in_a_watched_list_and_dict_read_through_them(placement):
    x = np.array([0.5, 1.3, 2.0])

    def through_them(ps, params):
        with sg.GradientTape() as tape:
            tape.watch([ps, params])
            y = np.sum(x ** ps[0]) * ps[1] + params["b"][0] * params["a"]
        return tape.gradient(y, [ps, params])
    run = through_them if placement == "plain" else sg.function(through_them)
    (d0, d1), dparams = run([2.5, 1.0], {"a": 1.5, "b": [0.5, 2.0]})
    eps = 1e-6
    np.testing.assert_allclose(d0, np.sum(x ** (2.5 + eps) - x ** (2.5 - eps)) / (2 * eps),
                               rtol=1e-6)
    np.testing.assert_allclose(d1, np.sum(x ** 2.5))
    assert float(dparams["a"]) == 0.5 and float(dparams["b"][0]) == 1.5
    assert dparams["b"][1] is None
