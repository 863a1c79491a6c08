"""A dict bound again and again to the same keys: an optimizer's or a MAML inner loop.

``p = {k: v - lr * g[k] for k, v in p.items()}`` inside a loop was refused ("dict
comprehension ... unless what it iterates is known when compiling"): ``p`` is bound
more than once, and only a dict bound once had keys known when compiling. Now a name
each of whose bindings is a dict of the same keys in the same order, or a comprehension
over the name itself keeping its keys, has those keys (``structure.Facts._rebound_keys``).
Where a binding may change them (other keys, another order, a write), the keys are
still the run's. Second order through a dict display or ``*args`` passed to an inner
gradient now knows its keys too (``calls._sample_of``, ``calls._spread_known``).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

P = {"W": np.array([0.3, -0.2]), "b": np.array([0.5, 0.1])}
XS = np.array([1.0, 2.0])


def sgd_items(p, x):
    for _ in range(3):
        g = {"W": np.cos(p["W"]) * x, "b": 2 * p["b"]}
        p = {k: v - 0.1 * g[k] for k, v in p.items()}
    return np.sum(p["W"] ** 2) + np.sum(p["b"] * x)


def sgd_keys(p, x):
    for _ in range(2):
        p = {k: p[k] - 0.1 * np.sin(p[k]) * x for k in p}
    return sum(np.sum(v ** 2) for v in p.values())


def sgd_local(p, x):
    q = {"W": p["W"] * x, "b": p["b"] + 1.0}
    for step in range(3):
        q = {k: q[k] * (1.0 - 0.1 * step) + 0.01 * np.tanh(q[k]) for k in q.keys()}
    total = 0.0
    for name, value in q.items():
        total = total + np.sum(value * x) * len(name)
    return total


def momentum(p, x):
    vel = {"W": np.zeros(2), "b": np.zeros(2)}
    for _ in range(2):
        g = {k: 2.0 * v * x for k, v in p.items()}
        vel = {k: 0.9 * vel[k] + g[k] for k in vel}
        p = {k: p[k] - 0.05 * vel[k] for k in p}
    return np.sum(p["W"] * p["b"])


@pytest.mark.parametrize("f", [sgd_items, sgd_keys, sgd_local, momentum])
def test_an_inner_loop_over_a_dict_rebound(f):
    check_grads(f, (P, XS))  # to second order, through the inner gradient's *args
    g = sg.grad(f)(P, XS)
    value, g2 = sg.value_and_grad(f)(P, XS)
    assert value == pytest.approx(f(P, XS), rel=1e-12)
    for k in P:
        np.testing.assert_allclose(g2[k], g[k], rtol=1e-12)


def _taped(f, p, x):
    with sg.GradientTape() as tape:
        tape.watch(p)
        y = f(p, x)
    return tape.gradient(y, p)


@pytest.mark.parametrize("f", [sgd_items, sgd_keys, sgd_local, momentum])
def test_the_tape_agrees(f):
    want = sg.grad(f)(P, XS)
    for got in (_taped(f, P, XS), sg.function(_taped)(f, P, XS)):
        for k in P:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-10)


def _maml_loss(W):
    return np.sum(sg.grad(sgd_items)({"W": W, "b": P["b"]}, XS)["W"] * np.array([1.0, -1.0]))


def test_second_order_through_a_dict_display():
    eps = 1e-6
    want = [(_maml_loss(P["W"] + e) - _maml_loss(P["W"] - e)) / (2 * eps)
            for e in np.eye(2) * eps]
    np.testing.assert_allclose(sg.grad(_maml_loss)(P["W"].copy()), want, rtol=1e-6)


def other_order(p, x, flag):
    q = {"W": p["W"] * 2.0, "b": p["b"]}
    if flag:
        q = {"b": p["b"] * 3.0, "W": p["W"]}
    t = 0.0
    for i, k in enumerate(q):
        t = t + (i + 1) * np.sum(q[k] * x)
    return t


def reordered_in_a_loop(p, x):
    q = {"W": p["W"] * 2.0, "b": p["b"]}
    for _ in range(3):
        q = {"b": q["b"] * 3.0, "W": q["W"]}
    return sum((i + 1) * np.sum(v * x) for i, v in enumerate(q.values()))


@pytest.mark.parametrize("f, args", [
    (other_order, (P, XS, True)), (other_order, (P, XS, False)),
    (reordered_in_a_loop, (P, XS)),
])
def test_where_the_bindings_disagree_the_run_decides(f, args):
    check_grads(f, args, order=1)


def copied_then_stored(x):
    p = dict(w=x[:1] * 1.0, b=x[1:] * 1.0)
    p = dict(p)
    p["b"] = p["b"] ** 2
    return sum(np.sum(v * (i + 1)) for i, v in enumerate(p.values()))


def a_key_added_in_a_branch(x):
    p = {"w": x[:1] * 1.0, "b": x[1:] * 1.0}
    if x[0] > 0:
        p["c"] = p["w"] * 3.0
    return sum(np.sum(v * (i + 1)) for i, v in enumerate(p.values()))


@pytest.mark.parametrize("f", [copied_then_stored, a_key_added_in_a_branch])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_stores_of_the_keys_it_holds_keep_them_known(f, sign):
    # (A store of another key: the keys are the run's, whichever way the branch goes.)
    check_grads(f, (XS * sign,), order=1)
