"""Generated code frees forward values early (``passes/lifetimes.py``)."""
import tracemalloc

import numpy as np

import srcgrad as sg
from srcgrad.testing import check_grads


def layer_loss(W, b, X):
    h = np.tanh(X @ W + b)
    return np.sum(h * h)


def layer_loss_by_hand(W, b, X):
    h = np.tanh(X @ W + b)
    dpre = 2.0 * h * (1.0 - h * h)
    return X.T @ dpre, np.sum(dpre, axis=0)


def _args(n=2000, d=100, k=200):
    rng = np.random.default_rng(0)
    return rng.standard_normal((d, k)) * 0.1, rng.standard_normal(k), rng.standard_normal((n, d))


DATA = {}


def layer_loss_of_global_data(W, b):
    h = np.tanh(DATA["X"] @ W + b)  # (the data's shape is not part of the cache key)
    return np.sum(h * h)


def test_values_read_only_for_their_shape_are_freed_after_the_forward_pass():
    W, b, DATA["X"] = _args(20, 5, 4)
    g = sg.grad(layer_loss_of_global_data, wrt=(0, 1))
    g(W, b)
    text = g.__srcgrad_compiled__.entry((W, b)).text
    forward, backward = text.split("# grad of:", 1)
    assert "h_matmul_like = _sg.like(h_matmul)" in forward
    assert "del h_matmul" in forward              # gone before the backward pass starts
    assert "_sg.unbroadcast(dh_add, h_matmul_like)" in backward
    check_grads(layer_loss_of_global_data, (W, b), order=1)


def test_with_shapes_known_nothing_is_kept_for_them():
    g = sg.grad(layer_loss, wrt=(0, 1))
    args = _args(20, 5, 4)
    g(*args)
    text = g.__srcgrad_compiled__.entry(args).text
    assert "h_matmul_like" not in text and "unbroadcast" not in text, text
    check_grads(layer_loss, args, order=1)


def _peak(fn, *args):
    fn(*args)  # warm up: compile, caches
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_is_that_of_a_hand_written_gradient():
    args = _args()
    g = sg.grad(layer_loss, wrt=(0, 1))
    for got, expected in zip(g(*args), layer_loss_by_hand(*args)):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    ratio = _peak(g, *args) / _peak(layer_loss_by_hand, *args)
    assert ratio <= 1.3, ratio


def test_code_differentiated_again_keeps_its_values():
    """Code for ``sg.grad(sg.grad(f))`` is read by the compiler again: no ``del`` there."""
    def f(x):
        return np.sum(np.sin(x) * x)

    x = np.array([0.3, -1.2])
    inner = sg.grad(f).__srcgrad_compiled__.generic([x])
    assert "del " not in inner.__srcgrad_source__
    assert "del " in sg.grad(f).__srcgrad_compiled__.entry((x,)).text
    check_grads(f, (x,), order=2)


def test_shape_stand_ins_answer_what_the_helpers_ask():
    from srcgrad import runtime as rt

    x = np.ones((3, 1, 4), dtype=np.float32)
    stand_in = rt.like(x)
    assert np.shape(stand_in) == (3, 1, 4) and np.size(stand_in) == 12 and stand_in.ndim == 3
    assert rt.zeros_like(stand_in).dtype == np.float32
    g = np.ones((2, 3, 5, 4))
    np.testing.assert_array_equal(rt.unbroadcast(g, stand_in), rt.unbroadcast(g, x))
    np.testing.assert_array_equal(rt.sum_grad(np.ones((3, 4)), stand_in, 1, False),
                                  rt.sum_grad(np.ones((3, 4)), x, 1, False))
    assert rt.like(2.5) == 2.5 and rt.like(np.float64(1.0)) == 1.0  # scalars are their own


def test_tape_blocks_free_values_too():
    import srcgrad.tape.tape as tape_module

    x = np.linspace(0.1, 1.0, 6)
    w = np.linspace(-1.0, 2.0, 6)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.tanh(x * w + 1.0) ** 2)
    g = tape.gradient(y, x)
    t = np.tanh(x * w + 1.0)
    np.testing.assert_allclose(g, 2.0 * t * (1.0 - t * t) * w)
    text = [e.text for e in tape_module._COMPILED.values() if "x * w + 1.0" in e.text][-1]
    assert "del " in text and "_sg.like(y_mul)" in text  # two arrays: either may broadcast


def softplus_loss(t):
    return np.mean(np.logaddexp(0.0, -t))


def broadcast_loss(x, w):
    return np.mean(np.exp(x * w) * 2.0)


def rebound_loss(x):
    y = np.exp(x * 2.0)
    x = x[1:]
    return np.mean(y) + np.sum(x)


def test_shapes_are_read_from_the_operand_that_gives_them():
    """``np.mean``'s adjoint needs only the shape of ``np.logaddexp(0.0, -t)``: that of ``t``.

    So the gradient does not compute the ``logaddexp`` (its adjoint needs no ``ans``).
    """
    t = np.linspace(-3.0, 3.0, 7)
    g = sg.grad(softplus_loss)
    np.testing.assert_allclose(g(t), -0.5 * (1.0 - np.tanh(0.5 * t)) / t.size, rtol=1e-12)
    text = g.__srcgrad_compiled__.entry((t,)).text
    assert "logaddexp" not in text.split("# grad of")[0], text
    assert "mean_grad(dresult, t, " in text, text
    check_grads(softplus_loss, (t,))
    check_grads(softplus_loss, (t,), order=2)


def test_shapes_are_not_read_from_an_operand_that_may_broadcast_or_is_rebound():
    x, w = np.linspace(0.1, 1.0, 3).reshape(3, 1), np.linspace(-1.0, 1.0, 4)
    check_grads(broadcast_loss, (x, w))
    g = sg.grad(broadcast_loss)
    g(x, w)
    assert "result_mul_like" in g.__srcgrad_compiled__.entry((x, w)).text
    check_grads(rebound_loss, (np.linspace(0.1, 1.0, 5),))


