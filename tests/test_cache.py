"""Compiled code is cached per function and kind of arguments, and never stale.

``srcgrad.source.PARSE_COUNT[0]`` counts every parse of user source: a cached
call leaves it unchanged. Staleness tests write modules into ``tmp_path`` and
edit them on disk (bumping the mtime and dropping ``__pycache__`` so that
``importlib.reload`` and ``inspect`` see the edit).
"""
import importlib
import itertools
import linecache
import os
import shutil
import sys
import textwrap

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.compiler import source


def _parses():
    return source.PARSE_COUNT[0]


# ---- functions under test --------------------------------------------------------

def helper(x):
    return np.sin(x) * 2.0


def calls_helper(x):
    return np.sum(helper(x) * x)


def cubic(x):
    return np.sum(x ** 3)


SCALE = 2.0


def scaled(x):
    return np.sum(x * x) * SCALE


X = np.array([0.3, -1.2, 2.0])


def _fd(f, x, eps=1e-6):
    """Central differences of scalar ``f`` at float or array ``x`` (Python's behaviour)."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ---- no parsing on cached calls ----------------------------------------------------

def test_parse_count_is_a_counter():
    before = _parses()
    sg.grad(cubic)(X)  # a fresh gradient function compiles: parses at least once
    assert _parses() > before


def test_second_call_does_no_parsing():
    g = sg.grad(calls_helper)
    first = g(X)
    count = _parses()
    second = g(X)
    third = g(X * 2.0)  # other values of the same kind
    assert _parses() == count
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(third, _fd(calls_helper, X * 2.0), rtol=1e-6, atol=1e-8)


def test_second_call_of_value_and_grad_does_no_parsing():
    vg = sg.value_and_grad(calls_helper)
    vg(X)
    count = _parses()
    value, g = vg(X + 1.0)
    assert _parses() == count
    assert value == pytest.approx(calls_helper(X + 1.0))
    np.testing.assert_allclose(g, _fd(calls_helper, X + 1.0), rtol=1e-6, atol=1e-8)


def test_other_shape_same_dtype_does_no_parsing():
    g = sg.grad(cubic)
    g(np.ones(6))
    count = _parses()
    out = g(np.ones(9))  # same rank and dtype, other length (lengths up to 4 are exact)
    assert _parses() == count
    np.testing.assert_allclose(out, 3.0 * np.ones(9))
    # Another rank is another kind: the code is specialised on ranks (ranks.py).
    out = g(np.ones((2, 2)))
    assert _parses() == count + 1
    np.testing.assert_allclose(out, 3.0 * np.ones((2, 2)))


def test_new_kind_compiles_new_entry_and_old_ones_are_reused():
    # A function object of its own: compiled entries are shared by every
    # sg.grad of the same function, so one used by other tests would be warm.
    def cubic(x):
        return np.sum(x ** 3)

    g = sg.grad(cubic)
    kinds = [X, X.astype(np.float32), 0.5, np.float32(0.5)]
    counts = []
    for value in kinds:
        before = _parses()
        out = g(value)
        counts.append(_parses() - before)
        np.testing.assert_allclose(np.asarray(out, dtype=np.float64),
                                   3.0 * np.asarray(value, dtype=np.float64) ** 2, rtol=1e-6)
        assert np.asarray(out).dtype == np.asarray(value).dtype
    assert all(c > 0 for c in counts), counts  # each new kind compiles
    count = _parses()
    for value in kinds:  # every old entry is reused
        g(value)
    assert _parses() == count


def test_grad_again_of_the_same_function_reuses_its_code():
    def quartic(x):
        return x ** 4

    sg.grad(quartic)(0.5)
    before = _parses()
    assert float(sg.grad(quartic)(0.5)) == pytest.approx(0.5)
    assert _parses() == before


def test_higher_order_second_call_does_no_parsing():
    d = sg.grad(cubic)

    def first(x):
        return d(x)

    dd = sg.grad(first)
    assert float(dd(0.5)) == pytest.approx(3.0)
    count = _parses()
    assert float(dd(1.5)) == pytest.approx(9.0)
    assert _parses() == count


# ---- never stale: globals -------------------------------------------------------

def test_rebinding_a_global_constant():
    global SCALE
    g = sg.grad(scaled)
    try:
        np.testing.assert_allclose(g(X), 4.0 * X)
        SCALE = 3.0
        np.testing.assert_allclose(g(X), 6.0 * X)
        SCALE = 2.0
        np.testing.assert_allclose(g(X), 4.0 * X)
    finally:
        SCALE = 2.0


def test_rebinding_a_global_helper(monkeypatch):
    g = sg.grad(calls_helper)
    np.testing.assert_allclose(g(X), 2.0 * np.sin(X) + 2.0 * X * np.cos(X))

    def other(x):
        return x * x

    monkeypatch.setattr(sys.modules[__name__], "helper", other)
    np.testing.assert_allclose(g(X), 3.0 * X * X)
    monkeypatch.undo()
    np.testing.assert_allclose(g(X), 2.0 * np.sin(X) + 2.0 * X * np.cos(X))


# ---- never stale: redefinitions --------------------------------------------------

_IDS = itertools.count()


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    # Make sure mtime-based caches (linecache, .pyc) notice the edit.
    stamp = 1_000_000_000 + next(_IDS) * 10
    os.utime(path, (stamp, stamp))
    shutil.rmtree(path.parent / "__pycache__", ignore_errors=True)


def _exec_file(path, namespace):
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def test_exec_of_a_module_file_twice(tmp_path):
    path = tmp_path / "script_a.py"
    _write(path, """
        import numpy as np

        def f(x):
            return np.sum(x * x)

        def g(x):
            return f(x) * 2.0
    """)
    ns = _exec_file(path, {"__name__": "script_a"})
    dg = sg.grad(ns["g"])
    np.testing.assert_allclose(sg.grad(ns["f"])(X), 2.0 * X)
    np.testing.assert_allclose(dg(X), 4.0 * X)
    _write(path, """
        import numpy as np

        def f(x):
            return np.sum(x ** 3)

        def g(x):
            return f(x) * 5.0
    """)
    _exec_file(path, ns)
    np.testing.assert_allclose(sg.grad(ns["f"])(X), 3.0 * X ** 2)
    np.testing.assert_allclose(sg.grad(ns["g"])(X), 15.0 * X ** 2)


def test_exec_twice_redefines_only_the_callee(tmp_path):
    """Re-running the cell that defines ``f`` changes ``g``'s gradient too."""
    first = tmp_path / "cell_f.py"
    second = tmp_path / "cell_g.py"
    _write(first, """
        def f(x):
            return x * x
    """)
    _write(second, """
        def g(x):
            return f(x) * 3.0
    """)
    ns = {}
    _exec_file(first, ns)
    _exec_file(second, ns)
    dg = sg.grad(ns["g"])
    assert float(dg(2.0)) == pytest.approx(12.0)
    _write(first, """
        def f(x):
            return x * x * x
    """)
    _exec_file(first, ns)
    assert float(dg(2.0)) == pytest.approx(36.0)


