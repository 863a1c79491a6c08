"""Ranges whose bounds are differentiated: ``np.arange(t0, t1, dt)`` with a differentiable
start or step, ``np.mgrid[0.0:L:5j]``, ``np.ogrid[a:b:step]``, and ``np.r_`` joining
numbers and pieces. All gave a zero gradient (None on a tape), silently: np.arange was
taken for a constant, the grids' bounds were read as an index (which carries no gradient)
and ``np.r_``'s ranges inside a tuple were not seen as varied; forward mode took a number
joined by ``np.r_`` for its own tangent. Found by a battery of numerical-methods programs.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


def step_of_a_grid(dt):
    t = np.arange(0.0, 1.0, dt)  # t_i = i * dt
    return np.sum(t ** 2)


def start_of_a_grid(x0):
    x = np.arange(x0, x0 + 1.0, 0.25)
    return np.sum(np.sin(x))


def keywords(step):
    t = np.arange(start=0.5, stop=3.0, step=step)
    return np.sum(t ** 2)


def start_and_step_from_a_vector(p):
    t = np.arange(p[0], 2.0, p[1] * 0.1)
    return np.sum(np.exp(-t) * p[1])


def mgrid_count(L):
    x = np.mgrid[0.0:L:5j]  # NumPy's linspace
    return np.sum(np.sin(x))


def ogrid_step(a):
    x = np.ogrid[a:3.0:0.5]  # NumPy's arange
    return np.sum(np.sin(x) * x)


def r_of_numbers(L):
    x = np.r_[0.3, L * 2.0, np.sin(L)]
    return np.sum(np.sin(x))


def r_of_a_number_and_a_piece(L):
    x = np.r_[0.3, np.linspace(0.0, L, 4)]
    return np.sum(np.sin(x))


def c_of_a_column_and_numbers(L):
    x = np.c_[np.linspace(0.0, L, 3), np.ones(3) * L]
    return np.sum(np.sin(x) * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("f, x", [
    (step_of_a_grid, 0.101), (start_of_a_grid, 0.3), (keywords, 0.3),
    (mgrid_count, 1.7), (ogrid_step, 0.3), (r_of_numbers, 1.7),
    (r_of_a_number_and_a_piece, 1.7), (c_of_a_column_and_numbers, 1.7),
], ids=lambda v: getattr(v, "__name__", ""))
def test_every_form(f, x):
    for arg in (x, np.array(x)):  # a Python float and a 0-d array
        check_grads(f, (arg,))
    assert_every_form(f, np.array(x))
    assert sg.grad(f)(x) != 0


def test_start_and_step_from_a_vector():
    p = np.array([0.3, 1.03])
    check_grads(start_and_step_from_a_vector, (p,))
    assert_every_form(start_and_step_from_a_vector, p)
    assert np.all(sg.grad(start_and_step_from_a_vector)(p) != 0)


def test_a_parameter_dict_and_a_helper_returning_a_tuple():
    def grid(params):
        return np.arange(params["t0"], 1.0, params["dt"]), params["k"]

    def decay(params):
        t, k = grid(params)
        return np.sum(np.exp(-k * t))

    params = {"t0": 0.05, "dt": 0.09, "k": 1.3}
    g = sg.grad(decay)(params)
    eps = 1e-6
    for key in params:
        up, down = dict(params), dict(params)
        up[key] += eps
        down[key] -= eps
        np.testing.assert_allclose(g[key], (decay(up) - decay(down)) / (2 * eps), rtol=1e-6)


def test_only_the_stop_sets_the_count_no_gradient():
    def f(stop):
        return np.sum(np.arange(0.5, stop, 0.25))
    assert sg.grad(f)(1.7) == 0.0


def test_integer_ranges_are_unchanged():
    def f(x):
        n = x.shape[0]
        return np.sum(x * np.arange(n)) + np.sum(x[np.arange(1, n, 2)])
    assert_every_form(f, np.array([0.5, -1.0, 2.0, 3.0]))


def test_a_grid_of_two_axes_with_differentiable_bounds_is_refused():
    def f(L):
        X, Y = np.mgrid[0.0:L:3j, 0.0:1.0:4j]
        return np.sum(X * Y)
    with pytest.raises(sg.CompileError, match="np.meshgrid"):
        sg.grad(f)(1.7)


def test_r_range_of_differentiable_bounds_is_refused():
    def f(L, a):
        return np.sum(np.sin(np.r_[a, 0.0:L:4j]))
    for wrt in (0, (0, 1)):
        with pytest.raises(sg.CompileError, match="a range whose bounds are differentiable"):
            sg.grad(f, wrt=wrt)(1.7, 1.3)
