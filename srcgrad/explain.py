"""``sg.explain`` and ``srcgrad explain``: why a gradient is None (or zero), with the line.

The compiler's activity analysis in the user's terms: for each line of the
function, which of its variables carry a derivative; for each differentiated
argument the result does not depend on, why, naming the line where the chain
breaks: an integer cast, a comparison, a call without a derivative
(``np.argmax``, ``np.round``), ``sg.stop_gradient``, a branch not taken for
these arguments, a value rebound before anything reads it (followed binding by
binding: ``explain_flow``), or values the result never reads.

Example::

    >>> print(sg.explain(loss, wrt=("w", "k")))
    explain loss (model.py:4) with respect to w, k
      line 5    h = np.tanh(x @ w)     h carries a derivative
      line 6    n = int(k)             -
      line 7    return np.sum(h) * n   -
    w: connected
    k: not connected: its derivative stops: an integer cast (int) at line 6, `n = int(k)`
"""
import re
from dataclasses import dataclass, field

import gast

from .compiler.cache import Compiled
from .compiler.pipeline import normalized_function
from .explain_flow import ENTRY, Flow, fills
from .ir import anno
from .ir.names import walk_stmts
from .passes import activity

__all__ = ["explain", "Explanation", "Reason"]

# Calls that end a derivative, by what they do (names as written in the code).
_CASTS = {"int", "bool", "round", "floor", "ceil", "trunc", "rint", "fix", "around", "astype",
          "floor_divide", "item"}
_STOPS = {"stop_gradient"}


@dataclass
class Reason:
    """Why a source is not connected: ``cause`` in words, at ``line`` (``text``)."""

    cause: str
    line: int = None
    text: str = ""
    tail: str = ""  # what follows the line in the sentence

    def __str__(self):
        where = f" at line {self.line}, `{self.text}`" if self.line else ""
        return f"{self.cause}{where}{self.tail}"


@dataclass
class Explanation:
    """What ``sg.explain`` finds; its ``str`` is what ``srcgrad explain`` prints."""

    function: str
    where: str
    wrt: tuple
    lines: list = field(default_factory=list)  # (line, text, names carrying a derivative)
    sources: dict = field(default_factory=dict)  # wrt name -> None (connected) or Reason

    def connected(self, name):
        return self.sources[name] is None

    def __str__(self):
        out = [f"explain {self.function} ({self.where}) with respect to {', '.join(self.wrt)}"]
        width = max((len(text) for _, text, _ in self.lines), default=0)
        for line, text, names in self.lines:
            carried = ", ".join(names) + (" carries" if len(names) == 1 else " carry") + \
                " a derivative" if names else "-"
            out.append(f"  line {line:<4} {text.ljust(width)}   {carried}")
        for name in self.wrt:
            reason = self.sources[name]
            out.append(f"{name}: connected" if reason is None else f"{name}: not connected: "
                       f"{reason}")
        return "\n".join(out)


def explain(f, wrt=0, args=None):
    """The activity analysis of ``f`` with respect to ``wrt`` (as in ``sg.grad``), in the
    user's terms; ``args``: example arguments to analyse the code compiled for them
    (branches decided on their kinds), else the generic code."""
    compiled = Compiled.of(_python(f), wrt, "grad")  # (resolves names and indices in wrt)
    sample = list(compiled.bound) + list(args) if args is not None else None
    src, ctx, node, params, wrt_names = normalized_function(compiled.f, list(compiled.wrt),
                                                            sample)
    fn = compiled.f
    result = node.body[-1].value
    result_name = result.id if isinstance(result, gast.Name) else None
    act = activity.analyze(node.body, wrt_names, result_name)
    origin = src.origin(src.node)
    out = Explanation(fn.__qualname__, origin.short(), tuple(wrt_names))
    stmts = list(walk_stmts(node.body))
    # (Through an integer cast a value is active for the compiler, its adjoint zero.)
    flow = Flow(node.body, params, _integer_cast)
    returned = flow.reaching[node.body[-1]].get(result_name, set())
    derived = {name: flow.derived(name) for name in wrt_names}
    for name in wrt_names:
        connected = name in act.useful and bool(returned & derived[name])
        out.sources[name] = None if connected else _why(name, src, stmts, flow, derived[name])
    # (A binding carries a derivative to the result only if the result reads it.)
    out.lines = _lines(src, node, act, flow.feeding(returned) & set().union(*derived.values()))
    return out


def _python(f):
    from .api import _python_function

    return _python_function(f, "explain")


def _lines(src, node, act, carrying):
    """(line, source text, the user's variables bound there that carry a derivative);
    ``carrying``: the definitions that carry one from a source to the result."""
    own = src.filename
    per_line = {}
    for s in walk_stmts(node.body):
        o = anno.origin(s)
        if o is None or o.filename != own:
            continue
        names = per_line.setdefault((o.lineno, o.text.strip()), [])
        for w in activity.flow(s)[0]:
            if w in act.active and (s, w) in carrying and _spelled(w, o.text) \
                    and w not in names:
                names.append(w)
    return [(line, text, names) for (line, text), names in sorted(per_line.items())]


def _spelled(name, text):
    """Is ``name`` a variable the line itself spells (not a temporary of the compiler)?"""
    return re.search(rf"(?<![\w.]){re.escape(name)}\b\s*(=|,|\)|\+=|-=|\*=|/=)", text) \
        is not None


