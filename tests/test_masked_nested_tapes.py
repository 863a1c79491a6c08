"""A NaN masked out in a nested tape's block (``np.where(x > 0, np.sqrt(x) ** 3, 0)`` at 0).

A tape's own gradient, ``sg.grad`` and ``sg.hvp`` compute a gradient that
comes out non-finite again with strong zeros (``runtime/strong.py``), so the
masked element's gradient is 0, as the code run as Python says. A nested
tape's gradient is the inner block's adjoint code inlined into the outer
block's, and gave NaN there (first and second order, a Jacobian of it, a
ForwardAccumulator around it): it is computed again with strong zeros too, the
block run again, where the block repeats (a random draw in it does not: the
gradient is then what the one run gives).
"""
import warnings

import numpy as np
import pytest

import srcgrad as sg


def masked(x):
    return np.sum(np.where(x > 0, np.sqrt(x) ** 3, 0.0))


def halves(x):
    return 0.5 * np.sum(np.where(x > 0, np.sqrt(x) ** 3, 0.0)) + np.sum(x)


X = np.array([0.0, 1.0, 4.0])
FIRST = 1.5 * np.sqrt(np.maximum(X, 0.0))           # d/dx of x ** 1.5, and 0 where masked
SECOND = np.where(X > 0, 0.75 / np.sqrt(np.where(X > 0, X, 1.0)), 0.0)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the NaN computed, then masked)
        yield


def nested(x, f):
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            y = f(x)
        g = inner.gradient(y, x)
        s = np.sum(g)
    return g, outer.gradient(s, x)


nested_decorated = sg.function(nested)  # (the same function, compiled: SPEC 1, case 1)


def persistent_inner(x, f):
    with sg.GradientTape() as outer:
        with sg.GradientTape(persistent=True) as inner:
            y = f(x)
            z = 2.0 * f(x)
        g = inner.gradient(y, x)
        g2 = inner.gradient(z, x)
        s = np.sum(g) + np.sum(g2)
    return (g + g2 / 2.0) / 2.0, outer.gradient(s, x) / 3.0


def jacobian_of_inner(x, f):
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            y = f(x)
        g = inner.gradient(y, x)
    return g, np.diag(outer.jacobian(g, x))


def accumulator_around(x, f):
    with sg.ForwardAccumulator(x, np.ones(3)) as acc:
        with sg.GradientTape() as tape:
            y = f(x)
        g = tape.gradient(y, x)
    return g, acc.jvp(g)


FORMS = [nested, nested_decorated, persistent_inner, jacobian_of_inner, accumulator_around]


@pytest.mark.parametrize("form", FORMS, ids=["nested", "nested in @sg.function", "persistent inner",
                                              "jacobian of inner", "accumulator around"])
def test_a_masked_nan_in_a_nested_tape_is_zero(form):
    g, h = form(sg.Variable(X.copy()), masked)
    np.testing.assert_allclose(g, FIRST, rtol=1e-12)
    np.testing.assert_allclose(h, SECOND, rtol=1e-12)
    # (what sg.grad and sg.hvp give)
    np.testing.assert_allclose(sg.grad(masked)(X), FIRST, rtol=1e-12)
    np.testing.assert_allclose(sg.hvp(masked)(X, np.ones(3)), SECOND, rtol=1e-12)


def test_an_array_watched_by_both_tapes():
    x = X.copy()
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = masked(x)
        g = inner.gradient(y, x)
        s = np.sum(g)
    np.testing.assert_allclose(g, FIRST, rtol=1e-12)
    np.testing.assert_allclose(outer.gradient(s, x), SECOND, rtol=1e-12)


def test_other_terms_keep_their_values():
    x = sg.Variable(X.copy())
    g, h = nested(x, halves)
    np.testing.assert_allclose(g, 0.5 * FIRST + 1.0, rtol=1e-12)
    np.testing.assert_allclose(h, 0.5 * SECOND, rtol=1e-12)


def test_a_block_with_a_random_draw_runs_once():
    """The block is not run again (its draw would differ): the one run's gradient."""
    draws = []

    def noisy(x):
        r = np.random.default_rng().random()
        draws.append(r)
        return masked(x) + r * np.sum(x)

    x = sg.Variable(np.array([1.0, 4.0]))
    g, h = nested(x, noisy)
    assert len(draws) == 1
    np.testing.assert_allclose(g, 1.5 * np.sqrt([1.0, 4.0]) + draws[0], rtol=1e-12)
    np.testing.assert_allclose(h, 0.75 / np.sqrt([1.0, 4.0]), rtol=1e-12)


def smooth(x):
    return np.sum(np.sin(x) * x)


def test_the_retry_is_compiled_only_where_a_derivative_can_be_infinite():
    """A block of smooth functions (no ``sqrt``, ``log``, division, power below 1) gets
    no strong-zero code: it would only cost the outer block."""
    from srcgrad.tape import tape as tape_module

    def texts():
        return [e.text for e in tape_module._COMPILED.values() if hasattr(e, "text")]

    tape_module._COMPILED.clear()
    x = sg.Variable(np.array([0.5, 1.0]))
    g, h = nested(x, smooth)
    np.testing.assert_allclose(g, np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy()))
    assert texts() and not any("_strong" in t for t in texts())
    tape_module._COMPILED.clear()
    nested(x, masked)
    assert any("_strong" in t for t in texts())
