"""Assignment expressions (``:=``) become assignments before their statement.

Runs once, on the parsed function, after ``lambdas.hoist``. Where Python
evaluates ``(v := e)`` first in its statement, unconditionally, the statement
is the same with ``v = e`` before it and ``v`` in its place::

    if (v := A[idx]) > 0:           v = A[idx]
        s += v ** 2          ->     if v > 0:
                                        s += v ** 2

Not lifted (and so refused by the fence, naming the construct): one that a
call or a read of its name comes before (moving it would change what they
see), one evaluated only sometimes (the right of ``and``/``or``, a branch of
``a if c else b``, a later link of ``a < b < c``, a comprehension), and one in
a ``while`` test or another statement that evaluates it more than once or late.
"""
import gast

from ..ir import templates as T

_SCOPES = (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.SetComp, gast.DictComp,
           gast.GeneratorExp)


def hoist(fn):
    """Lift the assignment expressions of ``fn`` (a gast FunctionDef) and its nested
    defs, in place, where that is exact (above)."""
    _body(fn, "body")


def _body(owner, field):
    out = []
    for s in getattr(owner, field):
        if isinstance(s, gast.FunctionDef):
            _body(s, "body")
        elif not isinstance(s, gast.ClassDef):
            out += _lifted(s)
            for inner in ("body", "orelse"):
                if isinstance(getattr(s, inner, None), list):
                    _body(s, inner)
            if isinstance(s, gast.Try):
                for h in s.handlers:
                    _body(h, "body")
                _body(s, "finalbody")
            continue
        out.append(s)
    setattr(owner, field, out)


def _lifted(s):
    """``s`` with the assignments of its liftable ``:=`` before it."""
    if isinstance(s, gast.If):
        first = [s.test]
    elif isinstance(s, gast.For):
        first = [s.iter]
    elif isinstance(s, (gast.Assign, gast.AnnAssign, gast.Expr, gast.Return)) \
            and s.value is not None:
        first = [s.value]
    elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
        first = [gast.Name(s.target.id, gast.Load(), None, None), s.value]  # (read first)
    else:
        return [s]
    order = []
    for e in first:
        _in_order(e, False, order)
    lift, read, dirty, clean = set(), set(), False, set()
    for node, sometimes in order:
        if isinstance(node, tuple):  # where a ``:=`` starts: nothing before it may move
            _, named = node
            if not sometimes and not dirty and named.target.id not in read:
                clean.add(id(named))
        elif isinstance(node, gast.NamedExpr):
            if id(node) in clean:
                lift.add(id(node))
            dirty = True  # (conservative: what comes after stays after it)
        elif isinstance(node, gast.Call):
            dirty = True
        elif isinstance(node, gast.Name):
            read.add(node.id)
    if not lift:
        return [s]
    before = []
    lifter = _Lift(lift, before, s)
    field = "test" if isinstance(s, gast.If) else "iter" if isinstance(s, gast.For) else "value"
    setattr(s, field, lifter.visit(getattr(s, field)))
    return before + [s]


class _Lift(gast.NodeTransformer):
    def __init__(self, lift, before, stmt):
        self.lift, self.before, self.stmt = lift, before, stmt

    def visit_NamedExpr(self, node):
        self.generic_visit(node)  # (inner ones first, as Python evaluates them)
        if id(node) not in self.lift:
            return node
        self.before.append(gast.copy_location(T.assign(node.target.id, node.value), self.stmt))
        return gast.copy_location(gast.Name(node.target.id, gast.Load(), None, None), node)


def _in_order(node, sometimes, out):
    """(node, evaluated only sometimes) of ``node``'s parts, in Python's evaluation order."""
    if isinstance(node, _SCOPES):
        out.append((node, True))
        for n in gast.walk(node):
            if isinstance(n, (gast.NamedExpr, gast.Call)):
                out.append((n, True))
        return
    if isinstance(node, gast.NamedExpr):
        out.append((("start", node), sometimes))
        _in_order(node.value, sometimes, out)
    elif isinstance(node, gast.BoolOp):
        _in_order(node.values[0], sometimes, out)
        for v in node.values[1:]:
            _in_order(v, True, out)
    elif isinstance(node, gast.IfExp):
        _in_order(node.test, sometimes, out)
        _in_order(node.body, True, out)
        _in_order(node.orelse, True, out)
    elif isinstance(node, gast.Compare):
        _in_order(node.left, sometimes, out)
        for i, c in enumerate(node.comparators):
            _in_order(c, sometimes or i > 0, out)
    elif isinstance(node, gast.Dict):
        for k, v in zip(node.keys, node.values):
            if k is not None:
                _in_order(k, sometimes, out)
            _in_order(v, sometimes, out)
    else:
        for child in gast.iter_child_nodes(node):
            _in_order(child, sometimes, out)
    out.append((node, sometimes))
