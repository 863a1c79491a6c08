"""An item read ``a = x[i]`` then a write into ``x``: refused before as "may be
shared" whatever ``x`` was (``a = x[0]`` of a vector is a number, a copy: a
temporary of a swap, a state variable's item updated from itself). Now it is
checked when it runs (``_sg.check_item_read``), refusing only a view (a row of a
matrix), which the write changes under the other name; a write into ``a`` itself
is refused as before.
Each accepted program is checked in every form against central differences, to
second order; each refused one names the read and the line, in every form.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, fd_jacobian, taped

X = np.array([0.7, -1.3, 2.1])


def item_updated_from_itself(x):
    x = x.copy()
    a = x[0]
    x[0] = a * x[1]
    return np.sum(x * x)


def swapped_through_a_temporary(x):
    x = x * 1.0
    t = x[0]
    x[0] = x[2] * 2.0
    x[2] = t
    return np.sum(x * np.arange(1.0, 4.0) * x[0])


def items_updated_in_a_loop(x):
    y = x.copy()
    for i in range(1, 3):
        prev = y[i - 1]
        y[i] = y[i] + np.sin(prev)
    return np.sum(y ** 2)


def entry_of_a_matrix(x):
    M = np.outer(x, x)
    m = M[1, 2]  # both indices: a number
    M[0, 0] = m * 3.0
    return np.sum(M * np.arange(9.0).reshape(3, 3))


def chained_read_of_an_entry(x):
    M = np.outer(x, x)
    for i in range(3):
        M[i][i] += x[i] ** 3 * M[i][0]
    return np.sum(M ** 2)


def forwarded_by_star_args(*args):
    x = args[0]
    x = x.copy()
    t = x[1]
    x[0] = t * args[1]
    return np.sum(x * x)


@pytest.mark.parametrize("f", [item_updated_from_itself, swapped_through_a_temporary,
                               items_updated_in_a_loop, entry_of_a_matrix,
                               chained_read_of_an_entry], ids=lambda f: f.__name__)
def test_an_item_read_then_written_is_compiled(f):
    assert_every_form(f, X.copy())


def test_star_args_and_a_second_scalar_to_second_order():
    """check_grads wraps the first derivative in ``h(*args)``: ``x = args[0]`` then
    ``x = x.copy()`` was refused at second order (``x_new`` moved into ``x``)."""
    check_grads(forwarded_by_star_args, (X.copy(), 1.5), order=2)
    check_grads(item_updated_from_itself, (X.copy(),), order=2)


def row_then_written(M):
    M = M.copy()
    r = M[0]
    M[0, 1] = 5.0 * M[1, 1]  # r sees this write
    return np.sum(r * M[1])


def row_written_through(M):
    M = M.copy()
    r = M[0]
    r[1] = 3.0 * M[1, 0]  # M sees this write
    return np.sum(M * M)


def list_item_written(M):
    rows = [M * 1.0, M * 2.0]
    a = rows[0]
    a[0, 0] = 7.0  # rows[0] sees this write
    return np.sum(rows[0] * M)


@pytest.mark.parametrize("f, message", [
    (row_then_written, r"`r = M\[0\]` reads a view of `M`.*test_item_reads.py:\d+\)\. "
                       r"Copy what is read: `r = M\[0\]\.copy\(\)`"),
    (list_item_written, r"writing into `a\[\.\.\.\]`, whose array may be shared"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_view_or_a_held_item_written_is_refused_in_every_form(f, message):
    M = np.arange(1.0, 7.0).reshape(2, 3)
    for compute in (lambda: sg.grad(f)(M.copy()), lambda: sg.value_and_grad(f)(M.copy()),
                    lambda: taped(f, M.copy()), lambda: sg.function(taped)(f, M.copy())):
        with pytest.raises(sg.CompileError, match=message):
            compute()


def test_the_same_code_on_a_vector_is_compiled():
    """What decides is the array the code runs on: ``x[0]`` of a vector is a copy."""
    def f(x):
        x = x.copy()
        r = x[0]
        x[1] = 5.0 * x[2]
        return np.sum(r * x)
    check_grads(f, (X.copy(),), order=2)


def view_handed_on_then_written(x):
    """Hunt 13 (a silent wrong gradient before): ``t`` was read only before the write,
    so its binding counted as transient, but ``b = t`` kept the view past it."""
    a = np.outer(x, x) * 1.0
    t = a[1]
    b = t
    a[1, 0] = 5.0 * x[2]
    return np.sum(b * np.sin(b))


def slice_handed_on_then_written(x):
    a = x * 1.0
    t = a[1:]
    b = t
    a[2] = 3.0 * x[0]
    return np.sum(b * x[1:])


@pytest.mark.parametrize("f", [view_handed_on_then_written, slice_handed_on_then_written],
                         ids=lambda f: f.__name__)
def test_a_view_handed_to_another_name_then_written_is_refused(f):
    for compute in (lambda: sg.grad(f)(X.copy()), lambda: taped(f, X.copy()),
                    lambda: sg.function(taped)(f, X.copy())):
        with pytest.raises(sg.CompileError, match="view|may be shared"):
            compute()


def chained_row_of_a_cube_then_written(M):
    """Hunt 14: ``t = M[0]`` (copied for the backward pass) then ``a = t[1]``: the check
    read the copy, a silent wrong value and gradient."""
    a = M[0][1]
    M[0, 1] = 7.0
    return np.sum(a * a) + np.sum(M)


def row_then_the_array_updated_in_place(M):
    """Hunt 14: ``X *= 2`` compiled as a rebinding once the row read no longer made
    ``X`` shared: the row missed the update (a silent wrong value and gradient)."""
    a = M[0]
    M *= 2.0
    return np.sum(a ** 2)


@pytest.mark.parametrize("f", [chained_row_of_a_cube_then_written,
                               row_then_the_array_updated_in_place], ids=lambda f: f.__name__)
def test_a_view_the_array_changes_under_is_refused(f):
    M = np.arange(8.0).reshape(2, 2, 2) + 1.0
    for compute in (lambda: sg.grad(f)(M.copy()), lambda: sg.value_and_grad(f)(M.copy()),
                    lambda: taped(f, M.copy()), lambda: sg.function(taped)(f, M.copy()),
                    lambda: sg.jvp(f, (M.copy(),), (np.ones_like(M),))):
        with pytest.raises(sg.CompileError, match="view|may share|may be shared|"
                                                  "gradient computation has read"):
            compute()


def test_row_written_through_is_a_write_into_the_matrix():
    # (It was refused in every form: the write into the row `r` is one into `M`,
    # passes/normalize/views.py. A tape's block watches `M`: refused there.)
    M = np.arange(1.0, 7.0).reshape(2, 3)
    check_grads(row_written_through, (M.copy(),), order=1)
    H = sg.hessian(row_written_through)(M.copy())  # (by Hessian-vector products)
    want = fd_jacobian(lambda m: sg.grad(row_written_through)(m.copy()), M.copy())
    np.testing.assert_allclose(H, want, atol=1e-5)
    value, g = sg.value_and_grad(row_written_through)(M.copy())
    assert np.isclose(value, row_written_through(M.copy()))
    np.testing.assert_allclose(g, [[2.0, 0.0, 6.0], [80.0, 10.0, 12.0]])
    for compute in (lambda: taped(row_written_through, M.copy()),
                    lambda: sg.function(taped)(row_written_through, M.copy())):
        with pytest.raises(sg.CompileError, match=r"`r\[1\] = \.\.\.`, writing into `M\[\.\.\.\]`"):
            compute()