def test_old_function_object_after_its_file_changed(tmp_path):
    """A function object keeps its old code when the file is edited: so must its gradient."""
    path = tmp_path / "script_b.py"
    _write(path, """
        def f(x):
            return x * x
    """)
    old = _exec_file(path, {})["f"]
    _write(path, """
        def f(x):
            return x * x * x
    """)
    new = _exec_file(path, {})["f"]
    assert float(sg.grad(new)(2.0)) == pytest.approx(12.0)
    # Python still runs the old code for ``old``: d(x*x)/dx = 4 at 2. Its source
    # is gone from disk, so srcgrad must refuse rather than differentiate x**3.
    assert old(2.0) == 4.0
    with pytest.raises(sg.SourceUnavailableError, match="has changed since"):
        sg.grad(old)(2.0)


def test_same_name_defined_again_like_a_rerun_notebook_cell():
    namespace = {"np": np}
    results = []
    for run, body in enumerate(["x ** 2", "x ** 3", "np.sin(x)", "x ** 2"]):
        cell = f"def f(x):\n    return {body}\n"
        name = f"<ipython-input-{run}-test-cache>"
        linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
        exec(compile(cell, name, "exec"), namespace)
        results.append(float(sg.grad(namespace["f"])(0.5)))
    assert results == pytest.approx([1.0, 0.75, np.cos(0.5), 1.0])


