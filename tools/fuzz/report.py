"""Text for people: the summary table and standalone reproducers."""
import numpy as np

from .features import FEATURES
from .harness import module_source
from .oracle import second_order_eligible
from .program import args_literal

STATUSES = ("ok", "refused", "inconclusive", "FAIL", "harness")


def summary(report):
    lines = [f"seed {report.seed}: {report.programs} programs checked "
             f"({report.invalid} invalid programs regenerated)", ""]
    lines.append(f"{'form':10}" + "".join(f"{s:>14}" for s in STATUSES))
    for form in report.forms:
        counts = report.counts.get(form, {})
        lines.append(f"{form:10}" + "".join(f"{counts.get(s, 0):>14}" for s in STATUSES))
    lines += ["", f"{'feature':16}{'programs':>10}  FAIL by form"]
    for feature in FEATURES:
        fails = report.feature_fails.get(feature, {})
        text = ", ".join(f"{form} {n}" for form, n in sorted(fails.items())) or "-"
        lines.append(f"{feature:16}{report.feature_programs.get(feature, 0):>10}  {text}")
    if report.harness:
        lines += ["", "HARNESS ERRORS (defects of the fuzzer, not of srcgrad):"]
        lines += [f"  {name} {form}: {detail}" for name, form, detail in report.harness]
    if report.refusals:
        lines += ["", "refusals (sg.CompileError):"]
        lines += [f"{n:>6}  {what}" for what, n in report.refusals.most_common()]
    if report.refusals_by_form.get("object"):  # what to support next for built objects
        lines += ["", "refusals of the object form:"]
        lines += [f"{n:>6}  {what}" for what, n in report.refusals_by_form["object"].most_common()]
        beyond = report.refused_beyond_grad.get("object")
        if beyond:
            lines += ["", "  of which on programs whose grad form is ok:"]
            lines += [f"{n:>6}  {what}" for what, n in beyond.most_common()]
    return "\n".join(lines)


def failures(report):
    """Every failing program: shrunk reproducers in full, the others by their numbers."""
    out = []
    for n, failure in enumerate(report.failures, 1):
        program = failure.program
        kinds = "; ".join(f"{form}: {o.kind}" for form, o in failure.outcomes.items())
        head = f"FAIL {n}: program {program.name} [{', '.join(sorted(program.features))}] {kinds}"
        if not failure.shrunk:
            details = "\n".join(f"    {form}: {o.detail}" for form, o in failure.outcomes.items())
            out.append(f"{head}\n{details}")
            continue
        for forms, shrunk, outcome in failure.shrunk:
            out.append(f"{head}\nshrunk, failing {', '.join(forms)}:\n"
                       f"{reproducer(shrunk, forms, outcome)}")
    return "\n\n".join(out)


def reproducer(program, forms, outcome):
    """A standalone script: the program module, its inputs, and the failing calls.

    ``outcome`` is that of ``forms[0]``; its detail gives expected and got.
    """
    wrt = "0" if len(program.args) == 1 else repr(tuple(range(len(program.args))))
    calls = {
        "grad": f"sg.grad(f, wrt={wrt})(*ARGS)",
        "value": f"sg.value_and_grad(f, wrt={wrt})(*ARGS)",
        "tape": "tape_f(*ARGS)",
        "function": "function_f(*ARGS)",
        "second": "sg.grad(second_f)(*ARGS)",
        "tree": "sg.grad(dict_f)(dict(zip(f.__code__.co_varnames, ARGS))), "
                "sg.value_and_grad(tuple_f)(tuple(ARGS))",
        "complex": f"sg.grad(complex_f, wrt={wrt})(*ARGS)",
        "model": "model_f(*ARGS)",
        "object": f"sg.value_and_grad(object_f, wrt={wrt})(*ARGS)",
        "numba": f"sg.grad(f, wrt={wrt}, backend='numba')(*ARGS)",
        "jvp": "__import__('srcgrad.compiler.tangents').compiler.tangents.compile_tangent("
               f"f, list(range({len(program.args)})), ARGS).text",
    }
    second = "second" in forms and second_order_eligible(program)
    module = module_source(program, np.shape(program.args[0]) if second else None,
                           tapes=bool({"tape", "function", "model"} & set(forms)),
                           objects="object" in forms)
    prints = "".join(f"print({calls[form]!r}, {calls[form]})\n" for form in forms)
    detail = "".join(f"# {line}\n" for line in outcome.detail.splitlines())
    return (f"# {program.name}, form {forms[0]}: {outcome.kind}\n{detail}"
            f"{module}\n\nARGS = {args_literal(program.args)}\n{prints}")
