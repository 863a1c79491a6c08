"""Rank inference (``transforms/ranks.py``): between scalars nothing is broadcast,
so the generated code calls no ``_sg.unbroadcast``. The gradients themselves
are checked everywhere else; these tests check that the calls are gone where
the scalars are known, including code that differentiates generated code.
"""
import math

import numpy as np

import srcgrad as sg
import srcgrad.tape as tape_module


def recurrence(a):
    s = a
    for _ in range(5):
        s = np.sin(s) * a + 0.5 * s
    return s


def _text(g, *args):
    return g.__srcgrad_compiled__.entry(args).text


def test_scalar_code_has_no_unbroadcast():
    g = sg.grad(recurrence)
    assert math.isclose(g(0.7), sg.grad(recurrence)(0.7))
    assert "unbroadcast" not in _text(g, 0.7)


def test_second_derivative_of_scalar_code_has_no_unbroadcast():
    g2 = sg.grad(sg.grad(recurrence))
    eps = 1e-5
    numeric = (sg.grad(recurrence)(0.7 + eps) - sg.grad(recurrence)(0.7 - eps)) / (2 * eps)
    assert math.isclose(g2(0.7), numeric, rel_tol=1e-6)
    assert "unbroadcast" not in _text(g2, 0.7)


def test_arrays_keep_their_unbroadcast():
    g = sg.grad(lambda x, b: np.sum(np.tanh(x + b)), wrt=1)
    x = np.ones((3, 2))
    np.testing.assert_allclose(g(x, np.zeros(2)), np.full(2, 3.0 * (1.0 - np.tanh(1.0) ** 2)))
    assert "unbroadcast" in _text(g, x, np.zeros(2))


def _nested(a_value):
    a = sg.Variable(a_value)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            s = recurrence(a)
        ds = inner.gradient(s, a)
    return outer.gradient(ds, a)


def test_nested_tapes_on_a_scalar_variable_have_no_unbroadcast():
    eps = 1e-5
    numeric = (sg.grad(recurrence)(0.7 + eps) - sg.grad(recurrence)(0.7 - eps)) / (2 * eps)
    assert math.isclose(float(_nested(0.7)), numeric, rel_tol=1e-6)
    texts = [e.text for e in tape_module._COMPILED.values() if "recurrence" in e.text]
    assert len(texts) >= 2  # the inner block's code and the outer block's
    assert not any("unbroadcast" in t for t in texts)