def _why(name, src, stmts, flow, derived):
    """The reason ``name`` does not reach the result; ``derived``: the definitions
    computed from it with a derivative (``flow.derived``)."""
    reads = [s for s in stmts if any(isinstance(n, gast.Name) and n.id == name
                                     and isinstance(n.ctx, gast.Load) for n in gast.walk(s))]
    if not reads:
        return _not_compiled(name, src)
    for s in stmts:
        if activity.flow(s)[0] and not getattr(s, "sg_norule", None) \
                and anno.kind(s) != "prim":
            continue
        # (Only the bindings that reach ``s`` count: a name rebound since is another value.)
        here = {n for n, ds in flow.reaching.get(s, {}).items() if ds & derived}
        cause = _break(s, here)
        if cause is not None:
            o = anno.origin(s)
            return Reason(f"its derivative stops: {cause}", o.lineno if o else None,
                          o.text.strip() if o else "")
    dead = flow.dead(derived)
    if dead:
        return _overwritten(dead[0], flow)
    # Where the derivative goes last: the definitions nothing computes more from.
    ends = [d for d in derived if d[0] != ENTRY and not flow.carries.get(d)]
    last = sorted({s for s, _ in ends}, key=flow.order.get)
    o = anno.origin(last[-1]) if last else None
    names = sorted({w for s, w in ends if o is not None and _spelled(w, anno.origin(s).text)})
    what = ", ".join(f"`{n}`" for n in names) or "values"
    return Reason(f"it flows into {what}, which the result does not read",
                  o.lineno if o else None, o.text.strip() if o else "")


def _overwritten(d, flow):
    """``d``, a definition no statement reads, rebound on every path: where."""
    site, name = d
    kills = sorted(flow.kills[d], key=flow.order.get)
    line, text = _at(kills[0])
    if site == ENTRY:
        what = f"the argument `{name}`"
    else:
        at, spelled = _at(site)
        # (A compiler's temporary is named by its line: the user never wrote it.)
        what = f"`{name}` (line {at})" if re.search(rf"(?<![\w.]){re.escape(name)}\b", spelled) \
            else f"the value computed at line {at}"
    others = sorted({_at(k)[0] for k in kills[1:]} - {line, None})
    also = (f", and at line{'s' if len(others) > 1 else ''} " + ", ".join(map(str, others))) \
        if others else ""
    again = "is overwritten in full" if fills(kills[0]) else "is assigned again"
    return Reason(f"its value is overwritten before use: {what} {again}", line, text,
                  f"{also}, before anything reads it")


def _at(s):
    """(line, text) of statement ``s`` in the user's code; (None, "") for one the
    compiler made up."""
    o = anno.origin(s)
    return (o.lineno, o.text.strip()) if o is not None else (None, "")


def _break(s, derived):
    """What in statement ``s`` takes a value of ``derived`` and gives none, or None."""
    if anno.kind(s) == "prim":
        reads = {a.id for a in s.sg_args.values() if isinstance(a, gast.Name)}
        return "an integer cast (astype)" if _integer_cast(s) and reads & derived else None
    if any(isinstance(n, gast.Compare) and _reads(n, derived) for n in gast.walk(s)):
        return "a comparison (a piecewise constant value: no derivative)"
    # The innermost call given a derived value itself (``np.sum(np.argmax(y))``: argmax),
    # unless a cast takes what it gives (``int(np.sum(y))``: np.sum has a derivative).
    calls = [n for n in gast.walk(s) if isinstance(n, gast.Call) and any(
        isinstance(a, gast.Name) and a.id in derived
        for a in list(n.args) + [k.value for k in n.keywords] + [getattr(n.func, "value", None)])]
    if not calls:
        return None
    call = next((n for n in gast.walk(s) if isinstance(n, gast.Call)
                 and _fname(n) in _CASTS | _STOPS and _reads(n, derived)), calls[-1])
    fname = _fname(call)
    if fname in _STOPS:
        return "sg.stop_gradient"
    if fname in _CASTS:
        return f"an integer cast ({fname})"
    return f"`{gast.unparse(call.func).strip()}`, which has no derivative"


def _fname(call):
    return call.func.attr if isinstance(call.func, gast.Attribute) else \
        call.func.id if isinstance(call.func, gast.Name) else ""


def _integer_cast(s):
    """``k.astype(int)``: a primitive whose result carries no derivative."""
    if anno.kind(s) != "prim" or getattr(getattr(s, "sg_func", None), "__name__", "") != "astype":
        return False
    dtype = s.sg_args.get("dtype")
    return isinstance(dtype, gast.Constant) and isinstance(dtype.value, str) and \
        dtype.value.startswith(("int", "uint", "bool")) or _int_type(dtype)


def _reads(node, names):
    return any(isinstance(n, gast.Name) and n.id in names for n in gast.walk(node))


def _int_type(node):
    return isinstance(node, gast.Name) and node.id in ("int", "bool") or \
        isinstance(node, gast.Attribute) and node.attr.startswith(("int", "uint", "bool"))


def _not_compiled(name, src):
    """``name`` is not read by the compiled code: never, or only where it does not run
    for these arguments (a branch decided when compiling, code after a return)."""
    parents = {}
    for parent in gast.walk(src.node):
        for child in gast.iter_child_nodes(parent):
            parents[child] = parent
    for n in gast.walk(src.node):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load):
            up = parents.get(n)
            while up is not None and not isinstance(up, gast.If):
                up = parents.get(up)
            read = src.origin(n)
            if up is not None:
                test = src.origin(up)
                return Reason(f"it is read (line {read.lineno}) only in a branch that does not "
                              "run for these arguments: the test, decided when compiling,",
                              test.lineno, test.text.strip())
            return Reason("it is read only where the function has already returned",
                          read.lineno, read.text.strip())
    return Reason("it is never read")
