"""``.values()`` of the dicts inside a parameter tree.

``W, b = params["l1"].values()`` was refused ("method `.values()` of a differentiable
value has no derivative rule"): only a dict's own keys were known, not a nested dict's.
Now a nested dict's keys are known where the code shows them (a display, a tree rebuilt
from its leaves) or where it was passed (the code is compiled for them: ``cache._kind``
keys a dict by its nested dicts' keys too), and inner gradients are specialised on
them (``calls._keys_skeleton``). Where only the run knows the keys (``for name, layer
in params.items(): W, b = layer.values()``), the view is taken when it runs
(``_sg.dict_values``), with an adjoint that is differentiated again (its first version,
left without one, gave 0 for the second derivative: the check below caught it).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

H = np.array([[0.5, -0.2], [0.1, 0.3]])
X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])
PARAMS = {"l1": {"W": X[:4].reshape(2, 2), "b": X[4:]},
          "l2": {"W": X[:4].reshape(2, 2).T, "b": X[4:] * 2.0}}


def by_key(params):
    W, b = params["l1"].values()
    return np.sum(np.tanh(H @ W + b))


def by_runtime_key(params):
    total = 0.0
    for name, layer in params.items():
        W, b = layer.values()
        total = total + np.sum(np.tanh(H @ W + b)) * len(name)
    return total


def summed_views(params):
    total = 0.0
    for layer in params.values():
        total = total + sum(np.sum(v ** 2) for v in layer.values())
    return total + sum(np.sum(v) for v in params["l2"].values())


def built_here(x):
    params = {"l1": {"W": x[:4].reshape(2, 2), "b": x[4:]}}
    W, b = params["l1"].values()
    return np.sum(np.tanh(H @ W + b))


@pytest.mark.parametrize("f", [by_key, by_runtime_key, summed_views])
def test_nested_views_of_a_tree_passed(f):
    # (Third order of the builtin sum over a generator is refused: its adjoint's own
    # appends are not differentiated again.)
    check_grads(f, (PARAMS,), order=2 if f is summed_views else 3)
    value, g = sg.value_and_grad(f)(PARAMS)
    assert value == pytest.approx(f(PARAMS), rel=1e-12)
    want = sg.grad(f)(PARAMS)
    for outer in PARAMS:
        for inner in PARAMS[outer]:
            np.testing.assert_allclose(g[outer][inner], want[outer][inner], rtol=1e-12)


def _taped(f, params):
    with sg.GradientTape() as tape:
        tape.watch(params)
        y = f(params)
    return tape.gradient(y, params)


@pytest.mark.parametrize("f", [by_key, by_runtime_key, summed_views])
def test_the_tape_agrees(f):
    want = sg.grad(f)(PARAMS)
    for got in (_taped(f, PARAMS), sg.function(_taped)(f, PARAMS)):
        for outer in PARAMS:
            for inner in PARAMS[outer]:
                np.testing.assert_allclose(got[outer][inner], want[outer][inner], rtol=1e-10)


def test_a_display_built_in_the_code():
    check_grads(built_here, (X.copy(),))


def test_other_nested_keys_compile_anew():
    # The same top keys, the nested ones in another order: Python unpacks b into W.
    # Code compiled for PARAMS and reused would read them by their old keys.
    sg.grad(by_key)(PARAMS)
    other = {"l1": {"b": X[4:], "W": X[:4].reshape(2, 2)}, "l2": PARAMS["l2"]}
    check_grads(by_key, (other,), order=1)


def test_values_of_something_else_is_refused_when_run():
    def f(params):
        total = 0.0
        for name, layer in params.items():
            total = total + sum(layer.values())
        return total
    with pytest.raises((TypeError, sg.CompileError)):
        sg.grad(f)({"a": {"x": 1.0}, "b": [2.0]})
