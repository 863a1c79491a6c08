"""``sg.explain`` and ``srcgrad explain``: why a gradient is None (or zero), with the line.

The compiler's activity analysis in the user's terms: for each line of the
function, which of its variables carry a derivative; for each differentiated
argument the result does not depend on, why, naming the line where the chain
breaks: an integer cast, a comparison, a call without a derivative
(``np.argmax``, ``np.round``), ``sg.stop_gradient``, a branch not taken for
these arguments, or values the result never reads.

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

    def __str__(self):
        where = f" at line {self.line}, `{self.text}`" if self.line else ""
        return f"{self.cause}{where}"


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
    out.lines = _lines(src, node, act)
    stmts = list(walk_stmts(node.body))
    for name in wrt_names:
        # (Through an integer cast a value is active for the compiler, its adjoint zero.)
        connected = name in act.useful and result_name in _derived(name, stmts)
        out.sources[name] = None if connected else _why(name, src, stmts)
    return out


def _python(f):
    from .api import _python_function

    return _python_function(f, "explain")


def _lines(src, node, act):
    """(line, source text, the user's variables bound there that carry a derivative)."""
    own = src.filename
    per_line = {}
    for s in walk_stmts(node.body):
        o = anno.origin(s)
        if o is None or o.filename != own:
            continue
        names = per_line.setdefault((o.lineno, o.text.strip()), [])
        for w in activity.flow(s)[0]:
            if w in act.active and _spelled(w, o.text) and w not in names:
                names.append(w)
    return [(line, text, names) for (line, text), names in sorted(per_line.items())]


def _spelled(name, text):
    """Is ``name`` a variable the line itself spells (not a temporary of the compiler)?"""
    return re.search(rf"(?<![\w.]){re.escape(name)}\b\s*(=|,|\)|\+=|-=|\*=|/=)", text) \
        is not None


def _why(name, src, stmts):
    """The reason ``name`` does not reach the result."""
    reads = [s for s in stmts if any(isinstance(n, gast.Name) and n.id == name
                                     and isinstance(n.ctx, gast.Load) for n in gast.walk(s))]
    if not reads:
        return _not_compiled(name, src)
    derived = _derived(name, stmts)
    for s in stmts:
        if activity.flow(s)[0] and not getattr(s, "sg_norule", None) \
                and anno.kind(s) != "prim":
            continue
        cause = _break(s, derived)
        if cause is not None:
            o = anno.origin(s)
            return Reason(f"its derivative stops: {cause}", o.lineno if o else None,
                          o.text.strip() if o else "")
    last = [s for s in stmts if set(activity.flow(s)[0]) & derived]
    o = anno.origin(last[-1]) if last else None
    names = sorted({w for s in last for w in activity.flow(s)[0]
                    if o is not None and _spelled(w, anno.origin(s).text)})
    what = ", ".join(f"`{n}`" for n in names) or "values"
    return Reason(f"it flows into {what}, which the result does not read",
                  o.lineno if o else None, o.text.strip() if o else "")


def _derived(name, stmts):
    """The names computed from ``name`` with a derivative (the forward closure; not
    through an integer cast)."""
    derived = {name}
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if _integer_cast(s):
                continue
            writes, reads = activity.flow(s)
            if reads & derived and not set(writes) <= derived:
                derived |= set(writes)
                changed = True
    return derived


def _break(s, derived):
    """What in statement ``s`` takes a value of ``derived`` and gives none, or None."""
    if anno.kind(s) == "prim":
        reads = {a.id for a in s.sg_args.values() if isinstance(a, gast.Name)}
        return "an integer cast (astype)" if _integer_cast(s) and reads & derived else None
    if any(isinstance(n, gast.Compare) and _reads(n, derived) for n in gast.walk(s)):
        return "a comparison (a piecewise constant value: no derivative)"
    # The innermost call given a derived value itself (``np.sum(np.argmax(y))``: argmax).
    calls = [n for n in gast.walk(s) if isinstance(n, gast.Call) and any(
        isinstance(a, gast.Name) and a.id in derived
        for a in list(n.args) + [k.value for k in n.keywords] + [getattr(n.func, "value", None)])]
    if not calls:
        return None
    call = calls[-1]
    fname = call.func.attr if isinstance(call.func, gast.Attribute) else \
        call.func.id if isinstance(call.func, gast.Name) else ""
    if fname in _STOPS:
        return "sg.stop_gradient"
    if fname in _CASTS:
        return f"an integer cast ({fname})"
    return f"`{gast.unparse(call.func).strip()}`, which has no derivative"


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
