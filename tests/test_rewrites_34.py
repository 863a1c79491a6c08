"""The builtin ``divmod``, ``np.block``, ``np.piecewise``, ``np.apply_along_axis``,
``np.fromiter``, ``np.ascontiguousarray``/``np.asfortranarray`` and ``math.prod``, written
out over functions with rules (``srcgrad/rules/builders.py``): they were refused ("no
derivative rule"; hunt 9: KKT systems built with np.block, piecewise models, per-row
norms, arrays built from generators). Each is checked in every form against central
differences, to second order, in two call styles, and its values against NumPy's.
"""
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import builders
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71])


def divmod_floats(x):
    q, r = divmod(x[0] * 3.0, 0.7)
    q2, r2 = divmod(x[1], x[2] - 1.0)
    return r ** 2 + q + r2 * x[0] + q2

def divmod_arrays(x):
    q, r = divmod(x * 3.0, np.array([0.7, 0.9, 1.1]))
    return np.sum(r ** 2 + q * x)

def np_divmod_pair(x):
    q, r = np.divmod(x * 2.5, x[0] + 1.0)
    return np.sum(r * x + q)

def block_2d(x):
    P = np.outer(x, x) + np.eye(3)
    a = np.reshape(x, (1, 3))
    K = np.block([[P, a.T], [a, np.zeros((1, 1))]])
    return np.sum(K ** 2 * np.arange(16.0).reshape(4, 4)) + np.linalg.det(K)

def block_1d_scalars(x):
    v = np.block([x, x[0] * 2.0, 3.0, x[1:] ** 2])
    return np.sum(v ** 3 * np.arange(7.0))

def block_mixed_ranks(x):
    M = np.outer(x[:2], x)
    K = np.block([[M], [x]])  # a 1-D leaf gains a leading axis
    return np.sum(np.sin(K) * np.arange(9.0).reshape(3, 3))

def block_3d(x):
    A = np.reshape(np.outer(x, x), (1, 3, 3))
    B = np.reshape(x, (1, 3, 1))
    K = np.block([[[A, B]], [[A * 2.0, B ** 2]]])
    return np.sum(K ** 2 * np.arange(24.0).reshape(2, 3, 4))

def piecewise_lambdas(x):
    y = np.piecewise(x, [x < 0, x >= 0], [lambda t: t ** 2, lambda t: np.exp(t)])
    return np.sum(y * np.arange(1.0, 4.0))

def _cube(t):
    return t ** 3

def _shifted(t, a, scale=1.0):
    return np.sin(t) * a * scale

def piecewise_defs_otherwise(x):
    # one function more than conditions: the last one where none holds
    y = np.piecewise(x * 2.0, [x < -0.5, x > 1.0], [_cube, np.cos, np.tanh])
    return np.sum(y ** 2)

def piecewise_single_condition(x):
    y = np.piecewise(x, x > 0.6, [lambda t: t * x[0], lambda t: t ** 2 - 1.0])
    return np.sum(y * np.arange(1.0, 4.0))

def piecewise_args_kw(x):
    y = np.piecewise(x, [x < 0, x >= 0], [lambda t: _shifted(t, x[1], scale=2.0),
                                          lambda t: t * x[1] * 2.0])
    return np.sum(y ** 2)

def piecewise_reducing_func(x):
    # the function sees only its elements: its mean is theirs (NumPy's own semantics)
    y = np.piecewise(x, [x > 0], [lambda t: t - np.mean(t), lambda t: t * 0.5])
    return np.sum(y ** 3 * np.arange(1.0, 4.0))

def apply_norm_rows(x):
    M = np.outer(x, x[:2]) + 1.0
    n = np.apply_along_axis(np.linalg.norm, 1, M)
    return np.sum(n ** 3)

def apply_lambda_vector_axis0(x):
    M = np.outer(x, np.arange(1.0, 5.0))
    y = np.apply_along_axis(lambda v: np.cumsum(v) * v[0], 0, M)
    return np.sum(np.sin(y) * np.arange(12.0).reshape(3, 4))

def _softmax(v, t):
    e = np.exp(v / t)
    return e / np.sum(e)

def apply_def_args_3d(x):
    T = np.reshape(np.outer(x, np.concatenate([x, x])), (3, 2, 3))
    y = np.apply_along_axis(lambda v: _softmax(v, 1.5), -1, T)
    return np.sum(y * np.arange(18.0).reshape(3, 2, 3))

