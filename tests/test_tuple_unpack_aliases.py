"""One array bound to two names by a tuple assignment (``a, b = y, y``; ``c = y`` then
``a, b = c, 2.0``), then written into through one of them: the write is seen through the
other. The alias analysis took the tuple's last read of ``y`` for a move and did not
follow a name handed on inside a tuple, so the gradient was silently wrong in every form
(found by a battery of NumPy idioms). Now refused, as ``a = y; b = y`` is."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form, taped  # noqa: E402


def both_names(x):
    y = x * 1.0
    a, b = y, y
    a[0] = 3.0 * x[1]
    return np.sum(b ** 2)


def through_a_copy_of_the_name(x):
    y = x * 1.0
    c = y
    a, b = c, 2.0
    a[0] = 3.0 * x[1]
    return np.sum(y ** 2) * b


def a_view_beside_it(x):
    y = x * 1.0
    a, b = y, y[1:]
    a[1] = 3.0 * x[1]
    return np.sum(b ** 2)


def nested_tuples(x):
    y = x * 1.0
    (a, b), c = (y, 2.0), y
    a[0] = 3.0 * x[1]
    return np.sum(c ** 2) * b


def of_a_parameter(y, x):
    a, b = y, y
    a[0] = 3.0 * x[1]
    return np.sum(b ** 2) + np.sum(x)


X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("f", [both_names, through_a_copy_of_the_name, a_view_beside_it,
                               nested_tuples], ids=lambda f: f.__name__)
def test_write_through_a_tuple_alias_is_refused(f):
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        sg.grad(f)(X.copy())
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        taped(f, X.copy())
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        sg.function(taped)(f, X.copy())


def test_write_through_a_tuple_alias_of_a_parameter_is_refused():
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        sg.grad(of_a_parameter, wrt=(0, 1))(np.array([1.0, 2.0, 3.0]), X.copy())


def a_copy_in_the_tuple(x):
    y = x * 1.0
    a, b = y.copy(), y
    a[0] = 3.0 * x[1]
    return np.sum(b ** 2) + np.sum(a * x)


def swapped_names(x):
    y = x * 1.0
    z = x * 2.0
    y, z = z, y
    z[0] = 3.0 * x[1]
    return np.sum(z ** 2) + np.sum(y)


@pytest.mark.parametrize("f", [a_copy_in_the_tuple, swapped_names], ids=lambda f: f.__name__)
def test_tuples_without_a_shared_array_are_differentiated(f):
    assert_every_form(f, X.copy())
