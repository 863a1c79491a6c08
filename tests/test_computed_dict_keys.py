"""Dict keys written as expressions of constants, and list slices that change length.

``{f"w{i}": x[i] for i in range(3)}`` was refused ("needs constant keys": the
comprehension's keys stayed f-strings once its loop was unrolled), a comprehension
with two ``for`` was refused, ``{-1: v}`` and ``{(i, j): v}`` crashed the compiler
(AttributeError), and ``lst[1:3] = [v]``, which shrinks a list, crashed the adjoint
(IndexError). Keys fold to the constants they are; tuple keys and slice writes that
change a list's length are refused, naming the line.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])


def fstring_keys(x):
    d = {f"w{i}": x[i] * x[i + 3] for i in range(3)}
    return d["w1"] * d["w2"] + d["w0"]


def two_fors(x):
    d = {f"w{i}_{j}": x[i] * x[j] for i in range(2) for j in range(i, 3) if i + j != 2}
    return d["w0_1"] * 2.0 + d["w1_2"] * d["w0_0"] + len(d) * x[5] + ("w1_1" in d)


def concatenated_keys(x):
    d = {"a" + "b": x[0], "c" * 2: x[1] ** 2}
    return d["ab"] * d["cc"]


def negative_keys(x):
    d = {-1: x[0] * 3.0, 2: np.sin(x[1])}
    return d[-1] * d[2] + sum(d.values())


def loop_keys(x):
    d = {}
    for i in range(3):
        d[f"k{i}"] = x[i] * x[5 - i]
    return d["k0"] + d["k2"] * 2.0


def same_length_slice(x):
    lst = [x[0], x[1], x[2], x[3]]
    lst[1:3] = [x[3] * 2.0, x[0]]
    return lst[0] * lst[1] + lst[2] * lst[3]


@pytest.mark.parametrize("f", [fstring_keys, two_fors, concatenated_keys, negative_keys,
                               loop_keys, same_length_slice])
def test_keys_fold_in_every_form(f):
    assert_every_form(f, X.copy())


def tuple_keys(x):
    d = {(i, j): x[i] * x[j] for i in range(2) for j in range(2)}
    return d[(0, 1)] + d[1, 1]


def shrinking_slice(x):
    lst = [x[0], x[1], x[2], x[3]]
    lst[1:3] = [x[4] * 2.0]
    return sum(v * v for v in lst)


@pytest.mark.parametrize("f, words", [
    (tuple_keys, ["keyed by tuples", "test_computed_dict_keys.py:59"]),
    (shrinking_slice, ["replaces 2 items of a list with 1", "test_computed_dict_keys.py:65"]),
])
def test_refused_naming_the_line(f, words):
    for form in (sg.grad(f), lambda x: sg.value_and_grad(f)(x)):
        with pytest.raises(sg.CompileError) as info:
            form(X.copy())
        for w in words:
            assert w in str(info.value), str(info.value)
