"""srcgrad benchmarks: gradient cost against a hand-written floor, the forward pass
and other tools, side by side in one process.

    python benchmarks/run.py              # the full suite (a few minutes)
    python benchmarks/run.py --quick      # small sizes, few repeats: correctness, < 60 s
    python benchmarks/run.py --only mlp   # one workload (or a row id, or a section)
    python benchmarks/run.py --markdown   # tables as Markdown, for the README

Every gradient (for the Jacobian row, every Jacobian) is checked before it is
timed: the hand-written one against finite differences, every other column
against the hand-written one. A wrong gradient is reported as an error and
never timed. Timing is interleaved round-robin between the columns of a row
(see timing.py); the tables report medians and ratios. Import time,
first-call latency, peak memory and compile time are measured in fresh
subprocesses (measure.py); the second-call overhead of sg.grad's wrapper
(and that a second call parses nothing) in this process.

Exit status: 0 when every row's correctness is ok, every subprocess
measurement succeeded and no second call parsed anything, 1 otherwise. There are no timing assertions anywhere.
"""
import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for _path in (REPO, HERE):  # the working tree's srcgrad, and these modules
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

import cases as cases_mod
import frameworks
import measure
import numpy as np
import timing

import srcgrad

SECTIONS = ("import", "firstcall", "memory", "compile", "overhead")
SRCGRAD_COLUMNS = ("srcgrad", "srcgrad-loop")  # a wrong result in these fails the run


# ---- settings ------------------------------------------------------------------------------

class Settings:
    def __init__(self, quick):
        self.quick = quick
        # The rows whose Numba column is built (None: all). Quick runs in CI, where
        # Numba's compile of the RNN's and the array RK4's gradients took 24 of its 40 s;
        # tests/test_numba_backend.py covers the backend, the full run every row.
        self.numba_rows = None
        if quick:
            self.numba_rows = {"rosenbrock-loop", "logistic-small", "rk4-lotka-volterra-floats"}
            self.rounds, self.min_sample, self.max_row_seconds = 3, 0.002, 1.0
            self.import_reps, self.compile_sizes, self.compile_reps = 2, (10, 100), 1
        else:
            self.rounds, self.min_sample, self.max_row_seconds = 31, 0.02, 45.0
            self.import_reps, self.compile_sizes, self.compile_reps = 7, (10, 100, 1000), 3


# ---- machine -------------------------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def blas_name():
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001
        return "unknown BLAS"


def git_revision():
    head = os.path.join(REPO, ".git", "HEAD")
    try:
        with open(head) as f:
            ref = f.read().strip()
        if ref.startswith("ref: "):
            with open(os.path.join(REPO, ".git", ref[5:])) as f:
                return f.read().strip()[:10]
        return ref[:10]
    except OSError:
        return "unknown"


def source_fingerprint():
    """A hash of srcgrad's source files, to tell which code a run measured."""
    import hashlib
    digest = hashlib.sha1()
    root = os.path.dirname(srcgrad.__file__)
    for directory, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:12]


def print_machine(out):
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    out(f"machine:  {platform.platform()}; {cpu_model()}; {os.cpu_count()} CPUs "
        f"({affinity} usable)")
    out(f"python:   {platform.python_version()} ({platform.python_implementation()}); "
        f"numpy {np.__version__} ({blas_name()})")
    out(f"srcgrad:  {srcgrad.__version__} from {os.path.dirname(srcgrad.__file__)} "
        f"(HEAD {git_revision()}; source fingerprint {source_fingerprint()})")
    out(f"date:     {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")


# ---- formatting ----------------------------------------------------------------------------

def fmt_time(seconds):
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}x"


def fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def print_table(out, header, rows, markdown):
    if markdown:
        out("| " + " | ".join(header) + " |")
        out("|" + "|".join("---" if i < 2 else "---:" for i in range(len(header))) + "|")
        for row in rows:
            out("| " + " | ".join(str(c) for c in row) + " |")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(
        str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    out(line(header))
    out("  ".join("-" * w for w in widths))
    for row in rows:
        out(line(row))


def first_line(exc):
    text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0] if text else type(exc).__name__


