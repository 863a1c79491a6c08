"""Differential tests of GradientTape: every program in every placement, against
each other and against central finite differences (float64).

Each program is written once, as the body of ``prog(x, w)``, ending with
``return value, [grad_x, grad_w]`` where the grads are what the tape reports
for the scalar ``value`` w.r.t. the inputs (directly, or through Variables
made from them). A tape reads the source of the block it records, so the
programs are written into real module files under ``tmp_path`` four ways:

- ``decorated``: ``@sg.function def prog(x, w): <body>``;
- ``plain``: ``def prog(x, w): <body>``;
- ``manual``: the same, with ``with sg.GradientTape(...) as tape:`` rewritten as
  ``tape = sg.GradientTape(...)`` / ``tape.__enter__()`` / the block /
  ``tape.__exit__(None, None, None)`` (inner tapes, named ``inner``, stay with blocks);
- ``module``: the body at module level of a script (``return`` becomes
  ``RESULT =``), run with ``runpy.run_path`` and ``x``, ``w`` as globals.

A ``None`` gradient (unconnected) must have a finite difference of zero.
Programs whose gradients are not those of ``value`` (``stop_gradient``,
``stop_recording``) give a reference function ``ref(x, w, x0, w0)``, with the
cut values computed from the unperturbed inputs ``x0``, ``w0``.
"""
import importlib.util
import re
import runpy
import textwrap
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import pytest

HEADER = '''\
import math

import numpy as np

import srcgrad as sg


def helper_poly(a, b):
    return np.sum(a * a * b - 0.5 * b)


def helper_branch(a, b):
    if np.sum(a) > 0:
        return np.sum(a * b)
    return np.sum(a - b)


def helper_outer(a, b):
    return helper_poly(a, b) * 2.0 + helper_poly(b, a)


def helper_loop(a, b, n):
    acc = 0.0
    for k in range(n):
        acc = acc + np.sum(a ** (k + 1) * b)
    return acc


def helper_scalar_branch(a, b):
    if a > b:
        return a * a * b
    return a * b - b ** 2


class Lin:
    def __init__(self, w):
        self.w = sg.Variable(w, name="lin/w")
        self.b = sg.Variable(0.25, name="lin/b")

    def __call__(self, x):
        return self.w * x + self.b

    def energy(self, x):
        h = self(x)
        return np.sum(h * h)


class Stack:
    def __init__(self, w):
        self.layers = [Lin(w), Lin(w * 0.5)]

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = np.tanh(layer(h))
        return h

'''

ARGS = {
    "scalar": (0.7, 1.3),
    "positive_scalar": (0.8, 1.7),
    "vector": (np.array([0.3, -0.7, 1.2]), np.array([0.5, 1.5, -0.4])),
    "positive": (np.array([0.6, 1.4, 2.1]), np.array([1.1, 0.4, 0.9])),
    "matrix": (np.array([[0.2, -0.5, 1.1], [0.7, 0.3, -0.9]]),
               np.array([[0.4, -1.2], [0.8, 0.5], [-0.3, 0.9]])),
    "square": (np.array([[2.0, 0.5], [0.3, 1.5]]), np.array([0.7, -1.1])),
    "mixed": (0.7, np.array([0.5, 1.5, -0.4])),
}


@dataclass
class Program:
    name: str
    kind: str
    body: str
    ref: Optional[Callable] = None


PROGRAMS = []


def program(name, kind, body, ref=None):
    PROGRAMS.append(Program(name, kind, textwrap.dedent(body).strip("\n"), ref))


# ---------------------------------------------------------------- scalar math

program("scalar_poly", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = 3.0 * x ** 3 - 2.0 * x * w + w ** 2
    return y, tape.gradient(y, [x, w])
""")

program("scalar_trig", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sin(x) * np.cos(w) + np.tanh(x * w)
    return y, tape.gradient(y, [x, w])
""")

program("scalar_exp_log_div", "positive_scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.exp(x) * np.log(w) / (1.0 + x * x) + np.sqrt(w * x)
    return y, tape.gradient(y, [x, w])
""")

program("scalar_math_module", "positive_scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = math.sin(x) * math.exp(w) + math.log(x + w) - abs(x - 2.0 * w)
    return y, tape.gradient(y, [x, w])
""")

program("scalar_conditional_expression", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = x * w * x if x > 0.5 else x - w
    return y, tape.gradient(y, [x, w])
""")

program("scalar_array_literal", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        v = np.array([x, w, x * w])
        y = np.sum(v ** 2) + v[2] * v[0]
    return y, tape.gradient(y, [x, w])
""")

