"""Grad expressions for adjoints with a leading axis of seed rows (``tape.jacobian``).

A rule's grad expression (``entry.Rule``) is written for one adjoint
``g``. ``jacobian`` seeds the backward pass with all rows of the identity at
once, so there ``g`` has one more, leading, axis. ``row_form`` gives the
expression to use then:

- elementwise expressions (``g`` only under arithmetic and ``np.where``) are
  used as written: NumPy broadcasting aligns shapes from the right, so the
  extra leading axis passes through;
- helpers that move, reshape or reduce axes are swapped for their ``*_rows``
  twins in ``runtime/rows.py``, and the few expressions that spell out NumPy
  calls on ``g`` have a row form written in their entry (``Rule.rows``);
- anything else is run once per row (``_sg.each_row``): correct, only slower.
  ``tests/test_jacobian.py`` checks that no rule of the table falls here.
"""
import copy
from functools import lru_cache

import gast

from ..ir import templates as T
from ..ir.atoms import is_sg_call
from ..runtime import rows as batched

# Helpers whose row twin takes the same arguments.
_TWINS = {
    "sum_grad": "sum_grad_rows", "cumsum_grad": "cumsum_rows", "trace_grad": "trace_rows",
    "dot_grad": "dot_rows", "einsum_grad": "einsum_rows", "einsum_slot_grad": "einsum_slot_rows",
    "split_grad": "split_rows", "stack_grad": "stack_rows", "array_grad": "array_rows",
    "linspace_grad": "linspace_rows", "builtin_sum_grad": "builtin_sum_rows",
    "reshape_like": "reshape_rows", "sum_to": "unbroadcast_rows", "unbroadcast": "unbroadcast_rows",
    "transpose_grad": "transpose_rows", "broadcast_like": "broadcast_rows",
    "zero_at": "zero_at_rows", "from_list": "from_list_rows", "norm_grad": "norm_rows",
}

# Helpers that already work on rows: they only use ``grad`` elementwise or
# through matmul/solve with negative axes, which broadcast over leading axes.
_ROW_SAFE = frozenset(batched.__all__) | {
    "clip_grad", "clip_bound_grad", "matmul_grad_x1", "matmul_grad_x2", "solve_grad_a",
    "solve_grad_b", "det_grad", "log_grad", "hypot_grad", "real_grad", "repeat_grad",
    "ieee_divide",
}


def row_form(text, written=None):
    """``(expression, per_row)`` for grad expression ``text`` applied to rows of ``g``.

    ``written``: the entry's own row form of this grad (``Rule.rows``), used as it
    is. ``per_row`` True means the expression must be applied to each row apart.
    """
    if written is not None:
        return written, False
    return _derived(text)


@lru_cache(maxsize=None)
def _derived(text):
    tree = copy.deepcopy(T._parse(text)[0].value)  # the parse is cached and shared
    for node in gast.walk(tree):
        if is_sg_call(node) and node.func.attr in _TWINS:
            node.func.attr = _TWINS[node.func.attr]
    new = gast.unparse(tree).strip()
    return new, not _rows_pass_through(tree)


def _is_np_where(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and isinstance(node.func.value, gast.Name) and node.func.value.id == "np" \
        and node.func.attr == "where"


def _rows_pass_through(tree):
    """Every path from the root to a ``g`` keeps the leading axis of ``g`` leading."""
    def ok(node):
        if isinstance(node, gast.Name):
            return True  # ``g`` itself, or a forward value
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            return ok(node.left) and ok(node.right)
        if isinstance(node, gast.UnaryOp):
            return ok(node.operand)
        if not _uses_g(node):
            return True
        if _is_np_where(node):
            return not _uses_g(node.args[0]) and all(ok(a) for a in node.args[1:])
        if is_sg_call(node) and node.func.attr in _ROW_SAFE:
            return ok(node.args[0]) and not any(_uses_g(a) for a in node.args[1:]) \
                and not node.keywords
        return False

    return ok(tree)


def _uses_g(node):
    return any(isinstance(n, gast.Name) and n.id == "g" for n in gast.walk(node))
