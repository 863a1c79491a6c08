"""A tape's with block runs once, as compiled code: random draws, prints and appends
happen once, and the gradient belongs to the values the user saw (issue 11)."""
import contextlib
import sys
import threading

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.tape import tape as tape_module


def dropout_step(w, x, rng, log):
    with sg.GradientTape() as tape:
        tape.watch(w)
        mask = rng.random(w.shape) < 0.5
        h = np.where(mask, np.tanh(x * w), 0.0) / 0.5
        loss = np.sum(h * h)
        log.append(float(loss))
        print("loss", loss)
    return loss, mask, tape.gradient(loss, w)


def hand_dropout_grad(w, x, mask):
    t = np.tanh(x * w)
    return np.where(mask, 2.0 * (t / 0.5) / 0.5 * (1 - t * t) * x, 0.0)


def test_a_training_loop_with_dropout_differentiates_the_mask_it_drew(capsys):
    rng = np.random.default_rng(0)
    w, x = np.linspace(-1.0, 1.0, 16), np.linspace(0.5, 2.0, 16)
    log = []
    for step in range(4):
        loss, mask, g = dropout_step(w, x, rng, log)
        np.testing.assert_allclose(g, hand_dropout_grad(w, x, mask), rtol=1e-12)
        assert loss == pytest.approx(np.sum((np.where(mask, np.tanh(x * w), 0.0) / 0.5) ** 2))
        w = w - 0.1 * g
    assert len(log) == 4  # appended once per step
    assert capsys.readouterr().out.count("loss") == 4  # printed once per step


def test_in_sg_function_too():
    rng = np.random.default_rng(1)
    w, x = np.linspace(-1.0, 1.0, 8), np.linspace(0.5, 2.0, 8)
    step = sg.function(dropout_step)
    log = []
    for _ in range(3):
        _, mask, g = step(w, x, rng, log)
        np.testing.assert_allclose(g, hand_dropout_grad(w, x, mask), rtol=1e-12)
    assert len(log) == 3


class Counter:
    def __init__(self):
        self.calls = 0


def test_attribute_updates_and_variables_the_block_binds():
    c = Counter()
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        c.calls += 1
        fresh = x * 3.0
        y = np.sum(fresh * x)
    assert c.calls == 1
    np.testing.assert_allclose(fresh, [3.0, 6.0])
    np.testing.assert_allclose(tape.gradient(y, x), 6.0 * x)
    assert c.calls == 1


