"""Imports inside a differentiated function (``from scipy.special import gammaln``,
``import scipy.linalg as sl``), also in a helper it calls, were refused ("import
statement inside a function is not supported"). Where nothing else binds the names,
they are imported when compiling (what running the line does) and read as the
modules and functions they are (compiler/source.py): checked in every form.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.53, 1.27, -0.71])


def import_module_as(x):
    import scipy.linalg as sl
    A = np.array([[x[0], x[1]], [0.0, x[2]]])
    return np.sum(sl.solve_triangular(A + 3 * np.eye(2), x[:2]))

def import_from(x):
    from scipy.special import gammaln, expit
    return np.sum(gammaln(x + 2.0) * expit(x))

def import_plain(x):
    import math
    return math.sin(x[0]) * x[1]

def import_submodule(x):
    import numpy.linalg
    return numpy.linalg.norm(x) ** 2

def helper(v):
    from numpy import tanh
    return tanh(v)

def import_in_helper(x):
    return np.sum(helper(x) * x)


CASES = [import_module_as, import_from, import_plain, import_submodule, import_in_helper]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    assert_every_form(f, X, nonzero=True)


def import_rebound(x):
    import math
    if x[0] > 10.0:
        math = np
    return math.fsum([x[0], x[1]])


def import_missing(x):
    if x[0] > 10.0:
        import no_such_module_anywhere  # noqa: F401  (never runs: a refusal all the same)
    return np.sum(x * x)


@pytest.mark.parametrize("f", [import_rebound, import_missing])
def test_an_import_that_is_not_the_name_s_only_binding_is_refused(f):
    with pytest.raises(sg.CompileError, match="import statement inside a function") as info:
        sg.grad(f)(X.copy())
    assert "test_imports_inside.py:" in str(info.value)
    assert "top of the module" in info.value.remedy
