"""``np.polydiv`` (written out: ``rules/polynomial_arithmetic.py``), ``np.roots`` (a rule:
``rules/polynomials.py``), ``np.nextafter`` (``rules/elementwise.py``) and ``np.spacing``
(no gradient: ``rules/nan_reductions.NONDIFF``), issue 13's leftovers.

Each gives NumPy's values, and its gradient agrees with central differences in float64 in
every form: ``sg.grad``, ``value_and_grad``, a tape in plain code and in ``@sg.function``,
``sg.jvp``, second order where it is defined (``np.roots`` refuses it, as
``np.linalg.eigvals`` does). What is not modelled is refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from numpy import roots as roots_by_name
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees, assert_tangent_and_tape, fd_jacobian, taped

RNG = np.random.default_rng(13)
U = RNG.normal(size=6)
V = np.array([1.5, -0.5, 2.0])
Q = RNG.normal(size=3)
W = np.arange(1.0, 6.0)


# polydiv: in the dividend, the divisor, lists of Python floats, scalars, a shorter dividend.
def quotient_in_u(u):
    q, r = np.polydiv(u, V)
    return np.sum(q ** 2) + np.sum(np.sin(r) * W[:len(r)])


def remainder_in_v(v):
    q, r = np.polydiv(U, v)
    return np.sum(np.cos(q)) + np.sum(r ** 3)


def in_a_list_of_values(q):
    quotient, remainder = np.polydiv([q[0], 2.0, q[1] * q[2], -1.0, 0.5], [q[2], 1.0])
    return np.sum(quotient * W[:4]) + np.sum(remainder ** 2)


def both_lists(q):
    quotient, remainder = np.polydiv([1.0, q[0], 3.0, q[1]], [q[2], -2.0, 0.5])
    return np.sum(quotient ** 2) + np.sum(np.exp(remainder))


def scalar_divisor(q):
    quotient, remainder = np.polydiv(q, 2.5)  # (a Python float: a constant polynomial)
    return np.sum(quotient ** 3) + np.sum(remainder)


def scalars(q):
    quotient, remainder = np.polydiv(q[0], q[1])  # (0-d: [u / v], [0.])
    return np.sum(quotient ** 2) + np.sum(remainder)


def shorter_dividend(q):
    quotient, remainder = np.polydiv(q[:2], V)  # (quotient [0.], remainder the dividend)
    return np.sum(quotient) + np.sum(remainder ** 2)


def exact_division(q):
    # The remainder cancels to rounding: NumPy's tolerance test drops it down to one
    # coefficient, which is 0 whatever q is (its derivative too).
    quotient, remainder = np.polydiv(np.polymul(q, V), V)
    return np.sum(quotient * W[:3]) + 100.0 * np.sum(remainder)


def two_results_indexed(u):
    result = np.polydiv(u, [2.0, -1.0])
    return np.sum(result[0] ** 2) * np.sum(result[1])


POLYDIV = [(quotient_in_u, U), (remainder_in_v, V), (in_a_list_of_values, Q),
           (both_lists, Q), (scalar_divisor, Q), (scalars, Q + np.array([0.0, 3.0, 0.0])),
           (shorter_dividend, Q), (exact_division, Q), (two_results_indexed, U)]


@pytest.mark.parametrize("f, x", POLYDIV, ids=[f.__name__ for f, _ in POLYDIV])
def test_polydiv_to_second_order(f, x):
    check_grads(f, (x.copy(),), order=2)


@pytest.mark.parametrize("f, x", POLYDIV, ids=[f.__name__ for f, _ in POLYDIV])
def test_polydiv_tangent_tapes_and_values(f, x):
    assert_tangent_and_tape(f, x)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), sg.grad(f)(x.copy()),
                               rtol=1e-12, atol=1e-14)
    assert sg.value_and_grad(f)(x.copy())[0] == f(x.copy())
    assert_forward_mode_agrees(f, (x.copy(),))


def polydiv_pair(u, v):
    q, r = np.polydiv(u, v)
    return np.sum(q * W[:len(q)]) + np.sum(np.sin(r))


def test_polydiv_in_both_operands():
    check_grads(polydiv_pair, (U.copy(), V.copy()), order=2, wrt=(0, 1))
    value, (gu, gv) = sg.value_and_grad(polydiv_pair, wrt=(0, 1))(U.copy(), V.copy())
    assert value == polydiv_pair(U, V)
    eps = 1e-6
    for x, got in ((0, gu), (1, gv)):
        args = [U.copy(), V.copy()]
        numeric = np.zeros_like(args[x])
        for i in range(len(numeric)):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[x][i] += eps
            down[x][i] -= eps
            numeric[i] = (polydiv_pair(*up) - polydiv_pair(*down)) / (2 * eps)
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_polydiv_remainder_coefficients_numpy_drops():
    """A remainder coefficient within 1e-8 of 0 is dropped by NumPy's test, not only the
    ones the division cancels: the shape is NumPy's, the dropped one gets no gradient."""
    def f(q):
        remainder = np.polydiv(q, [1.0, 2.0, 3.0])[1]
        return np.sum(remainder ** 2) + 10.0 * len(remainder)

    q = np.array([1e-9, 1.5])
    value, grad = sg.value_and_grad(f)(q.copy())
    assert value == f(q) == 12.25
    np.testing.assert_array_equal(grad, [0.0, 3.0])


