"""``tape.explain(target, sources)`` (issue 14, section 2): why a source's gradient is
None, for TensorFlow's most reported causes, each checked against the gradient itself
(None exactly where explained)."""
import inspect

import numpy as np

import srcgrad as sg


def _line(text):
    lines = inspect.getsource(inspect.getmodule(_line)).splitlines()
    return next(i for i, t in enumerate(lines, 1) if text in t and "_line(" not in t)


def test_the_causes():
    x = np.array([1.0, 2.0])
    w = sg.Variable(np.array([0.5, 0.5]))
    frozen = sg.Variable(np.ones(2), trainable=False)
    plain = np.array([3.0, 4.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        k = int(x[0])  # the integer cast
        y = np.sum(w * plain * frozen) + k
    why = tape.explain(y, [w, x, plain, frozen])
    grads = tape.gradient(y, [w, x, plain, frozen])  # (explain did not use the tape up)
    assert [r is None for r in why.sources] == [g is not None for g in grads]
    assert why.sources[1].line == _line("# the integer cast") and "int" in why.sources[1].cause
    assert "not watched" in why.sources[2].cause and "assign_sub" in why.sources[2].cause
    assert "trainable=False" in why.sources[3].cause
    assert str(why).splitlines()[0] == "source 0: connected"


def test_a_target_computed_before_the_block():
    x = np.array([1.0, 2.0])
    before = np.sum(x * 2)
    with sg.GradientTape() as tape:
        tape.watch(x)
        after = np.sum(x * 3)
    why = tape.explain(before, [x])
    assert "not computed while the tape recorded" in why.sources[0].cause
    assert tape.gradient(before, x) is None and after > 0


def test_a_variable_rebound_to_an_array():
    """``w = w - lr * g`` (TensorFlow's most reported cause): w is a plain array now."""
    w = sg.Variable(np.array([1.0, -1.0]))
    for step in range(2):
        with sg.GradientTape() as tape:
            loss = np.sum(w ** 2)
        g = tape.gradient(loss, w)
        if step == 0:
            assert g is not None
            w = w - 0.1 * g  # a plain array from here on
        else:
            assert g is None
            assert "w.assign_sub" in tape.explain(loss, w).sources[0].cause
