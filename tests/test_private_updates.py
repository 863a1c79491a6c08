"""In-place updates of arrays no other name can reach at that point (``ir/private.py``)
are compiled, not refused: the flow-insensitive analysis alone refused ``a += v``
whenever ``a = x`` appeared anywhere in the function (fuzzer seed 35034: 348 of
405 refusals). Where another name may still reach the array, it is refused (or
checked at run time) as before. Every case is checked in every form against
central finite differences, to second order."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

V = np.array([0.3, -0.4, 0.5, 1.2])
M = np.array([[0.3, -0.4], [0.5, 1.2]])


def rebound_then_updated(x):
    """Fuzzer 35034: ``a = x`` first, then ``a`` rebound to a new array and updated."""
    a = x
    b = x + np.mean(x) * np.ones((1, 1))
    c = -0.3 - b
    a = np.mean(c) * np.ones((1, 1)) + c
    d = -0.3 + (c + np.sum(c))
    a *= np.mean(a)
    a = (d * np.ones((2, 2)) - a * np.ones((2, 2))) @ c
    return np.mean(b) + np.sum(d * d) + np.sum(a)


def updated_by_itself(x):
    a = x
    a = x[-3] - (a - a) * x
    a -= 0.5 * a
    a += a
    return np.sum(x) + np.mean(a * a)


def updated_in_a_loop(x):
    acc = x * 1.0
    for i in range(3):
        acc += np.sin(acc) * x
        acc *= 0.9
    return np.sum(acc ** 2)


def updated_in_branches(x, flag):
    a = np.tanh(x)
    if flag:
        a += x * x
    else:
        a -= np.cos(x)
    a *= 2.0
    return np.sum(a * x)


def fresh_from_a_copy(x):
    a = x.copy()
    a *= x
    b = np.zeros_like(x)
    b += a * a
    return np.sum(b)


def swapped_then_updated(x):
    a, b = x * 2.0, x + 1.0
    a += b
    b *= a
    return np.sum(a * b)


def _two(a, b):
    return a * 2.0, b + a


def from_a_helpers_tuple(x):
    """The helper's ``return a, b`` is inlined as a tuple its items move through."""
    c, d = _two(x, x[::-1])
    d *= np.sum(c)
    return np.sum(d * c)


def from_fancy_indexing(x):
    e = x[[0, 2, 3]]
    e += x[:3]
    m = x[x > 0.0]
    m *= 2.0
    r = x[np.array([1, 1])]
    r[0] = x[3] * x[0]
    return np.sum(e * e) + np.sum(m * x[x > 0.0]) + np.sum(r * r)


@pytest.mark.parametrize("f, x", [
    (rebound_then_updated, M), (updated_by_itself, V), (updated_in_a_loop, V),
    (fresh_from_a_copy, V), (swapped_then_updated, V), (from_a_helpers_tuple, V),
    (from_fancy_indexing, V)],
    ids=lambda v: getattr(v, "__name__", ""))
def test_an_update_of_a_private_array_is_compiled(f, x):
    check_grads(f, (x.copy(),), order=2)
    assert_forms_agree(f, (x.copy(),), nonzero=True)


@pytest.mark.parametrize("flag", [True, False])
def test_updates_in_either_branch(flag):
    check_grads(lambda x: updated_in_branches(x, flag), (V.copy(),), order=2)
    assert sg.grad(updated_in_branches)(V.copy(), flag).shape == V.shape


def view_before_update(x):
    a = x * 2.0
    b = a[1:]
    a += 1.0        # NumPy changes b too
    return np.sum(b * b)


def copy_of_the_name_in_a_loop(x):
    a = x * 2.0
    b = x
    for _ in range(2):
        a += 1.0    # on the second trip, a is b's array
        b = a
    return np.sum(b * a)


def shared_on_one_branch(x):
    a = x * 2.0
    b = x
    if x[0] > 0:
        b = a
    a += 1.0        # b is a's array when the branch was taken
    return np.sum(a * b)


def kept_in_a_list(x):
    a = x * 2.0
    kept = [a]
    a += 1.0        # kept[0] is a's array
    return np.sum(kept[0] * x)


