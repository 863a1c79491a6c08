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
