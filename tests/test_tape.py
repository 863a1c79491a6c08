"""GradientTape (SPEC section 1): the seed snippets in every placement, and the contract.

The seed snippets live in real files under ``tests/tape_cases`` (a tape reads
the source of the block it records): ``seeds_decorated`` (inside
``@sg.function``), ``seeds_plain`` (ordinary functions), ``seeds_manual``
(``tape.__enter__()`` / ``tape.__exit__(None, None, None)`` by hand), and the
scripts ``seeds_script.py`` / ``seeds_script_manual.py`` (module level).
The other tests here write their tape blocks in this file, in ordinary test
functions (plain, undecorated code).
"""
import re
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import gast
import numpy as np
import pytest

import srcgrad as sg
from tape_cases import keras_like, seeds_decorated, seeds_manual, seeds_plain

CASES = Path(__file__).parent / "tape_cases"
ROOT = Path(__file__).parent.parent
NOT_PERSISTENT = "GradientTape.gradient can only be called once on non-persistent tapes."

PLACEMENTS = {"decorated": seeds_decorated, "plain": seeds_plain, "manual": seeds_manual}

# seed function -> the values its comments give (None: unconnected)
EXPECTED = {
    "seed_square": (6.0,),
    "seed_nested": (6.0, 2.0),
    "seed_persistent": (108.0, 6.0),
    "seed_no_auto_watch": (4.0, None),
    "seed_manual_oneline_y": (6.0,),
    "seed_manual_oneline_z": (None,),
    "seed_manual_lines_y": (6.0,),
    "seed_manual_lines_z": (None,),
    "seed_log_huber": (2.25, 3.0),
    "seed_log_huber_global": (2.25, 3.0),
}
# The outer or inner tape of the nested snippet entered by hand, the other a with block.
MANUAL_ONLY = {
    "seed_nested_outer_manual": (6.0, 2.0),
    "seed_nested_inner_manual": (6.0, 2.0),
}


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


def assert_values(got, expected):
    got = as_tuple(got)
    assert len(got) == len(expected), (got, expected)
    for g, e in zip(got, expected):
        if e is None:
            assert g is None, f"expected None (unconnected), got {g!r}"
        else:
            assert g is not None, f"expected {e}, got None"
            assert np.shape(g) == ()
            assert np.allclose(float(g), e, rtol=1e-12, atol=0), (g, e)


def fd_variables(loss, variables, eps=1e-6):
    """Central differences of ``loss()`` w.r.t. each entry of each Variable (perturbed by assign)."""
    out = []
    for v in variables:
        base = v.numpy().astype(np.float64)
        g = np.zeros(base.shape)
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            v.assign(plus)
            f_plus = float(loss())
            v.assign(minus)
            f_minus = float(loss())
            g[idx] = (f_plus - f_minus) / (2 * eps)
        v.assign(base)
        out.append(g)
    return out


# ============================================================ seed snippets

@pytest.mark.parametrize("placement", list(PLACEMENTS))
@pytest.mark.parametrize("seed", list(EXPECTED))
def test_seed(seed, placement):
    module = PLACEMENTS[placement]
    assert_values(getattr(module, seed)(), EXPECTED[seed])


@pytest.mark.parametrize("seed", list(MANUAL_ONLY))
def test_seed_nested_manual_variants(seed):
    assert_values(getattr(seeds_manual, seed)(), MANUAL_ONLY[seed])


@pytest.mark.parametrize("placement", list(PLACEMENTS))
@pytest.mark.parametrize("seed", ["seed_log_huber", "seed_log_huber_global"])
def test_seed_log_huber_other_branch(seed, placement):
    """|x| > m takes the second return of log_huber."""
    m = 2.0
    y, g = getattr(PLACEMENTS[placement], seed)(3.0)
    assert np.isclose(y, m ** 2 * (1 - 2 * np.log(m) + np.log(9.0)), rtol=1e-12)
    assert np.isclose(g, m ** 2 * 2 / 3.0, rtol=1e-12)


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_seed_gradients_are_repeatable(placement):
    """A second run of the same block (compiled code reused) gives the same values."""
    module = PLACEMENTS[placement]
    for seed, expected in EXPECTED.items():
        assert_values(getattr(module, seed)(), expected)
        assert_values(getattr(module, seed)(), expected)


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_seed_training_pattern(placement):
    """``tape.gradient(loss, model.trainable_variables)`` against finite differences."""
    module = PLACEMENTS[placement]
    model = keras_like.MLP([3, 4, 1], seed=3)
    data = keras_like.make_data(8)
    loss, grads = module.seed_training(model, data)
    variables = model.trainable_variables
    assert isinstance(grads, list) and len(grads) == len(variables) == 4
    assert np.isclose(loss, keras_like.loss_fn(data[1], model(data[0])), rtol=1e-12)
    numeric = fd_variables(lambda: keras_like.loss_fn(data[1], model(data[0])), variables)
    for v, g, n in zip(variables, grads, numeric):
        assert g.shape == v.shape and g.dtype == v.dtype
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def test_seed_training_pattern_agrees_across_placements():
    results = []
    for module in PLACEMENTS.values():
        model = keras_like.MLP([3, 4, 1], seed=3)
        results.append(module.seed_training(model, keras_like.make_data(8)))
    for loss, grads in results[1:]:
        assert loss == results[0][0]
        for a, b in zip(grads, results[0][1]):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_seed_square_gradient_is_numpy_float64():
    """SPEC §1: ``tape.gradient(y, x)  # -> 6.0  (np.float64)`` for ``x = sg.Variable(3.0)``."""
    g = seeds_plain.seed_square()
    assert type(g) is np.float64, type(g)
    assert g == 6.0


