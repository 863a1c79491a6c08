"""The srcgrad command: `show` prints exactly what the API returns, and every
error is one line on stderr with a non-zero status, never a traceback."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import srcgrad
import srcgrad.cli
from srcgrad.cli import main

REPO = Path(__file__).resolve().parent.parent
ROSENBROCK = REPO / "examples" / "rosenbrock.py"


@pytest.fixture(autouse=True)
def restore_import_state(tmp_path):
    """Undo what loading targets does to sys.path and sys.modules."""
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def write(directory, name, source):
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


def run_cli(*argv, cwd=REPO):
    """``python -m srcgrad`` in a fresh interpreter, as a user runs it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "srcgrad", *argv],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120,
    )


def loaded_function(path, name):
    """The function the CLI loaded from ``path`` (the module it registered)."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == str(path):
            return getattr(module, name)
    raise LookupError(f"{path} was not imported")


def with_newline(text):
    return text if text.endswith("\n") else text + "\n"


def assert_one_line_error(stderr, status, expected_status=2):
    assert status == expected_status
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("srcgrad: ")
    return lines[0]


TWO_ARGS = """\
    import numpy as np


    def f(x, y):
        return np.sum(x * np.sin(y))
"""

WITH_TRY = """\
    def f(x):
        y = x
        try:
            y = x * 2.0
        finally:
            x = x + 1.0
        return y
