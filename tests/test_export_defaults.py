"""``srcgrad export`` writes a module that needs only NumPy, called as the function is.

- Parameter defaults were dropped (hunt4 bug_26): ``grad_ridge(w)`` for
  ``ridge(w, lam=0.1, X=..., y=...)`` raised "missing 3 required positional
  arguments", in every mode. The exported signature now has the defaults (arrays as
  module constants); forward mode's tangents, after them, must still be passed.
- Helpers with an import from srcgrad's own modules in their body (``from ..errors
  import NotDifferentiableError`` in ``not_differentiable``; ``from .selection import
  interp_grad_x`` in a forward helper) were copied as they are (hunt4 bug_25): the
  exported module raised ImportError instead of the refusal. What they import is now
  written into the module.
"""
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from export_cases import defaults
from srcgrad.cli import main

_CHILD = """
import importlib.abc, json, pickle, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("srcgrad", "gast", "beniget"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
sys.path.insert(0, sys.argv[1])
import exported
fn_name, args, kwargs = pickle.load(open(sys.argv[2], "rb"))
try:
    out = ("ok", getattr(exported, fn_name)(*args, **kwargs))
except Exception as e:
    out = ("raised", type(e).__name__, [c.__name__ for c in type(e).__mro__], str(e))
pickle.dump(out, open(sys.argv[3], "wb"))
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("srcgrad", "gast")))))
"""


def _call_blocked(directory, fn_name, *args, **kwargs):
    """``exported.<fn_name>(*args, **kwargs)`` in a child interpreter that cannot import
    srcgrad, gast or beniget: ``("ok", result)`` or ``("raised", name, mro names, text)``."""
    pickle.dump((fn_name, args, kwargs), open(directory / "args.pkl", "wb"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", _CHILD, str(directory),
                          str(directory / "args.pkl"), str(directory / "out.pkl")],
                         capture_output=True, text=True, env=env, cwd=directory, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
    return pickle.load(open(directory / "out.pkl", "rb"))


def _export(tmp_path, function, *options):
    target = f"{Path(defaults.__file__)}:{function}"
    assert main(["export", target, "-o", str(tmp_path / "exported.py"), *options]) == 0
    text = (tmp_path / "exported.py").read_text()
    assert "from ." not in text and "srcgrad" not in "".join(
        line for line in text.splitlines(True) if line.startswith(("import", "from")))
    return text


W = np.array([0.3, -0.2])
D = np.array([0.7, 1.1])


def test_grad_keeps_defaults(tmp_path, capsys):
    text = _export(tmp_path, "ridge")
    assert "def grad_ridge(w, lam=0.1, X=X_default, y=y_default, p=2):" in text
    want = sg.grad(defaults.ridge)(W)
    assert _call_blocked(tmp_path, "grad_ridge", W)[0] == "ok"
    np.testing.assert_allclose(_call_blocked(tmp_path, "grad_ridge", W)[1], want, rtol=1e-12)
    # Passed positionally or by keyword, as to the function itself:
    X = np.array([[2.0, 0.1], [0.4, -1.0]])
    np.testing.assert_allclose(_call_blocked(tmp_path, "grad_ridge", W, 0.3, X)[1],
                               sg.grad(defaults.ridge)(W, 0.3, X), rtol=1e-12)
    np.testing.assert_allclose(_call_blocked(tmp_path, "grad_ridge", W, lam=0.3, p=4)[1],
                               sg.grad(defaults.ridge)(W, lam=0.3, p=4), rtol=1e-12)


def test_value_and_grad_keeps_defaults(tmp_path, capsys):
    _export(tmp_path, "ridge", "--mode", "value_and_grad")
    status, (value, grad) = _call_blocked(tmp_path, "value_and_grad_ridge", W)
    want = sg.value_and_grad(defaults.ridge)(W)
    assert status == "ok" and value == pytest.approx(want[0], rel=1e-12)
    np.testing.assert_allclose(grad, want[1], rtol=1e-12)


def test_grad_with_respect_to_a_defaulted_parameter(tmp_path, capsys):
    _export(tmp_path, "ridge", "--wrt", "lam")
    status, got = _call_blocked(tmp_path, "grad_ridge", W)
    assert status == "ok"
    assert got == pytest.approx(sg.grad(defaults.ridge, wrt=1)(W, 0.1), rel=1e-12)


def test_forward_keeps_defaults_and_needs_the_tangents(tmp_path, capsys):
    _export(tmp_path, "ridge", "--mode", "forward")
    want = sg.jvp(defaults.ridge, (W,), (D,))
    status, (value, derivative) = _call_blocked(tmp_path, "jvp_ridge", W, w_dot=D)
    assert status == "ok"
    assert value == pytest.approx(want[0], rel=1e-12)
    assert derivative == pytest.approx(want[1], rel=1e-12)
    # Every argument, then the tangents, positionally (the documented form):
    full = _call_blocked(tmp_path, "jvp_ridge", W, 0.1, *defaults.ridge.__defaults__[1:], D)
    assert full[0] == "ok" and full[1][1] == pytest.approx(want[1], rel=1e-12)
    # A tangent left out is refused, never taken from the arguments:
    refused = _call_blocked(tmp_path, "jvp_ridge", W)
    assert refused[0] == "raised" and refused[1] == "TypeError" and "w_dot" in refused[3]


def test_a_default_that_cannot_be_written_stays_required(tmp_path, capsys):
    text = _export(tmp_path, "with_object_default")
    assert "def grad_with_object_default(w, obj, lam=0.5):" in text
    status, got = _call_blocked(tmp_path, "grad_with_object_default", W, None)
    assert status == "ok"
    np.testing.assert_allclose(got, 0.5 * np.cos(W), rtol=1e-12)


def test_a_refusal_at_run_time_is_raised_not_an_import_error(tmp_path, capsys):
    text = _export(tmp_path, "weighted_median")
    assert "class NotDifferentiableError" in text
    out = _call_blocked(tmp_path, "grad_weighted_median", np.array([0.3, -0.8, 1.2]))
    assert out[0] == "raised" and out[1] == "NotDifferentiableError", out
    assert "NotImplementedError" in out[2] and "weights=" in out[3]


def test_a_forward_helper_importing_another_helper(tmp_path, capsys):
    _export(tmp_path, "interp_points", "--mode", "forward")
    x = np.array([0.3, 1.4, 1.9])
    status, (value, derivative) = _call_blocked(tmp_path, "jvp_interp_points", x, D[:1].repeat(3))
    want = sg.jvp(defaults.interp_points, (x,), (D[:1].repeat(3),))
    assert status == "ok" and value == pytest.approx(want[0], rel=1e-12)
    assert derivative == pytest.approx(want[1], rel=1e-12)