# ---------------------------------------------------------------- array math

program("vector_sum_of_squares", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum((x - w) ** 2)
    return y, tape.gradient(y, [x, w])
""")

program("vector_dot", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.dot(x, w) * np.sum(x)
    return y, tape.gradient(y, [x, w])
""")

program("vector_mean_prod", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.mean(x * w) + np.prod(w) * x[1]
    return y, tape.gradient(y, [x, w])
""")

program("vector_where", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.where(x > 0, x * w, x ** 2))
    return y, tape.gradient(y, [x, w])
""")

program("vector_max_min", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.max(x * w) + np.min(x) * 2.0
    return y, tape.gradient(y, [x, w])
""")

program("vector_maximum_clip", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.maximum(x, 0.0) * w + np.clip(w, -0.5, 1.0) * x)
    return y, tape.gradient(y, [x, w])
""")

program("vector_logsumexp", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        z = x * w + x
        m = np.max(z)
        y = np.log(np.sum(np.exp(z - m))) + m
    return y, tape.gradient(y, [x, w])
""")

program("vector_norm_logaddexp", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.linalg.norm(x * w + 1.0) + np.sum(np.logaddexp(x, w))
    return y, tape.gradient(y, [x, w])
""")

program("vector_log_sqrt_power", "positive", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.log(x) * np.sqrt(w) + x ** w)
    return y, tape.gradient(y, [x, w])
""")

program("vector_slices_and_indices", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(x[1:] * w[:-1]) + x[0] * w[2] + np.sum(x[::2] ** 2)
    return y, tape.gradient(y, [x, w])
""")

program("vector_augmented_assignment", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = x * 1.0
        y += w
        y *= x
        y -= 0.5 * w * w
        total = np.sum(y)
    return total, tape.gradient(total, [x, w])
""")

program("vector_tuple_unpacking", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        a, b = x * w, x + w
        y = np.sum(a * b)
    return y, tape.gradient(y, [x, w])
""")

program("mixed_scalar_and_vector", "mixed", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.sin(x * w) * x) + x ** 2
    return y, tape.gradient(y, [x, w])
""")

program("matrix_matmul_tanh", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.tanh(x @ w))
    return y, tape.gradient(y, [x, w])
""")

program("matrix_transposes", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum((x.T @ x) * (w @ w.T))
    return y, tape.gradient(y, [x, w])
""")

program("matrix_axis_reductions", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.mean(x, axis=0) * np.sum(w, axis=1)) + np.sum(np.max(x, axis=1))
    return y, tape.gradient(y, [x, w])
""")

program("matrix_keepdims_broadcast", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        c = x - np.mean(x, axis=1, keepdims=True)
        y = np.sum(c ** 2) * np.sum(w * w)
    return y, tape.gradient(y, [x, w])
""")

program("matrix_concat_stack_reshape", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        c = np.concatenate([x, w.T], axis=0)
        s = np.stack([x[0], w[:, 1]])
        y = np.sum(c ** 2) * 0.5 + np.sum(np.reshape(s, (3, 2)) * w)
    return y, tape.gradient(y, [x, w])
""")

program("matrix_einsum", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.einsum("ij,jk->ik", x, w) ** 2)
    return y, tape.gradient(y, [x, w])
""")

program("square_linalg", "square", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        s = np.linalg.solve(x, w)
        y = np.sum(s * s) + np.linalg.det(x) * np.sum(np.linalg.inv(x) @ w)
    return y, tape.gradient(y, [x, w])
""")

# ---------------------------------------------------------------- control flow

program("loop_over_range", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for i in range(3):
            acc = acc + x[i] * w[i] ** 2
    return acc, tape.gradient(acc, [x, w])
""")

program("loop_recurrence", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = x
        for _ in range(4):
            y = y * w + np.sin(x)
    return y, tape.gradient(y, [x, w])
""")

program("while_loop", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = x
        k = 0
        while k < 3:
            y = np.sin(y) * w + x
            k += 1
    return y, tape.gradient(y, [x, w])
""")

program("loop_enumerate_zip", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for i, (a, b) in enumerate(zip(x, w)):
            acc = acc + (i + 1) * a * b
    return acc, tape.gradient(acc, [x, w])
""")

program("loop_zip", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for a, b in zip(x, w):
            acc = acc + a * b ** 2
    return acc, tape.gradient(acc, [x, w])
""")

program("loop_enumerate", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for i, a in enumerate(x):
            acc = acc + (i + 1) * a * w[i]
    return acc, tape.gradient(acc, [x, w])
""")

