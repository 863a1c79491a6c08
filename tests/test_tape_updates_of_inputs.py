"""``x -= ...`` in a GradientTape block on an array the block was given: written back
into the caller's array when Python's update would change it, never when the block
first bound the name to an array of its own (fuzzer 41540:173: ``x = 0.5 * x`` then
``x -= x`` in a loop's body changed the caller's ``x``); refused where it depends on the
path. Plain code and ``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg


def rebound_in_loop(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(2):
            y = 0.5 * y
            y -= 0.1 * y
        for c in x[:1]:
            x = 0.5 * x
            x -= 0.25 * x
        out = np.sum(x * x) + np.sum(y)
    return out, tape.gradient(out, x)


def updated_in_place(total, v):
    with sg.GradientTape() as tape:
        tape.watch(v)
        sizes = [total.size for total in (v, v)]  # (the comprehension's own `total`)
        for _ in range(len(sizes)):
            total += v
        out = np.sum(total * v)
    return out, tape.gradient(out, v)


def bound_on_one_path(x, flag):
    with sg.GradientTape() as tape:
        tape.watch(x)
        if flag:
            x = x * 2.0
        x -= 1.0
        out = np.sum(x)
    return out, tape.gradient(out, x)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_a_name_bound_first_in_the_loop_body_leaves_the_callers_array(form):
    run = rebound_in_loop if form == "plain" else sg.function(rebound_in_loop)
    x = np.array([-0.78, 0.393, 1.257])
    before = x.copy()
    out, g = run(x)
    np.testing.assert_array_equal(x, before)  # Python leaves it as it was
    scaled = 0.5 * before * 0.75
    assert out == pytest.approx(np.sum(scaled ** 2) + np.sum(before * (0.5 * 0.9) ** 2))
    # (with respect to the value `x` names after the block: the one it bound last)
    np.testing.assert_allclose(g, 2 * scaled)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_an_update_of_the_callers_array_is_written_back(form):
    run = updated_in_place if form == "plain" else sg.function(updated_in_place)
    total, v = np.zeros(3), np.array([1.0, 2.0, 3.0])
    out, g = run(total, v)
    np.testing.assert_array_equal(total, 2 * v)  # as Python's `total += v` leaves it
    assert out == pytest.approx(np.sum(2 * v * v))
    np.testing.assert_allclose(g, 4 * v)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_an_update_after_a_binding_on_one_path_is_refused(form):
    run = bound_on_one_path if form == "plain" else sg.function(bound_on_one_path)
    x = np.array([1.0, 2.0])
    before = x.copy()
    with pytest.raises(sg.CompileError, match="may hold the array it was given"):
        run(x, True)
    np.testing.assert_array_equal(x, before)
