"""Arguments and forms that were refused (hunt 5, hunt 6): NumPy 2's ``mean=`` and
``correction=`` of ``np.var``/``np.std`` (rewrites.py), the spectral norms
``np.linalg.norm(A, 2)`` and ``(A, -2)`` of matrices (through the SVD, as ``'nuc'``),
``dtype=`` of a ufunc (a floating or complex one: its operands cast to it), and
``x.item(i)`` / ``x.item(i, j)``. Each in every form, against central differences,
to second order and in forward mode.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71])


def var_correction(x):
    return np.var(x, correction=1) + np.std(x * 2.0, correction=1)


def std_mean(x):
    m = np.mean(x)
    return np.std(x, mean=m) * np.var(x, mean=m)


def norm2(x):
    A = np.outer(x, x) + np.diag(x)
    return np.linalg.norm(A, 2)


def norm_minus2(x):
    A = np.outer(x, x[::-1]) + np.diag(x) + np.eye(3) * 2.0
    return np.linalg.norm(A, -2) * x[0]


def norm2_batch(x):
    A = np.stack([np.outer(x, x) + np.diag(x), np.diag(x ** 2) + 1.0])
    return np.sum(np.linalg.norm(A, 2, axis=(1, 2)))


def norm2_vector(x):
    return np.linalg.norm(x, 2) + np.linalg.norm(np.outer(x, x)[0], -2)


def sin_dtype(x):
    return np.sum(np.sin(x, dtype=np.float64) * np.exp(x, dtype=float))


def ufunc_dtypes(x):
    return np.sum(np.add(x, x * x, dtype="float64") * np.multiply(x, 2.0, dtype=np.float64))


def item_i(x):
    return x.item(1) * x.item(2) + np.outer(x, x).item(4)


def item_tuple(x):
    M = np.outer(x, x)
    return M.item((1, 2)) * M.item(2, 0) + M.item(-1) + x[:1].item()


def var_methods(x):
    M = np.outer(x, x) + np.diag(x)
    return np.sum(np.var(M, axis=0, correction=1)) + np.std(M, mean=M.mean(axis=1, keepdims=True), axis=1).sum()


CASES = [var_correction, std_mean, norm2, norm_minus2, norm2_batch, norm2_vector, sin_dtype, ufunc_dtypes, item_i, item_tuple, var_methods]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


def test_spectral_norm_gradient_is_the_top_singular_pair():
    A = np.array([[2.0, 1.0, 0.5], [0.3, -1.0, 2.2]])
    U, s, Vh = np.linalg.svd(A)
    np.testing.assert_allclose(sg.grad(lambda a: np.linalg.norm(a, 2))(A),
                               np.outer(U[:, 0], Vh[0]), atol=1e-12)
    np.testing.assert_allclose(sg.grad(lambda a: np.linalg.norm(a, -2))(A),
                               np.outer(U[:, 1], Vh[1]), atol=1e-12)


def sine_as_int(x):
    return np.sum(np.sin(x, dtype=int))


def var_of_complex_with_mean(z):
    return np.var(z, mean=np.mean(z, keepdims=True))


def test_what_is_not_modelled_is_refused():
    with pytest.raises(sg.CompileError, match="keyword argument `dtype` of `sin`"):
        sg.grad(sine_as_int)(X.copy())
    with pytest.raises(sg.CompileError, match="complex values with mean="):
        sg.grad(var_of_complex_with_mean)(X + 1j * X[::-1])


def items_read(x):
    return np.array([x.item(1) * x.item(2), x.item(0) ** 2])


def test_jacobian_rows_of_item():
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = items_read(X)
    np.testing.assert_allclose(tape.jacobian(y, X),
                               [[0.0, X[2], X[1]], [2 * X[0], 0.0, 0.0]], rtol=1e-12)
