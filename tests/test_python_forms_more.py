"""More Python that real code uses (issue 13, section 4): ``d.get``, ``dict(...)``,
``**kwargs`` in called functions, ``f(*args)`` and starred unpacking, and ``sg.grad``
of a def or lambda nested in the code differentiated.

Each form is checked in a small program against central differences to second
order (``check_grads``), by ``sg.value_and_grad``, and on a ``GradientTape`` in a
plain function and in an ``@sg.function``; most are written two ways (parameters
in a dict or as separate arguments). What stays refused is refused naming the
construct.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

RNG = np.random.default_rng(13)
X = RNG.normal(size=(4, 3))
W = RNG.normal(size=(3, 2))
B = RNG.normal(size=2)
V = np.array([0.5, -1.0, 2.0])
PARAMS = {"W": W, "b": B, "scale": 0.7}


# -- checking every way ---------------------------------------------------------------

def _zeros_for_none(tree, like):
    """A tape's gradient with None (unconnected, as TensorFlow) read as zeros."""
    if isinstance(like, dict):
        return {k: _zeros_for_none(tree[k], like[k]) for k in like}
    if isinstance(like, (list, tuple)):
        return type(like)(_zeros_for_none(t, l) for t, l in zip(tree, like))
    return np.zeros_like(like, dtype=float) if tree is None else tree


