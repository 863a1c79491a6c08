"""Measurements that need a fresh interpreter each, and the code that runs them.

Run as ``python benchmarks/measure.py MODE ...`` by ``run.py`` (one subprocess
per measurement); the child prints one line ``RESULT {json}``.

- ``import``: seconds to import numpy, then srcgrad (numpy already loaded);
- ``firstcall CASE``: the first srcgrad call of a row (``sg.grad(f)(*args)``,
  or the tape function; parse + compile + first run) and the median of later
  calls;
- ``memory CASE COLUMN``: peak traced memory (tracemalloc, which NumPy reports
  its buffers to) of one gradient call after a warm-up call, and the
  process's max RSS;
- ``compile N``: first call and later calls of the gradient of a generated
  straight-line function of N statements.

Nothing is imported at module level beyond the standard library, so that
``import`` measures a cold start.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def _setup_path():
    for path in (HERE, REPO):
        if path not in sys.path:
            sys.path.insert(0, path)


def _emit(result):
    print("RESULT " + json.dumps(result), flush=True)


def _median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def child_import():
    t0 = time.perf_counter()
    import numpy  # noqa: F401
    t1 = time.perf_counter()
    import srcgrad  # noqa: F401
    t2 = time.perf_counter()
    _emit({"numpy": t1 - t0, "srcgrad": t2 - t1, "total": t2 - t0})


def child_firstcall(case_id, quick):
    _setup_path()
    import cases
    case = cases.find_case(case_id, quick)
    _ = case.args  # data are built before the clock starts
    import frameworks
    import srcgrad  # noqa: F401  (import time is measured separately)
    t0 = time.perf_counter()
    call = frameworks.srcgrad_call(case)
    call()
    first = time.perf_counter() - t0
    later = []
    for _ in range(5):
        t0 = time.perf_counter()
        call()
        later.append(time.perf_counter() - t0)
    _emit({"first": first, "steady": _median(later)})


def child_memory(case_id, column, quick):
    _setup_path()
    import tracemalloc

    import cases

    import srcgrad as sg  # in every column's process, so that max RSS compares like with like
    case = cases.find_case(case_id, quick)
    args = case.args
    if column == "srcgrad":
        g = sg.grad(case.fn, wrt=case.sg_wrt())
        call = lambda: g(*args)
    elif column == "hand":
        call = lambda: case.hand(*args)
    elif column == "forward":
        call = lambda: case.fn(*args)
    else:
        raise ValueError(column)
    call()  # warm-up (srcgrad compiles here)
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    result = call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    _emit({"peak": peak - before, "maxrss": _max_rss()})


def _max_rss():
    """Peak resident memory of this process, in bytes.

    ``VmHWM`` from /proc where there is one: ``getrusage``'s ``ru_maxrss``
    survives ``execve`` on Linux, so a child started by a large parent
    (through vfork) reports the parent's peak instead of its own.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def chain_source(n):
    lines = ["import numpy as np", "", "", "def chain(x):", "    t = x"]
    lines += ["    t = t * 1.0001 + x"] * n
    lines += ["    return np.sum(t)", ""]
    return "\n".join(lines)


def child_compile(n, directory):
    _setup_path()
    import importlib

    import numpy as np

    import srcgrad as sg
    name = f"chain_{n}_{os.getpid()}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(chain_source(n))
    sys.path.insert(0, directory)
    module = importlib.import_module(name)
    x = np.linspace(0.0, 1.0, 8)
    t0 = time.perf_counter()
    g = sg.grad(module.chain)(x)
    first = time.perf_counter() - t0
    later = []
    for _ in range(5):
        t0 = time.perf_counter()
        sg.grad(module.chain)(x)
        later.append(time.perf_counter() - t0)
    expected = np.full_like(x, sum(1.0001 ** k for k in range(n + 1)))
    _emit({"first": first, "steady": _median(later), "ok": bool(np.allclose(g, expected))})


# ---- parent side --------------------------------------------------------------------------

def run_child(*argv, timeout=300):
    """Run this file in a fresh interpreter; the child's RESULT, or raise with its stderr."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [REPO, env.get("PYTHONPATH")]))
    # Imports as an installed package runs them, from cached bytecode (pip
    # compiles it at install); some machines turn bytecode caching off.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), *map(str, argv)],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO,
                          check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    raise RuntimeError(f"exit {proc.returncode}: {tail}")


def main(argv):
    mode, rest = argv[0], argv[1:]
    quick = "--quick" in rest
    rest = [a for a in rest if a != "--quick"]
    if mode == "import":
        child_import()
    elif mode == "firstcall":
        child_firstcall(rest[0], quick)
    elif mode == "memory":
        child_memory(rest[0], rest[1], quick)
    elif mode == "compile":
        child_compile(int(rest[0]), rest[1])
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