# ---- correctness ---------------------------------------------------------------------------

def _leaves(values):
    """The arrays of a tuple of gradients, dicts and lists of them (parameter trees) opened."""
    out = []
    for v in values:
        if isinstance(v, dict):
            out += _leaves([v[k] for k in sorted(v)])
        elif isinstance(v, (list, tuple)):
            out += _leaves(v)
        else:
            out.append(v)
    return out


def _plus(value, step):
    """``value + step`` for arrays and for dicts and tuples of them (parameter trees)."""
    if isinstance(value, dict):
        return {k: _plus(value[k], step[k]) for k in value}
    if isinstance(value, tuple):
        return tuple(_plus(v, s) for v, s in zip(value, step))
    return value + step


def _direction(value, rng):
    if isinstance(value, dict):
        return {k: _direction(value[k], rng) for k in sorted(value)}
    if isinstance(value, tuple):
        return tuple(_direction(v, rng) for v in value)
    v = rng.standard_normal(np.shape(value))
    return float(v) if np.ndim(value) == 0 else v


def close(got, want):
    """Gradients agree: same shapes, and np.allclose relative to the gradient's scale."""
    got, want = _leaves(got), _leaves(want)
    if len(got) != len(want):
        return False, f"{len(got)} gradients, expected {len(want)}"
    worst = 0.0
    for g, w in zip(got, want):
        w = np.asarray(w, dtype=np.float64)
        if np.shape(g) != np.shape(w):
            return False, f"shape {np.shape(g)}, expected {np.shape(w)}"
        scale = max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
        if not np.allclose(g, w, rtol=1e-6, atol=1e-9 * scale):
            return False, f"max abs difference {float(np.max(np.abs(g - w))):.3g} (scale {scale:.3g})"
        worst = max(worst, float(np.max(np.abs(g - w))) if w.size else 0.0)
    return True, f"max abs difference {worst:.2g}"


def _scaled(v, c):
    if isinstance(v, tuple):
        return tuple(_scaled(x, c) for x in v)
    return {k: _scaled(x, c) for k, x in v.items()} if isinstance(v, dict) else c * v


def finite_difference_check(case, hand_grads):
    """The hand-written gradient against central differences of the forward function."""
    f, args = case.fn, list(case.args)
    if case.order == 2:
        (a,) = args
        h = 1e-4 * max(1.0, abs(a))
        fd = (f(a + h) - 2.0 * f(a) + f(a - h)) / h ** 2
        an = float(hand_grads[0])
        return abs(fd - an) <= 1e-6 + 1e-5 * abs(fd), f"second difference {fd:.8g}, hand {an:.8g}"
    if case.kind in ("hvp", "hvp-tape"):
        # H v: the second difference of f along v, from both sides (f(x + h v) and
        # f(x - h v) around f(x)), against v^T H v; and u^T H v by the polarisation
        # of second differences along u + v and u - v.
        x, v = args
        u = np.random.default_rng(0).standard_normal(np.shape(x))
        h = 1e-4

        def second(d):
            return (f(x + h * d) - 2.0 * f(x) + f(x - h * d)) / h ** 2
        uhv = (second(u + v) - second(u - v)) / 4.0
        an = float(np.dot(u, hand_grads[0]))
        return abs(uhv - an) <= 1e-4 * max(1.0, abs(uhv)), \
            f"u^T H v: second differences {uhv:.8g}, hand {an:.8g}"
    rng = np.random.default_rng(0)
    eps = 1e-6
    for _ in range(2):  # two random directions test every component at once
        plus, minus, analytic = list(args), list(args), 0.0
        for i, g in zip(case.wrt, hand_grads):
            v = _direction(args[i], rng)
            plus[i] = _plus(args[i], _scaled(v, eps))
            minus[i] = _plus(args[i], _scaled(v, -eps))
            # a Jacobian's trailing axes are the argument's: J @ v for a vector function
            for gl, vl in zip(_leaves([g]), _leaves([v])):
                analytic = analytic + np.tensordot(gl, vl, axes=np.ndim(vl))
        fd = (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps)
        if not np.allclose(analytic, fd, rtol=1e-5, atol=1e-7):
            if np.ndim(fd) == 0:
                return False, f"directional derivative: finite differences {fd:.8g}, hand {analytic:.8g}"
            return False, (f"directional derivative: max abs difference "
                           f"{float(np.max(np.abs(fd - analytic))):.3g} from finite differences")
    return True, "directional derivatives agree"


