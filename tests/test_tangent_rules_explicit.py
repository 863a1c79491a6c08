"""Forward mode's explicit tangents (rules/tangents.py ``EXPLICIT``, their helpers in
runtime/tangents.py) and its bilinear category, on every rule-table case of their
primitives: the tangent along random directions of the operands is checked against
central differences in float64, and against the reverse rule of the same entry,
``<jvp(t), v> == <t, vjp(v)>`` for a random seed ``v``: the two modes of a primitive
must agree exactly, triangles read and ties included. Then the rules compiled:
forward-mode code (not the transposition) for functions calling them."""
import math

import numpy as np
import pytest

import srcgrad as sg
from srcgrad import runtime
from srcgrad.cli import main
from srcgrad.compiler.tangents import compile_tangent
from srcgrad.forward import tangent_source
from srcgrad.rules import tangents
from srcgrad.rules.table import PRIMITIVES as TABLE
from test_rule_table import CASES, C, M, R, WITH_ZEROS, _case_id, _is_float_value, \
    _is_varargs, drawn, evaluate_grad, inner, random_like, scope, step

scipy_linalg = pytest.importorskip("scipy.linalg")
scipy_special = pytest.importorskip("scipy.special")

_CATEGORIES = ("elementwise", "linear", "bilinear", "reduction", "determinant")


def _explicit(fn):
    form = tangents.form(fn, TABLE[fn])
    return isinstance(form, str) and form not in _CATEGORIES


def _symmetric(n, spread=1.0, seed=0):
    """A symmetric matrix with eigenvalues ``spread`` apart (in its lower triangle)."""
    q = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))[0]
    return (q * (spread * np.arange(n) - n / 2.0 + 0.3)) @ q.T


# Beyond the rule table's cases: zeros in running products, ties in sorts, flattened
# axes, tall complete factors, Python lists of floats for the builtins.
EXTRA = [
    C(np.cumprod, WITH_ZEROS, axis=0, id="zeros-axis0"),
    C(np.cumprod, WITH_ZEROS, id="zeros-flat"),
    C(np.cumprod, WITH_ZEROS, axis=1, id="zeros-axis1"),
    C(np.sort, np.array([[3.0, 1.0, 3.0, -2.0], [0.5, 0.5, 0.5, 1.0]]), id="ties"),
    C(np.sort, R(3, 4), axis=None, id="flat"),
    C(np.sort, R(2, 3, 4), axis=1, id="middle"),
    C(np.partition, R(3, 6), 2, axis=0, id="axis0"),
    C(np.partition, R(7), (1, 4), id="kths"),
    C(max, [R(), R(), R()], id="list"),
    C(min, R(5), id="array"),
    C(math.hypot, 0.3, -1.2, 2.0, id="three"),
    C(np.linalg.qr, R(5, 3), mode="complete", wrt=("a",), id="tall-complete"),
    C(np.linalg.svd, R(2, 5, 3), id="batched-full"),
    C(np.linalg.svd, R(3, 5), hermitian=False, compute_uv=False, id="wide-values"),
    C(np.linalg.eigh, _symmetric(5) + np.triu(np.ones((5, 5)), 1), id="noisy-upper"),
    C(np.linalg.pinv, R(2, 3, 5), id="batched-wide"),
    C(np.linalg.matrix_power, M(2, 3, 3), -3, id="batched-negative"),
    C(np.linalg.slogdet, M(4, 2, 2), id="batched-small"),
    C(np.linalg.cholesky, M(2, 2, 4, 4), id="batched-nonsymmetric"),
    C(scipy_linalg.solve_triangular, M(2, 4, 4), R(4), trans="T", unit_diagonal=True,
      id="batched-unit-trans"),
    C(scipy_special.softmax, R(3, 4), axis=(0, 1), id="axes"),
    C(scipy_special.logsumexp, R(3, 4), axis=1, keepdims=True, b=np.full((3, 4), 0.5),
      id="weights"),
]

