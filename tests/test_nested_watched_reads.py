"""A nested tape's block reading the value it watches from where else it is stored (a
global dict, a list, an object's attribute, a closure) besides its name: TensorFlow's
tapes match the very tensor, so every read is differentiated. The outer block's reads
were, the inner block's were not: its gradient was the one with the other read held
constant, and the second derivative neither. Checked against central differences of
the function with every read varied, in plain code and in ``@sg.function``, and with the
holder changed between calls (the outer code is compiled for where the reads find the
watched value: ``watched_reads.NestedReads``)."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.4, -0.3])
store = {"a": X}
held = [X]


class Box:
    pass


box = Box()
box.v = X


def from_dict(z):
    return np.sum(np.sin(z) * store["a"]) ** 2


def from_list(z):
    return np.sum(np.sin(z) * held[0]) ** 2


def from_attr(z):
    return np.sum(np.sin(z) * box.v) ** 2


def full(z):  # what each reads, varied with z
    return np.sum(np.sin(z) * z) ** 2


def _fd(fun, p, eps=1e-5):
    return np.array([(fun(p + eps * e) - fun(p - eps * e)) / (2 * eps) for e in np.eye(p.size)])


def _fd_grad(p):
    return _fd(full, p)


def _fd_hess_row(p, k=0):
    return _fd(lambda q: _fd(full, q, 1e-4)[k], p, 1e-4)


def nested(f, x):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            E = f(x)
        g = inner.gradient(E, x)
        g0 = g[0]
    return g, outer.gradient(g0, x)


def inner_only(f, x, w):
    """The outer tape watches another value: the inner gradient alone reads it."""
    with sg.GradientTape() as outer:
        outer.watch(w)
        with sg.GradientTape() as inner:
            inner.watch(x)
            E = f(x) * w
        g = inner.gradient(E, x)
        s = np.sum(g)
    return g, outer.gradient(s, w)


@sg.function
def nested_compiled(x):
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            E = from_dict(x)
        g = inner.gradient(E, x)
        g0 = g[0]
    return g, outer.gradient(g0, x)


@pytest.mark.parametrize("f", [from_dict, from_list, from_attr])
def test_nested_second_order(f):
    g, h = nested(f, X)
    np.testing.assert_allclose(g, _fd_grad(X), rtol=1e-6)
    np.testing.assert_allclose(h, _fd_hess_row(X), rtol=1e-5)


@pytest.mark.parametrize("f", [from_dict, from_list, from_attr])
def test_inner_gradient_when_outer_watches_other(f):
    w = np.array(2.0)
    g, gw = inner_only(f, X, w)
    np.testing.assert_allclose(g, 2.0 * _fd_grad(X), rtol=1e-6)
    np.testing.assert_allclose(gw, np.sum(_fd_grad(X)), rtol=1e-6)


def test_in_sg_function():
    g, h = nested_compiled(X)
    np.testing.assert_allclose(g, _fd_grad(X), rtol=1e-6)
    np.testing.assert_allclose(h, _fd_hess_row(X), rtol=1e-5)


def test_holder_changed_between_calls():
    """The same code entered with the dict holding another array, then the watched one
    again: a constant read there, the watched value here."""
    other = np.array([1.5, 0.5])
    try:
        store["a"] = other
        g, h = nested(from_dict, X)
        const = lambda z: np.sum(np.sin(z) * other) ** 2  # noqa: E731
        np.testing.assert_allclose(g, _fd(const, X), rtol=1e-6)
        np.testing.assert_allclose(h, _fd(lambda q: _fd(const, q, 1e-4)[0], X, 1e-4),
                                   rtol=1e-5)
        store["a"] = X
        g, h = nested(from_dict, X)
        np.testing.assert_allclose(g, _fd_grad(X), rtol=1e-6)
        np.testing.assert_allclose(h, _fd_hess_row(X), rtol=1e-5)
    finally:
        store["a"] = X


def _inner_only_first_on_other(f, x, w):
    """``inner_only`` as a block of its own: compiled first with the dict holding another
    array (the code of a block is cached by where it is)."""
    with sg.GradientTape() as outer:
        outer.watch(w)
        with sg.GradientTape() as inner:
            inner.watch(x)
            E = f(x) * w
        g = inner.gradient(E, x)
        s = np.sum(g)
    return g, outer.gradient(s, w)


def test_holder_changed_between_calls_outer_watching_other():
    """As above where only the inner tape watches the value: the outer's own reads do not
    tell the two apart."""
    other, w = np.array([1.5, 0.5]), np.array(2.0)
    inner_only = _inner_only_first_on_other
    try:
        store["a"] = other
        g, _ = inner_only(from_dict, X, w)
        const = lambda z: np.sum(np.sin(z) * other) ** 2  # noqa: E731
        np.testing.assert_allclose(g, 2.0 * _fd(const, X), rtol=1e-6)
        store["a"] = X
        g, gw = inner_only(from_dict, X, w)
        np.testing.assert_allclose(g, 2.0 * _fd_grad(X), rtol=1e-6)
        np.testing.assert_allclose(gw, np.sum(_fd_grad(X)), rtol=1e-6)
        store["a"] = other
        g, _ = inner_only(from_dict, X, w)
        np.testing.assert_allclose(g, 2.0 * _fd(const, X), rtol=1e-6)
    finally:
        store["a"] = X


def test_three_deep():
    x = X
    with sg.GradientTape() as t3:
        t3.watch(x)
        with sg.GradientTape() as t2:
            t2.watch(x)
            with sg.GradientTape() as t1:
                t1.watch(x)
                E = from_dict(x)
            g = t1.gradient(E, x)
            g0 = g[0]
        h = t2.gradient(g0, x)
        h0 = h[0]
    third = t3.gradient(h0, x)
    fd = _fd(lambda q: _fd_hess_row(q)[0], x, 1e-3)
    np.testing.assert_allclose(h, _fd_hess_row(x), rtol=1e-5)
    np.testing.assert_allclose(third, fd, rtol=1e-3, atol=1e-6)
