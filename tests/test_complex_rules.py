"""Complex numbers (issue 13, section 3): TensorFlow's convention, checked against
central differences along the real and the imaginary axis of every input, in every
form (sg.grad, value_and_grad, a tape in plain code and in @sg.function, second
order), with refusals where a rule holds for real values only.

The convention: for a real loss ``L`` of ``z = x + iy`` the gradient is
``dL/dx + i dL/dy``; a complex result is differentiated as its real part (the
seed TensorFlow uses, ``ones_like``), so the gradient of a holomorphic ``f`` is
``conj(f'(z))``.
"""
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped_any

RNG = np.random.default_rng(7)
Z = RNG.normal(size=4) + 1j * RNG.normal(size=4)
W = RNG.normal(size=4) + 1j * RNG.normal(size=4)
X = RNG.normal(size=4)
C = RNG.normal(size=4) + 1j * RNG.normal(size=4)
ZM = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)) + 3 * np.eye(3)


def fd_gradient(f, args, i, eps=1e-6):
    """``dL/dx + i dL/dy`` of ``L = Re f(*args)`` for argument ``i``, one component at a
    time, along the real axis and (for a complex argument) the imaginary one."""
    x = np.asarray(args[i])
    out = np.zeros(x.shape, dtype=complex if np.iscomplexobj(x) else float)
    directions = [1.0, 1j] if np.iscomplexobj(x) else [1.0]
    for idx in np.ndindex(x.shape):
        for d in directions:
            def at(t):
                moved = x.astype(out.dtype, copy=True)
                moved[idx] += t * d
                new = list(args)
                new[i] = moved if np.ndim(args[i]) else moved[()].item()
                return np.real(f(*new))
            out[idx] += d * (at(eps) - at(-eps)) / (2 * eps)
    return out if np.ndim(args[i]) else out[()].item()


# -- the convention, on the issue's own examples ------------------------------------

def square(z):
    return z * z


def exponential(z):
    return np.exp(z)


@pytest.mark.parametrize("f, want", [
    (square, -0.2j),                                    # conj(2z) at z = 0.1j
    (exponential, np.cos(0.1) - 1j * np.sin(0.1)),      # conj(exp(0.1j))
])
def test_tensorflow_convention_for_complex_results(f, want):
    assert sg.grad(f)(0.1j) == pytest.approx(want, abs=1e-15)
    value, grad = sg.value_and_grad(f)(0.1j)
    assert value == pytest.approx(f(0.1j)) and grad == pytest.approx(want, abs=1e-15)
    z = np.array([0.1j])
    with sg.GradientTape() as tape:
        tape.watch(z)
        y = f(z)
    np.testing.assert_allclose(tape.gradient(y, z), [want], atol=1e-15)
    np.testing.assert_allclose(sg.function(taped_any)(f, [z])[0], [want], atol=1e-15)


def test_gradient_descent_steps_downhill():
    """``z -= lr * g`` lowers a real loss of a complex parameter, as written."""
    def loss(z):
        return np.sum(np.abs(z - C) ** 2)

    z = np.zeros(4, dtype=complex)
    for _ in range(50):
        z = z - 0.1 * sg.grad(loss)(z)
    np.testing.assert_allclose(z, C, atol=1e-4)


# -- programs, each checked in every form ---------------------------------------------

def elementwise_mix(z, w):
    u = np.sin(z) * np.exp(w) + np.sqrt(z * w) - np.log(w) / z
    return np.sum(np.abs(u) ** 2) + np.real(np.sum(np.tanh(z) * np.conj(w)))


def powers(z, w):
    return np.real(np.sum(z ** 3 + z ** w + 2.0 ** z + np.reciprocal(w) + np.square(z)))


def hyperbolic(z, w):
    a = np.cosh(z) + np.sinh(w) + np.arctan(z / 4) + np.arcsinh(w / 3) + np.expm1(z / 5)
    return np.real(np.sum(a * np.conj(C))) + np.imag(np.sum(np.log1p(w / 5)))


def parts(z, w):
    """real, imag, conj, angle, abs, as functions, methods and attributes."""
    u = z * w
    return np.sum(u.real ** 2 - np.imag(u) + np.angle(z) * np.abs(w)) \
        + np.real(np.sum(u.conj() * np.conjugate(z)))


def reductions(z, w):
    return np.abs(np.prod(z)) + np.real(np.mean(z * w)) + np.var(z) + np.std(w) \
        + np.real(np.sum(np.cumsum(z) * np.cumprod(w / 2)))