EXPLICIT_CASES = [c for c in CASES + EXTRA if _explicit(c.fn)]
# Items without a derivative (columns of full factors past min(m, n)) are NaN: checked
# where defined, with a seed of 0 where not (reverse mode refuses any other).
UNDEFINED_ITEMS = {"tall-complete", "batched-full"}
# At ties a sort has one-sided derivatives only: it agrees with reverse mode there.
KINKS = {"ties"}
BILINEAR_CASES = [c for c in CASES if tangents.form(c.fn, TABLE[c.fn]) == "bilinear"]


def _draw(case, seed):
    rng = np.random.default_rng(seed)
    rule, sig, bound, ans = drawn(case, rng)
    env = scope(rule, bound, None, ans)
    wrt = case.wrt or [p for p in rule.grads if p in bound.arguments
                       and _is_float_value(env[p])]
    assert wrt, f"{_case_id(case)}: nothing to check"
    dirs = {p: random_like(env[p], rng) for p in wrt}
    return rng, rule, sig, bound, ans, env, dirs


def _moved(case, sig, bound, dirs, eps):
    """The primitive at ``operands + eps * dirs``."""
    moved = sig.bind(*bound.args, **bound.kwargs)
    for name, d in dirs.items():
        value = moved.arguments[name]
        moved.arguments[name] = step(tuple(value) if _is_varargs(sig, name) else value, d, eps)
    return case.fn(*moved.args, **moved.kwargs)


def _difference(a, b, eps):
    if isinstance(a, (list, tuple)):
        return [_difference(x, y, eps) for x, y in zip(a, b)]
    return (np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) / (2 * eps)


