"""Complex values through rules that were for real values only (issue 13, found running
autograd's own test suite translated to srcgrad): max/min/maximum/minimum in NumPy's
order of complex numbers, the holomorphic functions of ``scipy.special``, and
``np.linalg.svd``/``eigh``/``eigvalsh`` of complex (Hermitian) matrices; the nuclear
norm, real and complex.

TensorFlow's convention (``rules/complexes.py``): for a real loss ``L`` of
``z = x + iy`` the gradient is ``dL/dx + i dL/dy``. Every case is checked against
central differences along the real and the imaginary axis of every input, in every
form (sg.grad, value_and_grad, a tape in plain code and in @sg.function, sg.jvp,
second order through ``check_grads``); refusals where there is no derivative.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped_any

RNG = np.random.default_rng(13)


def _cplx(*shape):
    return RNG.normal(size=shape) + 1j * RNG.normal(size=shape)


def fd_gradient(f, args, i, eps=1e-6):
    """``dL/dx + i dL/dy`` of ``L = Re f(*args)`` for argument ``i``, component by component."""
    x = np.asarray(args[i])
    out = np.zeros(x.shape, dtype=complex if np.iscomplexobj(x) else float)
    directions = [1.0, 1j] if np.iscomplexobj(x) else [1.0]
    for idx in np.ndindex(x.shape):
        for d in directions:
            def at(t):
                moved = x.astype(out.dtype, copy=True)
                moved[idx] += t * d
                new = list(args)
                new[i] = moved
                return np.real(f(*new))
            out[idx] += d * (at(eps) - at(-eps)) / (2 * eps)
    return out


def assert_every_form(f, args, rtol=1e-6, atol=1e-7, order=2, second_rtol=1e-4):
    """The gradient matches central differences along both axes, in every form."""
    wrt = tuple(range(len(args)))
    want = [fd_gradient(f, args, i) for i in wrt]
    got = sg.grad(f, wrt=wrt)(*[np.copy(a) for a in args])
    for g, w, a in zip(got, want, args):
        assert np.shape(g) == np.shape(a)
        assert np.iscomplexobj(g) == np.iscomplexobj(a)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    value, grads = sg.value_and_grad(f, wrt=wrt)(*[np.copy(a) for a in args])
    assert value == pytest.approx(f(*args), rel=1e-12)
    for form in (grads, taped_any(f, [np.copy(a) for a in args]),
                 sg.function(taped_any)(f, [np.copy(a) for a in args])):
        for g, w in zip(form, got):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    # Forward mode (sg.jvp) along a random direction, against central differences.
    tangents = tuple(_cplx(*np.shape(a)) if np.iscomplexobj(a) else RNG.normal(size=np.shape(a))
                     for a in args)
    _, jvp = sg.jvp(f, tuple(np.copy(a) for a in args), tangents)
    eps = 1e-6
    numeric = (f(*[a + eps * t for a, t in zip(args, tangents)])
               - f(*[a - eps * t for a, t in zip(args, tangents)])) / (2 * eps)
    assert float(np.real(jvp)) == pytest.approx(float(np.real(numeric)), rel=1e-6, abs=1e-7)
    if order >= 2:
        check_grads(f, tuple(np.copy(a) for a in args), order=order, rtol=second_rtol,
                    atol=1e-6)


# -- max/min in NumPy's order of complex values (real part, then imaginary part) -----

Z = _cplx(5)
ZM = _cplx(3, 4)
W = _cplx(5)
C5 = _cplx(5)


EXTREMES = {
    "max": lambda z: np.abs(np.max(z) - 0.3j) ** 2,
    "amax": lambda z: np.real(np.amax(z) * (1 - 2j)),
    "min": lambda z: np.abs(np.min(z) + 1.0) ** 2,
    "amin": lambda z: np.imag(np.amin(z) ** 2),
    "max_axis": lambda z: np.sum(np.abs(np.max(z.reshape(5, 1) * C5, axis=0) - 1j) ** 2),
    "min_axis_keepdims": lambda z: np.sum(np.abs(np.min(z.reshape(5, 1) * C5, axis=1,
                                                        keepdims=True)) ** 2),
    "method": lambda z: np.real(z.max() * np.conj(z.min())),
    "maximum": lambda z: np.sum(np.abs(np.maximum(z, W) - C5) ** 2),
    "minimum": lambda z: np.sum(np.real(np.minimum(z, W) * C5)),
    "maximum_broadcast": lambda z: np.sum(np.abs(np.maximum(z.reshape(5, 1), W)) ** 2),
    "fmax": lambda z: np.sum(np.abs(np.fmax(W, z) ** 2)),
    "fmin": lambda z: np.sum(np.imag(np.fmin(z, W) * C5)),
    "maximum_self": lambda z: np.sum(np.abs(np.maximum(z, z[::-1])) ** 2),
}


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_complex_extremes(name):
    assert_every_form(EXTREMES[name], (Z,))


def test_complex_extremes_of_a_matrix_and_two_operands():
    def f(a, b):
        return np.sum(np.abs(np.max(a, axis=1)) ** 2) + np.real(np.sum(np.minimum(a, b) * ZM))

    assert_every_form(f, (_cplx(3, 4), _cplx(3, 4)))


def test_gradient_goes_to_the_element_numpy_selects():
    z = np.array([1 + 5j, 2 - 1j, 1.5 - 3j, -4 + 0j])  # max is 2 - 1j: real parts first
    g = sg.grad(lambda z: np.real(np.max(z)) + 3 * np.imag(np.max(z)))(z)
    np.testing.assert_array_equal(g, [0, 1 + 3j, 0, 0])
    g = sg.grad(lambda z: np.real(np.min(z) * 1j))(z)  # min is -4: Re(i z) = -y
    np.testing.assert_array_equal(g, [0, 0, 0, -1j])


def test_equal_elements_share_as_for_reals():
    z = np.array([2 + 1j, 2 + 1j, 0j])
    g = sg.grad(lambda z: np.real(np.max(z)))(z)
    np.testing.assert_array_equal(g, [0.5, 0.5, 0])
    g = sg.grad(lambda z: np.sum(np.real(np.maximum(z, z[::-1]))))(z)
    np.testing.assert_array_equal(g, [2.0, 1.0, 0.0])  # z[1] ties itself: 0.5 + 0.5


def test_real_inputs_in_complex_code_keep_real_gradients():
    def f(x):
        return np.abs(np.max(x) * (1 + 1j)) + np.sum(np.maximum(x, 0.0) * np.exp(1j * x)).real

    x = RNG.normal(size=5)
    g = sg.grad(f)(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, fd_gradient(f, (x,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [lambda z: np.real(np.max(z)),
                               lambda z: np.sum(np.real(np.minimum(z, z[::-1])))],
                         ids=["max", "minimum"])
def test_real_parts_tied_with_different_imaginary_parts_are_refused(f):
    """max(1 + 0j, 1 + 1j) is 1 + 1j; move the first real part up by a hair and it is
    that element: the result jumps, there is no derivative."""
    z = np.array([1 + 0j, 1 + 1j, 1 - 2j, -3 + 0j])
    with pytest.raises(NotImplementedError, match="real parts tie"):
        sg.grad(f)(z)


# -- scipy.special's holomorphic functions of complex arguments ------------------------

special = pytest.importorskip("scipy.special")

ZS = 0.8 * _cplx(4) + 1.0  # right of the branch cuts on the negative real axis
VS = np.array([0.5, 1.0, 2.5, 0.0])

SPECIAL = {
    "erf": (lambda z: np.sum(np.abs(special.erf(z) - C5[:4]) ** 2), 2),
    "erfc": (lambda z: np.sum(np.real(special.erfc(z) * C5[:4])), 2),
    "xlogy": (lambda z: np.sum(np.abs(special.xlogy(z, z[::-1] + 1j)) ** 2), 2),
    "xlog1py": (lambda z: np.sum(np.imag(special.xlog1py(z * 1j, z))), 2),
    "iv": (lambda z: np.sum(np.abs(special.iv(VS, z)) ** 2), 2),
    "jv": (lambda z: np.sum(np.real(special.jv(VS, z) * C5[:4])), 2),
    "yv": (lambda z: np.sum(np.abs(special.yv(1.5, z)) ** 2), 2),
    # (Second order reads digamma's slope, zeta(2, z): SciPy's zeta takes real z only.)
    "gamma": (lambda z: np.sum(np.abs(special.gamma(z)) ** 2), 1),
    "rgamma": (lambda z: np.sum(np.real(special.rgamma(z) * C5[:4])), 1),
    # (Issue 13's second list.)
    "erfi": (lambda z: np.sum(np.abs(special.erfi(0.5 * z)) ** 2), 2),
    "dawsn": (lambda z: np.sum(np.real(special.dawsn(z) * C5[:4])), 2),
    "kv": (lambda z: np.sum(np.abs(special.kv(VS, z)) ** 2), 2),
    "kve": (lambda z: np.sum(np.imag(special.kve(1.5, z))), 2),
    "hyp1f1": (lambda z: np.sum(np.abs(special.hyp1f1(0.7, 1.9, z)) ** 2), 2),
    "hyp2f1": (lambda z: np.sum(np.real(special.hyp2f1(0.5, 1.5, 2.5, 0.4 * z) * C5[:4])), 2),
    "spence": (lambda z: np.sum(np.abs(special.spence(z)) ** 2), 2),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_functions_of_complex_values(name):
    f, order = SPECIAL[name]
    assert_every_form(f, (ZS,), order=order)


def test_erf_is_conjugate_of_its_derivative():
    """The issue's own check: erf of a complex z, gradient conj(2/sqrt(pi) exp(-z^2))."""
    z = np.array([0.3 + 0.7j, -1.2 + 0.1j])
    g = sg.grad(lambda z: np.sum(np.real(special.erf(z))))(z)
    np.testing.assert_allclose(g, np.conj(2 / np.sqrt(np.pi) * np.exp(-z * z)), rtol=1e-14)


