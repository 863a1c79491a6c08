"""Recursion whose depth is a constant of the code is inlined (issue 13: 44 of the third
hunt's refusals were 'recursive call to `bspline_basis` is not supported').

A parameter bound to a constant (``depth=3``, ``k - 1`` of such a parameter) decides its
tests when compiling, and so does a name the code bound to a constant before the test
(the flag an early ``return`` is desugared to): the inlining stops where the recursion
does. Each program is checked against central differences to second order, in every
form; the tests at the end check that a name the code may have changed since is never
taken for a constant (each would be a silent wrong branch)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

X = np.array([0.13, 0.42, 0.77, 0.55])
KNOTS = np.linspace(0.0, 1.0, 9)


def check_every_form(f, args=(X,)):
    check_grads(f, args, order=2, wrt=list(range(len(args))))
    assert_forms_agree(f, args, nonzero=True)
    assert_forward_mode_agrees(f, args)


def bspline_basis(x, knots, k):
    """Cox-de Boor, recursive in the degree."""
    if k == 0:
        return np.where((x >= knots[:-1, None]) & (x < knots[1:, None]), 1.0, 0.0)
    B = bspline_basis(x, knots, k - 1)
    d1 = knots[k:-1] - knots[:-k - 1]
    d2 = knots[k + 1:] - knots[1:-k]
    left = (x - knots[:-k - 1, None]) / d1[:, None] * B[:-1]
    right = (knots[k + 1:, None] - x) / d2[:, None] * B[1:]
    return left + right


def spline_loss(x):
    return np.sum(bspline_basis(x, KNOTS, 3) ** 2)


def bspline_loop(x, knots, degree):
    """The same basis by a loop: what the recursion must agree with."""
    B = np.where((x >= knots[:-1, None]) & (x < knots[1:, None]), 1.0, 0.0)
    for k in range(1, degree + 1):
        d1 = knots[k:-1] - knots[:-k - 1]
        d2 = knots[k + 1:] - knots[1:-k]
        B = (x - knots[:-k - 1, None]) / d1[:, None] * B[:-1] \
            + (knots[k + 1:, None] - x) / d2[:, None] * B[1:]
    return B


def smooth(x, depth=3):
    if depth == 0:
        return np.sum(x)
    return smooth(np.sin(x) + x * 0.5, depth - 1)


def smoothed(x):
    return smooth(x) + smooth(x, 1) * smooth(x, depth=2)


def tree_sum(x, lo, hi):
    """Two recursive calls a level, over constant bounds."""
    if hi - lo == 1:
        return np.tanh(x[lo]) * (lo + 1)
    mid = (lo + hi) // 2
    return tree_sum(x, lo, mid) * tree_sum(x, mid, hi) + x[lo]


def tree(x):
    return tree_sum(x, 0, 4)


def power(x, n):
    if n <= 1:
        return x
    return x * power(x, n - 1)


def powers(x):
    return np.sum(power(x, 4)) + np.sum(power(x[1:], 2))


def simpson(a, b, fa, fm, fb):
    return (b - a) / 6 * (fa + 4 * fm + fb)


def adaptive(c):
    """Its recursion ends on a value known only when running or on a constant depth:
    both branches compiled, down to the depth."""
    def f(t):
        return np.sin(c * t) ** 2

    def rec(a, b, fa, fm, fb, whole, depth):
        m = 0.5 * (a + b)
        lm, rm = 0.5 * (a + m), 0.5 * (m + b)
        flm, frm = f(lm), f(rm)
        left = simpson(a, m, fa, flm, fm)
        right = simpson(m, b, fm, frm, fb)
        if depth <= 0 or abs(left + right - whole) < 1e-6:
            return left + right + (left + right - whole) / 15.0
        return rec(a, m, fa, flm, fm, left, depth - 1) + rec(m, b, fm, frm, fb, right, depth - 1)

    fa, fm, fb = f(0.0), f(1.0), f(2.0)
    return rec(0.0, 2.0, fa, fm, fb, simpson(0.0, 2.0, fa, fm, fb), 3)


@pytest.mark.parametrize("f", [spline_loss, smoothed, tree, powers])
def test_recursion_on_a_constant(f):
    check_every_form(f)


def test_recursion_agrees_with_the_loop():
    np.testing.assert_allclose(sg.grad(spline_loss)(X),
                               sg.grad(lambda x: np.sum(bspline_loop(x, KNOTS, 3) ** 2))(X),
                               rtol=1e-12)


def test_recursion_ending_on_a_run_time_value_to_a_constant_depth():
    check_grads(adaptive, (1.3,), order=2)


def runaway(x, n=0):
    return runaway(x * 0.5, n + 1)


def from_runaway(x):
    return runaway(x)


def halving(x):
    if np.sum(x) < 1e-3:
        return np.sum(x)
    return halving(x * 0.5)


@pytest.mark.parametrize("f, words", [
    (halving, ["recursive call to `halving`", "none of its arguments is a constant"]),
    (from_runaway, ["`runaway`"]),
    (smooth, ["recursive call to `smooth`"]),  # depth: the caller's, known when running
])
def test_recursion_not_decided_when_compiling_is_refused(f, words):
    with pytest.raises(sg.CompileError) as e:
        sg.grad(f)(X)
    assert "test_recursion_static.py:" in str(e.value)
    for w in words:
        assert w in str(e.value)


# -- names that are not constants any more -------------------------------------------

def flag_in_a_branch(x):
    done = False
    if x[0] > 0:  # decided when running
        done = True
    if done:
        return np.sum(x ** 2)
    return np.sum(x ** 3)


def flag_in_a_loop(x):
    first = True
    s = 0.0
    for v in x:
        if first:
            s = s + v ** 2
        else:
            s = s + v ** 3
        first = False
    return s


def count_in_a_while(x):
    n = 0
    s = 0.0
    while s < 2.0 and n < 6:
        if n == 0:
            s = s + np.sum(x ** 2)
        else:
            s = s + np.sum(x) ** 2
        n = n + 1
    return s * n


def flag_of_a_closure(x):
    state = 0

    def bump():
        nonlocal state
        state = 1

    bump()
    if state == 1:
        return np.sum(x ** 2)
    return np.sum(x)


@pytest.mark.parametrize("f", [flag_in_a_branch, flag_in_a_loop, count_in_a_while,
                               flag_of_a_closure])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_names_changed_since_are_not_constants(f, sign):
    x = X * sign
    try:
        g = sg.grad(f)(x)
    except sg.CompileError:
        assert f is flag_of_a_closure  # (refusing is right too; a wrong branch is not)
        return
    eps = 1e-6
    fd = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