program("loop_with_break_continue", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for i in range(3):
            if x[i] < 0:
                continue
            acc = acc + x[i] * w[i]
            if acc > 10.0:
                break
    return acc, tape.gradient(acc, [x, w])
""")

program("list_comprehension_sum", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = sum([x[i] * w[i] ** 2 for i in range(3)]) + np.sum(np.stack([x * w, x]))
    return y, tape.gradient(y, [x, w])
""")

program("branch_if_else", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        if np.sum(x) > 0:
            y = np.sum(x * w) ** 2
        else:
            y = np.sum(x - w)
    return y, tape.gradient(y, [x, w])
""")

program("branch_if_elif_else", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        if x > 1.0:
            y = x * w
        elif x > 0.5:
            y = x ** 3 * w
        else:
            y = w - x
    return y, tape.gradient(y, [x, w])
""")

program("branch_inside_loop", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        acc = 0.0
        for i in range(3):
            if x[i] > 0:
                acc = acc + x[i] * w[i]
            else:
                acc = acc - 3.0 * x[i] * w[i] ** 2
    return acc, tape.gradient(acc, [x, w])
""")

# ---------------------------------------------------------------- user functions

program("call_user_function", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = helper_poly(x, w)
    return y, tape.gradient(y, [x, w])
""")

program("call_user_function_with_branch", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = helper_branch(x, w) + helper_branch(-x, w)
    return y, tape.gradient(y, [x, w])
""")

program("call_nested_user_functions", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = helper_outer(x, w)
    return y, tape.gradient(y, [x, w])
""")

program("call_user_function_with_loop", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = helper_loop(x, w, 3)
    return y, tape.gradient(y, [x, w])
""")

program("call_local_closure", "vector", """
    def local_fn(a):
        return np.sum(a * w + np.sin(a))
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = local_fn(x) * local_fn(w)
    return y, tape.gradient(y, [x, w])
""")

program("py_function_call", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = sg.py_function(helper_scalar_branch, [x, w]) + sg.py_function(helper_scalar_branch, [w, x])
    return y, tape.gradient(y, [x, w])
""")

# ---------------------------------------------------------------- targets

program("list_targets_summed", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        a = np.sum(x * w)
        b = np.sum(np.sin(x))
        c = x[0] * w[1]
    return a + b + c, tape.gradient([a, b, c], [x, w])
""")

program("vector_target_is_summed", "matrix", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.tanh(x @ w)
    return np.sum(y), tape.gradient(y, [x, w])
""")

program("output_gradients", "vector", """
    seed = np.array([1.0, -2.0, 0.5])
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = x * w + np.exp(x)
    return np.sum(y * seed), tape.gradient(y, [x, w], output_gradients=seed)
""")

program("persistent_two_targets", "vector", """
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(x * w)
        z = np.sum(np.exp(x) * w ** 2)
    g1 = tape.gradient(y, [x, w])
    g2 = tape.gradient(z, [x, w])
    return y + 2.0 * z, [g1[0] + 2.0 * g2[0], g1[1] + 2.0 * g2[1]]
""")

program("persistent_target_and_intermediate", "scalar", """
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(w)
        h = x * w
        y = np.sin(h) * x
    gy = tape.gradient(y, [x, w])
    gh = tape.gradient(h, [x, w])
    return y - 3.0 * h, [gy[0] - 3.0 * gh[0], gy[1] - 3.0 * gh[1]]
""")

program("dict_sources", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(x * x * w)
    g = tape.gradient(y, {"x": x, "w": w})
    return y, [g["x"], g["w"]]
""")

# ---------------------------------------------------------------- Variables

program("variables_from_inputs", "vector", """
    vx = sg.Variable(x)
    vw = sg.Variable(w)
    with sg.GradientTape() as tape:
        y = np.sum(vx * vw ** 2) + np.sum(np.cos(vx))
    return y, tape.gradient(y, [vx, vw])
""")

program("variables_via_attributes", "vector", """
    model = Lin(w)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(model.w * x + model.b) ** 2
    g = tape.gradient(y, [x, model.w])
    return y, g
""")

program("variables_via_method", "vector", """
    model = Lin(w)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = model.energy(x)
    return y, tape.gradient(y, [x, model.w])
""")

program("variables_via_layer_loop", "vector", """
    model = Stack(w)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(model(x) ** 2)
    gx, g0, g1 = tape.gradient(y, [x, model.layers[0].w, model.layers[1].w])
    return y, [gx, g0 + 0.5 * g1]
""")

program("variable_watched_when_not_auto", "vector", """
    vw = sg.Variable(w)
    other = sg.Variable(2.0)
    with sg.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        tape.watch(vw)
        y = np.sum(x * vw) * other
    gx, gw, gother = tape.gradient(y, [x, vw, other])
    if gother is not None:
        raise AssertionError("an unwatched Variable got a gradient")
    return y, [gx, gw]
""")

# ---------------------------------------------------------------- cut gradients

program("stop_gradient", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(x * w) + np.sum(sg.stop_gradient(x * w) * x)
    return y, tape.gradient(y, [x, w])
""", ref=lambda x, w, x0, w0: np.sum(x * w) + np.sum(x0 * w0 * x))

