"""An iterator unpacked into names (``xs, ys = zip(*pairs)``, ``a, b, c = map(f, x)``,
``reversed``, ``enumerate``) is read as the list of its items; was refused ("creating a
`zip` from differentiable values")."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.3, -0.7, 1.2])


def transposed_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[0] * x[1])]
    firsts, seconds = zip(*pairs)
    return sum(firsts) * sum(seconds)


def zipped_explicitly(x):
    a, b = zip((x[0], x[1]), (np.sin(x[2]), x[0]))
    return a[0] * b[1] + a[1] * b[0]


def shadowing_list(x):
    list = [x[0], x[1]]  # noqa: A001 (the generated code's list() is the builtin)
    a, b = zip(list, list)
    return a[0] * b[1] + a[1]


def mapped(x):
    a, b, c = map(np.sin, x)
    return a * b + c


def reversed_items(x):
    a, b, c = reversed([x[0], x[1] * 2.0, x[2]])
    return a * b - c


def enumerated(x):
    (i, a), (j, b) = enumerate([x[0], x[1]])
    return a * (i + 1) + b * (j + 1)


@pytest.mark.parametrize("f", [transposed_pairs, zipped_explicitly, shadowing_list, mapped,
                               reversed_items, enumerated], ids=lambda f: f.__name__)
def test_every_form(f):
    check_grads(f, (X.copy(),), order=2)
    value, _ = sg.value_and_grad(f)(X)
    assert value == pytest.approx(f(X), rel=1e-12)

    np.testing.assert_allclose(sg.function(taped)(f, X.copy()), sg.grad(f)(X), rtol=1e-12)
    np.testing.assert_allclose(taped(f, X.copy()), sg.grad(f)(X), rtol=1e-12)
