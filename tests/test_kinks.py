"""The gradient at a non-differentiable point: one stated subgradient per rule.

The conventions (README, "Semantics worth knowing"): the abs kink gives 0;
ties of elementwise max/min and of max/min reductions split the gradient
equally, the builtins ``max``/``min`` give it to the argument they return;
``np.clip`` passes it at its bounds; ``hypot``, the norms and ``np.std`` give 0
where their result is 0; ``arctan2`` gives 0 at the origin; an infinite
derivative is ``inf``. ``np.hypot(0, 0)`` used to give NaN (issue 12, class
11). Every value is checked in every form, through the compiler: ``sg.grad``,
``value_and_grad``, a tape in plain code and in ``@sg.function``.
``test_rule_table`` checks the same conventions on the rules alone.
"""
import math
import warnings

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import taped, taped_two


def every_form(f, *args):
    """The gradient of ``f`` at ``args`` by each of the four ways to ask for it."""
    wrt = 0 if len(args) == 1 else tuple(range(len(args)))
    tape = taped if len(args) == 1 else taped_two
    value, by_value_and_grad = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)
    return {
        "grad": sg.grad(f, wrt=wrt)(*args),
        "value_and_grad": by_value_and_grad,
        "tape": tape(f, *args),
        "function": sg.function(tape)(f, *args),
    }


