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
        if text.rstrip().endswith(f"# MARK: {mark}"):
            return i
    raise KeyError(mark)


@pytest.mark.parametrize("f, cause, mark", [
    (causes.integer_cast, "an integer cast (int)", "int"),
    (causes.integer_cast_of_a_sum, "an integer cast (int)", "int of a sum"),
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


# --- a value overwritten before use: the rebinding's line, and the rebound value's ---

_X, _W = np.array([0.5, -1.0, 2.0]), np.array([1.0, -2.0, 0.5])


@pytest.mark.parametrize("f, what, mark, others, after", [
    (causes.overwritten, "`h` (line {})", "overwrites h", [], "overwritten h"),
    (causes.argument_rebound, "the argument `w`", "rebinds w", [], None),
    (causes.filled, "`a` (line {}) is overwritten in full", "fills a", [], "filled a"),
    (causes.overwritten_in_both_branches, "`h` (line {})", "then-branch overwrites h",
     ["else-branch overwrites h"], "h before both branches"),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_a_value_overwritten_before_use(f, what, mark, others, after):
    out = sg.explain(f, wrt=("x", "w"))
    assert out.connected("x")
    reason = out.sources["w"]
    assert reason is not None and reason.cause.startswith("its value is overwritten before use: ")
    assert what.format(_line(after) if after else None) in reason.cause
    assert reason.line == _line(mark)
    also = "".join(f", and at line {_line(m)}" for m in others)
    assert reason.tail == f"{also}, before anything reads it"
    assert str(reason) == f"{reason.cause} at line {reason.line}, `{reason.text}`{reason.tail}"
    # Not connected, and the gradient is zero, on every path.
    for args in ([(_X, _W)] if len(out.wrt) == len(inspect.signature(f).parameters)
                 else [(_X, _W, 1.0), (_X, _W, -1.0)]):
        assert not np.any(sg.grad(f, wrt=1)(*args))


def test_overwritten_in_a_branch_decided_when_compiling():
    args = (_X, _W)
    reason = sg.explain(causes.Reset(True), wrt=("x", "w"), args=args).sources["w"]
    assert "`h` (line {}) is assigned again".format(_line("h before the decided branch")) \
        in reason.cause
    assert reason.line == _line("decided branch overwrites h")
    assert not np.any(sg.grad(causes.Reset(True), wrt=1)(*args))
    assert sg.explain(causes.Reset(False), wrt=("x", "w"), args=args).connected("w")
    assert np.any(sg.grad(causes.Reset(False), wrt=1)(*args))


@pytest.mark.parametrize("f", [
    causes.loop_carried, causes.augmented, causes.read_in_one_branch,
    causes.overwritten_in_one_branch, causes.slot_written, causes.argument_read_then_rebound,
    causes.einsum_rebound,
], ids=lambda f: f.__name__)
def test_a_value_read_before_it_is_rebound_is_connected(f):
    out = sg.explain(f, wrt=("x", "w"))
    assert out.connected("w"), out.sources["w"]
    assert "overwritten before use" not in str(out)
    # ... as the gradient says: not zero (for one of the branches at least).
    calls = [(_X, _W)] if len(inspect.signature(f).parameters) == 2 \
        else [(_X, _W, 1.0), (_X, _W, -1.0)]
    assert any(np.any(sg.grad(f, wrt=1)(*args)) for args in calls)


def test_the_command_prints_an_overwritten_value(capsys):
    assert main(["explain", f"{causes.__file__}:overwritten", "--wrt", "x,w"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    # (The rebound value carries nothing to the result: its line says so too.)
    assert lines[1].startswith(f"  line {_line('overwritten h')} ") and lines[1].endswith(" -")
    last = lines[-1]
    assert last == (f"w: not connected: its value is overwritten before use: `h` "
                    f"(line {_line('overwritten h')}) is assigned again at line "
                    f"{_line('overwrites h')}, `h = x * 2.0  # MARK: overwrites h`, "
                    "before anything reads it")
