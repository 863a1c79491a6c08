"""A ``custom_gradient`` function's result bound to the name of one of its arguments
(``x = sq(x)``, ``u = sq(u)`` in a loop, ``b = mul(a, b)``): that argument's adjoint was
dropped with the adjoint of the name's new value, silently (0 from sg.grad, None from the
tape). Split as ``x_new = sq(x); x = x_new``, as other rebinding statements are. Checked
against central differences in every form."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_forms_agree, taped  # noqa: E402


@sg.custom_gradient
def sq(x):
    def grad_fn(g):
        return 2 * x * g
    return x * x, grad_fn


@sg.custom_gradient
def mul(a, b):
    def grad_fn(g):
        return g * b, g * a
    return a * b, grad_fn


@sg.custom_gradient
def total(x):
    def grad_fn(g):
        return g * np.ones_like(x)
    return np.sum(x), grad_fn


def rebound_argument(x):
    x = sq(x)
    return np.sum(x)


def in_a_loop(x):
    u = x
    for _ in range(2):
        u = sq(u)
    return np.sum(u)


def second_operand(x):
    a, b = x[:2], x[1:] * 2.0
    b = mul(a, b)
    return np.sum(b * x[:2])


def to_a_scalar(x):
    x = total(x * x)
    x = sq(x)
    return x


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [rebound_argument, in_a_loop, second_operand, to_a_scalar],
                         ids=lambda f: f.__name__)
def test_result_bound_to_an_argument(f):
    x = np.array([1.0, 2.0, -0.5])
    np.testing.assert_allclose(sg.grad(f)(x), _fd(f, x), rtol=1e-6)
    # (every reverse form: forward mode refuses custom_gradient, its grad_fn being a vjp)
    assert_forms_agree(f, (x.copy(),))
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), _fd(f, x), rtol=1e-6)
