"""0-d Variables (``sg.Variable(0.7)``, TensorFlow's most common scalar parameter) in a
tape's block: the compiled block computes with the Variable's NumPy scalar rather than
its 0-d array (scalar arithmetic instead of a ufunc call per operation), and everything
the user sees is as before: gradients, their types and dtypes, values the block binds,
second derivatives, Jacobians, in plain code and in ``@sg.function``.
The numbers are worked out by hand: f(a) = sin(a) a + a^2 has f' = cos(a) a + sin(a)
+ 2a and f'' = 2 cos(a) - sin(a) a + 2."""
import numpy as np
import pytest

import srcgrad as sg

A = 0.7
D1 = np.cos(A) * A + np.sin(A) + 2 * A
D2 = 2 * np.cos(A) - np.sin(A) * A + 2


def f(a):
    return np.sin(a) * a + a ** 2


def first(a):
    with sg.GradientTape() as tape:
        y = f(a)
    return y, tape.gradient(y, a)


def second(a):
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            y = f(a)
        d = inner.gradient(y, a)
    return d, outer.gradient(d, a)


def reads_it_as_an_array(a):
    with sg.GradientTape() as tape:
        same = a
        y = f(a) * float(np.ndim(a) + 1) + np.asarray(a) * a[()] + 0.0 * a.size
        shape = a.shape
    return y, same, shape, tape.gradient(y, a)


def vector_of(a):
    with sg.GradientTape() as tape:
        y = np.stack([a, a ** 2, np.sin(a)])
    return tape.jacobian(y, a)


def loop_of(a):
    with sg.GradientTape() as tape:
        s = a
        for _ in range(20):
            s = np.sin(s) * a + 0.5 * s
    return s, tape.gradient(s, a)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_first_and_second_derivative(form):
    run1, run2 = (first, second) if form == "plain" else (sg.function(first),
                                                          sg.function(second))
    a = sg.Variable(A)
    y, g = run1(a)
    assert y == pytest.approx(f(A), rel=1e-14)
    assert g == pytest.approx(D1, rel=1e-14)
    assert type(g) is np.float64
    d, h = run2(a)
    assert d == pytest.approx(D1, rel=1e-14) and h == pytest.approx(D2, rel=1e-12)
    assert type(h) is np.float64
    a.assign(0.2)  # (the next call reads the new value)
    assert run1(a)[1] == pytest.approx(np.cos(0.2) * 0.2 + np.sin(0.2) + 0.4, rel=1e-14)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_the_block_sees_what_an_array_would_give(form):
    run = reads_it_as_an_array if form == "plain" else sg.function(reads_it_as_an_array)
    a = sg.Variable(A)
    y, same, shape, g = run(a)
    assert same is a and shape == ()
    assert y == pytest.approx(f(A) + A * A, rel=1e-14)
    assert g == pytest.approx(D1 + 2 * A, rel=1e-14)


@pytest.mark.parametrize("form", ["plain", "function"])
def test_jacobian_and_a_loop(form):
    jac = vector_of if form == "plain" else sg.function(vector_of)
    loop = loop_of if form == "plain" else sg.function(loop_of)
    a = sg.Variable(A)
    np.testing.assert_allclose(jac(a), [1.0, 2 * A, np.cos(A)], rtol=1e-14)

    def s_of(x):
        s = x
        for _ in range(20):
            s = np.sin(s) * x + 0.5 * s
        return s
    s, g = loop(a)
    eps = 1e-6
    assert s == pytest.approx(s_of(A), rel=1e-14)
    assert g == pytest.approx((s_of(A + eps) - s_of(A - eps)) / (2 * eps), rel=1e-7)
    assert g == pytest.approx(sg.grad(s_of)(A), rel=1e-12)


def test_float32_and_complex_scalars_keep_their_dtypes():
    a = sg.Variable(np.float32(A))
    y, g = first(a)
    assert g.dtype == np.float32 and g == pytest.approx(D1, rel=1e-5)
    z = sg.Variable(0.3 + 0.2j)
    with sg.GradientTape() as tape:
        y = np.real(z * np.conj(z))  # |z|^2: its gradient is 2 z (TensorFlow's convention)
    g = tape.gradient(y, z)
    assert g == pytest.approx(2 * (0.3 + 0.2j), rel=1e-14)