def assert_every_form(f, args, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # e.g. sqrt's divide by zero
        got = every_form(f, *args)
    for form, grad in got.items():
        np.testing.assert_allclose(np.array(grad, dtype=float), np.array(want, dtype=float),
                                   rtol=1e-12, atol=1e-12, err_msg=form)


ARRAY_CASES = [
    # the abs kink: 0
    ("np.abs", lambda x: np.sum(np.abs(x)), [0.0, -2.0], [0.0, -1.0]),
    ("np.fabs", lambda x: np.sum(np.fabs(x)), [0.0, 3.0], [0.0, 1.0]),
    ("abs", lambda x: abs(x[0]) + abs(x[1]), [0.0, -1.0], [0.0, -1.0]),
    ("math.fabs", lambda x: math.fabs(x[0]), [0.0, 1.0], [0.0, 0.0]),
    # elementwise ties: halves
    ("np.maximum", lambda x: np.maximum(x[0], x[1]), [1.0, 1.0], [0.5, 0.5]),
    ("np.minimum", lambda x: np.minimum(x[0], x[1]), [1.0, 1.0], [0.5, 0.5]),
    ("np.fmax", lambda x: np.fmax(x[0], x[1]), [1.0, 1.0], [0.5, 0.5]),
    ("np.fmin", lambda x: np.fmin(x[0], x[1]), [1.0, 1.0], [0.5, 0.5]),
    ("relu", lambda x: np.sum(np.maximum(x, 0.0)), [0.0, 2.0], [0.5, 1.0]),
    # reduction ties: shared equally; the builtins: the argument returned
    ("np.max", lambda x: np.max(x), [1.0, 1.0, 0.0], [0.5, 0.5, 0.0]),
    ("x.min", lambda x: x.min(), [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]),
    ("np.amax axis", lambda x: np.sum(np.amax(x.reshape(2, 2), axis=1)), [1.0, 1.0, 2.0, 0.0],
     [0.5, 0.5, 1.0, 0.0]),
    ("max", lambda x: max(x[0], x[1]), [1.0, 1.0], [1.0, 0.0]),
    ("min", lambda x: min(x[0], x[1]), [1.0, 1.0], [1.0, 0.0]),
    ("norm inf", lambda x: np.linalg.norm(x, np.inf), [1.0, -1.0, 0.5], [0.5, -0.5, 0.0]),
    # clip: passed at the bounds, none to the bound
    ("np.clip", lambda x: np.sum(np.clip(x, -0.5, 0.5)), [-0.5, 0.5, 1.0], [1.0, 1.0, 0.0]),
    ("np.clip bound", lambda x: np.clip(x[0], x[1], 2.0), [0.0, 0.0], [1.0, 0.0]),
    # 0 where the result is 0
    ("np.hypot", lambda x: np.hypot(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    ("math.hypot", lambda x: math.hypot(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    ("norm", lambda x: np.linalg.norm(x), [0.0, 0.0], [0.0, 0.0]),
    ("norm 1", lambda x: np.linalg.norm(x, 1), [0.0, 0.0], [0.0, 0.0]),
    ("norm 3", lambda x: np.linalg.norm(x, 3), [0.0, 0.0], [0.0, 0.0]),
    ("norm -1", lambda x: np.linalg.norm(x, -1), [1.0, 0.0, 2.0], [0.0, 0.0, 0.0]),
    ("norm fro", lambda x: np.linalg.norm(x.reshape(1, 2), "fro"), [0.0, 0.0], [0.0, 0.0]),
    ("norm rows", lambda x: np.sum(np.linalg.norm(x.reshape(2, 2), axis=1)),
     [0.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.6, 0.8]),
    ("np.std", lambda x: np.std(x), [1.0, 1.0], [0.0, 0.0]),
    ("np.std one", lambda x: np.std(x[:1]) + x[1], [1.0, 1.0], [0.0, 1.0]),
    ("x.std ddof", lambda x: x.std(ddof=1), [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]),
    ("np.var", lambda x: np.var(x), [1.0, 1.0], [0.0, 0.0]),
    # the origin of arctan2
    ("np.arctan2", lambda x: np.arctan2(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    ("math.atan2", lambda x: math.atan2(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    # powers at 0
    ("0 ** 2", lambda x: x[0] ** x[1], [0.0, 2.0], [0.0, 0.0]),
    ("0 ** 0", lambda x: x[0] ** x[1], [0.0, 0.0], [0.0, 0.0]),
    ("np.power", lambda x: np.power(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    ("math.pow", lambda x: math.pow(x[0], x[1]), [0.0, 0.0], [0.0, 0.0]),
    ("x ** 1.5", lambda x: x[0] ** 1.5, [0.0, 1.0], [0.0, 0.0]),
    # the product of the others, with zeros
    ("np.prod", lambda x: np.prod(x), [0.0, 2.0, 3.0], [6.0, 0.0, 0.0]),
    # an infinite derivative is reported as such
    ("np.sqrt", lambda x: np.sqrt(x[0]), [0.0, 1.0], [np.inf, 0.0]),
    ("np.cbrt", lambda x: np.cbrt(x[0]), [0.0, 1.0], [np.inf, 0.0]),
    ("x ** 0.5", lambda x: x[0] ** 0.5, [0.0, 1.0], [np.inf, 0.0]),
    ("np.arcsin", lambda x: np.arcsin(x[0]), [1.0, 0.0], [np.inf, 0.0]),
    # a singular matrix: its cofactors
    ("det", lambda x: np.linalg.det(np.outer(x[:2], x[:2]) + np.eye(2) * x[2:]),
     [1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 4.0, 1.0]),
]


@pytest.mark.parametrize("name, f, x, want", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_kink_in_every_form(name, f, x, want):
    assert_every_form(f, (np.array(x),), want)


def hypot_of_floats(x, y):
    return math.hypot(x, y) + np.hypot(x, y)


def relu_of_floats(x, y):
    return max(x, 0.0) + np.maximum(y, 0.0)


def angle_of_floats(x, y):
    return np.arctan2(y, x) + abs(x) + abs(y)


@pytest.mark.parametrize("f, args, want", [
    # -0.0: two distinct objects (a tape tells its sources apart by identity)
    (hypot_of_floats, (0.0, -0.0), [0.0, 0.0]),
    (relu_of_floats, (0.0, -0.0), [1.0, 0.5]),
    (angle_of_floats, (0.0, -0.0), [0.0, 0.0]),
], ids=["hypot", "relu", "arctan2"])
def test_kink_of_python_floats(f, args, want):
    assert_every_form(f, args, want)


def no_nan_anywhere(x):
    r = np.hypot(x[0], x[1]) + np.linalg.norm(x[2:]) + np.std(x[2:])
    return r + np.arctan2(x[0], x[1])


def test_second_order_at_a_kink_is_finite():
    """Differentiating the subgradient again gives numbers, not NaN."""
    x = np.zeros(4)
    assert np.isfinite(sg.grad(no_nan_anywhere)(x)).all()
    hessian_row = sg.grad(lambda x: sg.grad(no_nan_anywhere)(x)[3])(x)
    assert np.isfinite(hessian_row).all()
