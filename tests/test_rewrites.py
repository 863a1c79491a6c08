"""NumPy and SciPy functions written out as compositions of functions with rules
(``srcgrad/rules/rewrites.py``): ``np.ptp``, ``np.nansum``, ``np.nanmean``,
``np.average`` (weights too), ``np.copysign``, ``scipy.special.entr`` (``betaln`` has
a rule), NumPy 2's ``linalg.vector_norm``, ``matrix_norm``, ``vecdot``, ``np.vecdot``,
``np.matvec`` and ``np.vecmat``; and ``np.sum``/``prod``/``mean``/``max``/``min`` (and
the methods) called with ``where=`` or ``initial=``, which their rules do not take.
They were refused ("no derivative rule"); inlined as user code, every form follows:
the value is the library's, the gradient agrees with finite differences to second
order, with a tape's and with forward mode's.
"""
import numpy as np
import pytest
import scipy.special as sp

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees, taped_two

X = np.array([0.3, -1.2, 0.8])
W = np.array([0.5, 1.5, 0.7])
M = np.array([[0.3, -1.2, 0.8], [1.0, 2.0, -0.5]])


def reductions(x, w):
    return np.ptp(x) + np.nansum(x * w) + np.nanmean(x ** 2) + np.average(x, weights=w) \
        + np.average(x * 2.0)


def along_axes(m, w):
    return np.sum(np.average(m, axis=1, weights=w)) + np.sum(np.ptp(m, axis=0)) \
        + np.sum(np.nanmean(m, axis=1, keepdims=True)) + np.sum(np.nansum(m * m, axis=0))


def signs_and_special(x, w):
    return np.sum(np.copysign(x, -w) * w) + np.sum(sp.entr(w)) + np.sum(sp.betaln(w, w + 1.0))


def average_returned(x, w):
    mean, total = np.average(x * x, weights=w, returned=True)
    return mean * total


def array_api_products(x, m):
    # NumPy 2's array-API spellings (hunt 5: refused, "no derivative rule").
    return np.linalg.vector_norm(x) + np.sum(np.linalg.vector_norm(m, axis=1)) \
        + np.linalg.vector_norm(m, ord=1) + np.linalg.matrix_norm(m) \
        + np.sum(np.linalg.vecdot(m, m)) + np.sum(np.vecdot(m, x)) \
        + np.sum(np.matvec(m, x) ** 2) + np.sum(np.vecmat(x[:2], m) ** 2) \
        + np.sum(np.linalg.vector_norm(m, keepdims=True))


MASK = np.array([[True, False, True], [False, True, True]])


def reductions_with_where_and_initial(m, w):
    # (Refused before: "keyword argument `where` of `sum` is not supported"; hunt 5.)
    return np.sum(m, where=MASK) + np.sum(m * w, axis=1, where=MASK, initial=0.5).sum() \
        + np.mean(m, where=MASK) + np.max(m, initial=-1.0, where=MASK) \
        + np.min(m, axis=0, initial=5.0).sum() + np.prod(m, where=MASK, initial=2.0) \
        + m.sum(where=MASK) + m.max(axis=1, initial=0.0).sum()


CASES = [(reductions, (X, W)), (along_axes, (M, W)), (signs_and_special, (X, W)),
         (average_returned, (X, W)), (reductions_with_where_and_initial, (M, W))]
if hasattr(np, "matvec"):  # (NumPy 2.2)
    CASES.append((array_api_products, (X, M)))


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_every_form(f, args):
    check_grads(f, args, order=2)
    value, grads = sg.value_and_grad(f, wrt=(0, 1))(*args)
    assert value == pytest.approx(f(*args), rel=1e-13)
    for got, want in zip(taped_two(f, *[a.copy() for a in args]), grads):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    if f is array_api_products:
        # (They conjugate, as NumPy does for complex values: forward mode takes such
        # code through sg.jvp's transposed reverse pass.)
        dirs = [np.cos(np.arange(np.size(a)) + 1.0).reshape(np.shape(a)) for a in args]
        _, tangent = sg.jvp(f, args, tuple(dirs))
        assert tangent == pytest.approx(sum(np.sum(g * d) for g, d in zip(grads, dirs)),
                                        rel=1e-10)
    else:
        assert_forward_mode_agrees(f, args)


def test_a_masked_maximum_needs_its_start_value():
    def f(m):
        return np.max(m, where=MASK)  # NumPy too refuses a mask without initial=

    with pytest.raises(sg.CompileError, match="where= without initial="):
        sg.grad(f)(M)


def test_nan_entries_carry_no_gradient():
    def f(x):
        return np.nansum(x * 2.0) + np.nanmean(x)

    x = np.array([1.0, np.nan, 3.0])
    np.testing.assert_allclose(sg.grad(f)(x), [2.5, 0.0, 2.5])


def test_an_argument_not_modelled_is_refused():
    def f(x, buf):
        return np.nansum(x, out=buf)

    with pytest.raises(sg.CompileError, match="out="):
        sg.grad(f)(X.copy(), np.zeros(()))

    def g(x):
        return np.nansum(x, dtype=np.float32)

    with pytest.raises(sg.CompileError, match="nansum with dtype="):
        sg.grad(g)(X.copy())
