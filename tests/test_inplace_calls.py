"""Calls that write into an array, compiled as the store they are (stores.py).

``np.copyto(y, v)``, ``f(..., out=y)``, ``y.sort()``, ``y.fill(v)``,
``np.fill_diagonal``, ``np.put_along_axis``, ``np.put``, ``np.place`` were
refused wherever the gradient could read what they wrote (hunt 6: among the
commonest refusals of realistic programs). Each is the store ``y[index] = value``
of a value NumPy computes without the write, and now differentiates as that
store: checked here against central differences in every form (``sg.grad``,
``value_and_grad``, a tape in plain code and in ``@sg.function``, forward mode,
second order). What such a store may not do is refused naming the user's call
(tests/test_mutating_calls.py). Also: a differentiable value stored into an
array of integers (``y = np.zeros(3, dtype=int); y[0] = x[1] * 10``) is cast,
piecewise constant: its gradient was passed through as if the array were
floating (a silent wrong answer, found writing these tests).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, assert_forms_agree, taped

X = np.array([0.53, 1.27, -0.71])


def copyto_fresh(x):
    a = np.zeros(3)
    np.copyto(a, x * 3.0)
    return np.sum(a ** 2)

def copyto_where(x):
    a = np.ones(3)
    np.copyto(a, x * x, where=np.array([True, False, True]))
    return np.sum(a * x)

def copyto_scalar(x):
    a = np.zeros((2, 3))
    np.copyto(a, x[1])
    return np.sum(a * np.arange(6.0).reshape(2, 3))

def fill_diagonal_zero(x):
    A = np.outer(x, x)
    np.fill_diagonal(A, 0.0)
    return np.sum(A * A)

def fill_diagonal_values(x):
    A = np.ones((3, 3)) * x[0]
    np.fill_diagonal(A, x ** 2)
    return np.sum(A * np.arange(9.0).reshape(3, 3))

def fill_diagonal_wrap(x):
    A = np.zeros((7, 3)) + x[2]
    np.fill_diagonal(A, x[0] * x[1], wrap=True)
    return np.sum(np.sin(A) * np.arange(21.0).reshape(7, 3))

def fill_diagonal_cube(x):
    A = np.ones((3, 3, 3)) * x[1]
    np.fill_diagonal(A, x)
    return np.sum(A * np.arange(27.0).reshape(3, 3, 3))

def put_along_rows(x):
    y = np.zeros((2, 3)) + x[2]
    np.put_along_axis(y, np.array([[0], [2]]), x[:2, None] ** 2, axis=1)
    return np.sum(y ** 2 * np.arange(6.0).reshape(2, 3))

def put_along_flat(x):
    y = np.ones(5)
    np.put_along_axis(y, np.array([4, 1, 4]), x, axis=None)
    return np.sum(y * np.arange(5.0) * x[0])

def put_flat(x):
    a = x * 2.0
    np.put(a, [0, -1], x[1:] ** 2)
    return np.sum(a * np.array([1.0, 2.0, 3.0]))

def place_masked(x):
    a = x * 1.0
    np.place(a, np.array([True, False, True]), np.sin(x[:2]))
    return np.sum(a * a)

def sort_method(x):
    a = x * np.array([1.0, -2.0, 0.5])
    a.sort()
    return np.sum(a * np.arange(3.0))

def sort_axis0(x):
    M = np.outer(x, np.array([1.0, -1.0]))
    M.sort(axis=0)
    return np.sum(M * np.arange(6.0).reshape(3, 2))

def partition_method(x):
    a = np.concatenate([x, -x])
    a.partition(2)
    return a[2] * 3.0 + np.sum(a[:2]) ** 2

def fill_varied(x):
    a = np.empty(4)
    a.fill(x[0] * x[1])
    return np.sum(a * np.arange(4.0)) + x[2]

def put_method(x):
    a = np.ones(4)
    a.put([0, 2], x[:2] ** 3)
    return np.sum(a * np.arange(1.0, 5.0)) * x[2]

def ufunc_out(x):
    y = np.empty(3)
    np.multiply(x, x, out=y)
    return np.sum(y * np.arange(3.0))

def ufunc_out_sin(x):
    y = np.zeros(3)
    np.sin(x, out=y)
    return np.sum(y * y)

def ufunc_out_positional(x):
    a = x * 2.0
    np.multiply(a, 3.0, a)
    return np.sum(a * x)

def ufunc_out_where(x):
    y = np.ones(3)
    np.exp(x, out=y, where=np.array([True, False, True]))
    return np.sum(y * x)

def ufunc_out_bound(x):
    y = np.empty(3)
    z = np.add(x, 1.0, out=y)
    return np.sum(z * y * x)

def ufunc_out_tuple(x):
    y = np.empty(3)
    np.tanh(x, out=(y,))
    return np.sum(y ** 2)

def reduction_out(x):
    M = np.outer(x, x)
    y = np.empty(3)
    np.sum(M, axis=0, out=y)
    return np.sum(y * np.arange(3.0))

def method_out(x):
    M = np.outer(x, x)
    y = np.empty(3)
    M.sum(axis=1, out=y)
    return np.sum(y * np.arange(3.0))

def out_in_loop(x):
    y = np.ones(3)
    for i in range(3):
        np.multiply(y, x, out=y)
    return np.sum(y)

def copyto_in_loop(x):
    a = np.zeros(3)
    total = 0.0
    for i in range(3):
        np.copyto(a, a + x * (i + 1.0))
        total = total + np.sum(a * a)
    return total

def sort_rows_then_use(x):
    M = np.stack([x, x[::-1] * 2.0])
    M.sort()
    return np.sum(M[:, 0] * M[:, 2])


def out_into_view(x):
    a = np.zeros(6)
    np.multiply(x, x, out=a[:3])
    return np.sum(a * np.arange(6.0))


def write_after_read(x):
    a = np.ones(3)
    y = np.sum(a * x)
    np.copyto(a, x)
    return y + np.sum(a * x)


class Model:
    def __init__(self):
        self.W = np.zeros(3)
    def loss(self, x):
        np.copyto(self.W, x * 2.0)
        return np.sum(self.W * x)


def attribute_written(x):
    return Model().loss(x)


def int_store(x):
    y = np.zeros(3, dtype=int)
    y[...] = x * 10.0
    return np.sum(y * x)


def int_item(x):
    y = np.zeros_like(x, dtype=int)
    y[1] = x[0] * 10.0
    return np.sum(y * x)


def int_out(x):
    y = np.zeros(3, dtype=np.int64)
    np.copyto(y, x * 10.0, casting="unsafe")
    return np.sum(y * x * x)


def bool_item(x):
    y = np.zeros(3, dtype=bool)
    y[0] = x[0]
    return np.sum(y * x)


STORES = [copyto_fresh, copyto_where, copyto_scalar, fill_diagonal_zero, fill_diagonal_values,
          fill_diagonal_wrap, fill_diagonal_cube, put_along_rows, put_along_flat, put_flat,
          place_masked, sort_method, sort_axis0, partition_method, fill_varied, put_method,
          ufunc_out, ufunc_out_sin, ufunc_out_positional, ufunc_out_where, ufunc_out_bound,
          ufunc_out_tuple, reduction_out, method_out, out_in_loop, copyto_in_loop,
          sort_rows_then_use, out_into_view, write_after_read, attribute_written,
          int_store, int_item, int_out, bool_item]
# (Second derivatives of a write whose array the first derivative's code also names,
# ``z = np.add(x, 1.0, out=y)``: y and z, were refused until code differentiated again
# made each write a new array, passes/functional.py.)


@pytest.mark.parametrize("f", STORES, ids=[f.__name__ for f in STORES])
def test_gradient_in_every_form(f):
    assert_every_form(f, X, order=2)


def test_the_store_writes_what_numpy_writes():
    """The compiled forward pass leaves the arrays as the calls do (values by value_and_grad)."""
    for f in STORES:
        value, _ = sg.value_and_grad(f)(X.copy())
        assert value == pytest.approx(f(X.copy()), rel=1e-12), f.__name__


def test_fill_diagonal_wraps_as_numpy_does():
    from srcgrad.runtime import diagonal_index

    for shape, wrap in [((7, 3), True), ((7, 3), False), ((3, 7), False), ((4, 4, 4), False)]:
        a, b = np.zeros(shape), np.zeros(shape)
        np.fill_diagonal(a, 1.0, wrap=wrap)
        b[diagonal_index(b, wrap)] = 1.0
        np.testing.assert_array_equal(a, b)


def test_put_along_axis_index_is_numpys():
    from srcgrad.runtime import along_axis_index

    rng = np.random.default_rng(0)
    for axis in (0, 1, -1, None):
        a, b = np.zeros((3, 4)), np.zeros((3, 4))
        idx = rng.integers(0, 3, size=(3, 4) if axis is not None else (5,))
        values = rng.standard_normal(idx.shape)
        np.put_along_axis(a, idx, values, axis=axis)
        b[along_axis_index(b, idx, axis)] = values
        np.testing.assert_array_equal(a, b)


# -- refused, naming the user's call

def view_sorted(x):
    A = np.outer(x, x)
    v = A[0]
    v.sort()
    return np.sum(A * np.arange(9.0).reshape(3, 3))


def other_name_filled(x):
    a = x * 2.0
    b = a
    b.fill(x[0])
    return np.sum(a * x)


def list_sorted(x):
    lst = [x[0], x[1] * 2.0, -x[2]]
    lst.sort()
    return lst[0] * 3.0 + lst[2]


def out_through_a_fancy_index(x):
    a = np.zeros(6)
    np.multiply(x, x, out=a[[0, 1, 2]])  # (a copy: NumPy writes into it, not into a)
    return np.sum(a * np.arange(6.0))


@pytest.mark.parametrize("f, message", [
    (other_name_filled, "`b.fill(x[0])`, writing into `a[...]`, whose array may be shared"),
    (list_sorted, "`lst.sort()` is compiled as a write into an ndarray, and this is a list"),
    (out_through_a_fancy_index, "writes its result into `a[[0, 1, 2]]` (out=)"),
])
def test_refused_naming_the_call(f, message):
    for compute in (lambda: sg.grad(f)(X.copy()), lambda: taped(f, X.copy()),
                    lambda: sg.function(taped)(f, X.copy())):
        with pytest.raises(sg.CompileError) as info:
            compute()
        assert message in str(info.value)
        assert "test_inplace_calls.py:" in str(info.value)
        assert info.value.remedy


def tape_copyto(x):
    a = np.zeros(3)
    with sg.GradientTape() as tape:
        tape.watch(x)
        np.copyto(a, x)
        y = np.sum(a * x)
    return tape.gradient(y, x)


def tape_out(x):
    a = np.zeros(3)
    with sg.GradientTape() as tape:
        tape.watch(x)
        np.sin(x, out=a)
        y = np.sum(a * a)
    return tape.gradient(y, x)


def test_tape_blocks_written_out():
    for f, expected in [(tape_copyto, 2.0 * X), (tape_out, 2.0 * np.sin(X) * np.cos(X))]:
        np.testing.assert_allclose(f(X.copy()), expected, rtol=1e-12)
        np.testing.assert_allclose(sg.function(f)(X.copy()), expected, rtol=1e-12)


def test_a_module_level_tape(tmp_path):
    from tape_forms import assert_script_prints_ok

    assert_script_prints_ok(tmp_path / "module_tape.py", """
        import numpy as np
        import srcgrad as sg

        x = np.array([0.53, 1.27, -0.71])
        y = np.empty((2, 3))
        with sg.GradientTape() as tape:
            tape.watch(x)
            np.multiply(x, x, out=y[0])
            np.copyto(y[1], np.sin(x))
            y.sort(axis=0)
            loss = np.sum(y * np.arange(6.0).reshape(2, 3))
        g = tape.gradient(loss, x)
        expected = np.where(x * x <= np.sin(x), 2 * x, np.cos(x)) * np.arange(3.0) \
            + np.where(x * x <= np.sin(x), np.cos(x), 2 * x) * np.arange(3.0, 6.0)
        assert np.allclose(g, expected), (g, expected)
        print("ok")
    """)


def test_jacobian_rows_of_a_store_into_integers():
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        z = np.zeros(3, dtype=int)
        z[0] = x[0] * 10.0
        w = z * x
    np.testing.assert_allclose(tape.jacobian(w, x), np.diag([5.0, 0.0, 0.0]))


def test_a_view_sorted_in_place_sorts_the_array_it_views():
    # (It was refused: `v.sort()` is `v[...] = np.sort(v)`, a write through the view `v`
    # into `A`, passes/normalize/views.py.)
    check_grads(view_sorted, (X.copy(),), order=1)
    assert_forms_agree(view_sorted, (X.copy(),))
