"""Every corpus function (``tests/corpus``) through srcgrad.

``corpus_func`` is parametrized by ``tests/conftest.py``. Gradients are taken
with respect to every float-valued argument (``float_argnums``); ints, int
arrays, lists and user objects are passed along undifferentiated.
"""
import collections
import copy
import inspect

import numpy as np
import pytest

from corpus import CONSTRUCTS, FUNCTIONS, float_argnums, is_float_arg, make_args

MIN_FUNCTIONS = 130
MIN_PER_CONSTRUCT = 2


def _wrt(args):
    """``wrt`` for ``srcgrad.grad``: a single index, or a tuple of several."""
    nums = float_argnums(args)
    return nums[0] if len(nums) == 1 else nums


def _as_tuple(grads, wrt):
    return grads if isinstance(wrt, tuple) else (grads,)


def _assert_unchanged(value, before, where="argument"):
    """``value`` equals the deep copy ``before``: arrays, lists and user objects alike."""
    if isinstance(before, np.ndarray):
        assert isinstance(value, np.ndarray), where
        assert value.dtype == before.dtype and value.shape == before.shape, where
        assert np.array_equal(value, before), f"{where} was modified in place"
    elif isinstance(before, (list, tuple)):
        assert len(value) == len(before), f"{where} changed length"
        for i, (item, old) in enumerate(zip(value, before)):
            _assert_unchanged(item, old, f"{where}[{i}]")
    elif hasattr(before, "__dict__"):
        assert vars(value).keys() == vars(before).keys(), f"{where} gained or lost attributes"
        for name, old in vars(before).items():
            _assert_unchanged(getattr(value, name), old, f"{where}.{name}")
    else:
        assert value == before, f"{where} changed: {before!r} -> {value!r}"


def _assert_args_unchanged(args, before):
    for i, (value, old) in enumerate(zip(args, before)):
        _assert_unchanged(value, old, f"argument {i}")


def _with_arg(args, i, value):
    return args[:i] + [value] + args[i + 1:]


def _numeric_gradient(f, args, i, eps=1e-6):
    """Central-difference gradient of ``f`` with respect to argument ``i`` (float64)."""
    x = args[i]
    if not isinstance(x, np.ndarray):
        return (f(*_with_arg(args, i, x + eps)) - f(*_with_arg(args, i, x - eps))) / (2 * eps)
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        up, down = x.astype(np.float64), x.astype(np.float64)
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (f(*_with_arg(args, i, up)) - f(*_with_arg(args, i, down))) / (2 * eps)
    return grad


def _directional_derivative(f, args, direction, h):
    """Central difference of ``f`` along ``direction`` (one entry per float argument)."""
    def shifted(sign):
        out = list(args)
        for i, d in direction.items():
            out[i] = args[i] + sign * h * d
        return out
    return (f(*shifted(1.0)) - f(*shifted(-1.0))) / (2 * h)


def _second_directional_derivative(f, args, direction, h):
    def shifted(sign):
        out = list(args)
        for i, d in direction.items():
            out[i] = args[i] + sign * h * d
        return out
    return (f(*shifted(1.0)) - 2.0 * f(*args) + f(*shifted(-1.0))) / (h * h)


def _to_float32(args):
    return [np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) and is_float_arg(a)
            else a for a in args]


# ---------------------------------------------------------------------------
# The corpus itself (these run without the compiler)
# ---------------------------------------------------------------------------


def test_forward_runs(corpus_func):
    args = make_args(corpus_func)
    before = copy.deepcopy(args)
    out = corpus_func(*args)
    assert np.ndim(out) == 0, f"{corpus_func.__name__} returned shape {np.shape(out)}, not a scalar"
    assert isinstance(out, (float, np.floating, np.ndarray)), type(out)
    assert np.issubdtype(np.asarray(out).dtype, np.floating), np.asarray(out).dtype
    assert np.isfinite(out)
    _assert_args_unchanged(args, before)


def test_every_construct_covered():
    counts = collections.Counter(c for func in FUNCTIONS for c in func.constructs)
    assert len(CONSTRUCTS) == len(set(CONSTRUCTS)), "CONSTRUCTS lists a name twice"
    unknown = {f.__name__: sorted(f.constructs - set(CONSTRUCTS)) for f in FUNCTIONS
               if f.constructs - set(CONSTRUCTS)}
    assert not unknown, f"constructs missing from CONSTRUCTS (typo?): {unknown}"
    thin = {c: counts[c] for c in CONSTRUCTS if counts[c] < MIN_PER_CONSTRUCT}
    assert not thin, f"constructs covered by fewer than {MIN_PER_CONSTRUCT} functions: {thin}"


