"""``sg.grad(f, backend="numba")``: the generated code compiled with Numba.

Each program is checked against central differences and against the default
backend, in the styles users write scalar loops in (Python floats, arrays, a
helper returning a tuple). What the backend does not model is refused with a
``CompileError`` naming the user's line, never run some other way.
"""
import functools
import math
import sys

import numpy as np
import pytest

import srcgrad as sg

pytest.importorskip("numba")  # (a test dependency: CI installs it; see pyproject.toml)

HERE = __file__.rsplit("/", 1)[-1]


def central(f, args, i, eps=1e-6):
    """d f / d args[i] by central differences, float64, component by component."""
    x = np.asarray(args[i], dtype=float)
    g = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        wrap = (lambda v: float(v)) if np.ndim(args[i]) == 0 else (lambda v: v)
        hi = f(*args[:i], wrap(up), *args[i + 1:])
        lo = f(*args[:i], wrap(down), *args[i + 1:])
        g[k] = (hi - lo) / (2 * eps)
    return g


def rosenbrock(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


def rosenbrock_augmented(x):
    s = 0.0
    for i in range(1, len(x)):
        s += 100.0 * (x[i] - x[i - 1] ** 2) ** 2 + (1 - x[i - 1]) ** 2
    return s


def oscillator(k, c, x, v, dt, steps):
    for _ in range(steps):
        a = -k * x - c * v
        x, v = x + dt * v, v + dt * a
    return x * x + 0.5 * v * v


def _rhs(x, y, a, b):
    return a * x - b * x * y, b * x * y - y


def euler_helper(a, b, x, y, dt, steps):
    for _ in range(steps):
        dx, dy = _rhs(x, y, a, b)
        x = x + dt * dx
        y = y + dt * dy
    return (x - 1.0) ** 2 + (y - 0.5) ** 2


def recurrence(a):
    s = a
    for _ in range(30):
        s = np.sin(s) * a + 0.5 * s
    return s


def branches(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            total = total + np.exp(-x[i]) * x[i]
        else:
            total = total - np.tanh(x[i]) ** 2
    return total


def while_loop(a):
    s, n = 1.0, 0
    while n < 12:
        s = s * a + math.cos(s)
        n += 1
    return s


def state_array(p, y0, dt, steps):
    y = y0
    for _ in range(steps):
        dy = np.array([p[0] * y[0] - p[1] * y[0] * y[1], p[1] * y[0] * y[1] - p[2] * y[1]])
        y = y + dt * dy
    return np.sum((y - 1.0) ** 2)


def logistic(w, b, X, y):
    margins = y * (X @ w + b)
    return np.mean(np.logaddexp(0.0, -margins))


def dense_tanh(W, b, X):
    h = np.tanh(X @ W + b)
    return np.sum(h * h)


def softplus_floats(a, b):
    total = 0.0
    for k in range(5):
        total = total + np.logaddexp(a * k, b)
    return total


PROGRAMS = [
    ("rosenbrock", rosenbrock, (np.linspace(-0.5, 1.2, 7),), 0),
    ("rosenbrock_augmented", rosenbrock_augmented, (np.linspace(-0.5, 1.2, 7),), 0),
    ("oscillator_floats", oscillator, (1.3, 0.2, 1.0, 0.0, 0.05, 40), (0, 1)),
    ("oscillator_numpy_scalars", oscillator,
     (np.float64(1.3), np.float64(0.2), np.float64(1.0), np.float64(0.0), 0.05, 40), (0, 1, 2)),
    ("euler_tuple_helper", euler_helper, (1.1, 0.4, 1.0, 0.5, 0.01, 50), (0, 1, 2)),
    ("recurrence", recurrence, (0.3,), 0),
    ("branches", branches, (np.array([0.3, -1.2, 2.0, -0.1]),), 0),
    ("while_loop", while_loop, (0.7,), 0),
    ("logistic", logistic, (np.array([0.3, -0.2, 0.5]), 0.1,
                            np.linspace(-1, 1, 12).reshape(4, 3), np.array([1.0, -1.0, 1.0, -1.0])),
     (0, 1)),
    ("dense_tanh_bias_rows", dense_tanh, (np.linspace(-0.5, 0.5, 6).reshape(3, 2), np.array([0.1, -0.2]),
                                          np.linspace(-1, 1, 12).reshape(4, 3)), (0, 1)),
    ("softplus_floats", softplus_floats, (0.4, -0.3), (0, 1)),
    ("state_array", state_array, (np.array([1.1, 0.4, 0.3]), np.array([1.0, 0.5]), 0.01, 20), (0, 1)),
]


@pytest.mark.parametrize("name,f,args,wrt", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_gradients_match_central_differences_and_the_default_backend(name, f, args, wrt):
    got = sg.grad(f, wrt, backend="numba")(*args)
    expected = sg.grad(f, wrt)(*args)
    many = isinstance(wrt, tuple)
    for k, i in enumerate(wrt if many else (wrt,)):
        g = got[k] if many else got
        assert type(g) is type(expected[k] if many else expected)
        assert np.shape(g) == np.shape(args[i])
        np.testing.assert_allclose(g, central(f, args, i), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g, expected[k] if many else expected, rtol=1e-12, atol=1e-14)


def test_value_and_grad_preserve_result_names_and_partial():
    x = np.linspace(-0.5, 1.2, 6)
    value, g = sg.value_and_grad(rosenbrock, backend="numba")(x)
    assert value == pytest.approx(rosenbrock(x))
    np.testing.assert_allclose(g, central(rosenbrock, (x,), 0), rtol=1e-6)
    g2, value2 = sg.grad(rosenbrock, preserve_result=True, backend="numba")(x)
    assert value2 == pytest.approx(value)
    np.testing.assert_allclose(g2, g)
    args = (1.3, 0.2, 1.0, 0.0, 0.05, 40)
    by_name = sg.grad(oscillator, ("k", "c"), backend="numba")(*args)
    np.testing.assert_allclose(by_name, [central(oscillator, args, 0), central(oscillator, args, 1)],
                               rtol=1e-6)
    part = sg.grad(functools.partial(oscillator, 1.3), 0, backend="numba")
    np.testing.assert_allclose(part(0.2, 1.0, 0.0, 0.05, 40), by_name[1], rtol=1e-12)


def test_new_argument_kinds_compile_again_and_values_are_not_frozen():
    g = sg.grad(rosenbrock, backend="numba")
    for x in (np.linspace(0, 1, 5), np.linspace(0, 1, 9), np.linspace(0, 1, 9).astype(np.float32)):
        out = g(x)
        assert out.dtype == x.dtype and out.shape == x.shape
        np.testing.assert_allclose(out, sg.grad(rosenbrock)(x), rtol=1e-5)


SCALE = 2.0


def scaled(x):
    return SCALE * x * x


def test_a_rebound_global_scalar_is_read_again():
    # Numba compiles a global's value into the code; the backend checks it is the
    # same object at each call and compiles again when it is not.
    global SCALE
    g = sg.grad(scaled, backend="numba")
    assert g(3.0) == pytest.approx(12.0)
    SCALE = 5.0
    try:
        assert g(3.0) == pytest.approx(30.0)
    finally:
        SCALE = 2.0


WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(WEIGHTS * x ** 2)


def test_a_global_array_is_refused_naming_it_and_the_line():
    with pytest.raises(sg.CompileError, match=r"`WEIGHTS`, an array read from outside") as info:
        sg.grad(weighted, backend="numba")(np.ones(3))
    assert info.value.filename.endswith(HERE)
    assert info.value.lineno == weighted.__code__.co_firstlineno + 1


def sorted_sum(x):
    return np.sum(np.sort(x) * np.arange(1.0, 4.0))


def uses_cumsum(x):
    c = np.cumsum(x)
    return np.sum(c * c)


@pytest.mark.parametrize("f", [sorted_sum, uses_cumsum])
def test_what_numba_cannot_type_is_refused_naming_the_line(f):
    with pytest.raises(sg.CompileError, match="Numba|numba") as info:
        sg.grad(f, backend="numba")(np.array([3.0, 1.0, 2.0]))
    assert info.value.filename.endswith(HERE)
    assert info.value.lineno in range(f.__code__.co_firstlineno, f.__code__.co_firstlineno + 3)
    assert "default backend" in str(info.value)


def tanh_layer_tuple(params, X):
    W, b = params
    return np.sum(np.tanh(X @ W + b) ** 2)


def tanh_layer_dict(params, X):
    return np.sum(np.tanh(X @ params["W"] + params["b"]) ** 2)


def tanh_layers_nested(params, X):
    (W1, b1), (W2, b2) = params
    h = np.tanh(X @ W1 + b1)
    return np.sum(np.tanh(h @ W2 + b2) ** 2)


def test_parameter_trees_give_gradients_of_their_structure():
    rng = np.random.default_rng(0)
    W, b, X = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
    cases = [(tanh_layer_tuple, (W, b)), (tanh_layer_dict, {"W": W, "b": b}),
             (tanh_layers_nested, ((W, b), (rng.normal(size=(2, 2)), rng.normal(size=2))))]
    for f, params in cases:
        got = sg.grad(f, backend="numba")(params, X)
        want = sg.grad(f)(params, X)
        assert type(got) is type(want)
        for g, h in zip(_leaves(got), _leaves(want)):
            np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-14)
    check = sg.grad(tanh_layer_tuple, backend="numba")((W, b), X)
    np.testing.assert_allclose(check[1], central(lambda bb: tanh_layer_tuple((W, bb), X), (b,), 0),
                               rtol=1e-6)


def _leaves(tree):
    if isinstance(tree, dict):
        return [v for k in sorted(tree) for v in _leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [v for item in tree for v in _leaves(item)]
    return [tree]


def test_keyword_only_parameters_are_refused():
    def keyword(x, *, c):
        return c * x * x

    with pytest.raises(sg.CompileError, match="keyword-only"):
        sg.grad(keyword, backend="numba")(1.0, c=2.0)


def test_int_arguments_and_unknown_backends_are_refused():
    with pytest.raises(TypeError, match="floating-point"):
        sg.grad(recurrence, backend="numba")(1)
    with pytest.raises(ValueError, match="backend must be one of"):
        sg.grad(recurrence, backend="jax")


def test_without_numba_the_backend_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # ``import numba`` raises ImportError
    with pytest.raises(ImportError, match=r"srcgrad\[numba\]"):
        sg.grad(recurrence, backend="numba")


def masked_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(np.abs(x)), 0.0))


def test_masked_infinities_get_the_default_backends_answer_or_a_refusal():
    # At 0 the unselected branch's derivative is infinite: the default backend
    # computes the gradient again with strong zeros. The Numba backend must give
    # the same finite answer or refuse, never the NaN.
    x = np.array([0.0, 4.0])
    expected = sg.grad(masked_sqrt)(x)
    try:
        got = sg.grad(masked_sqrt, backend="numba")(x)
    except sg.CompileError:
        return
    np.testing.assert_allclose(got, expected)


def broadcast_rows(a, b):
    return np.sum(np.sin(a * b) + a)


@pytest.mark.parametrize("shape_b", [(1, 3), (2, 1), (1, 1)])
def test_gradients_summed_down_to_size_one_axes(shape_b):
    a = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    b = np.linspace(-0.4, 0.7, int(np.prod(shape_b))).reshape(shape_b)
    ga, gb = sg.grad(broadcast_rows, (0, 1), backend="numba")(a, b)
    assert gb.shape == shape_b
    np.testing.assert_allclose(gb, central(broadcast_rows, (a, b), 1), rtol=1e-6)
    np.testing.assert_allclose(ga, central(broadcast_rows, (a, b), 0), rtol=1e-6)


def test_a_broadcast_of_rank_three_is_refused_when_it_runs():
    a = np.ones((2, 2, 3))
    b = np.ones((1, 2, 3))
    with pytest.raises(sg.CompileError, match="rank 3"):
        sg.grad(broadcast_rows, 1, backend="numba")(a, b)


def integer_power(x, n):
    return x * (n ** 30)


def integer_factorial(x, n):
    p = 1
    for k in range(1, n + 1):
        p = p * k
    return x * p


@pytest.mark.parametrize("f", [integer_power, integer_factorial])
def test_integer_arithmetic_that_can_wrap_is_refused(f):
    # Numba's integers are 64-bit: 7 ** 30 and 25! wrap where Python's grow, a wrong
    # number with no error. The default backend's answer, for the record:
    assert sg.grad(f)(1.0, 25) == f(1.0, 25) > 2.0 ** 63
    with pytest.raises(sg.CompileError, match="integer `\\*") as info:
        sg.grad(f, backend="numba")(1.0, 25)
    assert info.value.filename.endswith(HERE)


def indexed_pairs(x):
    total = 0.0
    for i in range(len(x) // 2):
        total = total + x[2 * i] * x[2 * i + 1]
    return total


def test_small_constant_factors_of_indices_are_not_refused():
    x = np.linspace(0.5, 1.5, 6)
    np.testing.assert_allclose(sg.grad(indexed_pairs, backend="numba")(x),
                               central(indexed_pairs, (x,), 0), rtol=1e-6)


def ufunc_out(x):
    b = np.zeros_like(x)
    c = np.zeros_like(b)
    np.multiply(np.sum(c) - 0.7, c, out=c)
    c[0] -= np.mean(b)
    return np.mean(b) + np.mean(x) + np.sum(c * c)


def test_an_error_numba_raises_lowering_the_code_is_a_refusal():
    # (Fuzzer program 40502:291: Numba raises NotImplementedError, not its own error
    # class, for a ufunc's ``out=``.)
    with pytest.raises(sg.CompileError, match="Numba cannot compile") as info:
        sg.grad(ufunc_out, backend="numba")(np.array([-1.4, -1.2]))
    assert info.value.filename.endswith(HERE)


def divides(x, d):
    return x / d


def test_an_error_the_compiled_code_raises_is_the_users():
    with pytest.raises(ZeroDivisionError):
        sg.grad(divides, backend="numba")(1.0, 0.0)


def test_a_lambda_is_kept_alive_by_its_gradient():
    # (The gradient holds the function weakly but for the wrapper's reference.)
    g = sg.value_and_grad(lambda x: np.sum(x ** 2), backend="numba")
    import gc
    gc.collect()
    value, grad = g(np.ones(3, np.float32))
    assert value == pytest.approx(3.0)
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, 2.0)


def cube(x):
    return x ** 3


def test_a_numba_gradient_is_not_differentiated_again_and_an_outer_one_is():
    with pytest.raises(sg.CompileError, match="differentiated again"):
        sg.grad(sg.grad(cube, backend="numba"))(2.0)
    assert sg.grad(sg.grad(cube), backend="numba")(2.0) == pytest.approx(12.0)


def test_add_at_leaves_the_adjoint_it_adds_to_as_it_was():
    # (``core.add_at`` returns a copy: the backward code may hold ``base`` under another
    # name, and adding in place would change that one too.)
    import numba
    from srcgrad.runtime import numba_rt

    @numba.njit
    def twice(base):
        return numba_rt.add_at(base, 1, 2.0), base

    out, base = twice(np.zeros(3))
    np.testing.assert_array_equal(out, [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(base, [0.0, 0.0, 0.0])


def products_of_every_rank(A, B, v, w):
    return np.sum(np.tanh(A @ B)) + np.sum(np.sin(v @ B)) + np.sum(A @ w) + (v @ v) * 0.5 \
        + np.sum(np.dot(A, B) ** 2) + np.dot(v, v) + np.sum(np.dot(v, B))


def test_products_of_vectors_and_matrices_in_every_order():
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(3, 4)), rng.normal(size=(4, 3)), rng.normal(size=4),
            rng.normal(size=4))
    got = sg.grad(products_of_every_rank, (0, 1, 2, 3), backend="numba")(*args)
    want = sg.grad(products_of_every_rank, (0, 1, 2, 3))(*args)
    for k, (g, h) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, central(products_of_every_rank, args, k), rtol=1e-6,
                                   atol=1e-8)


