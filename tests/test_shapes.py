"""Shapes inferred from the sizes of the first call's arrays (``passes/ranks.py``).

The code is cached by the small sizes of the array arguments and which of
the others are equal (``ranks.size_classes``), so an unbroadcast between operands of known
shapes is written out: nothing where the operand has the result's shape, an
``np.sum`` over the broadcast axes otherwise. Each test checks the text and
the gradient against central differences, and that a call whose sizes relate
otherwise (a batch equal to a width, a batch of 1) gets code of its own.
"""
import itertools

import gast
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.passes.ranks import EXACT, _sliced, size_classes
from srcgrad.testing import check_grads


def _text(g, *args):
    return g.__srcgrad_compiled__.entry(args).text


def dense(W, b, X):
    return np.sum(np.tanh(X @ W + b) ** 2)


def dense_dict(params, X):
    return np.sum(np.tanh(X @ params["W"] + params["b"]) ** 2)


def dense_tuple(params, X):
    W, b = params
    z = X @ W
    return np.sum(np.tanh(z + b) ** 2)


def _dense_args(batch, width=4, out=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(width, out)), rng.normal(size=out), rng.normal(size=(batch, width))


def test_a_bias_over_a_batch_is_summed_written_out():
    W, b, X = _dense_args(5)
    g = sg.grad(dense, wrt=(0, 1))
    g(W, b, X)
    text = _text(g, W, b, X)
    assert "db = dresult_add.sum(axis=0)" in text, text
    assert "unbroadcast" not in text, text
    check_grads(dense, (W, b, X), wrt=(0, 1, 2))


@pytest.mark.parametrize("f, pack", [
    (dense_dict, lambda W, b: {"W": W, "b": b}),
    (dense_tuple, lambda W, b: (W, b)),
])
def test_the_same_layer_with_parameters_as_one_tree(f, pack):
    W, b, X = _dense_args(6)
    check_grads(f, (pack(W, b), X), wrt=0)
    value, grads = sg.value_and_grad(f)(pack(W, b), X)
    assert np.isclose(value, f(pack(W, b), X))
    ref = sg.grad(dense, wrt=(0, 1))(W, b, X)
    leaves = (grads["W"], grads["b"]) if isinstance(grads, dict) else grads
    for got, want in zip(leaves, ref):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_another_batch_size_reuses_the_code_and_stays_right():
    g = sg.grad(dense, wrt=(0, 1))
    for batch in (5, 7, 6, 11):  # (sizes up to 4 are keyed exactly: another entry)
        W, b, X = _dense_args(batch, seed=batch)
        check_grads(dense, (W, b, X), wrt=(0, 1))
        g(W, b, X)
    assert len(g.__srcgrad_compiled__.entries) == 1


@pytest.mark.parametrize("first, then", [(4, 6), (6, 4), (1, 5), (5, 1), (3, 6), (0, 2)])
def test_sizes_that_relate_otherwise_get_their_own_code(first, then):
    # a batch equal to the width (4), a batch of 1, a batch equal to the output width (3),
    # an empty batch: each is other code; gradients right either way
    g = sg.grad(dense, wrt=(0, 1))
    for batch in (first, then, first):
        W, b, X = _dense_args(batch, seed=batch)
        got = g(W, b, X)
        eps = 1e-6
        for k, arg in enumerate((W, b)):
            want = np.zeros_like(arg)
            for i in np.ndindex(arg.shape):
                up, down = [a.copy() for a in (W, b)], [a.copy() for a in (W, b)]
                up[k][i] += eps
                down[k][i] -= eps
                want[i] = (dense(*up, X) - dense(*down, X)) / (2 * eps)
            np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-8)


def test_size_classes_say_which_sizes_are_equal_and_which_are_small():
    a, b = np.zeros((32, 64)), np.zeros((64, 1))
    assert size_classes((a, b, 2.0)) == size_classes((np.zeros((5, 7)), np.zeros((7, 1)), 3))
    assert size_classes((np.zeros((5, 5)), np.zeros((5, 1)))) != size_classes((a, b))
    assert size_classes((np.zeros(2),)) != size_classes((np.zeros(3),))  # small: exact
    assert size_classes((np.zeros(0),)) != size_classes((np.zeros(1),))
    assert size_classes((np.zeros(5),)) == size_classes((np.zeros(9),))


