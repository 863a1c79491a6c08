"""Replacing an item of a list the code made, with a value computed from that item by a
helper (``ir/private._sequence_names``).

``a = [x, y]; a[1] = sym(a[1])``: the inlined helper binds its parameter to ``a[1]``,
which the in-place analysis read as a view of ``a`` handed to another name, so the
write was refused ("may be shared"); the same in the decorator idiom ``args =
list(args); args[i] = transform(args[i]); return fun(*args)``. An item of a list or
tuple is not a view of it: reading it keeps nothing of the list, and ``list(...)``
makes a new list. A list another name holds (``b = a``) is still refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([[0.5, 1.0], [0.2, -0.3]])
Y = np.array([[1.0, 0.4], [0.1, 0.7]])


def base(x, y):
    return np.sum(np.sin(x) * y ** 2)


def sym(m):
    return 0.5 * (m + m.T)


def display_item(x, y):
    a = [x, y]
    a[1] = sym(a[1])
    return base(a[0], a[1])


def list_of_tuple(x, y):
    a = list((x, y))
    a[0] = np.tanh(sym(a[0]))
    return base(*a)


def spread_list(*args):
    a = list(args)
    a[1] = sym(a[1])
    return base(*a)


def loop_over_items(x, y):
    a = [x, y * 2.0]
    for i in range(2):
        a[i] = sym(a[i]) * (i + 1.0)
    return base(a[0], a[1])


def symmetrize_arg(fun, argnum):
    def symmetrized(*args):
        args = list(args)
        args[argnum] = sym(args[argnum])
        return fun(*args)
    return symmetrized


def made_by_factory(x, y):
    f = symmetrize_arg(base, 1)
    return f(x, y)


def with_defaults(x, y, scale=1.0, shift=0.0):
    return scale * np.sum(np.cos(x) * y) + shift


def into_defaults(x, y):
    return symmetrize_arg(with_defaults, 0)(x, y)


def rebound_args(*args):
    args = list(args)
    args[1] = sym(args[1])
    return with_defaults(*args)


@pytest.mark.parametrize("f", [display_item, list_of_tuple, spread_list, loop_over_items])
def test_item_replaced_by_a_helper(f):
    check_grads(f, (X.copy(), Y.copy()), order=2)
    assert_forms_agree(f, (X.copy(), Y.copy()))


def test_decorator_idiom():
    check_grads(made_by_factory, (X.copy(), Y.copy()), order=2)
    check_grads(symmetrize_arg(base, 0), (X.copy(), Y.copy()), order=1)


@pytest.mark.parametrize("f", [into_defaults, rebound_args])
def test_list_of_args_spread_into_a_function_with_defaults(f):
    # ``args = list(args)`` has the length ``args`` had: ``f(*args)`` spreads that many
    # (checked when it runs), though ``with_defaults`` takes two to four.
    check_grads(f, (X.copy(), Y.copy()), order=2)
    assert_forms_agree(f, (X.copy(), Y.copy()))


def test_a_list_grown_after_the_copy_is_not_taken_for_its_old_length():
    def grown(*args):
        args = list(args)
        args.append(2.0)
        return with_defaults(*args)

    with pytest.raises(sg.CompileError, match="how many items"):
        sg.grad(grown, wrt=(0, 1))(X.copy(), Y.copy())


def test_a_list_another_name_holds_is_still_refused():
    def aliased(x, y):
        a = [x, y]
        b = a
        a[1] = sym(a[1])
        return base(*b)

    with pytest.raises(sg.CompileError, match="shared"):
        sg.grad(aliased, wrt=(0, 1))(X.copy(), Y.copy())
