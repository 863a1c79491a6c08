"""A target that is the very object a source or another target is (``y = x``,
``z = y``): its identity counts once, as TensorFlow counts it (issue 11, section 4,
beside test_tape_identity.py; fuzzer 35072:699, shrunk to ``tape.watch(x); out = x;
tape.gradient(out, [x])``, gave 2).

The seed of a target enters at the last block that binds a name to it, and only
there (what flows on to earlier blocks is carried back through that block's code);
a watched value no block binds is its own target. Each case in plain code and in
``@sg.function``, its expected values written out.
"""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([1.5, -2.0])
ONES = np.ones(2)


def copy_of_watched(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
    return tape.gradient(y, [x])[0]


def watched_result_and_input(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        tape.watch(y)
    return tape.gradient(y, [x, y])


def copy_and_product(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
        z = x * 2.0
    return tape.gradient([y, z], x)


def chain_of_copies(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
        w = y
    return tape.gradient([w, y], x)


def same_object_three_times(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
        z = y
        w = z
    return tape.gradient([y, z, w], [x, y, z])


def source_itself(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        unused = x * 1.0
    return tape.gradient(x, x) + 0.0 * np.sum(unused)


def two_blocks(x):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = x
    with tape:
        b = x
        c = a * 3.0
    return tape.gradient(b, x), tape.gradient([a, b], x), tape.gradient([a, c], x)


def copied_across_blocks(x):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    with tape:
        z = y
    return tape.gradient(z, x), tape.gradient([y, z], [x, y])


def jacobian_of_copy(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
    return tape.jacobian(y, x)


def nested_copy(x):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = x * x
            z = y
        g = inner.gradient(z, x)
    return g, outer.gradient(g, x)


def python_float(x):
    s = float(x[0])
    with sg.GradientTape() as tape:
        tape.watch(s)
        out = s
    return tape.gradient(out, [s])[0]


CASES = [
    (copy_of_watched, lambda x: ONES),
    (watched_result_and_input, lambda x: [2.0 * ONES, ONES]),
    (copy_and_product, lambda x: 3.0 * ONES),
    (chain_of_copies, lambda x: 2.0 * ONES),
    (same_object_three_times, lambda x: [9.0 * ONES, 3.0 * ONES, 3.0 * ONES]),
    (source_itself, lambda x: ONES),
    (two_blocks, lambda x: (ONES, 2.0 * ONES, 4.0 * ONES)),
    (copied_across_blocks, lambda x: (2.0 * ONES, [4.0 * ONES, 2.0 * ONES])),
    (jacobian_of_copy, lambda x: np.eye(2)),
    (nested_copy, lambda x: (2.0 * x, 2.0 * ONES)),
    (python_float, lambda x: 1.0),
]


def _assert_same(got, want):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f, want", CASES, ids=[f.__name__ for f, _ in CASES])
def test_identity_counts_once(f, want, placement):
    run = f if placement == "plain" else sg.function(f)
    _assert_same(run(X.copy()), want(X))
