"""Which variable's shape a statement's value has, given the ranks the ``ranks`` pass inferred.

``ranks`` infers ranks; ``lifetimes`` asks this to know that a value can
reuse its operand's buffer.
"""
import gast
import numpy as np

from . import anno

# Binary operators that broadcast their operands elementwise.
ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.Mod, gast.FloorDiv)


def shape_source(s, ranks):
    """The name whose shape the value of ``s`` has, or None.

    ``z = a * 2.0``, ``z = -a``, ``z = np.exp(a)``, ``z = np.logaddexp(0.0, a)``: an
    elementwise operation on one array ``a`` (of known rank) and scalars gives
    ``a``'s shape, because broadcasting against a scalar changes nothing.
    """
    value = s.value
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
        operands = [value.operand]
    elif isinstance(value, gast.BinOp) and isinstance(value.op, ARITHMETIC):
        operands = [value.left, value.right]
    elif anno.kind(s) == "prim" and isinstance(s.sg_func, np.ufunc) and s.sg_func.signature is None:
        operands = list(s.sg_args.values())
    else:
        return None
    arrays = set()
    for a in operands:
        if isinstance(a, gast.Name) and isinstance(ranks.get(a.id), int):
            if ranks[a.id] > 0:
                arrays.add(a.id)
        elif not (isinstance(a, gast.Constant) and type(a.value) in (int, float)):
            return None  # a list (``lst * 2``), or of unknown rank
    return arrays.pop() if len(arrays) == 1 else None
