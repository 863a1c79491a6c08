"""``with np.errstate(...)`` (and ``warnings.catch_warnings()``, ``np.printoptions``)
around differentiated code: the statements run in the context, which is left after
them (``passes/contexts.py``); the values and gradients are the ones without it.
Refused before (with statement)."""
import warnings

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree

X = np.array([0.5, 2.0, 1.5])


def safe_log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(x > 0.0, np.log(np.abs(x)), 0.0)
    return np.sum(y * x)


def nested_states(x):
    with np.errstate(over="ignore"):
        a = np.exp(x)
        with np.errstate(divide="raise"):
            b = a / (x + 1.0)
        c = a * b
    return np.sum(c)


def warnings_caught(x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = np.sum(np.sqrt(x) * x)
        warnings.warn("inside")
    return y + 0.0 * len(caught)


def state_seen_inside(x):
    with np.errstate(divide="ignore"):
        y = np.log(x) * x
        state = np.geterr()["divide"]
    return np.sum(y), state


@pytest.mark.parametrize("f", [safe_log, nested_states, warnings_caught],
                         ids=lambda f: f.__name__)
def test_in_every_form(f):
    check_grads(f, (X.copy(),), order=2)
    assert_forms_agree(f, (X.copy(),), nonzero=True)
    assert np.geterr()["divide"] == "warn" and np.geterr()["over"] == "warn"


def test_the_state_holds_inside_and_is_put_back():
    # (The backward code runs under the caller's state: its 1/0 at x = 0 may warn.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, g = sg.value_and_grad(lambda x: safe_log(x))(np.array([0.5, 0.0, 2.0]))
    assert value == pytest.approx(safe_log(np.array([0.5, 0.0, 2.0])))
    np.testing.assert_allclose(g[[0, 2]], np.log([0.5, 2.0]) + 1.0)
    assert np.geterr()["divide"] == "warn"
    vg = sg.value_and_grad(lambda x: state_seen_inside(x)[0])
    assert vg(X.copy())[0] == pytest.approx(np.sum(np.log(X) * X))


def test_a_block_that_returns_inside_is_still_refused():
    def leaves(x):
        with np.errstate(divide="ignore"):
            return np.sum(np.log(x))
    with pytest.raises(sg.CompileError, match="with statement"):
        sg.grad(leaves)(X.copy())
