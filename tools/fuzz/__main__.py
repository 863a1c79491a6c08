"""``python -m tools.fuzz``: run the differential fuzzer (see README.md)."""
import argparse
import sys
import time
from pathlib import Path

from .features import parse_features
from .oracle import FORMS, OPT_IN
from .report import failures, reproducer, summary
from .runner import run


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=100, help="programs to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", default="", help="comma-separated families (default all)")
    parser.add_argument("--forms", default=",".join(f for f in FORMS if f not in OPT_IN),
                        help=f"comma-separated forms among {', '.join(FORMS)} (default: all "
                             f"but {', '.join(OPT_IN)})")
    parser.add_argument("--shrink", action="store_true", help="shrink failing programs")
    parser.add_argument("--max-shrink", type=int, default=None,
                        help="shrink at most this many failing programs, distinct "
                             "signatures first (default: all)")
    parser.add_argument("--out", type=Path, help="write the summary and reproducers here")
    args = parser.parse_args(argv)
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]
    unknown = set(forms) - set(FORMS)
    if unknown:
        parser.error(f"unknown form(s) {', '.join(sorted(unknown))}")
    try:
        features = parse_features(args.features)
    except ValueError as e:
        parser.error(str(e))

    start = time.monotonic()
    report = run(args.count, args.seed, features, forms, args.shrink, args.max_shrink,
                 progress=_progress)
    print(f"\r{' ' * 60}\r", end="", file=sys.stderr)
    text = summary(report) + f"\n\n{time.monotonic() - start:.0f} s"
    if report.failures:
        text += "\n\n" + failures(report)
    print(text)
    if args.out:
        _write(args.out, report, text)
    return 1 if report.failed else 0


def _progress(done, report):
    fails = len(report.failures)
    print(f"\r{done} programs, {fails} FAIL", end="", file=sys.stderr, flush=True)


def _write(out, report, text):
    out.mkdir(parents=True, exist_ok=True)
    (out / f"summary-{report.seed}.txt").write_text(text + "\n")
    for failure in report.failures:
        for forms, program, outcome in failure.shrunk:
            name = failure.program.name.replace(":", "_")
            path = out / f"fail_{name}_{forms[0]}.py"
            path.write_text(reproducer(program, forms, outcome))


if __name__ == "__main__":
    sys.exit(main())
