"""The gradient is at the values the block computed with (issue 11, section 5):
arrays the user writes into after the block (an input, a variable the block
bound, a view's base, parameters updated in place between two gradients of a
persistent tape) do not change it. In plain functions, ``@sg.function``, by
hand with ``__enter__``/``__exit__``, and at module level."""
import runpy
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from tape_cases import kept_values


def check(case):
    got, expected = case()
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-12)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("case", kept_values.CASES, ids=lambda c: c.__name__)
def test_in_a_plain_function(case):
    check(case)
    check(case)  # compiled once, run again


@pytest.mark.parametrize("case", kept_values.CASES, ids=lambda c: c.__name__)
def test_in_sg_function(case):
    check(sg.function(case))


def test_at_module_level():
    ns = runpy.run_path(str(Path(__file__).parent / "tape_cases" / "kept_script.py"))
    np.testing.assert_allclose(ns["with_grad"], [8.0, 16.0, 24.0], rtol=1e-12)
    np.testing.assert_allclose(ns["manual_grad"], [3.0, 12.0, 27.0], rtol=1e-12)


def test_what_only_the_record_holds_is_not_copied():
    """Intermediates the block's operations made are private: the tape copies
    only what the user can reach."""
    x = np.linspace(0.1, 1.0, 5)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * np.cos(x) * x)
    entry = tape._records[-1].once[0]
    np.testing.assert_allclose(tape.gradient(y, x),
                               np.cos(2 * x) * x + np.sin(x) * np.cos(x), rtol=1e-12)
    assert "x" in entry.copied
    private = set(entry.seeded) | {"x", "y"}
    assert not [n for n in entry.copied if n not in private and not n.endswith("_like")], \
        entry.copied


@pytest.mark.parametrize("order", ["C", "F"])
def test_copies_share_memory_where_the_originals_did(order):
    from srcgrad.tape.kept import keep_as_computed

    base = np.arange(12.0).reshape(3, 4, order=order).copy(order=order)
    before = base.copy()
    record = {"base": base, "row": base[1], "strided": base[:, ::-2].T, "other": np.ones(2)}
    originals = keep_as_computed(record, ["base", "row", "strided", "other"])
    assert record["base"] is not base and originals[id(record["base"])] is base
    record["base"][1, 2] = 100.0  # the backward code restoring a slot
    assert record["row"][2] == 100.0
    np.testing.assert_array_equal(record["strided"], record["base"][:, ::-2].T)
    np.testing.assert_array_equal(base, before)  # the user's array is untouched


def _state_dict(w):
    st = {"a": 0.0}
    st["a"] += w * 2.0
    st["c"] = st["a"] * w  # a key the block adds: the backward code takes it out again
    return st["c"] * np.sin(w)


def test_persistent_tape_twice_after_the_block_added_a_key():
    """The backward code restores the dict in place (``restore_slot``), which the record's
    copy for a second run did not cover: KeyError 'c' (hunt 3)."""
    w = np.float64(0.7)
    want = sg.grad(_state_dict)(w)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(w)
        y = _state_dict(w)
    for _ in range(3):
        np.testing.assert_allclose(tape.gradient(y, w), want, rtol=1e-12)
    np.testing.assert_allclose(want, 4 * w * np.sin(w) + 2 * w * w * np.cos(w), rtol=1e-12)
