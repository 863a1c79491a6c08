"""Writes into an array another name holds through a chain of copies (hunt 4, bug_32).

``a = h; b = a; b[0] = 0.0`` (and ``y = ident(h)``, an inlined call's ``v = h; y = v``)
wrote into ``h`` with the derivative ignoring it: the copy that was the name's only read
counted as a move, which hid that ``h`` still held the array, and a call's result was
not taken to possibly be an argument's. The same through objects kept as their
attributes (``o = Box(h); o.zero_first()``, a view, two objects or two attributes of one
array, a method returning ``self.x``, ``self.x += 1`` on the input). Each is right or
refused as the same code on plain locals is; never a wrong gradient."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.3, -0.8, 1.2, 0.45])


def ident(v):
    return v


def through_a_call(x):
    h = np.sin(x)
    y = ident(h)
    y[0] = 0.0
    return np.sum(h * x) + np.sum(y)


def through_two_copies(x):
    h = np.sin(x)
    a = h
    b = a
    b[0] = 0.0
    return np.sum(h * x) + np.sum(b)


class Box:
    def __init__(self, x):
        self.x = x

    def zero_first(self):
        self.x[0] = 0.0

    def set0(self, v):
        self.x[0] = v

    def get(self):
        return self.x

    def bump(self):
        self.x += 1.0


class Two:
    def __init__(self, a, b):
        self.a = a
        self.b = b


def method_write(x):
    h = np.sin(x)
    o = Box(h)
    o.zero_first()
    return np.sum(h * x) + np.sum(o.x)


def view_write(x):
    h = np.sin(x)
    o = Box(h[1:])
    o.x[0] = 0.0
    return np.sum(h * x)


def local_write(x):
    h = np.sin(x)
    o = Box(h)
    h[0] = 5.0 * x[2]
    return np.sum(o.x * x)


def two_objects(x):
    h = np.cos(x)
    a = Box(h)
    b = Box(h)
    a.set0(x[3] * 2.0)
    return np.sum(b.x * x)


def two_attributes(x):
    h = np.cos(x)
    o = Two(h, h)
    o.a[1] = 0.0
    return np.sum(o.b * x)


def returned_attribute(x):
    o = Box(np.sin(x))
    v = o.get()
    v[0] = 3.0 * x[1]
    return np.sum(o.x * x)


def input_bumped(x):
    o = Box(x)
    o.bump()
    return np.sum(x ** 2)


def private_copy_is_fine(x):  # (control: a copy first, as the refusals say)
    h = np.sin(x)
    o = Box(h.copy())
    o.zero_first()
    return np.sum(h * x) + np.sum(o.x)


@pytest.mark.parametrize("f", [through_a_call, through_two_copies, method_write, view_write,
                               local_write, two_objects, two_attributes, returned_attribute,
                               input_bumped, private_copy_is_fine])
def test_right_or_refused(f):
    eps = 1e-6
    fd = np.array([(f(X.copy() + eps * e) - f(X.copy() - eps * e)) / (2 * eps)
                   for e in np.eye(len(X))])
    try:
        value, g = sg.value_and_grad(f)(X.copy())
    except sg.CompileError as e:
        assert f is not private_copy_is_fine
        assert "may be shared" in str(e) or "may share" in str(e)
        return
    assert value == pytest.approx(f(X.copy()), rel=1e-12)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