def test_the_product_adjoints_agree_with_the_default_runtimes_in_every_rank():
    # (Generated code calls them where ranks are not known when compiling: a value from
    # a list, a helper's return. Each rank pair against runtime/adjoints.py's.)
    import numba
    from srcgrad.runtime import adjoints, numba_rt

    @numba.njit
    def products(g, a, b):
        return (numba_rt.matmul_grad_x1(g, a, b), numba_rt.matmul_grad_x2(g, a, b),
                numba_rt.dot_grad(g, a, b, 0), numba_rt.dot_grad(g, a, b, 1))

    rng = np.random.default_rng(4)
    shapes = {(2, 2): ((3, 4), (4, 2)), (1, 2): ((4,), (4, 2)), (2, 1): ((3, 4), (4,)),
              (1, 1): ((4,), (4,))}
    for (a_shape, b_shape) in shapes.values():
        a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
        g = rng.normal(size=np.shape(a @ b))
        g = g if np.ndim(g) else float(g)
        got = products(g, a, b)
        want = (adjoints.matmul_grad_x1(g, a, b), adjoints.matmul_grad_x2(g, a, b),
                adjoints.dot_grad(g, a, b, 0), adjoints.dot_grad(g, a, b, 1))
        for x, y in zip(got, want):
            np.testing.assert_allclose(x, y, rtol=1e-13)

    @numba.njit
    def transposed(g):
        return numba_rt.transpose_grad(g, None)

    for shape in ((3, 4), (2, 3, 4)):
        g = rng.normal(size=shape)
        np.testing.assert_array_equal(transposed(g), adjoints.transpose_grad(g, None))