# ---------------------------------------------------------------- module level

SCRIPT_EXPECTED = {
    "square": (6.0,),
    "nested": (6.0, 2.0),
    "persistent": (108.0, 6.0),
    "no_auto_watch": (4.0, None),
    "manual_oneline_y": (6.0,),
    "manual_oneline_z": (None,),
    "manual_lines_y": (6.0,),
    "manual_lines_z": (None,),
    "log_huber": (2.25, 3.0),
}


def check_training_losses(losses):
    losses = [float(v) for v in losses]
    assert len(losses) == 5
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < 0.6 * losses[0], losses


@pytest.mark.parametrize("script", ["seeds_script.py", "seeds_script_manual.py"])
def test_seeds_at_module_level_run_path(script, capsys):
    namespace = runpy.run_path(str(CASES / script), run_name="__main__")
    results = namespace["RESULTS"]
    for name, expected in SCRIPT_EXPECTED.items():
        assert_values(results[name], expected)
    check_training_losses(results["training"])
    capsys.readouterr()


def parse_printed(stdout):
    out = {}
    for line in stdout.splitlines():
        name, _, values = line.partition(": ")
        out[name] = tuple(None if v == "None" else float(v) for v in values.split(", "))
    return out


@pytest.mark.parametrize("script", ["seeds_script.py", "seeds_script_manual.py"])
def test_seeds_script_in_subprocess(script):
    """``python tests/tape_cases/<script>`` as a user would run it."""
    proc = subprocess.run([sys.executable, str(CASES / script)], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = parse_printed(proc.stdout)
    for name, expected in SCRIPT_EXPECTED.items():
        assert printed[name] == expected, (name, printed[name])
    check_training_losses(printed["training"])


# examples/tape_seeds.py, jacobians.py and train_mlp_tape.py (--steps 30, the loss falls)
# run, with what they print checked, in tests/test_examples.py.


# ---------------------------------------------------------------- IPython

CELL = """
import numpy as np
import srcgrad as sg
x = sg.Variable(3.0)
with sg.GradientTape() as tape:
    y = x ** 2 + np.sin(x)
cell_grad = tape.gradient(y, x)

def in_cell_function(v):
    with sg.GradientTape() as t:
        t.watch(v)
        out = v * v * v
    return t.gradient(out, v)

cell_grad_fn = in_cell_function(sg.constant(2.0))
"""


def test_ipython_cell():
    import IPython  # a test dependency (pyproject.toml)
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    result = shell.run_cell(CELL, store_history=True)
    if result.error_in_exec is not None:
        raise result.error_in_exec
    assert result.success
    assert np.isclose(shell.user_ns["cell_grad"], 6.0 + np.cos(3.0), rtol=1e-12)
    assert np.isclose(shell.user_ns["cell_grad_fn"], 12.0, rtol=1e-12)
    # a second cell reads the first cell's variables
    result = shell.run_cell("x2 = sg.constant(0.5)\n"
                            "with sg.GradientTape() as t2:\n"
                            "    t2.watch(x2)\n"
                            "    y2 = np.exp(x2) * x\n"
                            "cell_grad2 = t2.gradient(y2, [x2, x])\n", store_history=True)
    if result.error_in_exec is not None:
        raise result.error_in_exec
    g_x2, g_x = shell.user_ns["cell_grad2"]
    assert np.isclose(g_x2, np.exp(0.5) * 3.0, rtol=1e-12)
    assert np.isclose(g_x, np.exp(0.5), rtol=1e-12)
    assert IPython is not None


# ---------------------------------------------------------------- no source

EXEC_BLOCK = """
x = sg.Variable(3.0)
with sg.GradientTape() as tape:
    y = x ** 2
grad = tape.gradient(y, x)
"""


def check_no_source_message(err):
    message = str(err).lower()
    assert "file" in message, message
    assert "@srcgrad.function" in message or "@sg.function" in message, message


def test_exec_of_string_raises_source_unavailable():
    assert issubclass(sg.SourceUnavailableError, sg.CompileError)
    namespace = {"sg": sg, "np": np}
    with pytest.raises(sg.SourceUnavailableError) as info:
        exec(EXEC_BLOCK, namespace)
    assert isinstance(info.value, sg.CompileError)
    check_no_source_message(info.value)


def test_exec_of_compiled_string_with_fake_filename_raises_source_unavailable():
    namespace = {"sg": sg, "np": np}
    code = compile(EXEC_BLOCK, "<stdin>", "exec")
    with pytest.raises(sg.SourceUnavailableError) as info:
        exec(code, namespace)
    check_no_source_message(info.value)


def test_exec_of_string_manual_enter_raises_source_unavailable():
    namespace = {"sg": sg, "np": np}
    block = ("x = sg.constant(3.0)\n"
             "g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x\n"
             "g.__exit__(None, None, None)\n")
    with pytest.raises(sg.SourceUnavailableError) as info:
        exec(block, namespace)
    check_no_source_message(info.value)


# ============================================================ error paths

def test_second_gradient_call_on_non_persistent_tape():
    x = sg.constant(3.0)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) == 6.0
    with pytest.raises(RuntimeError) as info:
        tape.gradient(y, x)
    assert str(info.value) == NOT_PERSISTENT


