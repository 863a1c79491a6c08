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


class DenseExpression:
    """The same branches written as conditional expressions (Keras-like layers)."""

    def __init__(self, activation=None, use_bias=True):
        self.activation, self.use_bias = activation, use_bias

    def __call__(self, x):
        h = x * 2.0 + 0.5 if self.use_bias else x * 2.0
        h = self.activation(h) if self.activation is not None else h
        return np.sum(h ** 2)


@pytest.mark.parametrize("layer", [DenseExpression(), DenseExpression(np.tanh),
                                   DenseExpression(None, False), DenseExpression(np.sin, False)],
                         ids=["none", "tanh", "nobias", "sin"])
def test_conditional_expression_on_an_attribute_known_when_compiling(layer):
    check_grads(layer, (X,), order=2)
    np.testing.assert_allclose(taped(layer, X.copy()), sg.grad(layer)(X), rtol=1e-12)
    np.testing.assert_allclose(sg.function(taped)(layer, X.copy()), sg.grad(layer)(X),
                               rtol=1e-12)


def test_a_conditional_expression_decided_when_compiling_is_guarded():
    layer = DenseExpression()
    grad = sg.grad(layer)
    first = grad(X)
    layer.activation = np.tanh
    np.testing.assert_allclose(grad(X), sg.grad(DenseExpression(np.tanh))(X), rtol=1e-12)
    assert not np.allclose(grad(X), first)


def stacked_layers(w1, w2):
    """Layers built in the differentiated code, the last one without an activation."""
    h = M
    for layer in [DenseWeights(w1, np.tanh), DenseWeights(w2)]:
        h = layer(h)
    return np.sum(h ** 2)


class DenseWeights:
    def __init__(self, w, activation=None):
        self.w, self.activation = w, activation

    def __call__(self, x):
        z = x @ self.w
        return self.activation(z) if self.activation is not None else z


def test_layers_built_in_the_code_with_and_without_an_activation():
    check_grads(stacked_layers, (np.full((3, 2), 0.3), np.full((2, 1), -0.4)), order=2)


def optional_activation(x, act=None, weights=None):
    """Optional arguments left to None, tested in the code (``if act is not None:``)."""
    h = x * 2.0
    if act is not None:
        h = act(h)
    loss = h ** 2 if weights is None else weights * h ** 2
    return np.sum(loss)


def _layer(x, act):
    return act(x) if act is not None else x


def optional_activation_in_a_helper(x, act=None):
    return np.sum(_layer(x * 2.0, act) ** 2)


@pytest.mark.parametrize("f", [optional_activation, optional_activation_in_a_helper],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("act", [None, np.tanh], ids=["none", "tanh"])
def test_a_parameter_passed_none_decides_its_tests_when_compiling(f, act):
    """``act(h)`` where ``act`` is None is never run: not compiled (it was refused as
    "cannot tell which function `act` is"). The cache keys on the None: the same
    gradient called with a function compiles that branch."""
    expected = sg.grad(lambda v: f(v, np.tanh))(X) if act is np.tanh else 8.0 * X
    grad = sg.grad(f)
    np.testing.assert_allclose(grad(X, act), expected, rtol=1e-12)
    np.testing.assert_allclose(grad(X) if act is None else grad(X, act), expected, rtol=1e-12)
    np.testing.assert_allclose(sg.value_and_grad(f)(X, act)[1], expected, rtol=1e-12)
    check_grads(f, (X, act), wrt=0, order=1)

    def block(x, act):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = f(x, act)
        return tape.gradient(y, x)
    np.testing.assert_allclose(block(X.copy(), act), expected, rtol=1e-12)
    np.testing.assert_allclose(sg.function(block)(X.copy(), act), expected, rtol=1e-12)


def _sum_of_squared_gradient(x):
    return np.sum(sg.grad(optional_activation)(x) ** 2)  # (act, weights left to None)


def _sum_of_squared_gradient_passed(x):
    return np.sum(sg.grad(optional_activation)(x, None, None) ** 2)


@pytest.mark.parametrize("outer", [_sum_of_squared_gradient, _sum_of_squared_gradient_passed],
                         ids=["defaults", "passed"])
def test_a_parameter_left_to_none_in_code_differentiated_again(outer):
    """The inner gradient's code is specialised on the None (``calls._sample_of``; an
    argument known only when running is ``UNKNOWN_VALUE``, not None)."""
    np.testing.assert_allclose(sg.grad(outer)(X), 2 * 8.0 * 8.0 * X, rtol=1e-12)
    np.testing.assert_allclose(sg.hessian(optional_activation)(X), 8.0 * np.eye(3), atol=1e-12)
    np.testing.assert_allclose(sg.hvp(optional_activation)(X, np.ones(3)), np.full(3, 8.0),
                               rtol=1e-12)
    check_grads(optional_activation, (X, None, None), wrt=0, order=2)
    check_grads(optional_activation, (X, np.tanh, None), wrt=0, order=2)


def unpacked_constants(x):
    act, scale = None, 2.0  # (a tuple of constants: each name its item's)
    h = x * scale
    if act is not None:
        h = act(h)
    return np.sum(h ** 2)


def test_names_unpacked_from_constants_decide_their_tests():
    check_grads(unpacked_constants, (X,), order=2)


def test_a_parameter_passed_none_then_an_array():
    grad = sg.grad(optional_activation)
    np.testing.assert_allclose(grad(X, None, None), 8.0 * X, rtol=1e-12)
    w = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(grad(X, None, w), 8.0 * w * X, rtol=1e-12)
    np.testing.assert_allclose(grad(X, None, None), 8.0 * X, rtol=1e-12)


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


# -- a Keras-like model on a tape: optional bias, activation, mask ---------------------

class KerasDense:
    def __init__(self, w, activation=None, use_bias=True):
        self.w = sg.Variable(w)
        self.b = sg.Variable(np.zeros(w.shape[1])) if use_bias else None
        self.activation = activation

    def __call__(self, x, training=False, mask=None):
        z = x @ self.w
        if self.b is not None:
            z = z + self.b
        if mask is not None and training:
            z = z * mask
        return self.activation(z) if self.activation else z


W1 = np.linspace(-0.5, 0.6, 6).reshape(3, 2)
W2 = np.array([[0.3], [-0.7]])
MASK = np.array([[1.0, 0.0], [1.0, 1.0]])


def _keras_loss(w1, training, mask):
    z = M @ w1
    z = z * mask if mask is not None and training else z
    return np.sum((np.tanh(z) @ W2) ** 2)


@pytest.mark.parametrize("training, mask", [(False, None), (True, MASK), (True, None)],
                         ids=["eval", "masked", "train"])
def test_keras_like_layers_with_optional_arguments_on_a_tape(training, mask):
    first, second = KerasDense(W1.copy(), np.tanh), KerasDense(W2.copy(), use_bias=False)

    def block(x, training, mask):
        with sg.GradientTape() as tape:
            y = np.sum(second(first(x, training, mask), training) ** 2)
        return tape.gradient(y, [first.w, first.b, second.w])

    expected = sg.grad(_keras_loss)(W1, training, mask)
    for run in (block, sg.function(block)):
        grads = run(M, training, mask)
        np.testing.assert_allclose(grads[0], expected, rtol=1e-10, atol=1e-12)
        assert grads[1] is not None and grads[2] is not None
