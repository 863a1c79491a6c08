"""One value is one value (issue 11, section 4), as TensorFlow matches tensors.

A target bound to several names is seeded once (``z = y`` gave 2x the
gradient, a loss under three names 3x); a variable holding the watched
array (``w = x`` before the block) is watched with it; watching twice, or
``watch([x, x])``, counts once; ``gradient(x, x)`` of a watched ``x`` is
ones; a value the block computed is a source too (its adjoint where the
block last bound it, a swap of names followed); Variables in lists, in ``(W, b)`` pairs and through ``zip`` are
watched and get their gradients in the structure of the sources; a block
an exception ended is an error, not a None gradient. Each in ordinary
functions, in ``@sg.function``, at module level and by hand
(``__enter__``/``__exit__``). Expected values worked out by hand for
x = [1, 2, 3].
"""
import runpy
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

X = np.array([1.0, 2.0, 3.0])
TWO_X = 2 * X


def alias_target(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y
    return tape.gradient(z, x)


def loss_under_three_names(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(x * x)
        result = loss
        logged = loss  # noqa: F841
    return tape.gradient(result, x)


def both_targets_are_one_value(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(x * x)
        same = loss
    return tape.gradient([loss, same], x)  # two targets: seeds add up, 2 * 2x


def alias_made_before_the_block(x):
    w = x
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * w)
    return tape.gradient(y, x)


def watched_twice(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        a = x * 3.0
        tape.watch(x)
        y = np.sum(x * x) + np.sum(a)
    return tape.gradient(y, x)  # 2x + 3


def watched_twice_in_one_call(x):
    with sg.GradientTape() as tape:
        tape.watch([x, x])
        y = np.sum(x * x)
    return tape.gradient(y, x)


def watched_in_a_loop(x):
    with sg.GradientTape() as tape:
        total = 0.0
        for i in range(3):
            tape.watch(x)
            total = total + np.sum(x * x)
    return tape.gradient(total, x)  # 3 * 2x


def rewatched_after_rebinding(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        x2 = x
        x = x * 2.0
        tape.watch(x)
        y = np.sum(x * x)
    return tape.gradient(y, x2)  # d/dx0 of sum(4 x0^2) = 8 x0


def target_is_the_source(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
    return tape.gradient(x, x)


V = sg.Variable(np.array([1.0, 2.0, 3.0]))


def variable_watched_by_hand_and_by_access(x):
    with sg.GradientTape() as tape:
        tape.watch(V)
        y = np.sum(V * V)
    return tape.gradient(y, V)


def _layers():
    return [(sg.Variable(np.ones((3, 2))), sg.Variable(np.zeros(2))),
            (sg.Variable(np.ones((2, 1))), sg.Variable(np.zeros(1)))]


def pairs_of_variables(x):
    layers = _layers()
    with sg.GradientTape() as tape:
        h = x
        for W, b in layers:
            h = h @ W + b
        y = np.sum(h)
    return tape.gradient(y, layers)


def variables_in_lists_through_zip(x):
    weights = [W for W, _ in _layers()]
    biases = [b for _, b in _layers()]
    with sg.GradientTape() as tape:
        h = x
        for k, (W, b) in enumerate(zip(weights, biases)):
            h = h @ W + b * float(k + 1)
        y = np.sum(h)
    return tape.gradient(y, {"weights": weights, "biases": biases})


def swapped_inputs(x):
    p, q = x, x * 3.0
    a, b = p, q
    with sg.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        a, b = b, a
        y = np.sum(a * 1.0 + b * 10.0)
    return tape.gradient(y, [p, q])  # p ends as b: 10; q ends as a: 1


def swapped_intermediates(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0
        b = x * 5.0
        a, b = b, a
        y = np.sum(a * 1.0 + b * 10.0)
    return tape.gradient(y, [a, b, x])  # a (5x): 1, b (2x): 10, x: 5 + 20


def intermediate_source(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        h = np.tanh(x)
        g = h
        loss = np.sum(h * h) + np.sum(g)
    return tape.gradient(loss, h)  # 2h + 1, through both names


PAIRS = [(np.outer(X, [1.0, 1.0]), np.ones(2)), (np.full((2, 1), 6.0), np.ones(1))]
ZIPPED = {"weights": [np.outer(X, [1.0, 1.0]), np.full((2, 1), 6.0)],
          "biases": [np.ones(2), np.full(1, 2.0)]}

CASES = [
    (alias_target, TWO_X),
    (loss_under_three_names, TWO_X),
    (both_targets_are_one_value, 2 * TWO_X),
    (alias_made_before_the_block, TWO_X),
    (watched_twice, TWO_X + 3.0),
    (watched_twice_in_one_call, TWO_X),
    (watched_in_a_loop, 3 * TWO_X),
    (rewatched_after_rebinding, 8 * X),
    (target_is_the_source, np.ones(3)),
    (variable_watched_by_hand_and_by_access, TWO_X),
    (swapped_inputs, [np.full(3, 10.0), np.ones(3)]),
    (swapped_intermediates, [np.ones(3), np.full(3, 10.0), np.full(3, 25.0)]),
    (intermediate_source, 2 * np.tanh(X) + 1),
    (pairs_of_variables, PAIRS),
    (variables_in_lists_through_zip, ZIPPED),
]


def assert_same(got, expected):
    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected)
        for k in expected:
            assert_same(got[k], expected[k])
    elif isinstance(expected, (list, tuple)):
        assert type(got) is type(expected) and len(got) == len(expected), got
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        assert got is not None
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("f, expected", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("placement", ["plain", "function"])
def test_identity(f, expected, placement):
    run = f if placement == "plain" else sg.function(f)
    for _ in range(2):  # compiled, then from the cache
        assert_same(run(X.copy()), expected)


def test_identity_at_module_level_and_by_hand():
    results = runpy.run_path(str(Path(__file__).parent / "tape_cases" / "identity_script.py"))
    got = results["RESULTS"]
    assert_same(got["alias_target"], TWO_X)
    assert_same(got["alias_source_and_names"], TWO_X)
    assert_same(got["manual_watch_twice"], TWO_X)
    assert_same(got["target_is_source"], np.ones(3))
    assert_same(got["pairs"], PAIRS)


def test_a_list_of_another_length_compiles_anew():
    def step(weights):
        with sg.GradientTape() as tape:
            h = X
            for W in weights:
                h = h @ W
            y = np.sum(h)
        return tape.gradient(y, weights)

    two = [sg.Variable(np.ones((3, 2))), sg.Variable(np.ones((2, 1)))]
    one = [sg.Variable(2 * np.ones((3, 1)))]
    assert_same(step(two), [np.outer(X, [1.0, 1.0]), np.full((2, 1), 6.0)])
    assert_same(step(one), [X[:, None]])  # reused the two-layer code: IndexError


def raises_inside(x):
    tape = sg.GradientTape(persistent=True)
    y = None
    try:
        with tape:
            tape.watch(x)
            y = np.sum(x * x)
            raise KeyError("stop")
    except KeyError:
        pass
    return tape.gradient(y, x)


def test_a_block_an_exception_ended_is_an_error_not_none():
    with pytest.raises(RuntimeError, match=r"block at test_tape_identity.py:\d+ ended with KeyError"):
        raises_inside(X.copy())
