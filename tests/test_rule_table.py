"""Every rule of the derivative table, checked without the compiler.

For each entry of ``srcgrad.derivatives.TABLE`` a few calls with inputs in the
primitive's domain (like JAX's ``rand_positive``...). For each call the grad
expressions are evaluated with ``eval`` in the scope ``rules.Rule`` describes
(``g``, ``ans``, the parameters with the signature's defaults, ``np``,
``math``, ``_sg``), unbroadcast when the rule says so, and compared along a
random direction ``v`` with central differences:

    <grad_p, v>  ==  <g, f(p + eps v) - f(p - eps v)> / (2 eps)

A second group of tests reads the grad expressions and the helpers as code:
they must only call functions that have a rule, are in NONDIFF, or are helpers
that the compiler can differentiate again.
"""
import ast
import builtins
import importlib
import inspect
import math
import textwrap
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import srcgrad as sg
from srcgrad.runtime import adjoints as adjoint_helpers
from srcgrad import runtime
from srcgrad.rules.table import ATTRIBUTES, CONSTANT_UNLESS_VARIED, METHODS, NONDIFF, OPERATORS
from srcgrad.rules.table import PRIMITIVES as TABLE

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-7


# ---------------------------------------------------------------------------
# Input generators
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Gen:
    """A random input: ``kind`` picks the domain, ``shape`` None means a Python float."""

    kind: str = "real"
    shape: tuple = None

    def __call__(self, rng):
        shape = () if self.shape is None else self.shape
        if self.kind == "real":
            x = rng.standard_normal(shape)
        elif self.kind == "pos":  # rand_positive
            x = rng.uniform(0.5, 2.0, shape)
        elif self.kind == "unit":  # inside (-1, 1)
            x = rng.uniform(-0.9, 0.9, shape)
        elif self.kind == "nonzero":  # away from 0, either sign
            x = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        elif self.kind == "gt1":  # arccosh
            x = rng.uniform(1.2, 3.0, shape)
        elif self.kind == "matrix":  # well conditioned, shape (..., n, n)
            x = rng.standard_normal(shape) + shape[-1] * np.eye(shape[-1])
        elif self.kind == "bool":
            return rng.random(shape) < 0.5
        else:
            raise ValueError(self.kind)
        return float(x) if self.shape is None else x


def R(*shape):
    return Gen("real", shape)


def P(*shape):
    return Gen("pos", shape)


def U(*shape):
    return Gen("unit", shape)


def NZ(*shape):
    return Gen("nonzero", shape)


def M(*shape):
    return Gen("matrix", shape)


def B(*shape):
    return Gen("bool", shape)


F = Gen("real")        # a Python float
FP = Gen("pos")
FU = Gen("unit")
FNZ = Gen("nonzero")
FG1 = Gen("gt1")


@dataclass
class Case:
    """One call ``fn(*args, **kwargs)``; ``Gen`` values are drawn, others passed as they are."""

    fn: object
    args: tuple
    kwargs: dict = field(default_factory=dict)
    wrt: tuple = None  # parameter names to check; default: every float parameter with a grad
    id: str = ""
    # The seed drawn for the result, made one the result has a derivative for (the
    # eigenvectors' phases are a convention of NumPy's, not a function of the matrix).
    cotangent: object = None

    def draw(self, rng):
        def value(a):
            if isinstance(a, Gen):
                return a(rng)
            if isinstance(a, list):
                return [value(x) for x in a]
            if isinstance(a, tuple) and any(isinstance(x, Gen) for x in a):
                return tuple(value(x) for x in a)
            return a
        return [value(a) for a in self.args], {k: value(v) for k, v in self.kwargs.items()}


def C(fn, *args, wrt=None, id="", cotangent=None, **kwargs):
    return Case(fn, args, kwargs, wrt, id, cotangent)


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------

def _gen_of(kind):
    """The generator of an entry's domain kind (``Rule.domain``): ``fn(*shape)``."""
    return lambda *shape: Gen(kind, shape)


# The domains come from the table's own entries (``Rule.domain``).
UNARY_DOMAINS = {fn: _gen_of(rule.domain["x"]) for fn, rule in TABLE.items()
                 if isinstance(fn, np.ufunc) and fn.nin == 1 and rule.domain}

MATH_UNARY_DOMAINS = {fn: Gen(rule.domain["x"]) for fn, rule in TABLE.items()
                      if not isinstance(fn, np.ufunc) and list(rule.domain) == ["x"]}

# (x1 domain, x2 domain) for binary elementwise ufuncs
BINARY_DOMAINS = {fn: (_gen_of(rule.domain["x1"]), _gen_of(rule.domain["x2"]))
                  for fn, rule in TABLE.items()
                  if isinstance(fn, np.ufunc) and fn.nin == 2 and rule.domain}


def test_domains_name_the_elementwise_entries():
    """Every elementwise entry says where its inputs live, so the cases above exist."""
    assert len(UNARY_DOMAINS) == 31 and len(MATH_UNARY_DOMAINS) == 28 and len(BINARY_DOMAINS) == 17
    assert np.log in UNARY_DOMAINS and UNARY_DOMAINS[np.log]().kind == "pos"
    assert math.acosh in MATH_UNARY_DOMAINS and builtins.abs in MATH_UNARY_DOMAINS
    assert BINARY_DOMAINS[np.true_divide][1]().kind == "nonzero"


BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (2, 3)), ((2, 3), ()),
                    ((2, 1, 3), (4, 1))]

REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std]
REDUCTION_AXES = [dict(), dict(axis=0), dict(axis=-1), dict(axis=(0, 2)),
                  dict(axis=1, keepdims=True), dict(axis=None, keepdims=True),
                  dict(axis=(2, 0), keepdims=True)]

WITH_ZEROS = np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0], [1.2, -0.7, 2.0], [0.0, 0.0, 0.0]])