def passed_to_a_helper_that_keeps_it(x):
    a = x * 2.0
    box = _keep(a)
    a += 1.0
    return np.sum(box["kept"] * x)


def _keep(v):
    return {"kept": v}


def item_of_a_kept_tuple(x):
    c, d = _two(x, x)
    pair = (c, d)
    d *= 2.0        # pair[1] is d's array
    return np.sum(pair[1] * x)


def rows_unpacked_then_updated(x):
    """Fuzzer 35035:387 (a wrong value before it landed): the rows of a 2-D array
    unpacked into names are views, normalized into copies of copies of them."""
    a = np.outer(x, x)
    b, c = a[0], a[1]
    b += c
    return np.sum(a * a) + np.sum(c * c)


@pytest.mark.parametrize("f", [view_before_update, copy_of_the_name_in_a_loop,
                               shared_on_one_branch, kept_in_a_list,
                               passed_to_a_helper_that_keeps_it, item_of_a_kept_tuple,
                               rows_unpacked_then_updated],
                         ids=lambda f: f.__name__)
def test_an_update_another_name_may_see_is_still_refused(f):
    """NumPy updates the other name's array too: rebinding would be a wrong gradient
    (``passed_to_a_helper_that_keeps_it`` was a silent wrong value and gradient: an
    argument of a helper was not taken as possibly kept)."""
    with pytest.raises(sg.CompileError, match="may share|may be shared|reads a view of|holds too"):
        sg.grad(f)(V.copy())


# -- One private array under several names (``b = a``): NumPy's update reaches every
# -- name; the compiled code binds the other names to the result.

def updated_through_a_second_name(x):
    a = x * 2.0
    b = a
    b += x * x          # a changes too
    return np.sum(a * np.sin(b))


def slot_written_through_a_second_name(x):
    a = x * 2.0
    b = a
    b[0] = x[1] * 3.0   # a changes too
    return np.sum(a * a) + np.sum(b)


def second_name_on_one_path_only(x):
    a = x * 1.0
    b = a
    if x[0] > 0:
        b = x * 3.0
    a += 1.0            # b is a's array on one path only
    return np.sum(a * b)


def test_an_update_through_a_second_name():
    check_grads(updated_through_a_second_name, (V.copy(),), order=2)
    assert_forms_agree(updated_through_a_second_name, (V.copy(),), nonzero=True)


def slot_written_under_two_names_read_before(x):
    """Fuzzer 35044:40 (a wrong gradient before it landed): the backward code restored
    the slot under ``c`` only where the rank-specialised code still read ``c``, and read
    ``a``, the same array, for ``b``'s adjoint with the slot written."""
    a = x - np.sum(x)
    b = 0.7 * (np.sum(a) * a)
    c = a
    c[0] += np.mean(b)
    return np.sum(a) + np.sum(b * b)


@pytest.mark.parametrize("f", [slot_written_through_a_second_name,
                               slot_written_under_two_names_read_before],
                         ids=lambda f: f.__name__)
def test_a_slot_written_through_a_second_name_is_written_into_the_array(f):
    # (Refused before: `b = a` makes `b` a view of `a`, the write one into `a`,
    # passes/normalize/views.py. The second was a wrong gradient before it was refused.)
    check_grads(f, (V.copy(),), order=1)
    assert_forms_agree(f, (V.copy(),))


def test_a_second_name_on_one_path_only_is_refused():
    with pytest.raises(sg.CompileError, match="may share"):
        sg.grad(second_name_on_one_path_only)(V.copy())


def list_item_updated_in_place(x):
    """``lst[0] += 1.0`` updates the array ``lst[0]`` in place, which ``keep`` holds too:
    a silent wrong gradient before (the item was rebound); refused when it runs."""
    items = [x * 1.0, x * 2.0]
    keep = items[0]
    lst = items.copy()
    lst[0] += 1.0
    return np.sum(keep * x)


