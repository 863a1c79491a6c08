"""``np.polyadd``, ``polysub``, ``polyder``, ``polyint``, ``polymul``, ``np.poly``
(``rules/polynomial_arithmetic.py``) and ``np.choose``, ``compress``, ``extract``,
``trim_zeros`` (``rules/picking.py``), written out as compositions of functions with
rules (``rules/rewrites.py``): refused as having "no rule" before.

Each gives NumPy's values (dtype too), and its gradient (to second order), tangent and a
tape's gradient agree with central differences; the options not modelled are refused,
and NumPy's errors raised as NumPy raises them.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_tangent_and_tape
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads

RNG = np.random.default_rng(4)
P = RNG.normal(size=5)
Q = RNG.normal(size=3)
K = RNG.normal(size=3)
A = RNG.normal(size=(3, 4))
SHORT = np.array([1.5, -0.5])
INDEX = np.array([[0, 2, 1, 1], [2, 0, 0, 1], [1, 1, 2, 0]])


# polyadd / polysub: either operand differentiated, longer or shorter, arrays or lists.
def polyadd_longer_first(p):
    return np.sum(np.polyadd(p, SHORT) ** 2)


def polyadd_list_first(q):
    return np.sum(np.sin(np.polyadd([1.0, -2.0, 0.5, 3.0, 0.25], q)))


def polyadd_list_of_values(p):
    return np.sum(np.polyadd([p[0], 2.0 * p[1]], p) ** 2)


def polysub_shorter_first(q):
    return np.sum(np.polysub(SHORT, q) ** 3)


def polysub_second(p):
    return np.sum(np.exp(np.polysub(Q, p)))


# polyder / polyint: m and k, k differentiated, coefficients as a list.
def polyder_once(p):
    return np.sum(np.polyder(p) ** 2)


def polyder_thrice(p):
    return np.sum(np.cos(np.polyder(p, 3)))


def polyder_of_a_list(q):
    return np.sum(np.polyder([q[0], q[1] * q[2], 4.0, -1.0], m=2) ** 2)


def polyint_once(p):
    return np.sum(np.polyint(p) ** 2)


def polyint_twice_with_constants(p):
    return np.sum(np.polyint(p, 2, [1.0, -0.5]) ** 2)


def polyint_in_k(k):
    return np.sum(np.polyint(P, m=3, k=k) ** 2)


def polyint_in_a_scalar_k(q):
    return np.sum(np.sin(np.polyint([1.0, 2.0, 3.0], 3, k=q[1])))  # one k for all steps


def polyint_of_a_list(q):
    return np.sum(np.polyint([q[0], 2.0, q[2] ** 2], k=q[1]) ** 2)


# polymul: leading zeros dropped first (poly1d), either operand, lists.
def polymul_first(p):
    return np.sum(np.polymul(p, Q) ** 2)


def polymul_second(q):
    return np.sum(np.sin(np.polymul(P, q)))


def polymul_leading_zero(q):
    return np.sum(np.polymul([0.0, 0.0, 1.0, -2.0], q) * np.arange(1.0, 5.0))


def polymul_leading_zero_of_the_differentiated(q):
    return np.sum(np.polymul(np.concatenate([np.zeros(1), q]), [2.0, 1.0]) * np.arange(4.0))


def polymul_lists(q):
    return np.sum(np.polymul([q[0], 1.0], [1.0, q[1], q[2]]) ** 2)


# np.poly: 1-d real zeros, an array or a list.
def poly_of_zeros(p):
    return np.sum(np.poly(p) ** 2)


def poly_of_a_list(q):
    return np.sum(np.sin(np.poly([q[0], 0.5, q[2]])))


# choose: the choices differentiated, a list or an array of them, each mode.
def choose_from_a_list(a):
    return np.sum(np.choose(INDEX, [a, a ** 2, 1.5]) ** 2)


def choose_broadcast(a):
    return np.sum(np.sin(np.choose(INDEX[0], [a[0], a[1:], a[1:, :1]])))


def choose_from_an_array(a):
    return np.sum(np.choose(np.array([2, 0, 1, 0]), a) ** 3)


def choose_wrap(a):
    return np.sum(np.choose(INDEX * 2 - 1, [a, np.cos(a), a[0]], mode="wrap") ** 2)


def choose_clip(a):
    return np.sum(np.choose(INDEX * 2 - 1, (a, 2.0 * a, a ** 3), mode="clip") ** 2)


# compress / extract: condition a list, an array, computed from the values; each axis.
def compress_flat(a):
    return np.sum(np.compress([True, False, True, True, False, True], a) ** 2)


def compress_along_axis(a):
    return np.sum(np.compress(np.array([1, 0, 1, 1]), a, axis=1) ** 3)


def compress_short_condition(a):
    return np.sum(np.sin(np.compress([False, True], a, axis=0)))


def compress_by_value(p):
    return np.sum(np.compress(p > 0.0, p) ** 3)


def extract_by_value(a):
    return np.sum(np.extract(a > 0.0, a) ** 3)


def extract_by_mask(a):
    return np.sum(np.cos(np.extract(np.arange(12).reshape(3, 4) % 3 == 0, a)))


# trim_zeros: each trim, a list (NumPy returns a list), N-d and an axis.
def trim_both(p):
    return np.sum(np.trim_zeros(np.concatenate([np.zeros(2), p, np.zeros(3)])) ** 2)


def trim_front(p):
    return np.sum(np.sin(np.trim_zeros(np.concatenate([np.zeros(2), p, np.zeros(3)]), "f")))


def trim_back_of_a_list(q):
    trimmed = np.trim_zeros([0.0, q[0], q[1], 0.0, q[2], 0.0, 0.0], trim="B")
    return np.sum(np.array(trimmed) ** 2) * len(trimmed)


def trim_matrix(a):
    return np.sum(np.trim_zeros(np.pad(a, ((1, 2), (0, 1)))) ** 3)


def trim_one_axis(a):
    return np.sum(np.sin(np.trim_zeros(np.pad(a, ((1, 2), (2, 1))), "b", axis=-1)))


CASES = [(polyadd_longer_first, P), (polyadd_list_first, Q), (polyadd_list_of_values, P),
         (polysub_shorter_first, Q), (polysub_second, P), (polyder_once, P),
         (polyder_thrice, P), (polyder_of_a_list, Q), (polyint_once, P),
         (polyint_twice_with_constants, P), (polyint_in_k, K), (polyint_in_a_scalar_k, Q),
         (polyint_of_a_list, Q), (polymul_first, P), (polymul_second, Q),
         (polymul_leading_zero, Q), (polymul_leading_zero_of_the_differentiated, Q),
         (polymul_lists, Q), (poly_of_zeros, P), (poly_of_a_list, Q),
         (choose_from_a_list, A), (choose_broadcast, A), (choose_from_an_array, A),
         (choose_wrap, A), (choose_clip, A), (compress_flat, P[:4].repeat(3)[:6]),
         (compress_along_axis, A), (compress_short_condition, A), (compress_by_value, P),
         (extract_by_value, A), (extract_by_mask, A), (trim_both, P), (trim_front, P),
         (trim_back_of_a_list, Q), (trim_matrix, A), (trim_one_axis, A)]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_gradients_to_second_order(f, x):
    check_grads(f, (x.copy(),), order=2)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_tangent_and_tape(f, x):
    assert_tangent_and_tape(f, x)


@pytest.mark.parametrize("f, x", CASES, ids=IDS)
def test_value_is_numpys(f, x):
    assert sg.value_and_grad(f)(x.copy())[0] == f(x.copy())


def polymul_pair(p, q):
    return np.sum(np.polymul(p, q) ** 2)


def polyadd_pair(p, q):
    return np.sum(np.sin(np.polyadd(q, p)) * np.polysub(p, q))


def polyint_pair(p, k):
    return np.sum(np.polyint(p, 3, k) ** 2)


def choose_pair(a, b):
    return np.sum(np.choose(INDEX, [a, b, a * b]) ** 2)


@pytest.mark.parametrize("f, args", [(polymul_pair, (P, Q)), (polyadd_pair, (P, Q)),
                                     (polyint_pair, (Q, K)), (choose_pair, (A, A[::-1]))],
                         ids=["polymul", "polyadd", "polyint", "choose"])
def test_both_operands(f, args):
    check_grads(f, tuple(a.copy() for a in args), order=2, wrt=(0, 1))


# Results as arrays (their tangents through sg.jvp): values and dtypes exactly NumPy's.
ARRAY_VALUES = {
    "polyadd": (lambda p: np.polyadd(p, [1.0, 2.0]), P),
    "polyadd_float32": (lambda p: np.polyadd(p.astype(np.float32), SHORT), P),
    "polysub": (lambda q: np.polysub([1.0, 2.0, 3.0, 4.0], q), Q),
    "polyder": (lambda p: np.polyder(p, 2), P),
    "polyder_m0": (lambda p: np.polyder(p, 0), P),
    "polyint": (lambda p: np.polyint(p, 2, k=[3.0, -1.0, 7.0]), P),
    "polyint_m0": (lambda p: np.polyint(p, 0), P),
    "polymul": (lambda q: np.polymul([0.0, 2.0, 1.0], q), Q),
    "polymul_zeros": (lambda q: np.polymul([0.0, 0.0], q), Q),
    "poly": (lambda p: np.poly(p), P),
    "poly_float32": (lambda p: np.poly(p.astype(np.float32)), P),
    "choose": (lambda a: np.choose(INDEX, [a, -a, 0.5]), A),
    "choose_float32": (lambda a: np.choose(INDEX, [a.astype(np.float32), a[0], 0.5]), A),
    "choose_wrap": (lambda a: np.choose(INDEX - 1, [a, -a], mode="wrap"), A),
    "choose_clip": (lambda a: np.choose(INDEX + 1, [a, -a], mode="clip"), A),
    "compress": (lambda a: np.compress([0, 1, 1], a, axis=0), A),
    "compress_flat": (lambda a: np.compress(a.ravel() > 0, a), A),
    "extract": (lambda a: np.extract(a < 0, a), A),
    "trim_zeros": (lambda p: np.trim_zeros(np.concatenate([[0.0], p, [0.0, 0.0]]), "b"), P),
    "trim_zeros_all": (lambda p: np.trim_zeros(np.zeros(3) * p[0]), P),
    "trim_zeros_nd": (lambda a: np.trim_zeros(np.pad(a, 1), axis=(0,)), A),
}


@pytest.mark.parametrize("name", list(ARRAY_VALUES))
def test_array_values_are_numpys(name):
    f, x = ARRAY_VALUES[name]
    value, _ = sg.jvp(f, (x.copy(),), (np.ones_like(x),))
    expected = f(x.copy())
    assert np.asarray(value).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(value, expected, strict=True)


def test_poly_of_no_zeros_is_one():
    value, grad = sg.value_and_grad(lambda x: np.poly(x[:0]) * np.sum(x))(Q.copy())
    assert value == np.poly(Q[:0]) * np.sum(Q)
    np.testing.assert_array_equal(grad, np.ones(3))


def test_list_stays_a_list():
    trimmed = sg.jvp(lambda q: np.trim_zeros([0.0, q[0], q[1], 0.0]), (Q.copy(),),
                     (np.ones(3),))[0]
    assert type(trimmed) is list and trimmed == [Q[0], Q[1]]


def _raises(error, match, f, x):
    with pytest.raises(error, match=match):
        sg.grad(f)(x)


def test_options_not_modelled_are_refused():
    x = Q.copy()
    _raises(NotDifferentiableError, "np.polyadd of a np.poly1d",
            lambda v: np.sum(np.polyadd(np.poly1d([1.0, 2.0]), v)), x)
    _raises(NotDifferentiableError, "np.polysub of a np.poly1d",
            lambda v: np.sum(np.polysub(v, np.poly1d([1.0, 2.0]))), x)
    _raises(NotDifferentiableError, "np.polymul of a np.poly1d",
            lambda v: np.sum(np.polymul(np.poly1d([1.0, 2.0]), v)), x)
    _raises(NotDifferentiableError, "np.polyint of a np.poly1d",
            lambda v: np.sum(np.polyint(np.poly1d([1.0, 2.0]), k=v[0])), x)
    _raises(NotDifferentiableError, "np.poly of a square matrix",
            lambda v: np.sum(np.poly(np.outer(v, v))), x)
    _raises(NotDifferentiableError, "np.poly of complex",
            lambda v: np.sum(np.abs(np.poly(v * 1j))), x)
    # (out= is refused compiling, as for every function; the rewrites refuse it too)
    _raises(sg.CompileError, "out=",
            lambda v: np.sum(np.choose([0, 1, 0], [v, v], out=np.empty(3))), x)
    _raises(sg.CompileError, "out=",
            lambda v: np.sum(np.compress([1, 0, 1], v, out=np.empty(2))), x)


def test_numpys_errors():
    x = Q.copy()
    _raises(ValueError, "Order of derivative must be positive",
            lambda v: np.sum(np.polyder(v, -1)), x)
    _raises(TypeError, "unsized object", lambda v: np.polyder(v[0], 0), x)
    _raises(ValueError, "Order of integral must be positive",
            lambda v: np.sum(np.polyint(v, -1)), x)
    _raises(ValueError, "k must be a scalar or a rank-1 array",
            lambda v: np.sum(np.polyint(v, 3, k=v[:2])), x)
    _raises(ValueError, "Polynomial must be 1d only",
            lambda v: np.sum(np.polymul(np.outer(v, v), v)), x)
    _raises(TypeError, "did not return an iterable", lambda v: np.poly(v[0]), x)
    _raises(ValueError, "input must be 1d or non-empty square 2d array",
            lambda v: np.sum(np.poly(np.reshape(np.tile(v, 2), (2, 3)))), x)
    _raises(ValueError, "invalid entry in choice array",
            lambda v: np.sum(np.choose([0, 2, 1], [v, v ** 2])), x)
    _raises(ValueError, "condition must be a 1-d array",
            lambda v: np.sum(np.compress([[True, False, True]], v)), x)
    _raises(IndexError, "out of bounds",
            lambda v: np.sum(np.compress([True, False, False, True], v)), x)
    _raises(ValueError, "unexpected character",
            lambda v: np.sum(np.trim_zeros(v, "fx")), x)


I32 = np.array([3, 0, -2, 5], dtype=np.int32)
F32 = np.array([0.0, 1.5, -2.0, 0.0], dtype=np.float32)
DIRECT = [
    ("polyadd", (P, SHORT)), ("polyadd", (SHORT, P)), ("polyadd", ([1, 2], [1.0, 2.0, 3.0])),
    ("polyadd", (I32, F32[:2])), ("polyadd", (2.0, Q)), ("polysub", (F32, [1, 2, 3, 4, 5])),
    ("polysub", (I32, I32[:1])), ("polysub", ([0.0, 0.0, 1.0], [2.0])),
    ("polyder", (P,)), ("polyder", (P, 0)), ("polyder", (I32, 2)), ("polyder", (F32, 3.0)),
    ("polyder", ([1.0, 2.0], 5)), ("polyint", (P,)), ("polyint", (P, 0)),
    ("polyint", (I32, 2)), ("polyint", (F32, 2, 3.0)), ("polyint", ([1, 2, 3], 3, [1.0])),
    ("polyint", (Q, 2, [1.0, 2.0, 3.0])), ("polyint", (Q, 1, np.float32(2.0))),
    ("polymul", (P, Q)), ("polymul", ([0.0, 0.0, 1.0, 2.0], [0.0, 3.0])),
    ("polymul", ([0.0, 0.0], Q)), ("polymul", (I32, [0, 0, 2])), ("polymul", (F32, F32)),
    ("polymul", (2.0, Q)), ("poly", (P,)), ("poly", ([1, 2, 3],)), ("poly", (F32,)),
    ("poly", (np.array([True, False]),)), ("poly", ([3.0],)), ("poly", (np.zeros(0),)),
    ("choose", (INDEX, [A, -A, 0.5])), ("choose", (INDEX[0], A)),
    ("choose", (np.array([3, -1, 4]), [Q, 2.0 * Q], None, "wrap")),
    ("choose", (np.array([3, -1, 4]), [Q, 2.0 * Q], None, "clip")),
    ("choose", ([1, 0], [F32[:2], 2.0])), ("choose", (1, [2.0, Q])),
    ("compress", ([True, False, True], A, 1)), ("compress", ([1, 0, 1], A, 0)),
    ("compress", (np.array([0.5, 0.0, -1.0]), A)), ("compress", ([], A)),
    ("extract", (A > 0, A)), ("extract", ([1, 0, 2], [1.0, 2.0, 3.0])),
    ("extract", (np.eye(3, 4), A)),
    ("trim_zeros", (F32,)), ("trim_zeros", (F32, "F")), ("trim_zeros", (F32, "bf")),
    ("trim_zeros", ([0.0, 1.0, 0.0, 2.0, 0.0], "b")), ("trim_zeros", (np.zeros(3),)),
    ("trim_zeros", (np.zeros(3), "f")), ("trim_zeros", (np.float64(0.0),)),
    ("trim_zeros", (np.pad(A, ((1, 0), (2, 3))),)),
    ("trim_zeros", (np.pad(A, ((1, 0), (2, 3))), "f", 1)),
    ("trim_zeros", (np.pad(A, ((1, 0), (2, 3))), "b", (-1, 0))),
    ("trim_zeros", (np.zeros((2, 3)), "fb", 0)),
]


@pytest.mark.parametrize("name, args", DIRECT,
                         ids=[f"{name}-{i}" for i, (name, _) in enumerate(DIRECT)])
def test_written_out_functions_are_numpys(name, args):
    """Called as plain Python, each written-out function gives NumPy's result: values,
    dtype, shape and type (a list trimmed stays a list; no zeros is 1.0)."""
    from srcgrad.rules import picking, polynomial_arithmetic

    ours = getattr(polynomial_arithmetic, name, None) or getattr(picking, name)
    got, want = ours(*args), getattr(np, name)(*args)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want, strict=True)
