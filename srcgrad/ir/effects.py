"""Which statements have no effect but binding their target: safe to drop or to run again.

``cleanup`` drops such statements when nothing reads their value;
``recompute`` runs them again in the backward pass instead of saving them.
"""
import gast

from . import anno


# Statement kinds (anno.py) whose only effect is to bind their target.
_PURE = ("copy", "prim", "getitem", "literal")


def simple(node):
    """An expression of names and constants only: ``0.0``, ``x``, ``i + 1``, ``(a, b)``."""
    if isinstance(node, (gast.Constant, gast.Name)):
        return True
    if isinstance(node, gast.BinOp):
        return simple(node.left) and simple(node.right)
    if isinstance(node, gast.UnaryOp):
        return simple(node.operand)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(simple(e) for e in node.elts)
    return False


def pure_assignment(s):
    """``name = value`` where computing ``value`` has no effect but the result."""
    if not isinstance(s, gast.Assign) or not all(isinstance(t, gast.Name) for t in s.targets):
        return False
    if simple(s.value):
        return True
    if anno.kind(s) not in _PURE:
        return False
    out = getattr(s, "sg_args", {}).get("out")  # np.add(a, b, out=c) writes to c
    return out is None or isinstance(out, gast.Constant) and out.value is None