def test_gamma_second_derivative_of_a_complex_value_is_refused():
    def first(z):
        return np.sum(np.real(sg.grad(lambda z: np.sum(np.real(special.gamma(z))))(z) * C5[:4]))

    with pytest.raises(NotImplementedError, match="digamma or polygamma of a complex value"):
        sg.grad(first)(ZS)


@pytest.mark.parametrize("f", [lambda z: np.sum(np.abs(special.digamma(z))),
                               lambda z: np.sum(np.abs(special.ive(1.0, z)))],
                         ids=["digamma", "ive"])
def test_special_functions_without_a_complex_rule_are_refused(f):
    with pytest.raises(NotImplementedError, match="of a complex value"):
        sg.grad(f)(ZS)


# -- np.linalg.eigh/eigvalsh/svd of complex (Hermitian) matrices ----------------------
# Complex eigen- and singular vectors are unique up to a phase each (shared by u_i and
# v_i for the SVD), LAPACK's convention: the losses here depend on the vectors only
# through phase-invariant quantities (|v|, v v^H, u v^H, |x^H v|); one that does not
# is refused.

A34 = _cplx(3, 4)
A43 = _cplx(4, 3)
A33 = _cplx(3, 3)
CM = _cplx(4, 4)
X4 = _cplx(4)