DIRECT = [(U, V), (V, U), ([1, 2, 3], [1, 1]), ([1, 2], [1, 2, 3]), (3.0, 2.0),
          (np.float32([1, 2, 3]), [1.0, 2.0]), (np.float32([1, 2, 3]), np.float32([1, 2])),
          ([1j, 2.0, 3.0], [1.0, 2.0]), ([1.0, 2.0, 3.0], [2j, 1.0]),
          (np.array([True, False]), [1.0]), (np.polymul([1.0, 2.0, 3.0], [0.3, 0.7]), [0.3, 0.7]),
          ([0.0, 0.0, 1.0, 2.0], [1.0, 5.0, 6.0]), ([1e-9, 1.0], [1.0, 2.0, 3.0]),
          (np.polymul([1e5, 2e5, 3.0], [0.3, 0.7]), [0.3, 0.7]), ([5.0], [2.0])]


@pytest.mark.parametrize("u, v", DIRECT, ids=[str(i) for i in range(len(DIRECT))])
def test_polydiv_written_out_is_numpys(u, v):
    from srcgrad.rules.polynomial_arithmetic import polydiv

    for got, want in zip(polydiv(u, v), np.polydiv(u, v)):
        np.testing.assert_array_equal(got, want, strict=True)


def test_polydiv_refusals_and_errors():
    x = Q.copy()
    with pytest.raises(NotDifferentiableError, match="np.polydiv of a np.poly1d"):
        sg.grad(lambda v: np.sum(np.polydiv(np.poly1d([1.0, 2.0, 3.0]), v)[0]))(x)
    with pytest.raises(NotDifferentiableError, match="more than one axis"):
        sg.grad(lambda v: np.sum(np.polydiv(np.outer(v, v), v)[0]))(x)
    with pytest.raises(IndexError):
        sg.grad(lambda v: np.sum(np.polydiv(v, v[:0])[0]))(x)


# roots: real and complex roots, real losses of them; a trailing zero differentiated too.
P = np.array([1.0, -0.5, 2.0, 0.3])              # one real root, a complex pair
REAL = np.poly([0.5, -1.2, 2.0])                  # three real roots
TRAILING = np.array([1.0, -0.5, 2.0, 0.3, 0.0])   # a root at 0 (simple)


def weighted_radii(p):
    return np.sum(np.abs(np.roots(p)) ** 2 * np.arange(1.0, len(p)))


def real_parts(p):
    return np.sum(np.real(np.roots(p)) * np.arange(1.0, len(p)))


def imaginary_parts(p):
    return np.sum(np.imag(np.roots(p)) ** 2)