def _assert_close(got, want, what, rtol=1e-5, atol=1e-7):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (what, type(got))
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_close(g, w, f"{what}[{i}]", rtol, atol)
        return
    assert np.shape(got) == np.shape(want), (what, np.shape(got), np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def _map(fn, value):
    if isinstance(value, (list, tuple)):
        return [_map(fn, v) for v in value]
    return fn(value)


def _zip(fn, value, other):
    if isinstance(value, (list, tuple)):
        return [_zip(fn, v, o) for v, o in zip(value, other)]
    return fn(value, other)


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _explicit_tangent(case, rule, env, dirs):
    """The rule's expression with the operands' tangents in scope (zeros for the others,
    as passes/tangent.py gives them)."""
    names = dict(env)
    for p in rule.grads:
        names[f"{p}_dot"] = dirs[p] if p in dirs else runtime.zeros_like(env[p])
    return eval(tangents.form(case.fn, rule), {"__builtins__": __builtins__, **names})


@pytest.mark.parametrize("case", EXPLICIT_CASES, ids=[_case_id(c) for c in EXPLICIT_CASES])
def test_explicit_tangent_matches_differences_and_reverse_mode(case):
    _, rule, sig, bound, ans, env, dirs = _draw(case, 0)
    tangent = _explicit_tangent(case, rule, env, dirs)
    if case.id in UNDEFINED_ITEMS:
        defined = _map(np.isfinite, tangent)
        assert not all(np.all(d) for d in _leaves(defined)), "no item marked undefined"
        tangent = _map(lambda x: np.where(np.isfinite(x), x, 0.0), tangent)
    else:
        defined = _map(lambda x: np.ones(np.shape(x), bool), tangent)
        assert all(np.all(np.isfinite(x)) for x in _leaves(tangent)), tangent
    eps = 1e-6
    numeric = _difference(_moved(case, sig, bound, dirs, eps),
                          _moved(case, sig, bound, dirs, -eps), eps)
    if case.id not in KINKS:
        _assert_close(tangent, _zip(lambda n, d: np.where(d, n, 0.0), numeric, defined),
                      f"{_case_id(case)}: tangent vs central differences")
    rng = np.random.default_rng(1)
    for seed in range(2):
        v = _zip(lambda x, d: np.where(d, x, 0.0), random_like(ans, rng), defined)
        v = float(v) if isinstance(ans, float) else v
        seeded = {**env, "g": v}
        forward = inner(tangent, v)
        reverse = sum(inner(d, evaluate_grad(rule, p, seeded)) for p, d in dirs.items())
        assert forward == pytest.approx(reverse, rel=1e-8, abs=1e-10), (
            f"{_case_id(case)}: <jvp(t), v> {forward!r} != <t, vjp(v)> {reverse!r}")


@pytest.mark.parametrize("case", BILINEAR_CASES, ids=[_case_id(c) for c in BILINEAR_CASES])
def test_bilinear_tangent_is_one_operand_at_a_time(case):
    _, rule, sig, bound, ans, env, dirs = _draw(case, 2)
    terms = []
    for p, d in dirs.items():
        if _is_varargs(sig, p):  # (einsum: multilinear in its operands)
            for i in range(len(d)):
                items = list(bound.arguments[p])
                items[i] = d[i]
                terms.append(_replaced(case, sig, bound, p, tuple(items)))
        else:
            terms.append(_replaced(case, sig, bound, p, d))
    eps = 1e-6
    numeric = _difference(_moved(case, sig, bound, dirs, eps),
                          _moved(case, sig, bound, dirs, -eps), eps)
    _assert_close(sum(terms[1:], terms[0]), numeric, f"{_case_id(case)}: bilinear tangent")


def _replaced(case, sig, bound, name, value):
    moved = sig.bind(*bound.args, **bound.kwargs)
    moved.arguments[name] = value
    return np.asarray(case.fn(*moved.args, **moved.kwargs), dtype=float)


# -- where the derivative of one item does not exist -------------------------------------

def test_eigenvectors_of_a_repeated_eigenvalue_are_nan_and_the_eigenvalues_exact():
    a = np.diag([1.0, 1.0, 3.0])
    t = np.random.default_rng(3).standard_normal((3, 3))
    w_dot, v_dot = runtime.eigh_tangent(t, np.linalg.eigh(a), "L")
    sym = np.tril(t) + np.tril(t, -1).T
    eps = 1e-7
    np.testing.assert_allclose(w_dot.sum(), np.trace(sym), rtol=1e-12)
    numeric = (np.linalg.eigvalsh(a + eps * sym)[2] - np.linalg.eigvalsh(a - eps * sym)[2]) / (2 * eps)
    assert w_dot[2] == pytest.approx(numeric, rel=1e-6)
    assert np.all(np.isnan(v_dot[:, :2])) and np.all(np.isfinite(v_dot[:, 2]))


def test_full_factors_past_min_m_n_are_nan():
    a = np.random.default_rng(4).standard_normal((5, 3))
    t = np.ones((5, 3))
    u_dot, s_dot, vh_dot = runtime.svd_tangent(a, t, np.linalg.svd(a), True, True, False)
    assert np.all(np.isnan(u_dot[:, 3:])) and np.all(np.isfinite(u_dot[:, :3]))
    assert np.all(np.isfinite(s_dot)) and np.all(np.isfinite(vh_dot))
    q_dot, r_dot = runtime.qr_tangent(a, t, np.linalg.qr(a, "complete"), "complete")
    assert np.all(np.isnan(q_dot[:, 3:])) and np.all(r_dot[3:] == 0)


@pytest.mark.parametrize("call", [
    lambda t: runtime.pinv_tangent(np.ones((3, 2)), t, np.linalg.pinv(np.ones((3, 2))), False),
    lambda t: runtime.qr_tangent(np.ones((2, 3)), t, np.linalg.qr(np.ones((2, 3))), "reduced"),
    lambda t: runtime.logsumexp_tangent(t, t, None, None, 0.0, False, True),
    # (The tangent padded with the mode was a wrong number: hunt 5 bug_03.)
    lambda t: runtime.pad_tangent(t, t, 2, "maximum", 0.0, "even"),
    lambda t: runtime.pad_tangent(t, t, 2, "linear_ramp", 0.0, "even"),
], ids=["pinv-rank-deficient", "qr-wide", "logsumexp-sign", "pad-maximum", "pad-ramp"])
def test_refused_where_reverse_mode_refuses_the_call(call):
    with pytest.raises(NotImplementedError):
        call(np.ones((3, 2)))


def test_casts_to_integers_have_zero_tangents():
    # (Not against reverse mode: np.cumprod's adjoint does not read its dtype yet.)
    a, t = np.array([[1.5, 2.5, 3.5]]), np.ones((1, 3))
    for ans in (np.cumprod(a, axis=1, dtype=int), a.astype(int)):
        assert np.all(runtime.cast_tangent(t, ans) == 0.0)
    assert runtime.cast_tangent(t, a.astype(np.float32)).dtype == np.float32


# -- compiled: forward mode, not the transposition -------------------------------------

_W = np.random.default_rng(5).standard_normal((4, 4))


def chol(a, b):
    low = np.linalg.cholesky(a)
    c = scipy_linalg.cho_factor(a, lower=True)
    x = scipy_linalg.cho_solve(c, b) + scipy_linalg.solve_triangular(low, b, lower=True)
    return np.sum(low * _W) + np.sum(x * x) + scipy_linalg.cholesky(a)[0, 1]


def spectral(a, b):
    sym = a + a.T
    w, v = np.linalg.eigh(sym)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    q, r = np.linalg.qr(a)
    return np.sum(w * np.linalg.eigvalsh(sym)) + np.sum((v[:, -1] * b) ** 2) + np.sum(s) \
        + np.sum(u[:, 0] * b) * vh[0, 1] + np.sum(q * _W) + np.sum(r) \
        + np.linalg.slogdet(a)[1] + np.sum(np.linalg.svd(a, compute_uv=False) ** 2)


def products(a, b):
    x = np.linalg.lstsq(a[:, :3], b)[0]
    return np.sum(np.linalg.pinv(a[:3]) ** 2) + np.sum(x) + np.sum(
        np.linalg.matrix_power(a, -2)) + np.sum(np.linalg.multi_dot([a, _W, a, b]))


def ordering(a, b):
    x = np.sort(b) * np.arange(4.0) + np.partition(b, 1) + np.cumprod(b) + b.astype(
        np.float64) * b.astype(int) - np.cumprod(b, dtype=np.float64)
    y = max(b[0], b[1], 0.25) - min([b[2], b[3]]) + math.hypot(b[0], b[2], 1.0)
    z = np.nan_to_num(np.log(np.abs(b) - 0.3)) + np.interp(b, np.array([-1.0, 0.0, 2.0]), a[0, :3])
    return np.sum(x * z) + y + scipy_special.logsumexp(a) + np.sum(
        scipy_special.softmax(a, axis=0) * _W) + np.sum(scipy_special.log_softmax(b) ** 2)


def _spd():
    x = np.random.default_rng(6).standard_normal((4, 4))
    return x @ x.T + 4 * np.eye(4)


@pytest.mark.parametrize("f, helpers", [
    (chol, ["cholesky_tangent", "cho_factor_tangent", "cho_solve_tangent",
            "solve_triangular_tangent"]),
    (spectral, ["eigh_tangent", "eigvalsh_tangent", "svd_tangent", "qr_any_tangent",
                "slogdet_tangent"]),
    (products, ["lstsq_tangent", "pinv_tangent", "matrix_power_tangent", "multi_dot_tangent"]),
    (ordering, ["permute_tangent", "cumprod_tangent", "extreme_tangent", "hypot_tangent",
                "nan_to_num_tangent", "interp_tangent", "logsumexp_tangent", "cast_tangent"]),
], ids=lambda v: getattr(v, "__name__", "")[:12])
def test_forward_mode_compiles_the_rules_and_agrees_with_the_gradient(f, helpers):
    rng = np.random.default_rng(7)
    a, b = _spd(), rng.standard_normal(4)
    text = tangent_source(f, (0, 1), (a, b))
    for name in helpers:
        assert f"_sg.{name}(" in text, name
    code = compile_tangent(f, [0, 1], [a, b])
    for _ in range(3):
        da, db = rng.standard_normal((4, 4)), rng.standard_normal(4)
        value, tangent = code.fn(a, b, da, db)
        assert value == pytest.approx(f(a, b), rel=1e-12)
        ga, gb = sg.grad(f, (0, 1))(a, b)
        assert tangent == pytest.approx(np.sum(ga * da) + np.sum(gb * db), rel=1e-8)
        eps = 1e-6
        numeric = (f(a + eps * da, b + eps * db) - f(a - eps * da, b - eps * db)) / (2 * eps)
        assert tangent == pytest.approx(numeric, rel=1e-5, abs=1e-7)
        jvp_value, jvp_tangent = sg.jvp(f, (a, b), (da, db))
        assert jvp_tangent == pytest.approx(tangent, rel=1e-12)


def test_hvp_runs_forward_over_the_gradient_of_a_decomposition():
    def f(a):
        return np.sum(np.linalg.cholesky(a) ** 3) + np.linalg.eigvalsh(a)[-1] ** 2

    a, v = _spd(), np.random.default_rng(8).standard_normal((4, 4))
    from srcgrad.forward import _forward

    assert _forward(sg.grad(f), (a,), [0]) is not None
    got = sg.hvp(f)(a, v)
    eps = 1e-6
    numeric = (sg.grad(f)(a + eps * v) - sg.grad(f)(a - eps * v)) / (2 * eps)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6)


