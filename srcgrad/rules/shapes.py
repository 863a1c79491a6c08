"""Shape operations, copies, conversions and constructors of arrays.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
``view=True``: NumPy may return a view of the first argument (the alias
analysis, ``ir/aliasing.py``, treats the binding as sharing). A cast to a
non-floating dtype (``astype(int)``, ``np.array(x, dtype=int)``) has a zero
adjoint.
"""
import numpy as np

from ..runtime import adjoints as _h
from .entry import Rule

_CONCAT = "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'"
_STACK_HV = "tup, *, dtype=None, casting='same_kind'"
_ARRAY = "object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0, like=None"
_ASARRAY = "a, dtype=None, order=None, *, device=None, copy=None, like=None"
# (Read back in the order the reshape read ``a``: ``'A'`` and ``'K'`` follow its memory
# layout; hunt 5 A2: a Fortran-ordered array's gradient came back permuted.)
_RESHAPE_BACK = "np.reshape(g, np.shape(a), order=_sg.memory_order(a, order))"
_RESHAPE_ROWS = {"a": "_sg.reshape_rows(g, a, _sg.memory_order(a, order))"}


def _reshaped(signature, **fields):
    """A rule whose adjoint reshapes ``g`` back to ``a``'s shape."""
    return Rule(signature, a=_RESHAPE_BACK, rows=_RESHAPE_ROWS, **fields)

# Acts on the last two axes: already right for seed rows.
_MATRIX_TRANSPOSE = "np.matrix_transpose(g)"


TABLE = {
    # ---- shape
    np.reshape: _reshaped("a, shape=None, order='C', *, copy=None", view=True),
    np.ravel: _reshaped("a, order='C'", view=True),
    _h.flatten: _reshaped("a, order='C'"),
    np.transpose: Rule("a, axes=None", rank="same", view=True, a="_sg.transpose_grad(g, axes)"),
    np.matrix_transpose: Rule("x", rank="same", view=True, x=_MATRIX_TRANSPOSE,
                              rows={"x": _MATRIX_TRANSPOSE}),
    np.linalg.matrix_transpose: Rule("x", view=True, x=_MATRIX_TRANSPOSE,
                                     rows={"x": _MATRIX_TRANSPOSE}),
    np.swapaxes: Rule("a, axis1, axis2", rank="same", view=True,
                      a="np.swapaxes(g, axis1, axis2)",
                      rows={"a": "_sg.swapaxes_rows(g, axis1, axis2)"}),
    np.moveaxis: Rule("a, source, destination", view=True,
                      a="np.moveaxis(g, destination, source)",
                      rows={"a": "_sg.moveaxis_rows(g, source, destination)"}),
    np.expand_dims: Rule("a, axis", view=True, a="np.reshape(g, np.shape(a))",
                         rows={"a": "_sg.reshape_rows(g, a)"}),
    np.squeeze: Rule("a, axis=None", view=True, a="np.reshape(g, np.shape(a))",
                     rows={"a": "_sg.reshape_rows(g, a)"}),
    np.broadcast_to: Rule("array, shape, subok=False", view=True, array="_sg.sum_to(g, array)"),
    _h.broadcast_to: Rule("array, shape", view=True, array="_sg.sum_to(g, array)"),
    np.flip: Rule("m, axis=None", rank="same", view=True, m="np.flip(g, axis)",
                  rows={"m": "_sg.flip_rows(g, axis)"}),
    np.triu: Rule("m, k=0", m="np.triu(g, k)", rows={"m": "np.triu(g, k)"}),
    np.tril: Rule("m, k=0", m="np.tril(g, k)", rows={"m": "np.tril(g, k)"}),
    np.concatenate: Rule(_CONCAT, arrays="_sg.split_grad(g, arrays, axis, 'concatenate')"),
    np.hstack: Rule(_STACK_HV, tup="_sg.split_grad(g, tup, None, 'hstack')"),
    np.vstack: Rule(_STACK_HV, tup="_sg.split_grad(g, tup, None, 'vstack')"),
    # np.r_[a, b] and np.c_[a, b] (normalize rewrites the subscript to these)
    _h.join_r: Rule("items", items="_sg.split_grad(g, items, 0, 'r_')"),
    _h.join_c: Rule("items", items="_sg.split_grad(g, items, -1, 'c_')"),
    np.stack: Rule("arrays, axis=0, out=None, *, dtype=None, casting='same_kind'",
                   arrays="_sg.stack_grad(g, arrays, axis)"),
    # ---- copies, conversions, constructors
    np.copy: Rule("a, order='K', subok=False", rank="same", a="g"),
    np.array: Rule(_ARRAY, rank="from_list",
                   object="_sg.array_grad(_sg.real_grad(g, ans), object)"),
    np.asarray: Rule(_ASARRAY, rank="from_list", view=True,
                     a="_sg.array_grad(_sg.real_grad(g, ans), a)"),
    # (A list or tuple operand of a grad expression read as an array, rules/entry.py.)
    _h.arrayed: Rule("a", rank="from_list", view=True, a="_sg.array_grad(_sg.real_grad(g, ans), a)"),
    _h.astype: Rule("a, dtype, order='K', casting='unsafe', subok=True, copy=True",
                    a="_sg.reshape_like(_sg.real_grad(g, ans), a)"),
    _h.item: Rule("a, *index", nograd={"index"}, a="_sg.item_grad(g, a, index)",
                  rows={"a": "_sg.item_grad(g, a, index, 1)"}),
    np.float64: Rule("x=0.0", x="_sg.reshape_like(g, x)"),
    np.full: Rule("shape, fill_value, dtype=None, order='C', *, device=None, like=None",
                  fill_value="_sg.sum_to(_sg.real_grad(g, ans), fill_value)"),
    np.full_like: Rule("a, fill_value, dtype=None, order='K', subok=True, shape=None, *, "
                       "device=None", nograd={"a"},
                       fill_value="_sg.sum_to(_sg.real_grad(g, ans), fill_value)"),
    np.linspace: Rule("start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, "
                      "device=None",
                      start="_sg.linspace_grad(g, start, num, endpoint, axis, 0, retstep)",
                      stop="_sg.linspace_grad(g, stop, num, endpoint, axis, 1, retstep)"),
}