def power_sums(p):
    # Symmetric in the roots (Newton's sums): smooth where the roots meet, and what a
    # trailing coefficient moves even though NumPy puts its root at 0 itself.
    return np.sum(np.real(np.roots(p) ** 3)) + np.sum(np.abs(np.roots(p)) ** 2)


def real_roots_weighted(p):
    return np.sum(np.sin(np.roots(p)) * np.array([1.0, 2.0, 3.0]))


def list_with_constants(q):
    # (A constant leading zero, dropped by NumPy: the roots of the cubic.)
    return np.sum(np.abs(np.roots([0.0, q[0], 2.0, q[1], -1.0])) ** 2)


def reached_by_name(p):
    return np.sum(np.abs(roots_by_name(p) ** 2 + 1.0))


def exponential(p):
    return np.sum(np.abs(np.exp(np.roots(p))))


ROOTS = [(weighted_radii, P), (real_parts, P), (imaginary_parts, P), (power_sums, P),
         (real_roots_weighted, REAL), (weighted_radii, REAL), (power_sums, TRAILING),
         (list_with_constants, Q[:2]), (reached_by_name, P), (exponential, P)]
ROOT_IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(ROOTS)]


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(len(x)):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return out


@pytest.mark.parametrize("f, x", ROOTS, ids=ROOT_IDS)
def test_roots_against_central_differences(f, x):
    check_grads(f, (x.copy(),), order=1)
    value, grad = sg.value_and_grad(f)(x.copy())
    assert value == f(x.copy())
    np.testing.assert_allclose(grad, _central(f, x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, x", ROOTS, ids=ROOT_IDS)
def test_roots_tangent_and_tapes(f, x):
    assert_tangent_and_tape(f, x)  # (sg.jvp: by transposing the adjoint)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), sg.grad(f)(x.copy()),
                               rtol=1e-12, atol=1e-14)


def test_roots_jvp_twice():
    """Forward mode refuses np.roots (complex values): sg.jvp transposes, and a second call
    reads the refusal kept for these arguments (it had no guards to check: AttributeError)."""
    t = np.array([1.0, 0.5, -1.0, 2.0])
    first = sg.jvp(weighted_radii, (P.copy(),), (t,))
    second = sg.jvp(weighted_radii, (P.copy(),), (t,))
    assert first == second
    assert first[1] == pytest.approx(np.dot(_central(weighted_radii, P), t), rel=1e-6)


def test_roots_of_complex_coefficients():
    """TensorFlow's convention: the gradient is dL/dx + i dL/dy."""
    z = np.array([1.0 + 0.5j, -0.5, 2.0 - 1.0j, 0.3j])
    grad = sg.grad(weighted_radii)(z.copy())
    numeric = _central(weighted_radii, z) + 1j * _central(lambda v: weighted_radii(z + 1j * (v - z.real)), z.real)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_roots_values_are_numpys():
    for p in (P, REAL, TRAILING, [0.0, 0.0, 1.0, -2.0, 0.0], [2.0], [0.0, 3.0, 0.0],
              np.float32([1.0, 2.0, 3.0])):
        value, _ = sg.jvp(lambda v: np.roots(v), (np.asarray(p),), (np.ones(np.shape(p)),))
        np.testing.assert_array_equal(value, np.roots(p), strict=True)


def test_roots_jacobian_on_a_tape():
    x = REAL.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        roots = np.roots(x)
    np.testing.assert_allclose(tape.jacobian(roots, x), fd_jacobian(np.roots, x),
                               rtol=1e-6, atol=1e-8)


def test_roots_trailing_zero_moves_every_root():
    """NumPy drops a trailing zero before its eigenvalues; its coefficient still moves
    every root (d r / d p_n = -1 / P'(r)): the gradient in it is not zero."""
    grad = sg.grad(power_sums)(TRAILING.copy())
    assert abs(grad[-1]) > 0.1
    np.testing.assert_allclose(grad, _central(power_sums, TRAILING), rtol=1e-6, atol=1e-8)


def test_roots_refusals():
    with pytest.raises(NotDifferentiableError, match="repeated root"):
        sg.grad(weighted_radii)(np.array([1.0, -0.5, 2.0, 0.0, 0.0]))  # a double root at 0
    with pytest.raises(NotDifferentiableError, match="repeated root"):
        sg.grad(weighted_radii)(np.poly([0.5, 0.5, -1.0]))
    with pytest.raises(NotDifferentiableError, match="second derivative of np.roots"):
        sg.hvp(weighted_radii)(P.copy(), np.ones(4))
    with pytest.raises(NotDifferentiableError, match="second derivative of np.roots"):
        sg.grad(lambda p: np.sum(sg.grad(weighted_radii)(p) ** 2))(P.copy())


# nextafter: slope 1 in x1, 0 in x2; spacing: no gradient.
X = RNG.normal(size=(3, 4))


def next_toward_zero(x):
    return np.sum(np.nextafter(x, 0.0) ** 2)


def next_toward_each_other(x):
    return np.sum(np.sin(np.nextafter(x, x[::-1])))


def next_of_a_list(x):
    return np.sum(np.nextafter([x[0, 0], 2.0, x[1, 2]], [np.inf, -np.inf, 0.5]) ** 3)


def next_in_the_second(x):
    return np.sum(np.nextafter(1.5, x) * x)  # (the second operand has no slope: 1.5 + ulp)


def scaled_by_spacing(x):
    return np.sum(x ** 2 * np.spacing(x))


FLOATS = [(next_toward_zero, X), (next_toward_each_other, X), (next_of_a_list, X),
          (next_in_the_second, X), (scaled_by_spacing, X)]


@pytest.mark.parametrize("f, x", FLOATS, ids=[f.__name__ for f, _ in FLOATS])
def test_floats_in_every_form(f, x):
    check_grads(f, (x.copy(),), order=2)
    assert_tangent_and_tape(f, x)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), sg.grad(f)(x.copy()),
                               rtol=1e-12, atol=1e-14)
    assert sg.value_and_grad(f)(x.copy())[0] == f(x.copy())
    assert_forward_mode_agrees(f, (x.copy(),))


