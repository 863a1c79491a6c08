"""The selection rules in differentiated code (``srcgrad/rules/selection.py``): take,
take_along_axis, select, sort, partition, nan_to_num, real/imag/conj/real_if_close of
real values, interp and bincount, as functions, methods and attributes.

Each program is checked against central differences to second order, its value and
gradient from ``value_and_grad`` and a tape against ``grad``, and ``tape.jacobian``
(the rules' row forms) against central differences. Then the conventions where no
derivative exists (ties, knots, replaced values), by value, and what is refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, fd_jacobian

RNG = np.random.default_rng(5)
W = RNG.normal(size=6)
M = RNG.normal(size=(3, 4))
KNOTS = np.array([-1.5, -0.5, 0.0, 0.8, 1.6])
VALUES = np.array([0.3, -1.0, 0.5, 2.0, 1.2])
POINTS = np.array([-2.0, -1.0, -0.2, 0.3, 1.0, 2.2])


def take_repeated(x):
    return np.sum(np.take(x, [0, 2, 2, 5, -1]) ** 2 * np.arange(1.0, 6.0))


def take_axis_keywords(X):
    return np.sum(np.take(X, indices=[[1, 1], [0, 3]], axis=1) * np.tanh(X[:, :1, None]))


def take_wrap(x):
    return np.sum(np.take(x, [7, -8, 1, 13], mode="wrap") ** 3)


def take_clip(x):
    return np.sum(np.sin(np.take(x, [9, -3, 0, 2, 2], mode="clip")))


def take_flat(X):
    return np.sum(np.take(X, [[11, 0], [5, 5]]) ** 2)


def take_method(X):
    return np.sum(X.take([2, 0, 2], axis=0) ** 2 * M)


def take_along_axis_top2(X):
    top = np.argsort(X, axis=1)[:, -2:]
    return np.sum(np.take_along_axis(X, top, axis=1) ** 2)


def take_along_axis_repeated(X):
    picked = np.take_along_axis(X, np.array([[0, 0], [3, 3], [1, 0]]), 1)
    return np.sum(np.exp(picked) * W[:2])


def select_piecewise(x):
    return np.sum(np.select([x < -0.5, x < 0.5], [x ** 2, np.sin(x)], default=x ** 3))


def select_broadcast(x):
    return np.sum(np.select([M > 0, M < -1.0], [x[:4] * 2.0, np.cos(x[:3, None])], x[4]) ** 2)


def sort_weighted(x):
    return np.sum(np.sort(x * W) ** 2 * np.arange(6.0))


def sort_axis(X):
    return np.sum(np.sort(X, axis=0) * M) + np.sum(np.sort(X, axis=None) * np.arange(12.0))


def trimmed_mean(x):
    return np.mean(np.sort(x)[1:-1] ** 2)


def partition_median(x):
    return np.partition(x * x, 3)[3] + np.sum(np.partition(x, kth=[0, 6])[[0, 6]] * W[:2])


def partition_axis(X):
    p = np.partition(X, [0, 3], axis=1)
    return np.sum(p[:, 0] * p[:, 3]) + np.sum(np.partition(X, 1, axis=0) ** 2 * M)


def nan_to_num_loss(x, fill):
    y = np.where(x > 0.0, x * x, np.nan)
    y = np.where(x < -1.0, np.inf, y)
    return np.sum(np.nan_to_num(y, nan=fill, posinf=2.0 * fill) * W)


def real_parts(x):
    return np.sum(np.real(x) * x.real + np.conj(x) * x.conjugate() + x.conj() * W
                  + np.imag(x) + x.imag * 3.0 + np.real_if_close(x) ** 3)


def interp_x(x):
    return np.sum(np.interp(x, KNOTS, VALUES) ** 2)


def interp_fp(fp):
    return np.sum(np.interp(POINTS, KNOTS, fp * fp) * W)


def interp_all(x, fp, edge):
    return np.sum(np.interp(x, KNOTS, fp, left=edge, right=edge * edge) ** 2)


def bincount_weights(w):
    return np.sum(np.bincount(np.array([0, 2, 2, 4, 4, 4]), weights=w * w, minlength=6) ** 2 * W)


CASES = [
    (take_repeated, (RNG.normal(size=6),)),
    (take_axis_keywords, (RNG.normal(size=(3, 4)),)),
    (take_wrap, (RNG.normal(size=6),)),
    (take_clip, (RNG.normal(size=6),)),
    (take_flat, (RNG.normal(size=(3, 4)),)),
    (take_method, (RNG.normal(size=(3, 4)),)),
    (take_along_axis_top2, (RNG.normal(size=(3, 4)),)),
    (take_along_axis_repeated, (RNG.normal(size=(3, 4)),)),
    (select_piecewise, (RNG.normal(size=8),)),
    (select_broadcast, (RNG.normal(size=6),)),
    (sort_weighted, (RNG.normal(size=6),)),
    (sort_axis, (RNG.normal(size=(3, 4)),)),
    (trimmed_mean, (RNG.normal(size=7),)),
    (partition_median, (RNG.normal(size=7),)),
    (partition_axis, (RNG.normal(size=(3, 4)),)),
    (nan_to_num_loss, (np.array([1.5, -0.5, 0.7, -2.0, 0.3, 2.2]), 0.4)),
    (real_parts, (RNG.normal(size=6),)),
    (interp_x, (RNG.uniform(-2.0, 2.0, size=8),)),
    (interp_fp, (RNG.normal(size=5),)),
    (interp_all, (POINTS + 0.05, RNG.normal(size=5), 0.7)),
    (bincount_weights, (RNG.normal(size=6),)),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_finite_differences_to_second_order(f, args, check_second_order):
    check_second_order(f, args)  # check_grads(order=2), one compile per gradient: conftest.py


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_value_and_grad_and_a_tape_agree_with_grad(f, args):
    assert_forms_agree(f, args)


# -- tape.jacobian: every row at once, through the rules' row forms -----------------

def _rows_take(x):
    return np.concatenate([np.take(x, [0, 2, 2, -1]) * 2.0,
                           np.take(np.reshape(x, (2, 3)), [5, -1], axis=1, mode="wrap").ravel()])


def _rows_select(x):
    return np.select([x < 0.0], [x ** 2], default=np.sin(x)) + np.sort(x * W) \
        + np.partition(x * 2.0, 2) + np.take_along_axis(x, np.argsort(-x), axis=0)


def _rows_values(x):
    return np.nan_to_num(x * 2.0) + np.real(x) + np.imag(x) + np.conj(x) * x \
        + np.interp(x, KNOTS, np.cos(x[:5]), left=x[0], right=x[1]) \
        + np.bincount(np.array([0, 2, 2, 1, 0, 5]), weights=x * x)


@pytest.mark.parametrize("build", [_rows_take, _rows_select, _rows_values],
                         ids=lambda f: f.__name__)
def test_jacobian_matches_finite_differences(build):
    x = RNG.normal(size=6)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = build(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(build, x), rtol=1e-6,
                               atol=1e-8)


# -- conventions, by value -------------------------------------------------------------

def first_of_take(x):
    return np.sum(np.take(x, [1, 1, 1, 3], mode="clip") * np.array([1.0, 2.0, 3.0, 4.0]))


def take_modes(x):
    return np.sum(np.take(x, [12, -1], mode="wrap") * np.array([1.0, 10.0])) \
        + np.sum(np.take(x, [7, -5]) * 100.0) + np.sum(np.take(x, [9, -9], mode="clip") * 1000.0)


def test_repeated_indices_add_up_and_modes_read_where_numpy_reads():
    assert sg.grad(first_of_take)(np.arange(4.0)).tolist() == [0.0, 6.0, 0.0, 4.0]
    # wrap: 12 -> 4, -1 -> 7; raise: 7 -> 7, -5 -> 3; clip: 9 -> 7, -9 -> 0
    want = np.zeros(8)
    np.add.at(want, [4, 7, 7, 3, 7, 0], [1.0, 10.0, 100.0, 100.0, 1000.0, 1000.0])
    assert sg.grad(take_modes)(np.arange(8.0)).tolist() == want.tolist()


def second_smallest(x):
    return np.sort(x)[1]


def largest(x):
    return np.sort(x)[-1]


def median_of_five(x):
    return np.partition(x, 2)[2]


def test_sort_and_partition_send_each_slot_to_its_element():
    x = np.array([3.0, -1.0, 2.0, 0.5, 7.0])
    assert sg.grad(second_smallest)(x).tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert sg.grad(median_of_five)(x).tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_ties_are_matched_in_order_of_position():
    """The documented convention at ties (no derivative there): the stable sort's order."""
    x = np.array([1.0, 1.0, 0.0])
    assert sg.grad(second_smallest)(x).tolist() == [1.0, 0.0, 0.0]
    assert sg.grad(largest)(x).tolist() == [0.0, 1.0, 0.0]
    assert sg.grad(median_of_five)(np.array([2.0, 2.0, 2.0, 5.0, 0.0])).tolist() == \
        [0.0, 1.0, 0.0, 0.0, 0.0]


