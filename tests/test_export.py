"""``srcgrad export`` (issue 14, section 3): the exported module runs in a child
interpreter where srcgrad, gast and beniget cannot be imported, and gives
sg.grad's gradient; in several styles of function (tests/export_cases/models.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from export_cases import models
from srcgrad.cli import main

RNG = np.random.default_rng(2)
PARAMS = {"W1": RNG.normal(size=(2, 3)), "b1": RNG.normal(size=3),
          "W2": RNG.normal(size=(3, 1)), "b2": RNG.normal(size=1)}
X2 = RNG.normal(size=(5, 2))
CASES = {
    "mlp": ("mlp", [PARAMS, X2], None),
    "rbf_energy": ("rbf_energy", [np.array([0.3, -0.2])], None),
    "spectral": ("spectral", [RNG.normal(size=8)], None),
    "complex_phase": ("complex_phase", [RNG.normal(size=3) + 1j * RNG.normal(size=3)], None),
    "piecewise": ("piecewise", [np.array([0.5, -1.0, 2.0]), 1.5], "x,y"),
}

_CHILD = """
import importlib.abc, json, pickle, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("srcgrad", "gast", "beniget"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
sys.path.insert(0, sys.argv[1])
import exported
args = pickle.load(open(sys.argv[2], "rb"))
fn = [v for k, v in vars(exported).items() if k.startswith(sys.argv[4])][0]
pickle.dump(fn(*args), open(sys.argv[3], "wb"))
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("srcgrad", "gast")))))
"""


def _run_blocked(directory, args, prefix="grad_"):
    """The exported module's function (named ``prefix...``) at ``args``, in a child
    interpreter that cannot import srcgrad, gast or beniget (and did not)."""
    import pickle

    pickle.dump(args, open(directory / "args.pkl", "wb"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", _CHILD, str(directory),
                          str(directory / "args.pkl"), str(directory / "out.pkl"), prefix],
                         capture_output=True, text=True, env=env, cwd=directory, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
    return pickle.load(open(directory / "out.pkl", "rb"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_exported_gradient_needs_only_numpy(name, tmp_path, capsys):
    function, args, wrt = CASES[name]
    target = f"{Path(models.__file__)}:{function}"
    argv = ["export", target, "-o", str(tmp_path / "exported.py")] + (
        ["--wrt", wrt] if wrt else [])
    assert main(argv) == 0
    needs = "NumPy and SciPy" if name == "spectral" else "only NumPy"  # (sp.log_expit)
    assert f"needs {needs}" in capsys.readouterr().out
    text = (tmp_path / "exported.py").read_text()
    assert "srcgrad" not in "".join(line for line in text.splitlines(True)
                                    if line.startswith(("import", "from")))
    got = _run_blocked(tmp_path, args)
    fn = getattr(models, function)
    want = sg.grad(fn, tuple(wrt.split(",")) if wrt else 0)(*args)
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        if isinstance(w, dict):
            for k in w:
                np.testing.assert_allclose(g[k], w[k], rtol=1e-12)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_what_cannot_be_written_is_refused(tmp_path, capsys):
    target = f"{Path(__file__).parent / 'export_cases' / 'objects.py'}:uses_an_object"
    assert main(["export", target, "-o", str(tmp_path / "x.py")]) == 1
    assert "cannot be written into a module that needs only NumPy" in capsys.readouterr().err
    assert not (tmp_path / "x.py").exists()


def test_a_bad_target_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["export", f"{models.__file__}:missing", "-o", str(tmp_path / "x.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no attribute 'missing'" in err


def test_an_export_specialised_for_argument_kinds(tmp_path, capsys):
    """``--args``: the code a call with those kinds runs (ranks known), standalone too."""
    target = f"{Path(models.__file__)}:rbf_energy"
    out = tmp_path / "exported.py"
    assert main(["export", target, "-o", str(out), "--args", "float64[2]"]) == 0
    assert out.read_text() != ""
    args = [np.array([0.3, -0.2])]
    got = _run_blocked(tmp_path, args)
    np.testing.assert_allclose(got, sg.grad(models.rbf_energy)(*args), rtol=1e-12)


@pytest.mark.parametrize("mode", ["value_and_grad", "forward"])
def test_export_modes(mode, tmp_path, capsys):
    """``--mode value_and_grad``: ``(value, gradient)``; ``--mode forward``: the forward
    code, ``jvp_<name>(<args>, <tangents>)`` returning the value and the derivative."""
    target = f"{Path(models.__file__)}:rbf_energy"
    assert main(["export", target, "-o", str(tmp_path / "exported.py"), "--mode", mode]) == 0
    assert "needs only NumPy" in capsys.readouterr().out
    x, v = np.array([0.3, -0.2]), np.array([0.7, 1.1])
    if mode == "forward":
        value, derivative = _run_blocked(tmp_path, [x, v], "jvp_")
        want = sg.jvp(models.rbf_energy, (x,), (v,))
    else:
        value, derivative = _run_blocked(tmp_path, [x], "value_and_grad_")
        want = sg.value_and_grad(models.rbf_energy)(x)
    np.testing.assert_allclose(value, want[0], rtol=1e-12)
    np.testing.assert_allclose(derivative, want[1], rtol=1e-12)


def test_the_exported_function_is_named_grad_and_the_name(tmp_path, capsys):
    """``grad_<name>`` as the README says, also for ``id_`` (hunt 10: it was ``grad_id``)."""
    src = tmp_path / "trailing.py"
    src.write_text("import numpy as np\n\n\ndef id_(x):\n    return np.sum(x * x)\n")
    out = tmp_path / "trailing_grad.py"
    assert main(["export", f"{src}:id_", "-o", str(out)]) == 0
    assert "def grad_id_(x):" in out.read_text()


_TUPLES = '''\
import numpy as np


def fit(params, x, y):
    slope, offset = params
    return np.sum(np.sqrt(1 + (y - slope * x - offset) ** 2) - 1)


def layers(ws, x):
    (W1, b1), (W2, b2) = ws
    return np.sum(np.tanh(x @ W1 + b1) @ W2 + b2)
'''


def _structure(value):
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return type(value).__name__, [_structure(v) for v in items]
    return "leaf"


@pytest.mark.parametrize("function, mode, wrt", [
    ("fit", "grad", None), ("fit", "value_and_grad", None), ("fit", "grad", "params,x"),
    ("layers", "grad", None), ("layers", "value_and_grad", "0,1"),
])
def test_exported_gradients_of_tuples_are_tuples(function, mode, wrt, tmp_path, capsys):
    """(hunt 9: a tuple argument's exported gradient was a list; sg.grad's is a tuple.)"""
    import importlib.util

    src = tmp_path / "tuples.py"
    src.write_text(_TUPLES)
    out = tmp_path / "tuples_grad.py"
    argv = ["export", f"{src}:{function}", "-o", str(out), "--mode",
            "reverse" if mode == "grad" else mode]
    assert main(argv + (["--wrt", wrt] if wrt else [])) == 0
    loaded = []
    for name, path in (("tuples", src), ("tuples_grad", out)):
        spec = importlib.util.spec_from_file_location(f"{name}_{function}_{mode}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        loaded.append(module)
    user, exported = loaded
    x, y = np.array([0.0, 0.5, 1.0]), np.array([0.1, 0.6, 1.4])
    args = {"fit": ((1.1, 0.2), x, y),
            "layers": (((RNG.normal(size=(3, 2)), RNG.normal(size=2)),
                        (RNG.normal(size=(2, 1)), RNG.normal(size=1))), RNG.normal(size=(4, 3)))}
    fn = getattr(user, function)
    wrt_arg = {} if wrt is None else {"wrt": tuple(int(w) if w.isdigit() else w
                                                   for w in wrt.split(","))}
    if len(wrt_arg.get("wrt", ())) == 1:
        wrt_arg["wrt"] = wrt_arg["wrt"][0]
    maker = sg.value_and_grad if mode == "value_and_grad" else sg.grad
    want = maker(fn, **wrt_arg)(*args[function])
    got = getattr(exported, f"{mode}_{function}")(*args[function])
    assert _structure(got) == _structure(want)
    for g, w in zip(_leaves(got), _leaves(want)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


_TWO_OPERANDS = """
import numpy as np


