"""A quick pass of the differential fuzzer (tools/fuzz), and tests of the fuzzer itself.

The quick pass checks a fixed seed of programs and must find no FAIL. It runs
only the feature families and forms that srcgrad gets right today: the others
are switched off in ``DISABLED`` below, each with the finding that fails it
("class N" of the findings listed in issue 12's session note).
Switch one back on when its class is fixed.

Disabled today (keys are feature families or forms):

- form ``model`` (trainable Variables in containers, harness.model_style): the
  tape loses a Variable read from a container or an attribute once it is
  aliased (``h = x`` in ``f(params['x'])``: None), and after a loop that
  gathers Variables (``for l in layers: args.append(l.w)``) augmented
  assignments lose their gradient; found by the fuzzer's first ``model`` runs
  (seeds 900-905, about 10% of programs FAIL). ``test_model_form_quick_pass``
  runs the first few programs of the seed, which pass; every container style
  is checked on hand-written programs below.
"""
import inspect

import numpy as np
import pytest

import srcgrad as sg
from tools.fuzz.features import FEATURES
from tools.fuzz.generator import generate
from tools.fuzz.harness import CONTAINERS, DECORATIONS, GATHERS, ModelStyle, model_style, \
    module_source
from tools.fuzz.oracle import FORMS, OPT_IN, check
from tools.fuzz.program import Program, args_literal
from tools.fuzz.report import failures
from tools.fuzz.runner import run
from tools.fuzz.shrink import shrink

DISABLED = {}  # (the "model" form's two tape bugs are fixed: test_tape_container_loops)

QUICK_SEED = 20240601
QUICK_COUNT = 44
QUICK_PARTS = 4  # (run apart, so that the test workers share them)


@pytest.mark.parametrize("part", range(QUICK_PARTS))
def test_quick_pass_finds_no_failure(part):
    features = frozenset(FEATURES) - set(DISABLED)
    forms = [f for f in FORMS if f not in DISABLED and f not in OPT_IN]
    count = QUICK_COUNT // QUICK_PARTS
    report = run(count, QUICK_SEED, features, forms, start=part * count)
    assert report.programs == count
    assert not report.failures, failures(report)
    assert report.counts["grad"]["ok"] >= count // 2  # the pass really checks something


def test_generator_produces_every_family():
    used = set()
    for i in range(300):
        used |= generate(f"coverage:{i}", frozenset(FEATURES)).features
    assert used == set(FEATURES)


def test_generator_uses_only_enabled_families():
    enabled = frozenset({"loops", "reduce"})
    for i in range(50):
        assert generate(f"subset:{i}", enabled).features <= enabled


def test_generator_is_deterministic():
    one, two = (generate("7:3", frozenset(FEATURES)) for _ in range(2))
    assert (one.source, one.features, args_literal(one.args)) == \
        (two.source, two.features, args_literal(two.args))


# ---------------------------------------------------------------- the oracle can fail

SMOOTH = Program("smooth", "def f(x):\n    return np.sum(np.sin(x) * x)\n",
                 (np.array([0.3, -1.2, 0.7]),), frozenset())


def _true_gradient(x):
    return np.cos(x) * x + np.sin(x)


def _fake(monkeypatch, grad):
    """Replace ``sg.grad`` (as the oracle calls it) by ``grad(f, wrt)``."""
    monkeypatch.setattr(sg, "grad", lambda f, wrt=0: lambda *args: grad(f, wrt, *args))


def test_oracle_accepts_srcgrad_on_a_smooth_program(tmp_path):
    outcomes = check(SMOOTH, FORMS, tmp_path)
    assert {form: o.status for form, o in outcomes.items()} == dict.fromkeys(FORMS, "ok")


def test_oracle_catches_a_wrong_gradient(monkeypatch, tmp_path):
    _fake(monkeypatch, lambda f, wrt, x: _true_gradient(x) * 1.001)
    outcome = check(SMOOTH, ["grad"], tmp_path)["grad"]
    assert (outcome.status, outcome.kind) == ("FAIL", "wrong gradient")


def test_oracle_catches_a_wrong_shape(monkeypatch, tmp_path):
    _fake(monkeypatch, lambda f, wrt, x: _true_gradient(x)[:2])
    assert check(SMOOTH, ["grad"], tmp_path)["grad"].kind == "wrong shape"


def test_oracle_catches_a_missing_value(monkeypatch, tmp_path):
    monkeypatch.setattr(sg, "value_and_grad",
                        lambda f, wrt=0: lambda x: (None, _true_gradient(x)))
    assert check(SMOOTH, ["value"], tmp_path)["value"].kind == "wrong value"


def test_oracle_catches_a_changed_input(monkeypatch, tmp_path):
    def mutating(f, wrt, x):
        g = _true_gradient(x)
        x[0] += 1.0
        return g

    _fake(monkeypatch, mutating)
    assert check(SMOOTH, ["grad"], tmp_path)["grad"].kind == "mutated input"