def _cases():
    cases = []
    for fn, dom in UNARY_DOMAINS.items():
        cases.append(C(fn, dom(3, 4)))
        cases.append(C(fn, Gen(dom().kind), id="pyfloat"))
        cases.append(C(fn, dom(), id="0d"))
    for fn, dom in MATH_UNARY_DOMAINS.items():
        cases.append(C(fn, dom))
    cases.append(C(builtins.abs, NZ(3, 4), id="array"))
    for fn, (d1, d2) in BINARY_DOMAINS.items():
        for s1, s2 in BROADCAST_SHAPES:
            cases.append(C(fn, d1(*s1), d2(*s2), id=f"{s1}-{s2}"))
        cases.append(C(fn, Gen(d1().kind), d2(3), id="pyfloat-array"))
        cases.append(C(fn, Gen(d1().kind), Gen(d2().kind), id="pyfloats"))
    # power: zero base (finite, zero d/dx2), negative base with integer exponents
    for fn in (np.power, np.float_power):
        cases.append(C(fn, np.array([0.0, 1.5, 0.7]), np.array([2.0, 3.0, 0.5]), id="zero-base"))
        cases.append(C(fn, R(3, 4), np.array([1, 2, 3, 4]), wrt=("x1",), id="int-exponent"))
        cases.append(C(fn, R(3, 4), 2, wrt=("x1",), id="squared"))
        cases.append(C(fn, P(3), np.array([0.0, 1.0, 2.0]), id="zero-exponent"))
    # clip
    cases += [
        C(np.clip, R(3, 4), -0.5, 0.5, id="scalar-bounds"),
        C(np.clip, R(3, 4), R(4), P(3, 1), id="array-bounds"),
        C(np.clip, R(3, 4), None, 0.3, id="upper-only"),
        C(np.clip, R(3, 4), -0.3, None, id="lower-only"),
        C(np.clip, R(3, 4), min=R(4), max=P(3, 1), id="min-max-keywords"),
        C(np.clip, F, -0.5, 0.5, id="pyfloat"),
    ]
    # where
    cases += [
        C(np.where, B(3, 4), R(3, 4), R(3, 4)),
        C(np.where, B(3, 4), R(4), R(3, 1), id="broadcast"),
        C(np.where, B(3, 4), F, R(3, 4), id="pyfloat-x"),
    ]
    # reductions
    for fn in REDUCTIONS:
        for kw in REDUCTION_AXES:
            cases.append(C(fn, R(2, 3, 4), id=",".join(f"{k}={v}" for k, v in kw.items()), **kw))
        cases.append(C(fn, R(5), id="vector"))
    for kw in (dict(), dict(axis=0), dict(axis=1), dict(axis=-1, keepdims=True)):
        cases.append(C(np.prod, WITH_ZEROS.copy(), id="zeros-" + str(kw), **kw))
    cases += [
        C(np.var, R(3, 4), axis=1, ddof=1, id="ddof"),
        C(np.std, R(3, 4), axis=0, ddof=1, keepdims=True, id="ddof"),
        C(np.cumsum, R(3, 4)), C(np.cumsum, R(3, 4), axis=0), C(np.cumsum, R(3, 4), axis=-1),
        C(np.cumsum, R(2, 3, 4), 1),
        C(np.trace, R(4, 4)), C(np.trace, R(3, 5), 1), C(np.trace, R(5, 3), -1),
        C(np.trace, R(2, 3, 4), axis1=1, axis2=2), C(np.trace, R(3, 2, 4), 1, 2, 0),
    ]
    # products
    matmul_shapes = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                     ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                     ((2, 3, 4), (4,))]
    for s1, s2 in matmul_shapes:
        cases.append(C(np.matmul, R(*s1), R(*s2), id=f"{s1}@{s2}"))
    for s1, s2 in matmul_shapes[:5] + [((), (3, 4)), ((3,), ()), ((2, 3, 4), (5, 4, 6)),
                                       ((4,), (2, 4, 3)), ((2, 3), (2, 3, 4))]:
        cases.append(C(np.dot, R(*s1), R(*s2), id=f"{s1}.{s2}"))
    cases += [
        C(np.outer, R(3), R(4)), C(np.outer, R(2, 3), R(4), id="ravel"),
        C(np.outer, F, R(3), id="pyfloat"),
        C(np.inner, R(4), R(4)), C(np.inner, R(2, 4), R(3, 4), id="2d"),
        C(np.inner, R(2, 3, 4), R(4), id="3d-1d"), C(np.inner, F, R(3), id="scalar"),
        C(np.vdot, R(4), R(4)), C(np.vdot, R(2, 3), R(3, 2), id="flattened"),
        C(np.tensordot, R(2, 3, 4), R(3, 4, 5)), C(np.tensordot, R(3, 4), R(4, 5), 1, id="axes1"),
        C(np.tensordot, R(3, 4), R(4, 3), ([1, 0], [0, 1]), id="pairs"),
        C(np.tensordot, R(3), R(2), 0, id="outer"),
        C(np.tensordot, R(2, 3, 4), R(4, 2), axes=([0, -1], [1, 0]), id="neg-axes"),
    ]
    einsums = [
        ("ij,jk->ik", R(3, 4), R(4, 5)), ("ij,jk", R(3, 4), R(4, 5)),
        ("ii->i", R(3, 3)), ("ii", R(3, 3)), ("ij->", R(3, 4)), ("ij->j", R(3, 4)),
        ("i,i", R(4), R(4)), ("i,j->ij", R(3), R(4)), ("bij,bjk->bik", R(2, 3, 4), R(2, 4, 5)),
        ("...ij,...jk->...ik", R(2, 1, 3, 4), R(5, 4, 2)), ("...ij,...jk", R(3, 4), R(2, 4, 2)),
        ("ij,jk,kl->il", R(2, 3), R(3, 4), R(4, 2)), ("iij->j", R(3, 3, 2)),
        ("ij,ij->ij", R(1, 3), R(2, 3)), ("ij,i->", R(3, 4), R(3)), (",ij->ij", F, R(2, 3)),
        ("ji", R(3, 4)), ("Ba,ab->B", R(2, 3), R(3, 2)), ("i i -> i", R(3, 3)),
    ]
    for subs, *ops in einsums:
        cases.append(C(np.einsum, subs, *ops, id=subs))
        cases.append(C(adjoint_helpers.einsum_list, subs, list(ops), id=subs))
    cases.append(C(np.einsum, "ij,jk->ik", R(3, 4), R(4, 5), optimize=True, id="optimize"))
    # linear algebra
    cases += [
        C(np.linalg.solve, M(3, 3), R(3), id="vector"),
        C(np.linalg.solve, M(3, 3), R(3, 2), id="matrix"),
        C(np.linalg.solve, M(2, 3, 3), R(2, 3, 2), id="batched"),
        C(np.linalg.solve, M(2, 3, 3), R(3), id="batched-vector"),
        C(np.linalg.solve, M(3, 3), R(2, 3, 2), id="broadcast-a"),
        C(np.linalg.inv, M(3, 3)), C(np.linalg.inv, M(2, 3, 3), id="batched"),
        C(np.linalg.det, M(3, 3)), C(np.linalg.det, M(2, 3, 3), id="batched"),
        C(np.linalg.det, R(1, 1) , id="1x1"),
        # det's gradient where the inverse is not taken (its adjoint: from minors)
        C(adjoint_helpers.singular_cofactors, M(3, 3)),
        C(adjoint_helpers.singular_cofactors, M(2, 4, 4), id="batched"),
        C(adjoint_helpers.singular_cofactors, M(2, 2), id="2x2"),
    ]
    norms = [
        (R(5), {}), (R(3, 4), {}), (R(2, 3, 4), {}), (R(3, 4), dict(keepdims=True)),
        (R(5), dict(ord=1)), (R(5), dict(ord=np.inf)), (R(5), dict(ord=-np.inf)),
        (R(5), dict(ord=3)), (R(5), dict(ord=0.5)), (R(5), dict(ord=-1)), (R(5), dict(ord=0)),
        (R(3, 4), dict(axis=1)), (R(3, 4), dict(axis=0, ord=1, keepdims=True)),
        (R(2, 3, 4), dict(axis=-1, ord=np.inf)), (R(3, 4), dict(ord="fro")),
        (R(3, 4), dict(ord=1)), (R(3, 4), dict(ord=-1)), (R(3, 4), dict(ord=np.inf)),
        (R(3, 4), dict(ord=-np.inf)), (R(2, 3, 4), dict(axis=(2, 0), ord=1)),
        (R(2, 3, 4), dict(axis=(0, 2), ord=np.inf, keepdims=True)),
        (R(2, 3, 4), dict(axis=(1, 2))), (R(3, 4), dict(axis=(1,), ord=2)),
    ]
    for x, kw in norms:
        cases.append(C(np.linalg.norm, x, id=str(kw), **kw))
    # shape functions
    cases += [
        C(np.reshape, R(2, 6), (3, 4)), C(np.reshape, R(2, 6), (3, -1), order="F", id="F"),
        C(np.reshape, R(2, 6), shape=12, id="keyword"),
        C(np.ravel, R(3, 4)), C(np.ravel, R(3, 4), "F", id="F"),
        C(adjoint_helpers.flatten, R(3, 4)), C(adjoint_helpers.flatten, R(3, 4), "F", id="F"),
        C(np.transpose, R(2, 3, 4)), C(np.transpose, R(2, 3, 4), (1, 2, 0), id="axes"),
        C(np.transpose, R(2, 3, 4), (-1, 0, 1), id="negative-axes"),
        C(np.matrix_transpose, R(2, 3, 4)), C(np.linalg.matrix_transpose, R(3, 4)),
        C(np.swapaxes, R(2, 3, 4), 0, 2), C(np.moveaxis, R(2, 3, 4), 0, -1),
        C(np.moveaxis, R(2, 3, 4), (0, 1), (2, 0), id="tuples"),
        C(np.expand_dims, R(3, 4), 1), C(np.expand_dims, R(3, 4), (0, -1), id="tuple"),
        C(np.squeeze, R(3, 1, 4, 1)), C(np.squeeze, R(3, 1, 4, 1), axis=1, id="axis"),
        C(np.broadcast_to, R(3), (2, 3)), C(np.broadcast_to, R(3, 1), (2, 3, 4), id="size1"),
        C(np.broadcast_to, F, (2, 2), id="pyfloat"),
        C(adjoint_helpers.broadcast_to, R(3), (2, 3)),
        C(adjoint_helpers.broadcast_to, R(3, 1), (2, 3, 4), id="size1"),
        C(adjoint_helpers.broadcast_to, F, (2, 2), id="pyfloat"),
        C(adjoint_helpers.sigmoid, R(3), R(3)), C(adjoint_helpers.sigmoid, R(2, 3), R(3), id="broadcast"),
        C(adjoint_helpers.sigmoid, R(3), 0.0, id="zero"), C(adjoint_helpers.sigmoid, F, F, id="floats"),
        C(adjoint_helpers.add_reduce, R(3, 4), None, False),
        C(adjoint_helpers.add_reduce, R(3, 4), 1, True, id="keepdims"),
        C(adjoint_helpers.add_reduce, R(2, 3, 4), (0, 2), False, id="axes"),
        C(np.flip, R(3, 4)), C(np.flip, R(3, 4), 1, id="axis"),
        C(np.flip, R(2, 3, 4), (0, 2), id="tuple"),
        C(np.triu, R(4, 4)), C(np.triu, R(3, 4), 1, id="k"), C(np.tril, R(4, 4)),
        C(np.tril, R(2, 4, 3), -1, id="batched"),
        C(np.concatenate, [R(2, 3), R(4, 3)]), C(np.concatenate, (R(2, 3), R(2, 1)), 1, id="axis1"),
        C(np.concatenate, [R(2, 3), R(2, 2), R(2, 1)], axis=-1, id="three"),
        C(np.concatenate, [R(2, 3), R(4)], axis=None, id="flat"),
        C(np.concatenate, R(3, 4), id="ndarray"),
        C(np.hstack, [R(3), R(2)]), C(np.hstack, [R(2, 3), R(2, 1)], id="2d"),
        C(np.hstack, [F, R(2), F], id="scalars"),
        # np.r_[...] / np.c_[...] (normalize writes them as these)
        C(adjoint_helpers.join_r, [R(3), F, R(2)], id="r-1d"),
        C(adjoint_helpers.join_r, [R(2, 3), R(1, 3)], id="r-2d"),
        C(adjoint_helpers.join_c, [R(3), R(3, 2), R(3)], id="c-columns"),
        C(adjoint_helpers.join_c, [F, F], id="c-scalars"),
        C(adjoint_helpers.join_c, [R(2, 2, 3), R(2, 2, 1)], id="c-3d"),
        C(np.vstack, [R(3), R(2, 3)]), C(np.vstack, (R(3), R(3)), id="vectors"),
        C(np.stack, [R(2, 3), R(2, 3)]), C(np.stack, (R(2, 3), R(2, 3), R(2, 3)), 1, id="axis1"),
        C(np.stack, [R(2, 3), R(2, 3)], axis=-1, id="last"), C(np.stack, R(3, 4), id="ndarray"),
        C(np.stack, [F, F], id="scalars"),
    ]
    # copies, conversions, constructors
    cases += [
        C(np.copy, R(3, 4)),
        C(np.array, R(3, 4), id="array"), C(np.array, [F, F, F], id="floats"),
        C(np.array, [R(3), R(3)], id="arrays"), C(np.array, [[F, F], [F, F]], id="nested"),
        C(np.array, (F, R(), F), id="tuple"), C(np.array, R(3), ndmin=2, id="ndmin"),
        C(np.array, [F, F], dtype=np.float64, id="dtype"),
        C(np.array, [F, F], dtype=int, id="int"),
        C(np.asarray, R(3, 4), id="array"), C(np.asarray, [F, F], id="floats"),
        C(np.asarray, [[F, F, F], [F, F, F]], id="nested"),
        C(np.asarray, R(3), dtype=int, id="int"),
        C(adjoint_helpers.astype, R(3), np.float64), C(adjoint_helpers.astype, R(3), int, id="int"),
        C(adjoint_helpers.item, R(1, 1)), C(adjoint_helpers.item, R(), id="0d"),
        C(np.float64, F), C(np.float64, R(3), id="array"),
        C(builtins.float, F), C(builtins.float, R(), id="0d"),
        C(np.full, (2, 3), F), C(np.full, (2, 3), R(3), id="broadcast"),
        C(np.full, (2, 3), F, dtype=int, id="int"),
        C(np.full_like, R(2, 3), F), C(np.full_like, R(2, 3), R(2, 1), id="broadcast"),
        C(np.linspace, F, F, 5), C(np.linspace, F, F, 4, endpoint=False, id="no-endpoint"),
        C(np.linspace, R(3), R(3), 4, axis=1, id="arrays"),
        C(np.linspace, F, R(2, 3), 5, axis=-1, id="broadcast"),
        C(np.linspace, F, F, 1, id="one"),
    ]
    # math with two arguments, builtins
    cases += [
        C(math.log, FP), C(math.log, FP, Gen("gt1"), id="base"),
        C(math.atan2, FNZ, FNZ), C(math.pow, FP, F), C(math.pow, F, 2.0, wrt=("x",), id="int-exp"),
        C(math.hypot, FNZ, FNZ), C(math.hypot, FNZ, FNZ, FNZ, id="3d"),
        C(math.fsum, [F, F, F]),
        C(builtins.pow, FP, F), C(builtins.pow, R(3), 3, wrt=("base",), id="int-exp"),
        C(builtins.pow, P(3, 1), R(4), id="arrays"),
        C(builtins.sum, [F, F, F]), C(builtins.sum, [R(3), R(3)], R(3), id="arrays-start"),
        C(builtins.sum, R(4, 3), id="ndarray"), C(builtins.sum, (F, R(2), F), F, id="broadcast"),
        C(builtins.sum, R(4, 3), start=R(2, 1, 3), id="ndarray-broadcast-start"),
        C(builtins.max, F, F, F), C(builtins.max, [F, F, F, F], id="list"),
        C(builtins.max, R(5), id="ndarray"), C(builtins.max, F, 0.0, id="relu"),
        C(builtins.min, F, F, F), C(builtins.min, [F, F, F, F], id="list"),
        C(builtins.min, R(5), id="ndarray"), C(builtins.min, (F, F), id="tuple"),
    ]
    return cases


