"""A helper's global read where the differentiated function has a closure variable of the
same name (``c`` a global the helper reads, ``c`` of ``make(c)``): inlined, the helper's
``c`` read the closure's, so values and gradients were wrong in sg.grad, value_and_grad,
jvp and hvp (the tape forms were right). Found by a battery of ports of autograd's and
JAX's examples. A global the compiled code's own names shadow is read as the callee's."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402

c = 2.0


def helper(w):
    return c * np.sum(w ** 2)  # the global c


def make(c):
    def objective(w):
        return helper(w) + c * np.sum(w)  # the closure's c
    return objective


def h(w):
    return np.sum(w ** 2)


def doubled(w):
    return 2.0 * h(w)  # the global h


def make_with_a_function(f, h):
    def objective(w):
        return f(w) + h(w)  # the closure's h
    return objective


scale = 2.0


def scaled(w):
    return scale * w ** 2


def make_model(scale):
    class Inner:
        def loss(self, w):
            return scale * np.sum(scaled(w))
    return Inner()


W = np.array([0.5, -1.2, 2.0])


@pytest.mark.parametrize("f", [make(7.0), make_with_a_function(doubled, np.sum),
                               make_model(5.0).loss], ids=["number", "function", "class"])
def test_a_closure_variable_named_as_a_helpers_global(f):
    value, _ = sg.value_and_grad(f)(W)
    assert value == pytest.approx(f(W), rel=1e-12)
    check_grads(f, (W,))
    if not hasattr(f, "__self__"):  # (tape_forms compiles forward mode of functions)
        assert_every_form(f, W)
    v = np.array([1.0, -2.0, 0.5])
    eps = 1e-6
    assert sg.jvp(f, (W,), (v,))[1] == pytest.approx(
        (f(W + eps * v) - f(W - eps * v)) / (2 * eps), rel=1e-6)


def test_the_expected_values():
    np.testing.assert_allclose(sg.grad(make(7.0))(W), 4 * W + 7)
    np.testing.assert_allclose(sg.grad(make_with_a_function(doubled, np.sum))(W), 4 * W + 1)
    np.testing.assert_allclose(sg.hvp(make(7.0))(W, np.eye(3)[0]), [4.0, 0.0, 0.0])
