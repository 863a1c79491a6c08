"""Crashes where an answer or a clear error is due (issue 12, class 12).

Each of these raised an internal error (AttributeError, TypeError from deep
inside generated code) or returned a silent non-answer.
"""
import functools
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.5, -1.0, 2.0])


# -- what sg.grad accepts ----------------------------------------------------

def weighted(x, w, scale=1.0):
    return scale * np.sum(w * np.sin(x))


class Quadratic:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * np.sum(x * x)


def test_partial_binds_the_leading_arguments():
    bound = functools.partial(weighted, X, scale=3.0)
    w = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(sg.grad(bound)(w), 3.0 * np.sin(X))
    value, g = sg.value_and_grad(bound)(w)
    assert value == pytest.approx(weighted(X, w, 3.0))
    np.testing.assert_allclose(g, 3.0 * np.sin(X))
    check_grads(bound, (w,), order=2)
    by_keyword = functools.partial(weighted, w=w)
    np.testing.assert_allclose(sg.grad(by_keyword)(X), w * np.cos(X))
    # positions count after the bound arguments; names are the function's
    gw, gs = sg.grad(functools.partial(weighted, X), wrt=(0, "scale"))(w, 2.0)
    np.testing.assert_allclose(gw, 2.0 * np.sin(X))
    assert gs == pytest.approx(np.sum(w * np.sin(X)))
    gw, gs = sg.grad(functools.partial(weighted, X), wrt=(-2, -1))(w, 2.0)
    np.testing.assert_allclose(gw, 2.0 * np.sin(X))
    assert gs == pytest.approx(np.sum(w * np.sin(X)))


def test_callable_object_is_its_call_method():
    q = Quadratic(1.5)
    np.testing.assert_allclose(sg.grad(q)(X), 3.0 * X)
    value, g = sg.value_and_grad(q)(X)
    assert value == pytest.approx(q(X))
    check_grads(q, (X,), order=2)
    assert "# gradient of Quadratic.__call__" in sg.adjoint_source(q)


@pytest.mark.parametrize("f, shown, kind", [
    (abs, "abs", "a builtin function"),
    (math.sin, "math.sin", "a builtin function"),
    (np.sin, "np.sin", "a NumPy ufunc"),
    (Quadratic, "Quadratic", "a class"),
])
def test_functions_without_source_are_a_type_error(f, shown, kind):
    for api in (sg.grad, sg.value_and_grad):
        with pytest.raises(TypeError, match=f"`{shown}` is {kind}; wrap it in one") as info:
            api(f)(1.5)
        assert f"lambda x: {shown}(x)" in str(info.value)
    with pytest.raises(TypeError, match=kind):
        sg.adjoint_source(f)


# -- results that are not a real scalar ----------------------------------------

def complex_sum(x):
    return np.sum(x * 1j)


def complex_scalar(x):
    return np.sum(x) + 0j


def test_a_complex_result_is_differentiated_as_its_real_part():
    """TensorFlow's seed for a complex target (ones): the gradient of Re(f); the value
    returned by value_and_grad is the complex value itself."""
    np.testing.assert_allclose(sg.grad(complex_sum)(X), np.zeros_like(X))  # Re(i x) = 0
    np.testing.assert_allclose(sg.grad(complex_scalar)(X), np.ones_like(X))
    value, grad = sg.value_and_grad(complex_scalar)(X)
    assert value == np.sum(X) + 0j and grad.dtype == X.dtype


# -- names the builtins also have ----------------------------------------------

def power_with_order(ord):
    def f(x):
        return np.linalg.norm(x, ord) + np.sum(np.abs(x) ** ord)
    return f


def scaled_by(sum):
    def f(x):
        return np.sum(x) * sum + max(x[0], x[1])
    return f


ord = 3  # a module global that shadows the builtin, read by a function below


def norm_with_the_global_order(x):
    return np.linalg.norm(x, ord)


def local_named_like_a_builtin(x):
    sum = x[0] * 2.0
    return sum * x[1]


@pytest.mark.parametrize("f", [power_with_order(3), scaled_by(2.0), norm_with_the_global_order,
                               local_named_like_a_builtin],
                         ids=["closure ord", "closure sum", "global ord", "local sum"])
def test_names_of_builtins_keep_their_meaning_at_second_order(f):
    # A gradient inlined into other code (second order) lost the closure
    # variable `ord` to the builtin `ord`.
    check_grads(f, (X,), order=2)


# -- dicts passed to helpers in loops ------------------------------------------

def dict_model(p, x):
    return np.sum(p["w"] * x + p["b"])


def same_dict_twice(x):
    p = {"w": x, "b": x[0]}
    total = 0.0
    for q in [p, p]:
        total = total + dict_model(q, x)
    return total


def dict_rebuilt_in_a_loop(x):
    p = {"w": x * 2.0, "b": 1.0}
    total = 0.0
    for _ in range(3):
        total = total + dict_model(p, x)
        p = {"w": p["w"] * 0.5, "b": p["b"] * x[1]}
    return total


def list_of_lists(x):
    rows = [[x[0], x[1]], [x[2], x[0]]]
    total = 0.0
    for row in [rows[0], rows[1], rows[0]]:
        total = total + row[0] * row[1]
    return total