def _hermitian(a):
    return a + np.conj(a.T)


def eigh_values(a):
    w = np.linalg.eigh(a)[0]
    return np.sum(w ** 2 * np.arange(1.0, 4.0)) + np.sum(np.linalg.eigvalsh(a, "U") ** 3)


def eigh_vectors(a):
    w, v = np.linalg.eigh(a)
    return np.sum(np.abs(v) ** 2 * np.real(CM[:3, :3])) + np.sum(w * np.arange(3.0)) \
        + np.abs(np.vdot(X4[:3], v[:, 1])) ** 2


def eigh_projector(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    p = np.outer(v[:, 0], np.conj(v[:, 0]))  # the projector onto an eigenvector
    return np.real(np.sum(p * CM[:3, :3])) + w[2]


def svd_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 2 * np.arange(1.0, 4.0)) \
        + np.sum(np.log(np.linalg.svd(a, compute_uv=False)))


def svd_vectors(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = len(s)
    return np.sum(np.abs(u) ** 2 * np.real(CM[:u.shape[0], :k])) \
        + np.sum(np.abs(vh) ** 3 * np.imag(CM[:k, :vh.shape[1]])) + np.sum(s * np.arange(k)) \
        + np.real(np.sum(np.matmul(u, vh) * CM[:a.shape[0], :a.shape[1]]))


def svd_polar(a):
    """U V^H, the unitary polar factor: phase-invariant."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.real(np.sum((u @ vh) * CM[:a.shape[0], :a.shape[1]])) + np.sum(s ** 2)


def svd_hermitian(a):
    u, s, vh = np.linalg.svd(a, hermitian=True)
    return np.sum(np.abs(u[:, 0]) ** 2 * np.arange(3.0)) + np.sum(s) \
        + np.sum(np.linalg.svd(a, compute_uv=False, hermitian=True) ** 2)


DECOMPOSITIONS = {
    "eigh_values": (eigh_values, lambda: _hermitian(A33)),
    "eigh_values_nonhermitian_input": (eigh_values, lambda: A33.copy()),  # one triangle read
    "eigh_vectors": (eigh_vectors, lambda: _hermitian(A33)),
    "eigh_projector_upper": (eigh_projector, lambda: _hermitian(A33)),
    "svd_values_wide": (svd_values, lambda: A34.copy()),
    "svd_values_tall": (svd_values, lambda: A43.copy()),
    "svd_vectors_wide": (svd_vectors, lambda: A34.copy()),
    "svd_vectors_tall": (svd_vectors, lambda: A43.copy()),
    "svd_vectors_square": (svd_vectors, lambda: A33.copy()),
    "svd_polar_square": (svd_polar, lambda: A33.copy()),
    "svd_hermitian": (svd_hermitian, lambda: _hermitian(A33) + np.diag([4.0, 0.0, -2.0])),
}


@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_complex_decompositions(name):
    f, build = DECOMPOSITIONS[name]
    assert_every_form(f, (build(),), rtol=1e-5, atol=1e-6)


def test_complex_decompositions_stacked():
    def f(a):
        w, v = np.linalg.eigh(a @ np.conj(np.swapaxes(a, -1, -2)))
        s = np.linalg.svd(a, compute_uv=False)
        u, s2, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(np.abs(v) ** 2 * np.arange(3.0)) + np.sum(w) + np.sum(s ** 3) \
            + np.sum(np.abs(u) * np.arange(3.0))

    assert_every_form(f, (_cplx(2, 3, 4),), rtol=1e-5, atol=1e-6)


def test_real_matrices_in_complex_code_keep_real_gradients():
    def f(a):
        w, v = np.linalg.eigh(a + a.T)
        s = np.linalg.svd(a * (1 + 2j), compute_uv=False)
        return np.sum(np.abs(v[:, 0] * (1 + 1j))) + np.sum(s * w)

    a = RNG.normal(size=(3, 3))
    g = sg.grad(f)(a)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, fd_gradient(f, (a,), 0), rtol=1e-6, atol=1e-7)
    check_grads(f, (a,), order=2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("f, build", [
    (lambda a: np.real(np.sum(np.linalg.eigh(a)[1] * CM[:3, :3])), lambda: _hermitian(A33)),
    (lambda a: np.real(np.sum(np.linalg.svd(a)[0] * CM[:3, :3])), lambda: A34.copy()),
    (lambda a: np.imag(np.sum(np.linalg.svd(a, full_matrices=False)[2])), lambda: A43.copy()),
], ids=["eigh", "svd-u", "svd-vh"])
def test_a_loss_that_depends_on_the_phases_is_refused(f, build):
    with pytest.raises(NotImplementedError, match="depends on the phases"):
        sg.grad(f)(build())


def test_complex_singular_vectors_of_a_zero_singular_value_are_refused():
    """The relative phase of u_i and v_i for s_i == 0 is not determined by the matrix."""
    a = A33.copy()
    a[2] = a[0] + 2j * a[1]  # rank 2

    def f(a):
        u, s, vh = np.linalg.svd(a)
        return np.real(np.sum((u @ vh) * CM[:3, :3]))

    with pytest.raises(NotImplementedError, match="zero one of a non-square or complex"):
        sg.grad(f)(a)


def test_jacobian_rows_of_complex_code():
    """tape.jacobian: row k is the gradient of the real part of output k."""
    a = A34.copy()
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(a)
        s = np.linalg.svd(a, compute_uv=False)
        w = np.linalg.eigvalsh(a @ np.conj(a.T))
        top = np.max(a, axis=1)
    for out, f in [(s, lambda a, k: np.linalg.svd(a, compute_uv=False)[k]),
                   (w, lambda a, k: np.linalg.eigvalsh(a @ np.conj(a.T))[k]),
                   (top, lambda a, k: np.real(np.max(a, axis=1)[k]))]:
        jac = tape.jacobian(out, a)
        for k in range(3):
            np.testing.assert_allclose(jac[k], fd_gradient(lambda a: f(a, k), (a,), 0),
                                       rtol=1e-6, atol=1e-7)


# -- np.linalg.norm(x, 'nuc'): the sum of the singular values, real and complex --------

from tape_forms import assert_forms_agree, assert_forward_mode_agrees  # noqa: E402

R34 = RNG.normal(size=(3, 4))
R234 = RNG.normal(size=(2, 3, 4))

NUCLEAR = {
    "matrix": (lambda x: np.linalg.norm(x, "nuc"), R34),
    "squared": (lambda x: np.linalg.norm(x.T, "nuc") ** 2, R34),
    "axes": (lambda x: np.sum(np.linalg.norm(x, "nuc", axis=(0, 2)) * np.arange(1.0, 4.0)),
             R234),
    "axes_reversed_keepdims": (lambda x: np.sum(np.linalg.norm(x, ord="nuc", axis=(-1, 1),
                                                               keepdims=True) ** 2), R234),
    "stacked": (lambda x: np.sum(np.sqrt(np.linalg.norm(x, "nuc", axis=(1, 2)))), R234),
}


@pytest.mark.parametrize("name", sorted(NUCLEAR))
def test_nuclear_norm_of_real_matrices(name):
    f, x = NUCLEAR[name]
    want = fd_gradient(f, (x,), 0)
    np.testing.assert_allclose(sg.grad(f)(x.copy()), want, rtol=1e-6, atol=1e-8)
    assert_forms_agree(f, (x.copy(),), nonzero=True)
    np.testing.assert_allclose(sg.function(taped_any)(f, [x.copy()])[0], want, rtol=1e-6,
                               atol=1e-8)
    assert_forward_mode_agrees(f, (x.copy(),))
    check_grads(f, (x.copy(),), order=2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", sorted(NUCLEAR))
def test_nuclear_norm_of_complex_matrices(name):
    f, x = NUCLEAR[name]
    assert_every_form(f, (x + 1j * RNG.normal(size=x.shape),), rtol=1e-6, atol=1e-7)


def test_nuclear_norm_is_the_sum_of_singular_values_and_its_jacobian_rows():
    z = A34.copy()
    got = sg.grad(lambda z: np.linalg.norm(z, "nuc"))(z)
    u, s, vh = np.linalg.svd(z, full_matrices=False)
    np.testing.assert_allclose(got, u @ vh, rtol=1e-12)  # U V^H
    x = R234.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.linalg.norm(x, "nuc", axis=(1, 2))
    jac = tape.jacobian(y, x)
    for k in range(2):
        np.testing.assert_allclose(
            jac[k], fd_gradient(lambda x: np.linalg.norm(x, "nuc", axis=(1, 2))[k], (x,), 0),
            rtol=1e-6, atol=1e-8)


# -- np.linalg.pinv of a rank-deficient matrix: no derivative, refused with the rewrite --

def test_pinv_of_a_rank_deficient_matrix_is_refused_with_the_full_rank_rewrite():
    """pinv(x.T @ x) for x of 5 rows and 7 columns: rank 5 of 7. NumPy's pinv jumps there
    (central differences of pinv(A) itself along a random direction grow as 1/h^2),
    so it is refused; pinv(x) @ pinv(x).T, the same matrix, goes through full-rank
    factors and is differentiated exactly."""
    x = RNG.normal(size=(5, 7))
    weights = np.arange(49.0).reshape(7, 7)

    def low_rank(x):
        return np.sum(np.linalg.pinv(x.T @ x) * weights)

    def factored(x):
        p = np.linalg.pinv(x)
        return np.sum((p @ p.T) * weights)

    with pytest.raises(NotImplementedError, match=r"pinv\(x\) @ pinv\(x\).T"):
        sg.grad(low_rank)(x)
    assert factored(x) == pytest.approx(low_rank(x), rel=1e-9)
    np.testing.assert_allclose(sg.grad(factored)(x), fd_gradient(low_rank, (x,), 0),
                               rtol=1e-5, atol=1e-7)
    assert_forms_agree(factored, (x,), nonzero=True)
    assert_forward_mode_agrees(factored, (x,))
    check_grads(factored, (x,), order=2)


def test_real_decompositions_still_run_forward_over_their_gradient():
    """The helpers' complex forms use no complex literal or np.conj: real code that calls
    them, differentiated again, still compiles in forward mode (sg.hvp)."""
    from srcgrad.forward import _forward

    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        w, v = np.linalg.eigh(a @ a.T)
        return np.sum(np.abs(u) ** 3) + np.sum(s ** 3) + np.linalg.norm(a, "nuc") \
            + np.sum(v[:, 0] ** 4) + w[-1] ** 2

    a = R34.copy()
    assert _forward(sg.grad(f), (a,), [0]) is not None
    v = RNG.normal(size=a.shape)
    eps = 1e-6
    numeric = (sg.grad(f)(a + eps * v) - sg.grad(f)(a - eps * v)) / (2 * eps)
    np.testing.assert_allclose(sg.hvp(f)(a, v), numeric, rtol=1e-5, atol=1e-6)