def _all_cases():
    import types as _types

    from rule_cases import family_cases
    t = _types.SimpleNamespace(**{k: v for k, v in globals().items() if not k.startswith("__")})
    return _cases() + family_cases(t)


CASES = _all_cases()


def _case_id(case):
    fn = case.fn
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", repr(fn))
    prefix = {"math": "math.", "builtins": "builtins."}.get(module, "")
    if fn in (np.linalg.solve, np.linalg.inv, np.linalg.det, np.linalg.norm,
              np.linalg.matrix_transpose):
        prefix = "linalg."
    if module == adjoint_helpers.__name__:
        prefix = "_sg."
    return prefix + name + (f"[{case.id}]" if case.id else "")


# ---------------------------------------------------------------------------
# Evaluating rules
# ---------------------------------------------------------------------------

def signature(rule):
    namespace = {}
    exec(f"def _({rule.signature}): pass", namespace)
    return inspect.signature(namespace["_"])


def _is_varargs(sig, name):
    return sig.parameters[name].kind is inspect.Parameter.VAR_POSITIONAL


def drawn(case, rng):
    """A case's rule, its signature, the arguments drawn bound to it, and the result."""
    rule = TABLE[case.fn]
    sig = signature(rule)
    args, kwargs = case.draw(rng)
    bound = sig.bind(*args, **kwargs)
    return rule, sig, bound, case.fn(*args, **kwargs)


