"""Every bundled example runs to its end (each checks its own result and exits
non-zero when it is wrong)."""
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted(p for p in (pathlib.Path(__file__).parent.parent / "examples").glob("*.py")
                  if p.name != "__init__.py")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(path):
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=300, cwd=path.parent.parent)
    assert done.returncode == 0, done.stdout + done.stderr
