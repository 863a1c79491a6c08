"""A write into a view of an array is one into the array (``passes/normalize/views.py``).

These were refused ("writing into `w[...]`, whose array may be shared"): each is
checked against central differences in every form it is accepted in, in more
than one style, and what cannot be written into the array it views (a copy, a
view of an array rebound since) is refused when it runs.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, assert_forms_agree

X0 = np.array([0.3, -0.5, 0.8, 1.1])


def slice_view(x):
    v = 2.0 * x
    w = v[1:]  # a view: the write below changes v
    w[0] = 5.0 * x[2]
    return np.sum(v ** 2)


def whole_slice_and_update(x):
    v = np.sin(x)
    w = v[:]
    w[2] += x[0] * x[1]  # (``+=``: read and written through the view)
    return np.sum(v * x)


def row_then_slice(x):
    M = np.outer(x, x)
    r = M[1]
    c = r[1:]  # a view of a view
    c[0] = 3.0 * x[0]
    return np.sum(M * M)


def reshaped(x):
    v = x * 1.5
    m = v.reshape(2, 2)
    m[1, 0] = np.cos(x[3])
    flat = v.ravel()
    flat[3] = x[0] ** 2
    return np.sum(v * np.array([1.0, 2.0, 3.0, 4.0]))


def _set_ends(u, value):
    u[0] = value
    u[-1] = value * 2.0


def helper_writes_its_parameter(x):
    u = x * np.array([1.0, 2.0, 3.0, 4.0])
    _set_ends(u, np.tanh(x[1]))  # (the helper's `u` is the caller's array)
    return np.sum(u ** 2)


def _ends_set(u, value):
    u[0] = value
    u[-1] = value * 2.0
    return u


def helper_returns_it(x):
    # (the same math, the helper returning the array it wrote into)
    u = x * np.array([1.0, 2.0, 3.0, 4.0])
    u2 = _ends_set(u, np.tanh(x[1]))
    return np.sum(u ** 2) + 0.0 * np.sum(u2)


@pytest.mark.parametrize("f", [slice_view, whole_slice_and_update, row_then_slice, reshaped,
                               helper_writes_its_parameter, helper_returns_it])
def test_first_order_in_every_form(f):
    check_grads(f, (X0.copy(),), order=1)
    assert_forms_agree(f, (X0.copy(),), nonzero=True)
    value, _ = sg.value_and_grad(f)(X0.copy())
    assert np.isclose(value, f(X0.copy()))


@pytest.mark.parametrize("f", [slice_view, row_then_slice, reshaped])
def test_second_order_and_forward_mode(f):
    assert_every_form(f, X0.copy())


def transposed(A):
    B = A * 1.0
    Bt = B.T
    Bt[2, 1] = A[0, 0] ** 3  # writes B[1, 2]
    return np.sum(B ** 2)


def test_transposed_view():
    A = np.array([[0.1, 0.7, 0.2], [0.35, -0.4, 0.9]])
    check_grads(transposed, (A.copy(),), order=1)
    g = sg.grad(transposed)(A.copy())
    assert g[1, 2] == 0.0 and np.isclose(g[0, 0], 2 * A[0, 0] + 6 * A[0, 0] ** 5)


def test_generated_code_names_the_write():
    text = sg.adjoint_source(slice_view)
    assert "w_at = _sg.view_places(w, v, w_now, 0, 'w[0]', 'test_view_writes.py:" in text
    assert "v[w_at] = " in text


def copy_not_view(x):
    M = np.outer(x[:2], x[:2]) * 1.0
    flat = M.ravel(order="F")  # a copy (M is in C order): the write does not reach M
    flat[0] = 100.0 * x[2]
    return np.sum(M) + np.sum(flat)


def base_rebound(x):
    v = x * 2.0
    w = v[1:]
    v = v * 3.0  # a new array: w still views the old one
    w[0] = x[0]
    return np.sum(v) + np.sum(w)


@pytest.mark.parametrize("f, name", [(copy_not_view, "flat"), (base_rebound, "w")])
def test_a_view_that_is_not_the_arrays_is_refused_when_it_runs(f, name):
    # (Python writes into the copy, or the old array, alone; srcgrad does not guess.)
    with pytest.raises(sg.CompileError, match=rf"writing into `{name}\[0\]`.*is not that view "
                                              r"of it when the code runs") as e:
        sg.grad(f)(X0.copy())
    assert "test_view_writes.py:" in str(e.value) and e.value.remedy


def written_in_a_loop(x):
    v = np.zeros(5)
    w = v[1:]
    for i in range(4):
        w[i] = np.sin(x[i]) * (i + 1)
    return np.sum(v ** 2)


def test_a_view_written_in_a_loop_stays_refused():
    # (Read again on the next trip after the write: not modelled, refused, not guessed.)
    with pytest.raises(sg.CompileError, match="shared"):
        sg.grad(written_in_a_loop)(X0.copy())


# -- ``w *= 3`` of a view: a write of all of it, ``w[...] = w * 3``, into the array.

def column_updated(x):
    y = np.outer(x, x[:2])
    col = y[:, 0]
    col += 1.0
    col *= x
    return np.sum(y ** 2)


def rows_updated_in_a_loop(x):
    y = np.outer(x[:2], x) * 2.0
    for k in range(2):
        row = y[k, :]  # (a new view each trip, updated once)
        row *= x[k] + 1.0
    return np.sum(np.sin(y))


def transposed_and_block_updated(x):
    y = np.sin(np.reshape(x, (2, 2)))
    t = y.T
    t *= 2.0
    b = y[:1, ...]
    b -= x[:2] ** 2
    return np.sum(y * np.reshape(x, (2, 2)))


def _bump(u, a):
    u += a


def helper_updates_a_slice(x):
    y = np.outer(x, x)
    _bump(y[:, 1], x * 3.0)  # (its `u` is a view of the caller's array)
    return np.sum(y ** 2)


def updated_then_read(x):
    v = np.cos(x)
    w = v[1:]
    w /= 2.0
    w -= x[:3]
    return np.sum(v ** 2) + np.sum(w * x[1:])


@pytest.mark.parametrize("f", [column_updated, rows_updated_in_a_loop,
                               transposed_and_block_updated, helper_updates_a_slice,
                               updated_then_read])
def test_an_update_in_place_of_a_view_every_form(f):
    """(Refused before: "in-place update `col += ...` of an array that another variable
    may share"; hunt 9's pit_view_write.)"""
    assert np.all(np.isfinite(sg.grad(f)(X0.copy())))
    assert_every_form(f, X0.copy(), nonzero=True)


def item_of_a_vector_updated(x):
    v = x * 1.0
    r = v[1]  # a number: ``r *= 3`` binds a new one, v is unchanged
    r *= 3.0
    return np.sum(v ** 2) + r


def test_an_update_of_an_item_of_a_vector_binds_a_number():
    check_grads(item_of_a_vector_updated, (X0.copy(),), order=2)


def row_of_a_matrix_updated(x):
    y = np.outer(x, x)
    row = y[1]  # a view here, a number for a vector: not known when compiling
    row *= 3.0
    return np.sum(y ** 2)


def view_updated_in_a_loop(x):
    y = np.outer(x, x)
    col = y[:, 0]
    for k in range(3):
        col += x * k  # (read again on the next trip)
    return np.sum(y ** 2)


def view_read_between_updates(x):
    y = np.outer(x, x)
    col = y[:, 0]
    col += 1.0
    s = np.sum(col ** 3)  # the backward pass would read col after the next update
    col /= 2.0
    return np.sum(y ** 2) + s


@pytest.mark.parametrize("f", [row_of_a_matrix_updated, view_updated_in_a_loop,
                               view_read_between_updates])
def test_updates_of_views_not_modelled_stay_refused(f):
    with pytest.raises(sg.CompileError, match="share"):
        sg.grad(f)(X0.copy())


# -- ``u = v[[0, 2]]`` is a copy (advanced indexing), also once its index is named

def written_then_fancy_copy_written(x):
    v = np.exp(x)
    w = np.asarray(v)  # v itself
    w[1] = 0.0
    u = v[[0, 2]]  # a copy: the write below leaves v alone
    u[0] = 100.0 * x[3]
    return np.sum(v) + np.sum(u * x[:2])


def fancy_copy_by_a_named_list(x):
    v = np.sin(x)
    idx = [3, 1]
    u = v[idx]
    u *= 2.0
    v[0] = x[2] ** 2
    return np.sum(v * x) + np.sum(u)


@pytest.mark.parametrize("f", [written_then_fancy_copy_written, fancy_copy_by_a_named_list])
def test_a_read_by_a_list_of_indices_is_a_copy(f):
    # (Refused before: "writing into `v[...]`, whose array may be shared"; hunt 9's
    # alias_asarray_same.)
    assert_every_form(f, X0.copy(), nonzero=True)


def view_copied_then_array_written(x):
    a = np.sin(x)
    b = a[1:]
    c = b.copy()  # (its derivative needs no value of b: the write below may follow)
    a[1] = 5.0 * x[0]
    return np.sum(c * x[1:]) + np.sum(a ** 2)


def test_a_view_read_only_by_a_copy_before_a_write():
    # (Refused before: ``b.copy()`` was taken for a read whose derivative needs ``b``.)
    assert_every_form(view_copied_then_array_written, X0.copy(), nonzero=True)


def input_updated_through_a_view(x):
    a = np.asarray(x)  # x itself
    a += 1.0
    return np.sum(x * x)


def test_the_message_through_check_grads_names_no_number():
    """check_grads's second level calls the gradient through ``h(*args)``: the write's
    array is ``args_0`` there, not ``0`` (found in the line's ``1.0``)."""
    from srcgrad.testing import check_grads as check
    with pytest.raises(sg.CompileError) as e:
        check(input_updated_through_a_view, (X0.copy(),), order=2)
    assert "`0[...]`" not in str(e.value) and "0 = 0.copy()" not in str(e.value)


def test_second_order_of_a_write_into_an_input_names_the_users_line():
    # (First order: a write of all of the view into ``x``. Differentiated again it is
    # refused, and the message named ``a0``, the derivative's name for ``x``.)
    check_grads(input_updated_through_a_view, (X0.copy(),), order=1)
    with pytest.raises(sg.CompileError, match=r"`a \+= 1\.0` writes into an array that may "
                                              r"be shared .* first derivative's code") as e:
        sg.hvp(input_updated_through_a_view)(X0.copy(), np.ones(4))
    assert "a0" not in str(e.value) and "test_view_writes.py:" in str(e.value)


# -- fuzz 45000:146: a write through a view of another name of an array that a third
# name also holds (``b = a; g = a; h = g[1:]; h[0] = v``) was differentiated as if ``b``
# kept the old values (every form gave a wrong gradient); now refused like ``b = a``
# then ``a[0] = v``.

def through_a_second_name(x):
    a = x * 2.0
    b = a
    g = a
    h = g[1:]
    h[0] = 5.0 * x[0]
    return np.sum(b * x)


def reshaped_second_name_updated(x):
    a = x * 2.0
    b = a
    g = a
    h = g.reshape(-1)
    h += b
    return np.sum(b * x)


def three_names_and_a_view(x):
    a = x * 2.0
    b = a
    c = b
    g = a
    h = g.reshape(-1)
    h += c
    return np.sum(b) + np.sum(g)


class _State:
    def __init__(self, x):
        self.x = x

    def __call__(self):
        self.a = self.x * 2.0
        self.b = self.a
        self.g = self.a
        self.h = self.g.reshape(-1)
        self.h += self.b
        return np.sum(self.b) + np.sum(self.g)


def attributes_of_an_object(x):
    return _State(x)()


def written_then_rebound(x):
    a = x * 2.0
    b = a
    g = a
    g[0] = x[1] * 3.0   # (into a's array: g holds it here, not after the next line)
    g = x * 5.0
    return np.sum(b * x) + np.sum(g)


def view_written_then_rebound(x):
    a = x * 2.0
    b = a
    g = a
    h = g.reshape(-1)
    h += b
    g = x * 5.0
    return np.sum(b * x) + np.sum(g)


@pytest.mark.parametrize("f", [through_a_second_name, reshaped_second_name_updated,
                               three_names_and_a_view, attributes_of_an_object,
                               written_then_rebound, view_written_then_rebound])
def test_a_write_through_a_view_of_a_shared_array_is_refused(f):
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        sg.grad(f)(X0.copy())
