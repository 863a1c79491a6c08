"""Forward mode of functions with parameters left to their defaults (realistic-program
hunt 2: eight programs crashed in sg.jvp/sg.hvp with "missing 1 required positional
argument: 'x_dot'": the tangent code takes every parameter, then the tangents)."""
import numpy as np
import pytest

import srcgrad as sg

X, V = np.array([1.0, 2.0]), np.array([1.0, -0.5])


def scaled(x, scale=2.0):
    return np.sum(scale * x ** 2)


def keyword_only(x, *, k=3.0, power=3):
    return np.sum(k * x ** power)


def two_and_a_default(x, y, scale=2.0, shift=0.5):
    return np.sum(scale * np.sin(x) * y + shift)


def _numeric_jvp(f, args, tangents, eps=1e-6):
    plus = f(*[a + eps * t for a, t in zip(args, tangents)])
    minus = f(*[a - eps * t for a, t in zip(args, tangents)])
    return (plus - minus) / (2 * eps)


@pytest.mark.parametrize("f, args", [(scaled, (X,)), (keyword_only, (X,)),
                                     (two_and_a_default, (X, X[::-1].copy()))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_and_hvp_with_defaults(f, args):
    tangents = tuple(V for _ in args)
    value, tangent = sg.jvp(f, args, tangents)
    assert value == pytest.approx(f(*args), rel=1e-12)
    assert tangent == pytest.approx(_numeric_jvp(f, args, tangents), rel=1e-6)
    hv = sg.hvp(f)(*args, V)
    gradient = sg.grad(f)
    eps = 1e-6
    numeric = (gradient(args[0] + eps * V, *args[1:]) - gradient(args[0] - eps * V, *args[1:])) \
        / (2 * eps)
    np.testing.assert_allclose(hv, numeric, rtol=1e-6, atol=1e-8)


def test_defaults_changed_between_calls_are_read_again():
    """The binding of a call (which parameters take their defaults) is remembered per
    function while its defaults are the same objects; new defaults are read."""
    def f(x, scale=2.0, *, shift=0.0):
        return np.sum(scale * x ** 2 + shift * x)

    t = np.array([1.0, 0.0])
    for scale, shift in [(2.0, 0.0), (3.0, 0.0), (3.0, 5.0)]:
        f.__defaults__, f.__kwdefaults__ = (scale,), {"shift": shift}
        for _ in range(2):  # (the second call reuses what the first bound)
            _, tangent = sg.jvp(f, (X,), (t,))
            assert tangent == pytest.approx(2 * scale * X[0] + shift)
            np.testing.assert_allclose(sg.hvp(f)(X, t), [2 * scale, 0.0])
