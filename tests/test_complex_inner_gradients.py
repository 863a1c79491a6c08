"""A gradient taken inside code that may compute with complex values is compiled for
complex values (``atoms.UNKNOWN_COMPLEX``, ``pipeline.may_be_complex``).

``d_fun = lambda x: sg.grad(fun)(x)`` then ``sg.grad`` of a function of ``d_fun(z)``:
the inner gradient's argument is known only when the code runs, and the inner code was
compiled for real values, whose ``abs`` adjoint is ``g * np.sign(x)``: right in value
for a complex ``x`` (NumPy's sign is ``z / |z|``), but taken as piecewise constant by the
outer code, which then gave a zero second derivative (a silent wrong answer, found by
autograd's own tests). Now the inner code gets the rules for complex values, and a
``np.sign`` of a differentiated value in any statement of code compiled for complex
values is refused rather than taken as constant.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.passes.normalize import calls
from srcgrad.ir import atoms
from srcgrad.testing import check_grads

Z = 1.1 + 1.3j


def magnitude(x):
    return np.abs(x)


def phase(x):
    return np.angle(x)


d_magnitude = lambda x: sg.grad(magnitude)(x)  # noqa: E731


def through_lambda(z):
    return np.real(d_magnitude(z)) + 2.0 * np.imag(d_magnitude(z))


def through_helper(z):
    g = _inner_phase(z)
    return np.real(g * np.conj(g)) + np.imag(g)


def _inner_phase(z):
    return sg.grad(phase)(z * 1.0)


def through_array(z):
    return np.sum(np.real(sg.grad(lambda w: np.sum(np.abs(w) ** 3))(z * 0.5)))


@pytest.mark.parametrize("f, arg", [
    (through_lambda, Z), (through_helper, Z),
    (through_array, np.array([0.4 - 0.2j, -1.1 + 0.7j, 0.3 + 0.9j]))])
def test_second_derivative_through_an_inner_gradient_of_complex_values(f, arg):
    check_grads(f, (arg,), order=1)


def test_real_values_keep_their_code():
    check_grads(through_lambda, (1.7,), order=1)
    check_grads(through_array, (np.array([0.4, -1.1, 0.3]),), order=1)


def test_np_sign_inside_a_product_is_refused_for_complex_values(monkeypatch):
    # The inner code compiled for real values in complex code (what happened before):
    # its ``dresult * np.sign(x)`` is refused, never differentiated as constant.
    def unknown_real(norm, node):
        return atoms.UNKNOWN_VALUE

    monkeypatch.setattr(calls, "_sample_of", unknown_real)

    def fresh(z):  # (a function of its own: nothing cached for it)
        return np.real(d_magnitude(z))

    with pytest.raises(sg.CompileError, match="np.sign of a differentiated value"):
        sg.grad(fresh)(Z)
