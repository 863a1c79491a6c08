"""``stop_recording()`` of one tape inside another's block (nested tapes): TensorFlow
pauses only that tape, the other records. srcgrad cut the values for both, silently:
the outer gradient was zeros (``inner.stop_recording()``), or the inner gradient missed a
term (``outer.stop_recording()`` in the inner block). Refused now, naming the line; a
tape's own stop_recording in its block is as before."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.37, -0.61, 0.83])


def inner_stops():
    x = X.copy()
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                c = x ** 2
            z = np.sum(c * x)
        g = inner.gradient(z, x)
        s = np.sum(g)
    return g, outer.gradient(s, x)


def outer_stops():
    x = X.copy()
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            with outer.stop_recording():
                c = x ** 2
            z = np.sum(c * x)
        g = inner.gradient(z, x)
        s = np.sum(g)
    return g, outer.gradient(s, x)


@pytest.mark.parametrize("form", [inner_stops, outer_stops])
@pytest.mark.parametrize("compiled", [False, True])
def test_another_tapes_stop_recording_refused(form, compiled):
    with pytest.raises(sg.CompileError, match="in the block of another tape"):
        (sg.function(form) if compiled else form)()


def test_own_stop_recording_still_cuts():
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            c = x ** 2
        z = np.sum(c * x)
    np.testing.assert_allclose(tape.gradient(z, x), X ** 2)
