"""The functional API: ``grad``, ``value_and_grad``, ``function`` (SPEC section 2)."""
import copy
import sys
import math

import numpy as np
import pytest

import srcgrad as sg


# ---- functions under test (module level: the compiler reads their source) ----

def double(x):
    return x * 2.0


def square_sum(x):
    return np.sum(x * x)


def weighted(a, b):
    return np.sum(a * b) + np.sum(a)


def three(a, b, c):
    return np.sum(a * b * c)


def vector_valued(x):
    return x * 2.0


def with_default(x, scale=2.0):
    return np.sum(x * x) * scale


def with_keyword_only(x, *, scale=2.0):
    return np.sum(x * x) * scale


def reads_list_and_dict(x, items, options):
    total = 0.0
    for item in items:
        total = total + np.sum(item * x)
    return total * options["scale"]


def writes_local_copy(x, table):
    y = x * 1.0
    y[0] = y[0] * 3.0
    z = table[1:] * 1.0
    return np.sum(y * y) + np.sum(z * x[1:])


def sin_fn(x):
    return np.sin(x)


def cube(x):
    return x ** 3


def loop_power(x):
    t = 1.0
    for _ in range(4):
        t = t * x
    return t


def branchy(x):
    if x > 0.0:
        y = x ** 3
    else:
        y = -2.0 * x * x
    return y


def polynomial(x):
    return 2.0 * x ** 4 - 3.0 * x ** 3 + x * x - 5.0 * x + 1.0


def unsupported(x):
    try:
        y = x * 2.0
    finally:
        x = x + 1.0
    return y


class Quadratic:
    def __init__(self, a):
        self.a = a

    def loss(self, x):
        return np.sum(self.a * x * x)


X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 2.0, -0.5])


# ---- wrt must name float inputs ----------------------------------------------

@pytest.mark.parametrize("value, kind", [
    (3, "int"),
    (np.int64(3), "int"),
    (np.arange(3), "int64"),
    (np.arange(3, dtype=np.int32), "int32"),
    (True, "bool"),
    (np.array([True, False]), "bool"),
])
def test_integer_and_bool_inputs_raise_type_error(value, kind):
    with pytest.raises(TypeError) as info:
        sg.grad(double)(value)
    message = str(info.value)
    assert "'x'" in message, message
    assert "argument 0" in message, message
    assert kind in message, message


def test_integer_input_names_the_right_argument():
    with pytest.raises(TypeError, match=r"argument 1 \('b'\)"):
        sg.grad(weighted, wrt=(0, 1))(X, np.arange(3))
    with pytest.raises(TypeError, match=r"'b'"):
        sg.grad(weighted, wrt="b")(X, 2)


def test_integer_argument_not_in_wrt_is_fine():
    g = sg.grad(weighted, wrt=0)(X, np.arange(3))
    np.testing.assert_allclose(g, np.arange(3) + 1.0)


def test_non_scalar_output_raises_type_error():
    with pytest.raises(TypeError) as info:
        sg.grad(vector_valued)(X)
    message = str(info.value)
    assert "must return a scalar" in message, message
    assert "vector_valued" in message, message


def test_non_scalar_output_value_and_grad():
    with pytest.raises(TypeError, match="must return a scalar"):
        sg.value_and_grad(vector_valued)(X)


# ---- wrt ---------------------------------------------------------------------

def test_wrt_default_is_first_argument():
    np.testing.assert_allclose(sg.grad(weighted)(X, Y), Y + 1.0)


def test_wrt_by_index_and_by_name_agree():
    by_index = sg.grad(weighted, wrt=1)(X, Y)
    by_name = sg.grad(weighted, wrt="b")(X, Y)
    np.testing.assert_allclose(by_index, X)
    np.testing.assert_allclose(by_name, X)


def test_wrt_tuple_returns_tuple():
    out = sg.grad(three, wrt=(0, 2))(X, Y, X + 1.0)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0], Y * (X + 1.0))
    np.testing.assert_allclose(out[1], X * Y)


