"""``np.median``/``quantile``/``percentile`` (and their ``nan`` forms), ``sorted`` and
``a.tolist()`` in differentiated code (issue 13: refused with "no derivative rule"):
each in a realistic function, checked against central differences to second order,
on tapes, and in forward mode; then the conventions and refusals."""
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees, fd_jacobian

RNG = np.random.default_rng(13)
X = RNG.normal(size=7)
M = RNG.normal(size=(3, 4, 5))


def robust_loss(r):
    """A median-centred absolute deviation (the residuals of a robust fit)."""
    return np.median(np.abs(r - np.median(r)))


def clipped_by_percentiles(x):
    lo, hi = np.percentile(x, [10.0, 90.0])
    return np.sum(np.clip(x, lo, hi) ** 2) + hi - lo


def quantiles_over_axes(m):
    q = np.quantile(m, [0.2, 0.9], axis=(0, 2), keepdims=True)
    return np.sum(np.sin(q) * np.arange(4.0).reshape(1, 1, 4, 1))


def median_of_rows(m):
    return np.sum(np.median(m, axis=-1) ** 2) + np.sum(np.nanmedian(m, axis=0))


def every_method(x):
    total = 0.0
    for i, method in enumerate(["linear", "lower", "higher", "midpoint", "nearest", "hazen",
                                "weibull", "median_unbiased", "normal_unbiased",
                                "inverted_cdf", "averaged_inverted_cdf",
                                "closest_observation", "interpolated_inverted_cdf"]):
        total = total + (i + 1.0) * np.quantile(x, 0.37 + 0.03 * i, method=method) ** 2
    return total


def ignoring_nans(x):
    y = np.where(x > 1.0, np.nan, x)  # some NaN elements, a gradient for the others
    return np.nanquantile(y, 0.3) ** 2 + np.nanpercentile(y, 65.0) * np.nanmedian(y)


def weighted_by_rank(x):
    return sum(v * (i + 1.0) for i, v in enumerate(sorted(x)))


def sorted_list_reversed(x):
    values = sorted([x[0] * 2.0, math.sin(x[1]), x[2] ** 2, x[3]], reverse=True)
    return values[0] - values[-1] + values[1] * values[2]


def sorted_by_magnitude(x):
    return sum(v * (i + 1.0) ** 2 for i, v in enumerate(sorted(x, key=abs)))


def through_tolist(m):
    rows = m[0].tolist()
    return sum(sum(r) * r[0] for r in rows) + sum(v * v for v in m[1, 2].tolist())


def item_paths(x):
    """The ways a number leaves an array: float(x[i]), x[i].item(), x.tolist()[i]."""
    return float(x[0]) * x[1].item() + math.exp(x.tolist()[2]) + float(np.median(x))


CASES = [
    (robust_loss, (X,)),
    (clipped_by_percentiles, (X,)),
    (quantiles_over_axes, (M,)),
    (median_of_rows, (M,)),
    (every_method, (X,)),
    (ignoring_nans, (X,)),
    (weighted_by_rank, (X,)),
    (sorted_list_reversed, (X,)),
    (sorted_by_magnitude, (X,)),
    (through_tolist, (M,)),
    (item_paths, (X,)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_against_central_differences_to_second_order(f, args):
    check_grads(f, args, wrt=tuple(range(len(args))), order=2)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_form_agrees(f, args):
    assert_forms_agree(f, args, nonzero=True)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args):
    assert_forward_mode_agrees(f, args)


def _quantile_rows(m):
    return np.quantile(m, [0.2, 0.5], axis=1)


def _sorted_rows(x):
    return np.array(sorted(x * x, reverse=True))


def _tolist_rows(m):
    return np.array([sum(r) ** 2 for r in m.tolist()])


@pytest.mark.parametrize("build, x", [
    (_quantile_rows, RNG.normal(size=(3, 4))), (_sorted_rows, X), (_tolist_rows, M[0]),
], ids=["quantile", "sorted", "tolist"])
def test_jacobians_use_the_row_forms(build, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = build(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(build, x), rtol=1e-6, atol=1e-8)


# ---- conventions

def test_ties_go_where_a_stable_sort_puts_them():
    """The tied middle values 2.0 sit at positions 1, 2 and 4: a stable sort puts position
    2 in the middle, and so does Python's sorted (reverse keeps ties in order too)."""
    ties = np.array([1.0, 2.0, 2.0, 3.0, 2.0])
    assert sg.grad(lambda x: np.median(x))(ties).tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert sg.grad(lambda x: sorted(x)[2])(ties).tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert sg.grad(lambda x: sorted(x)[3])(ties).tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert sg.grad(lambda x: sorted(x, reverse=True)[1])(ties).tolist() == [0, 1, 0, 0, 0]


def test_even_counts_split_between_the_two_middle_values():
    got = sg.grad(lambda x: np.median(x))(np.array([4.0, 1.0, 3.0, 2.0]))
    assert got.tolist() == [0.0, 0.0, 0.5, 0.5]


def test_a_slice_holding_nan_has_a_nan_gradient_but_not_in_the_nan_forms():
    x = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 1.0, -1.0, 4.0]])
    with np.errstate(invalid="ignore"):
        plain = sg.grad(lambda m: np.sum(np.median(m, axis=1) * np.array([0.0, 1.0])))(x)
    assert np.isnan(plain[0]).all() and plain[1].tolist() == [0.5, 0.5, 0.0, 0.0]
    nan_form = sg.grad(lambda m: np.sum(np.nanmedian(m, axis=1)))(x)
    assert nan_form.tolist() == [[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]


def test_a_list_argument_gets_a_gradient_per_item():
    def f(x):
        return np.median([x[0], x[1] * 2.0, x[2]]) ** 2

    check_grads(f, (X[:3],), order=2)


# ---- refusals

def test_a_differentiated_q_is_refused_when_compiled():
    def f(x):
        return np.quantile(x, x[0] * 0.0 + 0.3)

    with pytest.raises(sg.CompileError, match="no derivative with respect to `q`"):
        sg.grad(f)(X)


@pytest.mark.parametrize("f, message", [
    (lambda x: np.median(x, overwrite_input=True), "overwrite_input=True"),
    (lambda x: np.quantile(x, 0.5, method="inverted_cdf", weights=np.ones(7)), "weights="),
    (lambda x: np.percentile(x, 50.0, out=np.zeros(())), "out="),
    (lambda m: sum(sorted(m)[0]), "not 1-d"),
], ids=["overwrite_input", "weights", "out", "2d-sorted"])
def test_what_is_not_modelled_is_refused(f, message):
    x = X.reshape(1, 7) if message == "not 1-d" else X.copy()
    with pytest.raises((sg.CompileError, NotImplementedError), match=message):
        sg.grad(f)(x)
