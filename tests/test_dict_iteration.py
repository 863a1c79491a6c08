"""A dict iterated gives its keys; iterators zipped with sequences
(``normalize/dict_keys.py``, ``normalizer._indexed``).

The compiler reads the containers it knows item by item, by position, and so read a
dict of differentiable values where Python iterates it: ``a, b = d`` bound its
*values* (a wrong value and gradient), ``sum(d)``/``max(d)`` of int keys took the values'
gradient, ``zip(d, xs)`` and ``enumerate(d)`` indexed ``d[0], d[1]`` (its values where
the keys are 0 and 1: silently wrong, else a KeyError). Each such use is now the tuple of
its keys. And ``zip(x, itertools.cycle(...))``, ``zip(x, d.values())``, ``zip(x,
(genexp))``, ``zip(x, iter(...))`` crashed when run (``len()`` of an iterator): an
iterator made where it is zipped is taken item by item, as zip takes it.
"""
import itertools

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

X = np.array([0.4, -1.3, 0.9])


def unpacked(x):
    d = {0: x[0], 1: x[1] * 2.0}
    a, b = d  # the keys 0 and 1
    return a * x[0] + b * x[1] + d[1] * x[2]


def reduced(x):
    d = {0: np.sin(x[0]), 1: x[1] ** 2, 3: x[2]}
    return sum(d) * x[2] + max(d) * x[0] + min(d) * x[1] + d[3] * d[0]


def zipped_and_enumerated(x):
    d = {1: x[0], 0: x[1] * 2.0}
    t = 0.0
    for k, v in zip(d, [x[2], x[0]]):
        t = t + (k + 1) * v * x[1]
    for i, k in enumerate(d):
        t = t + (i + 2) * (k + 1) * d[k]
    return t


def spread_and_listed(x):
    d = {2: x[0], 0: x[1]}
    keys = [*d]
    return (keys[0] + 10 * sorted(d)[0] + 100 * tuple(d)[1]) * x[2] + d[2] * d[0]


def values_iterated(x):
    d = {"a": x[0], "b": np.tanh(x[1])}
    a, b = d.values()
    total = sum(d.values())
    for (k, v), w in zip(d.items(), [2.0, 3.0]):
        total = total + v * w * len(k)
    return a * b + total


@pytest.mark.parametrize("f", [unpacked, reduced, zipped_and_enumerated, spread_and_listed,
                               values_iterated])
def test_a_dict_iterated_gives_its_keys(f):
    assert_every_form(f, X.copy())


def keys_of_a_parameter(x, d):
    t = 0.0
    for k, v in zip(d, x):
        t = t + (k + 1) * v * d[k]
    return t


def test_a_dict_argument_zipped():
    d = {1: np.array(2.0), 0: np.array(3.0)}
    g = sg.grad(keys_of_a_parameter, wrt=(0, 1))(X[:2].copy(), d)
    np.testing.assert_allclose(g[0], [2 * 2.0, 1 * 3.0])
    np.testing.assert_allclose([g[1][1], g[1][0]], [2 * X[0], 1 * X[1]])


def iterators_zipped(x):
    t = 0.0
    for v, s in zip(x, itertools.cycle([1.0, -1.0])):
        t = t + v * s
    for v, k in zip(x, itertools.count(1)):
        t = t + v ** 2 * k
    for v, w in zip(x, (k * 0.5 for k in range(3))):
        t = t + v * w
    for v, w in zip(x, iter([0.1, 0.2, 0.3])):
        t = t * 0.9 + v * w
    for v, w in zip(x, filter(lambda q: q > 0, [1.0, -1.0, 2.0, 3.0])):
        t = t + np.sin(v) * w
    weights = {"a": 1.5, "b": -0.5}
    for v, w in zip(x, weights.values()):
        t = t + v * w
    return t


def test_iterators_zipped_with_sequences():
    assert_every_form(iterators_zipped, X.copy())


def _made(x):
    return {0: x[0], 1: x[1] * 2.0}


def unpacked_merge(x):
    b = {0: x[0]} | {1: x[1] * 2.0}
    c, d = b
    return c * x[0] + d * x[1] + b[1]


def unpacked_from_a_helper(x):
    b = _made(x)
    c, d = b
    return c * x[0] + d * x[1] + b[1]


def unpacked_comprehension(x):
    b = {k: x[k] ** 2 for k in range(2)}
    c, d = b
    return c * x[0] + d * x[1] + b[1]


@pytest.mark.parametrize("f", [unpacked_merge, unpacked_from_a_helper, unpacked_comprehension])
def test_a_dict_known_only_in_a_later_round_unpacks_its_keys(f):
    # (each gave the value with the dict's values for its keys, silently: 2.47, not 2.1)
    value, _ = sg.value_and_grad(f)(X.copy())
    assert value == pytest.approx(f(X.copy()), rel=1e-14)
    assert_every_form(f, X.copy())


def unpacks_three(x, v):
    a, b = v
    return a * x[0] + b * x[1]


def test_unpacking_checks_the_count_as_python_does():
    with pytest.raises(ValueError, match="too many values to unpack"):
        sg.grad(unpacks_three, wrt=(0, 1))(X.copy(), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="not enough values to unpack"):
        sg.grad(unpacks_three, wrt=(0, 1))(X.copy(), np.array([1.0]))
    np.testing.assert_allclose(sg.grad(unpacks_three, wrt=1)(X.copy(), np.array([1.0, 2.0])),
                               X[:2])


def _made_unordered(x):
    return {1: x[0], 0: x[1] * 2.0}


def iterated_after_a_helper(x):
    b = _made_unordered(x)
    t = 0.0
    for k in b:
        t = t + (k + 1) * b[k] * x[2]
    for i, k in enumerate(b):
        t = t + (i + 1) * b[k]
    return t + sum(b[k] * k for k in b) + sum(k for k in b) * x[0]


def reduced_and_zipped_after_a_helper(x):
    b = _made_unordered(x)
    t = sum(b) * x[2] + max(b) * x[0] + sum(v * w for v, w in zip(b, x))
    for k, v in zip(b, [x[2], x[0]]):
        t = t + (k + 1) * v
    keys = list(b)
    return t + keys[0] * x[0] + b[keys[1]]


@pytest.mark.parametrize("f", [iterated_after_a_helper, reduced_and_zipped_after_a_helper])
def test_a_dict_a_helper_returns_is_iterated_by_its_keys(f):
    # (``zip(b, ...)`` gave 2.55 for 2.1 and ``sum(b)`` took its values' gradient, silently:
    # the statements were compiled before the helper's call showed ``b`` to be a dict)
    value, _ = sg.value_and_grad(f)(X.copy())
    assert value == pytest.approx(f(X.copy()), rel=1e-14)
    assert_every_form(f, X.copy())


def zipped_name_bound_to_a_dict_or_a_list(x, flag):
    if flag:
        d = {0: 1.0, 1: 2.0}
    else:
        d = [x[0], x[1] * 2.0]
    t = 0.0
    for a, b in zip(d, x):
        t = t + a * b
    return t


def test_a_name_bound_to_a_dict_in_one_branch_is_never_read_by_position():
    # (with the dict's branch taken it read the dict's values: 1.7 for Python's 0.7)
    check_grads(zipped_name_bound_to_a_dict_or_a_list, (X.copy(), False), order=1, wrt=0)
    with pytest.raises(TypeError, match="iterates a dict"):
        sg.grad(zipped_name_bound_to_a_dict_or_a_list)(X.copy(), True)