def test_wrt_tuple_of_names_in_given_order():
    gc, ga = sg.grad(three, wrt=("c", "a"))(X, Y, X + 1.0)
    np.testing.assert_allclose(gc, X * Y)
    np.testing.assert_allclose(ga, Y * (X + 1.0))


def test_wrt_mixed_names_and_indices():
    ga, gb = sg.grad(three, wrt=(0, "b"))(X, Y, X)
    np.testing.assert_allclose(ga, Y * X)
    np.testing.assert_allclose(gb, X * X)


def test_wrt_one_tuple_returns_one_tuple():
    out = sg.grad(weighted, wrt=(1,))(X, Y)
    assert isinstance(out, tuple) and len(out) == 1
    np.testing.assert_allclose(out[0], X)
    out = sg.grad(weighted, wrt=("a",))(X, Y)
    assert isinstance(out, tuple) and len(out) == 1
    np.testing.assert_allclose(out[0], Y + 1.0)


def test_wrt_list_returns_tuple():
    out = sg.grad(weighted, wrt=[0, 1])(X, Y)
    assert isinstance(out, tuple) and len(out) == 2


def test_wrt_unknown_name_raises():
    with pytest.raises(ValueError, match="nope"):
        sg.grad(weighted, wrt="nope")


# ---- value_and_grad and preserve_result ---------------------------------------

def test_value_and_grad():
    value, g = sg.value_and_grad(square_sum)(X)
    assert value == pytest.approx(float(np.sum(X * X)))
    np.testing.assert_allclose(g, 2.0 * X)


def test_value_and_grad_several():
    value, (ga, gb) = sg.value_and_grad(weighted, wrt=(0, 1))(X, Y)
    assert value == pytest.approx(weighted(X, Y))
    np.testing.assert_allclose(ga, Y + 1.0)
    np.testing.assert_allclose(gb, X)


def test_preserve_result_returns_grad_then_value():
    g, value = sg.grad(square_sum, preserve_result=True)(X)
    np.testing.assert_allclose(g, 2.0 * X)
    assert value == pytest.approx(float(np.sum(X * X)))
    (gb,), value = sg.grad(weighted, wrt=("b",), preserve_result=True)(X, Y)
    np.testing.assert_allclose(gb, X)
    assert value == pytest.approx(weighted(X, Y))