def scope(rule, bound, g, ans):
    """The names a grad expression sees (see ``rules.Rule``)."""
    env = {}
    full = bound.signature.bind(*bound.args, **bound.kwargs)
    full.apply_defaults()
    for name, value in full.arguments.items():
        env[name] = list(value) if _is_varargs(bound.signature, name) else value
    env.update(g=g, ans=ans, np=np, math=math, _sg=runtime)
    return env


def evaluate_grad(rule, name, env):
    grad = eval(rule.grads[name], {"__builtins__": builtins, **env})
    if rule.broadcast:
        grad = runtime.unbroadcast(grad, env[name])
    return grad


def _has_float_item(value):
    """A tuple of a primitive's results with a float item (``lstsq``: ``rank`` is an int)."""
    return isinstance(value, tuple) and any(_is_float_value(v) for v in value)


def _is_float_value(value):
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(_is_float_value(v) for v in value)
    if isinstance(value, (float, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "fc"  # (complex: np.fft)


def random_like(value, rng):
    if isinstance(value, (list, tuple)):
        return [random_like(v, rng) for v in value]
    if isinstance(value, (bool, np.bool_, int, np.integer)):  # a flag or count in a tuple
        return np.zeros(np.shape(value))
    if isinstance(value, (float, np.floating)) and not isinstance(value, np.ndarray):
        return float(rng.standard_normal())
    if np.iscomplexobj(value):  # the adjoint of a complex result (C as R^2)
        return rng.standard_normal(np.shape(value)) + 1j * rng.standard_normal(np.shape(value))
    return rng.standard_normal(np.shape(value))


def step(value, v, t):
    """``value + t * v``, keeping the kind of ``value`` (list, tuple, Python float, array)."""
    if isinstance(value, (list, tuple)):
        return type(value)(step(x, y, t) for x, y in zip(value, v))
    if isinstance(value, float):
        return float(value + t * v)
    return value + t * v


def inner(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        assert isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)), (type(a), type(b))
        assert len(a) == len(b), (len(a), len(b))
        return sum(inner(x, y) for x, y in zip(a, b))
    # The real inner product (of C as R^2 where a value is complex).
    return float(np.real(np.sum(np.conj(np.asarray(a)) * np.asarray(b))))


def assert_same_structure(grad, value, what):
    if isinstance(value, (list, tuple)):
        assert isinstance(grad, (list, tuple)), \
            f"{what}: adjoint of a list must be a list, got {type(grad)}"
        assert len(grad) == len(value), what
        for i, (gi, vi) in enumerate(zip(grad, value)):
            assert_same_structure(gi, vi, f"{what}[{i}]")
    else:
        assert np.shape(grad) == np.shape(value), \
            f"{what}: adjoint has shape {np.shape(grad)}, expected {np.shape(value)}"
        assert np.all(np.isfinite(grad)), f"{what}: adjoint is not finite: {grad}"


def check_case(case, seed=0):
    """Check every differentiable parameter of one call against central differences."""
    rng = np.random.default_rng(seed)
    rule, sig, bound, ans = drawn(case, rng)
    g = random_like(ans, rng) if _is_float_value(ans) or _has_float_item(ans) \
        else np.zeros(np.shape(ans))
    if isinstance(ans, float):
        g = float(g)
    if case.cotangent is not None:
        g = case.cotangent(g, ans)
    env = scope(rule, bound, g, ans)
    wrt = case.wrt
    if wrt is None:
        wrt = [p for p in rule.grads if p in bound.arguments and _is_float_value(env[p])]
    assert wrt, f"{_case_id(case)}: nothing to check"
    checked = []
    for name in wrt:
        grad = evaluate_grad(rule, name, env)
        assert_same_structure(grad, env[name], f"{_case_id(case)} d/d{name}")
        v = random_like(env[name], rng)

        def f(t):
            shifted = sig.bind(*bound.args, **bound.kwargs)
            value = shifted.arguments[name]
            shifted.arguments[name] = step(tuple(value) if _is_varargs(sig, name) else value, v, t)
            return case.fn(*shifted.args, **shifted.kwargs)

        numeric = (inner(g, f(EPS)) - inner(g, f(-EPS))) / (2 * EPS)
        analytic = inner(grad, v)
        assert abs(analytic - numeric) <= ATOL + RTOL * abs(numeric), (
            f"{_case_id(case)}: d/d{name} is wrong: analytic {analytic!r}, numeric {numeric!r}")
        checked.append(name)
    return checked


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_rule_matches_central_differences(case):
    with np.errstate(divide="ignore", invalid="ignore"):
        check_case(case)


# Rules whose grad only refuses: checked in ``test_refusing_rules_raise``.
REFUSING = {adjoint_helpers.cofactors_grad, adjoint_helpers.cofactors_tangent,
            runtime.roots_jacobian}


def test_every_rule_has_a_case():
    covered = {case.fn for case in CASES} | REFUSING
    missing = [fn for fn in TABLE if fn not in covered]
    assert not missing, f"rules without a test case: {missing}"


def test_every_differentiable_parameter_is_checked():
    checked = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for case in CASES:
            checked.setdefault(case.fn, set()).update(check_case(case))
    unchecked = [(fn, p) for fn, rule in TABLE.items() for p in rule.grads
                 if p not in checked.get(fn, ()) and fn not in REFUSING]
    assert not unchecked, f"grads never checked: {unchecked}"


# ---------------------------------------------------------------------------
# Conventions at non-smooth points, checked by value
# ---------------------------------------------------------------------------

def grad_of(fn, args, name, g=None, **kwargs):
    rule = TABLE[fn]
    bound = signature(rule).bind(*args, **kwargs)
    ans = fn(*args, **kwargs)
    g = np.ones(np.shape(ans)) if g is None else g
    return evaluate_grad(rule, name, scope(rule, bound, g, ans))


def test_ties_of_max_share_the_gradient():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    np.testing.assert_allclose(grad_of(np.max, [a], "a"), [[0, 0.5, 0.5], [0, 0, 0]])
    np.testing.assert_allclose(grad_of(np.max, [a], "a", axis=1, g=np.array([2.0, 4.0])),
                               [[0, 1.0, 1.0], [4.0, 0, 0]])
    np.testing.assert_allclose(grad_of(np.min, [a], "a", axis=0, g=np.ones(3)),
                               [[1, 0, 0], [0, 1, 1]])


def test_ties_of_maximum_split_in_halves():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])
    np.testing.assert_allclose(grad_of(np.maximum, [x, y], "x1"), [0.5, 0, 1])
    np.testing.assert_allclose(grad_of(np.maximum, [x, y], "x2"), [0.5, 1, 0])
    np.testing.assert_allclose(grad_of(np.minimum, [x, y], "x1"), [0.5, 1, 0])


