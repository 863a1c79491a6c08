"""``K[i][j] = v`` (a kernel matrix filled the way Python lists are) was refused:
"writing a differentiable value into `K[i][...]`" (hunt 9). Where ``K`` is an array and
``i`` an integer, ``K[i]`` is a view of a row and the write is ``K[i, j] = v``: compiled
so, checked when it runs (a list of lists, or a slice for ``i``, is another write and is
refused naming the line). Every form, against central differences.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71])


def kernel_filled(x):
    n = 3
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i][j] = np.exp(-(x[i] - x[j]) ** 2)
    return np.sum(K * K) + np.trace(K @ K)


def rows_updated(x):
    M = np.outer(x, x)
    for i in range(3):
        M[i][i] += x[i] ** 3
        M[i][0] *= 2.0
    return np.sum(M * np.arange(9.0).reshape(3, 3))


def cube_written(x):
    T = np.ones((2, 3, 3))
    T[1][2, 0] = x[0] * x[1]
    T[0][1] = np.sin(x)
    return np.sum(T ** 2)


@pytest.mark.parametrize("f", [kernel_filled, rows_updated, cube_written])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


def list_of_lists(x):
    K = [[0.0, 0.0], [0.0, 0.0]]
    for i in range(2):
        for j in range(2):
            K[i][j] = x[i] * x[j]
    return K[0][1] * 3.0 + K[1][1]


def test_a_list_of_lists_is_refused_naming_the_line():
    with pytest.raises(sg.CompileError, match=r"`K\[i\]\[j\] = \.\.\.` writes through `\[0\]` "
                                              r"of a list.*test_chained_index_writes"):
        sg.grad(list_of_lists)(X.copy())


# -- the Gaussian-process program of hunt 9 and other styles (branch chained34) --------

P = np.array([0.0, 0.3, 0.9, 1.4])
Y = np.array([0.2, 0.5, -0.1, 0.4])


def gp_quadratic(ell, X, y):
    n = len(X)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i][j] = np.exp(-(X[i] - X[j]) ** 2 / (2 * ell ** 2))
        K[i][i] += 0.1
    return y @ np.linalg.solve(K, y)


def gp_quadratic_indexed(ell, X, y):  # (as NumPy reads it)
    n = len(X)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = np.exp(-(X[i] - X[j]) ** 2 / (2 * ell ** 2))
        K[i, i] += 0.1
    return y @ np.linalg.solve(K, y)


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_the_hunt_program_in_every_form():
    from tape_forms import taped_three

    ell = 0.8
    ref = _fd(lambda e: gp_quadratic(e, P, Y), ell)
    assert sg.grad(gp_quadratic)(ell, P, Y) == pytest.approx(ref, rel=1e-7)
    value, g = sg.value_and_grad(gp_quadratic)(ell, P, Y)
    assert value == pytest.approx(gp_quadratic_indexed(ell, P, Y), rel=1e-14)
    assert g == pytest.approx(ref, rel=1e-7)
    value, tangent = sg.jvp(lambda e: gp_quadratic(e, P, Y), (ell,), (1.0,))
    assert tangent == pytest.approx(ref, rel=1e-7)
    second = _fd(lambda e: sg.grad(gp_quadratic)(e, P, Y), ell, 1e-5)
    assert sg.hvp(gp_quadratic)(ell, P, Y, 1.0) == pytest.approx(second, rel=1e-6)
    for tape in (taped_three, sg.function(taped_three)):
        assert tape(gp_quadratic, ell, P.copy(), Y.copy())[0] == pytest.approx(ref, rel=1e-7)


def gp_hyper(x):
    """The same with amplitude and noise: ``K[i][j] = ...`` then ``K[i][i] += ...``."""
    n = len(P)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i][j] = x[1] ** 2 * np.exp(-(P[i] - P[j]) ** 2 / (2 * x[0] ** 2))
        K[i][i] += 0.1 + x[2] ** 2
    return Y @ np.linalg.solve(K, Y)


def arange_rows(x):
    K = np.zeros((3, 3))
    for i in np.arange(3):
        for j in np.arange(3):
            K[i][j] = x[i] * np.sin(x[j])
    return np.sum(K @ K)


def enumerate_rows(x):
    K = np.eye(3)
    for i, xi in enumerate(x):
        for j, xj in enumerate(x):
            K[i][j] += xi * xj ** 2
    return np.trace(K @ K) + K[2][0] * K[0][2]


def cube_filled(x):
    T = np.zeros((2, 3, 3))
    for a in range(2):
        for b in range(3):
            for c in range(3):
                T[a][b][c] = x[b] ** (a + 1) * np.cos(x[c])
        T[a][a][a] *= x[0]
    return np.sum(T ** 2) + T[1][2][0] * T[0][1][1]


def row_of_a_cube(x):
    T = np.ones((2, 3, 3))
    for i in range(2):
        T[i, 1][2] = x[i] ** 2
        T[i][0, 1] -= x[2] * x[i]
        T[-1][i][-1] += x[i] ** 3
    return np.sum(T * np.arange(18.0).reshape(2, 3, 3) ** 0.5)


def slices_of_rows(x):
    K = np.zeros((3, 4))
    for i in range(3):
        K[i][1:3] = x[i] * x[:2]
        K[i][:] += x[i]
        K[-1][0] = x[1] ** 3
    return np.sum(K ** 2)


def computed_rows(x):
    K = np.zeros((4, 4))
    for i in range(3):
        K[i + 1][i] = x[i] ** 2
        K[i][i + 1] = np.exp(x[i])
    return np.sum(K @ K + K)


def index_array_in_a_row(x):
    K = np.zeros((3, 3))
    idx = np.array([2, 0])
    for i in range(3):
        K[i][idx] = x[i] * x[1:]
    return np.sum(K * np.arange(9.0).reshape(3, 3))


def read_then_written(x):
    K = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            K[i][j] = x[i] - x[j] ** 2
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + K[i][j] * K[j][i] ** 2
    K[0][0] = s
    return np.sum(K ** 2) + s


def constant_into_a_varied_row(x):
    K = np.outer(x, x)
    for i in range(3):
        K[i][i] = 1.0
    return np.sum(K ** 2)


@pytest.mark.parametrize("f", [gp_hyper, arange_rows, enumerate_rows, cube_filled,
                               row_of_a_cube, slices_of_rows, computed_rows,
                               index_array_in_a_row, read_then_written,
                               constant_into_a_varied_row])
def test_every_form_of_more_styles(f):
    assert_every_form(f, X, nonzero=True)


def test_a_chained_write_is_the_indexed_write():
    def indexed(x):  # cube_filled as NumPy reads it
        T = np.zeros((2, 3, 3))
        for a in range(2):
            for b in range(3):
                for c in range(3):
                    T[a, b, c] = x[b] ** (a + 1) * np.cos(x[c])
            T[a, a, a] *= x[0]
        return np.sum(T ** 2) + T[1, 2, 0] * T[0, 1, 1]

    value, g = sg.value_and_grad(cube_filled)(X.copy())
    assert value == indexed(X)
    np.testing.assert_allclose(g, sg.grad(indexed)(X.copy()), rtol=1e-13)


def a_copy_written(x):
    K = np.zeros((3, 3))
    K[[0, 1]][0] = 5.0  # writes into a copy: K stays zero, as in NumPy
    return np.sum(K) + np.sum(x ** 2)


def test_a_write_into_a_copy_runs_as_numpy_does():
    value, g = sg.value_and_grad(a_copy_written)(X.copy())
    assert value == a_copy_written(X)
    np.testing.assert_allclose(g, 2 * X)


# -- refused: what is not the indexed write, named with its line ----------------------

def rows_of_a_slice(x):
    K = np.zeros((3, 3))
    K[1:3][0] = x[0] * x
    return np.sum(K ** 2)


def a_column_written(x):  # (hunt 9's second program: M[2, 1])
    M = np.zeros((3, 3))
    M[:, 1][2] = x[1]
    return np.sum(M @ M + M)


def an_item_of_a_dict(x):
    d = {"w": np.zeros(3)}
    d["w"][0] = x[0] ** 2
    return np.sum(d["w"])


def rows_of_a_list(x):
    K = np.zeros((3, 3))
    K[[0, 1]][0] = x[0] * x
    return np.sum(K ** 2)


def rows_of_an_index_array(x):
    K = np.zeros((3, 3))
    idx = np.arange(2)
    K[idx][0] = x
    return np.sum(K ** 2)


def rows_of_a_bool(x):
    K = np.zeros((3, 3))
    b = True
    K[b][0] = x
    return np.sum(K ** 2)


def a_tuple_in_a_row(x):
    T = np.zeros((2, 3, 3))
    t = (1, 2)
    T[0][t] = x[0] ** 2  # T[0, 1, 2], not T[0, (1, 2)]
    return np.sum(T * np.arange(18.0).reshape(2, 3, 3))


def an_index_array_after_a_slice(x):
    T = np.zeros((2, 3, 3))
    idx = [0, 1, 2]
    T[1][:, idx] = np.outer(x, np.arange(3.0))  # not T[1, :, idx] (its axes swapped)
    return np.sum(T * np.arange(18.0).reshape(2, 3, 3))


def rows_of_a_list_of_arrays(x):
    rows = [np.zeros(3), np.zeros(3)]
    for i in range(2):
        rows[i][1] = x[i] ** 2
    return rows[0][1] + rows[1][1]


def rows_of_a_matrix(x):
    K = np.asmatrix(np.zeros((3, 3)))
    K[1][0] = x[0]
    return np.sum(np.asarray(K))


def a_row_kept(x):
    K = np.zeros((3, 3))
    r = K[0]
    K[0][1] = x[0] ** 2
    return np.sum(r * x)


@pytest.mark.parametrize("f, message", [
    (an_item_of_a_dict, r"`d\['w'\]\[0\] = \.\.\.` writes through `d\['w'\]`.* a key"),
    (rows_of_a_list, r"`K\[\[0, 1\]\]\[0\] = \.\.\.` writes through `\[\[0, 1\]\]` of an array.*list"),
    (rows_of_an_index_array, r"`K\[idx\]\[0\] = \.\.\.` writes through .*ndarray"),
    (rows_of_a_bool, r"`K\[b\]\[0\] = \.\.\.` writes through `\[True\]`.*bool"),
    (a_tuple_in_a_row, r"`T\[0\]\[t\] = \.\.\.` indexes a row with a tuple"),
    (an_index_array_after_a_slice, r"`T\[1\]\[:, idx\] = \.\.\.` writes through `\[\[0, 1, 2\]\]`"),
    (rows_of_a_list_of_arrays, r"`rows\[i\]\[1\] = \.\.\.` writes through `\[0\]` of a list"),
    (rows_of_a_matrix, r"`K\[1\]\[0\] = \.\.\.` writes through `\[1\]` of a matrix"),
    (a_row_kept, r"`r = K\[0\]` reads a view of `K`"),
])
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # (np.asmatrix)
def test_what_is_not_the_indexed_write_is_refused_naming_the_line(f, message):
    with pytest.raises(sg.CompileError, match=message + r".*test_chained_index_writes\.py:\d+"):
        sg.grad(f)(X.copy())
    with pytest.raises(sg.CompileError, match=message):
        sg.jvp(f, (X.copy(),), (np.ones(3),))


# -- a chained write through a view (a slice before the last index): the write into the
# -- view, named, which views.py writes into the array (refused before, "not a slice").

def a_column_in_a_loop(x):
    M = np.zeros((3, 3))
    for j in range(3):
        M[:, j][j] = x[j] * x[(j + 1) % 3]
    return np.sum(M @ M + np.sin(M))


def a_block_then_an_item(x):
    T = np.ones((2, 3, 3))
    T[1][1:, :2][0, 1] = np.tanh(x[0] + x[2])  # T[1, 1, 1]
    T[0, :, ::2][2] = x[:2] ** 2               # T[0, 2, ::2]
    return np.sum(T * np.arange(18.0).reshape(2, 3, 3)) + np.sum(T ** 3)


@pytest.mark.parametrize("f", [rows_of_a_slice, a_column_written, a_column_in_a_loop,
                               a_block_then_an_item])
def test_a_chained_write_through_a_view_every_form(f):
    assert_every_form(f, X, nonzero=True)


def fancy_rows_then_a_slice(x):
    K = np.zeros((3, 3))
    i = [0, 1]
    K[i][:, 0] = x[:2]  # (a copy: Python's write is lost)
    return np.sum(K ** 2) + np.sum(x)


def test_a_chained_write_into_a_copy_stays_refused():
    with pytest.raises(sg.CompileError, match=r"`K\[i\]\[:, 0\] = \.\.\.` writes through "
                                              r"`\[\[0, 1\]\]`"):
        sg.grad(fancy_rows_then_a_slice)(X.copy())