# ---- one row -------------------------------------------------------------------------------

class Row:
    def __init__(self, case):
        self.case = case
        self.status = "ok"          # "ok" or "FAIL"
        self.cells = {}             # column -> ("time", s) | ("na", why) | ("error", msg) | ("wrong", msg)
        self.checks = []            # "name ok" fragments for the correctness line
        self.errors = []            # (column, message)
        self.medians = {}
        self.samples = {}

    def ratio(self, a, b):
        if a in self.samples and b in self.samples:
            return timing.paired_ratio(self.samples, a, b)
        return None


def run_row(case, columns, settings, log):
    row = Row(case)

    # 1. the reference: the hand-written gradient, against finite differences
    by_name = {c.name: c for c in columns}
    hand_grad, _ = by_name["hand"].make(case)
    try:
        reference = frameworks.as_gradient_tuple(hand_grad(), len(case.wrt))
        ok, detail = finite_difference_check(case, reference)
    except Exception as e:  # noqa: BLE001 - the benchmark's own bug: report it, time nothing
        ok, detail = False, first_line(e)
    row.checks.append(f"hand vs finite differences {'ok' if ok else 'FAILED'}")
    if not ok:
        row.status = "FAIL"
        row.errors.append(("hand", f"hand-written gradient disagrees with finite differences: {detail}"))
        return row

    # 2. every column's gradient against the reference, before any timing
    timed = {}
    for column in columns:
        if not column.available:
            continue
        if column.name == "srcgrad-numba" and settings.numba_rows is not None \
                and case.id not in settings.numba_rows:
            row.cells[column.name] = ("na", "")
            continue
        try:
            grad_fn, timed_fn = column.make(case)
        except frameworks.NotApplicable:
            row.cells[column.name] = ("na", "")
            continue
        except Exception as e:  # noqa: BLE001
            row.cells[column.name] = ("error", first_line(e))
            row.errors.append((column.name, first_line(e)))
            row.checks.append(f"{column.name} ERROR")
            continue
        if grad_fn is not None and column.name != "hand":
            try:
                got = frameworks.as_gradient_tuple(grad_fn(), len(case.wrt))
                ok, detail = close(got, reference)
            except Exception as e:  # noqa: BLE001
                row.cells[column.name] = ("error", first_line(e))
                row.errors.append((column.name, first_line(e)))
                row.checks.append(f"{column.name} ERROR")
                continue
            if not ok:
                row.cells[column.name] = ("wrong", detail)
                row.errors.append((column.name, f"wrong gradient, not timed: {detail}"))
                row.checks.append(f"{column.name} WRONG")
                continue
            row.checks.append(f"{column.name} ok")
        timed[column.name] = timed_fn
    if any(col in SRCGRAD_COLUMNS for col, _ in row.errors):
        row.status = "FAIL"

    # 3. interleaved timing of everything that passed
    try:
        row.medians, row.samples = timing.interleaved(
            timed, settings.rounds, settings.min_sample, settings.max_row_seconds)
    except Exception as e:  # noqa: BLE001
        row.status = "FAIL"
        row.errors.append(("timing", first_line(e)))
        return row
    for name, t in row.medians.items():
        row.cells[name] = ("time", t)
    return row


def correctness_line(row):
    return f"correctness {row.case.id}: {row.status}  [{'; '.join(row.checks)}]"


# ---- tables --------------------------------------------------------------------------------

def cell_text(row, name):
    kind, value = row.cells.get(name, ("na", ""))
    if kind == "time":
        return fmt_time(value)
    return {"na": "—", "error": "ERROR", "wrong": "WRONG"}[kind]