# -- The fast path of a call with the last call's kinds (compiler/numba_fast.py) -----------

def _fast_of(g):
    return g.__srcgrad_compiled__.fast


def add_both(x, y):
    z = x + y
    return np.sum(z * z)


def test_the_fast_path_gives_the_general_paths_answers_for_every_kind_in_turn():
    # Arguments of the last call's kinds take the fast path; any other kind (a view, an
    # F-ordered or read-only array, another dtype or size, a NumPy scalar) must not be
    # run with the machine code compiled for the first kind.
    g = sg.grad(rosenbrock, backend="numba")
    base = np.linspace(-0.5, 1.2, 12)
    readonly = base.copy()
    readonly.flags.writeable = False
    for x in (base, base[::2], base.astype(np.float32), readonly, base, base[:5], base):
        out = g(x)
        assert _fast_of(g) is not None or not x.flags.c_contiguous or not x.flags.writeable
        assert out.dtype == x.dtype and out.shape == x.shape and out.flags.writeable
        np.testing.assert_allclose(out, sg.grad(rosenbrock)(x), rtol=1e-5)
        np.testing.assert_allclose(out, central(rosenbrock, (x.astype(float),), 0),
                                   rtol=1e-5 if x.dtype == np.float32 else 1e-6, atol=1e-6)
    assert g(base) is not g(base)  # a new array at each call
    args = (1.3, 0.2, 1.0, 0.0, 0.05, 40)
    h = sg.grad(oscillator, (0, 1), backend="numba")
    first = h(*args)
    assert _fast_of(h) is not None
    for call in (args, (np.float64(1.3),) + args[1:], args):
        got = h(*call)
        assert [type(v) for v in got] == [np.float64, np.float64]
        np.testing.assert_allclose(got, first, rtol=1e-12)
        np.testing.assert_allclose(got, [central(oscillator, args, 0), central(oscillator, args, 1)],
                                   rtol=1e-6)


