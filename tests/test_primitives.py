"""The primitive table, end to end: every primitive called the usual way, through the compiler.

Each function below is a tiny user function that calls one primitive of
``srcgrad.derivatives`` the way people write it (``np.sum(np.sin(x))``,
``a.reshape(2, 3)``, ``x @ y``, ``math.sin(x)``, ``max(x, y)``), and returns a
scalar. ``@inputs(...)`` says what to call it with: ``R(3, 4)`` is a float
array of shape (3, 4) drawn from the primitive's domain (``P`` positive, ``U``
inside (-1, 1), ``NZ`` away from 0, ``G1`` above 1, ``M`` a well-conditioned
matrix); ``F``, ``FP``, ... are Python floats. Inputs stay away from kinks, so
central differences apply. ``srcgrad.testing.check_grads`` checks the first
and second derivatives with respect to every float argument.

Where a primitive is linear, the function squares or multiplies its result so
that the second-order check has something to check.
"""
import builtins
import math
import zlib

import numpy as np
import pytest


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def _draw(kind, shape, rng):
    size = () if shape is None else shape
    if kind == "real":
        x = rng.standard_normal(size)
    elif kind == "pos":
        x = rng.uniform(0.5, 2.0, size)
    elif kind == "unit":
        x = rng.uniform(-0.9, 0.9, size)
    elif kind == "nonzero":
        x = rng.uniform(0.5, 2.0, size) * rng.choice([-1.0, 1.0], size)
    elif kind == "gt1":
        x = rng.uniform(1.2, 3.0, size)
    elif kind == "matrix":
        x = rng.standard_normal(size) + size[-1] * np.eye(size[-1])
    else:
        raise ValueError(kind)
    return float(x) if shape is None else x


def _gen(kind):
    def make(*shape):
        return lambda rng: _draw(kind, shape, rng)
    return make


R, P, U, NZ, G1, M = (_gen(k) for k in ("real", "pos", "unit", "nonzero", "gt1", "matrix"))


def _float(kind):
    return lambda rng: _draw(kind, None, rng)


F, FP, FU, FNZ, FG1 = (_float(k) for k in ("real", "pos", "unit", "nonzero", "gt1"))


def inputs(*generators):
    """Record how to draw ``func``'s arguments (sets an attribute; no registry)."""

    def mark(func):
        func.inputs = generators
        return func

    return mark


def draw_args(func):
    rng = np.random.default_rng(zlib.crc32(func.__name__.encode()))
    return tuple(gen(rng) if callable(gen) else gen for gen in func.inputs)


# ---------------------------------------------------------------------------
# Elementwise, one argument
# ---------------------------------------------------------------------------

@inputs(R(3, 4))
def np_negative(x):
    return np.sum(np.negative(x) * x)


@inputs(R(3, 4))
def np_positive(x):
    return np.sum(np.positive(x) * x)


@inputs(R(3, 4))
def np_square(x):
    return np.sum(np.square(x))


@inputs(NZ(3, 4))
def np_cbrt(x):
    return np.sum(np.cbrt(x))


@inputs(R(3, 4))
def np_exp(x):
    return np.sum(np.exp(x))


@inputs(R(3, 4))
def np_exp2(x):
    return np.sum(np.exp2(x))


@inputs(R(3, 4))
def np_expm1(x):
    return np.sum(np.expm1(x))


@inputs(P(3, 4))
def np_log(x):
    return np.sum(np.log(x))


@inputs(P(3, 4))
def np_log1p(x):
    return np.sum(np.log1p(x))


@inputs(P(3, 4))
def np_log2(x):
    return np.sum(np.log2(x))


@inputs(P(3, 4))
def np_log10(x):
    return np.sum(np.log10(x))


@inputs(P(3, 4))
def np_sqrt(x):
    return np.sum(np.sqrt(x))


@inputs(R(3, 4))
def np_sin(x):
    return np.sum(np.sin(x))


@inputs(R(3, 4))
def np_cos(x):
    return np.sum(np.cos(x))


@inputs(U(3, 4))
def np_tan(x):
    return np.sum(np.tan(x))


