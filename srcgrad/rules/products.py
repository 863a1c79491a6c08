"""Products: ``matmul``/``@``, ``dot``, ``outer``, ``inner``, ``tensordot``, ``einsum``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
"""
import numpy as np

from ..runtime import adjoints as _h
from .entry import Rule


def _by_rank(p1, p2):
    return {
        (2, 2): {p1: f"g @ {p2}.T", p2: f"{p1}.T @ g"},
        (2, 1): {p1: f"np.outer(g, {p2})", p2: f"g @ {p1}"},
        (1, 2): {p1: f"{p2} @ g", p2: f"np.outer({p1}, g)"},
        (1, 1): {p1: f"g * {p2}", p2: f"g * {p1}"},
    }


def _by_rank_rows(p1, p2):
    """``_by_rank`` written so that ``g``'s extra leading axis of seed rows broadcasts."""
    return {
        (2, 2): {p1: f"g @ {p2}.T", p2: f"{p1}.T @ g"},
        (2, 1): {p1: f"np.expand_dims(g, -1) * {p2}", p2: f"g @ {p1}"},
        (1, 2): {p1: f"g @ {p2}.T", p2: f"np.expand_dims({p1}, -1) * np.expand_dims(g, -2)"},
        (1, 1): {p1: f"np.expand_dims(g, -1) * {p2}", p2: f"np.expand_dims(g, -1) * {p1}"},
    }


_INNER = "_sg.einsum_slot_grad(g, _sg.inner_subscripts(np.ndim(a), np.ndim(b)), [a, b], {})"
_TENSORDOT = ("_sg.einsum_slot_grad(g, _sg.tensordot_subscripts(np.ndim(a), np.ndim(b), axes), "
              "[a, b], {})")

TABLE = {
    # Operands of known ranks (``passes/ranks.py``) get ``by_rank``: each grad
    # already has its operand's shape (matrices and vectors do not broadcast in
    # a product), so it needs no helper and no ``_sg.unbroadcast``.
    np.matmul: Rule("x1, x2", broadcast=True, rank="product",
                    by_rank=_by_rank("x1", "x2"), by_rank_rows=_by_rank_rows("x1", "x2"),
                    x1="_sg.matmul_grad_x1(g, x1, x2)", x2="_sg.matmul_grad_x2(g, x1, x2)"),
    np.dot: Rule("a, b, out=None", broadcast=True, rank="product",
                 by_rank=_by_rank("a", "b"), by_rank_rows=_by_rank_rows("a", "b"),
                 a="_sg.dot_grad(g, a, b, 0)", b="_sg.dot_grad(g, a, b, 1)"),
    np.outer: Rule("a, b, out=None",
                   a="_sg.reshape_like(np.matmul(g, np.ravel(b)), a)",
                   b="_sg.reshape_like(np.matmul(np.ravel(a), g), b)",
                   rows={"a": "_sg.reshape_rows(np.matmul(g, np.ravel(b)), a)",
                         "b": "_sg.reshape_rows(np.matmul(np.ravel(a), g), b)"}),
    np.inner: Rule("a, b", a=_INNER.format(0), b=_INNER.format(1)),
    # sum(conj(a) * b) of the flattened arrays: anti-holomorphic in a (its adjoint is
    # conj(g) b, rules/complexes.py's convention), holomorphic in b.
    np.vdot: Rule("a, b", a="_sg.reshape_like(np.conj(g) * np.ravel(b), a)",
                  b="_sg.reshape_like(g * np.ravel(a), b)",
                  rows={"a": "_sg.reshape_rows(np.expand_dims(np.conj(g), -1) * np.ravel(b), a)",
                        "b": "_sg.reshape_rows(np.expand_dims(g, -1) * np.ravel(a), b)"}),
    np.tensordot: Rule("a, b, axes=2", a=_TENSORDOT.format(0), b=_TENSORDOT.format(1)),
    np.einsum: Rule("subscripts, *operands, out=None, dtype=None, order='K', casting='safe', "
                    "optimize=False",
                    operands="_sg.einsum_grad(g, subscripts, operands)"),
    _h.einsum_list: Rule("subscripts, operands",
                         operands="_sg.einsum_grad(g, subscripts, operands)"),
}
