"""What a gradient leaves in the caller's arrays, lists and dicts (``compiler/pipeline.
_put_back_written``).

The backward code takes out again what the forward code wrote into an array, list or
dict (an item, an append, a pop), to read them as they were. For an object the caller
holds (an argument, a global), that left it as it was *before* the call: ``sg.grad(f)(x,
buf)`` with ``buf[0] = np.sum(x)`` in ``f`` left ``buf`` unchanged, ``hist.append(loss)``
left ``hist`` empty, and a function accumulating into a mutable default saw it empty on
every call (Python's run would see it grow). The gradient was right; the state after it
was not Python's. Now such an object ends as the forward code left it.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, -0.7, 1.1])


def writes_an_output_array(x, buf):
    buf[0] = np.sum(x)
    buf[1] += x[0] ** 2
    return np.sum(buf * x)


def appends_to_a_history(x, hist):
    loss = np.sum(np.sin(x) ** 2)
    hist.append(loss)
    return loss * len(hist)


def fills_a_cache(x, cache):
    cache["h"] = np.tanh(x)
    cache["calls"] = cache.get("calls", 0) + 1
    return np.sum(cache["h"] ** 2)


@pytest.mark.parametrize("mode", ["grad", "value_and_grad"])
def test_the_caller_sees_what_python_leaves(mode):
    transform = sg.grad if mode == "grad" else lambda f: (lambda *a: sg.value_and_grad(f)(*a)[1])
    for f, make in ((writes_an_output_array, lambda: np.array([1.0, 2.0, 3.0])),
                    (appends_to_a_history, lambda: [0.5]),
                    (fills_a_cache, lambda: {"calls": 4})):
        mine, python = make(), make()
        transform(f)(X.copy(), mine)
        f(X.copy(), python)
        _assert_same_state(mine, python)
        check_grads(f, (X.copy(), make()), order=1, wrt=0)  # (from the same state)


def _assert_same_state(mine, python):
    if isinstance(python, dict):
        assert mine.keys() == python.keys()
        mine, python = list(mine.values()), list(python.values())
    assert len(mine) == len(python)
    for a, b in zip(mine, python):
        np.testing.assert_allclose(a, b, rtol=1e-15)


HISTORY = []


def appends_to_a_global(x):
    loss = np.sum(x ** 2)
    HISTORY.append(float(loss))
    HISTORY.append(loss)
    return loss


def accumulates_in_a_default(x, acc=[]):  # noqa: B006 (the gotcha itself, as Python runs it)
    acc.append(x * 2.0)
    return np.sum(sum(acc) * x)


def test_globals_and_mutable_defaults_grow_as_in_python():
    HISTORY.clear()
    sg.grad(appends_to_a_global)(X.copy())
    assert len(HISTORY) == 2 and HISTORY[0] == pytest.approx(np.sum(X ** 2))
    grads = [sg.value_and_grad(accumulates_in_a_default)(X.copy()) for _ in range(3)]
    assert len(accumulates_in_a_default.__defaults__[0]) == 3
    # the k-th call: sum(acc) = 2 x (k - 1) + 2 x, so the value is 2 k |x|^2 and the
    # gradient (k - 1) 2 x + 4 x (what earlier calls appended is a constant now)
    for k, (value, g) in enumerate(grads, start=1):
        assert value == pytest.approx(2 * k * np.sum(X ** 2))
        np.testing.assert_allclose(g, 2 * (k - 1) * X + 4 * X, rtol=1e-12)
    accumulates_in_a_default.__defaults__[0].clear()
