"""A watched Python list or tuple (of floats, 0-d or 1-d arrays, nested lists) passed
whole to a NumPy function that reads it as an array (``np.square(a)``, ``np.dot(a, a)``,
``np.append(a, 4.0)``, ``np.concatenate([a, b])``, ``np.where``, ``np.linalg.norm``) got
the gradient None from a tape (zeros with unconnected_gradients='zero'), where
``sg.grad`` gave the right one (hunt 7, autograd's test_simple_append_list): its adjoint
came back as one array, not into the list's items. Now the block reads such an input as
the list it is. Checked against ``sg.grad`` (itself checked against central
differences) in a function, in ``@sg.function`` and at module level.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_script_prints_ok, taped


def appended(a):
    return np.sum(np.append(a, 4.0) ** 2) + np.dot(a, a)


def squared(a):
    return np.sum(np.square(a))


def joined(a):
    return np.sum(np.concatenate([a, np.array([1.0, 2.0])]) ** 3) + np.sum(np.hstack([a, a]))


def chosen_and_normed(a):
    return np.sum(np.where(np.array([True, False, True]), a, 1.0) ** 2) + np.linalg.norm(a) \
        + np.mean(a) * np.max(a)


def multiplied(a):
    return np.sum(np.multiply(a, a) * np.array([1.0, 2.0, 3.0]))


CASES = [appended, squared, joined, chosen_and_normed, multiplied]
VALUES = [[1.0, 2.0, 3.5], (1.0, -2.0, 3.5), [np.float64(0.5), 2.0, np.array(1.5)]]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("value", VALUES, ids=["list", "tuple", "mixed"])
def test_a_watched_list_read_as_an_array(f, value):
    check_grads(f, (np.array(value, dtype=float),), order=1)
    expected = sg.grad(f)(np.array(value, dtype=float))
    for got in (taped(f, type(value)(value)), sg.function(taped)(f, type(value)(value))):
        assert type(got) is type(value)
        assert all(g is not None for g in got)
        np.testing.assert_allclose(np.array(got, dtype=float), expected, rtol=1e-12)


def inline_block(a):
    with sg.GradientTape() as tape:
        tape.watch(a)
        loss = np.sum(np.append(a, 4.0) ** 2) + np.dot(a, a)
    return tape.gradient(loss, a)


def test_inline_blocks_and_a_list_of_arrays():
    for run in (inline_block, sg.function(inline_block)):
        np.testing.assert_allclose(np.array(run([1.0, 2.0, 3.0]), dtype=float), [4.0, 8.0, 12.0])
    rows = [np.array([1.0]), np.array([2.0])]
    got = taped(squared, rows)
    np.testing.assert_allclose(np.concatenate(got), [2.0, 4.0])


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "watched_list.py", """
        import numpy as np
        import srcgrad as sg

        a = [1.0, 2.0, 3.0]
        with sg.GradientTape() as tape:
            tape.watch(a)
            loss = np.sum(np.append(a, 4.0) ** 2) + np.dot(a, a)
        g = tape.gradient(loss, a)
        assert np.allclose(np.array(g, dtype=float), [4.0, 8.0, 12.0]), g
        print("ok")
    """)
