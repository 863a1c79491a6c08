"""Reads of what a tape watches hidden behind values known when compiling (hunt 4).

Each was a silent wrong answer: a ``@property`` computing from a watched Variable
read as a constant (its term missing from the gradient), ``functools.partial(np.dot,
w)`` (None), ``isinstance(v, sg.Variable)`` of a Variable read in the block (False:
the block computed another value), and ``tape.watch(v)`` of a loop's variable
(each item's gradient the sum of the later ones'). Checked in a plain function and
in ``@sg.function``, against the gradient written out."""
import functools

import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.5, -1.0, 2.0])


class Layer:
    def __init__(self):
        self.w = sg.Variable(np.array([0.5, -0.3, 0.8]))
        self.b = np.array([0.3, 0.2, -0.1])

    @property
    def l2(self):  # a regulariser, computed from the Variable
        return np.sum(self.w ** 2)

    @property
    def spread(self):  # from a plain array a tape watches
        return np.sum(np.sin(self.b) * 2.0)


def regularised(m):
    with sg.GradientTape() as tape:
        loss = np.sum(3.0 * m.w) + 0.5 * m.l2
    return tape.gradient(loss, m.w)


def watched_attribute(m):
    with sg.GradientTape() as tape:
        tape.watch(m.b)
        c = m.spread * m.spread
    return tape.gradient(c, m.b)


@pytest.mark.parametrize("place", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_property_computing_from_a_watched_value(place):
    m = Layer()
    np.testing.assert_allclose(place(regularised)(m), 3.0 + m.w.numpy(), rtol=1e-12)
    s = np.sum(np.sin(m.b) * 2.0)
    np.testing.assert_allclose(place(watched_attribute)(m), 2 * s * 2.0 * np.cos(m.b),
                               rtol=1e-12)


def partial_of_numpy(w):
    proj = functools.partial(np.dot, w)
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = proj(X) ** 2
    return tape.gradient(y, w)


def partial_of_variable(v):
    proj = functools.partial(np.dot, v)
    with sg.GradientTape() as tape:
        y = proj(X) ** 2
    return tape.gradient(y, v)


@pytest.mark.parametrize("place", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_partial_of_a_numpy_function_binding_a_watched_value(place):
    w = np.array([0.3, 0.1, -0.2])
    want = 2 * np.dot(w, X) * X
    np.testing.assert_allclose(place(partial_of_numpy)(w), want, rtol=1e-12)
    np.testing.assert_allclose(place(partial_of_variable)(sg.Variable(w.copy())), want,
                               rtol=1e-12)


def variables_of_a_dict(params):
    with sg.GradientTape() as tape:
        y = sum(np.sum(np.sin(v * X)) for v in params.values() if isinstance(v, sg.Variable))
        count = sum(1 for v in params.values() if isinstance(v, sg.Variable))
    return y, count, tape.gradient(y, params["w"])


@pytest.mark.parametrize("place", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_isinstance_of_a_variable_read_in_the_block(place):
    W = sg.Variable(np.array([0.2, 0.4, -0.1]))
    y, count, g = place(variables_of_a_dict)({"w": W, "act": "sin", "lr": 0.1})
    assert count == 1
    assert y == pytest.approx(np.sum(np.sin(W.numpy() * X)), rel=1e-12)
    np.testing.assert_allclose(g, np.cos(W.numpy() * X) * X, rtol=1e-12)


def watch_each_in_a_loop(ys):
    with sg.GradientTape() as t:
        tot = 0.0
        for v in ys:
            t.watch(v)
            tot = tot + np.sum(v ** 3)
    return t.gradient(tot, ys)


def test_watching_a_loop_variable_is_refused():
    ys = [np.array([0.5, 1.0]), np.array([-0.3, 0.2])]
    with pytest.raises(sg.CompileError) as e:
        watch_each_in_a_loop(ys)
    assert "`t.watch(v)` inside a loop" in str(e.value)
    assert "test_tape_hidden_reads.py:" in str(e.value)


def sorted_by_a_lambda(x):
    srt = sorted(x, key=lambda v: abs(v))
    return srt[0] * 3.0 + srt[-1]


def test_lambda_of_a_called_function_in_a_block_is_the_backward_codes_too():
    """(It was NameError: the lambda, hoisted to a def in the forward code, was not passed
    to the backward code; now the same answer as sg.grad.)"""
    want = sg.grad(sorted_by_a_lambda)(X)
    x = X.copy()
    with sg.GradientTape() as t:
        t.watch(x)
        y = sorted_by_a_lambda(x)
    np.testing.assert_allclose(t.gradient(y, x), want, rtol=1e-14)
    assert np.count_nonzero(want) == 2