@inputs(U(3, 4))
def np_arcsin(x):
    return np.sum(np.arcsin(x))


@inputs(U(3, 4))
def np_arccos(x):
    return np.sum(np.arccos(x))


@inputs(R(3, 4))
def np_arctan(x):
    return np.sum(np.arctan(x))


@inputs(R(3, 4))
def np_sinh(x):
    return np.sum(np.sinh(x))


@inputs(R(3, 4))
def np_cosh(x):
    return np.sum(np.cosh(x))


@inputs(R(3, 4))
def np_tanh(x):
    return np.sum(np.tanh(x))


@inputs(R(3, 4))
def np_arcsinh(x):
    return np.sum(np.arcsinh(x))


@inputs(G1(3, 4))
def np_arccosh(x):
    return np.sum(np.arccosh(x))


@inputs(U(3, 4))
def np_arctanh(x):
    return np.sum(np.arctanh(x))


@inputs(NZ(3, 4))
def np_abs(x):
    return np.sum(np.abs(x) * x)


@inputs(NZ(3, 4))
def np_absolute(x):
    return np.sum(np.absolute(x) ** 3)


@inputs(NZ(3, 4))
def np_fabs(x):
    return np.sum(np.fabs(x) * x)


@inputs(NZ(3, 4))
def np_reciprocal(x):
    return np.sum(np.reciprocal(x))


@inputs(R(3, 4))
def np_deg2rad(x):
    return np.sum(np.sin(np.deg2rad(x * 50.0)))


@inputs(R(3, 4))
def np_radians(x):
    return np.sum(np.sin(np.radians(x * 50.0)))


@inputs(R(3, 4))
def np_rad2deg(x):
    return np.sum(np.rad2deg(x) ** 2)


@inputs(R(3, 4))
def np_degrees(x):
    return np.sum(np.degrees(x) ** 2)


@inputs(F)
def np_sin_of_float(x):
    return np.sin(x) * 2.0


@inputs(FP)
def np_log_of_float(x):
    return np.log(x) + np.sqrt(x)


# ---------------------------------------------------------------------------
# Elementwise, two arguments (with broadcasting)
# ---------------------------------------------------------------------------

@inputs(R(3, 1), R(4))
def np_add(x, y):
    return np.sum(np.add(x, y) ** 2)


@inputs(R(3, 4), R(4))
def np_subtract(x, y):
    return np.sum(np.subtract(x, y) ** 2)


@inputs(R(3, 4), R(3, 1))
def np_multiply(x, y):
    return np.sum(np.multiply(x, y))


@inputs(R(3, 4), NZ(4))
def np_divide(x, y):
    return np.sum(np.divide(x, y))


@inputs(R(2, 3), NZ(2, 3))
def np_true_divide(x, y):
    return np.sum(np.true_divide(x, y))


@inputs(P(3, 4), R(4))
def np_power(x, y):
    return np.sum(np.power(x, y))


@inputs(R(3, 4))
def np_power_integer_exponent(x):
    return np.sum(np.power(x, 3))


@inputs(P(3, 4), R(3, 1))
def np_float_power(x, y):
    return np.sum(np.float_power(x, y))


@inputs(R(3, 4), R(4))
def np_maximum(x, y):
    return np.sum(np.maximum(x, y) * 1.5)


@inputs(R(3, 4), R(4))
def np_minimum(x, y):
    return np.sum(np.minimum(x, y) ** 2)


