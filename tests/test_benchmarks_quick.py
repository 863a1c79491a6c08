"""`python benchmarks/run.py --quick` runs, and every workload's gradients are correct.

The quick mode checks every column's gradient (hand-written against finite
differences, srcgrad and the optional tools against the hand-written one).
Nothing here asserts anything about timings.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"


def _expected_rows():
    before = set(sys.modules)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import cases
        return [c.id for c in cases.build_cases(quick=True)]
    finally:
        sys.path.remove(str(BENCHMARKS))
        for name in set(sys.modules) - before:  # cases, workloads, handwritten
            if str(getattr(sys.modules[name], "__file__", "") or "").startswith(str(BENCHMARKS)):
                del sys.modules[name]


def test_quick_benchmark_checks_every_workload():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "run.py"), "--quick"],
                          capture_output=True, text=True, timeout=600, cwd=REPO, env=env,
                          check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output

    status = dict(re.findall(r"^correctness (\S+): (.*)$", proc.stdout, re.MULTILINE))
    for row_id in _expected_rows():
        assert row_id in status, f"no correctness line for {row_id}\n{output}"
        assert status[row_id].startswith("ok"), f"{row_id}: {status[row_id]}\n{output}"
    assert "all correctness checks ok" in proc.stdout


def test_a_first_call_that_compiles_does_not_make_samples_of_one_call():
    """The calibration runs the thunk once untimed: a first call slower than a sample
    (compiling) would otherwise make every sample one call, right after another column's
    (the decorated tape row measured 2.5x its steady time that way)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_timing", BENCHMARKS / "timing.py")
    timing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timing)
    calls = []

    def thunk():
        calls.append(None)
        if len(calls) == 1:
            import time
            time.sleep(0.05)  # "compiling"

    assert timing._calibrate(thunk, 0.02) > 1