def test_a_persistent_tape_runs_the_backward_pass_again_without_touching_the_users_arrays():
    x = np.array([1.0, 2.0, 3.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = x * 1.0
        a[0] = x[1] * 5.0
        parts = [a * 2.0]
        z = parts.pop()
        y = np.sum(a * a) + np.sum(z)
    seen = a.copy()
    g1 = tape.gradient(y, x)
    g2 = tape.gradient(y, x)
    # y = sum(a*a + 2a) with a = [5 x1, x1, x2]: dy/da = 2a + 2 = [22, 6, 8]
    expected = np.array([0.0, 22.0 * 5.0 + 6.0, 8.0])
    np.testing.assert_allclose(g1, expected)
    np.testing.assert_allclose(g2, expected)
    np.testing.assert_allclose(a, seen)  # the backward pass restored its own copy
    assert parts == []


@contextlib.contextmanager
def another_tracer():
    """A Python trace function set by someone else (a debugger, a profiler)."""
    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield tracer
    finally:
        sys.settrace(previous)


def test_a_trace_function_already_set_is_put_back():
    with another_tracer() as tracer:
        x = np.array([1.0, 2.0])
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(x * x)
        after = sys.gettrace()
    assert after is tracer
    np.testing.assert_allclose(tape.gradient(y, x), 2 * x)


def _threaded(x, out, k):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * float(k + 1))
    out[k] = tape.gradient(y, x)


def test_eight_threads_enter_the_same_block_at_once():
    tape_module._COMPILED.clear()
    x = np.linspace(0.0, 1.0, 5)
    out = [None] * 8
    threads = [threading.Thread(target=_threaded, args=(x, out, k)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(8):
        np.testing.assert_allclose(out[k], np.cos(x) * (k + 1), rtol=1e-12)


def test_unconnected_sources_are_none_and_intermediate_sources_work():
    x, w = np.array([0.5, 1.0]), np.array([2.0, 3.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        h = np.sin(x)
        y = np.sum(h * h)
        z = np.sum(w)
    gx, gw = tape.gradient(y, [x, w])
    assert gw is None
    np.testing.assert_allclose(gx, 2 * np.sin(x) * np.cos(x))
    np.testing.assert_allclose(tape.gradient(y, h), 2 * h)
    np.testing.assert_allclose(tape.gradient(z, w), np.ones(2))


def watch_params_bound_in_the_block(params, x, rng):
    with sg.GradientTape() as tape:
        W, b = params["W"], params["b"]
        tape.watch([W, b])
        mask = rng.random((x.shape[0], W.shape[1])) < 0.5
        h = np.where(mask, np.tanh(x @ W + b), 0.0) / 0.5
        loss = np.sum(h * h)
    return mask, tape.gradient(loss, [W, b])


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_value_bound_and_watched_in_the_block_is_counted_once(placement):
    """``W = params["W"]; tape.watch(W)``: W is both a watched value and a variable the
    block binds; its adjoint is the watch point's, not that plus its name's."""
    rng = np.random.default_rng(5)
    x, W, b = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=4)
    step = watch_params_bound_in_the_block if placement == "plain" else \
        sg.function(watch_params_bound_in_the_block)
    mask, (gW, gb) = step({"W": W, "b": b}, x, rng)
    t = np.tanh(x @ W + b)
    dz = np.where(mask, 2.0 * (t / 0.5) / 0.5 * (1 - t * t), 0.0)
    np.testing.assert_allclose(gW, x.T @ dz, rtol=1e-12)
    np.testing.assert_allclose(gb, dz.sum(0), rtol=1e-12)


# -- statements between tape.__enter__() and tape.__exit__(...) run once too ----------

def manual_dropout_step(w, x, rng, log):
    tape = sg.GradientTape()
    tape.__enter__()
    tape.watch(w)
    mask = rng.random(w.shape) < 0.5
    h = np.where(mask, np.tanh(x * w), 0.0) / 0.5
    loss = np.sum(h * h)
    log.append(float(loss))
    tape.__exit__(None, None, None)
    return loss, mask, tape.gradient(loss, w)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_by_hand_a_training_loop_with_dropout_differentiates_the_mask_it_drew(placement):
    rng = np.random.default_rng(3)
    w, x = np.linspace(-1.0, 1.0, 16), np.linspace(0.5, 2.0, 16)
    step = manual_dropout_step if placement == "plain" else sg.function(manual_dropout_step)
    log = []
    for _ in range(4):
        loss, mask, g = step(w, x, rng, log)
        np.testing.assert_allclose(g, hand_dropout_grad(w, x, mask), rtol=1e-12)
        w = w - 0.1 * g
    assert len(log) == 4


def test_by_hand_with_a_loop_in_the_block_and_the_block_in_a_loop():
    x = np.array([0.5, 1.5])
    grads, seen = [], []
    for k in range(3):
        tape = sg.GradientTape()
        tape.__enter__()
        tape.watch(x)
        y = x
        for _ in range(k + 1):
            y = y * x
            seen.append(k)
        s = np.sum(y)
        tape.__exit__(None, None, None)
        grads.append(tape.gradient(s, x))
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, (k + 2) * x ** (k + 1), rtol=1e-12)
    assert seen == [0, 1, 1, 2, 2, 2]


def test_by_hand_under_a_trace_function_already_set():
    with another_tracer() as tracer:
        x = np.array([1.0, 2.0])
        tape = sg.GradientTape()
        tape.__enter__()
        tape.watch(x)
        y = np.sum(x * x * x)
        tape.__exit__(None, None, None)
        after = sys.gettrace()
    assert after is tracer
    np.testing.assert_allclose(tape.gradient(y, x), 3 * x * x)
    assert tape._records[-1].once is not None  # run once, not by the rerun design


# -- nested tapes: the inner block runs once too -------------------------------------

def nested_with(x, rng, effect):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            if effect == "draw":
                m = rng.random(x.shape)
            else:
                print("inner", x)
                m = 2.0
            y = np.sum(m * x ** 3)
        dy = inner.gradient(y, x)
        s = np.sum(dy)
    return outer.gradient(s, x), dy, m


@pytest.mark.parametrize("effect", ["draw", "print"])
@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_random_draw_or_an_effect_in_a_nested_tape_happens_once(effect, placement, capsys):
    x = np.array([1.0, 2.0])
    f = nested_with if placement == "plain" else sg.function(nested_with)
    rng = np.random.default_rng(0)
    for _ in range(2):
        d2, dy, m = f(x, rng, effect)
        np.testing.assert_allclose(dy, 3.0 * m * x ** 2, rtol=1e-12)
        np.testing.assert_allclose(d2, 6.0 * m * x, rtol=1e-12)
    assert capsys.readouterr().out.count("inner") == (2 if effect == "print" else 0)


def nested_twice(x, rng):
    """A persistent inner tape asked twice: its gradients run the block again."""
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape(persistent=True) as inner:
            inner.watch(x)
            m = rng.random(x.shape)
            y = np.sum(m * x ** 3)
            z = np.sum(x * x)
        dy = inner.gradient(y, x)
        dz = inner.gradient(z, x)
        s = np.sum(dy + dz)
    return outer.gradient(s, x)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_nested_block_that_would_run_again_with_a_draw_is_refused(placement):
    f = nested_twice if placement == "plain" else sg.function(nested_twice)
    with pytest.raises(sg.CompileError) as err:
        f(np.array([1.0, 2.0]), np.random.default_rng(0))
    message = str(err.value)
    assert "rng.random" in message and "nested tape" in message
    assert "test_tape_once.py" in message


def nested_pure(x):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            m = np.cos(np.arange(x.size) * 1.0) + len(x) + x.round().sum()
            y = np.sum(m * x ** 3)
        dy = inner.gradient(y, x)
        s = np.sum(dy)
    return outer.gradient(s, x), m


def test_a_repeatable_nested_tape_still_works():
    x = np.array([1.0, 2.0])
    d2, m = nested_pure(x)
    np.testing.assert_allclose(d2, 6.0 * m * x, rtol=1e-12)


def zero_trip(layers):
    x = np.array([1.0, 2.0])
    W, h = "W before", "h before"
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x
        for W in layers:
            h = y * W
            y = np.sin(h)
        s = np.sum(y)
    return W, h, tape.gradient(s, x)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_loop_that_runs_no_trip_leaves_its_variables_as_they_were(placement):
    f = zero_trip if placement == "plain" else sg.function(zero_trip)
    W, h, g = f([])
    assert (W, h) == ("W before", "h before")
    np.testing.assert_allclose(g, [1.0, 1.0])
    w = np.array([0.5, 2.0])
    W, h, g = f([w])
    assert W is w
    np.testing.assert_allclose(h, [0.5, 4.0])
    np.testing.assert_allclose(g, np.cos(h) * w, rtol=1e-12)


def test_an_outer_tape_over_a_nested_one_compiles_once(monkeypatch):
    """The inner tape's adjoint code, inlined into the outer's, is guarded by what
    it read (a weak reference to it died with the compile: a recompile per call)."""
    import srcgrad.compiler.pipeline as pipeline

    calls = []
    compile_region = pipeline.compile_region
    monkeypatch.setattr(pipeline, "compile_region",
                        lambda *a, **k: calls.append(1) or compile_region(*a, **k))
    x = np.array([1.0, 2.0])
    for _ in range(3):
        d2, m = nested_pure(x)
        np.testing.assert_allclose(d2, 6.0 * m * x, rtol=1e-12)
    assert len(calls) <= 1


def restored_in_a_loop(y):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(y)
        acc = 0.0
        for _ in range(2):
            z = y * 1.0
            z[0] = z[1] * 3.0
            acc = acc + np.sum(z * z)
    return tape.gradient(acc, y), tape.gradient(acc, y), tape.jacobian(acc, y)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_persistent_tape_gives_the_same_gradient_twice_when_the_backward_restores_in_loops(
        placement):
    """Each backward run gets its own copy of the stacks and arrays it restores in place
    (the second run read what the first had popped and overwritten)."""
    f = restored_in_a_loop if placement == "plain" else sg.function(restored_in_a_loop)
    y = np.array([1.0, 2.0, 3.0])
    # acc = 2 * sum(z * z), z = [3 y1, y1, y2]
    expected = np.array([0.0, 40.0 * y[1], 4.0 * y[2]])
    for g in f(y):
        np.testing.assert_allclose(g, expected, rtol=1e-12)


def test_nested_tapes_run_once_and_the_inner_tape_is_spent_after_the_block():
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.sin(x) * x)
        dy = inner.gradient(y, x)
        s = np.sum(dy * dy)
    assert outer._records[-1].once is not None
    dy_expected = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(dy, dy_expected, rtol=1e-12)
    d2 = 2.0 * dy_expected * (2.0 * np.cos(x) - np.sin(x) * x)
    np.testing.assert_allclose(outer.gradient(s, x), d2, rtol=1e-12)
    with pytest.raises(RuntimeError, match="can only be called once on non-persistent tapes"):
        inner.gradient(y, x)


def rebound_target(x):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(x ** 3)
        y = y * 2.0
        dy = inner.gradient(y, x)
        s = np.sum(x * 3.0)
    return dy, outer, s


def test_a_target_bound_again_after_the_inner_block_is_not_the_recorded_one():
    """The inner tape did not record ``y * 2.0`` (TensorFlow's gradient is None): the
    outer block, whose code takes the inner gradient, is refused when entered."""
    x = np.array([1.0, 2.0])
    with pytest.raises(sg.CompileError, match="bound again between the end of `inner`'s block"):
        rebound_target(x)


# -- Variables the block only computes with run as their arrays ----------------------

def variable_block(v, frozen):
    with sg.GradientTape() as tape:
        tape.watch(frozen)
        same = v
        y = np.sum(np.sin(v) * v) + np.sum(frozen * v)
    return same, y, tape.gradient(y, [v, frozen, same])


def variable_methods_block(v):
    with sg.GradientTape() as tape:
        scale = 2.0 if v.trainable else 1.0
        y = np.sum(v * v) * scale
    return y, tape.gradient(y, v)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_variables_as_arrays_keep_their_identity_and_watching(placement):
    v = sg.Variable(np.array([0.5, -1.0]))
    frozen = sg.Variable(np.array([2.0, 3.0]), trainable=False)
    f = variable_block if placement == "plain" else sg.function(variable_block)
    same, y, (gv, gf, gsame) = f(v, frozen)
    assert same is v  # the block's name for the Variable is the Variable
    x = v.numpy()
    np.testing.assert_allclose(gv, np.cos(x) * x + np.sin(x) + frozen.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gsame, gv, rtol=1e-12)
    np.testing.assert_allclose(gf, x, rtol=1e-12)  # watched by hand
    g = sg.function(variable_methods_block)(v)[1] if placement == "function" \
        else variable_methods_block(v)[1]
    np.testing.assert_allclose(g, 4 * x, rtol=1e-12)


def test_under_coverage_run(tmp_path):
    """``coverage run`` (a C trace function on every frame): the block runs once with
    the right gradient and coverage keeps tracing the code after it."""
    import json
    import subprocess
    from pathlib import Path

    script = Path(__file__).parent / "tape_cases" / "under_coverage.py"
    data = tmp_path / ".coverage"
    env = {**__import__("os").environ, "COVERAGE_FILE": str(data)}
    run = subprocess.run([sys.executable, "-m", "coverage", "run", str(script)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("ok")
    report = tmp_path / "coverage.json"
    subprocess.run([sys.executable, "-m", "coverage", "json", "-o", str(report)],
                   capture_output=True, env=env, timeout=300, check=True)
    files = json.loads(report.read_text())["files"]
    executed = next(v["executed_lines"] for k, v in files.items() if k.endswith("under_coverage.py"))
    lines = script.read_text().splitlines()
    assert lines.index("    return v * 2.0  # coverage must see this line run") + 1 in executed


LAST_LOSS = None


def binds_a_global(x):
    global LAST_LOSS
    with sg.GradientTape() as tape:
        tape.watch(x)
        LAST_LOSS = np.sum(x * x)
    return tape.gradient(LAST_LOSS, x)


def binds_a_nonlocal(x):
    calls = 0

    def inner():
        nonlocal calls
        with sg.GradientTape() as tape:
            tape.watch(x)
            calls = calls + 1
            y = np.sum(x ** 3)
        return tape.gradient(y, x)
    return inner(), inner(), calls


def test_names_declared_global_or_nonlocal_are_bound_where_they_live():
    """A block in a function that declares ``global LAST_LOSS`` binds the module's
    LAST_LOSS (it was written into the function's locals: lost, gradient None).
    (``@sg.function`` refuses global and nonlocal statements.)"""
    global LAST_LOSS
    LAST_LOSS = None
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(binds_a_global(x), 2 * x)
    assert LAST_LOSS == 5.0
    first, second, calls = binds_a_nonlocal(x)
    np.testing.assert_allclose(first, 3 * x * x)
    np.testing.assert_allclose(second, 3 * x * x)
    assert calls == 2


class InAClassBody:
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x ** 3)
    g = tape.gradient(y, x)


def test_a_block_in_a_class_body_binds_class_attributes():
    assert InAClassBody.y == 9.0
    np.testing.assert_allclose(InAClassBody.g, [3.0, 12.0])
    assert "y" not in globals()


def test_under_pdb_with_a_breakpoint():
    """pdb stopping at a breakpoint after each block: pdb's trace function is active
    while the tape skips the block's statements."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).parent / "tape_cases" / "under_pdb.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=300)
    out = run.stdout + run.stderr
    assert out.count("BREAK HERE") >= 3, out  # stopped after each of the three blocks
    assert out.rstrip().endswith("ok") and "Error" not in out, out


DROPOUT_CELL = """
import numpy as np
import srcgrad as sg
rng = np.random.default_rng(2)
w, x = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)
draws = []
with sg.GradientTape() as tape:
    tape.watch(w)
    mask = rng.random(w.shape) < 0.5
    draws.append(mask)
    loss = np.sum(np.where(mask, np.tanh(x * w), 0.0) ** 2)
g = tape.gradient(loss, w)
ran_once = tape._records[-1].once is not None
def by_hand(w, mask):
    t = sg.GradientTape()
    t.__enter__()
    t.watch(w)
    loss = np.sum(np.where(mask, w * w, 0.0))
    t.__exit__(None, None, None)
    return t.gradient(loss, w)
mask2 = rng.random(w.shape) < 0.5
g2 = by_hand(w, mask2)
"""

BY_HAND_CELL = """
by_hand = sg.GradientTape()
by_hand.__enter__()
by_hand.watch(w)
loss3 = np.sum(w * w)
by_hand.__exit__(None, None, None)
"""


def test_in_an_ipython_cell_blocks_run_once():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    result = shell.run_cell(DROPOUT_CELL, store_history=True)
    if result.error_in_exec is not None:
        raise result.error_in_exec
    ns = shell.user_ns
    assert ns["ran_once"] and len(ns["draws"]) == 1
    w, x, mask = ns["w"], ns["x"], ns["mask"]
    t = np.tanh(x * w)
    np.testing.assert_allclose(ns["g"], np.where(mask, 2 * t * (1 - t * t) * x, 0.0), rtol=1e-12)
    np.testing.assert_allclose(ns["g2"], np.where(ns["mask2"], 2 * w, 0.0), rtol=1e-12)
    # IPython runs a cell's top-level statements one by one: statements between
    # __enter__() and __exit__() there cannot be skipped, so the block cannot run once.
    result = shell.run_cell(BY_HAND_CELL, store_history=True)
    assert isinstance(result.error_in_exec, sg.CompileError)
    assert "IPython cell" in str(result.error_in_exec)
    assert "loss3" not in ns


def as_array(v):
    """Library-style code that treats a Variable and an array differently."""
    return v * 1.0 if isinstance(v, sg.Variable) else v * 10.0


def helper_tells_variables_apart(v):
    with sg.GradientTape() as tape:
        y = np.sum(as_array(v) ** 2)
    return y, tape.gradient(y, v)


def test_a_helper_that_tells_a_variable_from_an_array_gets_the_variable():
    v = sg.Variable(np.array([1.0, 2.0]))
    y, g = helper_tells_variables_apart(v)
    assert y == 5.0
    np.testing.assert_allclose(g, [2.0, 4.0])


def test_a_persistent_inner_tape_asked_after_the_outer_block_is_refused_there():
    """The two blocks run once as one compiled block: the inner tape's gradients inside
    the outer block are exact (as many as asked); one after it is refused by name."""
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = np.sum(x ** 3)
            z = np.sum(x * x)
        dy = inner.gradient(y, x)
        dz = inner.gradient(z, [x])[0]
        s = np.sum(dy) + np.sum(dz * dz)
    np.testing.assert_allclose(dy, 3 * x * x)
    np.testing.assert_allclose(dz, 2 * x)
    np.testing.assert_allclose(outer.gradient(s, x), 6 * x + 8 * x)
    with pytest.raises(sg.CompileError, match=r"persistent tape nested in a GradientTape block, "
                                              r"asked for a gradient after that block"):
        inner.gradient(y, x)


def view_then_slot_write(y, persistent):
    """Fuzzer 35008:152: ``np.squeeze(c)`` is a view of ``c`` that the slot write
    changes; the backward code restores the slot and reads the view. The tape's
    copies of ``c`` and of the view must share memory as the originals do."""
    with sg.GradientTape(persistent=persistent) as tape:
        tape.watch(y)
        c = np.zeros_like(y)
        c[0] = 0.5
        c[-1] += np.squeeze(y, axis=0) * np.squeeze(c, axis=0)
        out = np.sum(c)
    grads = [tape.gradient(out, y)]
    if persistent:
        grads += [tape.gradient(out, y), tape.jacobian(out, y)]
    return grads


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_view_of_an_array_whose_slot_is_restored(placement, persistent):
    f = view_then_slot_write if placement == "plain" else sg.function(view_then_slot_write)
    y = np.array([[1.061, -0.391, -0.455]])
    for g in f(y, persistent):
        np.testing.assert_allclose(g, np.full((1, 3), 0.5), rtol=1e-12)  # out = 1.5 + sum(y) / 2