def softmax_nll(logits, labels):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(logits.shape[0]), labels])


def test_keepdims_operands_are_summed_with_keepdims():
    rng = np.random.default_rng(1)
    logits, labels = rng.normal(size=(6, 4)), rng.integers(0, 4, 6)
    g = sg.grad(softmax_nll)
    g(logits, labels)
    text = _text(g, logits, labels)
    assert "axis=1, keepdims=True)" in text and "unbroadcast" not in text, text
    check_grads(softmax_nll, (logits, labels), wrt=0)
    check_grads(softmax_nll, (logits, labels), wrt=0, order=2)


def lead_and_stretched(x, b):
    return np.sum(np.sin(x * b) + b)


@pytest.mark.parametrize("xs, bs", [
    ((3, 2, 4), (1, 4)), ((3, 2, 4), (2, 1)), ((3, 2, 4), (4,)), ((3, 2, 4), (1, 1, 4)),
    ((3, 2, 4), (3, 1, 1)), ((2, 1), (1, 3)), ((4,), ()), ((1, 4), (3, 1)),
])
def test_every_broadcast_pattern_sums_to_the_operand(xs, bs):
    rng = np.random.default_rng(2)
    x, b = rng.normal(size=xs), rng.normal(size=bs)
    check_grads(lead_and_stretched, (x, b), wrt=(0, 1))
    check_grads(lead_and_stretched, (x, b), wrt=(0, 1), order=2)
    gx, gb = sg.grad(lead_and_stretched, wrt=(0, 1))(x, b)
    assert gx.shape == x.shape and np.shape(gb) == b.shape


def recurrent(Wx, Wh, b, xs):
    h = np.zeros((xs.shape[1], Wh.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum(h ** 2)


def recurrent_floats(w, u, c, xs):
    h = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] * w + h * u + c)
    return np.sum(h ** 2)


def test_a_state_made_of_argument_sizes_keeps_its_shape_through_a_loop():
    rng = np.random.default_rng(3)
    Wx, Wh, b, xs = (rng.normal(size=(3, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5,
                     rng.normal(size=4), rng.normal(size=(5, 2, 3)))
    g = sg.grad(recurrent, wrt=(0, 1, 2))
    g(Wx, Wh, b, xs)
    text = _text(g, Wx, Wh, b, xs)
    assert "unbroadcast" not in text, text
    check_grads(recurrent, (Wx, Wh, b, xs), wrt=(0, 1, 2))
    check_grads(recurrent_floats, (0.3, 0.5, 0.1, rng.normal(size=(5, 2))), wrt=(0, 1, 2))


@pytest.mark.parametrize("sa, sb", list(itertools.product([(3,), (1,), (2, 3), (2, 1), (1, 3)],
                                                          repeat=2)))
def test_pairs_of_shapes_in_every_form(sa, sb):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=sa), rng.normal(size=sb)

    def f(a, b):
        c = a * b - b
        return np.sum(np.exp(c / 3.0) + a)

    check_grads(f, (a, b), wrt=(0, 1))
    value, (ga, gb) = sg.value_and_grad(f, wrt=(0, 1))(a, b)
    assert np.isclose(value, f(a, b))
    with sg.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    ta, tb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ta, ga, rtol=1e-12)
    np.testing.assert_allclose(tb, gb, rtol=1e-12)


def rates(state, p):
    growth = p[0] - p[1] * state[1]      # (another style than test_ranks' lotka_volterra)
    decline = p[3] * state[0] - p[2]
    return np.array([growth * state[0], decline * state[1]])


def two_state_rk2(p, y0, dt):
    y = y0
    for _ in range(5):
        k1 = rates(y, p)
        k2 = rates(y + dt * k1, p)
        y = y + 0.5 * dt * (k1 + k2)
    return np.sum((y - 1.0) ** 2)