def test_same_name_defined_in_a_loop():
    results = []
    for power in (2, 3, 4):
        def f(x):
            return x ** power

        results.append(float(sg.grad(f)(2.0)))
    assert results == pytest.approx([4.0, 12.0, 32.0])


# ---- never stale: module reload -----------------------------------------------------

@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Write modules into ``tmp_path`` (on sys.path) under unique names; reload them."""
    monkeypatch.syspath_prepend(str(tmp_path))
    tag = next(_IDS)
    created = []

    def write(name, text):
        real = f"{name}_{tag}"
        _write(tmp_path / f"{real}.py", text.replace("{tag}", str(tag)))
        importlib.invalidate_caches()
        if real not in created:
            created.append(real)
        return real

    yield write
    for name in created:
        sys.modules.pop(name, None)


_HELPER_V1 = """
    import numpy as np

    def helper(x):
        return np.sin(x) * 2.0
"""
_HELPER_V2 = """
    import numpy as np

    def helper(x):
        return np.cos(x) * 5.0 + x * x
"""
_CALLER = """
    import numpy as np
    import helpmod_{tag} as helpmod
    from helpmod_{tag} import helper

    def via_module(x):
        return np.sum(helpmod.helper(x) * 3.0)

    def via_import(x):
        return np.sum(helper(x) * 3.0)