# Loops: a value rebound on every trip and read back only for its shape is
# recorded as a shape (``x_mul_like``), not as one array per trip, and the
# last trip's temporaries are let go after the loop (issue 12, class 10).

def damped_steps(x):
    for _ in range(3):
        x = np.sin(x) * 0.5 + x
    return np.sum(x)


def damped_steps_by_hand(x):
    # What a hand-written gradient keeps: the inputs of the three steps.
    xs = []
    for _ in range(3):
        xs.append(x)
        x = np.sin(x) * 0.5 + x
    g = np.ones_like(x)
    for x in reversed(xs):
        g = g * (np.cos(x) * 0.5 + 1.0)
    return g


def damped_steps_global_rate(x):
    for _ in range(3):
        x = np.sin(x) * DATA["rate"] + x  # (a global's shape is not known when compiling)
    return np.sum(x)


def test_a_loop_records_shapes_not_arrays():
    x = np.random.default_rng(1).standard_normal(200_000)
    DATA["rate"] = np.full(x.shape, 0.5)
    g = sg.grad(damped_steps_global_rate)
    np.testing.assert_allclose(g(x), damped_steps_by_hand(x), rtol=1e-12)
    text = g.__srcgrad_compiled__.entry((x,)).text
    assert "x_mul_like_stack.append(x_mul_like)" in text and "x_mul_stack" not in text
    # 8x the input before; a hand-written gradient needs 4x (three saved inputs + g)
    ratio = _peak(g, x) / x.nbytes
    assert ratio <= 5.5, ratio
    # shapes known: not even the shapes are recorded
    g = sg.grad(damped_steps)
    np.testing.assert_allclose(g(x), damped_steps_by_hand(x), rtol=1e-12)
    text = g.__srcgrad_compiled__.entry((x,)).text
    assert "_like" not in text and "x_mul_stack" not in text, text
    assert _peak(g, x) / x.nbytes <= 5.5


def shapes_change_per_trip(x):
    a = x[:1]
    for k in [1, 3, 3]:
        b = a * 2.0              # (1,), (1,), (3,): read back only for its shape
        a = np.sin(b) + x[:k]    # broadcast against (1,) then (3,)
    return np.sum(a * a)


def test_each_trip_restores_its_own_shape():
    x = np.array([0.3, -0.4, 0.8, 1.1])
    check_grads(shapes_change_per_trip, (x,), order=2)
    value, g = sg.value_and_grad(shapes_change_per_trip)(x)
    assert value == shapes_change_per_trip(x)
    np.testing.assert_allclose(g, sg.grad(shapes_change_per_trip)(x))


def _returns_on_first_trip(x):
    for a in x:
        return np.sum(x) + a
    c = x
    g = x
    for h in g:
        g = 0.5 * g
    return np.sum(c) + g * g


def test_a_stand_in_of_a_name_never_bound_reads_as_unbound():
    """Fuzzer 35073:277, shrunk: ``g`` is bound only after an early return, so on this
    path its stand-in for the loop's shapes is never bound either, and the second-order
    code, zeroing ``g``'s adjoint for the branch not taken, read it (UnboundLocalError)."""
    x = np.array([-0.456, -1.12, -0.412])
    direction = np.array([0.7, -0.4, 1.1])
    first = sg.grad(_returns_on_first_trip)

    def along(x):
        return np.sum(first(x) * direction)
    np.testing.assert_allclose(first(x), [2.0, 1.0, 1.0])
    np.testing.assert_allclose(sg.grad(along)(x), np.zeros(3))
    check_grads(_returns_on_first_trip, (x,), order=2)


def _list_rebuilt_in_a_loop(u0):
    u = [v for v in u0]
    for step in range(2):
        u = [u[1], u[0] * u[1]]
    return u[0] * u[1]


def _rotated_by_slices(x):
    vals = [v * 2 for v in x]
    for i in range(2):
        vals = vals[1:] + [vals[0] * vals[1]]
    return vals[0] * vals[-1]


def _appended_in_an_inner_loop(mu):
    for j in range(2):
        terms = []
        for k in range(2):
            terms.append(mu[k] * mu[k] * (j + 1.0))
    return terms[0] * terms[1]


def test_no_stand_in_for_a_list_changed_in_place():
    """Realistic-program hunt C1/C2 (second-order crashes): ``_sg.like`` of a list is
    the list itself, and the stand-in of one a later ``append`` or the backward pass's
    ``pop`` changes does not hold the shape it had; such names keep their values."""
    x = np.array([0.3, 0.5, -0.4])
    for f in (_list_rebuilt_in_a_loop, _rotated_by_slices, _appended_in_an_inner_loop):
        check_grads(f, (x,), order=2)


def _closure_reads_a_copy(x):  # fuzzer 35141:916, shrunk
    a = np.zeros_like(x) + x
    b = a

    def inner(d):
        d = b
        return np.mean(d * d)
    g = inner(a)
    return np.sum(a) + g


def _closure_in_a_loop(x):
    total = 0.0
    for i in range(2):
        t = x * (i + 1.0)

        def scaled(k):
            return np.sum(t * k)
        total = total + scaled(2.0)
    return total


def test_a_name_a_nested_function_reads_is_not_freed_before_it_runs():
    """``del b`` came right after ``def inner``, which reads ``b`` when it is called."""
    x = np.array([0.3, -1.2, 0.8])
    check_grads(_closure_reads_a_copy, (x,), order=2)
    check_grads(_closure_in_a_loop, (x,), order=2)
