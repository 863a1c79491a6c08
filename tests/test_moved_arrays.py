"""Writes into an array a helper returned in a tuple (``ir/aliasing.last_reads``).

``out, s = helper(x)`` inlines to ``t = (helper_out, helper_s); out = t[0]; ...``: the
helper's local is read by the tuple display for the last time (the helper wrote into it
before), so its array moves to ``out`` alone, and ``out[:, 0] *= s`` writes into an
array nothing else reads. Refused before as "may be shared", a helper returning one
array was taken. The same holds in a loop whose every trip binds the helper's locals
anew. Where the other name is read after the write (Python's write reaches it), or a
loop hands the same array round again, the write is still refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([0.3, -0.7, 1.1])


def _filled(x, scale):
    out = np.empty((2, len(x)))
    out[0] = x * scale
    out[1, :] = x ** 2
    return out, scale * 2.0


def _filled_one(x, scale):
    out = np.empty((2, len(x)))
    out[0] = x * scale
    out[1, :] = x ** 2
    return out


def helper_tuple(x, scale):
    out, s = _filled(x, scale)
    out[:, 0] *= s
    return np.sum(np.exp(out))


def helper_one_array(x, scale):
    out = _filled_one(x, scale)
    out[:, 0] *= scale
    return np.sum(np.exp(out))


def inline_tuple(x, scale):
    o = np.empty((2, len(x)))
    o[0] = x * scale
    o[1, :] = x ** 2
    pair = (o, scale * 2.0)
    out, s = pair
    out[:, 0] *= s
    return np.sum(np.exp(out))


def helper_tuple_in_a_loop(x, scale):
    acc = 0.0
    for i in range(len(x)):
        out, s = _filled(x, scale * x[i])
        out[:, i] *= s
        acc = acc + np.sum(np.sin(out))
    return acc


CASES = [helper_tuple, helper_one_array, inline_tuple, helper_tuple_in_a_loop]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("scale", [0.7, np.float64(0.7), np.array(0.7)],
                         ids=["float", "float64", "0d"])
def test_every_form_and_second_order(f, scale):
    check_grads(f, (X, scale), order=2)
    assert_forms_agree(f, (X, scale), nonzero=True)


def other_name_read_after(x):
    o = np.zeros(3)
    o[:] = x
    pair = (o, 2.0)
    out, s = pair
    out[0] = 5.0 * s * x[1]
    return np.sum(o * x)  # ``o`` is ``out``'s array: it sees the write


def same_array_each_trip(x):
    buf = np.zeros(3)
    acc = 0.0
    for i in range(3):
        pair = (buf, 1.0)  # the last read of ``buf`` as written, but every trip's
        b, s = pair
        b[i] = x[i] * s
        acc = acc + np.sum(b ** 2)
    return acc


@pytest.mark.parametrize("f", [other_name_read_after, same_array_each_trip],
                         ids=lambda f: f.__name__)
def test_still_refused_where_the_array_is_read_under_another_name(f):
    with pytest.raises(sg.CompileError, match="may be shared"):
        sg.grad(f)(X)