def test_the_fast_path_checks_guards_casts_and_shared_gradients():
    global SCALE
    g = sg.grad(scaled, backend="numba")
    g(3.0)
    assert g(3.0) == pytest.approx(12.0) and _fast_of(g) is not None
    SCALE = 5.0
    try:
        assert g(3.0) == pytest.approx(30.0)  # the guard failed: compiled again
    finally:
        SCALE = 2.0
    assert g(3.0) == pytest.approx(12.0)
    # Two gradients of one array (``z = x + y``): the fast path copies one, as the
    # general path does; value_and_grad returns the value first.
    x, y = np.array([0.5, -1.0]), np.array([2.0, 0.25])
    vg = sg.value_and_grad(add_both, (0, 1), backend="numba")
    for _ in range(3):
        value, (gx, gy) = vg(x, y)
        assert _fast_of(vg) is not None
        assert value == pytest.approx(add_both(x, y))
        np.testing.assert_allclose(gx, 2 * (x + y))
        np.testing.assert_allclose(gy, 2 * (x + y))
        assert not np.shares_memory(gx, gy)


def test_a_masked_infinity_on_the_fast_path_gets_the_strong_zero_answer():
    # The second call takes the fast path; its gradient is not finite, so the general
    # path's strong-zero rerun gives the answer (or the backend refuses, as before).
    g = sg.grad(masked_sqrt, backend="numba")
    finite = np.array([1.0, 4.0])
    masked = np.array([0.0, 4.0])
    try:
        np.testing.assert_allclose(g(finite), sg.grad(masked_sqrt)(finite))
        assert _fast_of(g) is not None
        np.testing.assert_allclose(g(masked), sg.grad(masked_sqrt)(masked))
    except sg.CompileError:
        return
    assert np.all(np.isfinite(g(masked)))


