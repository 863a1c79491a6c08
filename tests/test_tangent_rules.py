"""The categories forward mode reads its tangents from (rules/tangents.py), checked on
every rule-table case of their primitives: a LINEAR primitive is linear in its
differentiable operands together (f(x + y) = f(x) + f(y), f(2x) = 2 f(x)); an ELEMENTWISE
one's grad expressions, with the tangent for the adjoint, are its directional derivative.
A primitive put in the wrong category would give wrong tangents silently."""
import copy

import numpy as np
import pytest

from srcgrad.rules import tangents
from srcgrad.rules.table import PRIMITIVES as TABLE
from test_rule_table import CASES, _case_id, scope, signature

LINEAR_CASES = [c for c in CASES if tangents.form(c.fn, TABLE[c.fn]) == "linear"]
ELEMENTWISE_CASES = [c for c in CASES if tangents.form(c.fn, TABLE[c.fn]) == "elementwise"]


def _floats(value):
    if isinstance(value, (list, tuple)):
        return all(map(_floats, value))
    return isinstance(value, (float, np.floating)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "f")


def _combine(a, b, fa, fb):
    if isinstance(a, (list, tuple)):
        return type(a)(_combine(x, y, fa, fb) for x, y in zip(a, b))
    return fa * a + fb * b


def _operands(case, rng):
    rule = TABLE[case.fn]
    sig = signature(rule)
    args, kwargs = case.draw(rng)
    bound = sig.bind(*args, **kwargs)
    names = [p for p in rule.grads if p in bound.arguments and _floats(bound.arguments[p])]
    return sig, bound, names


def _call(case, sig, bound, values):
    moved = sig.bind(*bound.args, **bound.kwargs)
    for name, value in values.items():
        moved.arguments[name] = value
    return case.fn(*moved.args, **moved.kwargs)


def _flat(value):
    if isinstance(value, (list, tuple)):
        return np.concatenate([np.ravel(_flat(v)) for v in value]) if value else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=complex))


@pytest.mark.parametrize("case", LINEAR_CASES, ids=[_case_id(c) for c in LINEAR_CASES])
def test_linear_primitives_are_linear(case):
    rng = np.random.default_rng(0)
    sig, bound, names = _operands(case, rng)
    if not names or bound.arguments.get("dtype") is not None:
        pytest.skip("no float operand, or a cast (forward mode refuses casts)")
    x = {n: bound.arguments[n] for n in names}
    other = _operands(case, rng)[1]  # another point, drawn alike
    y = {n: copy.deepcopy(other.arguments[n]) for n in names}
    fx = _flat(_call(case, sig, bound, x))
    fy = _flat(_call(case, sig, bound, y))
    fsum = _flat(_call(case, sig, bound, {n: _combine(x[n], y[n], 1.0, 1.0) for n in names}))
    f2x = _flat(_call(case, sig, bound, {n: _combine(x[n], x[n], 2.0, 0.0) for n in names}))
    np.testing.assert_allclose(fsum, fx + fy, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(f2x, 2 * fx, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ELEMENTWISE_CASES, ids=[_case_id(c) for c in ELEMENTWISE_CASES])
def test_elementwise_grads_are_the_tangents(case):
    rng = np.random.default_rng(1)
    sig, bound, names = _operands(case, rng)
    rule = TABLE[case.fn]
    ans = case.fn(*bound.args, **bound.kwargs)
    eps = 1e-6
    for name in names:
        t = rng.standard_normal(np.shape(bound.arguments[name]))
        t = float(t) if np.ndim(bound.arguments[name]) == 0 else t
        env = scope(rule, bound, t, ans)
        tangent = eval(rule.grads[name], {"__builtins__": __builtins__, **env})
        plus = _call(case, sig, bound, {name: bound.arguments[name] + eps * t})
        minus = _call(case, sig, bound, {name: bound.arguments[name] - eps * t})
        numeric = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
        np.testing.assert_allclose(np.broadcast_to(tangent, np.shape(numeric)), numeric,
                                   rtol=1e-5, atol=1e-7, err_msg=name)