def replaced(x):
    return np.sum(np.nan_to_num(x) * np.array([2.0, 0.5, 0.25, 0.125]))


def test_nan_to_num_passes_the_gradient_only_where_finite():
    assert sg.grad(replaced)(np.array([1.0, np.nan, np.inf, -np.inf])).tolist() == \
        [2.0, 0.0, 0.0, 0.0]


def interp_at(x):
    return np.interp(x, KNOTS, VALUES)


def test_interp_at_knots_takes_the_segment_to_the_right():
    d = sg.grad(interp_at)
    slopes = np.diff(VALUES) / np.diff(KNOTS)
    assert d(0.0) == pytest.approx(slopes[2])     # a knot inside: the right segment
    assert d(-1.5) == pytest.approx(slopes[0])    # the first knot
    assert d(1.6) == 0.0 and d(2.0) == 0.0 and d(-3.0) == 0.0  # the last knot, outside
    assert d(0.4) == pytest.approx(slopes[2])


# -- refused ----------------------------------------------------------------------------

def real_of_complex(x):
    return np.sum(np.real(x * (1.0 + 2.0j)))


def imag_of_complex(x):
    return np.sum((x * 1j).imag)


def conj_of_complex(x):
    z = x + 1j * x
    return np.sum(np.abs(z.conj()))