# -- Stacks of numbers as arrays, placeholders typed (compiler/numba_stacks.py) ------------

def _numba_text(g):
    return "\n".join(e.text for e in g.__srcgrad_compiled__.entries.values())


def nested_floats(a, b, n):
    s = 0.0
    for i in range(n):
        t = a * i
        for j in range(3):
            t = np.sin(t) * b + 0.1 * s
            s = s + t * t
    return s


def while_floats(a, b):
    x, k = a, 0
    while x < 40.0:
        y = x * b
        x = x + y * y + 1.0
        k += 1
    return x + y


def mixed_pushes(a, n):
    s = 1  # an int first, floats after: Numba types the stack's items as floats
    for i in range(n):
        s = s * a + i
    return s * s


def lotka_helper(x, y, a, b):
    return a * x - b * x * y, b * x * y - y


def rk4_floats(a, b, x, y, dt, steps):
    for _ in range(steps):
        k1x, k1y = lotka_helper(x, y, a, b)
        k2x, k2y = lotka_helper(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, a, b)
        x = x + dt * (k1x + k2x) / 2.0
        y = y + dt * (k1y + k2y) / 2.0
    return (x - 1.0) ** 2 + (y - 0.5) ** 2


STACKED = [
    ("rk4_tuple_helper", rk4_floats, (1.1, 0.4, 1.0, 0.5, 0.01, 60), (0, 1), True),
    ("nested_loops", nested_floats, (0.3, 0.7, 4), (0, 1), False),
    ("unknown_trip_count", nested_floats, (0.3, 0.7, 0), (0, 1), False),
    ("while_loop", while_floats, (1.5, 0.8), (0, 1), False),
    ("mixed_push_types", mixed_pushes, (0.9, 7), 0, False),
    ("rosenbrock_array", rosenbrock, (np.linspace(-0.5, 1.2, 9),), 0, False),
]