"""


# --- show prints exactly adjoint_source's output (needs the compiler) ----

def test_show_file_target(capsys):
    assert main(["show", f"{ROSENBROCK}:rosenbrock"]) == 0
    expected = srcgrad.adjoint_source(loaded_function(ROSENBROCK, "rosenbrock"))
    captured = capsys.readouterr()
    assert captured.out == with_newline(expected)
    assert captured.err == ""


@pytest.mark.parametrize("wrt, api_wrt", [("y", "y"), ("1", 1), ("x,y", ("x", "y"))])
def test_show_with_wrt(tmp_path, capsys, wrt, api_wrt):
    path = write(tmp_path, "sgcli_two_args.py", TWO_ARGS)
    assert main(["show", f"{path}:f", "--wrt", wrt]) == 0
    expected = srcgrad.adjoint_source(loaded_function(path, "f"), wrt=api_wrt)
    assert capsys.readouterr().out == with_newline(expected)


def test_show_module_target(tmp_path, monkeypatch, capsys):
    write(tmp_path, "sgcli_pkg/__init__.py", "")
    write(tmp_path, "sgcli_pkg/model.py", TWO_ARGS)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["show", "sgcli_pkg.model:f"]) == 0
    from sgcli_pkg.model import f

    assert capsys.readouterr().out == with_newline(srcgrad.adjoint_source(f))


def test_python_dash_m_prints_the_same(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    assert main(["show", "examples/rosenbrock.py:rosenbrock"]) == 0
    in_process = capsys.readouterr().out
    result = run_cli("show", "examples/rosenbrock.py:rosenbrock")
    assert result.returncode == 0, result.stderr
    assert result.stdout == in_process
    assert result.stderr == ""


def test_compile_error_is_one_line_naming_file_and_line(tmp_path, capsys):
    path = write(tmp_path, "sgcli_with_try.py", WITH_TRY)
    line = assert_one_line_error(*_main_err(capsys, "show", f"{path}:f"), expected_status=1)
    assert "try" in line and "sgcli_with_try.py:3" in line

    result = run_cli("show", f"{path}:f")
    assert assert_one_line_error(result.stderr, result.returncode, 1) == line
    assert result.stdout == ""


# --- errors, without the compiler ------------------------------------------

def _main_err(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err, status


BAD_FILES = {
    "sgcli_raises.py": "raise RuntimeError('broken\\nacross lines')\n",
    "sgcli_syntax.py": "def f(:\n",
    "sgcli_exits.py": "import sys\nsys.exit(3)\n",
    "sgcli_values.py": "import numpy as np\nvalue = 3\nclass Model:\n    pass\n",
}


@pytest.mark.parametrize("target, message", [
    ("no_colon_here", "bad target"),
    (":f", "bad target"),
    ("{dir}/sgcli_values.py:", "bad target"),
    ("{dir}/sgcli_values.py:1f", "bad target"),
    ("not-a-module:f", "bad target"),
    ("{dir}/missing.py:f", "no such file"),
    ("sgcli_no_such_module_xyz:f", "No module named"),
    ("{dir}/sgcli_raises.py:f", "RuntimeError: broken across lines"),
    ("{dir}/sgcli_syntax.py:f", "SyntaxError"),
    ("{dir}/sgcli_exits.py:f", "exit status 3"),
    ("{dir}/sgcli_values.py:nope", "has no attribute 'nope'"),
    ("{dir}/sgcli_values.py:Model.nope", "'Model' has no attribute 'nope'"),
    ("{dir}/sgcli_values.py:value", "not a Python function"),
    ("{dir}/sgcli_values.py:Model", "not a Python function"),
    ("{dir}/sgcli_values.py:np", "not a Python function"),
])
def test_bad_targets(tmp_path, capsys, target, message):
    for name, source in BAD_FILES.items():
        write(tmp_path, name, source)
    err, status = _main_err(capsys, "show", target.format(dir=tmp_path))
    assert message in assert_one_line_error(err, status)


@pytest.mark.parametrize("target", ["no_colon_here", "missing.py:f", "sgcli_raises.py:f"])
def test_bad_targets_without_traceback(tmp_path, target):
    write(tmp_path, "sgcli_raises.py", BAD_FILES["sgcli_raises.py"])
    result = run_cli("show", target, cwd=tmp_path)
    assert_one_line_error(result.stderr, result.returncode)
    assert result.stdout == ""


@pytest.mark.parametrize("argv, message", [
    ([], "required"),
    (["frobnicate"], "invalid choice"),
    (["show"], "required"),
    (["show", "x.py:f", "--mode", "sideways"], "invalid choice"),
    (["show", "x.py:f", "--wrt", "x,,y"], "neither a parameter name nor an index"),
    (["export", "x.py:f"], "-o"),
])
def test_usage_errors(capsys, argv, message):
    err, status = _main_err(capsys, *argv)
    assert message in assert_one_line_error(err, status)


def test_forward_mode_prints_the_tangent_code(capsys):
    assert main(["show", f"{ROSENBROCK}:rosenbrock", "--mode", "forward"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# value and tangent of rosenbrock (rosenbrock.py:")
    assert "def jvp_rosenbrock(x, x_dot):" in out


def test_explain_of_a_missing_file_is_one_line(capsys):
    err, status = _main_err(capsys, "explain", "x.py:f")
    assert assert_one_line_error(err, status) == "srcgrad: no such file: 'x.py'"


def test_export_of_a_missing_file_is_one_line(capsys):
    err, status = _main_err(capsys, "export", "x.py:f", "-o", "out.py")
    assert assert_one_line_error(err, status) == "srcgrad: no such file: 'x.py'"


# --- how show calls the API (a stand-in adjoint_source) ----------------------

@pytest.fixture
def api_calls(monkeypatch):
    calls = []

    def adjoint_source(f, **kwargs):
        calls.append((f, kwargs))
        return f"def d{f.__name__}():\n    pass"

    monkeypatch.setattr(srcgrad.cli, "adjoint_source", adjoint_source)
    return calls


@pytest.mark.parametrize("argv, kwargs", [
    ([], {}),
    (["--wrt", "y"], {"wrt": "y"}),
    (["--wrt", "1"], {"wrt": 1}),
    (["--wrt", "x, 1"], {"wrt": ("x", 1)}),
])
def test_show_passes_wrt(tmp_path, capsys, api_calls, argv, kwargs):
    path = write(tmp_path, "sgcli_wrt.py", TWO_ARGS)
    assert main(["show", f"{path}:f", *argv]) == 0
    [(function, passed)] = api_calls
    assert function.__name__ == "f" and passed == kwargs
    assert capsys.readouterr().out == "def df():\n    pass\n"


def test_show_keeps_stdout_for_the_source(tmp_path, capsys, api_calls):
    path = write(tmp_path, "sgcli_noisy.py", "print('hello')\n" + textwrap.dedent(TWO_ARGS))
    assert main(["show", f"{path}:f"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "def df():\n    pass\n"
    assert captured.err == "hello\n"


def test_show_method_target(tmp_path, capsys, api_calls):
    source = "class Model:\n    def loss(self, x):\n        return x * x\n"
    path = write(tmp_path, "sgcli_method.py", source)
    assert main(["show", f"{path}:Model.loss"]) == 0
    assert api_calls[0][0].__qualname__ == "Model.loss"


def test_file_target_may_import_its_siblings(tmp_path, capsys, api_calls):
    write(tmp_path, "sgcli_sibling.py", "def h(x):\n    return x\n")
    # Named after a standard module, which the target must not replace.
    path = write(tmp_path, "types.py", "import sgcli_sibling\n\ndef g(x):\n    return sgcli_sibling.h(x)\n")
    assert main(["show", f"{path}:g"]) == 0
    import types

    assert types.__file__ != str(path)
    assert api_calls[0][0].__module__ != "types"


@pytest.mark.parametrize("error, status, message", [
    (srcgrad.CompileError("while statement is not supported", "m.py", 4), 1,
     "srcgrad: while statement is not supported (m.py:4)"),
    (TypeError("wrt names 'n', an integer input"), 2, "srcgrad: wrt names 'n', an integer input"),
    (KeyError("oops"), 1, "srcgrad: internal error: KeyError: 'oops'"),
])
def test_api_errors_are_one_line(tmp_path, capsys, monkeypatch, error, status, message):
    def adjoint_source(f, **kwargs):
        raise error

    monkeypatch.setattr(srcgrad.cli, "adjoint_source", adjoint_source)
    path = write(tmp_path, "sgcli_api_error.py", TWO_ARGS)
    err, got = _main_err(capsys, "show", f"{path}:f")
    assert assert_one_line_error(err, got, status) == message


@pytest.mark.parametrize("wrt", ["7", "0,2", "-3"])
def test_wrt_index_out_of_range_is_a_usage_error(tmp_path, capsys, wrt):
    # Used to be an internal IndexError (issue 12, class 12).
    path = write(tmp_path, "sgcli_wrt_range.py", TWO_ARGS)
    err, status = _main_err(capsys, "show", f"{path}:f", "--wrt", wrt)
    message = assert_one_line_error(err, status, 2)
    assert "out of range: f() has 2 positional parameters" in message


def test_args_show_the_code_compiled_for_those_kinds(capsys):
    target = "examples/logistic_regression.py:loss"
    assert main(["show", target, "--args", "float64[3], float, float64[20,3], float64[20]"]) == 0
    specialised = capsys.readouterr().out
    assert "dw = dmargins_matmul @ X" in specialised  # a vector-matrix product's own adjoint
    assert main(["show", target]) == 0
    assert "_sg.matmul_grad_x2" in capsys.readouterr().out  # the generic form


@pytest.mark.parametrize("kinds", ["float64[3", "floaty[3]", "float64[3],,float"])
def test_bad_args_are_one_line_and_status_2(capsys, kinds):
    err, status = _main_err(capsys, "show", "examples/logistic_regression.py:loss", "--args",
                            kinds)
    assert "srcgrad:" in assert_one_line_error(err, status)
