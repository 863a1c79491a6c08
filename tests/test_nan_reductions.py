"""NumPy's NaN-ignoring reductions and cumulations (``srcgrad/rules/nan_reductions.py``):
``np.nanmax``, ``np.nanmin``, ``np.nanprod``, ``np.nanvar``, ``np.nanstd``,
``np.nancumsum``, ``np.nancumprod``, NumPy 2.1's ``np.cumulative_sum`` and
``np.cumulative_prod``, ``np.nanargmax``/``np.nanargmin`` (no gradient); ``np.var``/``np.std``
with ``where=`` and ``np.max``/``np.sum``/``np.prod`` with ``initial`` given by position.
They were refused ("no derivative rule", "keyword argument `where` of `std` is not
supported", "too many arguments to `max`"; issue 13). Each is checked in every form
against central differences, to second order, with NaNs among the elements (added to the
differentiated values: their gradient must be 0, not NaN), and its value against NumPy's.
"""
import warnings

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71, 0.94, -1.38, 0.22])
# NaNs added to the differentiated values: x + NANS is NaN there, of gradient 0.
NANS = np.array([0.0, np.nan, 0.0, 0.0, np.nan, 0.0])
ROW_NANS = np.array([[0.0, np.nan, 0.0], [0.0, 0.0, np.nan]])
WEIGHTS = np.arange(1.0, 7.0)


def m_of(x):
    return np.reshape(x, (2, 3)) + ROW_NANS


def nanmax_all(x):
    return np.nanmax(x + NANS) * 2.0 + np.nanmin(x * x + NANS)

def nanmax_axis(x):
    return np.sum(np.nanmax(m_of(x), axis=1) ** 2) + np.sum(np.nanmin(m_of(x), axis=0) * WEIGHTS[:3])

def nanmax_keepdims(x):
    return np.sum(np.nanmax(m_of(x) * 3.0, axis=0, keepdims=True) * np.nan_to_num(m_of(x))) \
        + np.sum(np.nanmin(np.sin(m_of(x)), axis=-1, keepdims=True) ** 3)

def nanprod_all(x):
    return np.nanprod(x + NANS) + np.sum(np.nanprod(m_of(x), axis=0) * WEIGHTS[:3])

def nanprod_options(x):
    return np.sum(np.nanprod(m_of(x), axis=1, keepdims=True) ** 2) \
        + np.nanprod(m_of(x), initial=2.0) + np.nanprod(x[:3] + NANS[:3], 0, None, None, False, 0.5)

def nanvar_all(x):
    return np.nanvar(x + NANS) + np.nanvar(x * x + NANS, ddof=1) * 2.0

def nanvar_axis(x):
    return np.sum(np.nanvar(m_of(x), axis=1) * WEIGHTS[:2]) \
        + np.sum(np.nanvar(m_of(x), axis=1, keepdims=True, correction=1) ** 2) \
        + np.sum(np.nanvar(m_of(x), axis=0, keepdims=True) * WEIGHTS[3:])

def nanstd_all(x):
    return np.nanstd(x + NANS) + np.sum(np.nanstd(m_of(x), axis=1, ddof=1) * WEIGHTS[:2])

def nanstd_where(x):
    keep = np.array([[True, True, False], [True, True, True]])
    return np.sum(np.nanstd(m_of(x), axis=1, where=keep) ** 3) + np.nanvar(m_of(x), where=keep)

def nancumsum_all(x):
    return np.sum(np.nancumsum(x + NANS) ** 2 * WEIGHTS) \
        + np.sum(np.nancumsum(m_of(x), axis=1) * np.sin(WEIGHTS).reshape(2, 3))

def nancumprod_all(x):
    return np.sum(np.nancumprod(x + NANS) * WEIGHTS) \
        + np.sum(np.nancumprod(m_of(x), axis=0) ** 2)

def cumulative_sum_forms(x):
    m = np.reshape(x, (2, 3))
    return np.sum(np.cumulative_sum(x) ** 2 * WEIGHTS) \
        + np.sum(np.cumulative_sum(m, axis=1, include_initial=True) * np.arange(8.0).reshape(2, 4)) \
        + np.sum(np.cumulative_sum(m, axis=0) ** 2) \
        + np.sum(np.cumulative_sum(x[1] * 2.0, include_initial=True) ** 2)

def cumulative_prod_forms(x):
    m = np.reshape(x, (2, 3))
    return np.sum(np.cumulative_prod(x) * WEIGHTS) \
        + np.sum(np.cumulative_prod(m, axis=0, include_initial=True) * np.arange(9.0).reshape(3, 3)) \
        + np.sum(np.cumulative_prod(m, axis=-1) ** 2)