program("stop_recording", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        with tape.stop_recording():
            c = np.sum(x * w)
        y = np.sum(x ** 2) * c + np.sum(w)
    return y, tape.gradient(y, [x, w])
""", ref=lambda x, w, x0, w0: np.sum(x ** 2) * np.sum(x0 * w0) + np.sum(w))

program("unconnected_none", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.sin(x))
        z = np.sum(w)
    return y, tape.gradient(y, [x, w])
""")

program("unconnected_zero", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(np.sin(x) * x)
    return y, tape.gradient(y, [x, w], unconnected_gradients=sg.UnconnectedGradients.ZERO)
""")

program("computed_after_exit_is_cut", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        y = np.sum(x * w)
    z = y * np.sum(w)
    return y, tape.gradient(y, [x, w])
""")

# ---------------------------------------------------------------- random draws, effects
# A generator seeded before the block: every run of the program (the finite
# differences' too) draws the same values, so a tape that ran the block again
# (drawing anew) or appended twice fails here.

program("random_dropout_and_noise", "vector", """
    rng = np.random.default_rng(11)
    log = []
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        mask = rng.random(x.shape) < 0.5
        noise = rng.normal(size=x.shape)
        y = np.sum(np.where(mask, x * w, 0.0) / 0.5 + noise * x * x)
        log.append(float(y))
    assert len(log) == 1
    return y, tape.gradient(y, [x, w])
""")

program("random_draws_in_a_loop", "vector", """
    rng = np.random.default_rng(5)
    calls = [0]
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        h = x
        for _ in range(3):
            h = np.tanh(h * w + rng.normal(size=h.shape) * 0.1)
            calls[0] += 1
        y = np.sum(h * h)
    assert calls[0] == 3
    return y, tape.gradient(y, [x, w])
""")

program("random_draw_in_a_nested_tape", "scalar", """
    rng = np.random.default_rng(3)
    with sg.GradientTape() as outer:
        outer.watch(x)
        outer.watch(w)
        with sg.GradientTape() as inner:
            inner.watch(x)
            m = rng.random() + 0.5
            y = m * x ** 3 * w
        dy = inner.gradient(y, x)
        z = dy * w
    return z, outer.gradient(z, [x, w])
""")

# ---------------------------------------------------------------- higher order

program("nested_second_derivative", "scalar", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3 * w + np.sin(x * w)
        dy_dx = inner.gradient(y, x)
    return dy_dx, tape.gradient(dy_dx, [x, w])
""")

program("nested_gradient_norm_penalty", "vector", """
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.sin(x) * w)
        g = inner.gradient(y, x)
        penalty = np.sum(g * g) + np.sum(x * w)
    return penalty, tape.gradient(penalty, [x, w])
