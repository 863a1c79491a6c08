"""``for obj, item in zip(objects, items):`` over a list of objects built in the code
(``passes/normalize/object_lists.py``).

A display of objects (``springs = [Spring(k0, 1.0), ...]``) is known when compiling;
a loop over it, or over ``enumerate``/``reversed`` of it, is unrolled with each
object's name. ``zip`` of it with other sequences (index pairs, arrays, another list
of objects) was refused ("cannot tell which function `s.energy` is"): now unrolled
too, the other items read by index when the code runs. A sequence shorter than the
list of objects, where Python's zip stops early, is refused when it runs.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

POS = np.array([[0.1, 0.2], [1.1, -0.3], [0.4, 0.9]])
KS = np.array([1.0, 2.0, 0.5])


class Spring:
    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    def energy(self, a, b):
        d = np.linalg.norm(a - b)
        return 0.5 * self.k * (d - self.rest) ** 2


def pairs_tuple_target(pos, ks):
    springs = [Spring(ks[0], 1.0), Spring(ks[1], 1.5), Spring(ks[2], 0.5)]
    pairs = [(0, 1), (1, 2), (0, 2)]
    total = 0.0
    for s, (i, j) in zip(springs, pairs):
        total = total + s.energy(pos[i], pos[j])
    return total


def objects_second(pos, ks):
    total = 0.0
    for (a, b), s in zip([(pos[0], pos[1]), (pos[1], pos[2])],
                         [Spring(ks[0], 1.0), Spring(ks[1], 1.0)]):
        total = total + s.energy(a, b)
    return total


def two_lists_of_objects(pos, ks):
    left = [Spring(ks[0], 1.0), Spring(ks[1], 0.5)]
    right = [Spring(ks[2], 2.0), Spring(ks[0] * ks[1], 1.5)]
    total = 0.0
    for a, b in zip(left, right):
        total = total + a.energy(pos[0], pos[1]) * b.energy(pos[1], pos[2])
    return total


def with_weights_argument(pos, ks, weights):
    springs = [Spring(ks[0], 1.0), Spring(ks[1], 1.5), Spring(ks[2], 0.5)]
    total = 0.0
    for s, w in zip(springs, weights):
        total = total + w * s.energy(pos[0], pos[2])
    return total


CASES = [(pairs_tuple_target, (POS, KS)), (objects_second, (POS, KS)),
         (two_lists_of_objects, (POS, KS)),
         (with_weights_argument, (POS, KS, np.array([0.5, 2.0, 1.0])))]


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_zip_of_objects_against_central_differences(f, args):
    check_grads(f, args, order=2)
    np.testing.assert_allclose(taped(lambda p: f(p, *args[1:]), args[0].copy()),
                               sg.grad(f)(*args), rtol=1e-10)


def test_a_shorter_sequence_is_refused_when_it_runs():
    with pytest.raises(ValueError, match="zip"):
        sg.grad(with_weights_argument)(POS, KS, np.array([0.5, 2.0]))
