"""A def nested in differentiated code reading an object built there (a closure over
it: ``def scaled(v): return self.k * v``), called where it is defined or item by item
through ``map``: its reads of the object's attributes are reads of their locals
(passes/normalize/objects.py, ``_nested_def``). Checked in every form against central
differences. Was refused: "a function defined in differentiated code that reads the
object ... built there (a closure over it) is not supported"."""
import functools

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form


class State:
    def __init__(self, x, k):
        self.x = x
        self.k = k

    def bump(self, v):
        return v * self.k

    def run(self):
        def scaled(v):
            return self.k * v + np.sin(self.x)  # (late binding: self.x as it is when called)

        first = scaled(self.x)
        self.x = first * 2.0
        total = 0.0
        for i in range(3):
            total = total + np.sum(scaled(self.x * i))
        return total


def closure_in_a_method(x):
    return State(x, 1.5).run()


def closure_in_the_function(x):
    s = State(x, 0.5)

    def pair(v):
        return s.bump(v) * s.x, s.k  # (a method of the object, a tuple)

    a, b = pair(x[0])
    s.x = s.x * a
    c, _ = pair(x[1])
    return np.sum(s.x) + np.sum(a * b + c)


def partial_through_map(x):
    def kern(u, v, ell):
        return np.exp(-(u - v) ** 2 / ell)

    k = functools.partial(kern, ell=0.8)
    vals = list(map(lambda u: k(u, 0.5), x))
    return sum(vals) + max(vals)


@pytest.mark.parametrize("f", [closure_in_a_method, closure_in_the_function,
                               partial_through_map])
def test_every_form(f):
    assert_every_form(f, np.array([0.3, -0.4, 0.9]))


def test_a_closure_writing_the_object_or_used_as_a_value_is_refused():
    def writes(x):
        s = State(x, 2.0)

        def set_it(v):
            s.x = v  # (a write: the local it would be is the def's own)

        set_it(x * 3.0)
        return np.sum(s.x)

    with pytest.raises(sg.CompileError, match="closure over it"):
        sg.grad(writes)(np.array([0.3, -0.4]))

    def escapes(x):
        s = State(x, 2.0)

        def read(v):
            return s.k * v

        return np.sum(np.array(sorted(x, key=read)))

    with pytest.raises(sg.CompileError, match="closure over it"):
        sg.grad(escapes)(np.array([0.3, -0.4]))


# Properties of objects built in the code where a test or an attribute reads them (the
# fuzzer's object form: "used as a value", "attribute of a differentiable value").

class Box:
    def __init__(self, x):
        self.x = x


class Holder:
    def __init__(self, x):
        self.box = Box(x)
        self.scale = 2.0

    @property
    def box_value(self):
        return self.box  # (an object: its attributes read after the call)

    @property
    def mean(self):
        return np.mean(self.box.x)

    def run(self):
        a = self.box_value.x * self.scale
        if np.sum(self.box_value.x) > 0.0 and self.mean < 5.0:
            a = a * self.mean
        if self.mean > 0.1:  # (a property in a test: read before it)
            return np.sum(a * self.box.x)
        return np.sum(a)


def properties_in_tests(x):
    return Holder(x).run()


@pytest.mark.parametrize("x", [np.array([0.3, -0.4, 0.9]), np.array([-0.3, -0.4, 0.2])])
def test_properties_read_in_tests_and_returning_objects(x):
    assert_every_form(properties_in_tests, x)