def array_items_updated(x):
    a = x.copy()
    a[1] += 1.2 * np.sum(a)
    a[np.array([False, True, False, True])] *= -2.0 - np.sum(x)
    b = np.zeros_like(a)
    b[np.array([True, False, True, False])] += np.mean(a) * np.ones((2,))
    a[1:3] += x[:2] * 0.5    # (fuzzer 35042: a slice in the run-time check was a
    a[::2] *= 1.5            # syntax error in the generated code)
    m = np.outer(x, x)
    m[:, 0] -= x
    numbers = [1.0, 2.0]
    numbers[0] += np.sum(x) + np.sum(m)   # a number: rebound, not updated in place
    return np.sum(a * a) + np.sum(b * x) + numbers[0] * numbers[1]


def test_an_array_item_of_a_list_updated_in_place_is_refused():
    with pytest.raises(sg.CompileError, match=r"in-place update `lst\[...\] op= ...` of an item"):
        sg.grad(list_item_updated_in_place)(V.copy())


def test_items_of_arrays_and_numbers_updated_in_place():
    # (The second order of code writing slots through views is refused: issue 12.)
    check_grads(array_items_updated, (V.copy(),), order=1)
    assert_forms_agree(array_items_updated, (V.copy(),), nonzero=True)


def number_under_two_names(x):
    """Fuzzer 35043:118 (a wrong value before it landed): ``r *= p`` of a number binds a
    new one; ``q`` keeps the old value (an array would be updated under both names)."""
    p = np.sum(x * x)
    q = np.sum(x) - p
    r = q
    r *= p
    arr = x * 2.0
    alias = arr
    arr *= p
    return q + r + np.sum(alias * x)


def test_a_number_under_two_names_is_not_updated_under_the_other():
    check_grads(number_under_two_names, (V.copy(),), order=2)
    assert_forms_agree(number_under_two_names, (V.copy(),), nonzero=True)


def zero_d_updated_twice(x, y):  # fuzzer 35058:631, shrunk
    a = y
    b = x
    c = b[0]
    d = np.array(c)
    g = d
    g += c
    h = g
    h *= h
    return d + np.sum(a)


def zero_d_one_name(x):
    d = np.array(x[0])
    d += x[1]
    return d * 3.0 + np.sum(x)


@pytest.mark.parametrize("f, args", [
    (zero_d_updated_twice, (np.array([0.586, 1.0, 2.0]), np.array([1.0, 2.0]))),
    (zero_d_one_name, (np.array([0.5, 2.0]),))], ids=["two names", "one name"])
def test_an_update_of_a_0d_array_is_refused(f, args):
    # NumPy's ``d += v`` keeps a 0-d array an array (its other names see the next
    # update); the compiled ``d = d + v`` gave a number: a wrong value and gradient
    # (0.08 where 4.7 was due) before it was refused.
    with pytest.raises(sg.CompileError, match="of a 0-d array"):
        sg.value_and_grad(f)(*args)


def test_a_number_from_a_0d_array_is_updated():
    def f(x):
        d = float(np.array(x[0]))
        d += x[1]
        return d * 3.0
    check_grads(f, (np.array([0.5, 2.0]),))