def test_builtin_max_gives_the_gradient_to_the_first_extreme():
    assert grad_of(builtins.max, [1.0, 3.0, 3.0], "args", g=2.0) == [0.0, 2.0, 0.0]
    assert grad_of(builtins.min, [[4.0, 1.0, 1.0]], "args", g=1.0) == [[0.0, 1.0, 0.0]]


def test_abs_and_clip_at_kinks():
    assert grad_of(np.abs, [np.array([0.0, -2.0])], "x").tolist() == [0.0, -1.0]
    clipped = grad_of(np.clip, [np.array([-1.0, -0.5, 0.0, 0.5, 1.0]), -0.5, 0.5], "a")
    assert clipped.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_power_edges_are_finite():
    x1 = np.array([0.0, 0.0, -2.0, 2.0])
    x2 = np.array([2.0, 0.0, 3.0, 0.0])
    with np.errstate(all="raise"):
        d1 = grad_of(np.power, [x1, x2], "x1")
        d2 = grad_of(np.power, [x1, x2], "x2")
    np.testing.assert_allclose(d1, [0.0, 0.0, 12.0, 0.0])
    np.testing.assert_allclose(d2, [0.0, 0.0, 0.0, np.log(2.0)])


def _softplus(x):
    return np.logaddexp(0.0, x)


