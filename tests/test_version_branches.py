"""``hasattr(np, "name")`` tests are decided when compiling (``normalize/normalizer.py``).

Code written for two NumPy versions picks a function by whether the module has it:
``np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y)``. Both branches were
compiled, and the one for the other version names a function this NumPy does not have,
so the whole function was refused. A module's attributes are fixed when the code is
compiled: the branch for this NumPy is compiled alone.
"""
import math

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.4, 1.3, 0.9])


def trapezoid_either_version(x):
    y = x ** 2 * np.sin(x)
    return np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y)


def branch_statement(x):
    if hasattr(np, "no_such_function_anywhere"):
        out = np.no_such_function_anywhere(x)
    else:
        out = np.tanh(x) * x
    return np.sum(out)


def negated_and_combined(x):
    if not hasattr(math, "cbrt") or not hasattr(np, "cbrt"):
        return np.sum(x ** 3)
    return np.sum(np.cbrt(x) * x)


@pytest.mark.parametrize("f", [trapezoid_either_version, branch_statement,
                               negated_and_combined])
def test_branch_for_this_numpy_only(f):
    assert_every_form(f, X.copy())


def missing_function(x):
    return np.sum(np.no_such_function_anywhere(x))


def test_a_missing_function_reached_is_still_refused():
    with pytest.raises(sg.CompileError, match="np.no_such_function_anywhere` does not exist"):
        sg.grad(missing_function)(X.copy())


def test_in_a_tape_block():
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
        area = np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y)
    np.testing.assert_allclose(tape.gradient(area, x), [0.4, 2 * 1.3, 0.9], rtol=1e-12)