def interp_periodic(x):
    return np.sum(np.interp(x, KNOTS, VALUES, period=4.0))


def test_interp_with_period_is_written_out():
    # (refused before; rules/selection.interp, and tests/test_options_34.py)
    check_grads(interp_periodic, (RNG.normal(size=4),), order=2)


def interp_knots_differentiated(x):
    return np.sum(np.interp(0.3, np.cumsum(np.abs(x)), VALUES[:4]))


def nan_to_num_in_place(x):
    y = np.where(x > 0.0, x, np.nan)
    np.nan_to_num(y, copy=False)  # writes into y
    return np.sum(y * x)


def sort_in_place(x):
    a = x * 2.0
    a.sort()
    return np.sum(a * W)


@pytest.mark.parametrize("f", [real_of_complex, imag_of_complex, conj_of_complex],
                         ids=lambda f: f.__name__)
def test_complex_intermediates_of_real_inputs(f):
    """real/imag/conj of complex values: their complex forms (rules/complexes.py)."""
    check_grads(f, (RNG.normal(size=4),), order=2)


def interp_periodic_complex(x):
    return np.sum(np.abs(np.interp(x, KNOTS, VALUES * 1j, period=4.0)))


@pytest.mark.parametrize("f, match", [
    (interp_periodic_complex, "np.interp of complex values"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_not_handled_exactly_is_refused_when_run(f, match):
    with pytest.raises(NotImplementedError, match=match):
        sg.grad(f)(RNG.normal(size=4))


def written_conj(x):
    y = x * 2.0
    r = y.conj()
    r[1] = 5.0  # writes into y: a.conj() of a real array is the array itself
    return np.sum(y * x)


def written_real(x):
    y = x * 2.0
    r = y.real
    r[0] = 0.0
    return np.sum(y * x)


def written_real_if_close(x):
    y = x * 2.0
    r = np.real_if_close(y)
    r[0] = 0.0
    return np.sum(y * x)


@pytest.mark.parametrize("f", [written_conj, written_real, written_real_if_close],
                         ids=lambda f: f.__name__)
def test_writing_into_a_real_part_writes_into_the_array(f):
    """For a real array these return the array itself: the write is one into it
    (passes/normalize/views.py; it was refused)."""
    x = RNG.normal(size=4)
    check_grads(f, (x.copy(),), order=1)
    value, g = sg.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy()))


def test_differentiated_knots_are_refused_at_compile_time():
    with pytest.raises(sg.CompileError, match="`xp` of `interp`"):
        sg.grad(interp_knots_differentiated)(RNG.normal(size=4))


def test_nan_to_num_writing_into_its_argument_is_refused_at_compile_time():
    with pytest.raises(sg.CompileError, match="`copy` of `nan_to_num`"):
        sg.grad(nan_to_num_in_place)(RNG.normal(size=4))


def test_sorting_in_place_is_the_sort_it_writes():
    """(``a[...] = np.sort(a)``: passes/normalize/stores.py.)"""
    check_grads(sort_in_place, (RNG.normal(size=6),), order=2)
