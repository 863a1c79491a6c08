"""Rank inference (``passes/ranks.py``): between scalars nothing is broadcast,
so the generated code calls no ``_sg.unbroadcast``. The gradients themselves
are checked everywhere else; these tests check that the calls are gone where
the scalars are known, including code that differentiates generated code.
"""
import math

import numpy as np
import pytest

import srcgrad as sg
import srcgrad.tape.tape as tape_module
from srcgrad.testing import check_grads


def recurrence(a):
    s = a
    for _ in range(5):
        s = np.sin(s) * a + 0.5 * s
    return s


def _text(g, *args):
    return g.__srcgrad_compiled__.entry(args).text


def test_scalar_code_has_no_unbroadcast():
    g = sg.grad(recurrence)
    assert math.isclose(g(0.7), sg.grad(recurrence)(0.7))
    assert "unbroadcast" not in _text(g, 0.7)


def test_second_derivative_of_scalar_code_has_no_unbroadcast():
    g2 = sg.grad(sg.grad(recurrence))
    eps = 1e-5
    numeric = (sg.grad(recurrence)(0.7 + eps) - sg.grad(recurrence)(0.7 - eps)) / (2 * eps)
    assert math.isclose(g2(0.7), numeric, rel_tol=1e-6)
    assert "unbroadcast" not in _text(g2, 0.7)


def test_arrays_keep_their_unbroadcast():
    g = sg.grad(lambda x, b: np.sum(np.tanh(x + b)), wrt=1)
    x = np.ones((3, 2))
    np.testing.assert_allclose(g(x, np.zeros(2)), np.full(2, 3.0 * (1.0 - np.tanh(1.0) ** 2)))
    assert "unbroadcast" in _text(g, x, np.zeros(2))


def _nested(a_value):
    a = sg.Variable(a_value)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            s = recurrence(a)
        ds = inner.gradient(s, a)
    return outer.gradient(ds, a)


def test_nested_tapes_on_a_scalar_variable_have_no_unbroadcast():
    eps = 1e-5
    numeric = (sg.grad(recurrence)(0.7 + eps) - sg.grad(recurrence)(0.7 - eps)) / (2 * eps)
    assert math.isclose(float(_nested(0.7)), numeric, rel_tol=1e-6)
    texts = [e.text for e in tape_module._COMPILED.values() if "recurrence" in e.text]
    assert texts  # the block (with the inner block's adjoint code inlined)
    assert not any("unbroadcast" in t for t in texts)


def lotka_volterra(state, p):
    prey, predator = state[0], state[1]
    return np.array([p[0] * prey - p[1] * prey * predator,
                     p[3] * prey * predator - p[2] * predator])


def integrate(p, y0, dt):
    y = y0
    for _ in range(3):
        y = y + dt * lotka_volterra(y, p)
    return np.sum(y ** 2)


def test_items_of_computed_vectors_are_scalars():
    g = sg.grad(integrate)
    args = (np.array([1.1, 0.4, 0.4, 0.1]), np.array([1.0, 0.5]), 0.1)
    np.testing.assert_allclose(g(*args), _numeric(integrate, args), rtol=1e-6)
    text = _text(g, *args)
    # Between the scalars prey, predator and p[i] nothing is undone; only the vector y's
    # adjoints (elementwise with dt, a scalar) may be.
    assert "unbroadcast(" not in "\n".join(l for l in text.splitlines() if "prey" in l)


def _numeric(f, args, eps=1e-6):
    p = args[0]
    out = np.zeros_like(p)
    for i in range(p.size):
        step = np.zeros_like(p)
        step[i] = eps
        out[i] = (f(p + step, *args[1:]) - f(p - step, *args[1:])) / (2 * eps)
    return out


def grows_into_a_vector(a, v):
    s = a * 1.0
    for _ in range(3):
        s = s + v * a      # a scalar at first, a vector after one step
    return np.sum(s * a)   # da needs s's values summed: s must not pass for a scalar


def made_2d(a, w):
    m = np.array([a, a * 2.0], ndmin=2)  # rank 2, not 1
    return np.sum(m[0] * w)


def test_ranks_that_change_or_are_unknown_keep_their_unbroadcast():
    v = np.array([0.5, -1.0, 2.0])
    g = sg.grad(grows_into_a_vector)
    np.testing.assert_allclose(g(0.7, v), _numeric_scalar(grows_into_a_vector, 0.7, v), rtol=1e-6)
    assert "unbroadcast(" in _text(g, 0.7, v)
    w = np.array([1.0, -2.0])
    g2 = sg.grad(made_2d)
    np.testing.assert_allclose(g2(0.3, w), _numeric_scalar(made_2d, 0.3, w), rtol=1e-6)


def _numeric_scalar(f, a, *rest, eps=1e-6):
    return (f(a + eps, *rest) - f(a - eps, *rest)) / (2 * eps)


# Products specialised on their operands' ranks (derivatives.BY_RANK): the
# adjoint is the hand-written one (``g @ W.T``), with no helper and no unbroadcast.

def _matmul_op(a, b):
    return np.sum(np.tanh(a @ b))