# ---- dtype and shape ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_array_gradient_keeps_dtype_and_shape(dtype):
    x = np.arange(6, dtype=dtype).reshape(2, 3) / dtype(4)
    g = sg.grad(square_sum)(x)
    assert type(g) is np.ndarray
    assert g.dtype == dtype
    assert g.shape == (2, 3)
    np.testing.assert_allclose(g.astype(np.float64), 2.0 * x.astype(np.float64), rtol=1e-2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_numpy_scalar_gradient_keeps_type(dtype):
    g = sg.grad(double)(dtype(1.5))
    assert type(g) is dtype
    assert g == 2.0


def test_python_float_gives_float64():
    g = sg.grad(double)(1.5)
    assert type(g) is np.float64
    assert g == 2.0


def test_zero_dim_array_stays_zero_dim_array():
    g = sg.grad(double)(np.array(1.5))
    assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == np.float64
    assert float(g) == 2.0


def test_broadcast_input_gets_its_own_shape():
    ga, gb = sg.grad(weighted, wrt=(0, 1))(np.ones((2, 3), np.float32), np.float32(2.0))
    assert ga.shape == (2, 3) and ga.dtype == np.float32
    assert type(gb) is np.float32
    assert gb == pytest.approx(6.0)
    np.testing.assert_allclose(ga, 3.0)


def test_mixed_dtypes_each_keep_their_own():
    ga, gb = sg.grad(weighted, wrt=(0, 1))(X.astype(np.float32), Y)
    assert ga.dtype == np.float32 and gb.dtype == np.float64


# ---- keyword and default arguments ---------------------------------------------

def test_default_argument_used():
    np.testing.assert_allclose(sg.grad(with_default)(X), 4.0 * X)


def test_default_argument_given_positionally_and_by_keyword():
    np.testing.assert_allclose(sg.grad(with_default)(X, 3.0), 6.0 * X)
    np.testing.assert_allclose(sg.grad(with_default)(X, scale=3.0), 6.0 * X)
    np.testing.assert_allclose(sg.grad(with_default)(x=X, scale=3.0), 6.0 * X)
    np.testing.assert_allclose(sg.grad(with_default)(scale=0.5, x=X), 1.0 * X)


def test_gradient_with_respect_to_a_defaulted_argument():
    assert sg.grad(with_default, wrt="scale")(X, scale=3.0) == pytest.approx(np.sum(X * X))
    assert sg.grad(with_default, wrt=1)(X) == pytest.approx(np.sum(X * X))


def test_value_and_grad_with_keywords():
    value, g = sg.value_and_grad(with_default)(x=X, scale=3.0)
    assert value == pytest.approx(with_default(X, scale=3.0))
    np.testing.assert_allclose(g, 6.0 * X)


def test_keyword_only_parameter_with_default():
    np.testing.assert_allclose(sg.grad(with_keyword_only)(X), 4.0 * X)
    np.testing.assert_allclose(sg.grad(with_keyword_only)(X, scale=3.0), 6.0 * X)


# ---- no mutation ------------------------------------------------------------------

def test_compiled_code_does_not_mutate_arguments():
    x = X.copy()
    items = [Y.copy(), X.copy() + 1.0]
    options = {"scale": 2.0}
    before = (x.copy(), copy.deepcopy(items), dict(options))
    reads_list_and_dict(x, items, options)
    g = sg.grad(reads_list_and_dict)(x, items, options)
    np.testing.assert_array_equal(x, before[0])
    for a, b in zip(items, before[1]):
        np.testing.assert_array_equal(a, b)
    assert len(items) == 2
    assert options == before[2]
    np.testing.assert_allclose(g, 2.0 * (items[0] + items[1]))


def test_compiled_code_with_item_writes_does_not_mutate_arguments():
    x = X.copy()
    table = Y.copy()
    writes_local_copy(x, table)
    np.testing.assert_array_equal(x, X)  # the original mutates nothing...
    np.testing.assert_array_equal(table, Y)
    ga, gt = sg.grad(writes_local_copy, wrt=(0, 1))(x, table)
    np.testing.assert_array_equal(x, X)  # ...and neither may its gradient
    np.testing.assert_array_equal(table, Y)
    expected_x = 2.0 * X * np.array([9.0, 1.0, 1.0]) + np.concatenate([[0.0], Y[1:]])
    np.testing.assert_allclose(ga, expected_x)
    np.testing.assert_allclose(gt, np.concatenate([[0.0], X[1:]]))


def test_object_argument_not_mutated():
    model = Quadratic(Y.copy())
    g = sg.grad(lambda_free_loss, wrt=1)(model, X)
    np.testing.assert_array_equal(model.a, Y)
    assert set(vars(model)) == {"a"}
    np.testing.assert_allclose(g, 2.0 * Y * X)


def lambda_free_loss(model, x):
    return model.loss(x)


def test_grad_of_bound_method():
    model = Quadratic(Y.copy())
    g = sg.grad(model.loss)(X)
    np.testing.assert_allclose(g, 2.0 * Y * X)


# ---- sg.function ------------------------------------------------------------------

def test_function_runs_the_function():
    f = sg.function(with_default)
    assert f(X) == pytest.approx(with_default(X))
    assert f(X, scale=5.0) == pytest.approx(with_default(X, 5.0))
    assert f.__name__ == "with_default"


def test_function_raises_compile_error_at_first_call():
    f = sg.function(unsupported)  # decorating does not compile
    with pytest.raises(sg.CompileError, match=r"try statement.*test_api\.py:\d+"):
        f(1.0)


def test_function_can_be_differentiated():
    f = sg.function(square_sum)
    np.testing.assert_allclose(sg.grad(f)(X), 2.0 * X)


class _Trainer:
    def __init__(self):
        self.w = sg.Variable(np.array([1.0, 2.0]))

    def train_step(self, x, y):
        with sg.GradientTape() as tape:
            loss = np.sum((x * self.w - y) ** 2)
        self.w.assign_sub(0.1 * tape.gradient(loss, self.w))
        return loss


def test_function_of_a_bound_method():
    """``step = sg.function(trainer.train_step)``, as ``tf.function(self.train_step)``:
    the method keeps its object (it was dropped: a missing argument)."""
    trainer = _Trainer()
    step = sg.function(trainer.train_step)
    x, y = np.array([1.0, 1.0]), np.array([0.0, 0.0])
    assert step(x, y) == pytest.approx(5.0)
    np.testing.assert_allclose(trainer.w.numpy(), [0.8, 1.6])
    assert step(x, y) == pytest.approx(0.8 ** 2 + 1.6 ** 2)
    assert step.__self__ is trainer and step.__name__ == "train_step"


# ---- higher order --------------------------------------------------------------

SECOND = [
    (sin_fn, lambda x: -math.sin(x)),
    (cube, lambda x: 6.0 * x),
    (loop_power, lambda x: 12.0 * x * x),
    (branchy, lambda x: 6.0 * x if x > 0 else -4.0),
]


@pytest.mark.parametrize("f, d2", SECOND, ids=[f.__name__ for f, _ in SECOND])
@pytest.mark.parametrize("x", [-1.3, 0.7, 2.0])
def test_second_derivative_by_nesting_grad(f, d2, x):
    assert float(sg.grad(sg.grad(f))(x)) == pytest.approx(d2(x), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("x", [-1.3, 0.7, 2.0])
def test_third_derivative_of_polynomial(x):
    d3 = sg.grad(sg.grad(sg.grad(polynomial)))(x)
    assert float(d3) == pytest.approx(48.0 * x - 18.0, rel=1e-9)


_D_LOOP = sg.grad(loop_power)


def _d_loop(x):
    return _D_LOOP(x)


def test_second_derivative_through_a_call_of_a_gradient():
    assert float(sg.grad(_d_loop)(1.5)) == pytest.approx(12.0 * 1.5 ** 2)


def test_higher_order_value_and_grad():
    value, d2 = sg.value_and_grad(sg.grad(cube))(2.0)
    assert float(value) == pytest.approx(12.0)
    assert float(d2) == pytest.approx(12.0)


def _third_through_calls(f):
    d1 = sg.grad(f)

    def h1(x):
        return d1(x)

    d2 = sg.grad(h1)

    def h2(x):
        return d2(x)

    return sg.grad(h2)


THIRD = [
    (polynomial, lambda x: 48.0 * x - 18.0),
    (loop_power, lambda x: 24.0 * x),
    (sin_fn, lambda x: -math.cos(x)),
]


@pytest.mark.parametrize("f, d3", THIRD, ids=[f.__name__ for f, _ in THIRD])
def test_third_derivative_through_calls_of_gradients(f, d3):
    g3 = _third_through_calls(f)
    for x in (-1.3, 0.7):
        assert float(g3(x)) == pytest.approx(d3(x), rel=1e-9, abs=1e-12)


# ---- the user's module need not call numpy ``np`` --------------------------------

_MODULE_STYLES = {
    "import_numpy": """
import numpy

def f(x):
    return numpy.sum(numpy.sin(x) * x)

def expected(x):
    return numpy.cos(x) * x + numpy.sin(x)
""",
    "numpy_as_xp": """
import numpy as xp

def f(x):
    return xp.sum(xp.sin(x) * x)

def expected(x):
    return xp.cos(x) * x + xp.sin(x)
""",
    "math_only": """
import math

def f(x):
    return math.fabs(x) * 2.0 + abs(x * 3.0) + max(x, 0.5 * x) + math.sin(x)

def expected(x):
    return 2.0 + 3.0 + 1.0 + math.cos(x)
""",
    "np_is_a_number": """
import numpy
np = 10  # the number of points

def f(x):
    return numpy.sum(numpy.sin(x)) * np

def expected(x):
    return numpy.cos(x) * 10
""",
}


@pytest.mark.parametrize("style", sorted(_MODULE_STYLES))
def test_module_without_np_alias(style, tmp_path, monkeypatch):
    """Generated code runs in the user's module: derivative rules must not need its ``np``."""
    import importlib

    name = f"api_style_{style}"
    (tmp_path / f"{name}.py").write_text(_MODULE_STYLES[style])
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.delitem(sys.modules, name, raising=False)
    module = importlib.import_module(name)
    try:
        x = 0.7 if style == "math_only" else np.array([0.3, -0.4, 1.1])
        np.testing.assert_allclose(sg.grad(module.f)(x), module.expected(x), rtol=1e-12)
    finally:
        sys.modules.pop(name, None)


# ---- Python operators on lists and tuples keep Python's meaning ------------------

def list_concat(x):
    a = [x, x * x]
    b = a + [x * 2.0]
    return b[0] + b[1] + b[2] * 3.0


def tuple_concat(x):
    a = (x, x * x)
    b = a + (x * 2.0,)
    return b[0] + b[1] + b[2] * 3.0


def list_repeat(x):
    a = [x * 2.0] * 3
    return a[0] + a[2]


def list_augmented_concat(x):
    a = [x]
    a += [x * 3.0]
    return a[0] * a[1]


def list_concat_stacked(x):
    parts = [x] + [x * x]
    return np.sum(np.stack(parts))


SEQUENCE_OPS = [
    (list_concat, lambda x: 1.0 + 2.0 * x + 6.0),
    (tuple_concat, lambda x: 1.0 + 2.0 * x + 6.0),
    (list_repeat, lambda x: 4.0),
    (list_augmented_concat, lambda x: 6.0 * x),
    (list_concat_stacked, lambda x: 1.0 + 2.0 * x),
]


@pytest.mark.parametrize("f, df", SEQUENCE_OPS, ids=[f.__name__ for f, _ in SEQUENCE_OPS])
def test_sequence_operators_are_not_elementwise(f, df):
    """``list + list`` concatenates and ``list * n`` repeats: neither is np.add/np.multiply."""
    for x in (1.5, -0.5):
        assert float(sg.grad(f)(x)) == pytest.approx(df(x), rel=1e-12)


def _wave(a):
    return np.sum(np.sin(a) * a)


def _uses_inline_gradient(x):
    return np.sum(sg.grad(_wave)(x) * 2.0)


def _uses_inline_gradient_wrt_name(x, s):
    return sg.value_and_grad(_wave, wrt="a")(x * s)[1] * s


def test_gradient_made_inline_inside_differentiated_code():
    """``sg.grad(f)(x)`` inside a differentiated function: made when compiling."""
    from srcgrad.testing import check_grads

    x = np.array([0.3, 1.0, -0.7])
    expected = 2.0 * (2.0 * np.cos(x) - x * np.sin(x))
    np.testing.assert_allclose(sg.grad(_uses_inline_gradient)(x), expected, rtol=1e-12)
    check_grads(_uses_inline_gradient_wrt_name, (0.4, 1.3), order=1)


def _total(v):
    return np.sum(v)


def _scaled_total(v):
    return np.sum(v * 2.0)


def _average(v):
    return np.mean(v)


def _two_totals(a, b):
    return np.sum(a) + np.sum(b * a)


def test_gradients_are_writeable_arrays_of_their_own():
    # The adjoint of np.sum is a read-only broadcast view inside the generated
    # code; users get an array they may update in place (g *= lr).
    x = np.ones(3)
    for f in (_total, _scaled_total, _average):
        g = sg.grad(f)(x)
        g *= 0.5
        assert g.flags.writeable and g.strides == (8,)
    gx, gy = sg.grad(_two_totals, wrt=(0, 1))(x, 2.0 * x)
    gx += 1.0
    gy += 1.0
    np.testing.assert_allclose(gx, 4.0)
