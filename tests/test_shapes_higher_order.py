"""Shapes in code that differentiates a gradient's code again (``passes/ranks.py``).

A gradient's code inlined into a Hessian-vector product (``sg.hvp``: forward
mode over it), a second derivative (``sg.grad(sg.grad(f))``) or a nested tape
calls ``_sg.unbroadcast`` and ``_sg.broadcast_like`` where its own compile did
not know the shapes; the code around it knows them (the cache keys on the
arguments' size classes), so those calls go (``drop_same_shape_helpers``), and
so do forward mode's ``broadcast_like`` of terms already of the result's shape.
Every product is checked against central differences of the gradient, for
sizes where an operand broadcasts and where it does not.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad import forward as forward_module


def chain(x):
    return np.sum(np.sin(x) * x ** 2) + np.sum(x[:-1] * x[1:]) ** 2


def layer(x, A, b):
    return np.sum(np.tanh(A @ x + b) ** 2) + np.sum(x * x * b[0])


def _hessian_times(f, args, v, eps=1e-5):
    """Central differences of the gradient along ``v``."""
    g = sg.grad(f)
    x = args[0]
    return (g(x + eps * v, *args[1:]) - g(x - eps * v, *args[1:])) / (2 * eps)


def _forward_texts(name):
    return [e.text for per in forward_module._FORWARD.values() for e in per.values()
            if e is not None and hasattr(e, "text") and name in e.text]


def _calls(text):
    """The generated code without its comments (which quote the code differentiated)."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_a_hessian_vector_product_knows_its_shapes():
    rng = np.random.default_rng(0)
    x, v = rng.normal(size=9), rng.normal(size=9)
    product = sg.hvp(chain)  # (kept: its code is cached while it lives)
    got = product(x, v)
    np.testing.assert_allclose(got, _hessian_times(chain, (x,), v), rtol=1e-6, atol=1e-8)
    texts = [_calls(t) for t in _forward_texts("grad_chain")]
    assert texts and not any("_sg.unbroadcast(" in t or "_sg.broadcast_like(" in t
                             for t in texts), texts


@pytest.mark.parametrize("n, m, bias", [(6, 5, 5), (6, 5, 1), (3, 3, 3), (3, 3, 1), (7, 1, 1),
                                        (6, 5, 5)])
def test_products_of_broadcasting_code_for_sizes_that_relate_otherwise(n, m, bias):
    rng = np.random.default_rng(n * 10 + bias)
    x, v = rng.normal(size=n), rng.normal(size=n)
    A, b = rng.normal(size=(m, n)), rng.normal(size=bias)
    expected = _hessian_times(layer, (x, A, b), v)
    np.testing.assert_allclose(sg.hvp(layer)(x, A, b, v), expected, rtol=1e-5, atol=1e-7)
    # the same product through forward mode of the gradient, and reverse over reverse
    _, tangent = sg.jvp(lambda x: sg.grad(layer)(x, A, b), (x,), (v,))
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-7)


def scalar_chain(a):
    s = 0.0
    x = a
    for _ in range(4):
        x = np.sin(x) * a + x * 0.5
        s = s + x * x
    return s


def test_a_second_derivative_of_code_on_arrays_keeps_no_unbroadcast():
    x = np.random.default_rng(3).normal(size=5)

    def f(x):
        return np.sum(np.sin(x) * x ** 2)

    second = sg.grad(lambda x: np.sum(sg.grad(f)(x) * np.cos(x)))
    text = _calls(second.__srcgrad_compiled__.entry((x,)).text)
    assert "_sg.unbroadcast(" not in text and "_sg.broadcast_like(" not in text, text
    eps = 1e-6
    g = np.array([(np.sum(sg.grad(f)(x + eps * e) * np.cos(x + eps * e))
                   - np.sum(sg.grad(f)(x - eps * e) * np.cos(x - eps * e))) / (2 * eps)
                  for e in np.eye(5)])
    np.testing.assert_allclose(second(x), g, rtol=1e-6, atol=1e-8)


def test_nested_tapes_over_arrays():
    rng = np.random.default_rng(4)
    x0, v = rng.normal(size=6), rng.normal(size=6)
    x = sg.Variable(x0)
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            y = chain(x)
        g = inner.gradient(y, x)
        gv = np.sum(g * v)
    hv = outer.gradient(gv, x)
    np.testing.assert_allclose(hv, _hessian_times(chain, (x0,), v), rtol=1e-6, atol=1e-8)


def test_the_scalar_loop_to_second_order():
    h = sg.grad(sg.grad(scalar_chain))(0.7)
    eps = 1e-4
    g = sg.grad(scalar_chain)
    assert h == pytest.approx((g(0.7 + eps) - g(0.7 - eps)) / (2 * eps), rel=1e-6)