def test_second_gradient_call_other_target_still_raises():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        y = x * x
        z = y + x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=re.escape(NOT_PERSISTENT)):
        tape.gradient(z, x)


def test_persistent_tape_allows_many_calls():
    x = sg.Variable(2.0)
    with sg.GradientTape(persistent=True) as tape:
        y = x * x
        z = y * x
    for _ in range(3):
        assert tape.gradient(y, x) == 4.0
        assert tape.gradient(z, x) == 12.0


def test_entering_a_recording_tape_raises_value_error():
    x = sg.Variable(2.0)
    tape = sg.GradientTape()
    with pytest.raises(ValueError):
        with tape:
            y = x * x
            with tape:
                z = y * x


def test_entering_a_recording_tape_by_hand_raises_value_error():
    x = sg.Variable(2.0)
    tape = sg.GradientTape()
    tape.__enter__()
    y = x * x
    with pytest.raises(ValueError):
        tape.__enter__()
    tape.__exit__(None, None, None)
    # (no gradient here: the recorded region holds the pytest.raises block)


@pytest.mark.parametrize("value", [3, True, np.int64(3), np.arange(3), np.array([True, False])],
                         ids=["int", "bool", "np.int64", "int-array", "bool-array"])
def test_watching_int_or_bool_warns(value):
    x = sg.constant(2.0)
    with pytest.warns(UserWarning):
        with sg.GradientTape() as tape:
            tape.watch(value)
            tape.watch(x)
            y = x * x
    assert tape.gradient(y, x) == 4.0


def test_watching_int_gives_no_gradient():
    n = np.arange(3)
    x = sg.constant([1.0, 2.0, 3.0])
    with pytest.warns(UserWarning):
        with sg.GradientTape(persistent=True) as tape:
            tape.watch(n)
            tape.watch(x)
            y = np.sum(x * n)
    assert tape.gradient(y, n) is None
    np.testing.assert_array_equal(tape.gradient(y, x), [0.0, 1.0, 2.0])


