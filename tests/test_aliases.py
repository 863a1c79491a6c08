"""In-place updates through aliases the alias analysis used to miss (issue 12, class 3).

NumPy updates an array in place for ``v += x`` and ``a[i] = v``; every other
name that reaches the array sees the change. srcgrad compiles updates as
rebindings, so where another name may share the array it must refuse (at
compile time, or at run time when only the value's type tells) instead of
returning the gradient of a different program. Before the fix each program
below gave a wrong gradient without a word:

- ``w = v; v += x``: the alias was taken for a copy read only once;
- ``v, c = a.reshape(3), 2.0``: names bound by tuple unpacking were not aliases;
- ``w = v if c else v``: a conditional expression was not an alias of either;
- ``a[0], a[1] = a[1], a[0]`` on a 2-D array: the rows read are views that the
  first write changes (NumPy leaves both rows equal to the old row 1);
- inside a tape block, the same swap crashed: temporaries were named without
  knowing the block's own names (``b = b[1]`` clobbered ``b``).

What is still correct must stay so: swaps of a 1-D array's items, unpacking
fresh arrays, and copies.
"""
import re

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, -0.7, 1.1])


def alias_then_add(x):
    v = np.ones(3) * 2.0
    w = v
    v += x
    return np.sum(w * x)


def view_bound_by_unpacking(x):
    a = np.ones(3) * 1.0
    v, c = a.reshape(3), 2.0
    v -= x
    return np.sum(a * x) * c


def alias_through_conditional(x, flag=True):
    v = x * 1.0
    w = v if flag else v
    v += w
    return np.sum(w)


def rows_swapped(x):
    a = np.outer(x, x[:2]) * 1.0
    a[0], a[1] = a[1], a[0]
    return np.sum(a * np.arange(6.0).reshape(3, 2))


def views_in_a_list_then_written(x):
    a = np.outer(x, x[:2]) * 1.0
    rows = [a[1], a[0]]
    a[0] = rows[0]
    a[1] = rows[1]
    return np.sum(a * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("f, message", [
    (view_bound_by_unpacking, "in-place update `v -= ...`"),
    (rows_swapped, "`a[1]` is a view of the array this assignment writes into"),
    (views_in_a_list_then_written, "`a[1]` reads a view of `a`"),
])
def test_refused_rather_than_wrong(f, message):
    with pytest.raises(sg.CompileError, match=re.escape(message)) as err:
        sg.grad(f)(X)
    assert "test_aliases.py" in str(err.value)  # the user's file and line
    with pytest.raises(sg.CompileError):
        sg.value_and_grad(f)(X)


def test_refused_in_a_tape_block():
    with pytest.raises(sg.CompileError, match="is a view of the array"):
        with sg.GradientTape() as tape:
            tape.watch(X)
            a = np.outer(X, X[:2]) * 1.0
            a[0], a[1] = a[1], a[0]
            y = np.sum(a * np.arange(6.0).reshape(3, 2))
        tape.gradient(y, X)


# What was right stays right: in every form, against central differences.

def items_swapped(x):
    a = x * 1.0
    a[0], a[2] = a[2], a[0]
    return np.sum(a * np.arange(3.0) ** 2)


def names_swapped(x, y):
    a, b = x * 2.0, y
    a, b = b, a
    return np.sum(a * np.arange(3.0)) + np.sum(b ** 2)


def fresh_array_unpacked(x):
    a = np.ones(3) * 1.0
    v, c = a.reshape(3).copy(), 2.0
    v -= x
    return np.sum(a * v) * c


def pair(x):
    return x * 1.0, np.sin(x)


def fresh_pair_from_a_helper(x):
    v, s = pair(x)
    v = v + s
    return np.sum(v * v)


def conditional_alias_not_written(x, flag=True):
    v = x * 1.0
    w = v if flag else x
    return np.sum(w * v)


def self_assignment_then_update(x):
    a = np.sum(x) - x
    a = a              # not an alias of anything
    b = x
    a += b
    a *= np.sin(x)
    return np.sum(a * a) + np.mean(b)


CORRECT = [
    (self_assignment_then_update, (X,)),
    (items_swapped, (X,)),
    (names_swapped, (X, np.array([0.5, 0.25, -1.0]))),
    (fresh_array_unpacked, (X,)),
    (fresh_pair_from_a_helper, (X,)),
    (conditional_alias_not_written, (X,)),
    # One array under two names, nothing else holding it: the update is NumPy's, and
    # the other name is bound to the result (ir/private.py); refused before.
    (alias_then_add, (X,)),
    (alias_through_conditional, (X,)),
]
IDS = [f.__name__ for f, _ in CORRECT]


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_grad_and_second_order(f, args):
    check_grads(f, args, order=2)


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_value_and_grad(f, args):
    value, g = sg.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)


def _swap_taped(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        b = x * 0.5
        b[0], b[1] = b[1], b[0]
        out = np.sum(b * np.arange(3.0))
    return tape.gradient(out, x)


def test_swap_written_in_a_tape_block():
    expected = sg.grad(lambda_free_swap)(X)
    check_grads(lambda_free_swap, (X,), order=1)
    np.testing.assert_allclose(_swap_taped(X), expected, rtol=1e-12)
    np.testing.assert_allclose(sg.function(_swap_taped)(X), expected, rtol=1e-12)


def lambda_free_swap(x):
    b = x * 0.5
    b[0], b[1] = b[1], b[0]
    return np.sum(b * np.arange(3.0))


def _taped_1(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def _taped_2(f, x, z):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x, z)
    return tape.gradient(y, x)


@pytest.mark.parametrize("f, args", CORRECT, ids=IDS)
def test_tape_in_plain_code_and_in_function(f, args):
    taped = _taped_1 if len(args) == 1 else _taped_2
    expected = sg.grad(f)(*args)
    np.testing.assert_allclose(taped(f, *args), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(f, *args), expected, rtol=1e-10, atol=1e-12)


def alias_after_a_slot_write(x):
    """Fuzzer 35002:157: the first-order code restores ``a``'s slot in place after
    ``np.cos(b)`` read ``b = a``; the second-order backward read ``b`` again, changed
    by the restore, and gave zeros (then refused; now code differentiated again writes
    a new array, passes/functional.py, and nothing is restored in place)."""
    a = np.zeros_like(x)
    a[[True, True]] = x
    b = a
    return np.sum(a) + np.sum(np.sin(b))


def test_second_order_through_a_restored_alias_is_not_zero():
    x = np.array([1.09, 1.088])
    np.testing.assert_allclose(sg.grad(alias_after_a_slot_write)(x), 1.0 + np.cos(x),
                               rtol=1e-12)
    direction = np.array([0.7, -0.4])
    first = sg.grad(alias_after_a_slot_write)

    def second(v):
        return np.sum(first(v) * direction)
    np.testing.assert_allclose(sg.grad(second)(x), -np.sin(x) * direction, rtol=1e-12)
    check_grads(alias_after_a_slot_write, (x,), order=2)
