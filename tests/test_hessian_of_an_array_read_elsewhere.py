"""``sg.hessian(f)(x)`` where the array ``x`` is also what ``f`` reads elsewhere (a global
``anchor`` at ``y = anchor``, a default argument, an object's attribute, another
argument): the vectorised Hessian watches ``x`` on a tape, which matches by identity, so
those reads were differentiated too: terms dropped (the ``10 I`` of ``5 |y - anchor|^2``),
silently, and the cached code then gave zeros at other points. Found by a battery of ports
of autograd's and JAX's examples. The tape watches a copy."""
import numpy as np
import pytest

import srcgrad as sg

ANCHOR = np.array([0.3, -0.5])


def with_a_global(y):
    return np.sum(y ** 4) + 5.0 * np.sum((y - ANCHOR) ** 2)


def with_a_default(y, a=ANCHOR):
    return np.sum(y ** 4) + 5.0 * np.sum((y - a) ** 2)


class WithAnAttribute:
    def __init__(self, a):
        self.a = a

    def __call__(self, y):
        return np.sum(y ** 4) + 5.0 * np.sum((y - self.a) ** 2)


def with_an_argument(y, a):
    return np.sum(y ** 4) + 5.0 * np.sum((y - a) ** 2)


def _true(y):
    return np.diag(12 * y ** 2) + 10 * np.eye(2)


@pytest.mark.parametrize("f, rest", [(with_a_global, ()), (with_a_default, ()),
                                     (WithAnAttribute(ANCHOR), ()),
                                     (with_an_argument, (ANCHOR,))],
                         ids=["global", "default", "attribute", "argument"])
def test_hessian_at_the_array_read_elsewhere(f, rest):
    hessian = sg.hessian(f)
    np.testing.assert_allclose(hessian(ANCHOR, *rest), _true(ANCHOR), rtol=1e-12)
    other = np.array([0.1, 0.4])
    np.testing.assert_allclose(hessian(other, *rest), _true(other), rtol=1e-12)
    np.testing.assert_allclose(hessian(ANCHOR.copy(), *rest), _true(ANCHOR), rtol=1e-12)


def test_hvp_missing_an_argument_names_the_function():
    """(It named the generated code's ``x_dot``.)"""
    with pytest.raises(TypeError, match="hvp of with_an_argument.*missing a required argument"):
        sg.hvp(with_an_argument)(ANCHOR, np.ones(2))


def _quartic(a, z):
    return np.sum(z ** 4) + np.sum(np.sin(z) * a) ** 2


def test_jvp_and_hvp_of_a_partial():
    """(``sg.jvp``/``sg.hvp`` of ``functools.partial(f, a)`` raised a TypeError with a
    remedy that does not apply; ``sg.grad`` and ``sg.hessian`` took it.)"""
    import functools

    a = np.array([1.0, 2.0, 3.0])
    p = functools.partial(_quartic, a)
    x = np.array([0.4, -0.3, 0.7])
    v = np.array([1.0, -0.5, 2.0])
    np.testing.assert_allclose(sg.hvp(p)(x, v), sg.hessian(p)(x) @ v, rtol=1e-10)
    eps = 1e-6
    assert sg.jvp(p, (x,), (v,))[1] == pytest.approx(
        (p(x + eps * v) - p(x - eps * v)) / (2 * eps), rel=1e-6)