def ratio_cell(row, a, b):
    for name in (a, b):
        kind = row.cells.get(name, ("na", ""))[0]
        if kind in ("error", "wrong"):
            return kind.upper()
    return fmt_ratio(row.ratio(a, b))


def print_tables(out, rows, columns, markdown):
    optional = [c.name for c in columns if c.optional and c.available]
    header = ["workload", "size", "check", "forward", "hand", "srcgrad",
              "srcgrad/hand", "srcgrad/forward", "hand/forward"] + [f"{n}/hand" for n in optional]
    table = []
    for row in rows:
        cells = [row.case.id, row.case.size, row.status,
                 cell_text(row, "forward"), cell_text(row, "hand"), cell_text(row, "srcgrad"),
                 ratio_cell(row, "srcgrad", "hand"), ratio_cell(row, "srcgrad", "forward"),
                 ratio_cell(row, "hand", "forward")]
        table.append(cells + [ratio_cell(row, n, "hand") for n in optional])
    heading(out, "Ratios (median of per-round ratios; lower is faster; "
                 "hand = hand-written NumPy gradient)")
    print_table(out, header, table, markdown)

    names = ["forward", "hand", "srcgrad"] + optional
    heading(out, "Median time per call")
    print_table(out, ["workload", "size"] + names,
                [[r.case.id, r.case.size] + [cell_text(r, n) for n in names] for r in rows],
                markdown)
    # the row-by-row Jacobian has one row to say something about: a note, not a column
    for r in rows:
        if r.cells.get("srcgrad-loop", ("na",))[0] == "time":
            out("")
            out(f"{r.case.id}: srcgrad-loop (a persistent tape, one tape.gradient per row, "
                f"output_gradients=e_i) {cell_text(r, 'srcgrad-loop')} = "
                f"{ratio_cell(r, 'srcgrad-loop', 'srcgrad')} srcgrad's tape.jacobian, "
                f"{ratio_cell(r, 'srcgrad-loop', 'hand')} hand")
    refused = [(case_id, c.name, why) for c in columns
               for case_id, why in sorted(getattr(c, "refused", {}).items())]
    if refused:
        out("")
        out("Refused (a CompileError: the column is not applicable to these rows):")
        for case_id, name, why in refused:
            out(f"  {case_id} / {name}: {why}")
    errors = [(r.case.id, col, msg) for r in rows for col, msg in r.errors]
    if errors:
        out("")
        out("Errors (these cells were not timed):")
        for case_id, col, msg in errors:
            out(f"  {case_id} / {col}: {msg}")


# ---- subprocess sections -------------------------------------------------------------------

def heading(out, title):
    """A section's title, with a blank line before and after."""
    out("")
    out(title)
    out("")


def section_import(out, settings, markdown):
    heading(out, f"Import time (fresh interpreter each, median of {settings.import_reps})")
    results = []
    for _ in range(settings.import_reps):
        results.append(measure.run_child("import"))
    med = {k: statistics.median(r[k] for r in results) for k in ("numpy", "srcgrad", "total")}
    print_table(out, ["import", "what", "time"], [
        ["numpy", "cold", fmt_time(med["numpy"])],
        ["srcgrad", "numpy already imported", fmt_time(med["srcgrad"])],
        ["numpy + srcgrad", "cold", fmt_time(med["total"])],
    ], markdown)
    return True


def section_firstcall(out, case_list, settings, markdown):
    """Each row in several fresh interpreters, medians: one process is one sample, and
    a shared machine's noise moves a single first call by tens of milliseconds."""
    repeats = 1 if settings.quick else 5
    heading(out, f"First call (fresh interpreter each, median of {repeats}; data built and "
                 "srcgrad imported before the clock): parse + compile + first run")
    table, ok = [], True
    for case in case_list:
        args = ["firstcall", case.id] + (["--quick"] if settings.quick else [])
        try:
            runs = [measure.run_child(*args) for _ in range(repeats)]
        except Exception as e:  # noqa: BLE001
            table.append([case.id, case.size, "ERROR", first_line(e), "—"])
            ok = False
            continue
        first = statistics.median(r["first"] for r in runs)
        steady = statistics.median(r["steady"] for r in runs)
        compile_s = statistics.median(max(0.0, r["first"] - r["steady"]) for r in runs)
        table.append([case.id, case.size, fmt_time(first), fmt_time(steady), fmt_time(compile_s)])
    print_table(out, ["workload", "size", "first call", "later calls (median)",
                      "compile (difference)"], table, markdown)
    return ok


