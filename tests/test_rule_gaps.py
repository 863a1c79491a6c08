"""Functions the compiler got wrong outright (issue 12, class 8), in every form.

- ``np.r_[...]`` / ``np.c_[...]`` had a zero gradient: the index object was a
  constant and its items were dropped. They are now joins with a rule.
- ``np.einsum(x, (0, 1), (1, 0))`` (the sublist form) had a zero gradient: the
  array sat in the ``subscripts`` slot, which has no derivative. Constant
  sublists are now written as a subscripts string at compile time.
- More generally, a differentiated value passed as a parameter whose rule has
  no derivative (and that is not read only for its shape) is refused, never
  dropped.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.5, -1.2, 2.0])
M = np.array([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]])


def check_every_form(f, x):
    """Finite differences to second order; value_and_grad and both tapes agree with grad."""
    check_grads(f, (x,), order=2)
    g = sg.grad(f)(x)
    value, g2 = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    np.testing.assert_allclose(g2, g, rtol=1e-14)
    np.testing.assert_allclose(taped(f, x), g, rtol=1e-14)
    np.testing.assert_allclose(sg.function(taped)(f, x), g, rtol=1e-14)


# np.r_ / np.c_

def r_vectors(x):
    return np.sum(np.r_[x, 2.0 * x, x[0]] ** 2)


def r_rows(m):
    stacked = np.r_[m, m[:1] * 3.0]
    return np.sum(stacked * np.arange(9.0).reshape(3, 3))


def r_with_floats(x):
    a, b = float(x[0]), x[1] * x[2]
    return np.sum(np.sin(np.r_[a, b, 1.0]))


def c_columns(x):
    pairs = np.c_[x, x ** 2]
    return np.sum(pairs @ np.array([1.0, -2.0]) ** 2)


def c_matrices(m):
    wide = np.c_[m, np.tanh(m)]
    return np.sum(wide ** 3)


def c_of_scalars(x):
    row = np.c_[x[0], x[1] * 2.0]
    return np.sum(row * row)


def r_with_ranges(x):
    """Slices are ranges (arange; linspace for a complex step), as in the peer suite's
    ``np.r_[x, c, 1:10]``."""
    b = np.r_[x, C, 1:10, 0:1:3j, :2]
    return np.sum(b * np.arange(b.size) * x[0])


def c_with_a_range(x):
    return np.sum(np.c_[x, 1:4] ** 2 * np.arange(6.0).reshape(3, 2))


C = np.array([1.0, 2.0])


@pytest.mark.parametrize("f, x", [
    (r_vectors, X), (r_rows, M), (r_with_floats, X),
    (c_columns, X), (c_matrices, M), (c_of_scalars, X), (r_with_ranges, X),
    (c_with_a_range, X),
], ids=lambda v: getattr(v, "__name__", ""))
def test_index_joins(f, x):
    check_every_form(f, x)


def r_with_a_differentiable_range(x):
    return np.sum(np.r_[x, 0:x[0]] * x[0])


def r_with_a_directive(x):
    return np.sum(np.r_["0,2", x, x])


@pytest.mark.parametrize("f, message", [
    (r_with_a_differentiable_range, "range whose bounds are differentiable"),
    (r_with_a_directive, "directive"),
])
def test_index_joins_refused(f, message):
    with pytest.raises(sg.CompileError, match=message) as info:
        sg.grad(f)(X)
    assert "test_rule_gaps.py" in str(info.value)


# np.einsum in the sublist form

def einsum_transpose(m):
    return np.sum(np.einsum(m, (0, 1), (1, 0)) * np.arange(6.0).reshape(3, 2))


def einsum_two_operands(m):
    return np.einsum(m, [0, 1], m, [0, 1])


def einsum_output_sublist(m):
    rows = np.einsum(m, [0, 1], np.cos(m), [0, 1], [0])
    return np.sum(rows ** 2)


def einsum_implicit_output(m):
    # implicit output: the labels in sorted order, here a transpose
    return np.sum(np.einsum(m, [1, 0]) * np.arange(6.0).reshape(3, 2))


def einsum_ellipsis(m):
    return np.sum(np.einsum(m, [Ellipsis, 1], [1, Ellipsis]) ** 2)


@pytest.mark.parametrize("f", [einsum_transpose, einsum_two_operands, einsum_output_sublist,
                               einsum_implicit_output, einsum_ellipsis], ids=lambda f: f.__name__)
def test_einsum_sublists(f):
    check_every_form(f, M)


def einsum_computed_sublist(m):
    axes = [0, 1] if m.ndim == 2 else [0]
    return np.sum(np.einsum(m, axes))


def test_einsum_sublist_that_is_not_a_constant():
    """Refused before; the sublists are made a string when the code runs."""
    check_every_form(einsum_computed_sublist, M)


# A differentiated value where the rule has no derivative

def norm_of_a_learned_order(x):
    return np.linalg.norm(x, ord=np.abs(x[0]) + 1.0)


def clip_shape_only(x):
    return np.sum(np.full_like(x, 2.0) * x)


def test_differentiated_value_in_a_parameter_without_a_derivative_is_refused():
    with pytest.raises(sg.CompileError, match="passed as `ord` of `norm` depends on the differentiated"):
        sg.grad(norm_of_a_learned_order)(X)
    with pytest.raises(sg.CompileError, match="passed as `ord`"):
        sg.value_and_grad(norm_of_a_learned_order)(X)


def test_parameters_read_only_for_their_shape_still_work():
    check_every_form(clip_shape_only, X)


EINSUM_SPEC = "ij->i"


def einsum_global_subscripts(x):
    return np.sum(np.einsum(EINSUM_SPEC, np.outer(x, x)) ** 2)


def einsum_subscripts_from_a_loop(x):
    total = 0.0
    for spec in ("i,i->", "i,j->ij"):
        total = total + np.sum(np.einsum(spec, x, x))
    return total


def test_einsum_subscripts_held_by_a_global_string():
    check_grads(einsum_global_subscripts, (np.array([0.4, -1.2, 2.0]),), order=2)


def test_einsum_subscripts_the_code_computes():
    """Hunt 11 (then refused): a subscripts string in a loop variable, read when it runs
    (tests/test_einsum_computed_subscripts.py has the other forms)."""
    check_grads(einsum_subscripts_from_a_loop, (np.array([0.4, -1.2, 2.0]),), order=2)