def test_oracle_classifies_crashes_and_refusals(monkeypatch, tmp_path):
    def crash(f, wrt, x):
        raise IndexError("boom")

    _fake(monkeypatch, crash)
    assert check(SMOOTH, ["grad"], tmp_path)["grad"].kind == "crash: IndexError"

    def refuse(f, wrt, x):
        raise sg.CompileError("try statement is not supported")

    _fake(monkeypatch, refuse)
    assert check(SMOOTH, ["grad"], tmp_path)["grad"].status == "refused"


def test_kink_within_the_step_is_inconclusive_not_fail(tmp_path):
    # |x - 0.300001| at x = 0.3: the kink is 1e-6 away, inside the difference step
    kink = Program("kink", "def f(x):\n    return np.sum(np.abs(x - 0.300001))\n",
                   (np.array([0.3]),), frozenset())
    assert check(kink, ["grad"], tmp_path)["grad"].status == "inconclusive"


def test_kink_exactly_at_the_point_is_inconclusive_not_fail(tmp_path):
    # Fuzzer 2802:78, shrunk: np.clip at its bound gives the mean of the one-sided slopes
    # (0.5) at every step, so the three steps agree; srcgrad's 1 is a right answer there.
    clipped = Program("clipped", "def f(z):\n    return np.sum(np.clip(z, -0.8, 0.8))\n",
                      (np.array([0.126, -0.8, 1.4]),), frozenset())
    assert check(clipped, ["grad"], tmp_path)["grad"].status == "inconclusive"
    # Away from the bound the three steps and the slopes agree: checked, as before.
    moved = Program("moved", clipped.source, (np.array([0.126, -0.7, 1.4]),), frozenset())
    assert check(moved, ["grad"], tmp_path)["grad"].status == "ok"


def test_rounding_that_two_steps_agree_on_is_inconclusive_not_fail(tmp_path):
    # Fuzzer 35074:938, shrunk: ``a - (a - x)`` with |a| near 1e8 rounds x to a grid of
    # 1.5e-8; the differences at h, 2h and 4h all gave 1.99974 for a derivative of 2
    # (exactly srcgrad's): a step that is not a multiple of h shows the staircase.
    source = ("def f(x):\n    a = x + x\n    a -= np.sum(a - -1.2)\n    for b in a:\n"
              "        a = b * b\n    for c in a:\n        a = a + c * c\n    for g in a:\n"
              "        a = g * g\n        a = a - (a - x)\n    return 2.0 * np.sum(a)\n")
    x = np.array([[-1.208, 0.375], [0.673, 0.289], [0.425, 0.732]])
    program = Program("rounding", source, (x,), frozenset())
    assert check(program, ["grad"], tmp_path)["grad"].status == "inconclusive"


def test_shrink_keeps_the_failing_construct(monkeypatch, tmp_path):
    source = ("def f(x):\n"
              "    a = x * 2.0\n"
              "    b = np.sin(a) + x\n"
              "    c = np.tanh(b) * 3.0\n"
              "    d = np.sum(a * b)\n"
              "    return d + np.sum(c)\n")
    program = Program("tanh", source, (np.array([0.4, -0.9]),), frozenset())
    real = sg.grad

    def wrong_with_tanh(f, wrt, x):  # a fake bug: every function that uses tanh
        if "tanh" in inspect.getsource(f):
            return np.full(np.shape(x), 1e3)
        return real(f, wrt)(x)

    _fake(monkeypatch, wrong_with_tanh)
    outcome = check(program, ["grad"], tmp_path)["grad"]
    small, small_outcome = shrink(program, "grad", outcome, tmp_path)
    assert small_outcome.same_failure(outcome)
    assert "tanh" in small.source
    assert len(small.source) < len(source) * 0.8


@pytest.mark.parametrize("name", ["inline", "call"])
def test_tape_wrapper_inlines_only_bodies_without_early_returns(name, tmp_path):
    body = "    a = x * 2.0\n    return np.sum(a)\n" if name == "inline" else \
        "    if np.sum(x) > 0:\n        return np.sum(x)\n    return np.sum(x * x)\n"
    program = Program(name, "def f(x):\n" + body, (np.array([0.5, 1.0]),), frozenset())
    text = module_source(program)
    assert ("tape_out = f(x)" in text) == (name == "call")
    assert check(program, ["tape"], tmp_path)["tape"].status == "ok"


# ---------------------------------------------------------------- the model form

TWO_INPUTS = Program("two", "def f(x, y):\n    a = np.sin(x) * y\n    return np.sum(a * x) + y\n",
                     (np.array([0.3, -1.2, 0.7]), 0.4), frozenset())
EARLY = Program("early", "def f(x, y):\n    if np.sum(x) > 0:\n        return np.sum(x * y)\n"
                "    return np.sum(np.cos(x)) * y\n",
                (np.array([0.3, -1.2, 0.7]), 0.4), frozenset())