def _matmul_fn(a, b):
    return np.sum(np.tanh(np.matmul(a, b)))


def _dot_fn(a, b):
    return np.sum(np.tanh(np.dot(a, b)))


def _dot_method(a, b):
    return np.sum(np.tanh(a.dot(b)))


_SHAPES = {(2, 2): ((3, 4), (4, 2)), (2, 1): ((3, 4), (4,)), (1, 2): ((4,), (4, 2)),
           (1, 1): ((4,), (4,)), "size-1 axes": ((1, 4), (4, 1))}


@pytest.mark.parametrize("f", [_matmul_op, _matmul_fn, _dot_fn, _dot_method],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("ranks", list(_SHAPES), ids=str)
def test_products_of_known_ranks_use_the_hand_written_adjoint(f, ranks):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape) for shape in _SHAPES[ranks])
    check_grads(f, (a, b), order=2)
    text = _text(sg.grad(f, wrt=(0, 1)), a, b)
    assert "matmul_grad" not in text and "dot_grad" not in text
    assert "unbroadcast" not in text


def _batched(a, b):
    return np.sum(np.tanh(a @ b))


def test_products_of_other_ranks_keep_the_general_adjoint():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2))
    check_grads(_batched, (a, b), order=1)
    text = _text(sg.grad(_batched, wrt=(0, 1)), a, b)
    assert "matmul_grad_x1" in text and "unbroadcast" in text
    s = rng.standard_normal(())  # a 0-d array: np.dot(a, b) is a product by a scalar
    check_grads(_dot_fn, (s, b), order=1)
    assert "dot_grad" in _text(sg.grad(_dot_fn, wrt=(0, 1)), s, b)


def _ranks_of(f, *args):
    """The ranks inferred for ``f``'s variables at ``args`` (every argument differentiated)."""
    from srcgrad.compiler import pipeline as compiler, source
    from srcgrad.passes import normalize, ranks, record
    from srcgrad.passes.desugar import desugar

    src = source.parse_function(f)
    ctx = compiler.Context(src, compiler.Guards())
    node, params = compiler._signature(src, ctx, list(args))
    normalize.normalize(node, ctx, list(params), desugar)
    body = node.body[:-1]
    record.instrument(body, ctx.namer)
    return ranks.infer(body, params, list(args), set())[0]


def _ranked(A, B, v, w):
    p = A @ B                      # 2
    q = A @ v                      # 1
    r = v @ w                      # 0
    s = np.dot(A, v)               # 1
    t = np.dot(v, B)               # 1
    u = np.dot(r, B)               # 2
    m = np.max(A, axis=1, keepdims=True)   # 2
    n = np.sum(A, axis=0)          # 1
    o = np.mean(A)                 # 0
    k = A.T                        # 2
    z = np.linalg.solve(A, v)      # not elementwise: unknown
    return np.sum(p) + np.sum(q) + r + np.sum(s + t) + np.sum(u) + np.sum(m) + np.sum(n) \
        + o + np.sum(k) + np.sum(z)


def test_ranks_of_products_reductions_and_transposes():
    rng = np.random.default_rng(2)
    args = (rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal(3),
            rng.standard_normal(3))
    found = _ranks_of(_ranked, *args)
    want = {"p": 2, "q": 1, "r": 0, "s": 1, "t": 1, "u": 2, "m": 2, "n": 1, "o": 0, "k": 2}
    assert {n: found.get(n) for n in want} == want
    assert "z" not in found
    check_grads(_ranked, args, order=1)


def rnn(Wx, Wh, xs):
    h = np.zeros((xs.shape[1], Wh.shape[0]))   # rank 2: a shape written out
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh)          # xs[t] of a constant array: rank 2
    return np.sum(h * h)


def filled_like(w, x):
    acc = np.zeros_like(w)
    acc = acc + w * x
    return np.sum(acc @ w)


def test_ranks_of_arrays_made_in_the_function():
    rng = np.random.default_rng(3)
    Wx, Wh, xs = rng.standard_normal((4, 3)), rng.standard_normal((3, 3)), rng.standard_normal((5, 2, 4))
    check_grads(rnn, (Wx, Wh, xs), order=2, wrt=(0, 1))
    text = _text(sg.grad(rnn, wrt=(0, 1)), Wx, Wh, xs)
    assert "matmul_grad" not in text
    w, x = rng.standard_normal((3, 3)), rng.standard_normal(3)
    check_grads(filled_like, (w, x), order=2)
    assert "matmul_grad" not in _text(sg.grad(filled_like, wrt=(0, 1)), w, x)


def _jacobian_of(f, a, b, wrt):
    with sg.GradientTape() as tape:
        tape.watch(a)
        tape.watch(b)
        y = f(a, b)
    return tape.jacobian(y, a if wrt == 0 else b)


def _vector_product(a, b):
    return np.tanh(a @ b)


def _numeric_jacobian(f, args, wrt, eps=1e-6):
    x = args[wrt]
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        plus = list(args)
        minus = list(args)
        plus[wrt] = x + e.reshape(x.shape)
        minus[wrt] = x - e.reshape(x.shape)
        cols.append((f(*plus) - f(*minus)) / (2 * eps))
    y = f(*args)
    return np.stack(cols, axis=-1).reshape(np.shape(y) + x.shape)