def test_logaddexp_far_from_zero_and_at_zero():
    """Its adjoint needs no ``ans`` and neither overflows nor loses the tails."""
    t = np.array([-800.0, -40.0, 0.0, 40.0, 800.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        d = grad_of(np.logaddexp, [0.0, t], "x2")
    want = np.exp(t - np.logaddexp(0.0, t))  # the old rule, exact: exp(x2 - ans)
    np.testing.assert_allclose(d, want, rtol=1e-15, atol=0)
    assert d[1] > 0  # 4.2e-18, not 0: the tail keeps its relative precision

    second = sg.grad(sg.grad(_softplus))  # s (1 - s), 0.25 at 0
    np.testing.assert_allclose([second(0.0), second(2.0)],
                               [0.25, np.exp(2.0) / (1.0 + np.exp(2.0)) ** 2], rtol=1e-12)


@pytest.mark.parametrize("size", [1, 5, 1000, 10002])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sigmoid_is_exact_at_every_size(size, dtype):
    """Each way ``sigmoid`` is written (scalars, small, mid-sized, large arrays) gives
    ``exp(z - logaddexp(z, 0))``, the old rule, without overflow."""
    z = np.concatenate([[-800.0, -40.0, 0.0, 40.0, 800.0], np.linspace(-50.0, 50.0, size)])
    z = z[:max(size, 5)].astype(dtype)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        got = adjoint_helpers.sigmoid(z, 0.0)
        scalars = [adjoint_helpers.sigmoid(float(v), 0.0) for v in z[:5]]
        shifted = adjoint_helpers.sigmoid(z, 1.5)
    with np.errstate(under="ignore"):
        want = np.exp(z - np.logaddexp(z, dtype(0.0)))
        want_shifted = np.exp(z - 1.5 - np.logaddexp(z - 1.5, dtype(0.0)))
    assert got.dtype == dtype and got.shape == z.shape
    rtol = 1e-14 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    np.testing.assert_allclose(shifted, want_shifted, rtol=rtol, atol=0)
    np.testing.assert_allclose(scalars, np.exp(z[:5].astype(float) - np.logaddexp(z[:5].astype(float), 0.0)),
                               rtol=1e-15, atol=0)


def test_prod_with_zeros():
    a = np.array([0.0, 2.0, 3.0])
    np.testing.assert_allclose(grad_of(np.prod, [a], "a"), [6.0, 0.0, 0.0])
    a = np.array([0.0, 2.0, 0.0])
    np.testing.assert_allclose(grad_of(np.prod, [a], "a"), [0.0, 0.0, 0.0])


def test_norm_at_zero_has_zero_subgradient():
    assert grad_of(np.linalg.norm, [np.zeros(3)], "x").tolist() == [0.0, 0.0, 0.0]


def test_p_norms_at_zero_elements():
    """|x_i| ** (p - 1) is infinite at 0 for p < 1: the abs kink's 0 there, and 0
    everywhere where the norm itself is 0 (p < 0 and any zero element)."""
    x = np.array([1.0, 0.0, 2.0])
    with np.errstate(divide="ignore"):
        half = grad_of(np.linalg.norm, [x], "x", ord=0.5)
        negative = grad_of(np.linalg.norm, [x], "x", ord=-1)
    root = 1.0 + np.sqrt(2.0)  # norm ** 0.5
    np.testing.assert_allclose(half, [root, 0.0, root / np.sqrt(2.0)])
    assert negative.tolist() == [0.0, 0.0, 0.0]


def test_det_of_a_singular_matrix_has_its_cofactors():
    """Rank n - 1 has no inverse but nonzero cofactors: d det / d a_ij = C_ij."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    cofactors = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(grad_of(np.linalg.det, [a], "a"), cofactors, atol=1e-12)
    stack = np.stack([a, a + np.eye(3)])
    both = grad_of(np.linalg.det, [stack], "a", g=np.array([1.0, 2.0]))
    np.testing.assert_allclose(both[0], cofactors, atol=1e-12)
    invertible = stack[1]
    np.testing.assert_allclose(
        both[1], 2.0 * np.linalg.det(invertible) * np.linalg.inv(invertible).T, atol=1e-12)
    assert not grad_of(np.linalg.det, [np.zeros((3, 3))], "a").any()  # rank n - 2


def test_refusing_rules_raise():
    with pytest.raises(NotImplementedError, match="third derivative at a nearly singular"):
        grad_of(adjoint_helpers.cofactors_grad, [np.eye(3), np.eye(3)], "a")
    p = np.array([1.0, -1.0, -2.0])
    with pytest.raises(NotImplementedError, match="second derivative of np.roots"):
        grad_of(runtime.roots_jacobian, [p, np.roots(p)], "p")
    with pytest.raises(NotImplementedError, match="repeated root"):
        grad_of(np.roots, [np.array([1.0, -1.0, 0.0, 0.0])], "p")


def test_cast_to_int_has_zero_adjoint():
    x = np.array([1.5, 2.5])
    assert grad_of(adjoint_helpers.astype, [x, int], "a").tolist() == [0.0, 0.0]
    assert grad_of(np.array, [x], "object", dtype=int).tolist() == [0.0, 0.0]


def test_unsupported_cases_raise():
    x = np.eye(3) + 0.1
    # (Matrix norms 2, -2 and 'nuc' go through the SVD: tests/test_rule_arguments_more.py.)
    with pytest.raises(NotImplementedError, match="subscripts string"):
        grad_of(np.einsum, [x, [0, 1]], "operands")


# ---------------------------------------------------------------------------
# Hypothesis: broadcasting binary rules, reductions with axis/keepdims
# ---------------------------------------------------------------------------

HYPOTHESIS = settings(max_examples=25, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("fn", list(BINARY_DOMAINS) + [np.where],
                         ids=lambda fn: fn.__name__)
@HYPOTHESIS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 32 - 1))
def test_binary_rules_broadcast(fn, shapes, seed):
    s1, s2, s3 = shapes.input_shapes
    if fn is np.where:
        case = C(fn, B(*s3), R(*s1), R(*s2))
    else:
        d1, d2 = BINARY_DOMAINS[fn]
        case = C(fn, d1(*s1), d2(*s2))
    check_case(case, seed)
    check_second_order(case, seed)


@st.composite
def reduction_args(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    ndim = len(shape)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
    else:
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        axis = tuple(ax - ndim if draw(st.booleans()) else ax for ax in axes)
    return shape, axis, draw(st.booleans())


@pytest.mark.parametrize("fn", REDUCTIONS + [np.cumsum, np.linalg.norm],
                         ids=lambda fn: fn.__name__)
@HYPOTHESIS
@given(args=reduction_args(), seed=st.integers(0, 2 ** 32 - 1), ddof=st.integers(0, 1),
       ord=st.sampled_from([None, 1, 2, 3, np.inf, -np.inf]))
def test_reductions_with_axis_and_keepdims(fn, args, seed, ddof, ord):
    shape, axis, keepdims = args
    if fn is np.cumsum:
        if isinstance(axis, tuple):
            axis = axis[0]
        check_case(C(fn, R(*shape), axis), seed)
        check_second_order(C(fn, R(*shape), axis), seed)
        return
    if fn is np.linalg.norm:
        if axis is None or isinstance(axis, tuple) and len(axis) != 1:
            axis = -1
        check_case(C(fn, NZ(*shape), ord, axis, keepdims), seed)
        check_second_order(C(fn, NZ(*shape), ord, axis, keepdims), seed)
        return
    kwargs = dict(axis=axis, keepdims=keepdims)
    if fn in (np.var, np.std):
        count = np.prod(shape) if axis is None else np.prod(
            [shape[ax] for ax in np.atleast_1d(axis)])
        if count <= ddof or (fn is np.std and count < 2):
            return  # var with no degrees of freedom; std not differentiable at 0
        kwargs["ddof"] = ddof
    check_case(C(fn, R(*shape), **kwargs), seed)
    check_second_order(C(fn, R(*shape), **kwargs), seed)


@HYPOTHESIS
@given(seed=st.integers(0, 2 ** 32 - 1), data=st.data())
def test_prod_with_random_zeros(seed, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    mask = data.draw(hnp.arrays(bool, shape))
    a = np.where(mask, 0.0, np.random.default_rng(seed).standard_normal(shape))
    axis = data.draw(st.sampled_from([None] + list(range(len(shape)))))
    case = C(np.prod, a, axis=axis, keepdims=data.draw(st.booleans()))
    check_case(case, seed)
    check_second_order(case, seed)


# ---------------------------------------------------------------------------
# The rules as code: only differentiable calls, only names in scope
# ---------------------------------------------------------------------------

_FAMILY_HELPERS = [importlib.import_module(f"srcgrad.runtime.{m}") for m in
                   ("complexes", "decompositions", "layout", "selection", "sequences",
                    "special", "stats", "convolutions", "ufuncs", "polynomials", "order_stats",
                    "moments", "pymath", "integration", "nan_plans", "linalg_plans",
                    "transform_plans")]
HELPERS = {name: getattr(module, name) for module in [adjoint_helpers] + _FAMILY_HELPERS
           for name in module.__all__}
MODULES = {"np": np, "math": math, "_sg": runtime}
ALLOWED_OPS = set(OPERATORS) | {"Not", "And", "Or"}


def is_known(fn):
    try:
        if fn in TABLE or fn in NONDIFF or fn in CONSTANT_UNLESS_VARIED:
            return True
    except TypeError:
        return False
    return any(fn is h for h in HELPERS.values())


def resolve(node, names):
    """The object a ``Name``/``Attribute`` chain names, looking names up in ``names``."""
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise LookupError(f"unknown name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.Attribute):
        base = resolve(node.value, names)
        if not inspect.ismodule(base):
            raise LookupError(f"attribute {node.attr!r} of a value (use a function with a rule)")
        return getattr(base, node.attr)
    raise LookupError(f"cannot call {ast.dump(node)}")


def bound_names(tree):
    """Names bound inside ``tree`` by comprehensions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            out |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return out


def check_code(tree, names, where):
    """Every call in ``tree`` resolves to a rule, a NONDIFF function or a helper."""
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            try:
                fn = resolve(node.func, names)
            except LookupError as err:
                problems.append(f"{where}: {err}")
                continue
            if not is_known(fn):
                problems.append(f"{where}: calls {ast.unparse(node.func)}, which has no rule")
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                    k.arg is None for k in node.keywords):
                problems.append(f"{where}: *args/**kwargs in a call")
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            try:
                base = resolve(node.value, names)
            except LookupError:
                base = None
            if not inspect.ismodule(base):
                problems.append(f"{where}: attribute .{node.attr} of a value")
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
            if type(node.op).__name__ not in ALLOWED_OPS:
                problems.append(f"{where}: operator {type(node.op).__name__}")
        elif isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.DictComp, ast.SetComp,
                               ast.Starred, ast.Await, ast.Yield, ast.NamedExpr)):
            problems.append(f"{where}: {type(node).__name__} is not allowed")
    return problems


RULE_ITEMS = [(fn, rule) for fn, rule in TABLE.items()]


@pytest.mark.parametrize("fn,rule", RULE_ITEMS,
                         ids=[_case_id(Case(fn, ())) for fn, _ in RULE_ITEMS])
def test_grad_expressions_only_call_differentiable_code(fn, rule):
    params = list(signature(rule).parameters)
    unknown = set(rule.grads) - set(params)
    assert not unknown, f"grads for unknown parameters: {unknown}"
    problems = []
    for name, expr in rule.grads.items():
        tree = ast.parse(expr, mode="eval")
        local = set(params) | {"g", "ans"} | bound_names(tree)
        names = {**MODULES, **{n: object() for n in local}}
        names.update({n: getattr(builtins, n) for n in dir(builtins) if n not in names
                      and not n.startswith("_")})
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id not in local and node.id not in MODULES:
                if not is_known(getattr(builtins, node.id, None)):
                    problems.append(f"d/d{name}: name {node.id!r} is not in scope")
        problems += check_code(tree, names, f"d/d{name}")
    assert not problems, "\n".join(problems)


ALLOWED_STATEMENTS = (ast.FunctionDef, ast.Assign, ast.If, ast.For, ast.Return, ast.Expr,
                      ast.Pass)


def _transformable_helpers():
    return [(name, fn) for name, fn in HELPERS.items()
            if fn not in TABLE and fn not in NONDIFF]


@pytest.mark.parametrize("name,fn", _transformable_helpers(),
                         ids=[name for name, _ in _transformable_helpers()])
