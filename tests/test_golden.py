"""Golden tests of the printed adjoint (``srcgrad.adjoint_source``).

The expected text of each function in ``tests/golden_functions.py`` (listed in
its ``GOLDEN`` table) is stored in ``tests/golden/<function>.txt``. To accept
a deliberate change of the generated code, regenerate the files and review the
diff before committing:

    SRCGRAD_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

With the switch set, the comparison tests rewrite the files instead of
comparing (they still fail if the text cannot be generated).
"""
import linecache
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import golden_functions
import srcgrad as sg
from golden_functions import GOLDEN
from srcgrad.testing import check_grads

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SRCGRAD_UPDATE_GOLDEN") == "1"
REPO = Path(__file__).resolve().parent.parent

_IDS = [f.__name__ for f, _ in GOLDEN]
_GRAD_OF = re.compile(r"^\s*# grad of: (?P<text>.*) \((?P<file>[^()]+?):(?P<line>\d+)\)$")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def _golden_path(f):
    return GOLDEN_DIR / f"{f.__name__}.txt"


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_adjoint_source_matches_golden(f, wrt):
    text = sg.adjoint_source(f, wrt=wrt)
    path = _golden_path(f)
    if UPDATE:
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"{path} is missing: run with SRCGRAD_UPDATE_GOLDEN=1"
    expected = path.read_text()
    assert text == expected, (
        f"generated adjoint of {f.__name__} differs from {path.name}; if the change is "
        "intended, rerun with SRCGRAD_UPDATE_GOLDEN=1 and review the diff")


def test_every_golden_file_has_a_function():
    names = {f.__name__ for f, _ in GOLDEN}
    stored = {p.stem for p in GOLDEN_DIR.glob("*.txt")}
    assert stored == names
    assert len(names) >= 5


# ---- what the golden functions compute ------------------------------------------

def _golden_args(f):
    rng = np.random.default_rng(7)
    x23 = rng.standard_normal((2, 3))
    return {
        "broadcast_arith": (x23, rng.standard_normal(3)),
        "reduce_axis": (x23,),
        "range_loop": (rng.standard_normal(3), 4),
        "branch": (rng.standard_normal(3), 0.2),
        "while_loop": (3.0 * rng.standard_normal(3),),
        "list_comprehension": (rng.standard_normal(4),),
        "calls_helper": (rng.standard_normal(3), rng.standard_normal((2, 3))),
    }[f.__name__]


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_golden_functions_gradients_are_right(f, wrt):
    wrt_list = list(wrt) if isinstance(wrt, tuple) else [wrt]
    check_grads(f, _golden_args(f), order=1, wrt=wrt_list)


def test_branch_golden_both_ways():
    x = np.array([0.5, 1.0, -0.25])
    check_grads(golden_functions.branch, (x, 10.0), order=1, wrt=0)   # else branch
    check_grads(golden_functions.branch, (x, -10.0), order=1, wrt=0)  # if branch


# ---- the text itself ---------------------------------------------------------------

@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_header_names_the_function_and_its_location(f, wrt):
    text = sg.adjoint_source(f, wrt=wrt)
    header = text.splitlines()[0]
    assert header.startswith("# ")
    assert f.__qualname__ in header
    _, first = _source_location(f)
    assert f"(golden_functions.py:{first})" in header
    assert re.search(rf"\bdef \w*{f.__name__}\(", text), text


def _source_location(f):
    import inspect

    _, start = inspect.getsourcelines(f)
    return golden_functions.__file__, start


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_grad_of_comments_point_at_real_source_lines(f, wrt):
    text = sg.adjoint_source(f, wrt=wrt)
    files = {os.path.basename(golden_functions.__file__): golden_functions.__file__}
    comments = [m for m in map(_GRAD_OF.match, text.splitlines()) if m]
    assert comments, f"no '# grad of:' comments in\n{text}"
    first, last = _line_range(f)
    inside = 0
    for m in comments:
        path = files.get(m["file"])
        assert path is not None, f"unknown file {m['file']} in {m.group(0)!r}"
        lineno = int(m["line"])
        line = linecache.getline(path, lineno)
        assert line.strip(), f"{m['file']}:{lineno} does not exist ({m.group(0)!r})"
        assert m["text"] == line.strip(), (m["text"], line.strip())
        inside += first <= lineno <= last
    assert inside, "no comment points into the function itself"


def _line_range(f):
    import inspect

    lines, start = inspect.getsourcelines(f)
    return start, start + len(lines) - 1


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_every_statement_of_the_function_gets_a_comment(f, wrt):
    """Every ``return`` line of the function is cited by a ``# grad of:`` comment."""
    text = sg.adjoint_source(f, wrt=wrt)
    cited = {int(m["line"]) for m in map(_GRAD_OF.match, text.splitlines()) if m}
    first, _ = _line_range(f)
    returns = [first + i for i, line in enumerate(_body_lines(f)) if "return" in line]
    assert set(returns) <= cited, (returns, cited)


def _body_lines(f):
    import inspect

    return inspect.getsourcelines(f)[0]


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_text_has_no_memory_addresses(f, wrt):
    text = sg.adjoint_source(f, wrt=wrt)
    assert not _ADDRESS.search(text), _ADDRESS.search(text).group(0)
    assert "<object" not in text and " at 0x" not in text


@pytest.mark.parametrize("f, wrt", GOLDEN, ids=_IDS)
def test_text_is_valid_python(f, wrt):
    compile(sg.adjoint_source(f, wrt=wrt), "<golden>", "exec")


def test_same_text_twice_in_one_process():
    for f, wrt in GOLDEN:
        assert sg.adjoint_source(f, wrt=wrt) == sg.adjoint_source(f, wrt=wrt)


_SUBPROCESS = """
import sys
import srcgrad as sg
import golden_functions as G
sys.stdout.write("\\n=====\\n".join(sg.adjoint_source(f, wrt=w) for f, w in G.GOLDEN))
"""


def _generate_in_subprocess(hashseed):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO), str(REPO / "tests")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONHASHSEED"] = str(hashseed)
    env.pop("SRCGRAD_UPDATE_GOLDEN", None)
    done = subprocess.run([sys.executable, "-c", _SUBPROCESS], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_deterministic_across_fresh_processes():
    first = _generate_in_subprocess(1)
    second = _generate_in_subprocess(2)
    assert first == second
    assert first.count("=====") == len(GOLDEN) - 1
    assert not _ADDRESS.search(first)
    # ...and the same as in this process.
    here = "\n=====\n".join(sg.adjoint_source(f, wrt=w) for f, w in GOLDEN)
    assert first == here