@inputs(R(3, 4))
def np_maximum_relu(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


@inputs(R(3, 4), R(3, 4))
def np_fmax(x, y):
    return np.sum(np.fmax(x, y) ** 2)


@inputs(R(3, 4), R(3, 4))
def np_fmin(x, y):
    return np.sum(np.fmin(x, y) ** 2)


@inputs(NZ(3, 4), NZ(4))
def np_arctan2(x, y):
    return np.sum(np.arctan2(x, y))


@inputs(NZ(3, 4), NZ(3, 4))
def np_hypot(x, y):
    return np.sum(np.hypot(x, y))


@inputs(R(3, 4), R(4))
def np_nextafter(x, y):
    return np.sum(np.nextafter(x, y) ** 2) + np.sum(y)


@inputs(R(3, 4), R(4))
def np_logaddexp(x, y):
    return np.sum(np.logaddexp(x, y))


@inputs(R(3, 4), R(3, 4))
def np_logaddexp2(x, y):
    return np.sum(np.logaddexp2(x, y))


@inputs(R(3, 4))
def np_mod(x):
    return np.sum(np.mod(x, 0.7) ** 2)


@inputs(R(3, 4), P(4))
def np_remainder(x, y):
    return np.sum(np.remainder(x, y) * x)


@inputs(R(3, 4), P(4))
def np_fmod(x, y):
    return np.sum(np.fmod(x, y) * x)


@inputs(F, R(3))
def np_multiply_float_by_array(x, y):
    return np.sum(np.multiply(x, y) ** 2)


# ---------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------

@inputs(R(3, 1), R(4))
def op_add(x, y):
    return np.sum((x + y) ** 2)


@inputs(R(3, 4), R(4))
def op_sub(x, y):
    return np.sum((x - y) ** 2)


@inputs(R(3, 4), R(4))
def op_mult(x, y):
    return np.sum(x * y * x)


@inputs(R(3, 4), NZ(3, 4))
def op_div(x, y):
    return np.sum(x / y)


@inputs(P(3, 4), R(3, 4))
def op_pow(x, y):
    return np.sum(x ** y)


@inputs(R(3, 4))
def op_pow_constant(x):
    return np.sum(x ** 2 + 2.0 ** x)


@inputs(R(3, 4), R(4, 2))
def op_matmul(x, y):
    return np.sum(np.tanh(x @ y))


@inputs(R(3, 4))
def op_mod(x):
    return np.sum((x % 0.6) * x)


@inputs(R(3, 4))
def op_floordiv(x):
    return np.sum(x * (x // 0.7))


@inputs(R(3, 4))
def op_unary(x):
    return np.sum(-x * +x)


@inputs(F, FNZ)
def op_floats(x, y):
    return x * y + x / y - y ** 2


# ---------------------------------------------------------------------------
# clip, where
# ---------------------------------------------------------------------------

@inputs(R(3, 4))
def np_clip(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2)


@inputs(R(3, 4), R(4), P(3, 1))
def np_clip_array_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


@inputs(R(3, 4))
def np_clip_upper_only(x):
    return np.sum(np.clip(x, None, 0.3) ** 2)


@inputs(R(3, 4))
def np_clip_keywords(x):
    return np.sum(np.clip(x, min=-0.4, max=0.4) ** 2)


@inputs(R(3, 4), R(3, 4))
def np_where(x, y):
    return np.sum(np.where(x > 0, x, y ** 2))


@inputs(R(3, 4), R(4))
def np_where_broadcast(x, y):
    return np.sum(np.where(x > 0.1, np.sin(x), y) ** 2)


@inputs(R(3, 4))
def np_where_scalar(x):
    return np.sum(np.where(x > 0, x ** 2, 0.0))


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

@inputs(R(3, 4))
def np_sum(x):
    return np.sum(x ** 2)


@inputs(R(2, 3, 4))
def np_sum_axis(x):
    return np.sum(np.sin(np.sum(x, axis=0)))


@inputs(R(2, 3, 4))
def np_sum_axis_tuple_keepdims(x):
    return np.sum(np.sum(x, axis=(0, 2), keepdims=True) ** 2)


@inputs(R(3, 4))
def np_mean(x):
    return np.mean(x ** 2)


@inputs(R(3, 4))
def np_mean_axis(x):
    return np.sum(np.mean(x, axis=1) ** 2)


@inputs(R(3, 4))
def np_mean_keepdims(x):
    return np.sum((x - np.mean(x, axis=0, keepdims=True)) ** 2)


@inputs(P(3, 4))
def np_prod(x):
    return np.prod(x)


@inputs(R(3, 4))
def np_prod_axis(x):
    return np.sum(np.prod(x, axis=1))


@inputs(np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0], [1.2, -0.7, 2.0], [0.0, 0.0, 0.0]]))
def np_prod_with_zeros(x):
    return np.sum(np.prod(x, axis=1) * np.array([1.0, 2.0, 3.0, 4.0])) + np.prod(x[0] + 1.0)


