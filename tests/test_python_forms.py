"""Python that real code uses (issue 13, section 4): branches on values known when the
code is compiled, lambdas inside differentiated code, ``*args`` forwarded, ``list(...)``
and ``tuple(...)`` of differentiable values. Each checked against central differences
to second order, in more than one style, and on a tape."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.5, -1.0, 2.0])
M = np.arange(6.0).reshape(2, 3) / 3.0
MODE = "train"


# -- branches decided when compiling ----------------------------------------------------

class Dense:
    def __init__(self, activation=None, use_bias=True):
        self.activation, self.use_bias = activation, use_bias

    def __call__(self, x):
        h = x * 2.0
        if self.use_bias:
            h = h + 0.5
        if self.activation is not None:
            h = self.activation(h)  # np.tanh has a rule; None would not
        return np.sum(h ** 2)


@pytest.mark.parametrize("layer", [Dense(), Dense(np.tanh), Dense(None, False),
                                   Dense(np.sin, False)], ids=["none", "tanh", "nobias", "sin"])
def test_branch_on_an_attribute_known_when_compiling(layer):
    check_grads(layer, (X,), order=2)
    np.testing.assert_allclose(taped(layer, X.copy()), sg.grad(layer)(X), rtol=1e-12)


def test_the_values_a_branch_was_decided_on_are_guarded():
    layer = Dense()
    grad = sg.grad(layer)
    first = grad(X)
    layer.activation = np.tanh  # another branch now: compiled anew, not the old code
    np.testing.assert_allclose(grad(X), sg.grad(Dense(np.tanh))(X), rtol=1e-12)
    assert not np.allclose(grad(X), first)


def by_mode(x):
    if MODE == "train" and not MODE == "eval":
        return np.sum(x ** 3)
    return np.sum(x)


def test_branch_on_a_global_string():
    global MODE
    np.testing.assert_allclose(sg.grad(by_mode)(X), 3 * X ** 2)
    MODE = "eval"
    try:
        np.testing.assert_allclose(sg.grad(by_mode)(X), np.ones(3))
    finally:
        MODE = "train"


# -- lambdas ----------------------------------------------------------------------------

def bound_lambda(x):
    act = lambda v, k=2.0: np.tanh(v) * k  # noqa: E731 (the style under test)
    return np.sum(act(x) + act(x, 3.0))


def late_binding(x):
    scale = 2.0
    g = lambda v: v * scale  # noqa: E731
    scale = 5.0  # read when g is called, as Python does
    return np.sum(g(x) ** 2)


def called_in_place(x):
    return np.sum((lambda v: v * v)(x)) + np.sum((lambda: x * 2)())


def nested_lambdas(x):
    outer = lambda v: (lambda w: w * v)(v + 1.0)  # noqa: E731
    return np.sum(outer(x) ** 2)


@pytest.mark.parametrize("f", [bound_lambda, late_binding, called_in_place, nested_lambdas],
                         ids=lambda f: f.__name__)
def test_lambdas(f):
    check_grads(f, (X,), order=2)
    np.testing.assert_allclose(taped(f, X.copy()), sg.grad(f)(X), rtol=1e-12)


def test_a_lambda_in_a_comprehension_is_refused():
    def f(x):
        return np.sum([(lambda v: v ** 2)(x[i]) for i in range(3)])

    with pytest.raises(sg.CompileError, match="lambda expression is not supported"):
        sg.grad(f)(X)


# -- *args forwarded, list(...) and tuple(...) ------------------------------------------

def _product(a, b, c):
    return np.sum(a * b * c)


def forward_rest(x, *args):
    return _product(x, *args[1:]) * args[0]


def forward_display(x):
    return _product(*(x, x * 2.0), *[np.sin(x)])


def tuple_of_generator(x):
    t = tuple(x[i] * (i + 1) for i in range(3))
    a, b, c = t
    return a * b + c * np.sum(np.stack(list(t)))


def rows_as_a_list(m):
    rows = list(m)
    return np.sum(rows[0] * rows[1]) + np.sum(np.stack(tuple(rows)) ** 2)


def list_and_tuple_of_lists(x):
    parts = [x, x * 2]
    both = tuple(parts) + (x * 3,)
    return np.sum(both[0] * both[2]) + np.sum(list(both)[1])


@pytest.mark.parametrize("f, args", [
    (forward_rest, (X, 1.5, X + 1.0, X * 3.0)), (forward_display, (X,)),
    (tuple_of_generator, (X,)), (rows_as_a_list, (M,)), (list_and_tuple_of_lists, (X,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_sequences_and_star_arguments(f, args):
    check_grads(f, args, order=2, wrt=0)


# -- dicts: .get, comprehensions, dict(zip(...)), dict(a=...) ---------------------------

PARAMS = {"w": X, "b": X * 3.0, "s": 0.7}


def dict_get(p):
    return np.sum(p.get("w", 0.0) * 2 + p["b"]) + np.sum(p.get("missing", 1.5) * p["b"])


def dict_comprehensions(p):
    doubled = {k: v * 2 for k, v in p.items() if k != "s"}
    squares = {k: p[k] ** 2 for k in p}
    return np.sum(doubled["w"] * doubled["b"]) * p["s"] + np.sum(squares["w"]) + squares["s"]


def dict_over_a_range(p):
    rows = {i: p["w"][i] * (i + 1) for i in range(3) if i != 1}
    return rows[0] * rows[2] * p["s"]


def dicts_built_by_calls(p):
    d = dict(zip(["a", "b"], [p["w"], p["b"] * 2]))
    e = dict(first=p["w"], second=p["s"])
    return np.sum(d["a"] * d["b"]) + np.sum(e["first"] * e["second"])


@pytest.mark.parametrize("f", [dict_get, dict_comprehensions, dict_over_a_range,
                               dicts_built_by_calls],
                         ids=lambda f: f.__name__)
def test_dicts(f):
    check_grads(f, (PARAMS,), order=2)
    assert list(sg.grad(f)(PARAMS)) == list(PARAMS)


def test_a_dict_comprehension_over_unknown_keys_is_refused():
    """The generic code (no arguments to know the keys from): refused, never run as a
    constant (the comprehension's values depend on the parameters)."""
    with pytest.raises(sg.CompileError, match="dict comprehension over differentiable values"):
        sg.adjoint_source(dict_comprehensions)
