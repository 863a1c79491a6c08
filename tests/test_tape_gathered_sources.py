"""A watched value gathered into a list, tuple or dict the block builds, where the
target reads other items only, gets None, as TensorFlow gives (it got zeros: what
a target reaches was known per name, and ``lst[0]`` read the whole of ``lst``).

What a constant item of a display reads is that item, for a display bound once in a
block that changes nothing in place; the adjoint code still follows the container.
Each case in plain code, in ``@sg.function`` and at module level, with its answer
worked out by hand.
"""

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_script_prints_ok

X = np.array([1.0, 2.0])
Z = np.array([5.0])
B = np.array([0.5, -0.5])


def pair_list(x, z, b):
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        lst = [x, z]
        y = np.sum(lst[0] * 3.0)
    return tape.gradient(y, [x, z, b])


def layers_of_pairs(x, z, b):
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        layers = [(x, b), (z, z)]
        last = layers[-1]
        y = np.sum(last[1] ** 2)
    return tape.gradient(y, [x, z, b])


def dict_by_key(x, z, b):
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        params = {"w": x, "v": z, "b": b}
        kept = params
        y = np.sum(kept["w"] * kept["b"])
    return tape.gradient(y, [x, z, b])


def items_into_a_call(x, z, b):
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        layers = [(x, b), (z, z)]
        y = np.sum(np.concatenate([layers[0][0], layers[1][0]]))
    return tape.gradient(y, [x, z, b])


def whole_list_into_a_call(x, z, b):
    """``np.stack(pair)`` reads every item: nothing refined away."""
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        pair = (x, b)
        y = np.sum(np.stack(pair) ** 2)
        other = [z]
    return tape.gradient(y, [x, z, b])


def changed_in_place(x, z, b):
    """An item written into through a view would hold more than it was bound to: in a
    block that changes anything in place, items are not told apart (zeros for ``z``,
    never a wrong number)."""
    with sg.GradientTape() as tape:
        tape.watch([x, z, b])
        lst = [x, z]
        acc = np.zeros(2)
        acc[0] = b[1]
        y = np.sum(lst[0] * acc)
    return tape.gradient(y, [x, z, b])


CASES = [
    (pair_list, [3.0 * np.ones(2), None, None]),
    (layers_of_pairs, [None, 2.0 * Z, None]),
    (dict_by_key, [B, None, X]),
    (items_into_a_call, [np.ones(2), np.ones(1), None]),
    (whole_list_into_a_call, [2.0 * X, None, 2.0 * B]),
    (changed_in_place, [np.array([-0.5, 0.0]), np.zeros(1), np.array([0.0, 1.0])]),
]


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w, rtol=1e-13)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f, want", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gathered_sources(f, want, placement):
    run = f if placement == "plain" else sg.function(f)
    _check(run(X.copy(), Z.copy(), B.copy()), want)


def variables_in_a_dict_of_sources():
    """The dict the block built, given as the sources: each of its items as a source."""
    a, b = sg.Variable(X.copy()), sg.Variable(Z.copy())
    with sg.GradientTape() as tape:
        params = {"a": a, "b": b}
        y = np.sum(params["a"] * 2.0)
    return tape.gradient(y, params)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_dict_of_sources_the_block_built(placement):
    run = variables_in_a_dict_of_sources if placement == "plain" \
        else sg.function(variables_in_a_dict_of_sources)
    got = run()
    assert set(got) == {"a", "b"} and got["b"] is None
    np.testing.assert_allclose(got["a"], 2.0 * np.ones(2))


def test_unconnected_zero_still_gives_zeros():
    def f(x, z):
        with sg.GradientTape() as tape:
            tape.watch([x, z])
            lst = [x, z]
            y = np.sum(lst[0] * 3.0)
        return tape.gradient(y, [x, z], unconnected_gradients="zero")

    gx, gz = f(X.copy(), Z.copy())
    np.testing.assert_allclose(gx, 3.0 * np.ones(2))
    np.testing.assert_array_equal(gz, np.zeros(1))


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "gathered_at_module_level.py", """
        import numpy as np
        import srcgrad as sg

        x = np.array([1.0, 2.0])
        z = np.array([5.0])
        with sg.GradientTape() as tape:
            tape.watch([x, z])
            params = {"w": x, "v": z}
            y = np.sum(params["w"] ** 2)
        gx, gz = tape.gradient(y, [x, z])
        assert gz is None, gz
        np.testing.assert_allclose(gx, 2.0 * x)
        print("ok")
    """)
