"""Where elements go: repeat, tile, roll, pad, splits, diagonals, atleast_*, flips and rotations, stacks, append.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
Helpers the grad expressions call live in ``runtime/layout.py``; their last
argument is the number of leading axes of seed rows on ``g`` (1 in ``rows``,
the forms ``tape.jacobian`` uses).

Each of these functions copies elements to new places, so each adjoint sends
every item of ``g`` back to the element it came from, copies adding up.

- ``pad``: differentiable in ``array`` for the modes ``constant``, ``edge``,
  ``reflect``, ``symmetric`` and ``wrap`` (``reflect_type='even'``), and in
  ``constant_values``; other modes are refused when the adjoint runs.
- The splits return a list: ``g`` is the list of the pieces' adjoints (zeros
  for pieces not used). ``atleast_*`` of several arrays likewise.
- ``row_stack`` is NumPy's deprecated alias of ``vstack`` (gone after NumPy 2.x).
"""
import numpy as np

from ..runtime import layout as _rt
from .entry import Rule


def _rule(signature, *, rank=None, view=False, **grads):
    """A Rule whose grads call helpers ending in ``{lead}``: 0 in its grads, 1 in its row
    forms."""
    return Rule(signature, rank=rank, view=view,
                rows={p: t.format(lead=1) for p, t in grads.items()},
                **{p: t.format(lead=0) for p, t in grads.items()})


def _split(kind, with_axis=True):
    """The rule of a split (``kind`` names it); ``hsplit`` and the like fix the axis."""
    signature = "ary, indices_or_sections" + (", axis=0" if with_axis else "")
    axis = "axis" if with_axis else "None"
    return _rule(signature, view=True,
                 ary=f"_sg.split_pieces_grad(g, ary, indices_or_sections, {axis}, '{kind}', "
                     "{lead})")


def _atleast():
    return _rule("*arys", view=True, arys="_sg.atleast_grad(g, arys, {lead})")


_STACK_HV = "tup, *, dtype=None, casting='same_kind'"
_PAD = ("array, pad_width, mode='constant', *, constant_values=0, end_values=0, "
        "reflect_type='even', stat_length=None")

TABLE = {
    np.repeat: _rule("a, repeats, axis=None", a="_sg.repeat_array_grad(g, a, repeats, axis, {lead})"),
    np.tile: _rule("A, reps", A="_sg.tile_grad(g, A, reps, {lead})"),
    np.roll: _rule("a, shift, axis=None", rank="same",
                   a="_sg.roll_grad(g, a, shift, axis, {lead})"),
    np.pad: _rule(_PAD, rank="same",
                  array="_sg.pad_grad(g, array, pad_width, mode, reflect_type, {lead})",
                  constant_values="_sg.pad_constant_grad(g, array, pad_width, mode, "
                                  "constant_values, {lead})"),
    np.split: _split("split"),
    np.array_split: _split("array_split"),
    np.hsplit: _split("hsplit", with_axis=False),
    np.vsplit: _split("vsplit", with_axis=False),
    np.dsplit: _split("dsplit", with_axis=False),
    # 1-d -> a matrix (a copy); 2-d -> its diagonal (a read-only view).
    np.diag: _rule("v, k=0", view=True, v="_sg.diag_grad(g, v, k, {lead})"),
    np.diagonal: _rule("a, offset=0, axis1=0, axis2=1", view=True,
                       a="_sg.diagonal_grad(g, a, offset, axis1, axis2, {lead})"),
    # They return the argument itself when it has dimensions enough.
    np.atleast_1d: _atleast(),
    np.atleast_2d: _atleast(),
    np.atleast_3d: _atleast(),
    np.flipud: Rule("m", rank="same", view=True, m="np.flipud(g)",
                    rows={"m": "_sg.flip_rows(g, 0)"}),
    np.fliplr: Rule("m", rank="same", view=True, m="np.fliplr(g)",
                    rows={"m": "_sg.flip_rows(g, 1)"}),
    np.rot90: _rule("m, k=1, axes=(0, 1)", rank="same", view=True,
                    m="_sg.rot90_grad(g, m, k, axes, {lead})"),
    np.rollaxis: _rule("a, axis, start=0", rank="same", view=True,
                       a="_sg.rollaxis_grad(g, a, axis, start, {lead})"),
    np.column_stack: _rule("tup", tup="_sg.joined_grad(g, tup, 'column_stack', {lead})"),
    np.dstack: _rule("tup", tup="_sg.joined_grad(g, tup, 'dstack', {lead})"),
    np.append: _rule("arr, values, axis=None",
                     arr="_sg.append_grad(g, arr, values, axis, 0, {lead})",
                     values="_sg.append_grad(g, arr, values, axis, 1, {lead})"),
}
if hasattr(np, "row_stack"):  # vstack's own rule; split_grad has a row twin
    TABLE[np.row_stack] = Rule(_STACK_HV, tup="_sg.split_grad(g, tup, None, 'vstack')")

# ndarray methods -> (function, "plain" or "shape"), as ``table.METHODS``.
METHODS = {"repeat": (np.repeat, "plain"), "diagonal": (np.diagonal, "plain")}
# Array attributes -> the function they stand for, as ``table.ATTRIBUTES``.
ATTRIBUTES = {}
# Called freely, never differentiated, as ``table.NONDIFF``.
NONDIFF = {_rt.along_axis, _rt.inverse_map, _rt.lead_axes, _rt.negated, _rt.repeat_plan,
           _rt.tile_plan, _rt.pad_pairs, _rt.pad_interior, _rt.pad_maps, _rt.pad_owners,
           _rt.split_plan, _rt.diagonal_plan, _rt.rollaxis_plan, _rt.joined_offsets,
           _rt.append_plan, _rt.meshgrid_shapes, _rt.insert_index, _rt.delete_index,
           _rt.resize_index, _rt.broadcast_shape_of, _rt.unwrapped, _rt.arange_values,
           _rt.choose_index, _rt.compress_index, _rt.trim_zeros_slice, _rt.poly_zeros_dtype}
