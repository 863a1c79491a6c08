"""A ``for`` loop's target binds the name anew on each trip: an argument of that name
(or a value it held before the loop) gets no gradient through what is read after the
loop. Found by explain's flow analysis: ``for w in range(3)`` gave ``dw`` the adjoint
of the last trip's item, a silent wrong gradient."""
import numpy as np
import pytest

from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([1.0, 2.0])
W = np.array([0.7, 0.3])


def over_a_range(x, w):
    for w in range(3):
        x = x * 1.0
    return np.sum(x * w)


def over_constants(x, w):
    for w in [0.5, 1.5]:
        x = x * w
    return np.sum(x * w)


def zero_trips(x, w):
    for w in []:
        x = x * 2.0
    return np.sum(x * w)  # w is still the argument


def target_read_inside(x, w):
    acc = x * w
    for w in (1.0, 2.0):
        acc = acc + x * w
    return np.sum(acc * w)


@pytest.mark.parametrize("f", [over_a_range, over_constants, zero_trips, target_read_inside],
                         ids=lambda f: f.__name__)
def test_the_loop_target_takes_over_the_name(f):
    check_grads(f, (X.copy(), W.copy()), order=2)
    assert_forms_agree(f, (X.copy(), W.copy()))