def test_a_small_state_built_with_np_array_has_its_size_known():
    # np.array([a, b]) has 2 items, and the state passed in 2 (sizes up to 4 are keyed
    # exactly): the loop's state has one shape, and nothing is unbroadcast
    p, y0 = np.array([1.1, 0.4, 0.4, 0.1]), np.array([1.5, 0.7])
    g = sg.grad(two_state_rk2)
    g(p, y0, 0.1)
    text = _text(g, p, y0, 0.1)
    assert "unbroadcast" not in text, text
    check_grads(two_state_rk2, (p, y0, 0.1), wrt=(0, 1))
    check_grads(two_state_rk2, (p, y0, 0.1), wrt=(0, 1), order=2)
    # a state of 3 is other code, and wrong shapes fail as NumPy fails
    with pytest.raises(ValueError):
        g(p, np.array([1.5, 0.7, 0.2]), 0.1)


def chain(x):
    return np.sum(np.sin(x) * x ** 2) + np.sum(x[:-1] * x[1:]) ** 2


def heat_steps(u, k):
    for _ in range(4):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = np.concatenate([u[:1], u[1:-1] + k * lap, u[-1:]])
    return np.sum(u ** 2)


def stencil_2d(u):
    gx = u[1:, :] - u[:-1, :]
    gy = u[:, 1:] - u[:, :-1]
    return np.sum(gx[:, :-1] ** 2 + gy[:-1, :] ** 2) + np.sum(u[-3:, :2] * u[:3, -2:])


@pytest.mark.parametrize("n", [5, 9, 30])
def test_slices_of_one_size_with_one_offset_have_one_size(n):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    g = sg.grad(chain)
    g(x)
    assert "unbroadcast" not in _text(g, x)
    check_grads(chain, (x,))
    check_grads(chain, (x,), order=2)
    u = rng.normal(size=n)
    h = sg.grad(heat_steps, wrt=(0, 1))
    h(u, 0.1)  # (np.concatenate's size is not inferred: unbroadcasts stay, right either way)
    check_grads(heat_steps, (u, 0.1), wrt=(0, 1))
    w = rng.normal(size=(n, n + 2))
    s = sg.grad(stencil_2d)
    s(w)
    assert "unbroadcast" not in _text(s, w)
    check_grads(stencil_2d, (w,))


def test_slice_sizes_are_those_python_gives():
    # every bound from -7 to 7: exact for small sizes; for a size class n (> EXACT at
    # every call), the symbol's size max(0, n - c) or the exact size, for every such n
    bounds = [None] + list(range(-7, 8))
    for lo, hi in itertools.product(bounds, bounds):
        index = gast.parse(f"x[{'' if lo is None else lo}:{'' if hi is None else hi}]")
        part = index.body[0].value.slice
        for small in range(EXACT + 1):
            assert _sliced(small, part) == len(range(small)[lo:hi])
        got = _sliced(9, part)  # (9: a class, as a first call's size)
        for n in range(EXACT + 1, 40):
            want = len(range(n)[lo:hi])
            if got == 9:
                assert want == n
            elif isinstance(got, tuple):
                assert got[:2] == ("-", 9) and want == max(0, n - got[2])
            elif got is not None:
                assert got <= EXACT and want == got
        nested = _sliced(("-", 9, 2), part)  # a slice of a slice
        for n in range(EXACT + 1, 40):
            want = len(range(max(0, n - 2))[lo:hi])
            if isinstance(nested, tuple):
                assert want == max(0, n - nested[2])
            elif nested is not None:
                assert want == nested


@pytest.mark.parametrize("n", [3, 6])
def test_small_arrays_sliced_every_way(n):
    x = np.random.default_rng(n).normal(size=n)
    bounds = [None, 1, 5, -1, -2]
    for lo in bounds:
        for hi in bounds:
            def f(x, lo=lo, hi=hi):
                part = x[lo:hi]
                return np.sum(part * x[lo:hi] + part) + np.sum(x[lo:hi] * 2.0)
            check_grads(f, (x,))
