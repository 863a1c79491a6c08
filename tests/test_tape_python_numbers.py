"""Python numbers on a tape (realistic-program hunt 2, Black-Scholes with ``K = 1.0`` and
``T = 1.0``): CPython shares a code object's equal constants, so two variables can
hold one float object. A tape matches sources by identity, as TensorFlow matches
tensors; for Python numbers that identity is an accident. Another name holding the
same number is not watched with it, and where a gradient cannot tell two such
variables apart it raises instead of adding their gradients up (it gave [5, 5] for
``y = 2 K + 3 T``)."""
import numpy as np
import pytest

import srcgrad as sg

K = 1.0
T = 1.0  # the same object as K (one code object's equal constants)


def both_watched():
    with sg.GradientTape() as tape:
        tape.watch([K, T])
        y = 2.0 * K + 3.0 * T
    return tape.gradient(y, [K, T])


def one_watched():
    with sg.GradientTape() as tape:
        tape.watch(K)
        y = 2.0 * K + 3.0 * T
    return tape.gradient(y, K)


def both_watched_one_asked():
    with sg.GradientTape() as tape:
        tape.watch([K, T])
        y = 2.0 * K + 3.0 * T
    return tape.gradient(y, K)


def distinct_objects():
    k, t = np.float64(1.0), np.float64(1.0)
    with sg.GradientTape() as tape:
        tape.watch([k, t])
        y = 2.0 * k + 3.0 * t
    return tape.gradient(y, [k, t])


def test_the_module_shares_the_constant():
    assert K is T  # (what the cases below are about)


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_two_sources_of_one_number_object_raise(wrap):
    with pytest.raises(ValueError, match="same Python number object"):
        wrap(both_watched)()
    with pytest.raises(ValueError, match="same Python number object"):
        wrap(both_watched_one_asked)()


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_another_name_for_the_number_is_not_watched_with_it(wrap):
    assert wrap(one_watched)() == pytest.approx(2.0)


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_distinct_objects_are_distinct_sources(wrap):
    np.testing.assert_allclose(wrap(distinct_objects)(), [2.0, 3.0])


def test_another_name_for_a_watched_python_float_is_refused():
    """``x = w; tape.watch(w)`` with ``w`` a Python float and the block reading ``x``: one
    object, as two equal constants are (``K = 1.0; T = 1.0``), so another name for the
    watched value cannot be told from an equal constant. It gave None (hunt 3): refused."""
    import srcgrad as sg
    w = 0.7
    x = w
    with pytest.raises(sg.CompileError, match=r"`x` holds the very Python number.*as `w`"):
        with sg.GradientTape() as tape:
            tape.watch(w)
            y = x ** 3 * 2.0
    w = np.float64(0.7)
    x = w
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = x ** 3 * 2.0
    assert tape.gradient(y, w) == pytest.approx(6 * 0.7 ** 2)
