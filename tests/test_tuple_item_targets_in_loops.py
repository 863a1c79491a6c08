"""``x[i + 1], v[i + 1] = a, b`` in a loop over ``i``: the analysis of what is varied took
``i`` for a name the tuple assignment binds, so its index was refused as computed from
differentiable values (found by a battery of numerical-methods programs)."""
import numpy as np

import srcgrad as sg
from srcgrad.testing import check_grads


def euler_table(x0, k):
    n = 6
    x = np.zeros(n)
    v = np.zeros(n)
    x[0] = x0
    for i in range(n - 1):
        x[i + 1], v[i + 1] = x[i] + 0.1 * v[i], v[i] - 0.1 * k * x[i]
    return np.sum(x ** 2) + v[-1]


def test_tuple_of_item_targets():
    check_grads(euler_table, (0.8, 1.3), wrt=(0, 1))
    g = sg.grad(euler_table, wrt=(0, 1))(0.8, 1.3)
    eps = 1e-6
    assert abs(g[1] - (euler_table(0.8, 1.3 + eps) - euler_table(0.8, 1.3 - eps)) / (2 * eps)) \
        < 1e-6


def weighted_by_position(ws, x):
    w = np.array(ws)
    tot = 0.0
    for k, a in enumerate(ws):
        tot = tot + w[k] * a * x
    return tot  # x * sum(ws_k^2)


def test_enumerate_counter_of_differentiated_items_to_second_order():
    """(``k`` of ``for k, a in enumerate(ws)`` was taken as differentiable when the
    gradient's code was differentiated again: ``w[k]`` refused. Found by a battery of
    statistics programs.)"""
    ws = [0.2, 0.5]

    def d_dx(ws, x):
        return sg.grad(weighted_by_position, wrt=1)(ws, x)
    g = sg.grad(d_dx)(ws, 1.5)
    np.testing.assert_allclose(np.array(g, dtype=float), [0.4, 1.0])

    def total(ws, x):
        return np.sum(sg.grad(weighted_by_position)(ws, x))
    np.testing.assert_allclose(np.array(sg.grad(total)(ws, 1.5), dtype=float), [3.0, 3.0])
