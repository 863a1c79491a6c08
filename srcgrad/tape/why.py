"""``tape.explain(target, sources)``: why ``tape.gradient(target, sources)`` gives None for
a source, in TensorFlow's most reported causes: the target was not computed while the
tape recorded; the source was not watched (a plain array never given to
``tape.watch``, a Variable made with ``trainable=False``, or a Variable rebound to
a plain array by ``w = w - lr * g``); the target does not depend on a watched source
(the line-level analysis of that is ``sg.explain`` of the code as a function).
"""
from dataclasses import dataclass, field

from ..explain import Reason
from ..variables import Variable

__all__ = ["TapeExplanation", "explain"]


@dataclass
class TapeExplanation:
    """For each source (in the order given): None when connected, else a ``Reason``."""

    sources: list = field(default_factory=list)

    def __str__(self):
        return "\n".join(f"source {k}: connected" if r is None else f"source {k}: None: {r}"
                         for k, r in enumerate(self.sources))


def explain(tape, target, sources):
    from .tape import _flatten

    flat_targets = _flatten(target)[0]
    flat_sources = _flatten(sources)[0]
    grads = tape._vjp(flat_targets, [None] * len(flat_targets), flat_sources, keep=True)
    computed = [r for r in tape._records
                if any(t is v for t in flat_targets for v in r.outputs.values())]
    watched = list(tape._watched_values) + list(tape.watched_variables())
    out = TapeExplanation()
    for source, g in zip(flat_sources, grads):
        if g is not None:
            out.sources.append(None)
        elif not computed and not any(t is w for t in flat_targets for w in watched):
            out.sources.append(Reason(
                "the target was not computed while the tape recorded (compute it inside "
                "the `with GradientTape()` block)"))
        elif not any(source is w for w in watched):
            out.sources.append(_not_watched(source))
        else:
            out.sources.append(_in_block(computed[-1] if computed else None, source))
    return out


def _in_block(record, source):
    """A watched source the target does not depend on: where, in the block's own
    statements, its values stop carrying a derivative (as ``sg.explain`` finds it)."""
    import gast

    from ..ir.names import walk_stmts

    general = ("it was watched, but the target does not depend on it in the block that "
               "computed it")
    if record is None:
        return Reason(general)
    region = record.region
    names = {n for n, v in record.values.items() if v is source}
    for s in walk_stmts(region.statements):
        # (Only a statement binding a value can be where the chain to the target breaks.)
        cause = _stop(s.value, names) if isinstance(s, (gast.Assign, gast.AugAssign)) else None
        if cause is not None:
            o = region.origin(s)
            return Reason(f"{general}: its derivative stops: {cause}", o.lineno, o.text)
        if isinstance(s, gast.Assign) and any(
                isinstance(n, gast.Name) and n.id in names for n in gast.walk(s.value)):
            names |= {n.id for t in s.targets for n in gast.walk(t) if isinstance(n, gast.Name)}
    o = region.origin(region)
    return Reason(general, o.lineno, o.text)


def _not_watched(source):
    if isinstance(source, Variable) and not source.trainable:
        return Reason("it is a Variable made with trainable=False, which the tape does not "
                      "watch by itself: call tape.watch(v)")
    if isinstance(source, Variable):
        return Reason("it is a Variable the recorded blocks did not read (the target was "
                      "computed from other values)")
    return Reason("it was not watched: a plain array is a source only when given to "
                  "tape.watch(x) in the block; if it was a Variable, `w = w - lr * g` made it "
                  "a plain array (update it with w.assign_sub(lr * g))")


def _stop(value, names):
    """What in the expression ``value`` (as written) takes one of ``names`` and gives no
    derivative: a comparison, or a call of a function srcgrad calls without one."""
    import gast

    from ..rules.table import NONDIFF

    def reads(node):
        return any(isinstance(n, gast.Name) and n.id in names for n in gast.walk(node))

    constant = {getattr(f, "__name__", None) for f in NONDIFF} | {"astype", "stop_gradient"}
    for node in gast.walk(value):
        if isinstance(node, gast.Compare) and reads(node):
            return "a comparison (a piecewise constant value: no derivative)"
        if isinstance(node, gast.Call) and reads(node):
            f = node.func
            name = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
            if name in constant:
                return f"`{gast.unparse(f).strip()}`, which has no derivative"
    return None
