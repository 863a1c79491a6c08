"""Rule cases of ``srcgrad/rules/layout.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np


def _pads_by_dict():
    try:
        np.pad(np.ones(2), {0: 1})
    except (TypeError, ValueError):
        return False
    return True


def cases(t):
    C, R, F = t.C, t.R, t.F
    out = [
        # repeat: one count, counts per element, flat, negative axis, 0-d
        C(np.repeat, R(3, 4), 2), C(np.repeat, R(3, 4), 3, axis=0, id="axis0"),
        C(np.repeat, R(3, 4), [1, 0, 3, 2], axis=-1, id="counts"),
        C(np.repeat, R(2, 3), np.array([2, 1, 0, 1, 3, 1]), id="flat-counts"),
        C(np.repeat, R(2, 3), [2], 1, id="one-count-list"),
        C(np.repeat, R(), 3, id="0d"), C(np.repeat, F, 2, id="pyfloat"),
        # tile: fewer, as many and more reps than axes
        C(np.tile, R(3), 2), C(np.tile, R(2, 3), (2, 1, 3), id="promote-array"),
        C(np.tile, R(2, 3, 2), (2, 1), id="promote-reps"), C(np.tile, R(2, 2), [0, 2], id="zero"),
        # roll
        C(np.roll, R(3, 4), 1), C(np.roll, R(3, 4), -2, axis=0, id="axis0"),
        C(np.roll, R(2, 3, 4), (1, -1), (2, 0), id="tuples"),
        C(np.roll, R(2, 3, 4), 5, axis=(-1, 1), id="one-shift-two-axes"),
        C(np.roll, R(2, 3), (1, 2), id="flat-tuple"),
        # pad: every supported mode, widths of every form, pads wider than the array
        C(np.pad, R(3, 4), 1), C(np.pad, R(3, 4), ((1, 2), (0, 3)), id="pairs"),
        C(np.pad, R(3, 4), (2, 1), "constant", constant_values=F, id="value"),
        C(np.pad, R(3, 4), ((1, 2), (2, 1)), constant_values=R(2, 2), id="values"),
        C(np.pad, R(3, 4), ((1, 0), (2, 1)), constant_values=R(2), id="before-after"),
        C(np.pad, R(2, 3), 2, constant_values=R(2, 1), id="per-axis"),
        C(np.pad, R(3, 4), ((1, 2), (3, 0)), "edge", id="edge"),
        C(np.pad, R(3, 4), ((2, 1), (3, 2)), mode="reflect", id="reflect"),
        C(np.pad, R(3, 2), ((5, 4), (3, 3)), mode="reflect", id="reflect-wide"),
        C(np.pad, R(3, 4), ((2, 3), (1, 4)), mode="symmetric", id="symmetric"),
        C(np.pad, R(3, 4), ((2, 1), (0, 5)), "wrap", id="wrap"),
        # (NumPy 2.3's {axis: width}: a crash in the adjoint, hunt 5 bug_09.)
        *([C(np.pad, R(3, 4), {0: 1, -1: (2, 0)}, "edge", id="dict-widths"),
           C(np.pad, R(2, 3), {1: 2}, constant_values=F, id="dict-value")]
          if _pads_by_dict() else []),
        C(np.pad, R(2, 3), ((5, 3), (7, 2)), "wrap", id="wrap-wide"),
        C(np.pad, R(2, 3, 2), [[1, 0], [0, 2], [1, 1]], "edge", id="3d"),
        C(np.pad, R(4), 3, "reflect", reflect_type="even", id="reflect-even"),
        # splits: sections, indices, unsorted indices (overlapping pieces)
        C(np.split, R(6, 2), 3), C(np.split, R(2, 7), [2, 5], axis=1, id="indices"),
        C(np.split, R(7), [5, 2, 3], id="unsorted"), C(np.split, R(7), [-3, 10], id="outside"),
        C(np.array_split, R(7, 2), 3), C(np.array_split, R(2, 3, 5), 2, axis=-1, id="axis"),
        C(np.array_split, R(5), [4, 1], id="unsorted"),
        C(np.hsplit, R(3, 4), 2), C(np.hsplit, R(6), [1, 4], id="1d"),
        C(np.vsplit, R(4, 3), [1]), C(np.dsplit, R(2, 2, 6), 3),
        # diag and diagonal
        C(np.diag, R(3)), C(np.diag, R(3), 1, id="vector-k"),
        C(np.diag, R(3), k=-2, id="vector-k-"),
        C(np.diag, R(3, 3), id="matrix"), C(np.diag, R(3, 5), 1, id="matrix-k"),
        C(np.diag, R(5, 3), -2, id="matrix-k-"), C(np.diag, R(2, 3), 4, id="past-the-corner"),
        C(np.diagonal, R(3, 4)), C(np.diagonal, R(4, 3), -1, id="offset"),
        C(np.diagonal, R(2, 3, 4), 1, 2, 0, id="axes"),
        C(np.diagonal, R(3, 2, 4), offset=-1, axis1=-1, axis2=0, id="negative-axes"),
        # atleast_*: every rank below, at and above
        C(np.atleast_1d, R()), C(np.atleast_1d, R(3), id="1d"), C(np.atleast_1d, F, id="pyfloat"),
        C(np.atleast_2d, R()), C(np.atleast_2d, R(3), id="1d"), C(np.atleast_2d, R(2, 3), id="2d"),
        C(np.atleast_3d, R()), C(np.atleast_3d, R(3), id="1d"), C(np.atleast_3d, R(2, 3), id="2d"),
        C(np.atleast_3d, R(2, 3, 4, 1), id="4d"),
        C(np.atleast_2d, R(3), R(2, 3), id="several"),
        # flips, rotations, axes
        C(np.flipud, R(3, 4)), C(np.flipud, R(3), id="1d"), C(np.fliplr, R(3, 4)),
        C(np.fliplr, R(2, 3, 4), id="3d"),
        C(np.rot90, R(3, 4)), C(np.rot90, R(3, 4), 2, id="k2"), C(np.rot90, R(3, 4), -1, id="k-1"),
        C(np.rot90, R(2, 3, 4), 3, (2, 0), id="axes"),
        C(np.rot90, R(2, 3, 4), k=1, axes=(-1, -2), id="negative-axes"),
        C(np.rollaxis, R(2, 3, 4), 2), C(np.rollaxis, R(2, 3, 4), 0, 3, id="to-end"),
        C(np.rollaxis, R(2, 3, 4, 5), -1, start=1, id="negative"),
        C(np.rollaxis, R(2, 3, 4), 1, -1, id="negative-start"),
        # joins
        C(np.column_stack, [R(3), R(3, 2), R(3)]), C(np.column_stack, (R(2, 3), R(2, 1)), id="2d"),
        C(np.column_stack, [F, F], id="scalars"),
        C(np.column_stack, [R(3, 2, 2), R(3, 1, 2)], id="3d"),
        C(np.column_stack, R(2, 4), id="ndarray"),
        C(np.dstack, [R(3), R(3)]), C(np.dstack, [R(2, 3), R(2, 3, 2)], id="2d-3d"),
        C(np.dstack, (F, R(1)), id="scalars"), C(np.dstack, R(2, 3, 4), id="ndarray"),
        C(np.append, R(3), R(2)), C(np.append, R(2, 3), R(4), id="flat"),
        C(np.append, R(2, 3), F, id="scalar"),
        C(np.append, R(2, 3), R(2, 2), axis=1, id="axis1"),
        C(np.append, R(2, 3), R(1, 3), axis=-2, id="axis-2"),
    ]
    if hasattr(np, "row_stack"):  # deprecated (it warns when called), then removed
        out += [C(np.row_stack, [R(3), R(2, 3)]), C(np.row_stack, (R(3), R(3)), id="vectors")]
    return out
