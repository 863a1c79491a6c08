"""Forward mode (sg.jvp, sg.hvp) on code real programs write (hunt4 bug_05, bug_11,
bug_13), checked against central differences in float64:

- a parameter-tree argument and a parameter left to its default: the tangent code
  takes every parameter, the default's value included, before the tangents;
- a ``collections.defaultdict`` (or ``Counter``) accumulated in a loop: a read of a key
  the dict inserts on the read is a zero tangent (the tangent is a plain dict of the
  keys set so far);
- through a ``custom_gradient`` function: a refusal naming the user's function and line
  (its grad_fn gives vector-Jacobian products only), not srcgrad's generated code.
"""
import collections
from collections import Counter, defaultdict

import numpy as np
import pytest

import srcgrad as sg
from srcgrad import forward
from srcgrad.errors import CompileError
from srcgrad.testing import check_grads
from tape_forms import taped_hvp


def _central(f, args, tangents, eps=1e-6):
    """The directional derivative of ``f`` at ``args`` (trees of arrays) along
    ``tangents``, by central differences in float64."""
    from srcgrad import trees

    def moved(sign):
        out = []
        for a, t in zip(args, tangents):
            if trees.is_tree(a):
                pairs, treedef = trees.flatten(a)
                leaves = [np.asarray(v, np.float64) + sign * eps * np.asarray(w, np.float64)
                          for (_, v), w in zip(pairs, trees.leaves(t))]
                out.append(trees.unflatten(treedef, leaves))
            else:
                out.append(np.asarray(a, np.float64) + sign * eps * np.asarray(t, np.float64))
        return out
    return (f(*moved(1)) - f(*moved(-1))) / (2 * eps)


A = np.array([[1.0, 2.0], [3.0, 4.0]])
B = np.array([0.5, -1.0])
DA = np.array([[1.0, -0.5], [0.25, 2.0]])
DB = np.array([1.0, 0.3])


# -- parameter trees and defaulted parameters (bug_05) ------------------------------------

def tuple_tree_default(params, c=2.0):
    A, B = params
    return np.sum(A) * c + np.sum(B ** 2)


def dict_tree_default(params, c=2.0, power=3):
    return np.sum(np.sin(params["A"])) * c + np.sum(params["B"] ** power)


def tree_keyword_only_default(params, *, scale=0.5):
    A, B = params
    return np.sum(np.tanh(A @ B)) * scale


def tree_and_array_default(params, x, shift=np.array([0.1, -0.2])):
    A, B = params
    return np.sum(np.tanh(A @ (x + shift)) * B)


@pytest.mark.parametrize("f, primals, tangents", [
    (tuple_tree_default, ((A, B),), ((DA, DB),)),
    (dict_tree_default, ({"A": A, "B": B},), ({"A": DA, "B": DB},)),
    (tree_keyword_only_default, ((A, B),), ((DA, DB),)),
    (tree_and_array_default, ((A, B), np.array([0.3, 0.7])), ((DA, DB), np.array([1.0, -1.0]))),
], ids=["tuple", "dict", "keyword_only", "tree_and_array"])
def test_jvp_of_a_tree_argument_with_a_defaulted_parameter(f, primals, tangents):
    value, tangent = sg.jvp(f, primals, tangents)
    assert value == pytest.approx(f(*primals), rel=1e-12)
    assert tangent == pytest.approx(_central(f, primals, tangents), rel=1e-7, abs=1e-9)
    # (by forward mode, not by the transposition's second derivative)
    assert forward._forward_tree(f, primals) is not None


def test_the_hunt_example_exactly():
    value, tangent = sg.jvp(tuple_tree_default, ((A, B),), ((np.ones((2, 2)), np.ones(2)),))
    assert (value, tangent) == pytest.approx((21.25, 7.0))


def test_jvp_of_a_tree_uses_the_default_that_is_passed_too():
    v1, t1 = sg.jvp(lambda p: tuple_tree_default(p, 5.0), ((A, B),), ((DA, DB),))
    v2, t2 = sg.jvp(tuple_tree_default, ((A, B),), ((DA, DB),))
    assert t1 == pytest.approx(np.sum(DA) * 5.0 + np.sum(2 * B * DB))
    assert t2 == pytest.approx(np.sum(DA) * 2.0 + np.sum(2 * B * DB))


# -- defaultdict / Counter accumulated in a loop (bug_11) ---------------------------------

def parity_sums(x):
    acc = collections.defaultdict(float)
    for i, xi in enumerate(x):
        acc[i % 2] += xi ** 2
    return acc[0] * acc[1]


def read_inserts_a_key(x):
    acc = defaultdict(float)
    for i in range(len(x)):
        acc[i % 3] += np.sin(x[i])
    z = acc[7]  # a read inserts zero
    return acc[0] * acc[1] + acc[2] ** 2 + z


def counter_sums(x):
    c = Counter()
    for i, xi in enumerate(x):
        c[i % 2] += xi * xi
    return c[0] * c[1]


def counter_missing_keys(x):
    # A Counter reads a key it does not hold as 0 and stays without it: the reverse
    # pass added that read's adjoint at the key (KeyError; hunt 4).
    c = Counter({"a": 1.0})
    c["a"] *= x[0]
    c["b"] += x[1] * x[2]
    return c["a"] * c["z"] + c["a"] + c["b"] * c["missing"] + c["b"] ** 2


X = np.array([0.3, -0.8, 1.2, 0.45])
D = np.array([1.0, 0.5, -0.3, 0.2])


