"""``sg.hessian``: the Jacobian of the gradient in one backward pass seeded with every
row of the identity at once (the tape's row mode), not one Hessian-vector product per
element; where that cannot run (more arguments than spelled out, complex values), the
column-by-column products give the same matrix."""
import numpy as np
import pytest

import srcgrad as sg
import srcgrad.forward as forward

X = np.linspace(0.1, 1.0, 6)


def energy(x, a=1.0, b=0.5, c=2.0, d=1.0):
    return np.sum(np.sin(x) * x ** 2) * a + (np.sum(x[:-1] * x[1:]) * b) ** 2 + c * d


def _numeric(f, x, *rest, eps=1e-6):
    g = sg.grad(f)
    return np.stack([(g(x + eps * e, *rest) - g(x - eps * e, *rest)) / (2 * eps)
                     for e in np.eye(x.size)], axis=-1)


@pytest.mark.parametrize("rest", [(), (1.5,), (1.5, 0.7), (1.5, 0.7, 3.0, 2.0)],
                         ids=["x", "x,a", "x,a,b", "x,a,b,c,d"])
def test_the_hessian_with_other_arguments(rest):
    H = sg.hessian(energy)(X.copy(), *rest)
    np.testing.assert_allclose(H, _numeric(energy, X.copy(), *rest), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(H, H.T, atol=1e-12)


def test_one_backward_pass_not_one_product_per_element(monkeypatch):
    calls = []
    product = forward.hvp

    def counting(f):
        p = product(f)
        return lambda *a: calls.append(1) or p(*a)
    monkeypatch.setattr(forward, "hvp", counting)
    H = forward.hessian(energy)(X.copy())
    assert calls == [] and H.shape == (6, 6)
    forward.hessian(energy)(X.copy(), 1.0, 1.0, 1.0, 1.0)  # (by columns)
    assert len(calls) == X.size


def test_a_scalar_argument():
    assert sg.hessian(lambda t: t ** 3)(2.0) == pytest.approx(12.0)


def test_an_integer_argument_is_a_type_error_not_zeros():
    with pytest.raises(TypeError, match="hessian: x must be a float"):
        sg.hessian(energy)(np.arange(4))
