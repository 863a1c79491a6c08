"""Slices of a list or tuple joined or repeated (``pts[2:] + pts[:2]``, the ring idiom
``zip(pts, pts[1:] + pts[:1])``, ``p[:2] * 2``): taken for arrays added elementwise, the
gradient went to the wrong items (every form; forward mode was right), and second order
raised an IndexError from the generated code. A slice of a list is a list now. Checked
against central differences in every form, to second order."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


def rotated(x):
    pts = [x[0], x[1], x[2]]
    nxt = pts[2:] + pts[:2]
    return nxt[1] * 3.0 + nxt[2] * 5.0 * nxt[0]


def ring(x):
    pts = [x[0], x[1], x[2]]
    return sum(a * b for a, b in zip(pts, pts[1:] + pts[:1]))


def strided(x):
    p = [x[0], x[1], x[2]]
    c = p[::2] + p[1:2]
    return c[0] * 1.0 + c[1] ** 2 + c[2] * 3.0


def reversed_joined(x):
    p = [x[0], x[1], x[2]]
    q = list(reversed(p)) + p[:1]
    return q[0] * 1.0 + q[1] * q[3] * 2.0 + q[3] * 7.0


def repeated(x):
    p = (x[0], x[1], x[2])
    q = p[:2] * 2
    return q[0] * q[3] + q[2] * 4.0


def unpacked_slices(x):
    p = [x[0] ** 2, x[1], x[2]]
    a, b = p[:1], p[1:]
    c = b + a
    return c[0] * c[2] + c[1]


@pytest.mark.parametrize("f", [rotated, ring, strided, reversed_joined, repeated,
                               unpacked_slices], ids=lambda f: f.__name__)
def test_joined_slices(f):
    assert_every_form(f, np.array([0.3, -0.7, 1.1]), order=2)


def slices_of_a_dict_item(x):
    d = {"pts": [x[0], x[1], x[2]]}
    ring = d["pts"][1:] + d["pts"][:1]
    return ring[0] * 2.0 + ring[2]


def test_slices_srcgrad_cannot_tell_are_lists_refused():
    """Joined where the compiler took them for arrays added: refused when it runs (the
    gradient went to the wrong items)."""
    import srcgrad as sg

    with pytest.raises(sg.CompileError, match="joined or repeated"):
        sg.grad(slices_of_a_dict_item)(np.array([0.3, -0.7, 1.1]))


def test_array_slices_still_added():
    """Slices of arrays stay elementwise sums."""
    import srcgrad as sg

    def f(x):
        return np.sum((x[1:] + x[:-1]) ** 2)
    assert_every_form(f, np.array([0.3, -0.7, 1.1]), order=2)
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(sg.value_and_grad(f)(x)[0], f(x))