def test_nextafter_slopes_exactly():
    x, y = X.copy(), X[::-1].copy() + 1.0
    gx, gy = sg.grad(lambda a, b: np.sum(np.nextafter(a, b) * W[:4]), wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, np.broadcast_to(W[:4], x.shape))
    np.testing.assert_array_equal(gy, np.zeros_like(y))
    # Python floats
    assert sg.grad(lambda a: np.nextafter(a, 3.0) * a)(1.25) == pytest.approx(2.5, rel=1e-12)


def test_spacing_has_no_gradient():
    grad = sg.grad(scaled_by_spacing)(X.copy())
    np.testing.assert_array_equal(grad, 2.0 * X * np.spacing(X))


# np.linalg.eigvals and eig reached by a bare name (``from numpy.linalg import eigvals``):
# the code is compiled for complex values as it is for ``np.linalg.eigvals`` (refused on
# the code before, compiled for real values).
from numpy.linalg import eig as eig_by_name, eigvals as eigvals_by_name  # noqa: E402

A3 = np.array([[0.3, -1.2, 0.4], [0.9, 0.1, -0.5], [0.2, 0.7, -0.3]])  # complex eigenvalues


def eigvals_of_a_name(a):
    return np.sum(np.exp(eigvals_by_name(a)).real)


def eig_of_a_name(a):
    w, _ = eig_by_name(a)
    return np.sum(np.abs(w ** 2 + 1.0))


@pytest.mark.parametrize("f", [eigvals_of_a_name, eig_of_a_name])
def test_eigenvalues_of_a_bare_name_are_complex_code(f):
    flat = sg.grad(lambda v: f(np.reshape(v, (3, 3))))(A3.ravel())
    want = _central(lambda v: f(np.reshape(v, (3, 3))), A3.ravel())
    np.testing.assert_allclose(flat, want, rtol=1e-6, atol=1e-8)
