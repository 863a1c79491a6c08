"""A list held in an object's attribute, compiled in (a tape's loop over
``model.layers``): its guard compared the list's items with the attribute's name
(both were ``k<i>`` in the check's code), so it never held and the block was compiled
again at every training step (~40 ms a step; found trimming the test suite's time)."""
import numpy as np

import srcgrad as sg
import srcgrad.tape.tape as tape_module


class Model:
    def __init__(self):
        self.layers = [sg.Variable(np.ones(3)), sg.Variable(np.ones(3) * 2)]


def test_a_loop_over_an_attributes_list_compiles_once(monkeypatch):
    compiled = []
    original = tape_module.compile_recorded

    def counting(*args, **kwargs):
        compiled.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(tape_module, "compile_recorded", counting)
    m = Model()
    x = np.array([0.5, 1.0, -1.0])
    for _ in range(6):
        with sg.GradientTape() as tape:
            y = sum(np.sum(w * x) ** 2 for w in m.layers)
        grads = tape.gradient(y, m.layers)
        for w, g in zip(m.layers, grads):
            np.testing.assert_allclose(g, 2 * np.sum(w.numpy() * x) * x, rtol=1e-12)
            w.assign_sub(0.01 * g)
    assert len(compiled) <= 2  # (the first run may compile twice: Variables as arrays)
    m.layers.append(sg.Variable(np.ones(3)))  # another list: compiled anew, and right
    with sg.GradientTape() as tape:
        y = sum(np.sum(w * x) ** 2 for w in m.layers)
    assert len(tape.gradient(y, m.layers)) == 3