""")


# ================================================================ placements

PLACEMENT_NAMES = ["decorated", "plain", "manual", "module"]
_TAPE_WITH = re.compile(r"^(\s*)with (sg\.GradientTape\(.*\)) as tape:\s*$")


def to_manual(body):
    """``with sg.GradientTape(...) as tape:`` -> enter/exit by hand around the dedented block."""
    lines = body.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _TAPE_WITH.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent = m.group(1)
        out += [f"{indent}tape = {m.group(2)}", f"{indent}tape.__enter__()"]
        i += 1
        inner = indent + "    "
        while i < len(lines) and lines[i].startswith(inner):
            out.append(indent + lines[i][len(inner):])
            i += 1
        out.append(f"{indent}tape.__exit__(None, None, None)")
    return "\n".join(out)


def to_module(body):
    lines = body.splitlines()
    assert lines[-1].startswith("return "), "a program ends with a top-level return"
    assert not any(line.startswith("return ") for line in lines[:-1])
    return "\n".join(lines[:-1] + ["RESULT = " + lines[-1][len("return "):]])


def module_text(prog):
    functions = [
        "@sg.function\ndef prog_decorated(x, w):\n" + textwrap.indent(prog.body, "    "),
        "def prog_plain(x, w):\n" + textwrap.indent(prog.body, "    "),
        "def prog_manual(x, w):\n" + textwrap.indent(to_manual(prog.body), "    "),
    ]
    return HEADER + "\n\n" + "\n\n\n".join(functions) + "\n"


def script_text(prog):
    return HEADER + "\n" + to_module(prog.body) + "\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """program name -> {placement: callable(x, w) -> (value, grads)}"""
    root = tmp_path_factory.mktemp("tape_programs")
    out = {}
    for prog in PROGRAMS:
        path = root / f"tp_{prog.name}.py"
        path.write_text(module_text(prog))
        spec = importlib.util.spec_from_file_location(f"tp_{prog.name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        script = root / f"tp_{prog.name}_script.py"
        script.write_text(script_text(prog))

        def run_script(x, w, script=str(script)):
            return runpy.run_path(script, init_globals={"x": x, "w": w})["RESULT"]

        out[prog.name] = {
            "decorated": module.prog_decorated,
            "plain": module.prog_plain,
            "manual": module.prog_manual,
            "module": run_script,
        }
    return out


def inputs(kind):
    x, w = ARGS[kind]
    copy = (lambda v: v.copy()) if isinstance(x, np.ndarray) else (lambda v: v)
    return copy(x), (w.copy() if isinstance(w, np.ndarray) else w)


def finite_differences(f, args, eps=1e-6):
    """Central differences of scalar f(*args) w.r.t. each entry of each argument."""
    out = []
    for i, arg in enumerate(args):
        base = np.asarray(arg, dtype=np.float64)
        g = np.zeros(base.shape)
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            wrap = (lambda a: a) if isinstance(arg, np.ndarray) else (lambda a: float(a))
            a_plus, a_minus = list(args), list(args)
            a_plus[i], a_minus[i] = wrap(plus), wrap(minus)
            g[idx] = (float(f(*a_plus)) - float(f(*a_minus))) / (2 * eps)
        out.append(g)
    return out


def check_structure(grads, args):
    assert isinstance(grads, (list, tuple)) and len(grads) == 2, grads
    for g, a in zip(grads, args):
        if g is None:
            continue
        assert np.shape(g) == np.shape(a), (np.shape(g), np.shape(a))
        assert np.asarray(g).dtype == np.float64


def test_enough_programs():
    assert len(PROGRAMS) >= 40
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)


def test_manual_rewrite_shape():
    text = to_manual("a = 1\nwith sg.GradientTape(persistent=True) as tape:\n    y = x\n"
                     "    with sg.GradientTape() as inner:\n        z = y\nreturn y")
    assert text == ("a = 1\ntape = sg.GradientTape(persistent=True)\ntape.__enter__()\ny = x\n"
                    "with sg.GradientTape() as inner:\n    z = y\n"
                    "tape.__exit__(None, None, None)\nreturn y")


@pytest.mark.parametrize("placement", PLACEMENT_NAMES)
@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_matches_finite_differences(built, prog, placement):
    fn = built[prog.name][placement]
    x0, w0 = inputs(prog.kind)
    value, grads = fn(*inputs(prog.kind))
    check_structure(grads, (x0, w0))
    if prog.ref is None:
        numeric = finite_differences(lambda x, w: fn(x, w)[0], (x0, w0))
        assert np.isclose(float(value), float(fn(*inputs(prog.kind))[0]), rtol=1e-14)
    else:
        numeric = finite_differences(lambda x, w: prog.ref(x, w, x0, w0), (x0, w0))
    for name, g, n in zip("xw", grads, numeric):
        if g is None:
            np.testing.assert_allclose(n, 0.0, atol=1e-7,
                                       err_msg=f"{prog.name}: d/d{name} is None (unconnected)")
        else:
            np.testing.assert_allclose(np.asarray(g, dtype=np.float64), n, rtol=1e-5, atol=1e-7,
                                       err_msg=f"{prog.name}: d/d{name} ({placement})")


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_placements_agree(built, prog):
    results = {}
    errors = {}
    for placement in PLACEMENT_NAMES:
        try:
            results[placement] = built[prog.name][placement](*inputs(prog.kind))
        except Exception as e:  # report which placements fail, then fail
            errors[placement] = f"{type(e).__name__}: {e}"
    assert not errors, errors
    base_value, base_grads = results["plain"]
    for placement, (value, grads) in results.items():
        assert np.isclose(float(value), float(base_value), rtol=1e-13, atol=0), placement
        for g, b in zip(grads, base_grads):
            assert (g is None) == (b is None), (placement, g, b)
            if g is not None:
                np.testing.assert_allclose(g, b, rtol=1e-12, atol=1e-14, err_msg=placement)