def _assert_tree_close(got, want):
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for k in want:
            _assert_tree_close(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_tree_close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def taped_one(f, a):
    with sg.GradientTape() as tape:
        tape.watch(a)
        y = f(a)
    return tape.gradient(y, a)


def taped_two(f, a, b):
    with sg.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        y = f(a, b)
    return tape.gradient(y, [a, b])


def check_everywhere(f, args):
    """``f(*args)`` (one or two differentiated arguments): central differences to
    second order, value_and_grad, and the tape in plain code and in @sg.function."""
    wrt = tuple(range(len(args)))
    check_grads(f, args, order=2, wrt=list(wrt))
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    want = sg.grad(f, wrt=wrt)(*args)
    _assert_tree_close(grads, want)
    taped = taped_one if len(args) == 1 else taped_two
    for run in (taped, sg.function(taped)):
        got = run(f, *args)
        got = [got] if len(args) == 1 else got
        _assert_tree_close([_zeros_for_none(g, a) for g, a in zip(got, args)], list(want))


# -- 1. d.get ---------------------------------------------------------------------------

def get_from_params(params, x):
    """Optional entries with defaults: the keys are known when compiling."""
    h = np.tanh(x @ params.get("W") + params.get("b", 0.0))
    return np.sum(h ** 2) * params.get("scale", 1.0) + params.get("missing", 0.25)


def get_from_arguments(w, b):
    """The same model, its parameters passed apart and gathered in a dict."""
    params = {"W": w, "b": b}
    h = np.tanh(X @ params.get("W") + params.get("b", 0.0))
    return np.sum(h ** 2) * params.get("scale", 0.7) + params.get("missing", 0.25)


def _penalty(params, key="W"):
    return 0.1 * np.sum(params.get(key, 0.0) ** 2)


def get_with_keys_from_a_loop(params):
    """Keys known only when the code runs (a loop variable): a test of ``key in d``."""
    total = 0.0
    for name in ("W", "b", "gamma"):
        total = total + np.sum(params.get(name, 1.0) ** 2)
    return total + _penalty(params) + _penalty(params, "b") * params["scale"]


def get_after_a_write(w, b):
    """A key added by a write: read when the code runs, never from the display."""
    d = {"W": w, "b": b}
    d["b"] = b * 3.0
    d["extra"] = np.sum(w)
    return np.sum(d.get("b", 0.0) * w[0]) + d.get("extra", 1.0) ** 2


@pytest.mark.parametrize("f, args", [
    (lambda p: get_from_params(p, X), (PARAMS,)),
    (get_from_arguments, (W, B)),
    (get_with_keys_from_a_loop, (PARAMS,)),
], ids=["params_dict", "separate_arguments", "keys_from_a_loop"])
def test_dict_get(f, args):
    check_everywhere(f, args)


def test_dict_get_styles_agree():
    g = sg.grad(lambda p: get_from_params(p, X))(PARAMS)
    gw, gb = sg.grad(get_from_arguments, wrt=(0, 1))(W, B)
    np.testing.assert_allclose(g["W"], gw, rtol=1e-12)
    np.testing.assert_allclose(g["b"], gb, rtol=1e-12)


def test_dict_get_after_a_write():
    check_grads(get_after_a_write, (W, B), order=1, wrt=[0, 1])
    # d/db of sum(3 b * w[0]): 3 w[0] (the display's keys said "b" held b itself)
    np.testing.assert_allclose(sg.grad(get_after_a_write, wrt=1)(W, B), 3.0 * W[0])


def test_dict_get_of_a_list_is_a_type_error_when_run():
    def f(x):
        items = [x, x * 2.0]
        for k in (0, 1):
            x = x + items.get(k)  # a list has no .get
        return np.sum(x)

    with pytest.raises((TypeError, AttributeError)):
        sg.grad(f)(V)


# -- 2. dict(...), list(...), tuple(...) -------------------------------------------------

KEYS = ("W", "b")


def dicts_built_from_arguments(w, b):
    by_keywords = dict(W=w, b=b)
    by_zip = dict(zip(KEYS, [w * 2.0, b]))
    names = ["first", "second"]
    by_local_zip = dict(zip(names, (b, w)))
    by_pairs = dict([("W", w), ("b", b ** 2)])
    pairs = [("W", np.sin(w)), ("b", b)]
    by_named_pairs = dict(pairs)
    copied = dict(by_keywords, b=by_pairs["b"])
    merged = {**by_zip, "extra": by_local_zip["first"]}
    h = np.tanh(X @ by_keywords["W"] + copied["b"])
    return (np.sum(h ** 2) + np.sum(by_zip["W"] * by_named_pairs["W"])
            + np.sum(merged["extra"] * by_local_zip["second"][0]) + np.sum(merged["b"]))


def dicts_built_from_params(params):
    other = dict(params)
    items = dict(params.items())
    scaled = dict(other, W=params["W"] * params["scale"])
    spread = dict(**items)
    enumerated = dict(enumerate(tuple(params.values())))
    values = list(params.values())
    keys = list(params)  # keys carry no gradient: an index like any other
    h = np.tanh(X @ scaled["W"] + other["b"])
    return (np.sum(h ** 2) + np.sum(spread["b"] * items["b"]) * enumerated[2]
            + np.sum(values[0] * tuple(values)[0]) + np.sum(params[keys[1]] ** 3))


@pytest.mark.parametrize("f, args", [
    (dicts_built_from_arguments, (W, B)), (dicts_built_from_params, (PARAMS,)),
], ids=["separate_arguments", "params_dict"])
def test_dict_calls(f, args):
    check_everywhere(f, args)


def test_a_dict_is_a_new_dict():
    """``dict(d)`` copies: a write into the copy leaves ``d``'s value as it was."""
    def f(w):
        d = {"W": w}
        e = dict(d)
        e["W"] = e["W"] * 3.0
        return np.sum(d["W"] * e["W"])

    check_grads(f, (W,), order=1)
    np.testing.assert_allclose(sg.grad(f)(W), 6.0 * W)


# -- 3. **kwargs in a called function -------------------------------------------------

def _layer(x, w, **options):
    h = x @ w * options["scale"] + options.get("shift", 0.0)
    if options.get("activation", "tanh") == "tanh":  # a string option: no gradient
        h = np.tanh(h)
    return h


def _model(x, w, **kw):
    return np.sum(_layer(x, w, **kw) ** 2)  # forwarded


def kwargs_as_arguments(w, scale):
    return _model(X, w, scale=scale, shift=scale * 0.5)


def kwargs_from_a_dict(params):
    options = {"scale": params["scale"], "shift": params["b"]}
    return _model(X, params["W"], **options) + np.sum(_layer(X, params["W"], **params) ** 2)


def kwargs_forwarded_through_a_display(w, b):
    options = {"shift": b}
    return _model(X, w, **{"scale": 2.0, **options}, activation="linear")


@pytest.mark.parametrize("f, args", [
    (kwargs_as_arguments, (W, 0.7)), (kwargs_from_a_dict, (PARAMS,)),
    (kwargs_forwarded_through_a_display, (W, B)),
], ids=["keywords", "params_dict", "display"])
def test_kwargs(f, args):
    check_everywhere(f, args)


def test_kwargs_values():
    # linear activation: d/db sum((X w * 2 + b)^2) = 2 * sum over rows of (X w * 2 + b)
    want = 2.0 * np.sum(X @ W * 2.0 + B, axis=0)
    np.testing.assert_allclose(sg.grad(kwargs_forwarded_through_a_display, wrt=1)(W, B), want)


# -- 4. f(*args) and starred unpacking ------------------------------------------------

def _dense(x, w, b):
    return np.tanh(x @ w + b)


def _loss(h, scale):
    return np.sum(h ** 2) * scale


def star_call_of_a_tuple(params):
    W1, b1, scale = params
    layer = (W1, b1)
    h = _dense(X, *layer)
    args = (h, scale, 0.0)
    return _loss(*args[:2])


def star_call_of_arguments(w, b):
    parts = [X, w]
    h = _dense(*parts, b)
    return _loss(*[h], *(0.7,))


def star_call_of_a_parameter_tuple(params):
    """A tuple passed in: its length is the callee's, checked when the code runs."""
    return _loss(_dense(X, *params[:2]), *params[2:]) + _loss(*params[:1], 0.5)


def starred_unpacking(params):
    first, *rest = params
    *init, last = rest
    w, *_ = (first, init)
    head, (b, *tail) = first, [rest[0], 1.0, 2.0]
    a, *middle, z = (first, first * 2.0, rest[0], last)
    return np.sum(_dense(X, w, b) ** 2) * last + np.sum(head[0] * init[0]) * tail[1] \
        + np.sum(middle[-1] * a[0]) * z * len(middle)


def starred_unpacking_in_a_loop(w, b):
    total = 0.0
    for first, *others in [(w, b, b), (w * 2.0, b)]:
        total = total + np.sum(_dense(X, first, others[0]) ** 2) * len(others)
    return total


def _params_tuple():
    return (W, B, 0.7)


@pytest.mark.parametrize("f, args", [
    (star_call_of_a_tuple, (_params_tuple(),)), (star_call_of_arguments, (W, B)),
    (star_call_of_a_parameter_tuple, (_params_tuple(),)),
    (starred_unpacking, (_params_tuple(),)), (starred_unpacking_in_a_loop, (W, B)),
], ids=["tuple_built", "arguments", "parameter_tuple", "unpacking", "unpacking_in_a_loop"])
def test_star_arguments_and_unpacking(f, args):
    check_everywhere(f, args)


COUNT = 2


def star_call_of_a_list_appended_to(w):
    """A list whose length the code does not show, spread into a function of fixed
    arity: the count is the function's, checked when the code runs."""
    parts = [X]
    for _ in range(COUNT - 1):
        parts.append(w)
    return _loss(_dense(*parts, B), 0.5)


def test_star_argument_of_the_wrong_length_raises_as_python_does():
    global COUNT
    check_everywhere(star_call_of_a_list_appended_to, (W,))
    COUNT = 3
    try:
        with pytest.raises(TypeError, match="_dense"):
            sg.grad(star_call_of_a_list_appended_to)(W)
    finally:
        COUNT = 2
    with pytest.raises(ValueError, match="not enough values to unpack"):
        sg.grad(lambda p: np.sum(p[0]) * starred_unpacking(p))((V,))


def test_starred_unpacking_gives_lists():
    def f(x):
        first, *rest = (x, x * 2.0, x * 3.0)
        rest = rest + [first]  # a list, as Python gives (a tuple + list would raise)
        return np.sum(rest[0] * rest[2])

    np.testing.assert_allclose(sg.grad(f)(V), 4.0 * V)


# -- 5. sg.grad of a nested def or lambda ---------------------------------------------

def grad_of_a_closure(x):
    def inner(y):
        return np.sum(np.sin(y) * x)
    return np.sum(sg.grad(inner)(x) * 2.0)


def grad_of_a_lambda(x):
    return np.sum(sg.grad(lambda y: np.sum(y ** 3 * x))(x * 0.5))


def grad_of_a_closure_over_params(params):
    """Parameters in a dict, read by the closure, and a helper def it calls."""
    def act(v):
        return np.tanh(v) * params["scale"]

    def energy(w, b):
        return np.sum(act(X @ w + b) ** 2)

    gw, gb = sg.grad(energy, wrt=(0, 1))(params["W"], params["b"])
    value, g = sg.value_and_grad(energy, wrt="b")(params["W"] * 0.5, params["b"])
    return np.sum(gw ** 2) + np.sum(gb * params["b"]) + value * np.sum(g)


def grad_of_a_closure_read_late(x, s):
    scale = 1.0

    def inner(y):
        return np.sum(y * y * x) * scale

    scale = s * 2.0  # read when the gradient is called, as Python does
    return np.sum(sg.grad(inner)(x) * x)


def grad_bound_to_a_name(x, w):
    """``dfdy = sg.grad(f)`` made once and called twice, the usual way to write it."""
    f = lambda y: np.sum(np.tanh(X @ (y * w)) ** 2)  # noqa: E731 (the style under test)
    dfdy = sg.value_and_grad(f)
    value, g = dfdy(x)
    return value * np.sum(g * dfdy(x * 2.0)[1])


@pytest.mark.parametrize("f, args", [
    (grad_of_a_closure, (V,)), (grad_of_a_lambda, (V,)),
    (grad_of_a_closure_over_params, (PARAMS,)), (grad_of_a_closure_read_late, (V, 0.3)),
    (grad_bound_to_a_name, (V, W[:, 0])),
], ids=["closure", "lambda", "params_dict", "read_late", "bound_to_a_name"])
def test_gradient_of_a_nested_def(f, args):
    check_everywhere(f, args)


def test_gradient_of_a_nested_def_values():
    # d/dx sum(2 cos(x) x) = 2 cos(x) - 2 x sin(x): the closure's x carries a gradient
    np.testing.assert_allclose(sg.grad(grad_of_a_closure)(V), 2 * np.cos(V) - 2 * V * np.sin(V))
    # sum(2 y x scale * x) at y = x, scale = 2 s: 4 s sum(x^3); d/ds = 4 sum(x^3)
    np.testing.assert_allclose(sg.grad(grad_of_a_closure_read_late, wrt=1)(V, 0.3),
                               4.0 * np.sum(V ** 3))


WEIGHTS = sg.Variable(np.array([0.3, 0.2, -0.1]))


def _energy_of_the_weights(y):
    return np.sum(y * y * WEIGHTS)


def _scaled_weights(y, k):
    return np.sum(y * k * WEIGHTS)


SCALED_WEIGHTS = functools.partial(_scaled_weights, k=3.0)


def variable_through_a_gradient_on_a_tape(x):
    """A Variable read by a function whose gradient the block takes, or by a partial of
    one: watched as it is when the block calls the function itself (was None: the call
    looked constant, no argument being watched)."""
    with sg.GradientTape() as tape:
        def nested(y):
            return np.sum(np.sin(y) * WEIGHTS)
        z = np.sum(sg.grad(_energy_of_the_weights)(x) * x) + np.sum(sg.grad(nested)(x))
        z = z + SCALED_WEIGHTS(x)
    return tape.gradient(z, WEIGHTS)


def test_a_variable_read_through_a_gradient_on_a_tape():
    # z = sum(2 x^2 w) + sum(cos(x) w) + sum(3 x w): dz/dw = 2 x^2 + cos(x) + 3 x
    want = 2 * V ** 2 + np.cos(V) + 3 * V
    np.testing.assert_allclose(variable_through_a_gradient_on_a_tape(V), want, rtol=1e-12)
    np.testing.assert_allclose(sg.function(variable_through_a_gradient_on_a_tape)(V), want,
                               rtol=1e-12)


def test_gradient_of_a_nested_def_compiles_once():
    from srcgrad.compiler import cache

    grad = sg.grad(grad_of_a_closure)
    grad(V)
    calls = []
    original = cache.compile_gradient
    cache.compile_gradient = lambda *a, **k: calls.append(a) or original(*a, **k)
    try:
        grad(V + 1.0)
        grad(V * 2.0)
    finally:
        cache.compile_gradient = original
    assert calls == []


# -- what stays refused, naming the construct -----------------------------------------

def _options():
    return {"scale": 2.0}


def unknown_keys_in_a_call(w):
    return _model(X, w, **_options())


def unknown_count_with_defaults(w):
    def f(x, v, s=1.0):
        return np.sum(x @ v) * s
    parts = []
    for item in (X, w):
        parts.append(item)
    return f(*parts)


def dict_with_unknown_keys(w, b):
    names = [str(i) for i in range(2)]
    d = dict(zip(names, [w, b]))
    return np.sum(d["0"])


def starred_in_a_comprehension(w):
    return np.sum([first for first, *rest in [(w, w)]])


def differentiated_with_kwargs(w, **options):
    return np.sum(w) * options.get("scale", 1.0)


def nested_def_with_a_computed_default(x):
    s = np.sum(x)

    def inner(y, k=s):
        return np.sum(y * k)
    return np.sum(sg.grad(inner)(x))


def get_with_a_differentiable_key(params):
    return params.get(params["scale"], 0.0)


@pytest.mark.parametrize("f, args, words", [
    (unknown_keys_in_a_call, (W,), ["`**_options()` in a call", "which keys"]),
    (unknown_count_with_defaults, (W,), ["`*parts` in a call", "how many items"]),
    (dict_with_unknown_keys, (W, B), ["`dict(zip(names", "keys"]),
    (starred_in_a_comprehension, (W,), ["starred target of a comprehension"]),
    (nested_def_with_a_computed_default, (V,), ["`grad(inner)`", "default value"]),
    (get_with_a_differentiable_key, (PARAMS,), ["`.get()`", "key computed from "
                                                "differentiable values"]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused_naming_the_construct(f, args, words):
    with pytest.raises(sg.CompileError) as info:
        sg.grad(f)(*args)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert "test_python_forms_more.py:" in message


def test_kwargs_of_the_differentiated_function_are_compiled_for_the_keys_passed():
    """(Refused before: tests/test_keyword_parameters.py.) The generic code, for keys
    not known (``srcgrad show`` without a call), still says so."""
    np.testing.assert_allclose(sg.grad(differentiated_with_kwargs)(W), np.ones_like(W))
    np.testing.assert_allclose(sg.grad(differentiated_with_kwargs)(W, scale=2.0),
                               np.full_like(W, 2.0))
    with pytest.raises(sg.CompileError, match=r"\*\*options parameter"):
        sg.adjoint_source(differentiated_with_kwargs)


def get_or_default(d, x):
    """autograd's test_get: the dict may hold the key, another, or nothing."""
    return d.get("item_1", x) ** 2


@pytest.mark.parametrize("d", [{"item_1": 3.0}, {"item_2": 4.0}, {}], ids=["has", "other", "empty"])
def test_get_of_a_parameter_dict_with_a_differentiated_default(d):
    """``d.get(k, x)`` where ``d`` holds no differentiable value (an empty dict): it was
    "cannot tell which function d.get is"; second order through it too."""
    check_grads(get_or_default, (d, 2.0), wrt=(0, 1), order=2)
    g_d, g_x = sg.grad(get_or_default, wrt=(0, 1))(d, 2.0)
    assert g_x == pytest.approx(0.0 if "item_1" in d else 4.0)


def _squared(h):
    return h * h


def _scaled_tanh(h, w, scale=1.0):
    return np.tanh(h * w) * scale


def squared_twice(x):
    return np.sum(_squared(_squared(x)))


def layer_of_a_layer(x):
    return np.sum(_scaled_tanh(_scaled_tanh(x, x[0], scale=0.5), 3.0) + _squared(_scaled_tanh(x, 2.0)))


@pytest.mark.parametrize("f", [squared_twice, layer_of_a_layer], ids=lambda f: f.__name__)
def test_a_function_called_on_its_own_result(f):
    """``sq(sq(x))``, ``layer(layer(h))``: the inner call is the outer call's argument,
    evaluated by the caller, not a recursive call (it was refused as recursion: the
    argument's binding carried the callee's chain of inlined calls; hunt 3)."""
    x = np.array([0.3, -0.5, 0.8])
    check_grads(f, (x,), order=2)
    from tape_forms import assert_forms_agree
    assert_forms_agree(f, (x,), nonzero=True)


def _rk_step(y, dt, *params):
    a, b = params
    return y + dt * (a * y - b * y * y)


def spread_of_a_tuple_passed_in(y0, params):
    """``*params`` of a tuple argument: refused before ("cannot tell how many items"); the
    code is compiled for the tuple's length (hunt 6)."""
    y = y0
    for _ in range(3):
        y = _rk_step(y, 0.1, *params)
    return np.sum(y)


def test_a_spread_tuple_argument():
    y0, params = np.array([0.5, 1.0]), (1.5, 0.7)
    check_grads(spread_of_a_tuple_passed_in, (y0, params), order=2, wrt=[0])
    value, g = sg.value_and_grad(spread_of_a_tuple_passed_in)(y0, params)
    assert value == pytest.approx(spread_of_a_tuple_passed_in(y0, params), rel=1e-14)
    for run in (taped_one, sg.function(taped_one)):
        np.testing.assert_allclose(run(lambda y: spread_of_a_tuple_passed_in(y, params), y0), g,
                                   rtol=1e-12)
    # another length is other code (a TypeError of the callee here, as Python gives)
    with pytest.raises(ValueError, match="unpack"):
        sg.grad(spread_of_a_tuple_passed_in)(np.array([0.5, 1.0]), (1.5, 0.7, 0.1))


def extended_list(x):
    parts = [x[0] * 2.0]
    for k in range(2):
        parts.extend([x[k + 1] ** 2, np.sin(x[k])])
    parts.extend((x[2],))
    return sum(parts) * parts[1]


def test_a_list_extended_by_displays():
    """``xs.extend([a, b])`` is the appends it makes (refused before as a write through
    a call)."""
    check_grads(extended_list, (np.array([0.4, -0.8, 1.2]),), order=2)
    assert_forms_agree(extended_list, (np.array([0.4, -0.8, 1.2]),))