def nanargmax_index(x):
    y = x + NANS
    return y[np.nanargmax(y)] * 3.0 + y[np.nanargmin(y)] ** 2

def var_std_where(x):
    m = np.reshape(x, (2, 3))
    keep = np.array([[True, False, True], [True, True, True]])
    return np.var(m, where=keep) + np.sum(np.std(m, axis=1, where=keep, ddof=1) * WEIGHTS[:2]) \
        + np.sum(m.var(axis=0, where=keep[::-1], keepdims=True)) + m.std(where=keep)

def initial_by_position(x):
    m = np.reshape(x, (2, 3))
    return np.sum(np.max(m, 1, None, False, 0.6)) + np.sum(np.min(m, 0, None, True, -0.5)) \
        + np.sum(np.sum(m, 1, None, None, False, 2.0) ** 2) + np.prod(m, None, None, None, False, 0.5) \
        + np.sum(m.max(1, None, False, 1.0))


CASES = [nanmax_all, nanmax_axis, nanmax_keepdims, nanprod_all, nanprod_options, nanvar_all,
         nanvar_axis, nanstd_all, nanstd_where, nancumsum_all, nancumprod_all, nanargmax_index,
         var_std_where, initial_by_position]
if hasattr(np, "cumulative_sum"):  # (NumPy 2.1)
    CASES += [cumulative_sum_forms, cumulative_prod_forms]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