def section_memory(out, selected_ids, settings, markdown):
    mem_cases = [c for c in cases_mod.memory_cases(settings.quick) if c.id in selected_ids]
    if not mem_cases:
        return True
    heading(out, "Peak memory of one gradient call (fresh interpreter each, after a warm-up "
                 "call): tracemalloc peak above the inputs; max RSS (VmHWM) of the whole process")
    table, ok = [], True
    for case in mem_cases:
        got = {}
        for column in ("forward", "hand", "srcgrad"):
            args = ["memory", case.id, column] + (["--quick"] if settings.quick else [])
            try:
                got[column] = measure.run_child(*args)
            except Exception as e:  # noqa: BLE001
                table.append([case.id, column, "ERROR", first_line(e), "—"])
                ok = False
        for column, r in got.items():
            ratio = "—"
            if column == "srcgrad" and "hand" in got and got["hand"]["peak"] > 0:
                ratio = fmt_ratio(r["peak"] / got["hand"]["peak"])
            table.append([case.id, column, fmt_bytes(r["peak"]), fmt_bytes(r["maxrss"]), ratio])
    print_table(out, ["workload", "column", "peak (tracemalloc)", "max RSS", "srcgrad/hand peak"],
                table, markdown)
    return ok


def section_compile(out, settings, markdown):
    heading(out, f"Compile-time scaling: gradient of a straight-line chain of N statements "
                 f"`t = t * 1.0001 + x` (fresh interpreter each, "
                 f"median of {settings.compile_reps})")
    table, ok, previous = [], True, None
    with tempfile.TemporaryDirectory() as directory:
        for n in settings.compile_sizes:
            try:
                results = [measure.run_child("compile", n, directory)
                           for _ in range(settings.compile_reps)]
            except Exception as e:  # noqa: BLE001
                table.append([f"N={n}", "ERROR", first_line(e), "—", "—", "—"])
                ok = False
                continue
            first = statistics.median(r["first"] for r in results)
            steady = statistics.median(r["steady"] for r in results)
            compile_s = max(0.0, first - steady)
            ok = ok and all(r["ok"] for r in results)
            growth = "—" if previous is None else fmt_ratio(compile_s / previous)
            previous = compile_s
            table.append([f"N={n}", "ok" if all(r["ok"] for r in results) else "WRONG",
                          fmt_time(first), fmt_time(steady), fmt_time(compile_s / n), growth])
    print_table(out, ["statements", "gradient", "first call", "later calls",
                      "compile per statement", "compile growth vs previous"], table, markdown)
    return ok


def section_overhead(out, case_list, settings, markdown):
    """What a call through ``sg.grad``'s wrapper adds to the generated code it runs."""
    from srcgrad.compiler import source

    heading(out, "Second-call overhead: sg.grad's wrapper (bind arguments, look up the compiled "
                 "code by the arguments' kinds, cast the gradients) against calling the generated "
                 "code directly")
    table, ok = [], True
    for case in case_list:
        if case.kind != "grad" or case.order != 1:
            continue
        args = case.args
        if any(isinstance(args[i], (dict, list, tuple)) for i in case.wrt):
            continue  # a parameter tree: the generated code takes its leaves, not the tree
        g = srcgrad.grad(case.fn, wrt=case.sg_wrt())
        g(*args)
        generated = g.__srcgrad_compiled__.entry(args).fn
        parses = source.PARSE_COUNT[0]
        medians, samples = timing.interleaved(
            {"wrapper": lambda: g(*args), "generated": lambda: generated(*args)},
            settings.rounds, settings.min_sample, settings.max_row_seconds)
        extra = statistics.median(a - b for a, b in zip(samples["wrapper"], samples["generated"]))
        parsed = source.PARSE_COUNT[0] - parses
        ok = ok and parsed == 0
        # On calls of milliseconds the machine's noise is larger than the overhead.
        shown = fmt_time(max(0.0, extra)) if medians["generated"] < 5e-3 else "below noise"
        table.append([case.id, case.size, fmt_time(medians["generated"]),
                      fmt_time(medians["wrapper"]), shown, str(parsed)])
    print_table(out, ["workload", "size", "generated code", "through sg.grad",
                      "overhead (median)", "parses"], table, markdown)
    return ok