def test_corpus_well_formed():
    names = [f.__name__ for f in FUNCTIONS]
    assert len(names) >= MIN_FUNCTIONS, len(names)
    assert len(names) == len(set(names)), "two corpus functions share a name"
    for func in FUNCTIONS:
        assert getattr(func, "constructs", None), f"{func.__name__} has no @covers(...)"
        assert float_argnums(make_args(func)), f"{func.__name__} has no float argument"
        reason = getattr(func, "no_second_order", None)
        assert reason is None or (isinstance(reason, str) and reason.strip()), func.__name__
    excluded = [f.__name__ for f in FUNCTIONS if getattr(f, "no_second_order", None)]
    assert len(excluded) <= 5, f"too many second-order exclusions: {excluded}"


def test_make_args_deterministic():
    def flat(args):
        return np.concatenate([np.ravel(a) for a in args if is_float_arg(a)])

    for func in FUNCTIONS:
        assert np.array_equal(flat(make_args(func, seed=0)), flat(make_args(func, seed=0)))
        assert not np.array_equal(flat(make_args(func, seed=0)), flat(make_args(func, seed=1)))


def test_smooth_at_generated_inputs(corpus_func):
    """No kink or jump within finite-difference reach of the generated inputs.

    Central differences along a random direction at two step sizes agree only
    if the function is smooth around the point; otherwise a gradient mismatch
    in the tests below would say nothing about the compiler. The same holds
    for second differences, unless the function is excluded from second order.
    """
    args = make_args(corpus_func)
    rng = np.random.default_rng(1)
    direction = {i: (rng.standard_normal(np.shape(args[i])) if isinstance(args[i], np.ndarray)
                     else float(rng.standard_normal()))
                 for i in float_argnums(args)}
    coarse = _directional_derivative(corpus_func, args, direction, 1e-4)
    fine = _directional_derivative(corpus_func, args, direction, 1e-6)
    np.testing.assert_allclose(fine, coarse, rtol=1e-5, atol=1e-7)
    if not getattr(corpus_func, "no_second_order", None):
        coarse = _second_directional_derivative(corpus_func, args, direction, 1e-3)
        fine = _second_directional_derivative(corpus_func, args, direction, 1e-4)
        np.testing.assert_allclose(fine, coarse, rtol=1e-3, atol=1e-4)


@pytest.mark.corpus_select("float32_safe")
def test_float32_forward_stays_float32(corpus_func):
    out = corpus_func(*_to_float32(make_args(corpus_func)))
    assert np.asarray(out).dtype == np.float32, np.asarray(out).dtype


# ---------------------------------------------------------------------------
# Through the compiler
# ---------------------------------------------------------------------------


def test_gradient(corpus_func):
    from srcgrad.testing import check_grads

    args = make_args(corpus_func)
    check_grads(corpus_func, args, order=1, wrt=_wrt(args))


@pytest.mark.corpus_exclude("no_second_order")
def test_second_order(corpus_func, check_second_order):
    # check_grads(order=2)'s checks, each gradient's gradient compiled once for all the
    # float arguments (not once per pair of them): tests/conftest.py.
    args = make_args(corpus_func)
    check_second_order(corpus_func, args, wrt=_wrt(args))


@pytest.mark.corpus_select("float32_safe")
def test_matches_numeric_gradient_float32(corpus_func):
    import srcgrad

    args64 = make_args(corpus_func)
    args32 = _to_float32(args64)
    wrt = _wrt(args32)
    grads = _as_tuple(srcgrad.grad(corpus_func, wrt=wrt)(*args32), wrt)
    for i, g in zip(float_argnums(args32), grads):
        if isinstance(args32[i], np.ndarray):
            assert isinstance(g, np.ndarray), (i, type(g))
            assert g.dtype == np.float32, (i, g.dtype)
        assert np.shape(g) == np.shape(args32[i]), (i, np.shape(g))
        expected = _numeric_gradient(corpus_func, args64, i)
        np.testing.assert_allclose(g, expected, rtol=2e-3, atol=2e-3, err_msg=f"argument {i}")


def test_no_mutation(corpus_func):
    import srcgrad

    args = make_args(corpus_func)
    before = copy.deepcopy(args)
    srcgrad.grad(corpus_func, wrt=_wrt(args))(*args)
    _assert_args_unchanged(args, before)


def test_corpus_parameters_known():
    """Every parameter without a default follows the naming convention (make_args knows it)."""
    for func in FUNCTIONS:
        params = inspect.signature(func).parameters.values()
        assert len(make_args(func)) == sum(p.default is inspect.Parameter.empty for p in params)