def test_helpers_use_only_differentiable_constructs(name, fn):
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    func = tree.body[0]
    assert ast.get_docstring(func), f"{name} needs a docstring"
    names = {**vars(builtins), **vars(adjoint_helpers), **vars(inspect.getmodule(fn))}
    problems = check_code(func, names, name)
    for node in ast.walk(func):
        if isinstance(node, ast.stmt) and not isinstance(node, ALLOWED_STATEMENTS):
            problems.append(f"{name}: {type(node).__name__} statement")
        if isinstance(node, ast.Expr) and not (
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            problems.append(f"{name}: expression statement (a call for its side effect?)")
        if isinstance(node, ast.For):
            call = node.iter
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "range"):
                problems.append(f"{name}: for loop not over range()")
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if not isinstance(target, (ast.Name, ast.Tuple)):
                    problems.append(f"{name}: assignment to {ast.unparse(target)} (in place)")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in HELPERS and HELPERS[node.func.id] is fn:
            problems.append(f"{name}: recursion")
    assert not problems, "\n".join(problems)


def test_helpers_are_reachable_as_sg():
    for name, fn in HELPERS.items():
        assert getattr(runtime, name) is fn, name


def test_runtime_modules_export_distinct_names():
    """``_sg`` is the runtime modules star-imported: a name two of them export is the
    later one's everywhere (a store helper once hid ``.item()``'s adjoint)."""
    import importlib
    import pkgutil
    owners = {}
    for info in pkgutil.iter_modules(runtime.__path__):
        module = importlib.import_module(f"{runtime.__name__}.{info.name}")
        for name in getattr(module, "__all__", ()):
            assert name not in owners, (name, owners.get(name), info.name)
            owners[name] = info.name


def test_methods_attributes_and_operators_map_to_known_functions():
    for name, (fn, kind) in METHODS.items():
        assert fn in TABLE or fn in NONDIFF, name
        assert kind in ("plain", "shape"), name
    for name, fn in ATTRIBUTES.items():
        assert fn in TABLE, name
    for name, fn in OPERATORS.items():
        assert fn in TABLE or fn in NONDIFF, name


def test_nondiff_and_table_are_disjoint():
    assert not [fn for fn in TABLE if fn in NONDIFF]


def test_signatures_accept_numpy_keyword_names():
    # Keyword calls bind to the same parameter names as NumPy's own.
    for fn in (np.sum, np.mean, np.prod, np.max, np.min, np.var, np.cumsum, np.clip, np.reshape,
               np.transpose, np.concatenate, np.stack, np.expand_dims, np.squeeze, np.broadcast_to,
               np.linalg.norm, np.moveaxis, np.swapaxes, np.trace, np.linspace, np.full):
        ours = set(signature(TABLE[fn]).parameters)
        theirs = set(inspect.signature(fn).parameters) - {"kwargs", "like", "initial", "where",
                                                           "mean", "correction", "device"}
        assert theirs <= ours | {"newshape"}, (fn.__name__, theirs - ours)


# ---------------------------------------------------------------------------
# Second order: the rules differentiated by the rules
# ---------------------------------------------------------------------------
#
# The compiler differentiates adjoint code again, applying the same table to
# the calls inside grad expressions and helpers. ``Traced`` does the same at
# run time, without the compiler: a value that records every NumPy call on it
# (through NumPy's ``__array_ufunc__``/``__array_function__`` protocols) and
# runs each rule's grad expression on traced values, so that the backward pass
# is itself recorded and can be differentiated once more. The result must
# match central differences of the (already checked) first-order rule.

class Traced:
    """A value plus how it was computed: a leaf, a primitive call with a rule, or an index."""

    __array_priority__ = 1000

    def __init__(self, value, parents=(), vjp=None):
        self.value = value
        self.parents = parents
        self.vjp = vjp  # g -> [(parent, contribution)]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        assert method == "__call__" and not kwargs, (ufunc, method, kwargs)
        return call(ufunc, inputs, {})

    def __array_function__(self, func, types, args, kwargs):
        return call(func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a traced value was converted to a plain array: the gradient is lost")

    def __bool__(self):
        raise TypeError("branching on a traced value")

    def __len__(self):
        return len(self.value)

    def __getitem__(self, index):
        return gather(self, index)

    __add__ = lambda self, o: np.add(self, o)
    __radd__ = lambda self, o: np.add(o, self)
    __sub__ = lambda self, o: np.subtract(self, o)
    __rsub__ = lambda self, o: np.subtract(o, self)
    __mul__ = lambda self, o: np.multiply(self, o)
    __rmul__ = lambda self, o: np.multiply(o, self)
    __truediv__ = lambda self, o: np.true_divide(self, o)
    __rtruediv__ = lambda self, o: np.true_divide(o, self)
    __pow__ = lambda self, o: np.power(self, o)
    __rpow__ = lambda self, o: np.power(o, self)
    __matmul__ = lambda self, o: np.matmul(self, o)
    __rmatmul__ = lambda self, o: np.matmul(o, self)
    __mod__ = lambda self, o: np.mod(self, o)
    __floordiv__ = lambda self, o: np.floor_divide(self, o)
    __neg__ = lambda self: np.negative(self)
    __pos__ = lambda self: np.positive(self)
    __eq__ = lambda self, o: np.equal(self, o)
    __ne__ = lambda self, o: np.not_equal(self, o)
    __lt__ = lambda self, o: np.less(self, o)
    __le__ = lambda self, o: np.less_equal(self, o)
    __gt__ = lambda self, o: np.greater(self, o)
    __ge__ = lambda self, o: np.greater_equal(self, o)
    __hash__ = object.__hash__


def plain(x):
    if isinstance(x, Traced):
        return x.value
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def traced_in(x):
    if isinstance(x, Traced):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in traced_in(v)]
    return []


def call(fn, args, kwargs):
    """``fn(*args, **kwargs)``, recorded with ``fn``'s rule when an argument is traced."""
    value = fn(*plain(list(args)), **{k: plain(v) for k, v in kwargs.items()})
    if fn in NONDIFF:
        return value
    if fn not in TABLE:
        raise TypeError(f"{fn} has no rule and is not in NONDIFF")
    rule = TABLE[fn]
    sig = signature(rule)
    bound = sig.bind(*args, **kwargs)
    parents = traced_in(list(bound.arguments.values()))
    if not parents:
        return value
    node = Traced(value, parents)

    def vjp(g):
        env = scope(rule, bound, g, node)
        out = []
        for name in rule.grads:
            arg = env[name]
            if not traced_in(arg):
                continue
            grad = eval(rule.grads[name], {"__builtins__": builtins, **env})
            if rule.broadcast:
                grad = adjoint_helpers.sum_to(grad, arg)
            out += distribute(arg, grad)
        return out

    node.vjp = vjp
    return node


def distribute(arg, grad):
    """Pair each traced value inside ``arg`` with its part of ``grad``."""
    if isinstance(arg, Traced):
        return [(arg, grad)]
    if isinstance(arg, (list, tuple)):
        return [pair for i, a in enumerate(arg) for pair in distribute(a, grad[i])]
    return []


def gather(x, index):
    node = Traced(x.value[index], (x,))
    if isinstance(x.value, tuple):  # a primitive's tuple of results (eigh, svd, ...)
        node.vjp = lambda g: [(x, [g if i == index else np.zeros(np.shape(v))
                                   for i, v in enumerate(x.value)])]
    else:
        node.vjp = lambda g: [(x, scatter(g, index, np.shape(x.value)))]
    return node