def scaled(a, b):
    return np.sum(np.sin(a * b) + b)
"""


def test_an_export_for_argument_kinds_holds_for_other_sizes(tmp_path, capsys):
    """The module has no cache key to check sizes against: code specialised for the
    example's kinds, not for how its sizes relate (``a`` and ``b`` of one size there; ``b``
    broadcast here: its gradient is summed)."""
    source = tmp_path / "two_operands.py"
    source.write_text(_TWO_OPERANDS)
    out = tmp_path / "exported.py"
    assert main(["export", f"{source}:scaled", "-o", str(out), "--wrt", "a,b",
                 "--args", "float64[6], float64[6]"]) == 0
    namespace = {}
    exec(compile(_TWO_OPERANDS, str(source), "exec"), namespace)
    for a, b in [(RNG.normal(size=6), RNG.normal(size=6)), (RNG.normal(size=6), np.array([0.7])),
                 (RNG.normal(size=1), RNG.normal(size=9))]:
        got = _run_blocked(tmp_path, [a, b])
        want = [np.cos(a * b) * b, np.cos(a * b) * a + 1.0]
        want[0] = np.sum(want[0], axis=0, keepdims=True) if a.shape != want[0].shape else want[0]
        want[1] = np.sum(want[1], axis=0, keepdims=True) if b.shape != want[1].shape else want[1]
        for g, w, x in zip(got, want, (a, b)):
            assert np.shape(g) == x.shape
            np.testing.assert_allclose(g, w, rtol=1e-12)
