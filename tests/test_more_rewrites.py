"""``np.delete``, ``np.resize``, ``np.broadcast_arrays``, ``np.unwrap`` and ``np.polyfit``,
written out as compositions of functions with rules (``rules/rewrites.py``).

Each gives NumPy's values, and its gradient (to second order), tangent and a
tape's gradient agree with central differences.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_tangent_and_tape
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads

RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 4))
V = RNG.normal(size=7)


def delete_columns(a):
    return np.sum(np.delete(a, [0, 2], axis=1) ** 2)


def delete_flat(a):
    return np.sum(np.sin(np.delete(a, 5)))


def delete_slice(a):
    return np.sum(np.delete(a, slice(0, 2), axis=0) * a[:1])


def resize_longer(a):
    return np.sum(np.resize(a, (5, 3)) ** 2 * np.arange(15.0).reshape(5, 3))


def resize_shorter(v):
    return np.sum(np.cos(np.resize(v, 4)))


def broadcast_pair(a, v):
    x, y = np.broadcast_arrays(a[:, :1], v[:4])
    return np.sum(x * y ** 2)


def unwrapped_phase(v):
    phase = np.cumsum(v) * 3.0  # jumps of more than pi between neighbours
    return np.sum(np.unwrap(phase) ** 2)


def fitted(v):
    x = np.linspace(0.0, 1.0, 7)
    return np.sum(np.polyfit(x, v, 2) ** 2)


def fitted_in_x(v):
    return np.sum(np.polyfit(v, np.cos(v), 3) * np.array([1.0, -2.0, 0.5, 3.0]))


def fitted_weighted(v):
    x = np.linspace(-1.0, 1.0, 7)
    coefficients = np.polyfit(x, np.stack([v, v ** 2], axis=1), 1, w=np.linspace(1.0, 2.0, 7))
    return np.sum(coefficients ** 2)


def fitted_in_the_weights(w):
    x = np.linspace(0.0, 1.0, 7)
    return np.sum(np.polyfit(x, np.cos(3.0 * x), 2, w=w) ** 2)


CASES = [(delete_columns, A), (delete_flat, A), (delete_slice, A), (resize_longer, A),
         (resize_shorter, V), (unwrapped_phase, V), (fitted, V), (fitted_in_x, V),
         (fitted_weighted, V), (fitted_in_the_weights, np.linspace(1.0, 2.0, 7))]


@pytest.mark.parametrize("f, x", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_gradients_to_second_order(f, x):
    check_grads(f, (x.copy(),), order=2)


@pytest.mark.parametrize("f, x", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_tangent_and_tape(f, x):
    assert_tangent_and_tape(f, x)


LINALG = [name for name in ("trace", "diagonal", "cross", "outer") if hasattr(np.linalg, name)]


def _linalg_case(name):
    stack = np.random.default_rng(2).normal(size=(2, 3, 3))
    vectors = np.random.default_rng(3).normal(size=(4, 3))
    return {
        "trace": (lambda x: np.sum(np.linalg.trace(x, offset=1) ** 2), stack),
        "diagonal": (lambda x: np.sum(np.sin(np.linalg.diagonal(x))), stack),
        "cross": (lambda v: np.sum(np.linalg.cross(v, v[::-1] ** 2) ** 2), vectors),
        "outer": (lambda v: np.sum(np.linalg.outer(v, v ** 2)), vectors[0]),
    }[name]


@pytest.mark.parametrize("name", LINALG)
def test_numpy_2_linalg_functions(name):
    """NumPy 2's array-API spellings of ``trace``, ``diagonal``, ``cross``, ``outer``."""
    f, x = _linalg_case(name)
    check_grads(f, (x,), order=2)
    assert sg.value_and_grad(f)(x)[0] == f(x)


def test_broadcast_arrays_of_two_arguments():
    check_grads(broadcast_pair, (A.copy(), V.copy()), order=2, wrt=(0, 1))


def test_the_values_are_numpys():
    x = np.linspace(0.0, 1.0, 7)
    values = {
        "delete": (lambda a: np.delete(a, [0, 2], axis=1), A),
        "resize": (lambda a: np.resize(a, (5, 3)), A),
        "unwrap": (lambda v: np.unwrap(np.cumsum(v) * 3.0), V),
        "polyfit": (lambda v: np.polyfit(x, v, 2), V),
        "broadcast": (lambda a: np.broadcast_arrays(a[:, :1], a[0])[0], A),
    }
    for name, (f, arg) in values.items():
        value, _ = sg.value_and_grad(lambda a: np.sum(f(a) ** 2))(arg)
        assert value == np.sum(f(arg) ** 2), name
    ours = sg.value_and_grad(lambda v: np.sum(np.unwrap(np.cumsum(v) * 3.0)))(V)[0]
    assert ours == np.sum(np.unwrap(np.cumsum(V) * 3.0))


def test_options_not_modelled_are_refused():
    with pytest.raises(NotDifferentiableError, match="polyfit with full"):
        sg.grad(lambda v: np.sum(np.polyfit(np.arange(7.0), v, 2, full=True)[0]))(V)