@pytest.mark.parametrize("ranks", list(_SHAPES), ids=str)
@pytest.mark.parametrize("wrt", [0, 1])
def test_products_of_known_ranks_in_jacobians(ranks, wrt):
    # tape.jacobian runs the adjoint code on all seed rows at once (BY_RANK_ROWS).
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(shape) for shape in _SHAPES[ranks])
    got = _jacobian_of(_vector_product, a, b, wrt)
    np.testing.assert_allclose(got, _numeric_jacobian(_vector_product, (a, b), wrt),
                               rtol=1e-6, atol=1e-8)
    texts = [e.text for e in tape_module._COMPILED.values()
             if "all seed rows" in e.text and "test_ranks.py" in e.text]
    assert texts and not any("matmul_grad" in t for t in texts)


def euler_step_loss(y, p, dt):
    for _ in range(5):
        a, b = y[0], y[1]
        k = np.array([p[0] * a - a * b, b * (a - p[1])])
        y = y + dt * k
    return np.sum(y * y)


def vector_of(x):
    v = np.asarray([x[0] * x[1], np.sin(x[0])])
    w = np.array(x * 2.0)  # of an array: ranks.py does not say its rank, the rule stays
    return np.sum(v * v) + np.sum(w ** 3)


def cast_vector(x):
    v = np.array([x[0] * x[1], x[1]], dtype=float)
    return np.sum(v ** 2)


def test_vectors_of_scalars_take_their_adjoint_as_it_is():
    """``np.array([a, b])`` of scalars: item i's adjoint is ``g[i]``; nothing saved for it."""
    y, p = np.array([0.9, 0.4]), np.array([1.1, 0.7])
    g = sg.grad(euler_step_loss, wrt=(0, 1))
    g(y, p, 0.1)
    text = _text(g, y, p, 0.1)
    assert "array_grad" not in text and "real_grad" not in text, text
    assert "k_t_stack" not in text and "k_stack" not in text, text  # no list, no ans saved
    check_grads(euler_step_loss, (y, p, 0.1), wrt=(0, 1))
    x = np.array([0.3, -1.2])
    gv = sg.grad(vector_of)
    gv(x)
    assert "dv_t = dv\n" in _text(gv, x) and "array_grad(_sg.real_grad(dw, w), w_mul)" in _text(gv, x)
    check_grads(vector_of, (x,))


def test_vectors_with_a_dtype_or_in_jacobians_keep_the_general_adjoint():
    x = np.array([0.3, -1.2])
    g = sg.grad(cast_vector)
    g(x)
    assert "real_grad" in _text(g, x)  # a dtype asked for: the adjoint goes through the rule
    check_grads(cast_vector, (x,))
    with sg.GradientTape() as tape:
        tape.watch(x)
        v = np.array([x[0] * x[1], np.sin(x[0])])
    jac = tape.jacobian(v, x)
    np.testing.assert_allclose(jac, [[x[1], x[0]], [np.cos(x[0]), 0.0]])


def scaled_squares(x, s):
    return np.sum(np.sin(x * s) * x + x * x * s)


def test_an_operand_against_scalars_or_itself_needs_no_unbroadcast():
    x, s = np.linspace(0.1, 0.9, 3).reshape(3, 1), np.array(0.7)
    g = sg.grad(scaled_squares, wrt=(0, 1))
    g(x, s)
    text = _text(g, x, s)
    assert "dx = dresult_mul_3 * x\n" in text, text
    assert "dx = _sg.iadd(dx, dresult_mul * s)\n" in text, text  # (into dx's own buffer)
    assert "dresult_mul_3 = dresult_mul_4 * s\n" in text, text
    assert "ds = ds + (dresult_mul * x).sum(axis=(0, 1))" in text, text  # s is broadcast
    check_grads(scaled_squares, (x, s), wrt=(0, 1))


def _rates(x, y, a, b):
    return a * x - b * x * y, b * x * y - a * y


def two_state_steps(a, b, x, y):
    for _ in range(4):
        k1x, k1y = _rates(x, y, a, b)
        k2x, k2y = _rates(x + 0.1 * k1x, y + 0.1 * k1y, a, b)
        x = x + 0.05 * (k1x + k2x)
        y = y + 0.05 * (k1y + k2y)
    return x * x + y


def test_adjoints_of_numbers_accumulate_with_plus_not_a_helper_call():
    # (a helper call per accumulation costs a scalar loop more than the arithmetic)
    args = (0.7, 0.3, 1.2, 0.8)
    g = sg.grad(two_state_steps, wrt=(0, 1))
    g(*args)
    text = _text(g, *args)
    assert "_sg.iadd" not in text and "unbroadcast" not in text, text
    check_grads(two_state_steps, args, wrt=(0, 1, 2, 3))
    check_grads(two_state_steps, args, wrt=(0, 1), order=2)
    arrays = tuple(np.array(a) for a in args)  # 0-d arrays: the same code, right
    check_grads(two_state_steps, arrays, wrt=(0, 1))
