"""Broadcasting and reductions, property-based: gradients against finite differences.

Shapes come from hypothesis (0 to 3 dims, sides 1 to 3, so size-1 axes are
frequent); values come from a NumPy generator seeded by hypothesis and kept
away from ties and singularities, so that central differences are exact
enough. The differentiated functions are built once at module level (one per
op), so each is compiled once per kind of arguments and reused by every
example.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from srcgrad import grad
from srcgrad.testing import check_grads

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
SETTINGS_ORDER2 = settings(max_examples=6, deadline=None, derandomize=True)


# ---- the ops (module level: their source is read and inlined) --------------------

def op_add(a, b):
    return a + b


def op_sub(a, b):
    return a - b


def op_mul(a, b):
    return a * b


def op_div(a, b):
    return a / b


def op_maximum(a, b):
    return np.maximum(a, b)


def op_where(a, b):
    return np.where(a > b, a * 2.0, b)


def op_arctan2(a, b):
    return np.arctan2(a, b)


def op_pow(a, b):
    return a ** b


def _make_binary(op):
    def f(a, b):
        return np.sum(np.sin(op(a, b)))

    f.__qualname__ = f"binary_{op.__name__}"
    return f


BINARY_OPS = [op_add, op_sub, op_mul, op_div, op_maximum, op_where, op_arctan2, op_pow]
BINARY = {op.__name__: _make_binary(op) for op in BINARY_OPS}


def _make_reduction(red):
    def f(x, axis, keepdims):
        return np.sum(np.sin(red(x, axis=axis, keepdims=keepdims)))

    f.__qualname__ = f"reduce_{red.__name__}"
    return f


REDUCTIONS = {red.__name__: _make_reduction(red) for red in (np.sum, np.mean, np.max, np.prod)}


def _keepdims_method_sum(x, axis, keepdims):
    return np.sum(np.cos(x.sum(axis=axis, keepdims=keepdims)))


def _reduce_then_broadcast_back(x, axis):
    m = np.mean(x, axis=axis, keepdims=True)
    return np.sum((x - m) ** 2 * x)


# ---- strategies --------------------------------------------------------------------

def _values(rng, shape, op_name, which):
    """Values for operand ``which`` (0 = a, 1 = b) with no ties or singularities."""
    r = rng.standard_normal(shape)
    if op_name == "op_div" and which == 1:
        r = np.sign(r + 1e-300) * (0.5 + np.abs(r))  # |b| >= 0.5
    elif op_name == "op_pow" and which == 0:
        r = 0.5 + np.abs(r)  # positive base
    elif op_name == "op_pow" and which == 1:
        r = np.clip(r, -2.0, 2.0)
    elif op_name == "op_arctan2":
        r = np.sign(r + 1e-300) * (0.3 + np.abs(r))
    elif op_name in ("op_maximum", "op_where") and which == 1:
        r = r + 0.01 * rng.uniform(0.5, 1.0, shape)  # never exactly equal to a
    return r


def _as_kind(value, python_float):
    """Shape () can also be passed as a Python float."""
    if np.shape(value) == () and python_float:
        return float(value)
    return np.asarray(value, dtype=np.float64)


@st.composite
def binary_cases(draw, op_name):
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                min_side=1, max_side=3))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    python_float = draw(st.booleans())
    rng = np.random.default_rng(seed)
    a, b = (_as_kind(_values(rng, shape, op_name, i), python_float)
            for i, shape in enumerate(shapes.input_shapes))
    return op_name, a, b


def _axes(draw, ndim):
    choice = draw(st.sampled_from(["none", "int", "neg", "tuple"]))
    if ndim == 0 or choice == "none":
        return None
    if choice == "int":
        return draw(st.integers(0, ndim - 1))
    if choice == "neg":
        return draw(st.integers(-ndim, -1))
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    # Mix in negative spellings of the same axes.
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


@st.composite
def reduction_cases(draw, name="sum"):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=3)))
    axis = _axes(draw, len(shape))
    keepdims = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.standard_normal(shape)
    if name == "prod":
        x = np.sign(x + 1e-300) * (0.5 + 0.5 * np.abs(x))  # no zeros
    else:
        x = x + 1e-3 * np.arange(x.size).reshape(shape)  # no ties for max
    return name, x, axis, keepdims


# ---- binary ops --------------------------------------------------------------------

@pytest.mark.parametrize("op_name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_broadcasting(op_name, data):
    _, a, b = data.draw(binary_cases(op_name))
    check_grads(BINARY[op_name], (a, b), order=1)


@pytest.mark.parametrize("op_name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_broadcasting_gradient_shapes(op_name, data):
    _, a, b = data.draw(binary_cases(op_name))
    ga, gb = grad(BINARY[op_name], wrt=(0, 1))(a, b)
    assert np.shape(ga) == np.shape(a)
    assert np.shape(gb) == np.shape(b)
    assert np.all(np.isfinite(ga)) and np.all(np.isfinite(gb))


@pytest.mark.parametrize("op_name", ["op_add", "op_mul", "op_div", "op_arctan2", "op_pow"])
@SETTINGS_ORDER2
@given(data=st.data())
def test_binary_broadcasting_second_order(op_name, data):
    _, a, b = data.draw(binary_cases(op_name))
    check_grads(BINARY[op_name], (a, b), order=2, rtol=1e-4, atol=1e-6)


# ---- reductions ------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data())
def test_reductions(name, data):
    _, x, axis, keepdims = data.draw(reduction_cases(name))
    check_grads(REDUCTIONS[name], (x, axis, keepdims), order=1, wrt=0)


@SETTINGS
@given(reduction_cases())
def test_reduction_method_form(case):
    _, x, axis, keepdims = case
    check_grads(_keepdims_method_sum, (x, axis, keepdims), order=1, wrt=0)


@SETTINGS
@given(reduction_cases())
def test_reduce_then_broadcast_back(case):
    _, x, axis, _ = case
    check_grads(_reduce_then_broadcast_back, (x, axis), order=1, wrt=0)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS_ORDER2
@given(data=st.data())
def test_reductions_second_order(name, data):
    _, x, axis, keepdims = data.draw(reduction_cases(name))
    check_grads(REDUCTIONS[name], (x, axis, keepdims), order=2, wrt=0, rtol=1e-4, atol=1e-6)