@pytest.mark.parametrize("container", CONTAINERS)
def test_model_form_every_style_on_programs_without_aliases(container, monkeypatch, tmp_path):
    # Every gather, inlining and decoration of this container, on a program with a body
    # the block can copy and one with an early return (called, or inlined into loss()).
    import tools.fuzz.harness as harness

    for k, decorated in enumerate(DECORATIONS):
        for program in (TWO_INPUTS, EARLY):
            style = ModelStyle(container, GATHERS[k], program is EARLY, decorated)
            monkeypatch.setattr(harness, "model_style", lambda name: style)
            outcome = check(program, ["model"], tmp_path)["model"]
            assert outcome.status == "ok", (str(style), outcome)
            assert f"# model_f: {style}" in module_source(program)


def test_model_style_is_drawn_from_the_name():
    assert model_style("7:3") == model_style("7:3")
    styles = [model_style(f"7:{i}") for i in range(200)]
    assert {s.container for s in styles} == set(CONTAINERS)
    assert {s.decorated for s in styles} == set(DECORATIONS)
    assert {s.inline for s in styles} == {True, False}


def test_model_form_is_inconclusive_when_f_does_not_run_on_variables(tmp_path):
    program = Program("arrays only", "def f(x):\n    assert isinstance(x, np.ndarray)\n"
                      "    return np.sum(x * x)\n", (np.array([0.5, 1.0]),), frozenset())
    outcome = check(program, ["model", "grad"], tmp_path)
    assert outcome["grad"].status == "ok"
    assert (outcome["model"].status, outcome["model"].kind) == \
        ("inconclusive", "not a program of Variables")


# ---------------------------------------------------------------- the object form

# Scopes the rewrite must respect: a comprehension variable and a nested function's
# parameter and local named like f's variables, a default argument and a lambda, a
# parameter that is also a loop target (read into a local), a name that is both a loop
# target and assigned (stays plain), a closure reading a variable rebound after it.
SCOPES = Program("scopes", """\
def f(x, y):
    a = x * 2.0
    k = np.array([0, 1])
    a[k] += 0.5
    a[np.array([2])] -= y
    b = [a[i] * y for i in range(2)]
    c = np.stack([c * 1.5 for c in a])

    def inner(a, k=a):
        c = a + k
        return np.sum(c) + np.sum(b[0]) * y

    c = inner(x) + np.sum([a for a in a])
    for i in range(2):
        a = a + i
    g = sum(r * 2.0 for r in a) + inner(a)
    h = (lambda a, q=c: a * 3.0 + q)(c)
    for x in a:
        c = c + np.sum(x)
    e = 0.5
    for e in a:
        g += e
    e += 1.0
    y *= 2.0
    return np.sum(a) + c + g + h + np.sum(e) + y
""", (np.array([0.3, -1.2, 0.7]), 0.4), frozenset())


def _object_styles():
    import itertools

    from tools.fuzz.objects import ENTRIES, ObjectStyle
    for entry, *flags in itertools.product(ENTRIES, *[(False, True)] * 6):
        yield ObjectStyle(entry, *flags)
    for entry in ENTRIES:  # which read is the property's, which statements move, boxed
        for pick in range(1, 40):
            yield ObjectStyle(entry, prop=True, part=True, box=pick % 2 == 0, pick=pick)


@pytest.mark.parametrize("program", [SCOPES, TWO_INPUTS, EARLY], ids=lambda p: p.name)
def test_object_rewrite_runs_plainly_as_f_in_every_style(program, tmp_path):
    import importlib.util

    for k, style in enumerate(_object_styles()):
        path = tmp_path / f"objects_{program.name}_{k}.py"
        path.write_text(module_source(program, tapes=False, object_style_=style))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        args = [np.copy(a) for a in program.args]
        assert module.object_f(*args) == module.f(*program.args), (str(style), path.read_text())
        assert f"# object_f: {style}" in path.read_text()


def test_object_style_is_drawn_from_the_name():
    from tools.fuzz.objects import ENTRIES, object_style

    assert object_style("7:3") == object_style("7:3")
    styles = [object_style(f"7:{i}") for i in range(200)]
    assert {s.entry for s in styles} == set(ENTRIES)
    for flag in ("bound", "subclass", "prop", "part", "keywords", "box"):
        assert {getattr(s, flag) for s in styles} == {False, True}


@pytest.mark.parametrize("entry", ["run", "call", "helper"])
def test_object_form_on_programs_srcgrad_compiles(entry, monkeypatch, tmp_path):
    import tools.fuzz.harness as harness
    from tools.fuzz.objects import ObjectStyle

    for k, program in enumerate((TWO_INPUTS, EARLY)):
        style = ObjectStyle(entry, bound=bool(k), subclass=not k, prop=True, part=bool(k))
        monkeypatch.setattr(harness, "object_style", lambda name: style)
        outcome = check(program, ["object"], tmp_path)["object"]
        assert outcome.status == "ok", (str(style), outcome)


def test_object_form_reports_a_wrong_rewrite_as_a_harness_error(monkeypatch, tmp_path):
    import tools.fuzz.harness as harness

    monkeypatch.setattr(harness, "object_wrapper",
                        lambda f, style, taken: "def object_f(x):\n    return 1.0\n")
    outcome = check(SMOOTH, ["object"], tmp_path)["object"]
    assert (outcome.status, outcome.kind) == ("harness", "object_f differs from f")