@inputs(R(3, 4))
def np_max(x):
    return np.max(x) ** 2


@inputs(R(3, 4))
def np_max_axis(x):
    return np.sum(np.max(x, axis=0) ** 2)


@inputs(R(3, 4))
def np_min_keepdims(x):
    return np.sum(np.min(x, axis=1, keepdims=True) * x)


@inputs(R(3, 4))
def np_amax(x):
    return np.sum(np.amax(x, axis=-1) ** 2)


@inputs(R(3, 4))
def np_amin(x):
    return np.amin(x) ** 3


@inputs(R(3, 4))
def np_var(x):
    return np.var(x)


@inputs(R(3, 4))
def np_var_axis_ddof(x):
    return np.sum(np.var(x, axis=1, ddof=1))


@inputs(R(3, 4))
def np_std(x):
    return np.std(x)


@inputs(R(3, 4))
def np_std_axis_keepdims(x):
    return np.sum(np.std(x, axis=0, keepdims=True) * 2.0)


@inputs(R(3, 4))
def np_cumsum(x):
    return np.sum(np.cumsum(x) ** 2)


@inputs(R(3, 4))
def np_cumsum_axis(x):
    return np.sum(np.sin(np.cumsum(x, axis=1)))


@inputs(R(4, 4))
def np_trace(x):
    return np.trace(x) ** 2


@inputs(R(2, 3, 3))
def np_trace_axes(x):
    return np.sum(np.trace(x, 1, 1, 2) ** 2)


# ---------------------------------------------------------------------------
# Products
# ---------------------------------------------------------------------------

@inputs(R(3, 4), R(4, 5))
def np_matmul(x, y):
    return np.sum(np.sin(np.matmul(x, y)))


@inputs(R(4), R(4, 5))
def np_matmul_vector_matrix(x, y):
    return np.sum(np.matmul(x, y) ** 2)


@inputs(R(2, 3, 4), R(4))
def np_matmul_batched_vector(x, y):
    return np.sum(np.matmul(x, y) ** 2)


@inputs(R(2, 1, 3, 4), R(5, 4, 2))
def np_matmul_broadcast(x, y):
    return np.sum(np.matmul(x, y) ** 2)


@inputs(R(4), R(4))
def np_matmul_vectors(x, y):
    return np.matmul(x, y) ** 2


@inputs(R(3, 4), R(4, 2))
def np_dot(x, y):
    return np.sum(np.dot(x, y) ** 2)


@inputs(R(4), R(4))
def np_dot_vectors(x, y):
    return np.dot(x, y) ** 2


@inputs(F, R(3))
def np_dot_scalar(x, y):
    return np.sum(np.dot(x, y) ** 2)


@inputs(R(2, 3, 4), R(5, 4, 2))
def np_dot_nd(x, y):
    return np.sum(np.dot(x, y) ** 2)


@inputs(R(3), R(4))
def np_outer(x, y):
    return np.sum(np.sin(np.outer(x, y)))


@inputs(R(2, 4), R(3, 4))
def np_inner(x, y):
    return np.sum(np.inner(x, y) ** 2)


@inputs(R(2, 3, 4), R(3, 4, 5))
def np_tensordot(x, y):
    return np.sum(np.tensordot(x, y) ** 2)


@inputs(R(3, 4), R(4, 3))
def np_tensordot_axes(x, y):
    return np.tensordot(x, y, axes=([1, 0], [0, 1])) ** 2


@inputs(R(3, 4), R(4, 5))
def np_einsum_matmul(x, y):
    return np.sum(np.einsum("ij,jk->ik", x, y) ** 2)


@inputs(R(3, 3))
def np_einsum_trace(x):
    return np.einsum("ii", x) ** 2


@inputs(R(3, 3))
def np_einsum_diagonal(x):
    return np.sum(np.einsum("ii->i", x) ** 3)


@inputs(R(2, 3, 4), R(2, 4, 5))
def np_einsum_batched(x, y):
    return np.sum(np.einsum("bij,bjk->bik", x, y) ** 2)


