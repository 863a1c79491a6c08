"""An exception raised inside a GradientTape block ends it as it ends a with
statement: the tape is bound (``as t``), the variables the statements before the
raise bound keep their values, those after stay unbound, and the exception is the
user's own, raised from the block. (The tape's ``__enter__`` runs the compiled block,
so the exception came out of ``__enter__``: neither ``t`` nor ``y`` was bound.)

A later gradient of a target computed in that block is an error naming the block
(srcgrad records a block that ends normally), never None; earlier blocks of a
persistent tape keep their gradients.
"""
import traceback

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_script_prints_ok

X = np.array([0.5, -1.5])


class Stop(Exception):
    pass


def _helper_that_raises(v):
    if v.sum() < 10:
        raise Stop("from a helper")
    return v


def ends_by_raising(x):
    bound = {}
    try:
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = x * 2.0
            z = _helper_that_raises(y)
            after = z + 1.0
    except Stop as e:
        bound["error"] = e
    bound["tape"] = tape
    bound["y"] = y
    try:
        after
    except UnboundLocalError:
        bound["after unbound"] = True
    return bound


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_names_bound_before_the_raise_keep_their_values(placement):
    """(In ``@sg.function`` the block runs as a call in the function's code, which
    binds them before the exception goes on: they were unbound there.)"""
    got = (sg.function(ends_by_raising) if placement == "function" else ends_by_raising)(X.copy())
    assert isinstance(got["tape"], sg.GradientTape)
    np.testing.assert_array_equal(got["y"], 2.0 * X)
    assert got["after unbound"]
    assert str(got["error"]) == "from a helper"


def test_the_traceback_is_the_blocks():
    """From the compiled block's frame on (srcgrad's entry machinery left out; the
    helper is inlined into it)."""
    error = ends_by_raising(X.copy())["error"]
    frames = traceback.extract_tb(error.__traceback__)
    names = [f.name for f in frames]
    assert frames[-1].filename.startswith("<srcgrad tape")
    assert "run_once" not in names and "run_compiled" not in names


def test_a_gradient_of_the_failed_block_is_an_error_earlier_blocks_keep_theirs():
    def f(x):
        tape = sg.GradientTape(persistent=True)
        with tape:
            tape.watch(x)
            a = np.sum(x ** 2)
        try:
            with tape:
                b = a * 3.0
                raise Stop()
        except Stop:
            pass
        return tape, a, b

    x = X.copy()
    tape, a, b = f(x)
    assert b == 3.0 * np.sum(X ** 2)
    np.testing.assert_allclose(tape.gradient(a, x), 2.0 * X)
    with pytest.raises(RuntimeError, match=r"test_tape_exceptions.py:\d+ ended with Stop"):
        tape.gradient(b, x)


def test_an_uncaught_exception_is_the_users():
    def f(x):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(x)
            raise Stop("uncaught")
        return tape.gradient(y, x)

    with pytest.raises(Stop, match="uncaught") as info:
        f(X.copy())
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_by_hand_enter_and_exit():
    """The statements between ``__enter__()`` and ``__exit__()`` raise at ``__exit__``:
    where the block ends, as the compiled block ran at ``__enter__``."""
    def f(x):
        tape = sg.GradientTape()
        try:
            tape.__enter__()
            tape.watch(x)
            y = x * 3.0
            int("not a number")
            tape.__exit__(None, None, None)
        except ValueError as e:
            return y, e

    y, e = f(X.copy())
    np.testing.assert_array_equal(y, 3.0 * X)
    assert "not a number" in str(e)


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "raises_at_module_level.py", """
        import numpy as np
        import srcgrad as sg

        x = np.array([1.0, 2.0])
        try:
            with sg.GradientTape() as tape:
                tape.watch(x)
                y = x * 2.0
                w = {}["missing"]
                after = 1
        except KeyError:
            pass
        assert "after" not in globals() and isinstance(tape, sg.GradientTape)
        np.testing.assert_array_equal(y, [2.0, 4.0])
        print("ok")
    """)