def _agrees(f, args, wrt, got):
    """Each gradient in ``got`` against central differences and the default backend;
    the gradients, one per ``wrt``."""
    expected = sg.grad(f, wrt)(*args)
    many = isinstance(wrt, tuple)
    out = []
    for k, i in enumerate(wrt if many else (wrt,)):
        gk = got[k] if many else got
        np.testing.assert_allclose(gk, central(f, args, i), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gk, expected[k] if many else expected, rtol=1e-12, atol=1e-14)
        out.append(gk)
    return out


@pytest.mark.parametrize("name,f,args,wrt,rewritten", STACKED, ids=[p[0] for p in STACKED])
def test_typed_stacks_and_placeholders_keep_the_gradients(name, f, args, wrt, rewritten):
    g = sg.grad(f, wrt, backend="numba")
    _agrees(f, args, wrt, g(*args))
    _agrees(f, args, wrt, g(*args))  # (and through the fast path)
    if rewritten:  # the mechanism ran: the saved floats are on arrays, no None is left
        text = _numba_text(g)
        assert "_sg.stack_new(0.0" in text and "= None" not in text and ".append(" not in text


def test_the_placeholder_rewrite_rules():
    from srcgrad.compiler.numba_stacks import typed_stacks

    def typed(src, *args):
        scope = {}
        exec(src, scope)
        return typed_stacks(src, scope["f"], args)

    # Read after a store on every path, pushed and popped: typed, its stack an array.
    ok = ("def f(n, a):\n    v = None\n    v_stack = []\n    for i in range(n):\n"
          "        v_stack.append(v)\n        v = a * i\n    v = v_stack.pop()\n    return a\n")
    out = typed(ok, 3, 1.5)
    assert "v = 0.0" in out and "_sg.stack_new(0.0" in out
    # Read where the loop may have run no trip (its None): left as it is.
    unset = ("def f(n, a):\n    v = None\n    for i in range(n):\n        v = a * i\n"
             "    return v + 1.0\n")
    assert "v = None" in typed(unset, 3, 1.5)
    # A copy of another optional name may be its None: not a store that sets it.
    copied = ("def f(n, a):\n    w = None\n    v = None\n    for i in range(n):\n"
              "        v = w\n        w = a\n        v = v + 1.0\n    return a\n")
    assert "v = None" in typed(copied, 3, 1.5)
    # Items of another type (arrays) stay on a list.
    arrays = ("def f(n, a):\n    v_stack = []\n    v = a\n    for i in range(n):\n"
              "        v_stack.append(v)\n        v = v * 2.0\n    return v_stack.pop()\n")
    assert "v_stack = []" in typed(arrays, 3, np.ones(2))


