"""Inputs the code writes into, and the other names of their memory (hunt 16, bug 02).

Compiled code reads each input (an argument, or what a tape block reads from
before it) as a value of its own. Python does not: a view made before the
code sees writes into its base. Where an input written into shares memory
with another input, srcgrad refuses (``runtime/apart.py``); ``total += v`` of
the caller's array in a tape block is written back into it, so that its other
names see the update, as in Python.
"""
import numpy as np
import pytest

import srcgrad as sg

X0 = np.arange(1.0, 7.0).reshape(2, 3) / 3


def fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[i] += eps
        m[i] -= eps
        g[i] = (f(p) - f(m)) / (2 * eps)
    return g


# -- a view made before a tape block, the block writing into its base --------------

WRITES = ["augmented", "item", "copyto"]


def _view_before(kind, view, X):
    Y = np.ones((2, 3))
    a = Y[1] if view == "row" else Y.T[:, 1]  # a view of Y, made outside the block
    with sg.GradientTape() as tape:
        tape.watch(X)
        if kind == "augmented":
            Y *= X
        elif kind == "item":
            Y[1] = np.sin(X[1])
        else:
            np.copyto(Y, 2 * X)
        y = np.sum(a ** 2)
    return y, tape.gradient(y, X)


@pytest.mark.parametrize("kind", WRITES)
@pytest.mark.parametrize("view", ["row", "column of the transpose"])
@pytest.mark.parametrize("form", [_view_before, sg.function(_view_before)],
                         ids=["plain", "function"])
def test_view_made_before_block_is_refused(form, view, kind):
    # (Before: y was computed from the old values of `a` and the gradient was None.)
    with pytest.raises(sg.CompileError) as e:
        form(kind, view, X0.copy())
    msg = str(e.value)
    assert "`a` shares memory with `Y`" in msg and "test_inputs_apart.py" in msg
    assert "copy" in msg


def test_view_in_a_container_made_before_block_is_refused():
    Y = np.ones((2, 3))
    held = {"row": Y[0]}
    with pytest.raises(sg.CompileError, match=r"`held\['row'\]` shares memory with `Y`"):
        with sg.GradientTape() as tape:
            tape.watch(X0)
            Y[0] = X0[0] * 2
            y = np.sum(held["row"])
        tape.gradient(y, X0)


def test_copy_made_before_block_is_apart():
    Y = np.ones((2, 3))
    a = Y[1].copy()
    b = Y[1]
    with sg.GradientTape() as tape:
        tape.watch(X0)
        c = a * X0[1]  # `a` is a copy: apart from `Y`
        y = np.sum(c)
    assert np.allclose(tape.gradient(y, X0), np.r_[np.zeros(3), a].reshape(2, 3))
    with pytest.raises(sg.CompileError):  # (refused for the view the block makes)
        with sg.GradientTape() as tape:
            tape.watch(X0)
            row = Y[1]
            row[:] = X0[1] * 2  # into Y, through the block's own view of it
            y = np.sum(b ** 2)


def test_no_refusal_when_only_the_blocks_own_arrays_are_written():
    params = {"W": np.ones((3, 2)), "b": np.zeros(2)}
    W = params["W"]  # two names of one array: fine, neither is written

    def loss_of(W):
        acc = np.zeros(2)
        acc[0] = np.sum(X0 @ W + params["b"])
        acc = acc + W[0]
        return np.sum(acc ** 2)

    with sg.GradientTape() as tape:
        tape.watch(W)
        h = X0 @ params["W"] + params["b"]
        acc = np.zeros(2)
        acc[0] = np.sum(h)
        acc += W[0]
        loss = np.sum(acc ** 2)
    assert np.allclose(tape.gradient(loss, W), fd(loss_of, W.copy()), atol=1e-5)


# -- the functional forms: arguments that share memory --------------------------------

def _through_view(X, a, Y):
    Y *= X
    return np.sum(a ** 2)


def _item_write(X, Y):
    Y[0] = X[0] * 3
    return np.sum(X ** 2)


def _taped_through_view(X, a, Y):
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = _through_view(X, a, Y)
    return tape.gradient(y, X)


@pytest.mark.parametrize("form", ["grad", "value_and_grad", "tape"])
def test_arguments_sharing_memory_with_one_written_are_refused(form):
    Y = np.ones((2, 3))
    with pytest.raises(sg.CompileError, match="`a` shares memory with `Y`"):
        if form == "grad":
            sg.grad(_through_view)(X0, Y[1], Y)
        elif form == "value_and_grad":
            sg.value_and_grad(_through_view)(X0, Y[1], Y)
        else:
            _taped_through_view(X0, Y[1], Y)
    with pytest.raises(sg.CompileError, match="`X` shares memory with `Y`"):
        sg.value_and_grad(_item_write)(Y, Y)


def test_array_inside_another_argument_sharing_memory_is_refused():
    def f(W, p):
        W[0, 0] = 0.0
        return np.sum(W ** 2) + np.sum(p["Wt"] ** 2)

    W = np.arange(1.0, 7.0).reshape(2, 3)
    with pytest.raises(sg.CompileError, match=r"`p\['Wt'\]` shares memory with `W`"):
        sg.grad(f, wrt=(0, 1))(W, {"Wt": W.T})
    gW, gp = sg.grad(f, wrt=(0, 1))(W, {"Wt": W.T.copy()})  # apart: right
    want = 2 * W
    want[0, 0] = 0.0
    assert np.allclose(gW, want) and np.allclose(gp["Wt"], 2 * W.T)
    assert W[0, 0] == 1.0  # (the gradient does not change its arguments)