def scatter(g, index, shape):
    """Zeros of ``shape`` with ``g`` added at ``index`` (the adjoint of ``x[index]``)."""
    value = np.zeros(shape)
    np.add.at(value, index, plain(g))
    if not isinstance(g, Traced):
        return value
    node = Traced(value, (g,))
    node.vjp = lambda h: [(g, h[index])]
    return node


def backward(out, g):
    """Adjoints of everything ``out`` depends on: ``{id(node): adjoint}`` (traced themselves)."""
    order, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parents:
            visit(parent)
        order.append(node)

    visit(out)
    adjoints = {id(out): g}
    for node in reversed(order):
        if node.vjp is None or id(node) not in adjoints:
            continue
        for parent, part in node.vjp(adjoints[id(node)]):
            known = adjoints.get(id(parent))
            adjoints[id(parent)] = part if known is None else runtime.add(known, part)
    return adjoints


def leaves(value):
    if isinstance(value, (list, tuple)):
        return type(value)(leaves(v) for v in value)
    return Traced(value)


def adjoint_of(adjoints, leaf):
    if isinstance(leaf, (list, tuple)):
        return [adjoint_of(adjoints, x) for x in leaf]
    return adjoints.get(id(leaf), np.zeros(np.shape(leaf.value)))


def traced_inner(a, u):
    if isinstance(a, (list, tuple)):
        return sum((traced_inner(x, y) for x, y in zip(a, u)), 0.0)
    return np.sum(a * u)


# The math and builtin rules use math.* on floats, which no protocol can trace;
# they are smooth one-liners checked to first order above and by test_primitives.
# ``np.array``/``np.asarray`` of a list take ``np.shape`` of a list of values, which
# the protocols cannot trace either; their adjoint only reads shapes.
SECOND_ORDER_CASES = [
    case for case in CASES
    if getattr(case.fn, "__module__", None) not in ("math", "builtins", None)
    and case.fn is not builtins.float
    and not (case.fn in (np.array, np.asarray) and isinstance(case.args[0], (list, tuple)))
    and case.fn not in (np.linalg.eigvals, np.linalg.eig, np.roots)  # (refused: test_refusing_rules_raise)
    # (scipy.linalg's matrix functions and Sylvester solver take no protocol to trace:
    # second order through the compiler, tests/test_scipy_linalg.py and
    # tests/test_scipy_linalg_rules.py)
    and getattr(case.fn, "__name__", "") not in ("expm", "sqrtm", "logm", "solve_sylvester")
]


def check_second_order(case, seed=0):
    rng = np.random.default_rng(seed)
    rule, sig, bound, ans = drawn(case, rng)
    if not (_is_float_value(ans) or _has_float_item(ans)):
        return
    g = random_like(ans, rng)
    env = scope(rule, bound, g, ans)
    wrt = case.wrt or [p for p in rule.grads if p in bound.arguments and _is_float_value(env[p])]
    for p in wrt:
        grad_p = evaluate_grad(rule, p, env)
        u = random_like(grad_p, rng)

        def h(bound_args):
            return inner(evaluate_grad(rule, p, scope(rule, bound_args, g, case.fn(
                *bound_args.args, **bound_args.kwargs))), u)

        for q in wrt:
            # grad_p evaluated on a traced q, then differentiated by the table's rules
            traced = sig.bind(*bound.args, **bound.kwargs)
            value = traced.arguments[q]
            leaf = leaves(list(value) if _is_varargs(sig, q) else value)
            traced.arguments[q] = tuple(leaf) if _is_varargs(sig, q) else leaf
            out = call(case.fn, traced.args, traced.kwargs)
            env_q = scope(rule, traced, g, out)
            first = eval(rule.grads[p], {"__builtins__": builtins, **env_q})
            if rule.broadcast:
                first = adjoint_helpers.sum_to(first, env_q[p])
            hq = traced_inner(first, u)
            v = random_like(value, rng)
            analytic = 0.0  # unless grad_p depends on q:
            if isinstance(hq, Traced):
                analytic = inner(plain(adjoint_of(backward(hq, 1.0), leaf)), v)

            def h_at(t):
                shifted = sig.bind(*bound.args, **bound.kwargs)
                old = shifted.arguments[q]
                shifted.arguments[q] = step(tuple(old) if _is_varargs(sig, q) else old, v, t)
                return h(shifted)

            numeric = (h_at(EPS) - h_at(-EPS)) / (2 * EPS)
            assert abs(analytic - numeric) <= 1e-6 + 1e-4 * abs(numeric), (
                f"{_case_id(case)}: d2/d{p}d{q} is wrong: analytic {analytic!r}, "
                f"numeric {numeric!r}")


@pytest.mark.parametrize("case", SECOND_ORDER_CASES,
                         ids=[_case_id(c) for c in SECOND_ORDER_CASES])
def test_rule_differentiated_by_the_table(case):
    with np.errstate(divide="ignore", invalid="ignore"):
        check_second_order(case)


@pytest.mark.parametrize("array, shape", [
    (np.arange(6.0).reshape(2, 3), (4, 2, 3)),
    (np.arange(3.0).reshape(3, 1), (2, 3, 5)),
    (np.arange(12.0).reshape(3, 4)[:, ::2], (2, 3, 2)),   # not contiguous
    (np.arange(12.0).reshape(3, 4).T, (2, 4, 3)),          # Fortran order
    (np.array([1, None], dtype=object), (3, 2)),            # objects
    (np.zeros((0, 3)), (2, 0, 3)),                           # empty
    (np.float64(2.5), (2, 2)), (2.5, (3,)), (np.array(1.5), ()),
    # (large: a view)
    (np.arange(3.0), (2000, 3)), (2.5, (5000,)), (np.arange(12.0).reshape(3, 4).T, (900, 4, 3)),
])
def test_fast_broadcast_to_is_numpys(array, shape):
    out = adjoint_helpers.broadcast_to(array, shape)
    want = np.broadcast_to(array, shape)
    assert out.shape == want.shape and out.dtype == want.dtype
    # (A read-only view, or, for a small shape, an array of its own: either way nothing
    # written into it reaches another value.)
    assert np.array_equal(out, want)
    assert not out.flags.writeable or out.flags.owndata and not np.shares_memory(out, array)


def test_fast_broadcast_to_raises_numpys_error():
    with pytest.raises(ValueError, match="broadcast"):
        adjoint_helpers.broadcast_to(np.ones(3), (2, 4))


@pytest.mark.parametrize("like, index, grad", [
    (np.ones(4), 1, 2.0), (np.ones(4, np.float32), 1, np.float64(2.0)),
    (np.ones(4), 1, 1j), (np.ones(4, np.float32), 0, 2.0), (np.arange(3), 0, 2),
    (np.ones(4), [0, 0, 3], np.array([1.0, 2.0, 3.0])), (np.ones((2, 3)), (1, slice(None)), np.ones(3)),
])
def test_add_at_zeros_is_add_at_into_zeros(like, index, grad):
    from srcgrad import runtime

    want = runtime.add_at(runtime.zeros_like(like), index, grad)
    got = runtime.add_at_zeros(like, index, grad)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_no_two_runtime_modules_export_one_name():
    """``_sg`` is every runtime module star-imported: a name exported twice would make
    one module's helper silently replace another's (``repeat_grad`` once did)."""
    import collections

    seen = collections.defaultdict(list)
    for module in [adjoint_helpers, runtime.core, runtime.rows] + _FAMILY_HELPERS:
        for name in module.__all__:
            seen[name].append(module.__name__)
    assert not {n: m for n, m in seen.items() if len(m) > 1}