def test_nan_elements_get_zero():
    """The NaN elements' gradient is 0 (their own value carries none), and the others'
    is the reduction of the elements kept."""
    x = np.array([1.0, np.nan, 3.0, -2.0])
    np.testing.assert_array_equal(sg.grad(lambda v: np.nanmax(v))(x), [0.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(sg.grad(lambda v: np.nanmin(v))(x), [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(sg.grad(lambda v: np.nanprod(v))(x), [-6.0, 0.0, -2.0, 3.0])
    np.testing.assert_allclose(sg.grad(lambda v: np.nanvar(v))(x),
                               2.0 * (np.array([1.0, 0.0, 3.0, -2.0]) - [2 / 3, 0, 2 / 3, 2 / 3])
                               * [1, 0, 1, 1] / 3.0)
    np.testing.assert_array_equal(sg.grad(lambda v: np.sum(np.nancumsum(v)))(x),
                                  [4.0, 0.0, 2.0, 1.0])


def test_a_slice_of_nans_only_is_nan_of_gradient_zero():
    """NumPy gives NaN with its warning for a slice of NaNs only: a constant, of gradient
    0 (the other slices keep theirs); ties share the gradient as np.max's do."""
    m = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 1.0]])

    def f(a):
        return np.sum(np.nan_to_num(np.nanmax(a, axis=1)) * np.array([5.0, 2.0]))

    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        g = sg.grad(f)(m.copy())
    np.testing.assert_array_equal(g, [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        value, g = sg.value_and_grad(lambda a: np.nanmin(a, axis=1)[1] * 2.0)(m.copy())
    assert value == 2.0
    np.testing.assert_array_equal(g, [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0]])

    def var(a):
        return np.sum(np.nan_to_num(np.nanvar(a, axis=1)) + np.nan_to_num(np.nanstd(a, axis=1)))

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        g = sg.grad(var)(np.array([[np.nan, np.nan], [1.0, 3.0]]))
    assert any("Degrees of freedom <= 0" in str(w.message) for w in seen)
    np.testing.assert_allclose(g, [[0.0, 0.0], [-1.5, 1.5]])


def test_nan_reductions_at_exact_points():
    # One element (nanstd 0: slope 0, as np.std's), ties, zeros of nanprod.
    np.testing.assert_array_equal(
        sg.grad(lambda v: np.nanstd(v))(np.array([np.nan, 2.0])), [0.0, 0.0])
    np.testing.assert_array_equal(
        sg.grad(lambda v: np.nanmax(v))(np.array([2.0, np.nan, 2.0])), [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(
        sg.grad(lambda v: np.nanprod(v))(np.array([0.0, np.nan, 3.0])), [3.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        sg.hessian(lambda v: np.nanprod(v))(np.array([0.0, np.nan, 3.0])),
        [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def test_values_are_numpys():
    from srcgrad.rules import nan_reductions as nr

    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5))
    a[rng.random((4, 5)) < 0.3] = np.nan
    keep = rng.random((4, 5)) < 0.8
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            np.testing.assert_allclose(nr.nanprod(a, axis, keepdims=keepdims),
                                       np.nanprod(a, axis, keepdims=keepdims), rtol=1e-14)
            for ddof in (0, 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    for fn, mine in ((np.nanvar, nr.nanvar), (np.nanstd, nr.nanstd)):
                        np.testing.assert_allclose(
                            mine(a, axis, ddof=ddof, keepdims=keepdims),
                            fn(a, axis, ddof=ddof, keepdims=keepdims), rtol=1e-13)
                        np.testing.assert_allclose(
                            mine(a, axis, ddof=ddof, keepdims=keepdims, where=keep),
                            fn(a, axis, ddof=ddof, keepdims=keepdims, where=keep), rtol=1e-13)
                    b = np.where(np.isnan(a), 0.5, a)
                    for fn, mine in ((np.var, nr.var_where), (np.std, nr.std_where)):
                        np.testing.assert_allclose(
                            mine(b, axis, ddof=ddof, keepdims=keepdims, where=keep),
                            fn(b, axis, ddof=ddof, keepdims=keepdims, where=keep), rtol=1e-13)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(nr.nancumsum(a, axis), np.nancumsum(a, axis))
        np.testing.assert_array_equal(nr.nancumprod(a, axis), np.nancumprod(a, axis))
    np.testing.assert_allclose(nr.nanprod(a[0], initial=3.0, where=keep[0]),
                               np.nanprod(a[0], initial=3.0, where=keep[0]), rtol=1e-14)
    if hasattr(np, "cumulative_sum"):
        b = np.nan_to_num(a)
        for axis in (0, 1, -1):
            for initial in (False, True):
                np.testing.assert_array_equal(
                    nr.cumulative_sum(b, axis=axis, include_initial=initial),
                    np.cumulative_sum(b, axis=axis, include_initial=initial))
                np.testing.assert_array_equal(
                    nr.cumulative_prod(b, axis=axis, include_initial=initial),
                    np.cumulative_prod(b, axis=axis, include_initial=initial))
        with pytest.raises(ValueError, match="axis"):
            nr.cumulative_sum(b)
        np.testing.assert_array_equal(nr.cumulative_sum(b[0]), np.cumulative_sum(b[0]))
        for scalar in (np.float64(2.5), np.array(-1.5)):
            for initial in (False, True):
                np.testing.assert_array_equal(
                    nr.cumulative_prod(scalar, include_initial=initial),
                    np.cumulative_prod(scalar, include_initial=initial))
                np.testing.assert_array_equal(nr.cumulative_sum(scalar, axis=0),
                                              np.cumulative_sum(scalar, axis=0))


def test_compiled_values_are_numpys():
    m = np.array([[1.5, np.nan, -0.5], [2.0, 0.25, np.nan]])
    for f in (lambda a: np.nanmax(a, axis=1), lambda a: np.nanmin(a, axis=0, keepdims=True),
              lambda a: np.nanprod(a, axis=1), lambda a: np.nanvar(a, axis=1, ddof=1),
              lambda a: np.nanstd(a), lambda a: np.nancumsum(a, axis=1),
              lambda a: np.nancumprod(a)):
        value, _ = sg.value_and_grad(lambda a: np.sum(f(a) * 1.5))(m.copy())
        assert value == pytest.approx(np.sum(f(m) * 1.5), rel=1e-14)


def nanmax_initial(x):
    return np.nanmax(x, initial=0.0)

def nanmin_where(x):
    return np.nanmin(x, where=x > 0, initial=3.0)

def nanvar_mean(x):
    return np.nanvar(x, mean=np.mean(x, keepdims=True))

def nanvar_dtype(x):
    return np.nanvar(x, dtype=np.float32)

def nancumsum_out(x):
    return np.sum(np.nancumsum(x, out=np.zeros(6)))

def var_where_out(x):
    return np.var(x, where=x > 0, out=np.zeros(()))

def nanvar_complex(x):
    return np.nanvar(x * 1j)

def cumulative_dtype(x):
    return np.sum(np.cumulative_sum(x, dtype=np.float32))


REFUSED = [(nanmax_initial, sg.CompileError, "initial"),
           (nanmin_where, sg.CompileError, "where"),
           (nanvar_mean, sg.CompileError, "np.nanvar or np.nanstd with dtype=, out= or mean="),
           (nanvar_dtype, sg.CompileError, "np.nanvar or np.nanstd with dtype="),
           (nancumsum_out, sg.CompileError, "out="),
           (var_where_out, sg.CompileError, "out="),
           (nanvar_complex, Exception, "complex")]
if hasattr(np, "cumulative_sum"):
    REFUSED.append((cumulative_dtype, sg.CompileError, "np.cumulative_sum with dtype="))


@pytest.mark.parametrize("f, error, message", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_options_not_modelled_are_refused(f, error, message):
    with pytest.raises(error, match=message):
        sg.grad(f)(X.copy())
