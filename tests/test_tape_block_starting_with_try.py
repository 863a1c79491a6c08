"""A GradientTape block in plain code whose first statement is a ``try``.

The tape skips the block's statements (it ran them compiled) by raising on the
block's first line; Python 3.11 reports a ``try`` line outside the with statement's
handler, so that exception escaped to the user (``SkipBlock``). The skip now waits
for the line after the ``try`` lines (the handlers there cannot catch it); a ``try``
whose ``finally`` or ``except Exception`` would run or catch it is refused, saying so.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_script_prints_ok

CALLS = []


def logged_sum(v):
    CALLS.append(1)
    return np.sum(v)


def try_first(x):
    with sg.GradientTape() as tape:
        try:
            y = logged_sum(np.log(x))
        except FloatingPointError:
            y = 0.0
    return y, tape.gradient(y, x)


DIVISOR = 2.0


def nested_try_first(x):
    with sg.GradientTape() as tape:
        try:
            try:
                scale = 4.0 / DIVISOR
            except ZeroDivisionError:
                scale = 1.0
        except (KeyError, np.linalg.LinAlgError):
            scale = 0.0
        z = logged_sum(x ** 3) * scale
    return z, tape.gradient(z, x)


def try_first_catching_everything(x):
    with sg.GradientTape() as tape:
        try:
            y = np.sum(x ** 2)
        except Exception:
            y = 0.0
    return tape.gradient(y, x)


@pytest.mark.parametrize("f, want", [(try_first, lambda x: 1.0 / x.numpy()),
                                     (nested_try_first, lambda x: 6.0 * x.numpy() ** 2)])
def test_runs_once_with_its_gradient(f, want):
    x = sg.Variable(np.array([1.0, 2.0]))
    CALLS.clear()
    value, g = f(x)
    assert len(CALLS) == 1  # (the block ran once, compiled)
    np.testing.assert_allclose(g, want(x), rtol=1e-12)
    assert np.isfinite(value)


def test_a_try_catching_exception_first_is_refused():
    with pytest.raises(sg.CompileError, match="first statement is a try"):
        try_first_catching_everything(sg.Variable(np.array([1.0, 2.0])))


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "try_first.py", """
        import numpy as np
        import srcgrad as sg
        x = sg.Variable(np.array([1.0, 2.0]))
        with sg.GradientTape() as tape:
            try:
                y = np.sum(np.log(x))
            except FloatingPointError:
                y = 0.0
        assert np.allclose(tape.gradient(y, x), [1.0, 0.5])
        print("ok")
    """)
