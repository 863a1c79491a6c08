"""``sg.explain`` and ``srcgrad explain`` (issue 14, section 2): for each cause, the
source that does not reach the result, the cause in words and the line
(tests/explain_cases/causes.py marks each); connected sources; the per-line
report."""
import inspect

import numpy as np
import pytest

import srcgrad as sg
from explain_cases import causes
from srcgrad.cli import main


def _line(mark):
    for i, text in enumerate(inspect.getsource(causes).splitlines(), 1):
        if f"# MARK: {mark}" in text:
            return i
    raise KeyError(mark)


@pytest.mark.parametrize("f, cause, mark", [
    (causes.integer_cast, "an integer cast (int)", "int"),
    (causes.astype_int, "an integer cast (astype)", "astype"),
    (causes.comparison, "a comparison", "comparison"),
    (causes.argmax, "`np.argmax`, which has no derivative", "argmax"),
    (causes.stopped, "sg.stop_gradient", "stop"),
    (causes.unused, "it flows into `side`, which the result does not read", "unused"),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_the_cause_and_its_line(f, cause, mark):
    out = sg.explain(f, wrt=(0, 1))
    first, second = out.wrt
    assert out.connected(first)
    reason = out.sources[second]
    assert reason is not None and cause in reason.cause
    assert reason.line == _line(mark)
    assert f"{second}: not connected" in str(out) and f"line {_line(mark)}" in str(out)
    # What explain says is what the gradient is: zero where not connected.
    args = (np.array([0.5, -1.0, 2.0]), np.array([1.0, -2.0, 0.5]))
    if f is causes.integer_cast:
        args = (args[0], 2.0)
    if f is not causes.astype_int:
        g = sg.grad(f, wrt=1)(*args)
        assert not np.any(g)


def test_never_read():
    out = sg.explain(causes.never_read, wrt=("x", "y"))
    assert out.sources["y"].cause == "it is never read"


def test_a_branch_not_taken_for_these_arguments():
    out = sg.explain(causes.Noise(False), wrt=1, args=(np.ones(3), np.ones(3)))
    reason = out.sources["y"]
    assert "only in a branch that does not run" in reason.cause
    assert reason.line == _line("branch")
    assert sg.explain(causes.Noise(True), wrt=1, args=(np.ones(3), np.ones(3))).connected("y")


def test_lines_report_the_variables_that_carry_a_derivative():
    text = str(sg.explain(causes.stopped, wrt="x"))
    assert "z carries a derivative" in text
    assert text.splitlines()[0].startswith("explain stopped (causes.py:")


def test_the_command_prints_the_same(capsys):
    target = f"{causes.__file__}:comparison"
    assert main(["explain", target, "--wrt", "x,y"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == str(sg.explain(causes.comparison, wrt=("x", "y")))
