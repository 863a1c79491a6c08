"""Every bundled example runs to its end (each checks its own result and exits
non-zero when it is wrong), and what some print is checked here too (these were
tests of tests/test_tape.py that ran the same scripts again)."""
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parent.parent / "examples").glob("*.py")
                  if p.name != "__init__.py")

# Command-line arguments: fewer training steps than the default 200 (the loop and the
# tape's compiled code are the same at every step).
ARGS = {"train_mlp_tape.py": ["--steps", "30"]}


def _loss_falls(stdout):
    losses = [float(m) for m in re.findall(r"loss\s+([0-9.eE+-]+)", stdout)]
    assert len(losses) >= 3, stdout
    assert losses[-1] < 0.5 * losses[0], losses


def _checks_ok(count):
    def check(stdout):
        assert "MISMATCH" not in stdout, stdout
        if count is not None:
            assert stdout.count(" ok") == count, stdout
    return check


CHECKS = {
    "train_mlp_tape.py": _loss_falls,
    "tape_seeds.py": _checks_ok(None),
    "jacobians.py": _checks_ok(4),
}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    done = subprocess.run([sys.executable, str(path)] + ARGS.get(path.name, []),
                          capture_output=True, text=True, timeout=300, cwd=path.parent.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    CHECKS.get(path.name, lambda stdout: None)(done.stdout)