@pytest.mark.parametrize("f", [same_dict_twice, dict_rebuilt_in_a_loop, list_of_lists],
                         ids=lambda f: f.__name__)
def test_containers_through_loops_at_second_order(f):
    # The second derivative added dict adjoints with `+=` (a TypeError).
    check_grads(f, (X,), order=2)


def dense(p, name, h):
    return np.tanh(h @ p[name + "_W"] + p[name + "_b"])


def dict_params_to_a_helper(params, h):
    """The parameter dict is read by a helper and directly: its adjoint and the
    helper's add up (generated code added two dicts with ``+``: a TypeError)."""
    return np.sum(dense(params, "l1", h) @ params["l2_W"]) + np.sum(params["l1_b"] ** 2)


def dict_params_step(params, h):
    with sg.GradientTape() as tape:
        tape.watch(params)
        loss = np.sum(dense(params, "l1", h) @ params["l2_W"]) + np.sum(params["l1_b"] ** 2)
    return tape.gradient(loss, params)


def test_a_parameter_dict_read_by_a_helper_and_directly():
    rng = np.random.default_rng(4)
    params = {"l1_W": rng.normal(size=(3, 4)), "l1_b": rng.normal(size=4),
              "l2_W": rng.normal(size=(4, 2))}
    h = rng.normal(size=(5, 3))
    keys = sorted(params)

    def flat(l1_W, l1_b, l2_W):
        return dict_params_to_a_helper({"l1_W": l1_W, "l1_b": l1_b, "l2_W": l2_W}, h)
    expected = sg.grad(flat, wrt=(0, 1, 2))(*[params[k] for k in keys])
    check_grads(flat, tuple(params[k] for k in keys))
    for got in (dict_params_step(params, h), sg.function(dict_params_step)(params, h)):
        assert sorted(got) == keys
        for k, e in zip(keys, expected):
            np.testing.assert_allclose(got[k], e, rtol=1e-12)


# -- custom_gradient differentiated twice --------------------------------------

@sg.custom_gradient
def cube(x):
    def grad_fn(g):
        return g * 3.0 * x ** 2
    return x ** 3, grad_fn


def uses_cube(x):
    return cube(x) * 2.0


def test_second_order_through_custom_gradient_is_a_clear_error():
    assert sg.grad(uses_cube)(2.0) == pytest.approx(24.0)
    with pytest.raises(sg.CompileError, match="custom_gradient function `cube` .* again") as info:
        sg.grad(sg.grad(uses_cube))(2.0)
    assert "test_crashes.py" in str(info.value)
    assert "without custom_gradient" in str(info.value)


def custom_on_a_constant(x):
    return x * sg.grad(uses_cube)(2.0)


def test_custom_gradient_inside_a_gradient_of_constants_still_runs():
    # The gradient of `uses_cube` at a constant is a constant: nothing to refuse.
    assert sg.grad(custom_on_a_constant)(1.5) == pytest.approx(24.0)


# -- lambdas whose lines do not parse on their own -------------------------------

ACTIVATIONS = {"tanh": lambda z: np.tanh(z), "relu": lambda z: np.maximum(z, 0.0),
               "square": lambda z: z * z}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_lambdas_in_a_dict_literal(name):
    act = ACTIVATIONS[name]

    def loss(x):
        return np.sum(act(x))

    check_grads(loss, (X,), order=2)
    check_grads(act, (1.5,), order=2)


# -- a function that forgets its return (issue 12, class 9) --------------------

def forgot_its_return(x):
    y = np.sum(x * x)  # noqa: F841 (the bug under test)


def returns_only_on_one_path(x):
    if np.sum(x) > 100.0:
        return np.sum(x)


@pytest.mark.parametrize("f", [forgot_its_return, returns_only_on_one_path],
                         ids=lambda f: f.__name__)
def test_a_missing_return_is_a_type_error_not_a_zero_gradient(f):
    for api in (sg.grad, sg.value_and_grad):
        with pytest.raises(TypeError, match="returned None; is its return statement missing"):
            api(f)(X)


def _max_of_complex(z):
    return np.real(np.max(z))


def _pinv_of_low_rank(a):
    return np.sum(np.linalg.pinv(np.outer(a, a)))


@pytest.mark.parametrize("f, x", [
    # (NumPy orders complex values by real part, then imaginary part: a tie of the real
    # parts with different imaginary parts is a jump, refused.)
    (_max_of_complex, np.array([0.3 + 0.1j, 0.3 + 0.4j])),
    (_pinv_of_low_rank, np.array([0.5, -1.0, 2.0]))], ids=["complex max", "low-rank pinv"])
def test_a_case_a_rule_refuses_when_it_runs_is_a_compile_error(f, x):
    """Found when the gradient runs (the values decide), refused as every case srcgrad
    does not model is: a CompileError (autograd's suite counted these NotImplementedError
    as crashes); still a NotImplementedError for code that catches that."""
    with pytest.raises(sg.CompileError, match="is not differentiable"):
        sg.grad(f)(x)
    with pytest.raises(NotImplementedError):
        sg.grad(f)(x)