# -- Stacks sized in advance (numba_stacks._sized) ----------------------------------------

def under_if(a, b, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s = s * a + np.sin(s)
        else:
            s = s * b
    return s


def triangle(a, n):
    s = a
    for i in range(n):
        for j in range(i):  # an inner count the outer loop changes: not known in advance
            s = np.sin(s) * a
    return s


def array_state(x, n):
    s = 0.0
    for i in range(1, len(x) - n, 2):
        s = np.sin(s) + x[i] * x[i + 1]
    return s


def loop_then_while(a, n):
    s = a
    for i in range(n):
        s = np.sin(s) * a
    while s < 5.0:
        s = np.sin(s) * 0.5 + s * 1.5 + a
    return s


SIZED = [
    # name, f, args, wrt, how the stacks grow: "sized" (all), "grown" (all), "mixed"
    ("rk4_tuple_helper", rk4_floats, (1.1, 0.4, 1.0, 0.5, 0.01, 60), (0, 1), "sized"),
    ("nested_known_loops", nested_floats, (0.3, 0.7, 5), (0, 1), "sized"),
    ("bound_from_argument_0_trips", nested_floats, (0.3, 0.7, 0), (0, 1), "sized"),
    ("pushes_under_if", under_if, (0.9, 0.7, 9), (0, 1), "sized"),
    ("array_and_floats", array_state, (np.linspace(-0.5, 1.2, 11), 3), 0, "sized"),
    ("many_trips", rk4_floats, (1.1, 0.4, 1.0, 0.5, 0.001, 700), (0, 1), "sized"),
    ("while_loop", while_floats, (1.5, 0.8), (0, 1), "grown"),
    ("triangular_loops", triangle, (0.8, 7), 0, "grown"),
    ("loop_then_while", loop_then_while, (0.8, 30), 0, "mixed"),
]


@pytest.mark.parametrize("name,f,args,wrt,how", SIZED, ids=[p[0] for p in SIZED])
def test_stacks_sized_in_advance_keep_the_gradients(name, f, args, wrt, how):
    g = sg.grad(f, wrt, backend="numba")
    first = g(*args)
    got = _agrees(f, args, wrt, g(*args))  # (and through the fast path)
    for k, gk in enumerate(got):
        np.testing.assert_array_equal(first[k] if isinstance(wrt, tuple) else first, gk)
    text = _numba_text(g)
    assert "_sg.stack_new(" in text  # stacks of numbers are arrays
    if how == "sized":
        assert "_sg.stack_reserve(" in text and "_sg.stack_put(" in text
        assert "_sg.stack_grown(" not in text
    elif how == "grown":
        assert "_sg.stack_grown(" in text and "_sg.stack_put(" not in text
    else:  # a stack pushed in the for loop and the while: grown; the for's own: sized
        assert "_sg.stack_grown(" in text and "_sg.stack_put(" in text
        assert not any("stack_put" in ln and "stack_grown" in ln for ln in text.splitlines())


def test_nested_bounds_are_products_of_trip_counts():
    g = sg.grad(nested_floats, (0, 1), backend="numba")
    g(0.3, 0.7, 4)
    text = _numba_text(g)
    assert "_sg.stack_product(len(i_range), len(range(3)))" in text


def test_a_wrong_bound_raises_instead_of_writing_past_the_end():
    import numba
    from srcgrad.compiler.numba_stacks import typed_stacks
    from srcgrad.runtime import numba_rt

    src = ("def f(n, a):\n    v_stack = []\n    v = 0.0\n    for i in range(n):\n"
           "        v_stack.append(v)\n        v = v * a + 1.0\n"
           "    for i in range(n):\n        v = v_stack.pop()\n    return v\n")

    def load(text):
        scope = {"_sg": numba_rt, "np": np}
        exec(text, scope)
        return scope["f"]
    out = typed_stacks(src, load(src), (5, 1.5))
    assert "len(range(n))" in out and "_sg.stack_put(" in out
    assert numba.njit(load(out))(5, 1.5) == 0.0
    wrong = out.replace("len(range(n))", "len(range(n)) - 2")  # a bound one short... two
    with pytest.raises(AssertionError, match="overflowed"):
        numba.njit(load(wrong))(5, 1.5)


# -- Gradients of arrays written into arrays the fast path makes (numba_fast._filled) -------

def arrays_and_floats(x, a, W):
    s = a
    for i in range(len(x)):
        s = s * 0.9 + np.sin(x[i]) * a
    return s + np.sum(W * W) * a


def _filled_of(g):
    fast = _fast_of(g)
    return fast is not None and "fp" in fast.__globals__


@pytest.mark.parametrize("written", [True, False], ids=["written", "copied"])
@pytest.mark.parametrize("mode", ["grad", "value_and_grad"])
def test_filled_gradients_are_each_calls_own_and_right(mode, written, monkeypatch):
    from srcgrad.compiler import numba_fast
    monkeypatch.setattr(numba_fast, "_NO_WRITTEN", not written)
    make = sg.grad if mode == "grad" else sg.value_and_grad
    g = make(arrays_and_floats, (0, 1, 2), backend="numba")
    ref = make(arrays_and_floats, (0, 1, 2))
    rng = np.random.default_rng(3)
    calls = [(rng.normal(size=7), float(rng.normal()), rng.normal(size=(2, 3))) for _ in range(4)]
    kept = []
    for args in calls:
        out = g(*args)
        expected = ref(*args)
        if mode == "value_and_grad":
            assert out[0] == pytest.approx(expected[0], rel=1e-12)
            out, expected = out[1], expected[1]
        assert [type(v) for v in out] == [np.ndarray, np.float64, np.ndarray]
        for k, i in enumerate((0, 1, 2)):
            np.testing.assert_allclose(out[k], expected[k], rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(out[k], central(arrays_and_floats, args, i), rtol=1e-6,
                                       atol=1e-8)
        assert out[0].flags.writeable and out[2].flags.writeable
        assert out[0].shape == args[0].shape and out[2].shape == args[2].shape
        kept.append((out, [np.copy(v) for v in out]))
    assert _filled_of(g)
    # x's gradient is accumulated into the array made for it (or copied there); W's,
    # an expression's value, copied.
    assert _fast_of(g).__globals__["written"] == ({0} if written else set())
    # A gradient kept from an earlier call is not overwritten by later ones.
    for out, copy in kept:
        for v, c in zip(out, copy):
            np.testing.assert_array_equal(v, c)
    arrays = [v for out, _ in kept for v in (out[0], out[2])]
    assert all(not np.shares_memory(p, q) for k, p in enumerate(arrays) for q in arrays[k + 1:])


@pytest.mark.parametrize("written", [True, False], ids=["written", "copied"])
def test_filled_rosenbrock_keeps_dtype_and_earlier_gradients(written, monkeypatch):
    from srcgrad.compiler import numba_fast
    monkeypatch.setattr(numba_fast, "_NO_WRITTEN", not written)
    g = sg.grad(rosenbrock, backend="numba")
    x = np.linspace(-0.5, 1.2, 12)
    first = g(x)
    second = g(x)
    assert _filled_of(g)
    assert _fast_of(g).__globals__["written"] == ({0} if written else set())
    kept = second.copy()
    third = g(x * 0.5)
    np.testing.assert_array_equal(second, kept)
    assert not np.shares_memory(second, third)
    np.testing.assert_allclose(third, sg.grad(rosenbrock)(x * 0.5), rtol=1e-12)
    np.testing.assert_array_equal(first, second)
    x32 = x.astype(np.float32)
    for _ in range(3):
        out = g(x32)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, sg.grad(rosenbrock)(x32), rtol=1e-5)