def test_write_through_a_parameter_trees_item_has_the_users_message():
    def f(p):
        w = p["W"]
        w[0, 0] = 0.0
        return np.sum(p["W"] ** 2)

    # (It said "in a first derivative's code": the tree's wrapper is generated code.)
    with pytest.raises(sg.CompileError, match=r"writing into `w\[\.\.\.\]`.*w = w.copy\(\)"):
        sg.grad(f)({"W": np.ones((2, 3))})


def test_arguments_apart_are_differentiated():
    def f(X, a, Y):
        Y = Y.copy()
        Y *= X
        return np.sum(a ** 2) + np.sum(Y ** 2)

    Y = np.ones((2, 3)) * 2
    a = Y[1].copy()
    g = sg.grad(f, wrt=(0, 1))(X0, a, Y)
    assert np.allclose(g[0], 2 * X0 * Y ** 2) and np.allclose(g[1], 2 * a)
    # One array passed twice where nothing is written: fine.
    assert np.allclose(sg.grad(lambda x, y: np.sum(x * y))(X0, X0), X0)


# -- ``total += v`` of the caller's array in a tape block: written back ---------------

def _python_update(X):
    Y = np.ones((2, 3))
    for _ in range(2):
        Y *= X
    return np.sum(Y ** 2)


def _update_plain(X, persistent):
    Y = np.ones((2, 3))
    keep, other, row = [Y], Y, Y[1]
    with sg.GradientTape(persistent=persistent) as tape:
        tape.watch(X)
        for _ in range(2):
            Y *= X
        y = np.sum(Y ** 2)
    return y, tape.gradient(y, X), Y, (keep[0], other, row), tape, X


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("form", [_update_plain, sg.function(_update_plain)],
                         ids=["plain", "function"])
def test_update_of_callers_array_is_seen_by_its_other_names(form, persistent):
    # (Before: the block bound `Y` to a new array; `keep[0]`, `other` and `row` kept
    # the ones, as if the update never ran.)
    y, g, Y, (held, other, row), tape, X = form(X0.copy(), persistent)
    assert np.isclose(y, _python_update(X0.copy()))
    assert np.allclose(Y, X0 ** 2)
    assert held is Y and other is Y and np.allclose(row, X0[1] ** 2)
    assert np.allclose(g, fd(_python_update, X0.copy()), atol=1e-5)
    if persistent:
        assert np.allclose(tape.gradient(y, X), g)
        # The array now holds the block's result: its gradient is that value's.
        assert np.allclose(tape.gradient(y, Y), 2 * Y)


def test_update_after_the_block_does_not_change_the_gradient():
    Y = np.ones((2, 3))
    with sg.GradientTape() as tape:
        tape.watch(X0)
        Y += X0
        y = np.sum(Y ** 3)
    Y[...] = 100.0
    assert np.allclose(tape.gradient(y, X0), 3 * (1 + X0) ** 2)


def test_update_of_a_rebound_array_and_an_ambiguous_one():
    Y = np.ones((2, 3)) * 2
    caller = Y
    with sg.GradientTape() as tape:
        tape.watch(X0)
        Y = Y * 3  # the block's own array from here: the caller's stays
        Y += X0
        y = np.sum(Y ** 2)
    assert np.allclose(caller, 2.0) and np.allclose(Y, 6 + X0)
    assert np.allclose(tape.gradient(y, X0), 2 * (6 + X0))
    Y = np.ones((2, 3))
    with pytest.raises(sg.CompileError, match=r"updates the array `Y`.*binds `Y` again") as e:
        with sg.GradientTape() as tape:
            tape.watch(X0)
            Y += X0
            Y = Y * 3
            y = np.sum(Y)
    assert "Y = Y + ..." in str(e.value)


def test_update_of_a_number_is_not_written_back():
    total = 0.0
    with sg.GradientTape() as tape:
        tape.watch(X0)
        total += np.sum(X0 ** 2)
    assert np.isclose(total, np.sum(X0 ** 2))
    assert np.allclose(tape.gradient(total, X0), 2 * X0)


def test_item_stored_into_a_dict_passed_in_is_no_write_into_its_arrays():
    def f(W, state):
        state["h"] = np.tanh(W)  # replaces an item: the array `W` is not written
        return np.sum(state["h"] * state["W"])

    W = np.array([[0.2, -0.5], [0.7, 0.1]])
    g = sg.grad(f)(W, {"W": W, "h": None})
    np.testing.assert_allclose(g, (1 - np.tanh(W) ** 2) * W)  # (state["W"]: a constant)

    def h(W, rows):
        row = rows[0]
        row[0] = 0.0  # into the array the list holds: which is `W`'s memory
        return np.sum(W ** 2)

    with pytest.raises(sg.CompileError, match=r"`W` shares memory with `rows\[0\]`"):
        sg.grad(h)(W, [W[0]])
