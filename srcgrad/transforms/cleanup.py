"""Clean-up of generated backward code: dead adjoints and trivial arithmetic.

- An adjoint assigned and never read again (a zero made for a branch join
  that nothing after it consumes, an adjoint reset at the end of a loop body
  that the next iteration overwrites) is dropped, by a liveness pass over the
  structured code.
- ``g * 1.0``, ``1.0 * g``, ``g / 1`` and ``--g`` are simplified.

Only assignments to adjoint variables are ever removed: forward code, and any
statement with an effect, stays.

Before/after::

    dy = dz * 1.0           dy = dz
    dz = _sg.zeros_like(z)  (dropped: dz is not read again)
"""
import gast

from .. import templates as T


def _is_one(node):
    return isinstance(node, gast.Constant) and not isinstance(node.value, bool) \
        and isinstance(node.value, (int, float)) and node.value == 1


def _num(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    return None


_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


class _Peephole(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _num(node.left), _num(node.right)
        if a is not None and b is not None and type(node.op) in _FOLD:
            return gast.Constant(_FOLD[type(node.op)](a, b), None)
        if isinstance(node.op, gast.Pow) and _is_one(node.right):
            return node.left
        if isinstance(node.op, gast.Mult):
            if _is_one(node.right):
                return node.left
            if _is_one(node.left):
                return node.right
        if isinstance(node.op, gast.Div) and _is_one(node.right):
            return node.left
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.USub) and isinstance(node.operand, gast.UnaryOp) \
                and isinstance(node.operand.op, gast.USub):
            return node.operand.operand
        return node


def _uses(node):
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _defs(stmt):
    return {n.id for t in getattr(stmt, "targets", []) for n in T.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


class _Liveness:
    def __init__(self, removable):
        self.removable = removable

    def block(self, stmts, live, prune):
        """Live names before ``stmts`` given ``live`` after; drops dead adjoints if ``prune``."""
        kept = []
        for s in reversed(stmts):
            if isinstance(s, gast.If):
                then_live = self.block(s.body, set(live), prune)
                else_live = self.block(s.orelse, set(live), prune)
                if prune:
                    s.body = s.body or [gast.Pass()]
                live = then_live | else_live | _uses(s.test)
            elif isinstance(s, (gast.For, gast.While)):
                loop_live = set(live)
                while True:
                    body_live = self.block(s.body, set(loop_live), False)
                    new = loop_live | body_live
                    if new == loop_live:
                        break
                    loop_live = new
                if prune:
                    self.block(s.body, set(loop_live), True)
                    s.body = s.body or [gast.Pass()]
                head = s.iter if isinstance(s, gast.For) else s.test
                live = loop_live | _uses(head)
            elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) \
                    and s.targets[0].id in self.removable and s.targets[0].id not in live:
                if not prune:
                    continue
                continue  # a dead adjoint: drop it
            else:
                live = (live - _defs(s)) | _uses(s)
            kept.append(s)
        if prune:
            stmts[:] = kept[::-1]
        return live


def _tidy(stmts):
    """Drop comments left with nothing under them and empty ifs; keep blocks non-empty."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _tidy(s.body)
            s.orelse = _tidy(s.orelse) if isinstance(s, gast.If) else s.orelse
            if isinstance(s, gast.If) and not _real(s.body) and not _real(s.orelse):
                continue
            s.body = s.body or [gast.Pass()]
        out.append(s)
    kept = []
    for i, s in enumerate(out):
        if getattr(s, "sg_comment", False) and not any(
                not getattr(n, "sg_comment", False) for n in out[i + 1:i + 2]):
            continue
        kept.append(s)
    return kept


def _real(stmts):
    return any(not getattr(s, "sg_comment", False) and not isinstance(s, gast.Pass) for s in stmts)


def cleanup(backward, adjoint_names, live_after):
    """Simplify ``backward`` (a statement list) in place; returns it."""
    peep = _Peephole()
    backward[:] = [peep.visit(s) for s in backward]
    _Liveness(set(adjoint_names)).block(backward, set(live_after), True)
    backward[:] = _tidy(backward)
    return backward