def products(z, w):
    A = np.outer(z, w)
    B = np.einsum("ij,jk->ik", A, np.conj(A.T))
    return np.real(np.trace(B)) + np.abs(z @ w) + np.real(np.dot(A, z)[0]) \
        + np.sum(np.abs(np.kron(z[:2], w[:2])))


def shapes(z, w):
    s = np.concatenate([z, w]).reshape(2, 4).T
    t = np.stack([z, w])[:, ::-1]
    return np.sum(np.abs(s[1:] - t.T[:-1]) ** 2) + np.real(np.sum(np.roll(z, 1) * np.flip(w))) \
        + np.real(np.sum(np.where(np.abs(z) > 1.0, z, w)))


def transforms(z, w):
    F = np.fft.fft(z * w)
    G = np.fft.ifft(np.fft.fftshift(w), n=6, norm="ortho")
    return np.sum(np.abs(F) ** 2) + np.real(np.sum(G * np.conj(G[::-1]))) \
        + np.sum(np.fft.irfft(z) ** 2)


def linear_algebra(z, w):
    A = np.outer(z, w) + 4.0 * np.eye(4)
    x = np.linalg.solve(A, z)
    return np.abs(np.linalg.det(A)) + np.real(np.sum(np.linalg.inv(A) @ w)) + np.sum(np.abs(x))


def python_scalars(z, w):
    """Python complex numbers, a loop, a helper returning a tuple."""
    def polar(u):
        return abs(u), np.angle(u)

    total = 0.0
    for k in range(3):
        r, theta = polar(z[k] * w[k] + 1j)
        total = total + r * np.cos(theta) + (z[k] ** 2).imag
    return total


def fidelity(z, w):
    """|<z, w>|^2 of normalized states (np.vdot conjugates its first argument)."""
    zn, wn = z / np.linalg.norm(z), w / np.linalg.norm(w)
    return np.abs(np.vdot(zn, wn)) ** 2 + np.real(np.vdot(w, z * 1j))


PROGRAMS = [elementwise_mix, powers, hyperbolic, parts, reductions, products, shapes,
            transforms, linear_algebra, python_scalars, fidelity]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_matches_differences_along_both_axes(f):
    got = sg.grad(f, wrt=(0, 1))(Z, W)
    for i, g in enumerate(got):
        assert np.iscomplexobj(g) and g.shape == Z.shape
        np.testing.assert_allclose(g, fd_gradient(f, (Z, W), i), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_every_form_agrees(f):
    want = sg.grad(f, wrt=(0, 1))(Z, W)
    value, grads = sg.value_and_grad(f, wrt=(0, 1))(Z, W)
    assert value == pytest.approx(f(Z, W), rel=1e-12)
    for form in (taped_any(f, [Z.copy(), W.copy()]),
                 sg.function(taped_any)(f, [Z.copy(), W.copy()]), grads):
        for got, expected in zip(form, want):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_order(f, check_second_order):
    # check_grads(order=2), one compile per gradient: conftest.py
    check_second_order(f, (Z, W), rtol=1e-4, atol=1e-6)


# -- every rule that holds for complex values as written (rules/complexes.py AS_IS), and
# the holomorphic products and decompositions, one call each, to second order -----------

ZA = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
CA = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))


def _projected(y):
    """A real loss reading every element of ``y`` along both axes."""
    c = np.resize(CA.ravel(), np.size(y)).reshape(np.shape(y))
    return np.real(np.sum(y * np.conj(c))) + np.sum(np.abs(y) ** 2) * 0.1


