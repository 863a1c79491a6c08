"""Annotated assignments (``passes/desugar.py``): ``a: list = [x, y]`` is ``a = [x, y]``.

The compiler ran an annotated assignment as a statement without an adjoint, so a value
bound by one carried no gradient: ``a: list = [x, x * 2.0]; np.sum(a[0] * a[1])`` gave a
gradient of zeros, silently (found reading the change of stop 43). An annotation without
a value (``n: int``) binds nothing, as in Python.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

X = np.array([0.4, -1.3, 0.9])


def annotated_list(x):
    a: list = [x, x * 2.0]
    return np.sum(a[0] * a[1])


def annotated_chain(x):
    h: np.ndarray = np.tanh(x)
    n: int
    s: float = float(np.sum(h ** 2))
    return s * np.sum(h)


def annotated_scalar(t: float) -> float:
    y: float = t ** 3
    z: "float" = y * t
    return z


class Scaled:
    def __init__(self, w):
        self.w: np.ndarray = w
        self.k: float = 2.0

    def __call__(self, x):
        out: np.ndarray = self.k * self.w * x
        return out


def annotated_attributes(x):
    return np.sum(Scaled(x * 0.5)(x) ** 2)


@pytest.mark.parametrize("f", [annotated_list, annotated_chain, annotated_attributes])
def test_annotated_values_carry_their_gradient(f):
    assert_every_form(f, X.copy())


def test_annotated_python_floats():
    check_grads(annotated_scalar, (1.3,), order=2)
    assert sg.grad(annotated_scalar)(1.3) == pytest.approx(4 * 1.3 ** 3)


def test_annotated_assignment_in_a_tape_block():
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        a: list = [x, x * 2.0]
        y: float = np.sum(a[0] * a[1])
    np.testing.assert_allclose(tape.gradient(y, x), 4 * x, rtol=1e-12)
