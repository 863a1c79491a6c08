"""Python's iteration helpers over differentiable values (rules/iteration.py): itertools'
iterators, ``min``/``max``/``sorted`` with ``key=``, ``statistics``, ``math.dist``,
``complex(re, im)``, each written out as the user's code, in every form, in the styles
people write them (lists of numbers, lists of arrays, parameter dicts, helpers)."""
import itertools
import math
import statistics
from itertools import chain, combinations, pairwise

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tests.tape_forms import assert_every_form, assert_forms_agree

X = np.array([0.7, -1.3, 0.45])  # (no two keys below tie here: one branch each side)


def chain_loop(x):
    s = 0.0
    for v in chain([x[0], x[1]], [x[2]]):
        s = s + v * v
    return s


def chain_in_a_comprehension(x):
    return sum([v * v for v in itertools.chain([x[0], x[1]], (x[2],))])


def chain_of_rows(x):
    rows = [[x[0], x[1]], [x[2]]]
    return sum(v ** 3 for v in chain.from_iterable(rows))


def chain_zipped(x):
    s = 0.0
    for a, b in zip(chain([x[0]], [x[1]]), [2.0, 3.0]):
        s = s + a * b
    return s


def accumulated_array(x):
    totals = np.array(list(itertools.accumulate([x[0], x[1], x[2]])))
    return np.sum(totals ** 2)


def accumulated_products_of_arrays(x):
    c = list(itertools.accumulate([x, x * 2.0, np.cos(x)], np.multiply))
    return np.sum(c[-1])


def accumulated_from_an_initial_value(x):
    c = list(itertools.accumulate([x[0], x[1]], lambda a, b: a * b + 1.0, initial=x[2]))
    return c[0] * c[1] * c[2]


def pairwise_enumerated(x):
    s = 0.0
    for i, (a, b) in enumerate(pairwise([x[0], x[1], x[2]])):
        s = s + (i + 1) * a * b
    return s


def layers_pairwise(x):
    """Consecutive layers' arrays, as a model of a chain of springs."""
    nodes = [x, np.sin(x), x ** 2]
    return sum(np.sum((b - a) ** 2) for a, b in itertools.pairwise(nodes))


def pair_energy(x):
    """A pair potential over every pair of points (combinations)."""
    pts = [x[0:2], x[1:3], np.array([0.3, -0.2]) + x[0]]
    e = 0.0
    for p, q in combinations(pts, 2):
        e = e + 1.0 / np.sum((p - q) ** 2)
    return e


def products_and_permutations(x):
    a = sum(u * v for u, v in itertools.product([x[0], x[1]], [x[2], 2.0]))
    b = sum(u * v for u, v in itertools.product([x[0], x[1]], repeat=2))
    c = sum(u - 2 * v for u, v in itertools.permutations([x[0], x[2]]))
    d = sum(u * v for u, v in itertools.combinations_with_replacement([x[0], x[2]], 2))
    return a + b + c * x[0] + d


def sliced_and_compressed(x):
    s = sum(itertools.islice([x[0], x[1], x[2], x[0] * x[1]], 1, None, 2))
    for i in itertools.islice(itertools.count(), 3):
        s = s + x[i] * (i + 1)
    return s + sum(v ** 2 for v in itertools.compress([x[0], x[1], x[2]], [1, 0, 1]))


def nearest_by_key(x):
    vals = [x[0] * 2.0, x[1], x[2] + 1.0]
    return min(vals, key=lambda v: abs(v)) * x[2] + max(x[0], x[1], x[2], key=lambda v: v * v)


def best_row_by_key(x):
    rows = [x * 2.0, x ** 2, x + 1.0]
    return np.sum(min(rows, key=lambda r: np.sum(r)) * x)


def unpacked_extremes(x):
    vals = [x[0] * 2.0, x[1], x[2] + 1.0]
    return min(*vals, key=abs) + max(*[vals], key=lambda v: -v)


def extremes_with_defaults(x):
    return max([x[0], x[1]], default=0.0) + max([], default=x[2])


def best_params_entry(x):
    """``max`` over a parameter dict's keys by their values."""
    params = {"a": x[0], "b": x[1] * 3.0}
    name = max(params, key=lambda k: params[k])
    return params[name] * 2.0