AS_IS_CASES = {
    "sum": lambda z: np.sum(z, axis=0),
    "mean": lambda z: np.mean(z, axis=1),
    "var": lambda z: np.var(z, axis=0),
    "std": lambda z: np.std(z),
    "cumsum": lambda z: np.cumsum(z, axis=1),
    "trace": lambda z: np.trace(z[:, :3]),
    "reshape": lambda z: z.reshape(4, 3),
    "ravel": lambda z: np.ravel(z),
    "T": lambda z: z.T,
    "swapaxes": lambda z: np.swapaxes(z, 0, 1),
    "moveaxis": lambda z: np.moveaxis(z, 0, 1),
    "expand": lambda z: np.expand_dims(z, 0),
    "squeeze": lambda z: np.squeeze(z[None]),
    "broadcast_to": lambda z: np.broadcast_to(z[0], (2, 4)),
    "flip": lambda z: np.flip(z, 1),
    "triu": lambda z: np.triu(z),
    "tril": lambda z: np.tril(z, 1),
    "concat": lambda z: np.concatenate([z, z * 2]),
    "hstack": lambda z: np.hstack([z, z]),
    "vstack": lambda z: np.vstack([z, z]),
    "stack": lambda z: np.stack([z, z], 1),
    "copy": lambda z: np.copy(z),
    "array": lambda z: np.array([z[0, 0], z[1, 1]]),
    "asarray": lambda z: np.asarray(z),
    "item": lambda z: z[0, 1].item(),
    "full_like": lambda z: np.full_like(z, z[0, 0]),
    "full": lambda z: np.full((2,), z[1, 1]),
    "repeat": lambda z: np.repeat(z, 2, axis=0),
    "tile": lambda z: np.tile(z, (2, 1)),
    "roll": lambda z: np.roll(z, 1, axis=1),
    "split": lambda z: np.split(z, 2, axis=1)[1],
    "array_split": lambda z: np.array_split(z, 3, axis=1)[2],
    "hsplit": lambda z: np.hsplit(z, 2)[0],
    "vsplit": lambda z: np.vsplit(z, 3)[1],
    "diag": lambda z: np.diag(z[:, :3]),
    "diag1": lambda z: np.diag(z[0]),
    "diagonal": lambda z: np.diagonal(z),
    "atleast": lambda z: np.atleast_3d(z),
    "flipud": lambda z: np.flipud(z),
    "fliplr": lambda z: np.fliplr(z),
    "rot90": lambda z: np.rot90(z),
    "rollaxis": lambda z: np.rollaxis(z, 1),
    "column_stack": lambda z: np.column_stack([z[0], z[1]]),
    "dstack": lambda z: np.dstack([z, z]),
    "append": lambda z: np.append(z, z[0]),
    "take": lambda z: np.take(z, [0, 2, 2], axis=1),
    "take_flat": lambda z: np.take(z, [1, 1, 5]),
    "take_along": lambda z: np.take_along_axis(z, np.array([[0, 2], [1, 1], [3, 0]]), 1),
    "diff": lambda z: np.diff(z, axis=1),
    "gradient": lambda z: np.gradient(z, axis=1),
    "where": lambda z: np.where(np.abs(z) > 1, z, 2 * z),
    "index": lambda z: z[[0, 0, 2], 1:3],
    "pad": lambda z: np.pad(z, 1),
    "pad_reflect": lambda z: np.pad(z, ((1, 0), (2, 1)), mode="reflect"),
    "prod": lambda z: np.prod(z, axis=0),
    "cumprod": lambda z: np.cumprod(z, axis=1),
    "kron": lambda z: np.kron(z[0], z[1]),
    "cross": lambda z: np.cross(z[0, :3], z[1, :3]),
    "inner": lambda z: np.inner(z, z),
    "vdot": lambda z: np.vdot(z, z * CA) + np.vdot(CA, z) * 1j,
    "tensordot": lambda z: np.tensordot(z, z, axes=([1], [1])),
    "einsum": lambda z: np.einsum("ij,kj->ik", z, z),
    "dot": lambda z: np.dot(z, z.T),
    "outer": lambda z: np.outer(z[0], z[1]),
    "solve": lambda z: np.linalg.solve(z[:, :3] + 3 * np.eye(3), z[:, 3]),
    "inv": lambda z: np.linalg.inv(z[:, :3] + 3 * np.eye(3)),
    "det": lambda z: np.linalg.det(z[:, :3]),
    "builtin_sum": lambda z: sum([z[0], z[1]]),
    "builtin_abs": lambda z: abs(z[0, 0]),
    "fftshift": lambda z: np.fft.fftshift(z),
    "ifftshift": lambda z: np.fft.ifftshift(z, axes=0),
}


def _loss_of(f):
    def loss(z):
        return _projected(f(z))
    return loss


@pytest.mark.parametrize("name", sorted(AS_IS_CASES))
def test_rule_takes_complex_values_to_second_order(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)  # no part dropped
        check_grads(_loss_of(AS_IS_CASES[name]), (ZA,), order=2)


# -- real inputs through complex values: real gradients --------------------------------

def spectrum_energy(x):
    return np.sum(np.abs(np.fft.rfft(x, n=7)) ** 2) + np.sum(np.real(np.exp(1j * x) * C))


def phase_loss(x, y):
    z = x + 1j * y
    return np.sum(np.angle(z) ** 2) + np.real(np.sum(z * z))


def as_complex(x):
    return np.sum(np.abs(np.sin(x.astype(complex) + 0.5j)))