@inputs(R(2, 1, 3, 4), R(5, 4, 2))
def np_einsum_ellipsis(x, y):
    return np.sum(np.einsum("...ij,...jk->...ik", x, y) ** 2)


@inputs(R(2, 3), R(3, 4), R(4, 2))
def np_einsum_three(x, y, z):
    return np.sum(np.einsum("ij,jk,kl->il", x, y, z) ** 2)


@inputs(R(3, 4), R(3))
def np_einsum_sum_only(x, y):
    return np.einsum("ij,i->", x, y) ** 2


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------

@inputs(M(3, 3), R(3))
def np_linalg_solve(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@inputs(M(3, 3), R(3, 2))
def np_linalg_solve_matrix(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@inputs(M(2, 3, 3), R(3))
def np_linalg_solve_batched(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@inputs(M(3, 3))
def np_linalg_inv(a):
    return np.sum(np.linalg.inv(a) ** 2)


@inputs(M(3, 3))
def np_linalg_det(a):
    return np.linalg.det(a)


@inputs(M(2, 3, 3))
def np_linalg_det_batched(a):
    return np.sum(np.linalg.det(a) ** 2)


@inputs(R(5))
def np_linalg_norm(x):
    return np.linalg.norm(x)


@inputs(R(3, 4))
def np_linalg_norm_fro(x):
    return np.linalg.norm(x, "fro") ** 3


@inputs(R(3, 4))
def np_linalg_norm_axis(x):
    return np.sum(np.linalg.norm(x, axis=1) ** 3)


@inputs(R(3, 4))
def np_linalg_norm_keepdims(x):
    return np.sum(x / np.linalg.norm(x, axis=0, keepdims=True))


@inputs(NZ(5))
def np_linalg_norm_1(x):
    return np.linalg.norm(x, 1) ** 2


@inputs(R(5))
def np_linalg_norm_inf(x):
    return np.linalg.norm(x, np.inf) ** 2


@inputs(R(5))
def np_linalg_norm_3(x):
    return np.linalg.norm(x, ord=3)


@inputs(R(3, 4))
def np_linalg_norm_matrix_1(x):
    return np.linalg.norm(x, 1) ** 2


@inputs(R(3, 4))
def np_linalg_norm_matrix_inf(x):
    return np.linalg.norm(x, ord=np.inf) ** 2


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

@inputs(R(6))
def np_reshape(a):
    return np.sum(np.sin(np.reshape(a, (2, 3))) * np.array([1.0, 2.0, 3.0]))


@inputs(R(2, 6))
def np_reshape_order_f(a):
    return np.sum(np.reshape(a, (3, 4), order="F") * np.arange(4.0) * a.reshape(3, 4))


@inputs(R(3, 4))
def np_ravel(a):
    return np.sum(np.ravel(a) ** 2 * np.arange(12.0))


@inputs(R(2, 3, 4))
def np_transpose(a):
    return np.sum(np.transpose(a) ** 2 * np.arange(2.0))


@inputs(R(2, 3, 4))
def np_transpose_axes(a):
    return np.sum(np.transpose(a, (1, 2, 0)) ** 2 * np.arange(2.0))


@inputs(R(2, 3, 4))
def np_swapaxes(a):
    return np.sum(np.swapaxes(a, 0, 2) ** 2 * np.arange(2.0))


@inputs(R(2, 3, 4))
def np_moveaxis(a):
    return np.sum(np.moveaxis(a, 0, -1) ** 2 * np.arange(2.0))


@inputs(R(2, 3, 4))
def np_matrix_transpose(a):
    return np.sum(np.matrix_transpose(a) ** 2 * np.arange(3.0))


@inputs(R(3, 4))
def np_expand_dims(a):
    return np.sum(np.expand_dims(a, 1) ** 2 * np.ones((3, 2, 4)))


@inputs(R(3, 1, 4))
def np_squeeze(a):
    return np.sum(np.squeeze(a) ** 2 * np.arange(4.0))


@inputs(R(3), R(2, 3))
def np_concatenate(a, b):
    return np.sum(np.concatenate([a, b.ravel()]) ** 2 * np.arange(9.0))


@inputs(R(2, 3), R(2, 2))
def np_concatenate_axis(a, b):
    return np.sum(np.sin(np.concatenate((a, b), axis=1)))


@inputs(R(3), R(3))
def np_stack(a, b):
    return np.sum(np.stack([a, b]) ** 2 * np.array([[1.0], [2.0]]))


@inputs(R(3), R(3))
def np_stack_axis(a, b):
    return np.sum(np.sin(np.stack((a, b, a * b), axis=1)))


@inputs(R(3), R(2))
def np_hstack(a, b):
    return np.sum(np.hstack([a, b]) ** 2 * np.arange(5.0))


@inputs(R(3), R(2, 3))
def np_vstack(a, b):
    return np.sum(np.vstack([a, b]) ** 2 * np.arange(3.0))


@inputs(R(3))
def np_broadcast_to(a):
    return np.sum(np.broadcast_to(a, (2, 3)) ** 2 * np.array([[1.0], [2.0]]))


@inputs(R(3, 4))
def np_copy(a):
    return np.sum(np.copy(a) * a)


@inputs(R(3, 4))
def np_flip(a):
    return np.sum(np.flip(a, 1) * a)


@inputs(R(4, 4))
def np_triu(a):
    return np.sum(np.triu(a, 1) ** 2 + np.tril(a) * a)


# ---------------------------------------------------------------------------
# Building arrays
# ---------------------------------------------------------------------------

@inputs(F, F)
def np_array_of_floats(x, y):
    v = np.array([x, y, x * y])
    return np.sum(v ** 2)


@inputs(F, F)
def np_array_nested(x, y):
    m = np.array([[x, y], [y * y, 1.0]])
    return np.linalg.det(m + 2.0 * np.eye(2))


@inputs(R(3), R(3))
def np_array_of_arrays(a, b):
    return np.sum(np.array([a, b]) ** 2 * np.array([[1.0], [2.0]]))


@inputs(R(3, 4))
def np_asarray(a):
    return np.sum(np.asarray(a) ** 2)


@inputs(F, F)
def np_asarray_list(x, y):
    return np.sum(np.sin(np.asarray([x, y])))


@inputs(F)
def np_full(x):
    return np.sum(np.full((2, 3), x) ** 2)


@inputs(R(3, 4), F)
def np_full_like(a, x):
    return np.sum(np.full_like(a, x) * a)


@inputs(F, F)
def np_linspace(x, y):
    return np.sum(np.linspace(x, y, 5) ** 2)


# ---------------------------------------------------------------------------
# Methods and attributes
# ---------------------------------------------------------------------------

@inputs(R(3, 4))
def method_sum(x):
    return x.sum() ** 2


@inputs(R(3, 4))
def method_sum_axis(x):
    return np.sum(x.sum(axis=0) ** 2)


@inputs(R(3, 4))
def method_mean(x):
    return np.sum(x.mean(axis=1, keepdims=True) * x)


@inputs(P(3, 4))
def method_prod(x):
    return x.prod()


@inputs(R(3, 4))
def method_max(x):
    return np.sum(x.max(axis=0) ** 2)


@inputs(R(3, 4))
def method_min(x):
    return x.min() ** 2


@inputs(R(3, 4))
def method_var_std(x):
    return x.var() + np.sum(x.std(axis=0))


@inputs(R(3, 4))
def method_cumsum(x):
    return np.sum(x.cumsum(axis=1) ** 2)


@inputs(R(4, 4))
def method_trace(x):
    return x.trace() ** 2


@inputs(R(6))
def method_reshape(a):
    return np.sum(a.reshape(2, 3) ** 2 * np.array([1.0, 2.0, 3.0]))


@inputs(R(6))
def method_reshape_tuple(a):
    return np.sum(a.reshape((3, 2)) ** 2 * np.array([1.0, 2.0]))


@inputs(R(2, 3))
def method_transpose(a):
    return np.sum(a.transpose() ** 2 * np.array([1.0, 2.0]))


@inputs(R(2, 3, 4))
def method_transpose_axes(a):
    return np.sum(a.transpose(1, 0, 2) ** 2 * np.arange(4.0)) + np.sum(a.transpose((2, 0, 1))[0])


@inputs(R(2, 3))
def attribute_T(a):
    return np.sum(a.T ** 2 * np.array([1.0, 2.0]))


@inputs(R(2, 3, 4))
def attribute_mT(a):
    return np.sum(a.mT ** 2 * np.arange(3.0))


@inputs(R(3, 4), R(4, 2))
def method_dot(x, y):
    return np.sum(x.dot(y) ** 2)


@inputs(R(3, 4))
def method_copy(x):
    return np.sum(x.copy() * x)


@inputs(R(3, 4))
def method_ravel_flatten(x):
    return np.sum(x.ravel() ** 2 * np.arange(12.0)) + np.sum(x.flatten() * x.flatten())


@inputs(R(3, 1, 4))
def method_squeeze(x):
    return np.sum(x.squeeze(axis=1) ** 2 * np.arange(4.0))


@inputs(R(3, 4))
def method_clip(x):
    return np.sum(x.clip(-0.5, 0.5) ** 2)


@inputs(R(3, 4))
def method_astype(x):
    return np.sum(x.astype(np.float64) ** 2)


@inputs(R(2, 3))
def method_swapaxes(x):
    return np.sum(x.swapaxes(0, 1) ** 2 * np.array([1.0, 2.0]))


@inputs(R(4))
def method_nondifferentiable(x):
    return np.sum(x.round() * x) + x[x.argmax()] ** 2 + x[x.argsort()[0]] * x.argmin()


@inputs(R(1))
def method_item(x):
    return x.item() ** 2


# ---------------------------------------------------------------------------
# math on Python floats
# ---------------------------------------------------------------------------

@inputs(F)
def math_sin(x):
    return math.sin(x)


@inputs(F)
def math_cos(x):
    return math.cos(x)


@inputs(FU)
def math_tan(x):
    return math.tan(x)


@inputs(FU)
def math_asin(x):
    return math.asin(x)


@inputs(FU)
def math_acos(x):
    return math.acos(x)


@inputs(F)
def math_atan(x):
    return math.atan(x)


@inputs(F)
def math_sinh(x):
    return math.sinh(x)


@inputs(F)
def math_cosh(x):
    return math.cosh(x)


@inputs(F)
def math_tanh(x):
    return math.tanh(x)


@inputs(F)
def math_asinh(x):
    return math.asinh(x)


@inputs(FG1)
def math_acosh(x):
    return math.acosh(x)


@inputs(FU)
def math_atanh(x):
    return math.atanh(x)


@inputs(F)
def math_exp(x):
    return math.exp(x)


@inputs(F)
def math_exp2(x):
    return math.exp2(x)


@inputs(F)
def math_expm1(x):
    return math.expm1(x)


@inputs(FP)
def math_log(x):
    return math.log(x)


@inputs(FP, FG1)
def math_log_base(x, b):
    return math.log(x, b)


@inputs(FP)
def math_log2(x):
    return math.log2(x)


@inputs(FP)
def math_log10(x):
    return math.log10(x)


@inputs(FP)
def math_log1p(x):
    return math.log1p(x)


@inputs(FP)
def math_sqrt(x):
    return math.sqrt(x)


@inputs(FNZ)
def math_cbrt(x):
    return math.cbrt(x)


@inputs(FNZ)
def math_fabs(x):
    return math.fabs(x) * x


@inputs(F)
def math_erf(x):
    return math.erf(x) + math.erfc(x) * x


@inputs(F)
def math_degrees_radians(x):
    return math.sin(math.radians(x * 50.0)) + math.degrees(x) ** 2


@inputs(FNZ, FNZ)
def math_atan2(y, x):
    return math.atan2(y, x)


@inputs(FP, F)
def math_pow(x, y):
    return math.pow(x, y)


@inputs(FNZ, FNZ)
def math_hypot(x, y):
    return math.hypot(x, y)


@inputs(FNZ, FNZ, FNZ)
def math_hypot_3d(x, y, z):
    return math.hypot(x, y, z)


@inputs(F, F)
def math_fsum(x, y):
    return math.fsum([x, x * y, y])


# ---------------------------------------------------------------------------
# Python builtins
# ---------------------------------------------------------------------------

@inputs(FNZ)
def builtin_abs(x):
    return abs(x) * x


@inputs(NZ(3, 4))
def builtin_abs_array(x):
    return np.sum(abs(x) * x)


@inputs(F, F, F)
def builtin_sum_list(x, y, z):
    return sum([x, y * z, z])


@inputs(R(3), R(3))
def builtin_sum_arrays_start(a, b):
    return np.sum(sum([a, a * b], b) ** 2)


@inputs(R(4, 3))
def builtin_sum_rows(a):
    return np.sum(sum(a) ** 2)


@inputs(F, F)
def builtin_max(x, y):
    return max(x, y) ** 2 + max(x, y, 0.5 * y)


@inputs(F, F)
def builtin_min(x, y):
    return min(x, y) ** 2 + min([x, y, x * y])


@inputs(R(5))
def builtin_max_of_array(a):
    return max(a) ** 2


@inputs(R(3, 4))
def builtin_float(x):
    return float(np.sum(x ** 2)) * 2.0


@inputs(F)
def builtin_pow(x):
    return pow(x, 3) + pow(2.0, x)


@inputs(R(3, 4))
def nondiff_calls(x):
    return np.sum(x * np.sign(x) + np.floor(x) * x) + np.sum(np.zeros_like(x) + x ** 2)


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------

PRIMITIVES = [f for f in list(globals().values()) if callable(f) and hasattr(f, "inputs")]
PARAMS = [pytest.param(f, id=f.__name__) for f in PRIMITIVES]


@pytest.mark.parametrize("func", PARAMS)
def test_first_order(func):
    from srcgrad.testing import check_grads

    check_grads(func, draw_args(func), order=1)


@pytest.mark.parametrize("func", PARAMS)
def test_second_order(func, check_second_order):
    # check_grads(order=2), one compile per gradient: conftest.py
    check_second_order(func, draw_args(func))


def test_the_functions_run_and_return_scalars():
    # Independent of the compiler: the table itself is sound.
    for func in PRIMITIVES:
        with np.errstate(all="raise"):
            value = func(*draw_args(func))
        assert np.shape(value) == (), func.__name__
        assert np.isfinite(value), func.__name__


def test_every_rule_is_called_by_some_function():
    import ast
    import inspect
    import textwrap

    from srcgrad.rules.table import ATTRIBUTES, METHODS, OPERATORS, PRIMITIVES as TABLE

    called = set()
    # These functions, and the module-level ones of each rule family's own test file
    # (tests/test_*_rules.py), each checked end to end there.
    import importlib
    import pathlib
    functions = list(PRIMITIVES)
    for path in sorted(pathlib.Path(__file__).parent.glob("test_*_rules.py")):
        module = importlib.import_module(path.stem)
        functions += [f for f in vars(module).values()
                      if inspect.isfunction(f) and f.__module__ == module.__name__
                      and not f.__name__.startswith("test_")]
    for func in functions:
        namespace = {"np": np, "math": math, **vars(builtins), **func.__globals__}
        for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(func)))):
            if isinstance(node, ast.Call):
                try:
                    called.add(eval(ast.unparse(node.func), namespace))
                except Exception:
                    if isinstance(node.func, ast.Attribute) and node.func.attr in METHODS:
                        called.add(METHODS[node.func.attr][0])
            elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
                called.add(ATTRIBUTES[node.attr])
            elif isinstance(node, (ast.BinOp, ast.UnaryOp)):
                called.add(OPERATORS.get(type(node.op).__name__))
    # Entries that only exist for the compiler's own use need no user-level test.
    internal = {fn for fn in TABLE if getattr(fn, "__module__", "") in (
        "srcgrad.runtime.adjoints", "srcgrad.runtime.pymath")}
    from srcgrad.rules import table as rule_table
    for family in rule_table._FAMILIES:  # entries only their own rules' helpers call
        internal |= set(getattr(family, "INTERNAL", ()))
    optional = {np.float64, np.linalg.matrix_transpose}
    missing = [fn for fn in TABLE if fn not in called and fn not in internal | optional]
    assert not missing, f"primitives without an end-to-end function: {missing}"
