"""The layout rules in differentiated code (``srcgrad/rules/layout.py``): repeat, tile, roll,
pad, the splits, diag/diagonal, atleast_*, flips and rotations, rollaxis, the stacks and
append, as functions (positional and keyword arguments) and as methods.

Each program is checked against central differences to second order, its value and
gradient from ``value_and_grad`` and a tape against ``grad``, and ``tape.jacobian``
(the rules' row forms) against central differences. Then gradients by value, the
aliases the views make, and what is refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_forms_agree, fd_jacobian

pytestmark = pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated")

RNG = np.random.default_rng(11)
W = RNG.normal(size=(8, 8))
V = RNG.normal(size=16)


def weights(shape):
    """Fixed weights for a result of ``shape`` (so that every element counts differently)."""
    return np.reshape(np.cos(np.arange(np.prod(shape)) * 0.7 + 0.3), shape)


# -- repeat and tile -------------------------------------------------------------------

def repeat_flat(x):
    return np.sum(np.sin(np.repeat(x, 2)) * V)


def repeat_axis_keywords(X):
    return np.sum(np.repeat(X, repeats=[2, 0, 1], axis=0) ** 2 * W[:3, :4])


def repeat_counts_last_axis(X):
    return np.sum(np.tanh(np.repeat(X * X, [1, 3, 0, 2], axis=-1)) * W[:3, :6])


def repeat_method(X):
    return np.sum(np.exp(X.repeat(2, axis=0)) * W[:6, :4]) + np.sum(X.repeat(3) * V[:1])


def tile_promote(x):
    return np.sum(np.tile(x * x, (2, 3)) * W[:2, :6])


def tile_keywords(X):
    return np.sum(np.sin(np.tile(A=X, reps=2)) * W[:3, :8])


# -- roll -------------------------------------------------------------------------------

def roll_flat(X):
    return np.sum(np.roll(X, 5) ** 2 * W[:3, :4])


def roll_axes(X):
    return np.sum(np.sin(np.roll(X, shift=(1, -2), axis=(0, 1))) * W[:3, :4])


def roll_one_axis(x):
    return np.sum(np.roll(np.sin(x), -1, axis=0) * x)


# -- pad --------------------------------------------------------------------------------

def pad_constant(X):
    return np.sum(np.pad(X, ((1, 2), (0, 3)), constant_values=X[0, 0] * 2.0) ** 2 * W[:6, :7])


def pad_constant_pairs(X, c):
    return np.sum(np.sin(np.pad(X, 1, "constant", constant_values=c)) * W[:5, :6])


def pad_edge(X):
    return np.sum(np.pad(np.sin(X), ((2, 1), (1, 3)), mode="edge") * W[:6, :8])


def pad_reflect(X):
    return np.sum(np.pad(X, ((2, 2), (3, 1)), mode="reflect") ** 2 * W[:7, :8])


def pad_symmetric(X):
    return np.sum(np.tanh(np.pad(X, (1, 2), "symmetric")) * W[:6, :7])


def pad_wrap_wide(x):
    return np.sum(np.pad(x * x, (7, 5), mode="wrap") * V[:15])


# -- splits -----------------------------------------------------------------------------

def split_unpacked(X):
    a, b, c = np.split(X, 3, axis=1)
    return np.sum(np.sin(a) * c)  # b unused: its adjoint is zeros


def split_indices(x):
    parts = np.split(x, [2, 5])
    return np.sum(parts[0] ** 2) + np.sum(np.exp(parts[2]) * parts[1][0])


def split_unsorted(x):
    parts = np.split(x, indices_or_sections=[4, 2], axis=0)  # parts[2] overlaps parts[0]
    return np.sum(parts[0] ** 3) + np.sum(np.sin(parts[2]) * V[:4])


def array_split_uneven(X):
    parts = np.array_split(X, 3, axis=0)
    return np.sum(parts[0] ** 2) + np.sum(parts[1] * parts[2][:1])


def hsplit_vsplit_dsplit(X):
    left, right = np.hsplit(X, 2)
    top, bottom = np.vsplit(X, [1])
    front, back = np.dsplit(np.reshape(X, (2, 2, 3)), [1])
    return np.sum(left * right) + np.sum(np.sin(bottom)) + np.sum(front * back[..., :1]) \
        + np.sum(top ** 2)


# -- diagonals --------------------------------------------------------------------------

def diag_both_ways(X):
    d = np.diag(X)  # matrix -> its diagonal
    return np.sum(np.diag(d * d, 1) * W[:5, :5]) + np.sum(np.diag(X, k=-1) ** 3)


def diag_of_a_vector(x):
    return np.sum(np.sin(np.diag(x, -2)) * W[:6, :6])


def diagonal_offset_axes(A):
    return np.sum(np.diagonal(A, offset=1, axis1=2, axis2=0) ** 2 * W[:3, :1])


def diagonal_method(X):
    return np.sum(np.exp(X.diagonal(1))) + np.sum(X.diagonal()[:2] * X.diagonal(-1))


# -- atleast_*, flips and rotations, axes -----------------------------------------------

def atleast_ranks(x):
    s = np.sum(x * x)
    return np.sum(np.atleast_1d(s) * 2.0) + np.sum(np.atleast_2d(x) * W[:1, :4]) \
        + np.sum(np.atleast_3d(np.outer(x, x)) ** 2 * weights((4, 4, 1)))


def flips(X):
    return np.sum(np.flipud(X) * W[:3, :4]) + np.sum(np.fliplr(np.sin(X)) ** 2 * W[3:6, :4])


def rot90_forms(X):
    return np.sum(np.rot90(X) * W[:4, :3]) + np.sum(np.rot90(X * X, 2) * W[:3, 4:8]) \
        + np.sum(np.sin(np.rot90(X, k=-1, axes=(1, 0))) * W[2:6, 5:8])


def rot90_3d(A):
    return np.sum(np.rot90(A, 3, axes=(-1, 0)) ** 2 * weights((4, 3, 2)))


def rollaxis_forms(A):
    return np.sum(np.rollaxis(A, 2) * weights((4, 2, 3))) \
        + np.sum(np.rollaxis(A, axis=0, start=3) ** 2 * weights((3, 4, 2)))


# -- stacks and append ------------------------------------------------------------------

def column_stack_mixed(x):
    M = np.column_stack([x, np.outer(x, x[:2]), np.sin(x)])
    return np.sum(M ** 2 * W[:4, :4])


def row_stack_rows(x):
    M = np.row_stack([x, x * x, np.cos(x)])  # (its DeprecationWarning: pytestmark)
    return np.sum(M * W[:3, :4])


def dstack_mixed(X):
    D = np.dstack([X, X * X, np.tanh(X)])
    return np.sum(np.sin(D) * weights((3, 4, 3)))


def append_flat(X):
    return np.sum(np.append(X, X[0, 0] * 3.0) ** 2 * V[:13])


def append_axis(X):
    both = np.append(X, np.sin(X[:1]), axis=0)
    return np.sum(both * W[:4, :4]) + np.sum(np.append(X, values=X * X, axis=1) * W[:3, :8])


def append_list(x):
    return np.sum(np.append(x, [x[0] * 2.0, 1.0]) ** 2 * V[:6])


X34 = RNG.normal(size=(3, 4))
CASES = [
    (repeat_flat, (RNG.normal(size=8),)),
    (repeat_axis_keywords, (RNG.normal(size=(3, 4)),)),
    (repeat_counts_last_axis, (RNG.normal(size=(3, 4)),)),
    (repeat_method, (RNG.normal(size=(3, 4)),)),
    (tile_promote, (RNG.normal(size=2),)),
    (tile_keywords, (RNG.normal(size=(3, 4)),)),
    (roll_flat, (RNG.normal(size=(3, 4)),)),
    (roll_axes, (RNG.normal(size=(3, 4)),)),
    (roll_one_axis, (RNG.normal(size=5),)),
    (pad_constant, (RNG.normal(size=(3, 4)),)),
    (pad_constant_pairs, (RNG.normal(size=(3, 4)), RNG.normal(size=(2, 2)))),
    (pad_edge, (RNG.normal(size=(3, 4)),)),
    (pad_reflect, (RNG.normal(size=(3, 4)),)),
    (pad_symmetric, (RNG.normal(size=(3, 4)),)),
    (pad_wrap_wide, (RNG.normal(size=3),)),
    (split_unpacked, (RNG.normal(size=(2, 6)),)),
    (split_indices, (RNG.normal(size=7),)),
    (split_unsorted, (RNG.normal(size=6),)),
    (array_split_uneven, (RNG.normal(size=(5, 2)),)),
    (hsplit_vsplit_dsplit, (RNG.normal(size=(2, 6)),)),
    (diag_both_ways, (RNG.normal(size=(4, 4)),)),
    (diag_of_a_vector, (RNG.normal(size=4),)),
    (diagonal_offset_axes, (RNG.normal(size=(2, 3, 4)),)),
    (diagonal_method, (RNG.normal(size=(3, 4)),)),
    (atleast_ranks, (RNG.normal(size=4),)),
    (flips, (RNG.normal(size=(3, 4)),)),
    (rot90_forms, (RNG.normal(size=(3, 4)),)),
    (rot90_3d, (RNG.normal(size=(2, 3, 4)),)),
    (rollaxis_forms, (RNG.normal(size=(2, 3, 4)),)),
    (column_stack_mixed, (RNG.normal(size=4),)),
    (dstack_mixed, (RNG.normal(size=(3, 4)),)),
    (append_flat, (RNG.normal(size=(3, 4)),)),
    (append_axis, (RNG.normal(size=(3, 4)),)),
    (append_list, (RNG.normal(size=4),)),
]
if hasattr(np, "row_stack"):
    CASES.append((row_stack_rows, (RNG.normal(size=4),)))
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_finite_differences_to_second_order(f, args, check_second_order):
    check_second_order(f, args)  # check_grads(order=2), one compile per gradient: conftest.py


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_value_and_grad_and_a_tape_agree_with_grad(f, args):
    assert_forms_agree(f, args, nonzero=True)


# -- tape.jacobian: every row at once, through the rules' row forms -----------------

def _rows_copies(X):
    return np.concatenate([
        np.repeat(X, 2).ravel(), np.repeat(X, [1, 0, 2], axis=0).ravel(),
        np.tile(X * X, (2, 1, 2)).ravel(), np.roll(X, 2).ravel(),
        np.roll(X, (1, 1), axis=(0, -1)).ravel()])


def _rows_pads(X):
    return np.concatenate([
        np.pad(X, ((1, 0), (2, 1)), constant_values=X[1, 1]).ravel(),
        np.pad(X, 2, "edge").ravel(), np.pad(X, ((3, 1), (1, 2)), "reflect").ravel(),
        np.pad(X, 1, "symmetric").ravel(), np.pad(X, (4, 5), "wrap").ravel()])


def _rows_pieces(X):
    a, b = np.split(X, 2, axis=1)
    c = np.array_split(X, [2, 1])  # c[2] overlaps c[0]
    d = np.dsplit(np.reshape(X, (3, 2, 2)), 2)
    return np.concatenate([(a * 2.0).ravel(), c[0].ravel(), c[2].ravel(), np.sin(d[1]).ravel(),
                           np.hsplit(X[0], [1])[1], np.vsplit(X, [1])[1].ravel()])


def _rows_diagonals(X):
    return np.concatenate([np.diag(X), np.diag(X, 1), np.diag(X[0], -1).ravel(),
                           np.diagonal(np.reshape(X, (3, 2, 2)), 0, 2, 0).ravel(),
                           X.diagonal(-1)])


def _rows_axes(X):
    parts = [np.atleast_1d(X[0, 0]), np.atleast_2d(X[0]), np.atleast_3d(X), np.flipud(X),
             np.fliplr(X * X), np.rot90(X), np.rot90(X, -1, (1, 0)),
             np.rollaxis(np.reshape(X, (3, 2, 2)), 2), np.column_stack([X[0], X[1]]),
             np.dstack([X, X * 2.0]), np.append(X, X[0]), np.append(X, X[:1] * 3.0, axis=0)]
    return np.concatenate([p.ravel() for p in parts])


@pytest.mark.parametrize("build", [_rows_copies, _rows_pads, _rows_pieces, _rows_diagonals,
                                   _rows_axes], ids=lambda f: f.__name__)
def test_jacobian_matches_finite_differences(build):
    X = RNG.normal(size=(3, 4))
    with sg.GradientTape() as tape:
        tape.watch(X)
        y = build(X)
    np.testing.assert_allclose(tape.jacobian(y, X), fd_jacobian(build, X), rtol=1e-6,
                               atol=1e-8)


# -- gradients by value -------------------------------------------------------------------

def repeated_sum(x):
    return np.sum(np.repeat(x, [3, 0, 2]))


def padded_sum(x):
    return np.sum(np.pad(x, (2, 3), mode="reflect"))


def corner_values(c):
    return np.sum(np.pad(np.zeros((2, 2)), 1, constant_values=c) * np.arange(16.0).reshape(4, 4))


def split_first_piece(x):
    return np.sum(np.split(x, [2])[0])


def test_copies_add_up():
    assert sg.grad(repeated_sum)(np.ones(3)).tolist() == [3.0, 0.0, 2.0]
    # reflect of [a b c d] by (2, 3): c b | a b c d | c b a
    assert sg.grad(padded_sum)(np.zeros(4)).tolist() == [2.0, 3.0, 3.0, 1.0]
    assert sg.grad(split_first_piece)(np.zeros(4)).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_corners_belong_to_the_axis_padded_last():
    """NumPy pads axis 0, then axis 1 over all rows: the corners hold axis 1's values."""
    got = sg.grad(corner_values)(np.zeros((2, 2)))
    weights = np.arange(16.0).reshape(4, 4)
    np.testing.assert_allclose(got, [[weights[0, 1:3].sum(), weights[3, 1:3].sum()],
                                     [weights[:, 0].sum(), weights[:, 3].sum()]])


