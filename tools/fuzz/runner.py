"""Run a batch: generate, check, shrink, and count.

Program ``i`` of seed ``S`` is named ``"S:i"`` and is the same on every run;
when the generator makes an invalid program (see ``oracle.InvalidProgram``),
the next attempt is ``"S:i:1"`` and so on.
"""
import re
import shutil
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .generator import generate
from .oracle import InvalidProgram, check
from .shrink import shrink

ATTEMPTS = 5          # generator attempts per program index


@dataclass
class Failure:
    """A program that fails one or more forms."""
    program: object
    outcomes: dict                 # form -> failing Outcome
    shrunk: list = field(default_factory=list)   # [(forms, Program, Outcome)]

    @property
    def signature(self):
        kinds = frozenset((form, o.kind) for form, o in self.outcomes.items())
        return kinds, self.program.features


@dataclass
class Report:
    seed: int
    forms: tuple
    programs: int = 0
    invalid: int = 0
    counts: dict = field(default_factory=lambda: defaultdict(Counter))   # form -> status -> n
    feature_programs: Counter = field(default_factory=Counter)          # programs using it
    feature_fails: dict = field(default_factory=lambda: defaultdict(Counter))  # feat -> form -> n
    refusals: Counter = field(default_factory=Counter)
    refusals_by_form: dict = field(default_factory=lambda: defaultdict(Counter))
    # refusals of a form on programs whose ``grad`` form is ok: what that form adds
    refused_beyond_grad: dict = field(default_factory=lambda: defaultdict(Counter))
    harness: list = field(default_factory=list)   # (program name, form, detail)
    failures: list = field(default_factory=list)

    @property
    def failed(self):
        return bool(self.failures)


def run(count, seed, features, forms, shrink_failures=False, max_shrink=None,
        progress=None, start=0):
    """Check ``count`` programs (the seed's programs ``start`` on); with
    ``shrink_failures``, shrink the failing ones (at most ``max_shrink``, distinct
    signatures first)."""
    report = Report(seed, tuple(forms))
    directory = tempfile.mkdtemp(prefix="srcgrad-fuzz-")
    try:
        for index in range(start, start + count):
            checked = _check_one(f"{seed}:{index}", features, forms, directory, report)
            if checked is not None:
                _record(report, *checked)
            if progress:
                progress(index - start + 1, report)
        if shrink_failures:
            _shrink_all(report, directory, max_shrink)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return report


def _check_one(name, features, forms, directory, report):
    for attempt in range(ATTEMPTS):
        program = generate(name if attempt == 0 else f"{name}:{attempt}", features)
        try:
            return program, check(program, forms, directory)
        except InvalidProgram:
            report.invalid += 1
    return None


def _record(report, program, outcomes):
    report.programs += 1
    for feature in program.features:
        report.feature_programs[feature] += 1
    failing = {}
    for form, outcome in outcomes.items():
        report.counts[form][outcome.status] += 1
        if outcome.status == "refused":
            report.refusals[_construct(outcome.kind)] += 1
            report.refusals_by_form[form][_construct(outcome.kind)] += 1
            if form != "grad" and outcomes.get("grad", outcome).status == "ok":
                report.refused_beyond_grad[form][_construct(outcome.kind)] += 1
        elif outcome.status == "harness":
            report.harness.append((program.name, form, outcome.detail))
        elif outcome.status == "FAIL":
            failing[form] = outcome
            for feature in program.features:
                report.feature_fails[feature][form] += 1
    if failing:
        report.failures.append(Failure(program, failing))


def _construct(message):
    """A refusal message without the user's names, for counting kinds of refusal."""
    return re.sub(r"[\w.]+\.py:\d+", "…", re.sub(r"`[^`]*`", "`…`", message))


def _shrink_all(report, directory, limit):
    """Shrink failing programs, one per distinct signature first, up to ``limit`` (None: all)."""
    seen, first, rest = set(), [], []
    for failure in report.failures:
        (rest if failure.signature in seen else first).append(failure)
        seen.add(failure.signature)
    for failure in (first + rest)[:limit]:
        _shrink_failure(failure, directory)


def _shrink_failure(failure, directory):
    """Shrink for the first failing form; the result also covers the other forms
    it still fails the same way, and the rest are shrunk in turn."""
    pending = dict(failure.outcomes)
    while pending:
        form, outcome = next(iter(pending.items()))
        program, shrunk_outcome = shrink(failure.program, form, outcome, directory)
        try:
            again = check(program, list(pending), directory)
        except InvalidProgram:
            again = {}
        covered = [f for f, o in pending.items() if again.get(f) and again[f].same_failure(o)]
        covered = covered or [form]
        failure.shrunk.append((covered, program, shrunk_outcome))
        for f in covered:
            del pending[f]