# ---- main ----------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="small sizes and few repeats: correctness checks (< 60 s); no timing assertions")
    groups = ", ".join(dict.fromkeys(c.group for c in cases_mod.build_cases(False)))
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help=f"a workload ({groups}), a row id, or a section "
                        f"({', '.join(SECTIONS)}); repeatable or comma-separated")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    p.add_argument("--rounds", type=int, help="timing rounds per row (default 31, 3 with --quick)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    settings = Settings(args.quick)
    if args.rounds:
        settings.rounds = args.rounds
    out = lambda text="": print(text, flush=True)
    start = time.perf_counter()
    fingerprint = source_fingerprint()

    all_cases = cases_mod.build_cases(args.quick)
    only = {name.strip() for item in args.only for name in item.split(",") if name.strip()}
    known = {c.id for c in all_cases} | {c.group for c in all_cases} | set(SECTIONS)
    unknown = only - known
    if unknown:
        print(f"run.py: unknown --only name(s) {sorted(unknown)}; known: {sorted(known)}",
              file=sys.stderr)
        return 2
    selected = [c for c in all_cases if not only or c.id in only or c.group in only]
    sections = set(SECTIONS) if not only else (only & set(SECTIONS))
    if only and selected:
        sections |= {"firstcall", "memory", "overhead"}

    out("srcgrad benchmarks" + (" (--quick: small sizes, few repeats; timings are indicative only)"
                                if args.quick else ""))
    print_machine(out)
    columns = frameworks.all_columns()
    for column in columns:
        if column.optional:
            out(f"column {column.name}: {column.note if column.available else 'skipped: ' + column.note}")
    out(f"timing: {settings.rounds} rounds per row, columns interleaved round-robin (rotating start), "
        f">= {settings.min_sample * 1e3:g} ms per sample; medians; rows stop adding rounds "
        f"after {settings.max_row_seconds:g} s")
    out("")

    rows = []
    for case in selected:
        t0 = time.perf_counter()
        row = run_row(case, columns, settings, out)
        rows.append(row)
        out(correctness_line(row) + f"  ({time.perf_counter() - t0:.1f} s)")

    all_ok = all(r.status == "ok" for r in rows)
    if rows:
        print_tables(out, rows, columns, args.markdown)

    # a section named alone (--only memory) covers every row
    section_cases = selected if selected else all_cases
    selected_ids = {c.id for c in section_cases}
    try:
        if "import" in sections:
            all_ok &= section_import(out, settings, args.markdown)
        if "firstcall" in sections:
            all_ok &= section_firstcall(out, section_cases, settings, args.markdown)
        if "memory" in sections:
            all_ok &= section_memory(out, selected_ids, settings, args.markdown)
        if "compile" in sections:
            all_ok &= section_compile(out, settings, args.markdown)
        if "overhead" in sections:
            all_ok &= section_overhead(out, section_cases, settings, args.markdown)
    except Exception as e:  # noqa: BLE001 - a measuring subprocess timed out, or the like
        out(f"\nERROR in a subprocess measurement: {first_line(e)}")
        all_ok = False

    if source_fingerprint() != fingerprint:
        out("")
        out(f"WARNING: srcgrad's source changed during this run (fingerprint {fingerprint} -> "
            f"{source_fingerprint()}): rows measured before and after the change are not comparable")
    out("")
    out(f"total time {time.perf_counter() - start:.1f} s; "
        f"{'all correctness checks ok' if all_ok else 'SOME CHECKS FAILED'}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
