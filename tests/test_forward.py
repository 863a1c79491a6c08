"""Directional derivatives (issue 14, section 1): ``sg.jvp``, ``sg.hvp`` and
``sg.ForwardAccumulator``, checked against central differences and against the
gradient (``<jvp(t), v> == <t, vjp(v)>``), in several styles: several primals,
Python floats, trees, loops and branches, complex values, a tape block and
``@sg.function``. (Computed by transposing reverse mode for now: srcgrad/forward.py.)"""
import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(21)
X = RNG.normal(size=4)
V = RNG.normal(size=4)
W = RNG.normal(size=(3, 4))


def _fd(f, primals, tangents, eps=1e-6):
    def at(step):
        return f(*[_step(p, t, step) for p, t in zip(primals, tangents)])

    plus, minus = at(eps), at(-eps)
    if isinstance(plus, dict):
        return {k: (np.asarray(plus[k]) - np.asarray(minus[k])) / (2 * eps) for k in plus}
    if isinstance(plus, tuple):
        return tuple((np.asarray(a) - np.asarray(b)) / (2 * eps) for a, b in zip(plus, minus))
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)


def _step(p, t, step):
    if isinstance(p, dict):
        return {k: _step(p[k], t[k], step) for k in p}
    return p + step * t


def layer(x):
    return np.tanh(W @ x) * x[0]


def looped(x, scale):
    total = np.zeros(3)
    for i in range(3):
        if x[i] > 0:
            total = total + scale * np.sin(x[i:i + 2].sum())
        else:
            total = total - x[i] ** 2
    return total


def tree_in_tree_out(p):
    h = np.tanh(W @ p["w"]) * p["s"]
    return {"h": h, "norm": np.sum(h ** 2)}


def tuple_out(x, y):
    return x * y, np.sum(x) ** 2 * y


CASES = [
    (layer, (X,), (V,)),
    (looped, (X, 1.5), (V, -0.5)),
    (tree_in_tree_out, ({"w": X, "s": 0.7},), ({"w": V, "s": 0.2},)),
    (tuple_out, (X, 2.0), (V, 0.3)),
]