@pytest.mark.parametrize("f, args", [(spectrum_energy, (X,)), (phase_loss, (X, X[::-1] + 2.0)),
                                     (as_complex, (X,))], ids=lambda v: getattr(v, "__name__", ""))
def test_real_inputs_get_real_gradients(f, args):
    wrt = tuple(range(len(args)))
    got = sg.grad(f, wrt=wrt)(*args)
    for i, g in enumerate(got):
        assert g.dtype == np.float64
        np.testing.assert_allclose(g, fd_gradient(f, args, i), rtol=1e-6, atol=1e-7)
    check_grads(f, args, order=2)
    for got_tape, expected in zip(taped_any(f, [a.copy() for a in args]), got):
        np.testing.assert_allclose(got_tape, expected, rtol=1e-10)


def test_complex_python_scalar_and_dtype_kept():
    g = sg.grad(lambda z: np.abs(z * z + 1.0))(0.3 + 0.4j)
    assert type(g) is complex
    assert g == pytest.approx(fd_gradient(lambda z: np.abs(z * z + 1.0), (0.3 + 0.4j,), 0))
    g64 = sg.grad(lambda z: np.sum(np.abs(z) ** 2))(Z.astype(np.complex64))
    assert g64.dtype == np.complex64


def test_check_grads_finds_a_wrong_complex_gradient():
    @sg.custom_gradient
    def wrong_square(z):
        return z * z, lambda g: g * 2 * z  # the holomorphic derivative, not its conjugate

    check_grads(lambda z: np.sum(np.abs(z * z + C) ** 2), (Z,), order=2)
    with pytest.raises(AssertionError, match="wrong"):
        check_grads(lambda z: np.sum(np.abs(wrong_square(z) + C) ** 2), (Z,), order=1)


def test_real_code_beside_complex_code_keeps_its_rules():
    """Rules for real values (maximum, clip, math) still run on the real values of a
    function that computes with complex ones elsewhere."""
    def f(x):
        r = np.maximum(x, 0.1) + np.clip(x, -0.5, 0.5)
        return np.sum(np.abs(r * np.exp(1j * x)) ** 2 * r)

    np.testing.assert_allclose(sg.grad(f)(X), fd_gradient(f, (X,), 0), rtol=1e-6, atol=1e-9)


# -- refused, never guessed -------------------------------------------------------------

def test_rule_for_real_values_refuses_a_complex_one():
    def f(z):
        return np.sum(np.abs(np.clip(z, 0.5, 2.0)))

    with pytest.raises(NotImplementedError,
                       match=r"clip \(test_complex_rules.py:\d+\) of a complex"):
        sg.grad(f)(Z)


def test_sign_of_a_complex_value_is_refused():
    def f(z):
        return np.real(np.sum(np.sign(z) * z))

    with pytest.raises(sg.CompileError, match="np.sign of a differentiated value that may be "
                                              "complex.*test_complex_rules.py"):
        sg.grad(f)(Z)


def test_jacobian_of_complex_code_row_by_row():
    """Row k of the Jacobian is the gradient of the real part of target[k] (TensorFlow's
    jacobian): conj(2 z_k) for z * z, 2 z_k for |z_k|^2."""
    z = Z.copy()
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(z)
        y = z * z
        r = np.abs(y)
    np.testing.assert_allclose(tape.jacobian(y, z), np.diag(np.conj(2 * Z)), rtol=1e-12)
    np.testing.assert_allclose(tape.jacobian(r, z), np.diag(2 * Z), rtol=1e-12)


class Filter:
    def __init__(self):
        self.kernel = C  # complex, and out of the compiler's sight


def test_complex_values_the_compiler_did_not_see_are_refused():
    """An object's complex attribute: the code was compiled for real values; its
    gradient would be wrong, so it is refused."""
    def f(x, flt):
        return np.sum(np.abs(x * flt.kernel))

    with pytest.raises(sg.CompileError, match="complex values reached code compiled for real"):
        sg.grad(f)(X, Filter())


@pytest.mark.parametrize("ord_, axis", [(None, None), (1, None), (3, None), (np.inf, None),
                                        (0.5, None), ("fro", None), (1, (0, 1)),
                                        (np.inf, (0, 1)), (2, 1)], ids=str)
def test_norms_of_complex_values(ord_, axis):
    z = ZA if axis is not None or ord_ == "fro" else ZA[0]

    def f(z):
        return np.sum(np.linalg.norm(z, ord_, axis) ** 2)

    np.testing.assert_allclose(sg.grad(f)(z), fd_gradient(f, (z,), 0), rtol=1e-6, atol=1e-7)