def test_watching_floats_does_not_warn():
    x = sg.constant([1.0, 2.0])
    s = 3.0
    f32 = np.float32(1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sg.GradientTape() as tape:
            tape.watch(x)
            tape.watch(s)
            tape.watch(f32)
            y = np.sum(x) * s * f32
    gx, gs, gf = tape.gradient(y, [x, s, f32])
    np.testing.assert_allclose(gx, [4.5, 4.5])
    assert np.isclose(gs, 3.0 * 1.5)
    assert np.isclose(gf, 3.0 * 3.0)


# ============================================================ unconnected sources

def test_unconnected_source_gives_none():
    x, w = sg.Variable(2.0), sg.Variable([1.0, 2.0])
    with sg.GradientTape() as tape:
        y = x * x
    gx, gw = tape.gradient(y, [x, w])
    assert gx == 4.0
    assert gw is None


@pytest.mark.parametrize("mode", [sg.UnconnectedGradients.ZERO, "zero"], ids=["enum", "string"])
def test_unconnected_source_gives_zeros(mode):
    x = sg.Variable(2.0)
    w = sg.Variable([[1.0, 2.0, 3.0]])
    c = np.ones((2, 2), dtype=np.float32)
    with sg.GradientTape() as tape:
        tape.watch(c)
        y = x * x
    gx, gw, gc = tape.gradient(y, [x, w, c], unconnected_gradients=mode)
    assert gx == 4.0
    assert gw.shape == (1, 3) and gw.dtype == np.float64 and not np.any(gw)
    assert gc.shape == (2, 2) and gc.dtype == np.float32 and not np.any(gc)


def test_unconnected_none_is_the_default_and_explicit():
    x, w = sg.Variable(2.0), sg.Variable(1.0)
    with sg.GradientTape(persistent=True) as tape:
        y = x * x
    assert tape.gradient(y, w) is None
    assert tape.gradient(y, w, unconnected_gradients=sg.UnconnectedGradients.NONE) is None
    assert tape.gradient(y, w, unconnected_gradients="none") is None


def test_value_computed_after_exit_is_unconnected():
    x = sg.Variable(2.0)
    with sg.GradientTape(persistent=True) as tape:
        y = x * x
    z = y * x
    assert tape.gradient(z, x) is None
    assert tape.gradient(z, x, unconnected_gradients="zero") == 0.0


def test_unconnected_through_integer_path():
    """A value that depends on the source only through an int cast is unconnected."""
    x = sg.constant(2.7)
    with sg.GradientTape() as tape:
        tape.watch(x)
        k = int(x)
        y = k * 3.0
    assert tape.gradient(y, x, unconnected_gradients="zero") == 0.0


# ============================================================ targets and seeds

def test_output_gradients():
    x = sg.constant([1.0, 2.0, 3.0])
    w = sg.Variable([0.5, -1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * w
    seed = np.array([1.0, 10.0, 100.0])
    gx, gw = tape.gradient(y, [x, w], output_gradients=seed)
    np.testing.assert_allclose(gx, seed * np.asarray(w))
    np.testing.assert_allclose(gw, seed * x)


def test_output_gradients_for_list_targets():
    x = sg.constant([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        a = x * x
        b = np.sum(x)
    g = tape.gradient([a, b], x, output_gradients=[np.array([1.0, 3.0]), 2.0])
    np.testing.assert_allclose(g, np.array([1.0, 3.0]) * 2 * x + 2.0)


def test_non_scalar_target_is_gradient_of_sum():
    x = sg.constant([[1.0, 2.0], [3.0, 4.0]])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x ** 3
    np.testing.assert_allclose(tape.gradient(y, x), 3 * x ** 2)


def test_list_targets_are_summed():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        a = x * x
        b = x ** 3
        c = np.sin(x)
    assert np.isclose(tape.gradient([a, b, c], x), 4.0 + 12.0 + np.cos(2.0), rtol=1e-12)


def test_tuple_of_targets_are_summed():
    x = sg.constant([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        a = x * x
        b = np.sum(np.exp(x))
    np.testing.assert_allclose(tape.gradient((a, b), x), 2 * x + np.exp(x))


def test_target_listed_twice_counts_twice():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        a = x * x
    assert tape.gradient([a, a], x) == 8.0


# ============================================================ source structures

def test_dict_sources():
    x = sg.constant([1.0, 2.0])
    w = sg.Variable(3.0)
    b = sg.Variable([0.5])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * w) + np.sum(b) * 2.0
    g = tape.gradient(y, {"x": x, "w": w, "b": b})
    assert isinstance(g, dict) and list(g) == ["x", "w", "b"]
    np.testing.assert_allclose(g["x"], [3.0, 3.0])
    assert np.isclose(g["w"], 3.0)
    np.testing.assert_allclose(g["b"], [2.0])


def test_tuple_sources():
    x, w = sg.Variable(2.0), sg.Variable(3.0)
    with sg.GradientTape() as tape:
        y = x * w
    g = tape.gradient(y, (x, w))
    assert isinstance(g, tuple) and len(g) == 2
    assert g[0] == 3.0 and g[1] == 2.0


def test_nested_sources():
    x = sg.constant([1.0, 2.0])
    w = sg.Variable(3.0)
    v = sg.Variable([[1.0], [2.0]])
    u = sg.Variable(7.0)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * w) + np.sum(v * v)
    g = tape.gradient(y, {"a": [x, (w, v)], "b": {"c": u}})
    assert isinstance(g, dict) and set(g) == {"a", "b"}
    assert isinstance(g["a"], list) and isinstance(g["a"][1], tuple)
    np.testing.assert_allclose(g["a"][0], [3.0, 3.0])
    assert np.isclose(g["a"][1][0], 3.0)
    np.testing.assert_allclose(g["a"][1][1], [[2.0], [4.0]])
    assert g["b"] == {"c": None}


def test_watch_nested_structure():
    a = sg.constant(1.0)
    b = sg.constant([2.0, 3.0])
    c = sg.constant(4.0)
    with sg.GradientTape() as tape:
        tape.watch({"p": [a, b], "q": (c,)})
        y = a * np.sum(b) * c
    ga, gb, gc = tape.gradient(y, [a, b, c])
    assert ga == 20.0 and gc == 5.0
    np.testing.assert_allclose(gb, [4.0, 4.0])


def test_watch_list_literal():
    a = sg.constant(2.0)
    b = sg.constant([1.0, 3.0])
    with sg.GradientTape() as tape:
        tape.watch([a, b])
        y = a * np.sum(b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga == 4.0
    np.testing.assert_allclose(gb, [2.0, 2.0])


def test_watch_named_list():
    a = sg.constant(2.0)
    b = sg.constant(3.0)
    both = [a, b]
    with sg.GradientTape() as tape:
        tape.watch(both)
        y = a * b
    assert tape.gradient(y, [a, b]) == [3.0, 2.0]


def test_watch_named_dict():
    a = sg.constant(2.0)
    b = sg.constant(3.0)
    params = {"a": a, "b": b}
    with sg.GradientTape() as tape:
        tape.watch(params)
        y = params["a"] * params["b"] ** 2
    g = tape.gradient(y, params)
    assert g == {"a": 9.0, "b": 12.0}


def test_same_source_twice():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        y = x * x
    g = tape.gradient(y, [x, x])
    assert g[0] == 4.0 and g[1] == 4.0


# ============================================================ shapes and dtypes

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_array_source_keeps_shape_and_dtype(dtype):
    x = np.linspace(0.1, 1.2, 12).reshape(3, 4).astype(dtype)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * 2.0)
    g = tape.gradient(y, x)
    assert isinstance(g, np.ndarray)
    assert g.shape == (3, 4)
    assert g.dtype == dtype
    np.testing.assert_allclose(g, 2 * np.cos(x), rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_variable_source_keeps_shape_and_dtype(dtype):
    v = sg.Variable(np.ones((2, 3)), dtype=dtype)
    with sg.GradientTape() as tape:
        y = np.sum(v * v)
    g = tape.gradient(y, v)
    assert isinstance(g, np.ndarray) and g.shape == (2, 3) and g.dtype == dtype
    np.testing.assert_allclose(g, 2.0)


def test_broadcast_source_gets_its_own_shape():
    b = sg.Variable([[1.0, 2.0, 3.0]])          # (1, 3), broadcast against (4, 3)
    x = np.arange(12.0).reshape(4, 3)
    with sg.GradientTape() as tape:
        y = np.sum(x * b)
    g = tape.gradient(y, b)
    assert g.shape == (1, 3)
    np.testing.assert_allclose(g, x.sum(axis=0, keepdims=True))


def test_scalar_sources_keep_their_type():
    f = 2.0
    f64 = np.float64(2.0)
    f32 = np.float32(2.0)
    a0 = np.array(2.0)
    with sg.GradientTape() as tape:
        tape.watch(f)
        tape.watch(f64)
        tape.watch(f32)
        tape.watch(a0)
        y = f * f64 * f32 * a0
    gf, g64, g32, ga = tape.gradient(y, [f, f64, f32, a0])
    assert isinstance(gf, float) and gf == 8.0
    assert type(g64) is np.float64 and g64 == 8.0
    assert type(g32) is np.float32 and g32 == 8.0
    assert isinstance(ga, np.ndarray) and ga.shape == () and ga == 8.0


def test_float32_gradient_dtype_of_zeros():
    x = np.zeros(3, dtype=np.float32)
    w = sg.Variable(1.0)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = w * 2.0
    gx = tape.gradient(y, x, unconnected_gradients="zero")
    assert gx.dtype == np.float32 and gx.shape == (3,)


# ============================================================ cutting gradients

def test_stop_recording_cuts():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        y = x * x
        with tape.stop_recording():
            c = x * 10.0
        z = y + c * x
    # z = x^2 + c*x with c a constant (20): dz/dx = 2x + c
    assert tape.gradient(z, x) == 4.0 + 20.0


def test_stop_recording_only_value_is_unconnected():
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
    assert tape.gradient(y, x) is None


def test_stop_gradient_cuts():
    x = sg.Variable(3.0)
    w = sg.constant([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = x * sg.stop_gradient(x) + np.sum(sg.stop_gradient(w) * w)
    gx, gw = tape.gradient(y, [x, w])
    assert gx == 3.0
    np.testing.assert_allclose(gw, [1.0, 2.0])


def test_stop_gradient_of_everything_is_unconnected():
    x = sg.Variable(3.0)
    with sg.GradientTape() as tape:
        y = sg.stop_gradient(x * x)
    assert tape.gradient(y, x) is None
    np.testing.assert_allclose(np.asarray(y), 9.0)


# ============================================================ reset, watched_variables

def test_reset_after_block_forgets_it():
    x = sg.Variable(2.0)
    tape = sg.GradientTape()
    with tape:
        y = x * x
    tape.reset()
    assert tape.gradient(y, x) is None


def test_reset_lets_the_tape_record_again():
    x = sg.Variable(2.0)
    tape = sg.GradientTape()
    with tape:
        y = x * x
    assert tape.gradient(y, x) == 4.0
    tape.reset()
    with tape:
        z = x ** 3
    assert tape.gradient(z, x) == 12.0


def test_reset_inside_block_drops_what_was_recorded_before():
    """TF's reset() example: only what runs after reset() is differentiated."""
    x = sg.Variable(2.0)
    with sg.GradientTape() as tape:
        loss = x * x
        tape.reset()
        loss += x ** 3
    assert tape.gradient(loss, x) == 12.0


def test_watched_variables_are_the_variables_read():
    a, b, unused = sg.Variable(1.0), sg.Variable([2.0, 3.0]), sg.Variable(4.0)
    frozen = sg.Variable(5.0, trainable=False)
    with sg.GradientTape() as tape:
        y = a * np.sum(b) * frozen
    watched = tape.watched_variables()
    assert len(watched) == 2
    assert any(v is a for v in watched) and any(v is b for v in watched)
    assert not any(v is unused or v is frozen for v in watched)


def test_watched_variables_with_explicit_watch():
    a, b = sg.Variable(1.0), sg.Variable(2.0)
    with sg.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        y = a * b
    watched = tape.watched_variables()
    assert len(watched) == 1 and watched[0] is b
    assert tape.gradient(y, [a, b])[0] is None


def test_watched_variables_through_attributes_and_calls():
    model = keras_like.MLP([2, 3, 1])
    with sg.GradientTape() as tape:
        out = model(np.ones((4, 2)))
    watched = tape.watched_variables()
    assert len(watched) == 4
    for v in model.trainable_variables:
        assert any(w is v for w in watched)


def test_watched_variables_empty_before_recording():
    assert sg.GradientTape().watched_variables() == ()


def test_non_trainable_variable_is_not_watched():
    x = sg.Variable(2.0, trainable=False)
    w = sg.Variable(3.0)
    with sg.GradientTape() as tape:
        y = x * w
    gx, gw = tape.gradient(y, [x, w])
    assert gx is None and gw == 2.0


def test_non_trainable_variable_can_be_watched_explicitly():
    x = sg.Variable(2.0, trainable=False)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) == 4.0


def test_watch_accessed_variables_false():
    x, w = sg.Variable(2.0), sg.Variable(5.0)
    with sg.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        y = x * w
    assert tape.gradient(y, x) is None
    assert tape.gradient(y, [x, w], unconnected_gradients="zero") == [0.0, 0.0]
    assert tape.watched_variables() == ()


def test_watch_accessed_variables_false_watched_one():
    x, w = sg.Variable(2.0), sg.Variable(5.0)
    with sg.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = x * w
    gx, gw = tape.gradient(y, [x, w])
    assert gx is None and gw == 2.0


def test_persistent_tape_reentered_chains_through_both_blocks():
    x = sg.constant(2.0)
    tape = sg.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    with tape:
        z = y * 3.0 + x
    assert tape.gradient(z, x) == 13.0
    assert tape.gradient(y, x) == 4.0


# ============================================================ Variables through code

class Affine:
    def __init__(self):
        self.w = sg.Variable([[1.0, -2.0], [0.5, 3.0]])
        self.b = sg.Variable([0.1, -0.2])

    def __call__(self, x):
        return x @ self.w + self.b

    def energy(self, x):
        h = self(x)
        return np.sum(h * h)


def squash(a, scale):
    return np.tanh(a) * scale


W_GLOBAL = sg.Variable([1.5, -0.5], name="W_GLOBAL")
C_GLOBAL = sg.constant(2.0)


def predict_with_global(a):
    return np.sum(a * W_GLOBAL)


def scale_by_global(a):
    return a * C_GLOBAL


def test_global_variable_read_in_block():
    x = np.array([2.0, 3.0])
    with sg.GradientTape() as tape:
        y = np.sum(x * W_GLOBAL)
    np.testing.assert_allclose(tape.gradient(y, W_GLOBAL), x)


def test_global_variable_read_through_user_function():
    x = np.array([2.0, 3.0])
    with sg.GradientTape() as tape:
        y = predict_with_global(x)
    g = tape.gradient(y, W_GLOBAL)
    assert g is not None
    np.testing.assert_allclose(g, x)
    assert any(v is W_GLOBAL for v in tape.watched_variables())


def test_watched_global_read_through_user_function():
    x = sg.constant(3.0)
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(C_GLOBAL)
        y = scale_by_global(x) * x
    gx, gc = tape.gradient(y, [x, C_GLOBAL])
    assert gx == 12.0
    assert gc == 9.0


def test_module_level_globals_read_through_user_functions():
    namespace = runpy.run_path(str(CASES / "globals_script.py"))
    assert namespace["G_W"] is not None
    np.testing.assert_allclose(namespace["G_W"], [2.0, 3.0])
    assert namespace["G_Z"] == 12.0
    assert namespace["G_C"] == 9.0


def test_variables_read_through_attributes():
    layer = Affine()
    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    with sg.GradientTape() as tape:
        y = np.sum(x @ layer.w + layer.b)
    gw, gb = tape.gradient(y, [layer.w, layer.b])
    np.testing.assert_allclose(gw, x.sum(axis=0)[:, None] * np.ones((1, 2)))
    np.testing.assert_allclose(gb, [2.0, 2.0])


def test_variables_read_through_method_calls():
    layer = Affine()
    x = np.array([[1.0, 2.0], [-1.0, 0.5]])
    with sg.GradientTape() as tape:
        e = layer.energy(x)
    gw, gb = tape.gradient(e, [layer.w, layer.b])
    h = x @ np.asarray(layer.w) + np.asarray(layer.b)
    np.testing.assert_allclose(gw, x.T @ (2 * h), rtol=1e-12)
    np.testing.assert_allclose(gb, (2 * h).sum(axis=0), rtol=1e-12)


def test_variables_read_through_user_functions():
    s = sg.Variable(2.0)
    v = sg.Variable([0.3, -0.4])
    with sg.GradientTape() as tape:
        y = np.sum(squash(v, s))
    gv, gs = tape.gradient(y, [v, s])
    np.testing.assert_allclose(gv, 2.0 * (1 - np.tanh(v) ** 2), rtol=1e-12)
    assert np.isclose(gs, np.sum(np.tanh(v)), rtol=1e-12)


def test_variables_read_through_nested_attributes():
    """SPEC: ``model.layers[0].w`` is watched."""
    model = keras_like.MLP([2, 2, 1])
    x = np.array([[1.0, 2.0]])
    with sg.GradientTape() as tape:
        y = np.sum(x @ model.layers[0].w)
    g = tape.gradient(y, model.layers[0].w)
    np.testing.assert_allclose(g, np.array([[1.0, 1.0], [2.0, 2.0]]))


def test_variable_in_a_list_read_in_a_loop():
    vs = [sg.Variable(1.0), sg.Variable(2.0), sg.Variable(3.0)]
    with sg.GradientTape() as tape:
        total = 0.0
        for v in vs:
            total = total + v * v
    np.testing.assert_allclose(tape.gradient(total, vs), [2.0, 4.0, 6.0])


def test_variables_in_a_list_read_by_index():
    vs = [sg.Variable(1.0), sg.Variable(2.0)]
    c = sg.constant(3.0)
    with sg.GradientTape() as tape:
        tape.watch(c)
        y = vs[0] * vs[1] * c
    assert tape.gradient(y, [vs[0], vs[1], c]) == [6.0, 3.0, 2.0]


def test_variables_in_a_dict_read_by_key():
    params = {"w": sg.Variable(2.0), "b": sg.Variable(0.5)}
    with sg.GradientTape() as tape:
        y = params["w"] * 3.0 + params["b"]
    assert tape.gradient(y, params) == {"w": 3.0, "b": 1.0}


def test_assign_sub_between_steps_and_recompute():
    w = sg.Variable([1.0, -2.0])
    x = np.array([0.5, 1.5])
    seen = []
    for _ in range(4):
        with sg.GradientTape() as tape:
            loss = np.sum((w * x - 1.0) ** 2)
        g = tape.gradient(loss, w)
        expected = 2 * (np.asarray(w) * x - 1.0) * x
        np.testing.assert_allclose(g, expected, rtol=1e-12)
        seen.append(float(loss))
        w.assign_sub(0.3 * g)
    assert all(b < a for a, b in zip(seen, seen[1:])), seen


def test_assign_after_exit_does_not_change_gradient():
    """The gradient is taken at the values the block ran with."""
    w = sg.Variable(3.0)
    with sg.GradientTape() as tape:
        y = w * w
    w.assign(100.0)
    assert tape.gradient(y, w) == 6.0


def test_rebinding_input_after_exit_does_not_change_gradient():
    x = sg.constant([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x ** 3)
    x0 = x
    x = x * 100.0
    np.testing.assert_allclose(tape.gradient(y, x0), 3 * x0 ** 2)


def test_tape_in_a_loop_in_plain_function():
    x = sg.constant(1.0)
    grads = []
    for k in range(1, 4):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = x ** k
        grads.append(float(tape.gradient(y, x)))
    assert grads == [1.0, 2.0, 3.0]


def test_control_flow_inside_block():
    x = sg.constant([0.5, -1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        total = 0.0
        for i in range(3):
            if x[i] > 0:
                total = total + x[i] ** 2
            else:
                total = total - 3.0 * x[i]
    np.testing.assert_allclose(tape.gradient(total, x), [1.0, -3.0, 4.0])


def test_third_derivative_with_three_tapes():
    x = sg.constant(2.0)
    with sg.GradientTape() as t3:
        t3.watch(x)
        with sg.GradientTape() as t2:
            t2.watch(x)
            with sg.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1, d2, d3) == (32.0, 48.0, 48.0)


def test_nested_tapes_with_variables():
    v = sg.Variable(0.5)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            y = np.sin(v) * v
        dy = inner.gradient(y, v)
    d2y = outer.gradient(dy, v)
    assert np.isclose(dy, np.cos(0.5) * 0.5 + np.sin(0.5), rtol=1e-12)
    assert np.isclose(d2y, -np.sin(0.5) * 0.5 + 2 * np.cos(0.5), rtol=1e-12)


# ============================================================ Keras-like model

@pytest.mark.parametrize("step", ["train_step", "train_step_decorated", "train_step_manual"])
def test_keras_like_training_loss_falls(step):
    model = keras_like.MLP([3, 8, 1])
    x, y = keras_like.make_data()
    losses = keras_like.train(model, x, y, steps=15, lr=0.1, step=getattr(keras_like, step))
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < 0.5 * losses[0], losses


def test_keras_like_training_placements_agree():
    runs = []
    for step in (keras_like.train_step, keras_like.train_step_decorated,
                 keras_like.train_step_manual):
        model = keras_like.MLP([3, 8, 1])
        x, y = keras_like.make_data()
        runs.append(keras_like.train(model, x, y, steps=5, lr=0.1, step=step))
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-13)
    np.testing.assert_allclose(runs[2], runs[0], rtol=1e-13)


def test_same_code_with_a_deeper_model():
    """One tape block (one code location) used with a 2-layer and then a 3-layer MLP."""
    x, y = keras_like.make_data(6, seed=5)
    shallow = keras_like.MLP([3, 4, 1], seed=1)
    _, grads = keras_like.loss_and_grads(shallow, x, y)
    assert len(grads) == 4 and all(g is not None for g in grads)
    deep = keras_like.MLP([3, 4, 2, 1], seed=1)
    _, grads = keras_like.loss_and_grads(deep, x, y)
    assert len(grads) == 6
    assert all(g is not None for g in grads), [None if g is None else g.shape for g in grads]
    numeric = fd_variables(lambda: keras_like.loss_fn(y, deep(x)), deep.trainable_variables)
    for g, n in zip(grads, numeric):
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_keras_like_gradients_match_finite_differences(activation):
    model = keras_like.MLP([3, 5, 4, 1], activation=activation, seed=7)
    x, y = keras_like.make_data(10, seed=4)
    keras_like.train(model, x, y, steps=2, lr=0.05)  # one step's gradients, after some training
    loss, grads = keras_like.loss_and_grads(model, x, y)
    variables = model.trainable_variables
    assert len(grads) == len(variables) == 6
    numeric = fd_variables(lambda: keras_like.loss_fn(y, model(x)), variables)
    for v, g, n in zip(variables, grads, numeric):
        assert g.shape == v.shape and g.dtype == np.float64
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-8, err_msg=v.name)


# ============================================================ jacobian, custom_gradient

def test_jacobian():
    x = sg.constant([1.0, 2.0, 3.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    j = tape.jacobian(y, x)
    assert j.shape == (3, 3)
    np.testing.assert_allclose(j, np.diag(2 * x))


def test_batch_jacobian():
    x = sg.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = tape.batch_jacobian(y, x)
    assert j.shape == (3, 2, 2)
    for b in range(3):
        np.testing.assert_allclose(j[b], np.diag(2 * x[b]))


@sg.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return np.log(1 + e), grad


def test_custom_gradient():
    """TF's log1pexp example: the naive gradient at x = 1000 is nan, the custom one 1."""
    x = sg.constant(1000.0)
    with np.errstate(over="ignore", invalid="ignore"):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        g = tape.gradient(y, x)
    assert g == 1.0


# -- Variables assigned after the block: the gradient uses what the block read --------

class _Layer:
    def __init__(self, w):
        self.w = sg.Variable(w)

    def __call__(self, x):
        return np.tanh(x @ self.w)


def _layer_grad(x, w):
    h = np.tanh(x @ w)
    return x.T @ (2.0 * h * (1.0 - h * h))


_GLOBAL_SCALE = sg.Variable(np.array([1.5, -0.5]))


def _scaled(v):
    return v * _GLOBAL_SCALE


def test_assign_after_the_block_does_not_change_the_gradient():
    layer = _Layer(np.array([[0.5, -1.0], [2.0, 0.3]]))
    x = np.array([[1.0, 2.0]])
    w0 = layer.w.numpy()
    with sg.GradientTape(persistent=True) as tape:
        y = np.sum(layer(x) ** 2)
    layer.w.assign_sub(np.full((2, 2), 0.5))
    np.testing.assert_allclose(tape.gradient(y, layer.w), _layer_grad(x, w0))
    layer.w.assign(w0 * 3.0)  # again: still the value the block read
    np.testing.assert_allclose(tape.gradient(y, layer.w), _layer_grad(x, w0))


def test_assign_between_two_blocks_of_a_persistent_tape():
    v = sg.Variable(np.array([1.0, 2.0]))
    tape = sg.GradientTape(persistent=True)
    with tape:
        a = np.sum(v * v)        # reads [1, 2]
    v.assign_add(np.array([1.0, 1.0]))
    with tape:
        b = np.sum(v * v * v)    # reads [2, 3]
    v.assign(np.zeros(2))
    np.testing.assert_allclose(tape.gradient(a, v), [2.0, 4.0])
    np.testing.assert_allclose(tape.gradient(b, v), [12.0, 27.0])
    np.testing.assert_allclose(tape.gradient([a, b], v), [14.0, 31.0])


def test_assign_of_a_global_variable_read_in_a_called_function():
    x = np.array([2.0, 4.0])
    before = _GLOBAL_SCALE.numpy()
    try:
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(_scaled(x) ** 2)
        _GLOBAL_SCALE.assign(np.array([10.0, 10.0]))
        np.testing.assert_allclose(tape.gradient(y, x), 2.0 * x * before ** 2)
    finally:
        _GLOBAL_SCALE.assign(before)


def test_tapes_stop_tracking_assignments_when_done():
    from srcgrad import variables

    v = sg.Variable(1.0)
    with sg.GradientTape() as tape:
        y = v * v
    assert tape in variables._TAPES
    tape.gradient(y, v)
    assert tape not in variables._TAPES  # a used non-persistent tape keeps nothing alive
    with sg.GradientTape(persistent=True) as kept:
        z = v * 3.0
    assert kept in variables._TAPES
    kept.reset()
    assert kept not in variables._TAPES
    del z


def test_tape_gradients_are_writeable_arrays_of_their_own():
    v = sg.Variable(np.ones(3))
    x = np.ones(2)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(v) + np.sum(x)
    gv, gx = tape.gradient(y, [v, x])
    gv *= 0.5
    gx *= 0.5
    np.testing.assert_allclose(gv, 0.5)
    np.testing.assert_allclose(gx, 0.5)


class _Scaled:
    def __init__(self):
        self.w = sg.Variable(np.array([1.0, 2.0]))

    def loss_and_grad(self, x):
        with sg.GradientTape() as tape:
            y = np.sum(self.w * x) ** 2
        return tape.gradient(y, self.w)


def test_a_tape_in_a_function_reads_only_that_function():
    """Not the whole file: a tape in a long script costs the parse of its function."""
    from srcgrad.tape import blocks

    model, x = _Scaled(), np.array([3.0, -1.0])
    before = set(blocks._TREES)
    g = model.loss_and_grad(x)
    np.testing.assert_allclose(g, 2.0 * np.sum(model.w.numpy() * x) * x)
    new = [blocks._TREES[k] for k in set(blocks._TREES) - before if k[0] == __file__]
    assert new and new[0] is not None
    defs = [n.name for n in gast.walk(new[0]) if isinstance(n, gast.FunctionDef)]
    assert defs == ["loss_and_grad"]