def stencil_copy_then_write(u0, kappa):
    """The explicit scheme of a PDE solver: a copy of the state, written cell by cell,
    then rebound to the state (realistic-program hunt: refused at first order, since
    ``x.copy()`` of a local was not known to be a new array)."""
    u = np.array(u0, dtype=float)
    n = len(u)
    for step in range(3):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] += kappa * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        u = new
    return u[n // 2] + np.sum(u * u)


def copy_write_rebind_once(u0, kappa):
    u = u0 * 1.0
    new = u.copy()
    new[1] = new[1] + kappa * u[0]
    u = new
    return np.sum(u * u)


def double_buffer_with_a_boundary(u0, kappa):
    """The PDE step written with slices and a boundary copied from a neighbour cell:
    ``new[0] = new[1]`` reads a view of ``new`` itself, whose values the store copies
    (hunt 6: refused as a write into an array a view may share)."""
    u = u0
    for _ in range(4):
        new = u.copy()
        new[1:-1] += kappa * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        new[0] = new[1]
        new[-1] = new[-2]
        u = new
    return np.sum(u ** 2)


def shift_within_the_array(x, kappa):
    a = x * kappa
    a[1:] = a[:-1]  # overlapping: NumPy buffers it
    b = x * 1.0
    b[0] = b[1] * 2.0
    return np.sum(a * x) + np.sum(b * b)


@pytest.mark.parametrize("f", [stencil_copy_then_write, copy_write_rebind_once,
                               double_buffer_with_a_boundary, shift_within_the_array],
                         ids=lambda f: f.__name__)
def test_a_copy_written_then_rebound(f):
    args = (np.linspace(0.2, 1.0, 6), 0.1)
    check_grads(f, args, wrt=(0, 1), order=1)
    assert_forms_agree(f, args, nonzero=True)


def test_a_copy_written_then_rebound_to_second_order():
    """The first derivative's code restores the slots into arrays it pops from a stack,
    which the analysis cannot prove private (refused until code differentiated again
    made each write a new array, passes/functional.py)."""
    args = (np.linspace(0.0, 1.0, 6), 0.1)
    check_grads(stencil_copy_then_write, args, wrt=(0, 1), order=2)
    check_grads(double_buffer_with_a_boundary, args, wrt=(0, 1), order=2)


def view_kept_then_written(x):
    a = x * 1.0
    v = a[0]
    a[1] = a[0]
    a[0] = 3.0  # v, a view of row 0 kept, sees this write
    return np.sum(v * x[1]) + np.sum(a)


def test_a_view_of_itself_kept_past_the_write_is_still_refused():
    with pytest.raises(sg.CompileError, match=r"`v = a\[0\]` reads a view of `a`"):
        sg.grad(view_kept_then_written)(np.array([[0.5, 1.5], [-0.3, 2.0]]))


# -- ``x += dt * rhs(x)`` in a loop, ``rhs`` a helper (hunt 9: Euler and leapfrog steps
# -- were refused): the helper's parameter (``rhs_v = x`` once inlined) is bound anew before
# -- any read on each trip and read nowhere after the loop, so it holds nothing at the
# -- loop's head (ir/private.dead_at_head), and the operand is computed, and the helper
# -- inlined, before the update is decided. Where the other name is read on the next trip
# -- or after the loop, NumPy's update would reach it: still refused.

def _rhs(v):
    return -v ** 3 + np.sin(v)


def euler_with_a_helper(x0):
    x = x0.copy()
    for _ in range(4):
        x += 0.1 * _rhs(x)
    return np.sum(x ** 2)


def leapfrog_with_a_helper(q0, p0):
    q = q0.copy()
    p = p0.copy()
    for _ in range(3):
        p -= 0.05 * _rhs(q)
        q += 0.1 * p
        p -= 0.05 * _rhs(q)
    return np.sum(q * q) + np.sum(p)


def while_with_a_helper(x0):
    x = x0.copy()
    k = 0
    while k < 3:
        x *= 1.0 + 0.1 * _rhs(x)
        k += 1
    return np.sum(x)


def alias_read_on_the_next_trip(x0):
    x = x0.copy()
    prev = x0 * 0.0
    s = 0.0
    for _ in range(3):
        s = s + np.sum(prev * prev)
        prev = x
        x += 0.1 * x * x
    return np.sum(x) + s


def alias_read_after_the_loop(x0):
    x = x0.copy()
    for _ in range(3):
        prev = x
        x += 0.1 * np.sin(prev)
    return np.sum(x) + np.sum(prev ** 2)


HELPER_STEPS = [(euler_with_a_helper, 1), (leapfrog_with_a_helper, 2), (while_with_a_helper, 1)]


@pytest.mark.parametrize("f, n", HELPER_STEPS, ids=[f.__name__ for f, _ in HELPER_STEPS])
def test_updates_through_a_helper_in_a_loop(f, n):
    args = (np.array([0.53, 1.27, -0.71]), np.array([0.2, -0.1, 0.4]))[:n]
    check_grads(f, args, order=2)
    assert_forms_agree(f, args, nonzero=True)


@pytest.mark.parametrize("f", [alias_read_on_the_next_trip, alias_read_after_the_loop])
def test_an_other_name_read_later_still_refuses_the_update(f):
    with pytest.raises(sg.CompileError, match="in-place update `x \\+= ...`"):
        sg.grad(f)(np.array([0.53, 1.27, -0.71]))