def apply_keyword_axis(x):
    M = np.outer(x, x)
    y = np.apply_along_axis(func1d=lambda v: v @ v, axis=0, arr=M)
    return np.sum(y * x)

def fromiter_generator(x):
    a = np.fromiter((v ** 2 for v in x), dtype=float)
    return np.sum(a * x)

def fromiter_count_keyword(x):
    a = np.fromiter([x[0] * 2.0, np.sin(x[1]), x[2] ** 3, 7.0], dtype=np.float64,
                    count=3)
    return np.sum(a ** 2)

def contiguous(x):
    M = np.outer(x, x)
    e = np.ascontiguousarray(M[:, ::-1])
    s = np.ascontiguousarray(x[0] * 2.0)  # at least 1-d
    return np.sum(e[:, 0] * 2.0) + np.sum(e ** 2) + s[0] ** 2

def fortran(x):
    M = np.asfortranarray(np.outer(x, x[:2]))
    flat = np.reshape(M, -1, order="A")  # read in Fortran order, as NumPy does
    return np.sum(flat * np.arange(6.0)) + np.sum(np.asfortranarray(x[1]) ** 3)

def prod_floats(x):
    vals = [x[0], x[1], x[0] * x[2]]
    return math.prod(vals) + math.prod([x[1], x[2]], start=2.0) + math.prod(v for v in x)

def prod_arrays(x):
    return np.sum(math.prod([x, np.sin(x), x + 1.0]))


CASES = [divmod_floats, divmod_arrays, np_divmod_pair, block_2d, block_1d_scalars,
         block_mixed_ranks, block_3d, piecewise_lambdas, piecewise_defs_otherwise,
         piecewise_single_condition, piecewise_args_kw, piecewise_reducing_func,
         apply_norm_rows, apply_lambda_vector_axis0, apply_def_args_3d, apply_keyword_axis,
         fromiter_generator, fromiter_count_keyword, contiguous, fortran, prod_floats,
         prod_arrays]


# (Second order for one case of each way of building: the others, at first order, check
# the same inlined code; CI time.)
FIRST_ORDER = {block_1d_scalars, block_mixed_ranks, block_3d, apply_def_args_3d,
               apply_norm_rows, piecewise_args_kw}


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X.copy(), order=1 if f in FIRST_ORDER else 2, nonzero=True)


def test_values_are_numpys():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 3, 4)) * 3.0
    b = np.where(np.abs(b) < 0.3, 1.0, b)
    for got, want in zip(builders.divmod_builtin(a, b), np.divmod(a, b)):
        np.testing.assert_array_equal(got, want)
    assert builders.divmod_builtin(7.3, -2.1) == divmod(7.3, -2.1)
    A, B, c = rng.standard_normal((2, 2)), rng.standard_normal((2, 1)), 3.0
    for arrays in ([[A, B], [np.ones((1, 2)), np.zeros((1, 1))]], [A[0], c, B[:, 0]],
                   [[A], [A[1]]], [[[A, A]], [[A, A]]], [[A, c * np.ones((2, 1))]], 2.0):
        got, want = builders.block(arrays), np.block(arrays)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    x = rng.standard_normal(7)
    for conds, funcs in (([x < 0, x >= 0], [np.sin, lambda t: t ** 2]),
                         ([x < -1, x > 1], [np.sin, np.cos, lambda t: t - np.mean(t)]),
                         (x > 0, [np.exp]), ([x > 10], [np.exp, np.tanh])):
        np.testing.assert_array_equal(builders.piecewise(x, conds, funcs),
                                      np.piecewise(x, conds, funcs))
    M = rng.standard_normal((3, 4, 5))
    for axis, fn in ((0, np.sum), (1, np.cumsum), (-1, lambda v: np.outer(v, v)),
                     (2, lambda v: v[::-1])):
        got, want = builders.apply_along_axis(fn, axis, M), np.apply_along_axis(fn, axis, M)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-15)
    np.testing.assert_array_equal(builders.fromiter((v * 2 for v in x), float, 4),
                                  np.fromiter((v * 2 for v in x), float, 4))
    assert builders.fromiter(iter([]), float).shape == (0,)
    for fn, ref in ((builders.ascontiguousarray, np.ascontiguousarray),
                    (builders.asfortranarray, np.asfortranarray)):
        for a in (M[:, ::-1], 2.5, x):
            got, want = fn(a), ref(a)
            assert got.shape == want.shape and got.flags.c_contiguous == want.flags.c_contiguous
            assert (got is a) == (want is a)  # (the argument itself where NumPy gives it)
            np.testing.assert_array_equal(got, want)
    vals = [1.5, -2.0, 0.3]
    assert builders.prod(vals) == math.prod(vals)
    assert builders.prod(vals, start=4.0) == math.prod(vals, start=4.0)


