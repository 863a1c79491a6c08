"""Loops over a dict passed as an argument, in code differentiated again.

``sg.grad(f)(params)`` takes a dict of arrays apart into its leaves; the code that
calls it (``sg.grad`` of a function of the gradient, as autograd's tests write
``d_fun``) compiles the inner gradient for the dict itself, keyed on its keys. A
loop ``for k in d`` over that parameter was read as a loop over a differentiable
value ("an index computed from differentiable values"): it is now a loop over the
keys (``Normalizer._dict_loop``), as for a dict the code builds. ``sorted(d.items(),
key=operator.itemgetter(0))`` (or ``key=lambda kv: kv[0]``) is the items sorted by
key, in every form; a key that reads the values stays refused.
"""
import operator
from operator import itemgetter

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

PARAMS = {"b": np.array([0.3, -0.2, 0.5]), "a": np.array([[0.1, 0.7], [-0.4, 0.2]]),
          "c": np.array([1.2, -0.6])}


def over_keys(d):
    total = 0.0
    for k in d:
        total = total * 0.5 + np.sum(np.sin(d[k]))
    return total


def over_sorted_keys(d):
    total = 0.0
    for i, k in enumerate(sorted(d)):
        total = total + np.sum(np.sin(d[k])) * (i + 1.0)
    return total


def over_items_by_key(d):
    total = 0.0
    for k, v in sorted(d.items(), key=operator.itemgetter(0)):
        total = total * 0.5 + np.sum(np.cos(v) * v)
    return total


def over_items_by_lambda(d):
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=lambda kv: kv[0])):
        total = total + np.sum(v ** 3) * (i + 1.0)
    return total


def over_items_by_getter(d):
    total = 0.0
    for k, v in sorted(d.items(), key=itemgetter(0)):
        total = total * 0.5 + np.sum(np.tanh(v))
    return total


LOSSES = [over_keys, over_sorted_keys, over_items_by_key, over_items_by_lambda,
          over_items_by_getter]


def _second(f):
    def of_gradient(d):
        g = sg.grad(f)(d)
        return np.sum(g["a"] ** 2) + np.sum(np.sin(g["c"])) + np.sum(g["b"] * d["b"])
    return of_gradient


@pytest.mark.parametrize("f", LOSSES)
def test_first_order(f):
    check_grads(f, (PARAMS,), order=2)


@pytest.mark.parametrize("f", LOSSES)
def test_function_of_the_gradient(f):
    check_grads(_second(f), (PARAMS,), order=1)


def test_order_of_the_keys_is_kept():
    # (``total * 0.5`` weighs the items by their place: the loop goes in the sorted order.)
    g = sg.grad(over_items_by_key)(PARAMS)
    want = {k: np.cos(v) - v * np.sin(v) for k, v in PARAMS.items()}
    weights = {"a": 0.25, "b": 0.5, "c": 1.0}
    for k in PARAMS:
        np.testing.assert_allclose(g[k], weights[k] * want[k], rtol=1e-12)


def _model(params, X):
    h = X
    for k in sorted(params):
        h = np.tanh(h @ params[k])
    return np.sum(h ** 2)


def _model_items(params, X):
    h = X
    for i, (k, W) in enumerate(sorted(params.items())):
        h = np.tanh(h @ W) * (i + 1.0)
    return np.sum(h ** 2)


def _taped(model, params, X):
    with sg.GradientTape() as tape:
        tape.watch(params["a"])
        tape.watch(params["b"])
        loss = model(params, X)
    return tape.gradient(loss, params)


@pytest.mark.parametrize("model", [_model, _model_items])
@pytest.mark.parametrize("form", ["plain", "function"])
def test_sorted_loop_over_a_watched_dict_on_a_tape(model, form):
    # (``sorted(params)`` of a dict of watched values: unrolled in the keys' order, as
    # ``for k in params`` is; refused before, "an index known only when the code runs".)
    rng = np.random.default_rng(4)
    params = {"b": rng.normal(size=(3, 3)) * 0.5, "a": rng.normal(size=(3, 3)) * 0.5}
    X = rng.normal(size=(4, 3))
    run = _taped if form == "plain" else sg.function(_taped)
    got = run(model, params, X)
    want = sg.grad(model)(params, X)
    for k in params:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10)
    check_grads(model, (params, X), wrt=0, order=2)


def test_sorted_by_the_values_is_refused():
    def by_values(d):
        total = 0.0
        for k, v in sorted(d.items(), key=lambda kv: np.sum(kv[1])):
            total = total * 0.5 + np.sum(v ** 2)
        return total

    with pytest.raises(sg.CompileError):
        sg.grad(by_values)(PARAMS)
