"""Targets a GradientTape block wrote into rather than bound: an array made before the
block and filled in it (``y[0] = ...``), a dict's item stored (``d["loss"] = ...``), a
list appended to in a loop (an RNN's outputs collected). The tape seeded only the names
a block binds, so these gave None, silently. The block's code now returns the inputs it
writes into too (``tape._outputs``), which are then targets as the names it binds are.
Checked against central differences, in plain code and in ``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.3, 0.5])


def _jac(f, x, eps=1e-6):
    return np.stack([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)], -1)


def filled_array(x):
    y = np.zeros(3)
    with sg.GradientTape() as t:
        t.watch(x)
        y[0] = np.sum(x ** 2)
        y[1:] = np.sin(x)
    return t.gradient(y, x)


def stored_item(x):
    d = {"loss": 0.0}
    with sg.GradientTape() as t:
        t.watch(x)
        d["loss"] = np.sum(np.tanh(x) * x)
    return t.gradient(d["loss"], x)


def appended_in_loop(x):
    hs = []
    h = np.zeros(2)
    with sg.GradientTape() as t:
        t.watch(x)
        for _ in range(3):
            h = np.tanh(h * 0.5 + x)
            hs.append(h)
    return t.gradient(hs[-1], x), t


@sg.function
def stored_item_compiled(x):
    d = {"loss": 0.0}
    with sg.GradientTape() as t:
        t.watch(x)
        d["loss"] = np.sum(np.tanh(x) * x)
    return t.gradient(d["loss"], x)


def _rnn(x, steps=3):
    h = np.zeros(2)
    for _ in range(steps):
        h = np.tanh(h * 0.5 + x)
    return h


def test_filled_array():
    want = _jac(lambda x: np.concatenate([[np.sum(x ** 2)], np.sin(x)]), X).sum(0)
    np.testing.assert_allclose(filled_array(X), want, rtol=1e-6)


@pytest.mark.parametrize("form", [stored_item, stored_item_compiled])
def test_stored_item(form):
    want = _jac(lambda x: np.array([np.sum(np.tanh(x) * x)]), X)[0]
    np.testing.assert_allclose(form(X), want, rtol=1e-6)


def test_appended_in_loop():
    g, _ = appended_in_loop(X)
    np.testing.assert_allclose(g, _jac(_rnn, X).sum(0), rtol=1e-6)


def test_persistent_jacobian_of_filled_array():
    y = np.zeros(3)
    with sg.GradientTape(persistent=True) as t:
        t.watch(X)
        y[0] = np.sum(X ** 2)
        y[1:] = np.sin(X) * X[0]
    J = t.jacobian(y, X)
    want = _jac(lambda x: np.concatenate([[np.sum(x ** 2)], np.sin(x) * x[0]]), X)
    np.testing.assert_allclose(J, want, rtol=1e-6, atol=1e-9)
    # (``y[0]`` read after the block is a new value the tape did not see: None, as
    # TensorFlow gives for a slice taken outside the tape)
    assert t.gradient(y[0], X) is None


def test_module_level_block(tmp_path):
    """A block at a module's top level (its names are globals)."""
    code = (
        "import numpy as np, srcgrad as sg\n"
        "x = np.array([0.3, 0.5])\n"
        "y = np.zeros(2)\n"
        "with sg.GradientTape() as t:\n"
        "    t.watch(x)\n"
        "    y[0] = np.sum(x ** 3)\n"
        "    y[1] = x[0] * x[1]\n"
        "g = t.gradient(y, x)\n")
    path = tmp_path / "module_block.py"
    path.write_text(code)
    import runpy

    g = runpy.run_path(str(path))["g"]
    want = _jac(lambda x: np.array([np.sum(x ** 3), x[0] * x[1]]), X).sum(0)
    np.testing.assert_allclose(g, want, rtol=1e-6)


def _step(x):
    return x + 0.1 * np.sin(x)


def test_trajectory_list_made_in_the_block():
    with sg.GradientTape() as t:
        t.watch(X)
        xs = [X]
        for _ in range(3):
            xs.append(_step(xs[-1]))
        L = np.sum(xs[-1] ** 2)

    def ref(x):
        for _ in range(3):
            x = _step(x)
        return np.array([np.sum(x ** 2)])
    np.testing.assert_allclose(t.gradient(L, X), _jac(ref, X)[0], rtol=1e-6)


def test_trajectory_list_holding_the_watched_value_refused():
    """``xs = [x0]`` before the block, appended to in it: ``xs[-1]`` was read as the watched
    ``x0`` on every trip (the gradient None, or ``dL/dx0`` of the last item alone)."""
    x0 = X.copy()
    xs = [x0]
    with pytest.raises(sg.CompileError, match="stores into there"):
        with sg.GradientTape() as t:
            t.watch(x0)
            for _ in range(3):
                xs.append(_step(xs[-1]))
            L = np.sum(xs[-1] ** 2)
        t.gradient(L, x0)
    params = [x0]
    with pytest.raises(sg.CompileError, match="stores into there"):
        with sg.GradientTape() as t:
            t.watch(x0)
            params.append(x0 * 2)
            L = np.sum(params[-1] ** 2) + np.sum(x0)
        t.gradient(L, x0)


def test_dict_made_before_the_block_filled_in_a_loop():
    """``greeks[name] = ...`` adding keys in a loop: a KeyError from the generated code
    (it saved the slot as an array's)."""
    greeks = {}
    with sg.GradientTape(persistent=True) as t:
        t.watch(X)
        for name, p in (("lin", 1), ("sq", 2)):
            greeks[name] = np.sum(X ** p)
        total = greeks["lin"] + greeks["sq"]
    np.testing.assert_allclose(t.gradient(total, X), 1 + 2 * X)
    np.testing.assert_allclose(t.gradient(greeks["sq"], X), 2 * X)


def _fill(x, d):
    for name, p in (("lin", 1), ("sq", 2)):
        d[name] = np.sum(x ** p)
    return d["lin"] + d["sq"]


def test_dict_argument_filled_in_a_loop():
    np.testing.assert_allclose(sg.grad(_fill)(X, {}), 1 + 2 * X)
    v, g = sg.value_and_grad(_fill)(X, {})
    np.testing.assert_allclose(v, _fill(X, {}))
    np.testing.assert_allclose(g, 1 + 2 * X)


def _fill_buffer(buf, v):
    buf[0] = np.sum(v ** 2)
    buf[1] = np.sum(v)


def test_target_filled_by_a_helper_refused():
    """``fill(y, x)`` writing into the ``y`` it was handed: None before (silently); a
    target the block wrote into under another name is refused, naming it."""
    y = np.zeros(2)
    with pytest.raises(sg.CompileError, match="wrote into"):
        with sg.GradientTape() as t:
            t.watch(X)
            _fill_buffer(y, X)
        t.gradient(y, X)