def sorted_by_distance(x):
    s = sorted([x[0], x[1], x[2]], key=lambda v: abs(v - 0.5), reverse=True)
    return s[0] + 2 * s[1] + 3 * s[2]


def sorted_rows(x):
    rows = [x * 1.5, x ** 2, np.sin(x)]
    s = sorted(rows, key=lambda r: float(np.sum(r)))
    return np.sum(s[0] * 3.0 + s[2])


def statistics_of_numbers(x):
    data = [x[0], x[1] * 2, x[2], x[0] + x[2]]
    return (statistics.mean(data) + statistics.median(data) + statistics.median(data[:3])
            + statistics.variance(data) + statistics.stdev(data[:2])
            + statistics.fmean([x[0], x[1]], weights=[x[2], 2.0]))


def statistics_about_a_given_center(x):
    data = [x[0], x[1] * 2, x[2]]
    return (statistics.variance(data, xbar=x[0]) + statistics.pvariance(data)
            + statistics.pstdev([x[0], x[2]], mu=0.1))


def distance(x):
    return math.dist(x[:2], [1.0, x[2]]) * math.dist((x[0],), (2.0,))


def complex_built(x):
    z = complex(x[0]) * complex(0.5, x[2])
    return (z * z.conjugate()).real + abs(complex(x[1], 1.0) ** 2)


_LARGE = (products_and_permutations, statistics_of_numbers)


@pytest.mark.parametrize("f", [
    chain_loop, chain_in_a_comprehension, chain_of_rows, chain_zipped, accumulated_array,
    accumulated_products_of_arrays, accumulated_from_an_initial_value, pairwise_enumerated,
    layers_pairwise, pair_energy, products_and_permutations, sliced_and_compressed,
    nearest_by_key, best_row_by_key, unpacked_extremes, extremes_with_defaults,
    sorted_by_distance, sorted_rows,
    statistics_of_numbers, statistics_about_a_given_center, distance])
def test_every_form(f):
    # (second order where the program is small: its compile time is most of the test's)
    assert_every_form(f, X.copy(), order=1 if f in _LARGE else 2)


def test_a_key_over_a_parameter_dict():
    check_grads(best_params_entry, (X.copy(),), order=2)


def test_complex_built_from_parts():
    """(Forward mode refuses code that computes with complex numbers.)"""
    check_grads(complex_built, (X.copy(),), order=2)
    assert_forms_agree(complex_built, (X.copy(),))


def test_values_are_pythons():
    for f in (statistics_of_numbers, statistics_about_a_given_center, distance, complex_built,
              products_and_permutations, sorted_by_distance):
        value, _ = sg.value_and_grad(f)(X.copy())
        np.testing.assert_allclose(value, f(X.copy()), rtol=1e-13)


def test_a_key_is_called_once_an_item():
    calls = []

    def key(v):
        calls.append(1)
        return -v

    def f(x):
        return sorted([x[0], x[1], x[2]], key=key)[0] * 2.0

    g = sg.grad(f)(X.copy())
    np.testing.assert_allclose(g, [2.0, 0.0, 0.0])
    assert len(calls) == 3


def kept_iterator(x):
    it = chain([x[0], x[1]], [x[2]])
    s = 0.0
    for v in it:
        s = s + v
    return s


def test_an_iterator_kept_in_a_name_is_refused():
    with pytest.raises(sg.CompileError, match=r"chain\(\.\.\.\)` of differentiable values "
                       r"bound to a name.*list\(chain\(\.\.\.\)\)"):
        sg.grad(kept_iterator)(X.copy())


def empty_min(x):
    return min([v for v in x if v > 10.0], key=abs)


def negative_islice(x):
    return sum(itertools.islice([x[0], x[1]], -1))


def one_point_variance(x):
    return statistics.variance([x[0]])


@pytest.mark.parametrize("f, error", [(empty_min, ValueError), (negative_islice, ValueError),
                                      (one_point_variance, statistics.StatisticsError)])
def test_errors_are_pythons(f, error):
    with pytest.raises(error):
        f(X.copy())
    with pytest.raises(error):
        sg.grad(f)(X.copy())