# -- aliases: the views these functions return -----------------------------------------

def split_piece_updated(x):
    a = np.outer(x, x) * 1.0
    top, bottom = np.split(a, [1])
    top += x  # writes into a
    return np.sum(a * a)


def atleast_result_updated(x):
    v = x * 2.0
    w = np.atleast_1d(v)  # v itself
    w += x
    return np.sum(v * x)


def diagonal_of_an_updated_array(x):
    a = np.outer(x, x) * 1.0
    d = a.diagonal()
    a += 1.0  # d sees it
    return np.sum(d * x)


@pytest.mark.parametrize("f", [split_piece_updated, atleast_result_updated,
                               diagonal_of_an_updated_array], ids=lambda f: f.__name__)
def test_updates_through_views_are_refused(f):
    with pytest.raises(sg.CompileError, match="another variable may share|may be shared"):
        sg.grad(f)(np.array([0.3, -0.7, 1.1]))


# -- refused ----------------------------------------------------------------------------

def pad_maximum(x):
    return np.sum(np.pad(x, 2, mode="maximum") ** 2)


def pad_reflect_odd(x):
    return np.sum(np.pad(x, 2, mode="reflect", reflect_type="odd") ** 2)


def pad_ramp_differentiated_end(x):
    return np.sum(np.pad(x, 2, mode="linear_ramp", end_values=x[0]) ** 2)


@pytest.mark.parametrize("f, match", [
    (pad_maximum, "np.pad with mode='maximum'"),
    (pad_reflect_odd, "np.pad with reflect_type='odd'"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_not_handled_exactly_is_refused_when_run(f, match):
    with pytest.raises(NotImplementedError, match=match):
        sg.grad(f)(RNG.normal(size=4))


def test_a_differentiated_end_value_is_refused_at_compile_time():
    with pytest.raises(sg.CompileError, match="`end_values` of `pad`"):
        sg.grad(pad_ramp_differentiated_end)(RNG.normal(size=4))