@pytest.mark.parametrize("f", [parity_sums, read_inserts_a_key, counter_sums, counter_missing_keys],
                         ids=lambda f: f.__name__)
def test_a_dict_that_inserts_missing_keys(f):
    check_grads(f, (X,), order=1)
    value, tangent = sg.jvp(f, (X,), (D,))
    assert value == pytest.approx(f(X), rel=1e-12)
    assert tangent == pytest.approx(_central(f, (X,), (D,)), rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(sg.hvp(f)(X, D), _central(sg.grad(f), (X,), (D,)),
                               rtol=1e-6, atol=1e-8)


def test_a_defaultdict_under_nested_tapes_and_a_forward_accumulator():
    x = X.copy()
    np.testing.assert_allclose(taped_hvp(parity_sums, x, D),
                               _central(sg.grad(parity_sums), (X,), (D,)), rtol=1e-6, atol=1e-8)
    with sg.ForwardAccumulator(x, D) as acc:
        y = parity_sums(x)
    assert acc.jvp(y) == pytest.approx(_central(parity_sums, (X,), (D,)), rel=1e-7)


# -- forward mode through custom_gradient (bug_13) ---------------------------------------

@sg.custom_gradient
def ident(v):
    def grad(dy):
        return dy
    return v, grad


def through_ident(x):
    return np.sum(ident(x) ** 2)


def ident_of_a_constant(x):
    c = ident(np.array([1.0, 2.0, 3.0]))
    return np.sum(np.sin(x) * c)


def test_jvp_through_custom_gradient_names_the_users_function_and_line():
    x = np.array([0.3, -0.8, 1.2])
    with pytest.raises(CompileError) as info:
        sg.jvp(through_ident, (x,), (np.ones(3),))
    message = str(info.value)
    assert "custom_gradient `ident` (test_forward_mode_gaps.py:" in message
    assert "through_ident" not in message or "test_forward_mode_gaps.py" in message
    for internal in ("srcgrad grad", "__srcgrad_factory__", "_and_grad", "kind custom"):
        assert internal not in message, message
    line = through_ident.__code__.co_firstlineno + 1
    assert f"(test_forward_mode_gaps.py:{line})" in message
    assert "plain version of `ident`" in message
    # (sg.grad uses its grad_fn)
    np.testing.assert_allclose(sg.grad(through_ident)(x), 2 * x)


def test_jvp_of_a_tree_through_custom_gradient_is_refused_the_same_way():
    with pytest.raises(CompileError, match=r"custom_gradient `ident`"):
        sg.jvp(lambda p: through_ident(p[0]) + np.sum(p[1]), ((B, B),), ((DB, DB),))


def test_a_custom_gradient_function_of_constants_has_a_zero_tangent():
    x = np.array([0.3, -0.8, 1.2])
    d = np.array([1.0, 0.5, -0.2])
    value, tangent = sg.jvp(ident_of_a_constant, (x,), (d,))
    assert value == pytest.approx(ident_of_a_constant(x))
    assert tangent == pytest.approx(_central(ident_of_a_constant, (x,), (d,)), rel=1e-7)


def eigenvalues_squared(x):
    A = np.array([[x[0], x[1]], [x[2], 2.0]])
    return np.sum(np.real(np.linalg.eigvals(A)) ** 2)


def test_jvp_of_eigvals_by_transposing_reverse_mode():
    """(README: jvp transposes reverse mode for complex values; raised while eigvals was
    differentiated to first order only.)"""
    x, v = np.array([0.5, 1.2, -0.7]), np.array([1.0, -0.5, 0.25])
    value, tangent = sg.jvp(eigenvalues_squared, (x,), (v,))
    assert value == pytest.approx(eigenvalues_squared(x), rel=1e-12)
    h = 1e-6
    numeric = (eigenvalues_squared(x + h * v) - eigenvalues_squared(x - h * v)) / (2 * h)
    assert tangent == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def test_refused_write_names_the_users_code_in_forward_mode():
    # (jvp fell back to transposing the gradient's code and refused "in a first
    # derivative's code": the refusal is about the user's own write.)
    def f(w):
        a = b = np.zeros(3)
        a[0] = w[0]
        b[1] = w[1] * 2
        return np.sum(a * b)

    w = np.array([0.7, -0.4])
    with pytest.raises(sg.CompileError) as e:
        sg.jvp(f, (w,), (np.ones(2),))
    msg = str(e.value)
    assert "first derivative" not in msg and "writing into `a[...]`" in msg
    assert "test_forward_mode_gaps.py" in msg


def tuple_joined_with_a_constant_one(x, y):
    """(fuzzer seed 48950, program 127: the constant tuple's zero tangent was a list,
    and ``list + tuple`` raised in the tangent code)"""
    (a, _), c = ((y, x), y)
    v = (0.7,) + ({1: 0.8}, a)
    w = (x[0, 0],) + (0.5, y[1])
    return np.mean(c) + np.sum(v[2]) + w[0] * w[2]


def test_a_tuple_joined_with_a_constant_one_has_its_tangent():
    x = np.array([[-1.075, -0.392], [0.155, 1.498], [-1.131, -0.646]])
    y = np.array([-1.408, 0.713, -0.534])
    tx, ty = np.ones_like(x), np.arange(3.0)
    value, tangent = sg.jvp(tuple_joined_with_a_constant_one, (x, y), (tx, ty))
    assert value == tuple_joined_with_a_constant_one(x, y)
    assert tangent == pytest.approx(_central(tuple_joined_with_a_constant_one, (x, y),
                                             (tx, ty)), rel=1e-6)