def test_show_mode_forward_prints_an_explicit_tangent(capsys, tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import numpy as np\n\n\ndef f(a):\n"
                    "    return np.sum(np.linalg.cholesky(a))\n")
    assert main(["show", f"{path}:f", "--mode", "forward"]) == 0
    out = capsys.readouterr().out
    assert "def jvp_f(a, a_dot):" in out and "_sg.cholesky_tangent(" in out


def test_every_primitive_with_an_adjoint_has_a_tangent_but_the_known_ones():
    from srcgrad.rules.table import TABLE as ALL

    missing = {getattr(f, "__name__", repr(f)) for f, r in ALL.items()
               if r.grads and tangents.form(f, r) is None}
    # eigvals, eig, roots: complex results (forward mode runs on real values); angle: of
    # complex values only; the rules that only refuse.
    assert missing <= {"eigvals", "eig", "roots", "angle", "cofactors_grad", "cofactors_tangent",
                       "eigvals_grad",
                       "eig_grad", "roots_jacobian"}, missing


def powers_and_constants(x):
    return np.sum(x ** 2 * 3.0 + x ** 3 - x ** 0.5)


def test_constant_exponents_are_folded_in_the_tangent_code():
    """``x ** (2 - 1)`` of the power rule is ``x`` in the tangent code, as in the adjoint
    (and the values are still right: central differences)."""
    x, v = np.array([0.7, 1.3, 2.0]), np.array([1.0, -0.5, 0.25])
    text = tangent_source(powers_and_constants, 0, (x,))
    assert "(2 - 1)" not in text and "(3 - 1)" not in text
    assert "** 1" not in text
    value, tangent = sg.jvp(powers_and_constants, (x,), (v,))
    eps = 1e-6
    fd = (powers_and_constants(x + eps * v) - powers_and_constants(x - eps * v)) / (2 * eps)
    assert tangent == pytest.approx(fd, rel=1e-8)
    assert sg.hvp(powers_and_constants)(x, v) == pytest.approx(
        (sg.grad(powers_and_constants)(x + eps * v) - sg.grad(powers_and_constants)(x - eps * v))
        / (2 * eps), rel=1e-6)