def test_the_programs_that_were_refused():
    def kkt(Q, c):
        A = np.array([[1.0, 1.0, 1.0]])
        P = Q @ Q.T + np.eye(3)
        KKT = np.block([[P, A.T], [A, np.zeros((1, 1))]])
        sol = np.linalg.solve(KKT, np.concatenate([-c, np.array([1.0])]))
        x = sol[:3]
        return 0.5 * x @ P @ x + c @ x

    rng = np.random.default_rng(54)
    check_grads(kkt, (rng.standard_normal((3, 3)) * 0.5, np.array([0.1, -0.2, 0.3])),
                order=1)  # (np.block at second order: block_2d)


def test_refused_cases_are_refused_clearly():
    def int_dtype(x):
        return np.sum(np.fromiter((v * 2.0 for v in x), dtype=int))

    with pytest.raises(sg.CompileError, match="np.fromiter with dtype="):
        sg.grad(int_dtype)(X.copy())

    def block_tuple(x):
        return np.sum(np.block((x, x)))

    with pytest.raises(sg.CompileError, match="np.block of a tuple"):
        sg.grad(block_tuple)(X.copy())

    def block_too_deep(x):
        return np.sum(np.block([[[[x]]]]))

    with pytest.raises(sg.CompileError, match="np.block"):
        sg.grad(block_too_deep)(X.copy())

    def block_mismatched(x):
        return np.sum(np.block([[x], x]))

    with pytest.raises(ValueError, match="List depths are mismatched"):
        sg.grad(block_mismatched)(X.copy())

    def piecewise_wrong_count(x):
        return np.sum(np.piecewise(x, [x < 0], [np.sin, np.cos, np.tan]))

    with pytest.raises(ValueError, match="either 1 or 2 functions"):
        sg.grad(piecewise_wrong_count)(X.copy())

    def piecewise_constant(x):
        return np.sum(np.piecewise(x, [x < 0, x >= 0], [0.0, lambda t: t ** 2]))

    # (a constant among functions: not a display of functions known when compiling)
    with pytest.raises(sg.CompileError, match="which function `func` is"):
        sg.grad(piecewise_constant)(X.copy())

    def piecewise_args(x):
        return np.sum(np.piecewise(x, [x < 0], [np.sin, np.cos], 2.0))

    with pytest.raises(sg.CompileError, match="np.piecewise with arguments"):
        sg.grad(piecewise_args)(X.copy())

    def apply_args(x):
        return np.sum(np.apply_along_axis(np.sum, 0, np.outer(x, x), 1.5))

    with pytest.raises(sg.CompileError, match="np.apply_along_axis with arguments"):
        sg.grad(apply_args)(X.copy())

    def contiguous_like(x):
        return np.sum(np.ascontiguousarray(x, like=x))

    with pytest.raises(sg.CompileError, match="like="):
        sg.grad(contiguous_like)(X.copy())


def test_contiguous_result_written_into_reaches_the_argument_as_numpys():
    # (NumPy returns the argument itself when it is in that order already: a write into
    # the result is one into the argument, which the value then reads.)
    def written_back(x):
        v = x * 2.0
        a = np.ascontiguousarray(v)
        a[0] = x[1] ** 2
        return np.sum(v * np.array([1.0, 2.0, 3.0]))

    # (Written as a copy, the rewrite gave a silent wrong value here; as NumPy's, the write
    # into `v` through two inlined views is refused, not guessed.)
    with pytest.raises(sg.CompileError, match=r"`a\[0\] = \.\.\.`, writing into `v\[\.\.\.\]`"):
        sg.value_and_grad(written_back)(X.copy())