@pytest.mark.parametrize("f, primals, tangents", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_matches_central_differences(f, primals, tangents):
    value, tangent = sg.jvp(f, primals, tangents)
    if isinstance(value, (dict, tuple)):  # the tangent of a tree result has its structure
        assert type(tangent) is type(value) and len(tangent) == len(value)
    for got, want in zip(_flat(tangent), _flat(_fd(f, primals, tangents))):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    for got, want in zip(_flat(value), _flat(f(*primals))):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def _flat(value):
    if isinstance(value, dict):
        return [value[k] for k in value]
    return list(value) if isinstance(value, tuple) else [value]


def test_jvp_is_the_transpose_of_the_gradient():
    """<J t, u> == <t, J^T u> for a random seed u, J^T u from sg.grad."""
    u = RNG.normal(size=3)
    _, jt = sg.jvp(layer, (X,), (V,))
    vjp = sg.grad(lambda x: np.sum(layer(x) * u))(X)
    assert np.dot(jt, u) == pytest.approx(np.dot(V, vjp), rel=1e-10)


def test_jvp_of_complex_values():
    z = X + 1j * V

    def f(z):
        return np.exp(z) * z

    for t in (V + 0j, 1j * V):  # along the real and the imaginary axis
        _, tangent = sg.jvp(f, (z,), (t,))
        np.testing.assert_allclose(tangent, np.exp(z) * (z + 1) * t, rtol=1e-10)


def test_jvp_refuses_mismatched_or_integer_tangents():
    with pytest.raises(ValueError, match="shape"):
        sg.jvp(layer, (X,), (V[:2],))
    with pytest.raises(TypeError, match="float"):
        sg.jvp(layer, (X,), (np.arange(4),))
    with pytest.raises(ValueError, match="one tangent per primal"):
        sg.jvp(looped, (X, 1.0), (V,))


def energy(x):
    return np.sum(np.exp(x) * x ** 2) + np.sum(W @ x) ** 2


def _hessian_of_energy(x):
    return np.diag(np.exp(x) * (x ** 2 + 4 * x + 2)) + 2 * np.outer(W.sum(0), W.sum(0))


def test_hvp_is_the_hessian_times_v():
    np.testing.assert_allclose(sg.hvp(energy)(X, V), _hessian_of_energy(X) @ V, rtol=1e-10)


def test_hvp_of_a_tree():
    def loss(p):
        return np.sum(np.sin(p["w"]) * p["b"]) ** 2

    p, v = {"w": X, "b": 0.3}, {"w": V, "b": 0.1}
    got = sg.hvp(loss)(p, v)
    want = _fd(lambda q: sg.grad(loss)(q), (p,), (v,))
    np.testing.assert_allclose(got["w"], want["w"], rtol=1e-5)
    assert got["b"] == pytest.approx(want["b"], rel=1e-5)


def _accumulated_hvp(x, v):
    with sg.ForwardAccumulator(x, v) as acc:
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = energy(x)
        g = tape.gradient(y, x)
    return acc.jvp(g)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_forward_accumulator_around_a_tape_is_a_hessian_vector_product(placement):
    run = _accumulated_hvp if placement == "plain" else sg.function(_accumulated_hvp)
    np.testing.assert_allclose(run(X.copy(), V), _hessian_of_energy(X) @ V, rtol=1e-10)
    np.testing.assert_allclose(run(X.copy(), 2 * V), _hessian_of_energy(X) @ (2 * V),
                               rtol=1e-10)


def test_forward_accumulator_jvp_of_values_in_its_block():
    x = X.copy()
    with sg.ForwardAccumulator(primals=x, tangents=V) as acc:
        z = np.tanh(W @ x)
        twice = x * 2.0
        constant = np.ones(3)
    np.testing.assert_allclose(acc.jvp(z), (1 - z ** 2) * (W @ V), rtol=1e-10)
    np.testing.assert_allclose(acc.jvp([twice, z])[0], 2 * V, rtol=1e-12)
    assert acc.jvp(constant) is None
    np.testing.assert_array_equal(acc.jvp(constant, unconnected_gradients="zero"), np.zeros(3))


def test_hessian_is_symmetric_and_the_derivative_of_the_gradient():
    H = sg.hessian(energy)(X)
    np.testing.assert_allclose(H, _hessian_of_energy(X), rtol=1e-10)
    M = RNG.normal(size=(2, 3))
    Hm = sg.hessian(lambda m: np.sum(np.sin(m) * m[0, 0]))(M)
    assert Hm.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(Hm, np.swapaxes(np.swapaxes(Hm, 0, 2), 1, 3), atol=1e-12)
    eps = 1e-6
    g = sg.grad(lambda m: np.sum(np.sin(m) * m[0, 0]))
    step = np.zeros((2, 3))
    step[1, 2] = eps
    np.testing.assert_allclose(Hm[..., 1, 2], (g(M + step) - g(M - step)) / (2 * eps), rtol=1e-6,
                               atol=1e-8)
    assert sg.hessian(lambda t: t ** 3)(2.0) == pytest.approx(12.0)


def test_jvp_of_a_constant_and_of_the_identity():
    assert sg.jvp(lambda x: 3.0, (X,), (V,)) == (3.0, 0.0)
    value, tangent = sg.jvp(lambda x: x, (X,), (V,))
    np.testing.assert_array_equal(tangent, V)


def mlp_of_layers(layers, x):
    h = x
    for W, b in layers:
        h = np.tanh(W @ h + b)
    return np.sum(h ** 2)


def test_jvp_of_trees_runs_forward_mode():
    """Parameter trees go through the function of their leaves, in forward mode."""
    import srcgrad.forward as forward

    layers = [(W, np.ones(3)), (RNG.normal(size=(2, 3)), np.zeros(2))]
    dirs = [(RNG.normal(size=W.shape), RNG.normal(size=3)),
            (RNG.normal(size=(2, 3)), RNG.normal(size=2))]
    value, tangent = sg.jvp(mlp_of_layers, (layers, X), (dirs, V))
    eps = 1e-6
    step = [[(W_ + eps * dW, b + eps * db) for (W_, b), (dW, db) in zip(layers, dirs)],
            [(W_ - eps * dW, b - eps * db) for (W_, b), (dW, db) in zip(layers, dirs)]]
    numeric = (mlp_of_layers(step[0], X + eps * V) - mlp_of_layers(step[1], X - eps * V)) / (2 * eps)
    assert value == pytest.approx(mlp_of_layers(layers, X), rel=1e-12)
    assert tangent == pytest.approx(numeric, rel=1e-6)
    assert any(key[0] == "tree" for cache in forward._FORWARD.values() for key in cache)


def test_transposed_jvp_refuses_what_grad_refuses():
    """Hunt 13: sg.jvp by transposition (complex values inside: an FFT) differentiated
    the adjoint at a zero seed, where eigh's adjoint skipped its check for an
    eigenvector of a repeated eigenvalue, and returned 0.0 at a jump (one-sided slopes
    of +-5e5); sg.grad refuses. The seed is ones now."""
    def f(x):
        v = np.linalg.eigh(x)[1]
        return np.sum(v[:, 0] ** 2 * np.array([1.0, 2.0, 3.0])) + np.sum(np.real(np.fft.fft(x[0])))
    x = np.diag([1.0, 1.0, 3.0])
    t = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    with pytest.raises(sg.CompileError, match="repeated eigenvalue"):
        sg.grad(f)(x.copy())
    with pytest.raises(sg.CompileError, match="repeated eigenvalue"):
        sg.jvp(f, (x.copy(),), (t,))


def test_transposed_jvp_of_a_vector_value_is_unchanged_by_the_seed():
    """The derivative in the seed is the same at any seed (the adjoint is linear in it):
    a vector result through an FFT, against central differences."""
    def f(x):
        return np.real(np.fft.fft(np.sin(x) * x[0]))
    x = np.array([0.3, -0.8, 1.1, 0.4])
    t = np.array([0.2, 0.5, -0.4, 1.0])
    _, got = sg.jvp(f, (x,), (t,))
    eps = 1e-6
    np.testing.assert_allclose(got, (f(x + eps * t) - f(x - eps * t)) / (2 * eps), rtol=1e-6,
                               atol=1e-8)


def test_float32_in_float32_out_of_hvp_and_of_forward_mode_over_a_gradient():
    """Gradients keep their input's dtype; hvp and jvp of sg.grad(f) gave float64 (the
    forward code of a gradient stops short of the gradient's own cast)."""
    def f(x):
        return np.sum(np.sin(x) * x)
    x = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    v = np.ones(3, np.float32)
    value, tangent = sg.jvp(sg.grad(f), (x,), (v,))
    assert sg.hvp(f)(x, v).dtype == value.dtype == tangent.dtype == np.float32
    np.testing.assert_allclose(tangent, sg.hvp(f)(x.astype(float), v.astype(float)), rtol=1e-5)
    assert sg.jvp(f, (x,), (v,))[1].dtype == np.float32