"""


def _reload_setup(modules):
    helper_name = modules("helpmod", _HELPER_V1)
    caller_name = modules("caller", _CALLER)
    helpmod = importlib.import_module(helper_name)
    caller = importlib.import_module(caller_name)
    return helper_name, helpmod, caller


def test_reload_helper_called_through_module_attribute(modules):
    helper_name, helpmod, caller = _reload_setup(modules)
    g = sg.grad(caller.via_module)
    np.testing.assert_allclose(g(X), 6.0 * np.cos(X))
    modules("helpmod", _HELPER_V2)
    importlib.reload(helpmod)
    expected = 3.0 * (-5.0 * np.sin(X) + 2.0 * X)
    np.testing.assert_allclose(_fd(caller.via_module, X), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g(X), expected)                         # cached wrapper
    np.testing.assert_allclose(sg.grad(caller.via_module)(X), expected)  # fresh wrapper


def test_reload_helper_imported_by_name_cached_wrapper(modules):
    """``from m import helper`` keeps the old function after reload; so must srcgrad."""
    helper_name, helpmod, caller = _reload_setup(modules)
    g = sg.grad(caller.via_import)
    np.testing.assert_allclose(g(X), 6.0 * np.cos(X))
    modules("helpmod", _HELPER_V2)
    importlib.reload(helpmod)
    python = _fd(caller.via_import, X)  # what Python itself computes now
    np.testing.assert_allclose(python, 6.0 * np.cos(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g(X), python, rtol=1e-6, atol=1e-8)


def test_reload_helper_imported_by_name_fresh_wrapper(modules):
    """Compiling after the reload must still differentiate the function Python calls."""
    helper_name, helpmod, caller = _reload_setup(modules)
    modules("helpmod", _HELPER_V2)
    importlib.reload(helpmod)
    python = _fd(caller.via_import, X)
    np.testing.assert_allclose(python, 6.0 * np.cos(X), rtol=1e-6, atol=1e-8)
    # The caller still holds the old helper, whose source file now says
    # something else: srcgrad refuses instead of differentiating the new text.
    with pytest.raises(sg.SourceUnavailableError, match="has changed since"):
        sg.grad(caller.via_import)(X)


def test_reload_of_the_differentiated_module_itself(modules):
    helper_name, helpmod, caller = _reload_setup(modules)
    old = helpmod.helper
    assert float(sg.grad(old)(0.5)) == pytest.approx(2.0 * np.cos(0.5))
    modules("helpmod", _HELPER_V2)
    importlib.reload(helpmod)
    assert float(sg.grad(helpmod.helper)(0.5)) == pytest.approx(-5.0 * np.sin(0.5) + 1.0)
    # The old object still computes the old function.
    assert float(sg.grad(old)(0.5)) == pytest.approx(2.0 * np.cos(0.5))


def test_inline_grad_of_grad_with_a_new_kind_after_the_first_wrapper_is_gone():
    """sg.grad(sg.grad(f)) written inline makes a new inner wrapper at each call."""
    import gc

    def wave(a):
        return np.sum(np.sin(a) * a)

    expected = 2 * np.cos(0.7) - 0.7 * np.sin(0.7)
    assert float(sg.grad(sg.grad(wave))(0.7)) == pytest.approx(expected)
    gc.collect()
    out = sg.grad(sg.grad(wave))(np.float32(0.7))  # a new kind: compiles again
    assert type(out) is np.float32 and float(out) == pytest.approx(expected, rel=1e-5)


# -- code specialised on objects passed in: one entry per object ------------------

def _apply(f, x):
    return np.sum(f(x))


def _square(v):
    return v * v


def _cube(v):
    return v * v * v


def test_functions_passed_as_arguments_compile_apart():
    x = np.array([0.5, 1.0])
    grad = sg.grad(_apply, wrt=1)
    np.testing.assert_allclose(grad(np.sin, x), np.cos(x))
    np.testing.assert_allclose(grad(np.cos, x), -np.sin(x))  # not sin's code again
    np.testing.assert_allclose(grad(_square, x), 2 * x)
    np.testing.assert_allclose(grad(_cube, x), 3 * x * x)
    before = source.PARSE_COUNT[0]
    np.testing.assert_allclose(grad(np.cos, x), -np.sin(x))  # and each is cached
    assert source.PARSE_COUNT[0] == before


class _Act:
    def __init__(self, act, scale):
        self.act = act
        self.scale = scale

    def __call__(self, x):
        return np.sum(self.act(x) * self.scale)

    def double(self, x):
        return 2.0 * self(x)


def test_functions_held_by_attributes_compile_apart():
    x = np.array([0.5, 1.0])
    grad = sg.grad(lambda model, v: model(v), wrt=1)
    np.testing.assert_allclose(grad(_Act(np.sin, 1.0), x), np.cos(x))
    np.testing.assert_allclose(grad(_Act(np.cos, 1.0), x), -np.sin(x))
    np.testing.assert_allclose(grad(_Act(_cube, 2.0), x), 6 * x * x)


def test_bound_methods_key_on_their_function_and_object_kind():
    x = np.array([0.5, 1.0])
    grad = sg.grad(_apply, wrt=1)
    np.testing.assert_allclose(grad(_Act(np.sin, 1.0).double, x), 2 * np.cos(x))
    before = source.PARSE_COUNT[0]
    np.testing.assert_allclose(grad(_Act(np.sin, 3.0).double, x), 6 * np.cos(x))
    assert source.PARSE_COUNT[0] == before  # a new bound method of the same kind: no recompile
    np.testing.assert_allclose(grad(_Act(_square, 1.0).double, x), 4 * x)


def test_script_run_again_resolves_names_in_its_new_globals(tmp_path):
    import runpy

    script = tmp_path / "rerun_script.py"
    script.write_text(textwrap.dedent("""\
        import numpy as np
        import srcgrad as sg

        def local_fn(a):
            return np.sum(a * w)

        with sg.GradientTape() as tape:
            tape.watch(w)
            y = local_fn(w)
        RESULT = tape.gradient(y, w)
        """))
    for k in range(3):
        w = np.array([1.0, 2.0]) * (k + 1)
        got = runpy.run_path(str(script), init_globals={"w": w})["RESULT"]
        np.testing.assert_allclose(got, 2 * w)


def test_compiling_leaves_the_garbage_collector_as_it_was():
    import gc

    def f(x):
        return np.sum(x * x)

    assert gc.isenabled()
    sg.grad(f)(np.ones(2))
    assert gc.isenabled()
    gc.disable()
    try:
        sg.grad(lambda x: np.sum(np.sin(x)))(np.ones(2))
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(sg.CompileError):
        sg.grad(lambda x: [v for v in iter(x)].pop())(np.ones(2))  # fails mid-compile
    assert gc.isenabled()


def test_names_numbered_in_order_without_rescanning():
    from srcgrad.compiler.naming import Namer

    namer = Namer(["t", "t_3"])
    assert [namer.fresh("t") for _ in range(4)] == ["t_2", "t_4", "t_5", "t_6"]
    namer.reserve(["u_2"])
    assert [namer.fresh("u") for _ in range(3)] == ["u", "u_3", "u_4"]


def _tape_step(a, b):
    with sg.GradientTape() as tape:
        y = np.sum(a * b)
    return tape.gradient(y, [a, b])


class _Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


def _tape_step_attributes(m):
    with sg.GradientTape() as tape:
        y = np.sum(m.a * m.b)
    return tape.gradient(y, [m.a, m.b])


def test_tape_code_keys_on_whether_variables_are_trainable():
    # A tape watches trainable Variables only: that is compiled in, so it keys the cache.
    V = sg.Variable
    assert _tape_step(V(2.0), V(3.0, trainable=False))[1] is None
    da, db = _tape_step(V(2.0, trainable=False), V(3.0))
    assert da is None and db == 2.0
    da, db = _tape_step_attributes(_Pair(V(2.0), V(3.0, trainable=False)))
    assert da == 3.0 and db is None
    da, db = _tape_step_attributes(_Pair(V(2.0, trainable=False), V(3.0)))
    assert da is None and db == 2.0


def _scalar_of_product(x, v):
    return np.sum(x[0] * v)


def test_code_keys_on_the_rank_of_a_variable_argument():
    # Ranks are compiled in (ranks.py): a Variable's rank keys the cache as an array's does.
    x = np.array([1.0, 2.0])
    grad = sg.grad(_scalar_of_product)
    np.testing.assert_allclose(grad(x, sg.Variable(2.0)), [2.0, 0.0])
    np.testing.assert_allclose(grad(x, sg.Variable(np.array([1.0, 3.0]))), [4.0, 0.0])


def _weighted(x, w, s):
    return np.sum(x * w) * s + np.sum(x[:2]) * s


def test_the_last_calls_code_is_reused_only_for_equal_shapes_and_dtypes():
    # (Compiled.entry's shortcut: arrays and floats of the last call's shapes and dtypes.)
    g = sg.grad(_weighted, wrt=(0, 1, 2))
    x, w = np.arange(1.0, 5.0), np.linspace(0.5, 2.0, 4)
    for args in [(x, w, 1.5), (x, w, 2.5), (x.astype(np.float32), w.astype(np.float32), 1.5),
                 (x[:3], w[:3], 1.5), (x, w[:1], 1.5), (x, w, np.float64(1.5)), (x, w, 1.5)]:
        gx, gw, gs = g(*args)
        a, b, s = args
        want_x = np.broadcast_to(b * s, np.shape(a)) + np.where(np.arange(len(a)) < 2, s, 0.0)
        np.testing.assert_allclose(gx, want_x, rtol=1e-6)
        assert gx.dtype == a.dtype and gw.shape == np.shape(b)
        np.testing.assert_allclose(gw, np.sum(a * s) if np.size(b) == 1 else a * s, rtol=1e-6)
        np.testing.assert_allclose(gs, np.sum(a * b) + np.sum(a[:2]), rtol=1e-6)
